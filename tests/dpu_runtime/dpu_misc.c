/* SPDX-License-Identifier: MIT */
/* exit() ends only its tasklet; perfcounter; per-tasklet errno; buddy and
 * fixed-size-block allocators; a few libc functions. */
#include <alloc.h>
#include <barrier.h>
#include <buddy_alloc.h>
#include <defs.h>
#include <errno.h>
#include <fsb_allocator.h>
#include <perfcounter.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

BARRIER_INIT(all, NR_TASKLETS);

__host uint32_t after_exit[NR_TASKLETS];
__host uint32_t errno_of[NR_TASKLETS];
__host uint64_t perf[4];
__host uint32_t checks_failed;
__host uint32_t checks_run;
__host uint32_t spin_sink;

#define EXPECT(c) (checks_run++, (c) ? (void)0 : (void)checks_failed++)

static void leave(void)
{
    exit(3);
}

int main(void)
{
    uint32_t tid = me();
    if (tid == 0) {
        mem_reset();
        checks_failed = 0;
        checks_run = 0;
    }
    after_exit[tid] = 0;
    barrier_wait(&all);
    errno = (int)(100 + tid);
    barrier_wait(&all);
    errno_of[tid] = (uint32_t)errno;

    if (tid == 0) {
        perfcounter_config(COUNT_CYCLES, true);
        perf[0] = perfcounter_get();
        for (int i = 0; i < 1000; i++)
            *(volatile uint32_t *)&spin_sink += (uint32_t)i;
        perf[1] = perfcounter_get();
        perf[2] = perfcounter_config(COUNT_NOTHING, false);
        perf[3] = perfcounter_get();

        buddy_init(4096);
        uint8_t *a = buddy_alloc(100), *b = buddy_alloc(100), *c = buddy_alloc(2048);
        EXPECT(a && b && c && ((uintptr_t)a & 7) == 0 && b - a == 128);
        EXPECT(buddy_alloc(4096) == NULL && errno == ENOMEM);
        buddy_free(a + 50); /* any address inside the block */
        uint8_t *d = buddy_alloc(128);
        EXPECT(d == a);
        buddy_free(b);
        buddy_free(d);
        buddy_free(c);
        EXPECT(buddy_alloc(4096) != NULL);

        fsb_allocator_t pool = fsb_alloc(12, 3);
        void *x = fsb_get(pool), *y = fsb_get(pool), *z = fsb_get(pool);
        EXPECT(x && y && z && fsb_get(pool) == NULL);
        EXPECT((uint8_t *)y - (uint8_t *)x == 16);
        fsb_free(pool, y);
        EXPECT(fsb_get(pool) == y);

        char s[32];
        strcpy(s, "hello");
        strcat(s, " dpu");
        EXPECT(strcmp(s, "hello dpu") == 0 && strlen(s) == 9);
        EXPECT(strtol("-0x1f", NULL, 16) == -31 && atoi("  42x") == 42 && strtoul("777", NULL, 8) == 511);
        EXPECT(memcmp("abc", "abd", 3) < 0 && strchr(s, 'd') == s + 6 && strstr(s, "dp") == s + 6);
        memmove(s + 1, s, 5);
        EXPECT(memcmp(s, "hhello", 6) == 0);
    }
    barrier_wait(&all);
    if (tid % 2 == 1)
        leave();
    after_exit[tid] = 1;
    return 0;
}
