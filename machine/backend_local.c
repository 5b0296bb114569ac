/* SPDX-License-Identifier: MIT */
/* The embedded backend: the emulated machine of this process (machine.h)
 * behind the operations table of backend/backend.h.  Everything that touches
 * the machine's memory mappings is here or in machine.c; nothing else of the
 * host library sees a pointer into emulated memory. */
#define _GNU_SOURCE /* mincore */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "domain.h"
#include "machine.h"

struct local {
    struct op_backend base;
    struct op_machine *m;
    pthread_mutex_t lock; /* claimed[] */
    uint8_t *claimed;     /* per rank */
    uint32_t nr_ranks, per_rank;
};

static struct local *L(struct op_backend *b)
{
    return (struct local *)b;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void local_close(struct op_backend *b)
{
    struct local *l = L(b);
    op_machine_destroy(l->m);
    pthread_mutex_destroy(&l->lock);
    free(l->claimed);
    free(l);
}

static void local_info(struct op_backend *b, struct op_backend_info *out)
{
    struct op_machine *m = L(b)->m;
    memset(out, 0, sizeof *out);
    out->desc = op_machine_config(m)->desc;
    out->nr_dpus = op_machine_nr_dpus(m);
    out->dpus_per_rank = op_machine_dpus_per_rank(m);
    out->mram_size = op_machine_mram_size(m);
    out->wram_size = op_machine_wram_size(m);
}

static int local_claim_rank(struct op_backend *b, uint32_t rank, char *err, size_t errlen)
{
    struct local *l = L(b);
    if (rank >= l->nr_ranks)
        return fail(err, errlen, "no rank %u: the machine has %u", rank, l->nr_ranks);
    pthread_mutex_lock(&l->lock);
    int taken = l->claimed[rank];
    l->claimed[rank] = 1;
    pthread_mutex_unlock(&l->lock);
    return taken ? fail(err, errlen, "rank %u is in use", rank) : 0;
}

/* The rank goes back to the default pool; a pool it leaves has its workers
 * ended first (they had its memory mapped) and the rank is reset again after
 * that, so that nothing one of them wrote meanwhile remains: the reset before
 * only gives its shared chunks back (leaving a pool copies those it keeps). */
static void local_release_rank(struct op_backend *b, uint32_t rank)
{
    struct local *l = L(b);
    if (rank >= l->nr_ranks)
        return;
    for (uint32_t i = 0; i < l->per_rank; i++)
        op_machine_unload(l->m, rank * l->per_rank + i);
    op_machine_reset_rank(l->m, rank);
    char err[128];
    if (op_machine_rank_pool(l->m, rank) != op_machine_default_pool(l->m) &&
        op_machine_bind_rank(l->m, rank, op_machine_default_pool(l->m), err, sizeof err) == 0)
        op_machine_reset_rank(l->m, rank);
    pthread_mutex_lock(&l->lock);
    l->claimed[rank] = 0;
    pthread_mutex_unlock(&l->lock);
}

static struct op_backend_program *local_program_open(struct op_backend *b, const void *elf, size_t len, char *err,
                                                     size_t errlen)
{
    (void)b;
    return (struct op_backend_program *)op_program_create(elf, len, err, errlen);
}

static struct op_backend_program *local_program_open_fd(struct op_backend *b, int fd, size_t len, char *err,
                                                        size_t errlen)
{
    (void)b;
    return (struct op_backend_program *)op_program_create_fd(fd, len, err, errlen);
}

static void local_program_close(struct op_backend *b, struct op_backend_program *p)
{
    (void)b;
    op_program_put((struct op_program *)p);
}

static int check_dpus(struct local *l, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    uint32_t nr = op_machine_nr_dpus(l->m);
    for (uint32_t i = 0; i < n; i++)
        if (dpus[i] >= nr)
            return fail(err, errlen, "no DPU %u: the machine has %u", dpus[i], nr);
    return 0;
}

static int local_load(struct op_backend *b, const uint32_t *dpus, uint32_t n, struct op_backend_program *p, char *err,
                      size_t errlen)
{
    struct local *l = L(b);
    if (check_dpus(l, dpus, n, err, errlen) != 0)
        return -1;
    /* op_machine_load refuses before it writes, for reasons that hold for
     * every DPU alike: the first DPU decides for all */
    for (uint32_t i = 0; i < n; i++)
        if (op_machine_load(l->m, dpus[i], (struct op_program *)p, err, errlen) != 0)
            return -1;
    return 0;
}

/* Where [off, off + len) of a region lies in the host's mapping; NULL (err
 * filled) when it is not inside the region. */
static uint8_t *place(struct local *l, uint32_t dpu, enum op_region region, uint64_t off, size_t len, char *err,
                      size_t errlen)
{
    uint64_t size = region == OP_REGION_MRAM ? op_machine_mram_size(l->m)
                  : region == OP_REGION_WRAM ? OP_WRAM_STRIDE
                                             : 0;
    if (!size) {
        fail(err, errlen, "DPU memory region %d cannot be accessed by the host", (int)region);
        return NULL;
    }
    if (dpu >= op_machine_nr_dpus(l->m) || off > size || len > size - off) {
        fail(err, errlen, "access of %zu bytes at offset %llu outside the DPU's memory", len, (unsigned long long)off);
        return NULL;
    }
    return (region == OP_REGION_MRAM ? op_machine_mram(l->m, dpu) : op_machine_wram(l->m, dpu)) + off;
}

static int local_write_watched(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region,
                               uint32_t off, const void *const *src, uint32_t nsrc, size_t len, op_watch_fn *watch,
                               void *arg, char *err, size_t errlen)
{
    struct local *l = L(b);
    if (nsrc != 1 && nsrc != n)
        return fail(err, errlen, "write: %u sources for %u DPUs", nsrc, n);
    for (uint32_t i = 0; i < n; i++)
        if (!place(l, dpus[i], region, off, len, err, errlen))
            return -1;
    if (region == OP_REGION_MRAM)
        return op_machine_mram_write_watched(l->m, dpus, n, off, src, nsrc, len, watch, arg, err, errlen);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(place(l, dpus[i], region, off, len, err, errlen), src[nsrc == 1 ? 0 : i], len);
        if (watch)
            watch(arg, i + 1);
    }
    return 0;
}

static int local_write(struct op_backend *b, const uint32_t *dpus, uint32_t n, enum op_region region, uint32_t off,
                       const void *const *src, uint32_t nsrc, size_t len, char *err, size_t errlen)
{
    return local_write_watched(b, dpus, n, region, off, src, nsrc, len, NULL, NULL, err, errlen);
}

static int local_check_room(struct op_backend *b, const uint32_t *dpus, uint32_t n, uint32_t off, size_t len,
                            char *err, size_t errlen)
{
    struct local *l = L(b);
    for (uint32_t i = 0; i < n; i++)
        if (!place(l, dpus[i], OP_REGION_MRAM, off, len, err, errlen))
            return -1;
    return op_machine_check_mram_write(l->m, dpus, n, off, len, err, errlen);
}

static int local_read(struct op_backend *b, uint32_t dpu, enum op_region region, uint32_t off, void *dst, size_t len,
                      char *err, size_t errlen)
{
    struct local *l = L(b);
    uint8_t *p = place(l, dpu, region, off, len, err, errlen);
    if (!p)
        return -1;
    if (region == OP_REGION_MRAM)
        op_machine_mram_read(l->m, dpu, off, dst, len); /* unbacked pages stay unbacked */
    else
        memcpy(dst, p, len);
    return 0;
}

static int check_view(struct local *l, const uint32_t dpus[8], uint64_t off, size_t size, char *err, size_t errlen)
{
    if (check_dpus(l, dpus, 8, err, errlen) != 0)
        return -1;
    uint64_t mram = op_machine_mram_size(l->m);
    if (off % 8 || size % OP_DOMAIN_LINE || off > mram || size / 8 > mram - off)
        return fail(err, errlen, "rank view: %zu bytes at MRAM offset %llu are not whole lines inside MRAM", size,
                    (unsigned long long)off);
    return 0;
}

static int local_view_write(struct op_backend *b, const uint32_t dpus[8], uint64_t off, const void *lines,
                            size_t size, char *err, size_t errlen)
{
    struct local *l = L(b);
    if (check_view(l, dpus, off, size, err, errlen) != 0 ||
        op_machine_check_mram_write(l->m, dpus, 8, off, size / 8, err, errlen) != 0)
        return -1;
    uint8_t *dst[8];
    for (uint32_t chip = 0; chip < 8; chip++) {
        if (op_machine_mram_prepare(l->m, dpus[chip], off, size / 8, err, errlen) != 0)
            return -1;
        dst[chip] = op_machine_mram(l->m, dpus[chip]) + off;
    }
    op_domain_to_dpus(lines, size / OP_DOMAIN_LINE, dst);
    return 0;
}

/* Whether every page of [p, p + len) of the MRAM mapping is backed, so that
 * reading it through the mapping allocates nothing. */
static int resident(const uint8_t *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1), end = (uintptr_t)p + len;
    unsigned char vec[4096];
    while (start < end) {
        size_t pages = (end - start + page - 1) / page;
        if (pages > sizeof vec)
            pages = sizeof vec;
        if (mincore((void *)start, pages * page, vec) != 0)
            return 0;
        for (size_t i = 0; i < pages; i++)
            if (!(vec[i] & 1))
                return 0;
        start += pages * page;
    }
    return 1;
}

#define STAGE_WORDS 4096u /* words per DPU converted per step when reading through pread */

static int local_view_read(struct op_backend *b, const uint32_t dpus[8], uint64_t off, void *lines, size_t size,
                           char *err, size_t errlen)
{
    struct local *l = L(b);
    if (check_view(l, dpus, off, size, err, errlen) != 0)
        return -1;
    size_t words = size / OP_DOMAIN_LINE;
    const uint8_t *src[8];
    int direct = 1;
    for (uint32_t chip = 0; chip < 8; chip++) {
        src[chip] = op_machine_mram(l->m, dpus[chip]) + off;
        direct = direct && resident(src[chip], size / 8);
    }
    if (direct) {
        op_dpus_to_domain(src, words, lines);
        return 0;
    }
    /* MRAM never written reads as zeros without being backed: go through
     * op_machine_mram_read in steps of STAGE_WORDS words per DPU */
    size_t step = words < STAGE_WORDS ? words : STAGE_WORDS;
    uint8_t *stage = malloc(step * OP_DOMAIN_LINE);
    if (!stage)
        return fail(err, errlen, "out of memory");
    uint8_t *part[8];
    const uint8_t *cpart[8];
    for (uint32_t chip = 0; chip < 8; chip++)
        cpart[chip] = part[chip] = stage + chip * step * 8;
    for (size_t done = 0; done < words; done += step) {
        size_t n = words - done < step ? words - done : step;
        for (uint32_t chip = 0; chip < 8; chip++)
            op_machine_mram_read(l->m, dpus[chip], off + 8 * done, part[chip], 8 * n);
        op_dpus_to_domain(cpart, n, (uint8_t *)lines + OP_DOMAIN_LINE * done);
    }
    free(stage);
    return 0;
}

static int local_launch_watched(struct op_backend *b, const uint32_t *dpus, uint32_t n, op_watch_fn *watch,
                                void *arg, char *err, size_t errlen)
{
    struct local *l = L(b);
    if (check_dpus(l, dpus, n, err, errlen) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        if (!op_machine_program(l->m, dpus[i]))
            return fail(err, errlen, "DPU %u has no program", dpus[i]);
    return op_machine_launch_watched(l->m, dpus, n, watch, arg, err, errlen);
}

static int local_launch(struct op_backend *b, const uint32_t *dpus, uint32_t n, char *err, size_t errlen)
{
    return local_launch_watched(b, dpus, n, NULL, NULL, err, errlen);
}

static void local_result(struct op_backend *b, uint32_t dpu, struct op_dpu_status *out)
{
    struct local *l = L(b);
    if (dpu >= op_machine_nr_dpus(l->m)) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = *op_machine_result(l->m, dpu);
    out->fault_msg[sizeof out->fault_msg - 1] = 0; /* written by a worker: bound it */
}

static void local_memory(struct op_backend *b, uint64_t *used, uint64_t *limit)
{
    struct local *l = L(b);
    if (used)
        *used = op_machine_memory_used(l->m);
    if (limit)
        *limit = op_machine_memory_limit(l->m);
}

static struct op_backend_pool *local_pool_open(struct op_backend *b, char *err, size_t errlen)
{
    return (struct op_backend_pool *)op_machine_pool_create(L(b)->m, err, errlen);
}

static int local_pool_bind(struct op_backend *b, uint32_t rank, struct op_backend_pool *p, char *err, size_t errlen)
{
    struct local *l = L(b);
    if (rank >= l->nr_ranks)
        return fail(err, errlen, "no rank %u: the machine has %u", rank, l->nr_ranks);
    pthread_mutex_lock(&l->lock);
    int claimed = l->claimed[rank];
    pthread_mutex_unlock(&l->lock);
    if (!claimed)
        return fail(err, errlen, "rank %u is not claimed", rank);
    return op_machine_bind_rank(l->m, rank, (struct op_pool *)p, err, errlen);
}

static uint64_t local_pool_memory(struct op_backend *b, struct op_backend_pool *p)
{
    return op_machine_pool_memory_used(L(b)->m, (struct op_pool *)p);
}

static void local_pool_cancel(struct op_backend *b, struct op_backend_pool *p, const char *why)
{
    (void)b;
    op_machine_pool_cancel((struct op_pool *)p, why);
}

static void local_pool_close(struct op_backend *b, struct op_backend_pool *p)
{
    (void)b;
    op_machine_pool_destroy((struct op_pool *)p);
}

static const struct op_backend_ops local_ops = {
    .name = "local",
    .close = local_close,
    .info = local_info,
    .claim_rank = local_claim_rank,
    .release_rank = local_release_rank,
    .program_open = local_program_open,
    .program_close = local_program_close,
    .program_open_fd = local_program_open_fd,
    .load = local_load,
    .write = local_write,
    .write_watched = local_write_watched,
    .check_room = local_check_room,
    .read = local_read,
    .view_write = local_view_write,
    .view_read = local_view_read,
    .launch = local_launch,
    .launch_watched = local_launch_watched,
    .result = local_result,
    .memory = local_memory,
    .pool_open = local_pool_open,
    .pool_bind = local_pool_bind,
    .pool_cancel = local_pool_cancel,
    .pool_close = local_pool_close,
    .pool_memory = local_pool_memory,
};

struct op_backend *op_backend_local_open(const struct op_machine_config *cfg, char *err, size_t errlen)
{
    struct local *l = calloc(1, sizeof *l);
    if (!l) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    l->m = op_machine_create(cfg, err, errlen);
    if (!l->m) {
        free(l);
        return NULL;
    }
    l->base.ops = &local_ops;
    l->nr_ranks = cfg->desc.nr_ranks;
    l->per_rank = op_machine_dpus_per_rank(l->m);
    l->claimed = calloc(l->nr_ranks, 1);
    pthread_mutex_init(&l->lock, NULL);
    if (!l->claimed) {
        local_close(&l->base);
        fail(err, errlen, "out of memory");
        return NULL;
    }
    return &l->base;
}
