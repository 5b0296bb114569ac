/* SPDX-License-Identifier: MIT */
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

    .section .note.GNU-stack, "", @progbits
