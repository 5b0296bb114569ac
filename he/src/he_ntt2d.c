/* SPDX-License-Identifier: MIT */
/* The 2D NTT across DPUs and its inverse (layouts and maths in
 * dpu/he_ntt2d_abi.h): the host's part is the tables, the transposition of
 * the inputs into columns (of the inverse's outputs out of columns), the two
 * launches and the All-to-All between them, done by comm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openpim_comm.h>
#include <openpim_ext.h>

#include "he_internal.h"
#include "he_ntt2d_internal.h"

/* The host's transposition of the inputs into columns, charged per byte
 * written at one core's strided gather from DRAM to DRAM: 9.9 GB/s
 * (calibration-sources §5, "gather 8 qwords ->
 * store", DRAM -> DRAM, measured on this host). */
#define HE2D_HOST_GATHER_GBPS 9.9

openpim_he_status he2d_sdk_fail(dpu_error_t err, const char *what)
{
    char *s = dpu_error_to_string(err);
    openpim_he_status st = he_fail(OPENPIM_HE_ERR_DPU, "2D NTT: %s: %s", what, s ? s : "unknown SDK error");
    free(s);
    return st;
}

static openpim_he_status comm_fail(openpim_comm_status cs, const char *what)
{
    return he_fail(OPENPIM_HE_ERR_DPU, "2D NTT: %s: %s: %s", what, openpim_comm_status_name(cs),
                   openpim_comm_last_error());
}

static uint32_t bit_length(uint32_t q)
{
    uint32_t b = 0;
    while ((1ull << b) <= q)
        b++;
    return b;
}

/* tw[bitrev(e)] = root^e, e < size: the forward table of he_ntt.c's layout. */
static void forward_table(uint32_t q, uint32_t root, uint32_t size, uint32_t *tw)
{
    uint32_t p = 1, bits = he_log2(size);
    for (uint32_t e = 0; e < size; e++, p = he_mul_mod(p, root, q))
        tw[he_bit_reverse(e, bits)] = p;
}

openpim_he_status he2d_push(openpim_he_ntt2d *h, dpu_xfer_t dir, uint32_t offset, uint64_t bytes, uint32_t *base,
                            size_t stride_words, bool per_group, const char *what)
{
    dpu_error_t err = DPU_OK;
    for (uint32_t i = 0; i < h->nr_dpus && err == DPU_OK; i++)
        err = dpu_prepare_xfer(h->node_dpu[i], base + (per_group ? i / h->g : i) * stride_words);
    if (err == DPU_OK)
        err = dpu_push_xfer(h->set, dir, DPU_MRAM_HEAP_POINTER_NAME, offset, bytes, DPU_XFER_DEFAULT);
    return err == DPU_OK ? OPENPIM_HE_OK : he2d_sdk_fail(err, what);
}

static openpim_he_status check_config(const struct openpim_he_params *params,
                                      const struct openpim_he_ntt2d_config *cfg, uint32_t n2, uint32_t *g)
{
    if (cfg->mul != OPENPIM_HE_MUL_CUSTOM && cfg->mul != OPENPIM_HE_MUL_NATIVE)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: unknown multiply variant %d", (int)cfg->mul);
    if (cfg->comm != OPENPIM_HE_COMM_DEFAULT && cfg->comm != OPENPIM_HE_COMM_BASELINE &&
        cfg->comm != OPENPIM_HE_COMM_OPTIMISED)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: unknown collective implementation %d", (int)cfg->comm);
    if (cfg->count == 0)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: count must be at least 1");
    if (params->special_modulus)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: a special modulus has no use here; set it to 0");
    if (cfg->nr_dpus == 0)
        return he_fail(OPENPIM_HE_ERR_DPUS, "2D NTT: nr_dpus is 0");
    *g = cfg->group_dpus;
    if (*g == 0) /* the largest power of two <= both n2 and nr_dpus that divides nr_dpus */
        for (*g = n2; *g > 1 && cfg->nr_dpus % *g; *g /= 2)
            ;
    if (*g & (*g - 1) || *g > n2)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT,
                       "2D NTT: group_dpus %u must be a power of two at most n2 = %u (each DPU needs whole columns "
                       "and rows)", *g, n2);
    if (cfg->nr_dpus % *g)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: nr_dpus %u is not a multiple of group_dpus %u", cfg->nr_dpus,
                       *g);
    return OPENPIM_HE_OK;
}

/* Twiddle tables of every group (mods, tw1, tw2) and node (twist), pushed once. */
static openpim_he_status write_tables(openpim_he_ntt2d *h)
{
    const uint32_t n = h->params.n, k = h->params.nr_moduli, S = h->slots, G = h->groups;
    const size_t twist_words = (size_t)S * h->c1 * h->n2;
    struct he2d_mod *mods = calloc((size_t)G * S, sizeof *mods);
    uint32_t *tw1 = calloc((size_t)G * S * h->n2, 4), *tw2 = calloc((size_t)G * S * h->n1, 4);
    uint32_t *itw1 = calloc((size_t)G * S * h->n2, 4), *itw2 = calloc((size_t)G * S * h->n1, 4);
    uint32_t *twist = malloc((size_t)h->nr_dpus * twist_words * 4), *pw = malloc((size_t)2 * n * 4);
    uint32_t *itwist = malloc((size_t)h->nr_dpus * twist_words * 4), *br = malloc((size_t)h->n2 * 4);
    openpim_he_status st = OPENPIM_HE_OK;
    if (!mods || !tw1 || !tw2 || !itw1 || !itw2 || !twist || !itwist || !pw || !br) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D NTT: out of host memory for the twiddle tables");
        goto out;
    }
    for (uint32_t s = 0; s < h->n2; s++)
        br[s] = he_bit_reverse(s, h->log_n2);
    for (uint32_t grp = 0; grp < G; grp++)
        for (uint32_t slot = 0; slot < S; slot++) {
            const uint32_t m = grp * S + slot;
            if (m >= h->nr_ntts)
                break; /* not-valid slots keep zero tables (never read) */
            const uint32_t q = h->params.moduli[m % k], psi = openpim_he_minimal_root(q, n), bits = bit_length(q);
            mods[grp * S + slot] = (struct he2d_mod){q, bits, he_barrett_mu(q), 0};
            pw[0] = 1;
            for (uint32_t e = 1; e < 2 * n; e++)
                pw[e] = he_mul_mod(pw[e - 1], psi, q);
            forward_table(q, pw[h->n1], h->n2, tw1 + ((size_t)grp * S + slot) * h->n2);
            forward_table(q, pw[h->n2], h->n1, tw2 + ((size_t)grp * S + slot) * h->n1);
            /* the inverse tables: the roots' inverses psi^(2n - n1), psi^(2n - n2) (psi^(2n) = 1) */
            forward_table(q, pw[2 * n - h->n1], h->n2, itw1 + ((size_t)grp * S + slot) * h->n2);
            forward_table(q, pw[2 * n - h->n2], h->n1, itw2 + ((size_t)grp * S + slot) * h->n1);
            const uint32_t n_inv = he_pow_mod(n % q, q - 2, q);
            /* column i1's output slot s: psi^(i1 (2 bitrev(s) + 1 - n2)), exponents mod 2n; the inverse's:
             * psi^-(...) n^-1 (the scaling of both inverse steps) */
            for (uint32_t x = 0; x < h->g; x++)
                for (uint32_t il = 0; il < h->c1; il++) {
                    const uint64_t i1 = (uint64_t)x * h->c1 + il;
                    const size_t at = (size_t)(grp * h->g + x) * twist_words + ((size_t)slot * h->c1 + il) * h->n2;
                    for (uint32_t s = 0; s < h->n2; s++) {
                        const uint64_t e = i1 * (2ull * br[s] + 1 + 2ull * n - h->n2) % (2ull * n);
                        twist[at + s] = pw[e];
                        itwist[at + s] = he_mul_mod(pw[(2ull * n - e) % (2ull * n)], n_inv, q);
                    }
                }
        }
    struct he2d_consts *consts = calloc(G, sizeof *consts);
    if (!consts) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D NTT: out of host memory");
        goto out;
    }
    for (uint32_t grp = 0; grp < G; grp++) {
        uint32_t first = grp * S;
        consts[grp] = (struct he2d_consts){
            .n1 = h->n1, .n2 = h->n2, .log_n1 = h->log_n1, .log_n2 = h->log_n2,
            .c1 = h->c1, .r2 = h->r2, .group_dpus = h->g, .slots = S,
            .valid = first >= h->nr_ntts ? 0 : (h->nr_ntts - first < S ? h->nr_ntts - first : S),
            .row_words = h->row_words, .log_c1 = he_log2(h->c1),
            .mods = h->off_mods, .tw1 = h->off_tw1, .tw2 = h->off_tw2, .twist = h->off_twist,
            .a = h->off_a, .b = h->off_b, .c = h->off_c,
            .itw1 = h->off_itw1, .itw2 = h->off_itw2, .itwist = h->off_itwist,
        };
    }
    if ((st = he2d_push(h, DPU_XFER_TO_DPU, 0, sizeof *consts, (uint32_t *)consts, sizeof *consts / 4, true,
                   "writing the constants")) == OPENPIM_HE_OK &&
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_mods, (uint64_t)S * sizeof *mods, (uint32_t *)mods,
                   (size_t)S * sizeof *mods / 4, true, "writing the moduli")) == OPENPIM_HE_OK &&
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_tw1, (uint64_t)S * h->n2 * 4, tw1, (size_t)S * h->n2, true,
                   "writing the step 1 twiddles")) == OPENPIM_HE_OK &&
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_tw2, (uint64_t)S * h->n1 * 4, tw2, (size_t)S * h->n1, true,
                   "writing the step 2 twiddles")) == OPENPIM_HE_OK &&
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_itw1, (uint64_t)S * h->n2 * 4, itw1, (size_t)S * h->n2, true,
                   "writing the inverse step 2 twiddles")) == OPENPIM_HE_OK &&
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_itw2, (uint64_t)S * h->n1 * 4, itw2, (size_t)S * h->n1, true,
                   "writing the inverse step 1 twiddles")) == OPENPIM_HE_OK &&
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_twist, twist_words * 4, twist, twist_words, false,
                   "writing the twists")) == OPENPIM_HE_OK)
        st = he2d_push(h, DPU_XFER_TO_DPU, h->off_itwist, twist_words * 4, itwist, twist_words, false,
                  "writing the inverse twists");
    free(consts);
out:
    free(mods);
    free(tw1);
    free(tw2);
    free(itw1);
    free(itw2);
    free(twist);
    free(itwist);
    free(pw);
    free(br);
    return st;
}

openpim_he_status openpim_he_ntt2d_create(const struct openpim_he_params *params,
                                          const struct openpim_he_ntt2d_config *cfg, openpim_he_ntt2d **out)
{
    if (!out || !cfg)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: config or result pointer is NULL");
    openpim_he_status st = openpim_he_params_validate(params);
    if (st != OPENPIM_HE_OK)
        return st;
    const uint32_t n = params->n, log_n = he_log2(n), log_n1 = (log_n + 1) / 2, log_n2 = log_n / 2;
    uint32_t g = 0;
    if ((st = check_config(params, cfg, 1u << log_n2, &g)) != OPENPIM_HE_OK)
        return st;

    openpim_he_ntt2d *h = calloc(1, sizeof *h);
    if (!h)
        return he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D NTT: out of host memory");
    h->params = *params;
    h->n1 = 1u << log_n1, h->n2 = 1u << log_n2, h->log_n1 = log_n1, h->log_n2 = log_n2;
    h->g = g, h->nr_dpus = cfg->nr_dpus, h->groups = cfg->nr_dpus / g, h->count = cfg->count;
    h->nr_ntts = cfg->count * params->nr_moduli;
    h->slots = (h->nr_ntts + h->groups - 1) / h->groups;
    h->c1 = h->n1 / g, h->r2 = h->n2 / g;
    /* b and c rows hold slots * c1 words; DMAs move 8-byte words, so an odd count is padded, unless one
     * batch of step 1 holds every column (then c1 = 1, r2 = 1 and the kernels pair rows instead):
     * padding would double the All-to-All's bytes at one NTT per DPU */
    h->row_words = h->slots * h->c1;
    if (h->row_words % 2 && h->row_words > HE2D_BATCH)
        h->row_words++;
    h->comm_view = -1;
    /* MRAM layout (byte offsets in the heap, all multiples of 8) */
    const uint64_t S = h->slots, col_bytes = S * h->c1 * h->n2 * 4, tr_bytes = (uint64_t)h->n2 * h->row_words * 4;
    uint64_t end = (sizeof(struct he2d_consts) + 7) & ~7ull;
    uint64_t offs[10], sizes[10] = {S * sizeof(struct he2d_mod), S * h->n2 * 4, S * h->n1 * 4, col_bytes, col_bytes,
                                    tr_bytes, tr_bytes, S * h->n2 * 4, S * h->n1 * 4, col_bytes};
    for (int i = 0; i < 10; i++) {
        offs[i] = end;
        end += (sizes[i] + 7) & ~7ull;
    }
    h->node_dpu = calloc(h->nr_dpus, sizeof *h->node_dpu);
    h->stage = malloc(col_bytes * h->nr_dpus);
    if (!h->node_dpu || !h->stage) {
        st = he_fail(OPENPIM_HE_ERR_NO_MEMORY, "2D NTT: out of host memory for %u DPUs' staging", h->nr_dpus);
        goto fail_free;
    }
    dpu_error_t err = dpu_alloc(h->nr_dpus, cfg->profile, &h->set);
    if (err != DPU_OK) {
        st = he_fail_alloc("2D NTT: ", h->nr_dpus, err);
        goto fail_free;
    }
    snprintf(h->path, sizeof h->path, "%s/%s%s", cfg->dpu_dir ? cfg->dpu_dir : OPENPIM_HE_DPU_DIR,
             cfg->mul == OPENPIM_HE_MUL_CUSTOM ? "he_ntt2d_custom" : "he_ntt2d_native",
             he_params_wide(&h->params) ? "_wide" : "");
    struct dpu_program_t *program;
    struct dpu_symbol_t heap;
    if ((err = dpu_load(h->set, h->path, &program)) != DPU_OK) {
        st = he2d_sdk_fail(err, h->path);
        goto fail_set;
    }
    if ((err = dpu_get_symbol(program, DPU_MRAM_HEAP_POINTER_NAME, &heap)) != DPU_OK) {
        st = he2d_sdk_fail(err, "MRAM heap symbol");
        goto fail_set;
    }
    if (end > heap.size || end > UINT32_MAX) {
        st = he_fail(OPENPIM_HE_ERR_MRAM,
                     "2D NTT: %llu bytes of MRAM per DPU needed (%u residue NTTs per group of %u DPUs); the heap "
                     "has %u", (unsigned long long)end, h->slots, g, heap.size);
        goto fail_set;
    }
    h->off_mods = (uint32_t)offs[0], h->off_tw1 = (uint32_t)offs[1], h->off_tw2 = (uint32_t)offs[2];
    h->off_twist = (uint32_t)offs[3], h->off_a = (uint32_t)offs[4], h->off_b = (uint32_t)offs[5];
    h->off_c = (uint32_t)offs[6], h->off_itw1 = (uint32_t)offs[7], h->off_itw2 = (uint32_t)offs[8];
    h->off_itwist = (uint32_t)offs[9];
    h->heap_end = end, h->heap_size = heap.size;

    const uint32_t lengths[2] = {g, h->groups}, dims[1] = {0};
    openpim_comm_status cs = openpim_cube_create(h->set, 2, lengths, &h->cube);
    if (cs == OPENPIM_COMM_OK && cfg->comm != OPENPIM_HE_COMM_DEFAULT)
        cs = openpim_cube_set_impl(h->cube, cfg->comm == OPENPIM_HE_COMM_BASELINE ? OPENPIM_COMM_BASELINE
                                                                                 : OPENPIM_COMM_OPTIMISED);
    if (cs == OPENPIM_COMM_OK)
        cs = openpim_comm_create(h->cube, 1, dims, &h->comm);
    for (uint32_t i = 0; cs == OPENPIM_COMM_OK && i < h->nr_dpus; i++)
        cs = openpim_cube_node_dpu(h->cube, i, &h->node_dpu[i]);
    if (cs != OPENPIM_COMM_OK) {
        st = comm_fail(cs, "setting up the All-to-All");
        goto fail_cube;
    }
    if ((st = write_tables(h)) != OPENPIM_HE_OK)
        goto fail_cube;
    *out = h;
    return OPENPIM_HE_OK;

fail_cube:
    openpim_cube_destroy(h->cube);
fail_set:
    dpu_free(h->set);
fail_free:
    free(h->node_dpu);
    free(h->stage);
    free(h);
    return st;
}

void openpim_he_ntt2d_destroy(openpim_he_ntt2d *h)
{
    if (!h)
        return;
    he2d_free_resident(h);
    openpim_cube_destroy(h->cube);
    dpu_free(h->set);
    free(h->node_dpu);
    free(h->stage);
    free(h);
}

openpim_he_status openpim_he_ntt2d_shape(const openpim_he_ntt2d *h, struct openpim_he_ntt2d_shape *shape)
{
    if (!h || !shape)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: NULL argument");
    *shape = (struct openpim_he_ntt2d_shape){h->n1, h->n2, h->g, h->groups, h->nr_dpus, h->slots, h->comm_view};
    return OPENPIM_HE_OK;
}

uint32_t he2d_modulus_index(const openpim_he_ntt2d *h, uint32_t grp, uint32_t slot)
{
    return (grp * h->slots + slot) % h->params.nr_moduli;
}

openpim_he_status he2d_launch(openpim_he_ntt2d *h, const struct he2d_args *args, uint64_t *cycles, double *dpu_us)
{
    const uint32_t step = args->step;
    dpu_error_t err = dpu_broadcast_to(h->set, "he2d_args", 0, args, sizeof *args, DPU_XFER_DEFAULT);
    if (err != DPU_OK)
        return he2d_sdk_fail(err, "sending the step");
    if ((err = dpu_launch(h->set, DPU_SYNCHRONOUS)) != DPU_OK) {
        for (uint32_t i = 0; i < h->nr_dpus; i++) {
            struct openpim_fault f;
            if (openpim_get_fault(h->node_dpu[i], &f) == DPU_OK && f.faulted)
                return he_fail(OPENPIM_HE_ERR_DPU, "2D NTT: DPU of node %u stopped in step %u: %s: %s", i, step,
                               f.kind, f.message);
        }
        return he2d_sdk_fail(err, "launch");
    }
    *cycles = 0;
    *dpu_us = 0;
    for (uint32_t i = 0; i < h->nr_dpus; i++) {
        struct openpim_dpu_stats s;
        if ((err = openpim_get_dpu_stats(h->node_dpu[i], &s)) != DPU_OK)
            return he2d_sdk_fail(err, "reading the modelled DPU time");
        if (s.cycles > *cycles) {
            *cycles = s.cycles;
            *dpu_us = s.time_us;
        }
    }
    return OPENPIM_HE_OK;
}

double he2d_since(double *mark)
{
    double now = openpim_modelled_time_us(), d = now - *mark;
    *mark = now;
    return d;
}

/* The arguments of a transform: nothing NULL, every input word below its modulus. */
static openpim_he_status check_inputs(const openpim_he_ntt2d *h, const uint32_t *in, const uint32_t *out)
{
    if (!h || !in || !out)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: NULL argument");
    const uint32_t n = h->params.n, k = h->params.nr_moduli;
    for (size_t w = 0; w < (size_t)h->nr_ntts * n; w++)
        if (in[w] >= h->params.moduli[(w / n) % k])
            return he_fail(OPENPIM_HE_ERR_ARGUMENT, "2D NTT: polynomial %zu, residue %zu, coefficient %zu: %u is not "
                           "below its modulus %u", w / n / k, (w / n) % k, w % n, in[w], h->params.moduli[(w / n) % k]);
    return OPENPIM_HE_OK;
}

/* b -> c between the g DPUs of each group: block p of a node = rows p r2 .. p r2 + r2 - 1 of b, r2
 * row_words words; then this program again (comm may have loaded its reordering kernel, openpim_comm.h;
 * MRAM is kept). */
openpim_he_status he2d_exchange(openpim_he_ntt2d *h)
{
    openpim_comm_status cs = openpim_alltoall(h->comm, h->off_b, h->off_c, (uint64_t)h->n2 * h->row_words * 4);
    if (cs != OPENPIM_COMM_OK)
        return comm_fail(cs, "All-to-All");
    h->comm_view = openpim_cube_last_used_view(h->cube);
    dpu_error_t err = dpu_load(h->set, h->path, NULL);
    return err == DPU_OK ? OPENPIM_HE_OK : he2d_sdk_fail(err, "reloading the kernel after the All-to-All");
}

openpim_he_status he2d_transform(openpim_he_ntt2d *h, bool inverse, uint32_t dst, uint32_t a,
                                 struct openpim_he_ntt2d_times *t, double *mark)
{
    struct he2d_args args = {.step = inverse ? HE2D_STEP_INV_ROWS : HE2D_STEP_COLUMNS, .dst = dst, .a = a};
    openpim_he_status st = he2d_launch(h, &args, &t->kernel1_cycles, &t->kernel1_dpu_us);
    if (st != OPENPIM_HE_OK)
        return st;
    t->kernel1_us = he2d_since(mark);
    if ((st = he2d_exchange(h)) != OPENPIM_HE_OK)
        return st;
    t->inter_dpu_us = he2d_since(mark);
    args.step = inverse ? HE2D_STEP_INV_COLUMNS : HE2D_STEP_ROWS;
    if ((st = he2d_launch(h, &args, &t->kernel2_cycles, &t->kernel2_dpu_us)) != OPENPIM_HE_OK)
        return st;
    t->kernel2_us = he2d_since(mark);
    return OPENPIM_HE_OK;
}

/* One batch between the host's data and h->stage: in -> stage, or (in NULL) stage -> out. */
static void stage_move(openpim_he_ntt2d *h, const uint32_t *in, uint32_t *out, enum openpim_he_form form)
{
    const uint32_t n = h->params.n, S = h->slots, share = n / h->g;
    for (uint32_t i = 0; i < h->nr_dpus; i++) {
        const uint32_t x = i % h->g, grp = i / h->g;
        for (uint32_t slot = 0; slot < S && grp * S + slot < h->nr_ntts; slot++) {
            const size_t poly = (size_t)(grp * S + slot) * n;
            uint32_t *node = h->stage + (size_t)i * S * share + (size_t)slot * share;
            if (form == OPENPIM_HE_NTT) {
                if (in)
                    memcpy(node, in + poly + (size_t)x * share, share * 4);
                else
                    memcpy(out + poly + (size_t)x * share, node, share * 4);
                continue;
            }
            const size_t col = poly + (size_t)x * h->c1;
            for (uint32_t il = 0; il < h->c1; il++)
                for (uint32_t i2 = 0; i2 < h->n2; i2++) {
                    if (in)
                        node[il * h->n2 + i2] = in[col + il + (size_t)h->n1 * i2];
                    else
                        out[col + il + (size_t)h->n1 * i2] = node[il * h->n2 + i2];
                }
        }
    }
}

/* A coefficient-form batch moved into or out of columns: the host's
 * transposition, charged as one core's strided gather. */
static openpim_he_status record_transposition(openpim_he_ntt2d *h, enum openpim_event_category cat,
                                              const char *event)
{
    dpu_error_t err = openpim_record_host_event(cat, event,
                                                (double)h->nr_ntts * h->params.n * 4 / (HE2D_HOST_GATHER_GBPS * 1e3));
    return err == DPU_OK ? OPENPIM_HE_OK : he2d_sdk_fail(err, "recording the host transposition");
}

openpim_he_status he2d_stage_in(openpim_he_ntt2d *h, const uint32_t *data, enum openpim_he_form form,
                                const char *event)
{
    stage_move(h, data, NULL, form);
    return form == OPENPIM_HE_COEFF ? record_transposition(h, OPENPIM_EVENT_CPU_DPU, event) : OPENPIM_HE_OK;
}

openpim_he_status he2d_stage_out(openpim_he_ntt2d *h, uint32_t *data, enum openpim_he_form form, const char *event)
{
    stage_move(h, NULL, data, form);
    return form == OPENPIM_HE_COEFF ? record_transposition(h, OPENPIM_EVENT_DPU_CPU, event) : OPENPIM_HE_OK;
}

/* One batch through the 2D NTT (inverse: its inverse): upload, the two
 * launches and the All-to-All, download.  The forward's inputs go into
 * columns (node (x, grp) gets columns i1 = x c1 .. of its group's NTTs, as
 * [slot][i1 local][i2]) and its results come back as words [x n / g,
 * (x + 1) n / g) of each; the inverse takes that layout (no reordering) and
 * transposes its results back out of columns. */
static openpim_he_status batch(openpim_he_ntt2d *h, bool inverse, const uint32_t *in, uint32_t *out,
                               struct openpim_he_ntt2d_times *times)
{
    openpim_he_status st = check_inputs(h, in, out);
    if (st != OPENPIM_HE_OK)
        return st;
    const size_t per_dpu = (size_t)h->slots * h->c1 * h->n2; /* words of a column block, = S n / g */
    const enum openpim_he_form in_form = inverse ? OPENPIM_HE_NTT : OPENPIM_HE_COEFF;
    const enum openpim_he_form out_form = inverse ? OPENPIM_HE_COEFF : OPENPIM_HE_NTT;
    struct openpim_he_ntt2d_times t = {0};
    double start = openpim_modelled_time_us(), mark = start;

    if ((st = he2d_stage_in(h, in, in_form, "he 2D NTT: inputs into columns")) != OPENPIM_HE_OK ||
        (st = he2d_push(h, DPU_XFER_TO_DPU, h->off_a, per_dpu * 4, h->stage, per_dpu, false, "upload")) !=
            OPENPIM_HE_OK)
        return st;
    t.cpu_dpu_us = he2d_since(&mark);

    if ((st = he2d_transform(h, inverse, h->off_a, h->off_a, &t, &mark)) != OPENPIM_HE_OK)
        return st;

    if ((st = he2d_push(h, DPU_XFER_FROM_DPU, h->off_a, per_dpu * 4, h->stage, per_dpu, false, "download")) !=
            OPENPIM_HE_OK ||
        (st = he2d_stage_out(h, out, out_form, "he 2D NTT: outputs out of columns")) != OPENPIM_HE_OK)
        return st;
    t.dpu_cpu_us = he2d_since(&mark);
    t.total_us = mark - start;
    if (times)
        *times = t;
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_ntt2d_forward(openpim_he_ntt2d *h, const uint32_t *in, uint32_t *out,
                                           struct openpim_he_ntt2d_times *times)
{
    return batch(h, false, in, out, times);
}

openpim_he_status openpim_he_ntt2d_inverse(openpim_he_ntt2d *h, const uint32_t *in, uint32_t *out,
                                           struct openpim_he_ntt2d_times *times)
{
    return batch(h, true, in, out, times);
}
