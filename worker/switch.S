/* SPDX-License-Identifier: MIT */
/* Coroutine switch for tasklets (System V x86-64).
 * op_switch(void **save_sp, void *next_sp): saves the callee-saved registers on
 * the current stack, stores its stack pointer in *save_sp and resumes next_sp.
 * op_tasklet_start: first frame of a new tasklet, on its service stack: moves
 * to its stack in WRAM (r14), calls r12() (DPU code), then the exit service
 * (index r13) through op_service_entry.  Nothing of the worker is written on
 * the WRAM stack, and DPU code starts with no worker address in a register.
 * op_service_entry: how DPU code reaches a worker service (r11 = the
 * service's index, checked): the service runs on the current tasklet's
 * service stack (op_service_sp), so that no worker frame, return address or
 * saved register is ever left in memory DPU code can read (its stack lies
 * below 4 GB, service stacks above); the registers a service may leave worker
 * values in (the caller-saved ones but rax, its result) are cleared before
 * DPU code runs again.
 * op_service_entry_all: the same for the services DPU code calls with LLVM's
 * preserve_most convention (switch points and race checks, from any point of
 * its code): every general register but r11 survives; the vector registers,
 * which that convention does not keep, are cleared.
 * op_call_on_stack: runs one function of the image on a given stack (boot). */
    /* the vector registers, where a service may leave worker values */
    .macro clear_vectors
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
    pxor %xmm\n, %xmm\n
    .endr
    .endm

    .text
    .globl op_switch
    .type op_switch, @function
op_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size op_switch, .-op_switch

    .globl op_tasklet_start
    .type op_tasklet_start, @function
op_tasklet_start:
    movq %r14, %rsp
    xorl %r14d, %r14d
    andq $-16, %rsp
    callq *%r12
    movq %r13, %r11
    callq op_service_entry
    ud2
    .size op_tasklet_start, .-op_tasklet_start

    .globl op_service_entry
    .type op_service_entry, @function
op_service_entry:
    movq %rsp, %rax
    movq op_service_sp(%rip), %rsp
    pushq %rax
    subq $8, %rsp
    cmpq op_service_count(%rip), %r11
    jae 1f
    leaq op_service_table(%rip), %rax
    callq *(%rax,%r11,8)
    xorl %ecx, %ecx
    xorl %edx, %edx
    xorl %esi, %esi
    xorl %edi, %edi
    xorl %r8d, %r8d
    xorl %r9d, %r9d
    xorl %r10d, %r10d
    xorl %r11d, %r11d
    clear_vectors
    addq $8, %rsp
    popq %rsp
    ret
1:
    callq op_service_bad
    ud2
    .size op_service_entry, .-op_service_entry

    .globl op_service_entry_all
    .type op_service_entry_all, @function
op_service_entry_all:
    xchgq %rsp, op_service_sp(%rip)  /* the service stack; op_service_sp: the tasklet's rsp */
    pushq op_service_sp(%rip)
    pushq %rax
    leaq 16(%rsp), %rax
    movq %rax, op_service_sp(%rip)   /* the service stack's top again */
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %r8
    pushq %r9
    pushq %r10
    subq $8, %rsp
    cmpq op_service_count(%rip), %r11
    jae 1f
    leaq op_service_table(%rip), %rax
    callq *(%rax,%r11,8)
    xorl %r11d, %r11d
    clear_vectors
    addq $8, %rsp
    popq %r10
    popq %r9
    popq %r8
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rax
    popq %rsp
    ret
1:
    callq op_service_bad
    ud2
    .size op_service_entry_all, .-op_service_entry_all

    /* op_call_on_stack(void (*fn)(void), void *sp): calls fn() with the
     * stack pointer at sp (16-aligned, below 4 GB: DPU code's __op_boot, which
     * must run on a tasklet stack) and returns on the caller's stack.  The
     * worker's stack pointer waits in op_call_saved_sp, and the callee-saved
     * registers are zero during the call, so that nothing of the worker's is
     * left in memory DPU code can read but the return address, which is
     * cleared afterwards. */
    .globl op_call_on_stack
    .type op_call_on_stack, @function
op_call_on_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, op_call_saved_sp(%rip)
    movq %rsi, %rsp
    xorl %ebp, %ebp
    xorl %ebx, %ebx
    xorl %r12d, %r12d
    xorl %r13d, %r13d
    xorl %r14d, %r14d
    xorl %r15d, %r15d
    callq *%rdi
    movq $0, -8(%rsp)
    movq op_call_saved_sp(%rip), %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size op_call_on_stack, .-op_call_on_stack

    .local op_call_saved_sp
    .comm op_call_saved_sp, 8, 8

    .section .note.GNU-stack,"",@progbits
