/* Coroutine switch for tasklets (System V x86-64).
 * op_switch(void **save_sp, void *next_sp): saves the callee-saved registers on
 * the current stack, stores its stack pointer in *save_sp and resumes next_sp.
 * op_tasklet_start: first frame of a new tasklet; calls r12() (DPU code), then
 * r13() (the worker's tasklet end) through op_service_entry.
 * op_call_on_stack: runs one function of the image on a given stack (boot).
 * op_service_entry: how DPU code reaches a worker service (r11 = the service):
 * the service runs on the current tasklet's service stack (op_service_sp), so
 * that no worker frame, return address or saved register is ever left in
 * memory DPU code can read (its stack lies below 4 GB, service stacks above).
 * The image reaches a service through a trampoline (worker.c, map_env) that
 * puts the service in r11 and jumps to one of the two entries below. */
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
    /* forget the worker values op_switch just popped from this stack */
    movq $0, -8(%rsp)
    movq $0, -16(%rsp)
    movq $0, -24(%rsp)
    movq $0, -32(%rsp)
    movq $0, -40(%rsp)
    movq $0, -48(%rsp)
    movq $0, -56(%rsp)
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
    callq *%r11
    addq $8, %rsp
    popq %rsp
    ret
    .size op_service_entry, .-op_service_entry

    /* op_service_entry_all: the same for the services DPU code calls with
     * LLVM's preserve_most convention (switch points and race checks, from
     * any point of its code): every general register but r11 survives. */
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
    callq *%r11
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
