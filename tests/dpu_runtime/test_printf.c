/* SPDX-License-Identifier: MIT */
/* DPU printf round trip: records in the MRAM log, text from dpu_log_read and
 * from dpulog_read_for_dpu (the older name PrIM's hosts call); the log is
 * emptied at each launch. */
#define _POSIX_C_SOURCE 200809L
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static char *log_of(struct dpu_set_t dpu, int old_name)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ(old_name ? dpulog_read_for_dpu(dpu.dpu, f) : dpu_log_read(dpu, f), DPU_OK);
    fclose(f);
    return text;
}

int main(void)
{
    struct dpu_set_t set, dpu;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "./dpu_printf", NULL));
    for (uint32_t launch = 1; launch <= 2; launch++) {
        DPU_ASSERT(dpu_copy_to(set, "launch_no", 0, &launch, 4));
        DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
        char want[2048];
        int at = snprintf(want, sizeof(want), "launch %u\n", launch);
        /* Tasklet 0 reaches the barrier last (its printf waited for a DMA); the
         * tasklets it wakes issue from one cycle after its wake, in tid order,
         * and it issues a revolver period after its last instruction: they
         * print in the order 1, 2, 0. */
        static const unsigned order[3] = { 1, 2, 0 };
        for (unsigned k = 0; k < 3; k++) {
            unsigned t = order[k];
            at += snprintf(want + at, sizeof(want) - (size_t)at, "tasklet %u: %d %lld %x %s %c %.2f|%5s|%-4d|\n", t,
                -(int)t, (long long)t << 40, 255u + t, "str", 'a' + (char)t, 1.5 * t, "ab", (int)t);
        }
        snprintf(want + at, sizeof(want) - (size_t)at, "puts line\njust text\nxyvia puts\n100%% done 7%%\n");
        DPU_FOREACH(set, dpu) {
            for (int old_name = 0; old_name <= 1; old_name++) {
                char *got = log_of(dpu, old_name);
                CHECK(strcmp(got, want) == 0);
                if (strcmp(got, want) != 0)
                    fprintf(stderr, "--- got ---\n%s--- want ---\n%s", got, want);
                free(got);
            }
        }
    }
    DPU_ASSERT(dpu_free(set));
    return check_done("test_printf");
}
