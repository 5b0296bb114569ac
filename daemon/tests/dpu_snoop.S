/* SPDX-License-Identifier: MIT */
/* Hand-written x86-64 for dpu_snoop.c: what a hostile tenant's DPU image can
 * hold besides compiled DPU C.  Assembled for the image's ILP32 (x32) ABI;
 * 64-bit arguments arrive whole in rdi, rsi, rdx, rcx. */
    .text

/* uint64_t snoop_rdgsbase(void): the running DPU's MRAM window, as the worker
 * set it (FSGSBASE lets user code read it). */
    .globl snoop_rdgsbase
    .type snoop_rdgsbase, @function
snoop_rdgsbase:
    rdgsbase %rax
    ret
    .size snoop_rdgsbase, . - snoop_rdgsbase

/* uint64_t snoop_scan(uint64_t addr, uint64_t len, uint64_t s0k, uint64_t s1k,
 * uint64_t key): the address of the first 8-byte-aligned pair of words
 * (s0k ^ key, s1k ^ key) in [addr, addr + len), or 0.  The secret exists
 * only in registers: the image's memory holds it masked. */
    .globl snoop_scan
    .type snoop_scan, @function
snoop_scan:
    xorq %r8, %rdx            /* s0 */
    xorq %r8, %rcx            /* s1 */
    andq $-8, %rdi
    leaq -8(%rdi, %rsi), %rsi /* the last start of a pair */
1:  cmpq %rsi, %rdi
    jae 3f
    cmpq (%rdi), %rdx
    jne 2f
    cmpq 8(%rdi), %rcx
    jne 2f
    movq %rdi, %rax
    jmp 4f
2:  addq $8, %rdi
    jmp 1b
3:  xorl %eax, %eax
4:  xorl %edx, %edx           /* leave no secret behind */
    xorl %ecx, %ecx
    xorl %r8d, %r8d
    ret
    .size snoop_scan, . - snoop_scan

    .section .note.GNU-stack, "", @progbits
