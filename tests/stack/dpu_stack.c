/* Tasklet stacks are their declared budgets of WRAM (STACK_SIZE_DEFAULT=512
 * here, 24 tasklets): a frame that fits runs, one that does not faults the
 * tasklet that made it, as the DPU would overwrite the WRAM below instead. */
#include <barrier.h>
#include <defs.h>
#include <stdint.h>

__host uint32_t mode, culprit;
__host uint32_t sums[NR_TASKLETS];
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

int main(void)
{
    barrier_wait(&everyone);
    sums[me()] = fits(me());
    barrier_wait(&everyone);
    if (mode == 1 && me() == culprit)
        sums[me()] = too_big(me());
    return 0;
}
