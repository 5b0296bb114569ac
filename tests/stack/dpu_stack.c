/* SPDX-License-Identifier: MIT */
/* Tasklet stacks are their declared budgets counted in DPU frames
 * (STACK_SIZE_DEFAULT=512 here, 24 tasklets): a frame that fits runs, one
 * that does not faults the tasklet that made it, naming the function, as the
 * DPU would overwrite the WRAM beyond its stack instead.
 *   mode 0: every tasklet uses 256 bytes;   mode 1: tasklet `culprit` makes a
 *   640-byte frame (a function called through a pointer);   mode 2: `culprit` recurses `depth` levels, recording
 *   check_stack() at the first 8;   mode 3: `culprit` exhausts its native
 *   (x86) stack, the emulator's own guard;   mode 4: as 2, then printf. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>
#include <stdio.h>

__host uint32_t mode, culprit, depth;
__host uint32_t sums[NR_TASKLETS], levels[8];
BARRIER_INIT(everyone, NR_TASKLETS);

static __attribute__((noinline)) uint32_t fits(uint32_t seed)
{
    volatile uint32_t a[64]; /* 256 bytes of a 512-byte stack */
    for (uint32_t i = 0; i < 64; i++)
        a[i] = seed + i;
    uint32_t s = 0;
    for (uint32_t i = 0; i < 64; i++)
        s += a[i];
    return s;
}

static __attribute__((noinline)) uint32_t too_big(uint32_t seed)
{
    volatile uint32_t a[160]; /* 640 bytes: more than the whole stack */
    for (uint32_t i = 0; i < 160; i++)
        a[i] = seed + i;
    return a[seed % 160];
}

/* called through a pointer: the callee charges its own frame */
static uint32_t (*volatile too_big_ptr)(uint32_t) = too_big;

static __attribute__((noinline)) uint32_t rec(uint32_t n, uint32_t level)
{
    if (level < 8)
        levels[level] = (uint32_t)check_stack();
    if (n <= 1)
        return level;
    return 2 * rec(n - 1, level + 1) + 1; /* not a tail call: the recursion stays one */
}

/* rec, then printf at the deepest level: printf costs the DPU stack UPMEM's
 * printf needs (48 bytes), whatever the emulator's own printf does. */
static __attribute__((noinline)) uint32_t rec_print(uint32_t n, uint32_t level)
{
    if (level < 8)
        levels[level] = (uint32_t)check_stack();
    if (n <= 1) {
        printf("%u\n", level);
        return level;
    }
    return 2 * rec_print(n - 1, level + 1) + 1;
}

/* Called with the stack pointer just above the native stack's limit: its
 * split-stack prologue finds no room for its x86 frame. */
__attribute__((noinline, used)) uint32_t native_probe(void)
{
    volatile uint32_t a[16];
    a[0] = 1;
    return a[0];
}

int main(void)
{
    barrier_wait(&everyone);
    sums[me()] = fits(me());
    barrier_wait(&everyone);
    if (me() != culprit)
        return 0;
    if (mode == 1)
        sums[me()] = too_big_ptr(me());
    else if (mode == 2)
        sums[me()] = rec(depth, 0);
    else if (mode == 4)
        sums[me()] = rec_print(depth, 0);
    else if (mode == 3) { /* x86 code of this test's own: DPU programs have no reason to move the stack */
        uint32_t limit;
        __asm__ volatile("movl %%fs:0x40, %k0\n\t"
                         "leal 8(%q0), %%esp\n\t"
                         "call native_probe"
                         : "=&r"(limit)
                         :
                         : "memory");
    }
    return 0;
}
