/* Raw machine code for dpu_sandbox.c: what DPU C cannot say itself.
 * Assembled for the image's ILP32 (x32) ABI; 64-bit arguments arrive whole in
 * rdi, rsi, rdx, rcx, r8, r9. */
    .text

/* long long op_sys(long long nr, a0, a1, a2, a3, a4): system call nr with
 * six arguments, the sixth 0 (the kernel's order: rdi, rsi, rdx, r10, r8, r9). */
    .globl op_sys
    .type op_sys, @function
op_sys:
    mov %rdi, %rax
    mov %rsi, %rdi
    mov %rdx, %rsi
    mov %rcx, %rdx
    mov %r8, %r10
    mov %r9, %r8
    xor %r9d, %r9d
    syscall
    ret
    .size op_sys, . - op_sys

/* void op_big_frame(unsigned long long size): a stack frame of `size` bytes,
 * as a huge local array would make, written from its lowest byte up every
 * 512 bytes. */
    .globl op_big_frame
    .type op_big_frame, @function
op_big_frame:
    mov %rsp, %rcx
    sub %rdi, %rsp
    mov %rsp, %rax
1:  movb $1, (%rax)
    add $512, %rax
    cmp %rcx, %rax
    jb 1b
    mov %rcx, %rsp
    ret
    .size op_big_frame, . - op_big_frame

    .section .note.GNU-stack, "", @progbits
