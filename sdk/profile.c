#define _GNU_SOURCE
/* The profile string of dpu_alloc: "key=value,key=value", with the
 * environment's UPMEM_PROFILE_BASE before and UPMEM_PROFILE after the argument
 * (later keys win).  Unknown keys are ignored, as the UPMEM SDK does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no")) {
        *out = false;
        return 0;
    }
    return -1;
}

static int parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || x < lo || x > hi)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

static int apply(struct op_profile *p, const char *key, const char *val)
{
    uint32_t u;
    if (!strcmp(key, "chip") || !strcmp(key, "chipId")) {
        if (!strcmp(val, "v1A") || !strcmp(val, "v1a"))
            p->machine.chip = 'A';
        else if (!strcmp(val, "v1B") || !strcmp(val, "v1b"))
            p->machine.chip = 'B';
        else
            return -1;
    } else if (!strcmp(key, "nrRanks")) {
        if (parse_u32(val, 1, 1024, &p->machine.nr_ranks))
            return -1;
    } else if (!strcmp(key, "nrDpusPerRank")) {
        if (parse_u32(val, 1, 64, &p->machine.dpus_per_rank))
            return -1;
    } else if (!strcmp(key, "workers")) {
        if (parse_u32(val, 0, OP_MAX_WORKERS, &p->machine.workers))
            return -1;
    } else if (!strcmp(key, "timeoutMs")) {
        if (parse_u32(val, 0, UINT32_MAX, &u))
            return -1;
        p->machine.budget_ns = (uint64_t)u * 1000000u;
    } else if (!strcmp(key, "hostMemoryLimitMB")) {
        if (parse_u32(val, 1, UINT32_MAX, &u))
            return -1;
        p->machine.memory_limit = (uint64_t)u << 20;
    } else if (!strcmp(key, "sgXferEnable")) {
        if (parse_bool(val, &p->sg_enabled))
            return -1;
    } else if (!strcmp(key, "sgXferMaxBlocksPerDpu")) {
        if (parse_u32(val, 1, UINT32_MAX, &p->sg_max_blocks))
            return -1;
    } else if (!strcmp(key, "disableResetOnAlloc")) {
        if (parse_bool(val, &p->disable_reset))
            return -1;
    } else if (!strcmp(key, "backend")) {
        /* hw and simulator both mean the emulated machine here */
        if (strcmp(val, "hw") && strcmp(val, "simulator"))
            return -1;
    }
    return 0;
}

static dpu_error_t parse_into(const char *text, struct op_profile *p, char *err, size_t errlen)
{
    if (!text)
        return DPU_OK;
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        return DPU_ERR_SYSTEM;
    dpu_error_t rc = DPU_OK;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "profile entry '%s' is not key=value", item);
            rc = DPU_ERR_INVALID_PROFILE;
            break;
        }
        *eq = 0;
        if (apply(p, item, eq + 1) != 0) {
            snprintf(err, errlen, "profile key '%s' has an invalid value '%s'", item, eq + 1);
            rc = DPU_ERR_INVALID_PROFILE;
            break;
        }
    }
    free(copy);
    return rc;
}

dpu_error_t op_profile_parse(const char *profile, struct op_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->machine.chip = 'A';
    out->machine.nr_ranks = 40; /* the embedded default: a 2560-DPU server */
    out->machine.dpus_per_rank = 64;
    out->sg_max_blocks = UINT32_MAX;
    const char *parts[] = {getenv("UPMEM_PROFILE_BASE"), profile, getenv("UPMEM_PROFILE")};
    for (int i = 0; i < 3; i++) {
        dpu_error_t rc = parse_into(parts[i], out, err, errlen);
        if (rc != DPU_OK)
            return rc;
    }
    return DPU_OK;
}
