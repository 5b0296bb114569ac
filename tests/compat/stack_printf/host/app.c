/* SPDX-License-Identifier: MIT */
/* Each tasklet prints one line built in a 520-byte stack buffer: the DPU's
 * log holds exactly the lines the host builds from the same formula. */
#include <dpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    struct dpu_set_t set, dpu;
    uint32_t seed = 7;
    DPU_ASSERT(dpu_alloc(1, NULL, &set));
    DPU_ASSERT(dpu_load(set, "dpu_printf", NULL));
    DPU_ASSERT(dpu_copy_to(set, "seed", 0, &seed, sizeof(seed)));
    if (dpu_launch(set, DPU_SYNCHRONOUS) != DPU_OK) {
        DPU_FOREACH (set, dpu) {
            struct openpim_fault f;
            DPU_ASSERT(openpim_get_fault(dpu, &f));
            printf("[ERROR] the launch faulted: %s\n", f.message);
        }
        return 1;
    }
    char *log = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&log, &len);
    DPU_FOREACH (set, dpu)
        DPU_ASSERT(dpu_log_read(dpu, f));
    fclose(f);
    char want[4096] = "";
    for (uint32_t t = 0; t < NR_TASKLETS; t++) {
        char line[41];
        for (uint32_t n = 0; n < 40; n++)
            line[n] = (char)('a' + (seed + t + n) % 26);
        line[40] = '\0';
        snprintf(want + strlen(want), sizeof want - strlen(want), "tasklet %u: %s %u %lld\n", t, line, 519u & 0xff,
                 (long long)(seed + t) * 3);
    }
    DPU_ASSERT(dpu_free(set));
    if (!log || strstr(log, want) == NULL) {
        printf("[ERROR] the log is:\n%s\nexpected it to contain:\n%s", log ? log : "", want);
        free(log);
        return 1;
    }
    free(log);
    printf("[OK] printf from a 520-byte buffer on a 1 KB stack, %d tasklets\n", NR_TASKLETS);
    return 0;
}
