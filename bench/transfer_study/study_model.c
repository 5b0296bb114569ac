/* SPDX-License-Identifier: MIT */
/* Data-transfer study ([XferStudy]): every point of the plan (plan.h) at
 * every rank count, evaluated on the timing model directly (op_xfer_time_us,
 * timing/xfer_model.c), the SDK's own mapping of each call: points too large
 * for this host's memory (64 MB per DPU on 40 ranks is 160 GB of MRAM) get
 * their modelled time this way; study_host's end-to-end records must agree
 * where both exist (the report checks it).
 *
 *   study_model            machine: the compiled v1A description, then the
 *                          keys of $UPMEM_PROFILE as the SDK applies them
 *                          (e.g. desc_file=timing/presets/v1B.desc)
 *   -> model,KIND,RANKS,BYTES_PER_DPU,BLOCK,MODELLED_US */
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>

#include "plan.h"

static struct op_machine_desc D;

/* One SDK call on ranks 0 .. nranks-1, every DPU of each (dpu_alloc_ranks). */
static double call_us(enum op_xfer_dir dir, enum op_xfer_kind kind, enum op_xfer_target target, unsigned nranks,
                      uint64_t bytes)
{
    struct op_xfer_rank r[OP_TIMING_MAX_RANKS];
    for (unsigned i = 0; i < nranks; i++) {
        r[i].rank = i;
        r[i].channel = OP_XFER_CHANNEL_AUTO;
        r[i].nr_dpus = D.chips_per_rank * D.dpus_per_chip;
    }
    struct op_xfer_desc x = {.dir = dir, .kind = kind, .target = target, .bytes_per_dpu = bytes,
                             .nr_ranks = nranks, .ranks = r};
    return op_xfer_time_us(&D, &x);
}

static void point(const struct study_point *p, void *arg)
{
    unsigned nranks = *(const unsigned *)arg;
    double us = 0;
    switch (p->kind) {
    case STUDY_BCAST:
        us = (double)(p->size / p->block) * call_us(OP_XFER_TO_DPU, OP_XFER_BROADCAST, OP_XFER_MRAM, nranks, p->block);
        break;
    case STUDY_TO:
        us = call_us(OP_XFER_TO_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, nranks, p->size);
        break;
    case STUDY_FROM:
        us = call_us(OP_XFER_FROM_DPU, OP_XFER_PARALLEL, OP_XFER_MRAM, nranks, p->size);
        break;
    case STUDY_WBCAST:
        us = call_us(OP_XFER_TO_DPU, OP_XFER_BROADCAST, OP_XFER_WRAM, nranks, p->size);
        break;
    }
    printf("model,%s,%u,%llu,%llu,%.3f\n", study_kind_name[p->kind], nranks, (unsigned long long)p->size,
           (unsigned long long)p->block, us);
}

int main(void)
{
    if (op_machine_desc_preset("v1A", &D)) {
        fprintf(stderr, "study_model: no v1A preset\n");
        return 1;
    }
    const char *prof = getenv("UPMEM_PROFILE");
    if (prof && *prof && op_machine_desc_apply(&D, prof) < 0) {
        fprintf(stderr, "study_model: bad UPMEM_PROFILE '%s'\n", prof);
        return 1;
    }
    for (unsigned i = 0; i < STUDY_NR_RANKS; i++) {
        unsigned n = study_ranks[i];
        if (n > D.nr_ranks) {
            fprintf(stderr, "study_model: the machine has %u ranks, the plan needs %u\n", D.nr_ranks, n);
            return 1;
        }
        study_for_each_point(point, &n);
    }
    return 0;
}
