/* Coroutine switch for tasklets (System V x86-64).
 * op_switch(void **save_sp, void *next_sp): saves the callee-saved registers on
 * the current stack, stores its stack pointer in *save_sp and resumes next_sp.
 * op_tasklet_start: first frame of a new tasklet; calls r12(), then r13(). */
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
    andq $-16, %rsp
    callq *%r12
    callq *%r13
    ud2
    .size op_tasklet_start, .-op_tasklet_start
    .section .note.GNU-stack,"",@progbits
