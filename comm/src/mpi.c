/* SPDX-License-Identifier: MIT */
/* Collectives across hosts (openpim_comm_mpi.h): inside each host with the
 * local library, between hosts with MPI, inside again.  Host buffers here
 * are laid out [local instance][local rank][bytes] (the local library's
 * rooted layout); with the host dimension in the communicator, global rank
 * p = p_l + n_l * h and the global instance is the local one; without it,
 * global instance i = i_l + I_l * h. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "openpim_comm_mpi.h"

struct openpim_mcomm {
    openpim_mcube_t *cube;
    bool hosts;            /* the host dimension is selected */
    openpim_comm_t *local; /* the selected local dimensions; NULL if none */
    uint32_t n_l, I_l;     /* local ranks per instance, local instances */
};

struct openpim_mcube {
    MPI_Comm mpi;
    int me, H;
    struct dpu_set_t set;
    openpim_cube_t *local;
    openpim_comm_t *all; /* every local dimension: host buffers in node order */
    uint32_t nr_local_dims, n;
    openpim_mcomm_t **comms;
    uint32_t nr_comms;
    double last_inter_us;
};

/* ---- agreement between processes ---------------------------------------------------- */

/* Every process's status; the worst one is returned everywhere (with a
 * message on the processes that did not fail themselves). */
static openpim_comm_status agree(openpim_mcube_t *c, openpim_comm_status st)
{
    int mine[2] = {(int)st, c->me}, worst[2];
    /* MPI_MINLOC: the most negative status and the lowest process holding it */
    MPI_Allreduce(mine, worst, 1, MPI_2INT, MPI_MINLOC, c->mpi);
    if (worst[0] != OPENPIM_COMM_OK && st == OPENPIM_COMM_OK)
        return comm_fail((openpim_comm_status)worst[0], "MPI process %d failed (%s)", worst[1],
                         openpim_comm_status_name((openpim_comm_status)worst[0]));
    return (openpim_comm_status)worst[0];
}

/* The same arguments on every process. */
static openpim_comm_status same_args(openpim_mcube_t *c, int prim, uint64_t a, uint64_t b, uint64_t bytes, int type,
                                     int op, const openpim_mcomm_t *m)
{
    uint64_t v[7] = {(uint64_t)prim, a, b, bytes, (uint64_t)type, (uint64_t)op, 0};
    for (uint32_t i = 0; i < c->nr_comms; i++)
        if (c->comms[i] == m)
            v[6] = i;
    uint64_t lo[7], hi[7];
    MPI_Allreduce(v, lo, 7, MPI_UINT64_T, MPI_MIN, c->mpi);
    MPI_Allreduce(v, hi, 7, MPI_UINT64_T, MPI_MAX, c->mpi);
    if (memcmp(lo, hi, sizeof lo))
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "the MPI processes called the collective with different arguments");
    return OPENPIM_COMM_OK;
}

static openpim_comm_status count_ok(uint64_t bytes)
{
    if (bytes > INT_MAX)
        return comm_fail(OPENPIM_COMM_ERR_SIZE, "%llu bytes in one MPI message: more than MPI's int counts allow",
                         (unsigned long long)bytes);
    return OPENPIM_COMM_OK;
}

/* The host's own passes around the exchange (packing, folding), charged as
 * the local cube's implementation would run them (comm_charge_pass). */
static void host_pass(openpim_mcube_t *c, const char *name, double rd, double wr, double reduced)
{
    bool base = openpim_cube_get_techniques(c->local) == 0;
    comm_charge_pass(name, base, rd, wr, base ? reduced : 0);
}

static void inter_host(openpim_mcube_t *c, const char *name, double bytes)
{
    c->last_inter_us = comm_inter_host_us(bytes);
    if (c->last_inter_us > 0)
        (void)openpim_record_event(c->set, OPENPIM_EVENT_INTER_HOST, name, c->last_inter_us, false);
}

/* ---- cube and communicators ------------------------------------------------------------- */

openpim_comm_status openpim_mcube_create(MPI_Comm mpi, struct dpu_set_t set, uint32_t nd, const uint32_t *len,
                                         openpim_mcube_t **out)
{
    comm_clear_error();
    if (!out)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_mcube_create: NULL result pointer");
    *out = NULL;
    openpim_mcube_t *c = calloc(1, sizeof *c);
    if (!c)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    MPI_Comm_dup(mpi, &c->mpi);
    MPI_Comm_rank(c->mpi, &c->me);
    MPI_Comm_size(c->mpi, &c->H);
    c->set = set;
    c->nr_local_dims = nd;
    openpim_comm_status st = nd >= OPENPIM_COMM_MAX_DIMS
                                 ? comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "at most %d local dimensions (one more is the host)",
                                             OPENPIM_COMM_MAX_DIMS - 1)
                                 : openpim_cube_create(set, nd, len, &c->local);
    if (st == OPENPIM_COMM_OK) {
        c->n = openpim_cube_nr_nodes(c->local);
        uint32_t all[OPENPIM_COMM_MAX_DIMS];
        for (uint32_t d = 0; d < nd; d++)
            all[d] = d;
        st = openpim_comm_create(c->local, nd, all, &c->all);
    }
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        /* the same shape everywhere */
        uint64_t sig[OPENPIM_COMM_MAX_DIMS + 1] = {nd}, lo[OPENPIM_COMM_MAX_DIMS + 1], hi[OPENPIM_COMM_MAX_DIMS + 1];
        for (uint32_t d = 0; d < nd; d++)
            sig[d + 1] = len[d];
        MPI_Allreduce(sig, lo, OPENPIM_COMM_MAX_DIMS + 1, MPI_UINT64_T, MPI_MIN, c->mpi);
        MPI_Allreduce(sig, hi, OPENPIM_COMM_MAX_DIMS + 1, MPI_UINT64_T, MPI_MAX, c->mpi);
        if (memcmp(lo, hi, sizeof lo))
            st = comm_fail(OPENPIM_COMM_ERR_SHAPE, "the MPI processes gave different local shapes");
    }
    if (st != OPENPIM_COMM_OK) {
        openpim_cube_destroy(c->local);
        MPI_Comm_free(&c->mpi);
        free(c);
        return st;
    }
    *out = c;
    return OPENPIM_COMM_OK;
}

void openpim_mcube_destroy(openpim_mcube_t *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->nr_comms; i++)
        free(c->comms[i]);
    free(c->comms);
    openpim_cube_destroy(c->local);
    MPI_Comm_free(&c->mpi);
    free(c);
}

openpim_cube_t *openpim_mcube_local(openpim_mcube_t *c)
{
    return c ? c->local : NULL;
}

uint32_t openpim_mcube_nr_hosts(const openpim_mcube_t *c)
{
    return c ? (uint32_t)c->H : 0;
}

double openpim_mcube_last_inter_host_us(const openpim_mcube_t *c)
{
    return c ? c->last_inter_us : 0;
}

openpim_comm_status openpim_mcomm_create_mask(openpim_mcube_t *c, const char *s, openpim_mcomm_t **out)
{
    comm_clear_error();
    if (!c || !s || !out)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_mcomm_create_mask: NULL argument");
    *out = NULL;
    uint32_t nd = c->nr_local_dims;
    if (strlen(s) != nd + 1)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "mask \"%s\": want one 0/1 per dimension (%u, the last the host)",
                         s, nd + 1);
    uint32_t dims[OPENPIM_COMM_MAX_DIMS], nr = 0;
    for (uint32_t d = 0; d <= nd; d++) {
        if (s[d] != '0' && s[d] != '1')
            return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "mask \"%s\": only '0' and '1'", s);
        if (s[d] == '1' && d < nd)
            dims[nr++] = d;
    }
    bool hosts = s[nd] == '1';
    if (!nr && !hosts)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "a communicator needs at least one dimension");
    openpim_mcomm_t *m = calloc(1, sizeof *m);
    openpim_mcomm_t **grown = realloc(c->comms, (c->nr_comms + 1) * sizeof *grown);
    if (grown)
        c->comms = grown;
    if (!m || !grown) {
        free(m);
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    }
    m->cube = c;
    m->hosts = hosts;
    m->n_l = 1;
    m->I_l = c->n;
    if (nr) {
        openpim_comm_status st = openpim_comm_create(c->local, nr, dims, &m->local);
        if (st != OPENPIM_COMM_OK) {
            free(m);
            return st;
        }
        m->n_l = openpim_comm_size(m->local);
        m->I_l = openpim_comm_nr_instances(m->local);
    }
    c->comms[c->nr_comms++] = m;
    *out = m;
    return OPENPIM_COMM_OK;
}

uint32_t openpim_mcomm_size(const openpim_mcomm_t *m)
{
    return m ? m->n_l * (m->hosts ? (uint32_t)m->cube->H : 1) : 0;
}

uint32_t openpim_mcomm_nr_instances(const openpim_mcomm_t *m)
{
    return m ? m->I_l * (m->hosts ? 1 : (uint32_t)m->cube->H) : 0;
}

/* ---- local steps: host buffers [I_l][n_l][bytes] ---------------------------------------- */

static openpim_comm_status local_gather(openpim_mcomm_t *m, uint64_t src, void *buf, uint64_t bytes)
{
    return openpim_gather(m->local ? m->local : m->cube->all, src, buf, bytes);
}

static openpim_comm_status local_scatter(openpim_mcomm_t *m, uint64_t dst, const void *buf, uint64_t bytes)
{
    return openpim_scatter(m->local ? m->local : m->cube->all, dst, buf, bytes);
}

/* [I_l][bytes] to every rank of each local instance */
static openpim_comm_status local_broadcast(openpim_mcomm_t *m, uint64_t dst, const void *buf, uint64_t bytes)
{
    return m->local ? openpim_broadcast(m->local, dst, buf, bytes) : openpim_scatter(m->cube->all, dst, buf, bytes);
}

/* [I_l][bytes] = reduction over each local instance */
static openpim_comm_status local_reduce(openpim_mcomm_t *m, uint64_t src, void *buf, uint64_t bytes,
                                        openpim_comm_type type, openpim_comm_op op)
{
    return m->local ? openpim_reduce(m->local, src, buf, bytes, type, op) : openpim_gather(m->cube->all, src, buf, bytes);
}

/* Each local node's place i * n_l + p_l in the local host buffers [I_l][n_l]
 * (instance, rank of the local communicator; every node its own instance
 * when no local dimension is selected); NULL if out of memory. */
static size_t *local_index(const openpim_mcomm_t *m)
{
    const openpim_comm_t *lm = m->local ? m->local : m->cube->all;
    uint32_t I = openpim_comm_nr_instances(lm), N = openpim_comm_size(lm);
    size_t *idx = malloc((size_t)m->cube->n * sizeof *idx);
    if (idx)
        for (uint32_t i = 0; i < I; i++)
            for (uint32_t r = 0; r < N; r++)
                idx[openpim_comm_node(lm, i, r)] = (size_t)i * N + r;
    return idx;
}

enum { M_AA, M_RS, M_AG, M_AR, M_BC, M_SC, M_GA, M_RE };

/* Common entry: arguments the same everywhere, valid, MPI counts in range.
 * The reductions' type and operation are checked whatever their value (a
 * negative type is refused, not taken for "no type"). */
static openpim_comm_status enter(openpim_mcomm_t *m, int prim, uint64_t a, uint64_t b, uint64_t bytes, int type,
                                 int op, uint64_t unit, uint64_t in_len, uint64_t out_len, uint64_t msg)
{
    comm_clear_error();
    if (!m)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "NULL communicator");
    openpim_mcube_t *c = m->cube;
    c->last_inter_us = 0;
    openpim_comm_status st = same_args(c, prim, a, b, bytes, type, op, m);
    if (st != OPENPIM_COMM_OK)
        return agree(c, st);
    if (prim == M_RS || prim == M_AR || prim == M_RE)
        st = comm_check_type_op((openpim_comm_type)type, (openpim_comm_op)op);
    if (st == OPENPIM_COMM_OK && unit && bytes % unit)
        st = comm_fail(OPENPIM_COMM_ERR_SIZE, "%llu bytes is not a multiple of %llu", (unsigned long long)bytes,
                       (unsigned long long)unit);
    if (st == OPENPIM_COMM_OK && in_len)
        st = comm_check_region(c->local, a, in_len, "source");
    if (st == OPENPIM_COMM_OK && out_len)
        st = comm_check_region(c->local, b, out_len, "destination");
    if (st == OPENPIM_COMM_OK && in_len && out_len)
        st = comm_check_overlap(a, in_len, b, out_len);
    if (st == OPENPIM_COMM_OK)
        st = count_ok(msg);
    return agree(c, st);
}

static uint8_t *alloc_or_fail(size_t n, openpim_comm_status *st)
{
    uint8_t *p = malloc(n ? n : 1);
    if (!p && *st == OPENPIM_COMM_OK)
        *st = comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    return p;
}

/* acc[k] = op over hosts h (in order) of parts + h * stride, for `bytes` */
static void fold_hosts(openpim_comm_type type, openpim_comm_op op, uint8_t *acc, const uint8_t *parts, size_t stride,
                       int H, size_t bytes)
{
    const struct comm_simd *s = comm_simd();
    size_t esz = openpim_comm_type_size(type);
    memcpy(acc, parts, bytes);
    for (int h = 1; h < H; h++)
        s->reduce(type, op, acc, parts + (size_t)h * stride, bytes / esz);
}

/* ---- DPU-to-DPU primitives ------------------------------------------------------------------- */

openpim_comm_status openpim_mpi_alltoall(openpim_mcomm_t *m, uint64_t src, uint64_t dst, uint64_t bytes)
{
    uint32_t N = openpim_mcomm_size(m);
    uint64_t msg = m ? (uint64_t)m->I_l * m->n_l * bytes : 0;
    openpim_comm_status st = enter(m, M_AA, src, dst, bytes, -1, 0, N, bytes, bytes, msg);
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    openpim_mcube_t *c = m->cube;
    if (!m->hosts)
        return agree(c, openpim_alltoall(m->local, src, dst, bytes));
    uint64_t blk = bytes / N, nl = m->n_l;
    size_t per_host = (size_t)(m->I_l * nl * nl * blk), total = (size_t)msg;
    uint8_t *g = alloc_or_fail(total, &st), *snd = alloc_or_fail(total, &st), *rcv = alloc_or_fail(total, &st);
    size_t *idx = st == OPENPIM_COMM_OK ? local_index(m) : NULL, *off = malloc((size_t)c->n * sizeof *off);
    if (st == OPENPIM_COMM_OK && (!idx || !off))
        st = comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    /* With the local view (optimised.c's placed gathers and scatters), the
     * words are packed for MPI and unpacked from it as the lines are
     * transposed in registers; otherwise gather, pack, unpack, scatter. */
    unsigned tech = openpim_cube_get_techniques(c->local);
    int packed = 0, unpacked = 0;
    if (st == OPENPIM_COMM_OK) {
        /* node (i, p_l)'s block q = r_l + n_l h2 -> snd + h2 per_host + (i n_l + p_l) n_l blk + r_l blk */
        for (uint32_t n = 0; n < c->n; n++)
            off[n] = idx[n] * nl * blk;
        struct comm_hostmap hm = {snd, off, blk, nl, per_host, blk};
        st = comm_view_gather_map(c->local, tech, src, bytes, &hm, "comm mpi alltoall: local gather packed in registers",
                                  &packed);
        if (st == OPENPIM_COMM_OK && !packed)
            st = local_gather(m, src, g, bytes); /* [i][q_l][N blocks] */
    }
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        /* to host h2: [i][q_l][its n_l blocks] */
        for (int h2 = 0; !packed && h2 < c->H; h2++)
            for (uint64_t i = 0; i < m->I_l; i++)
                for (uint64_t q = 0; q < nl; q++)
                    memcpy(snd + h2 * per_host + (i * nl + q) * nl * blk, g + (i * nl + q) * bytes + h2 * nl * blk,
                           nl * blk);
        MPI_Alltoall(snd, (int)per_host, MPI_BYTE, rcv, (int)per_host, MPI_BYTE, c->mpi);
        inter_host(c, "comm mpi alltoall: between hosts", (double)per_host * (c->H - 1));
        /* rank p_l receives block q = q_l + n_l h from host h's [i][q_l][p_l] */
        for (uint32_t n = 0; n < c->n; n++)
            off[n] = ((idx[n] / nl) * nl * nl + idx[n] % nl) * blk;
        struct comm_hostmap hm = {rcv, off, blk, nl, per_host, nl * blk};
        st = comm_view_put_map(c->local, tech, dst, bytes, &hm, false,
                               "comm mpi alltoall: local scatter unpacked in registers", &unpacked);
        double passes = (packed ? 0 : 1) + (unpacked ? 0 : 1);
        host_pass(c, "comm mpi alltoall: host packing", passes * (double)total, passes * (double)total, 0);
        if (st == OPENPIM_COMM_OK && !unpacked) {
            for (int h = 0; h < c->H; h++)
                for (uint64_t i = 0; i < m->I_l; i++)
                    for (uint64_t q = 0; q < nl; q++)
                        for (uint64_t p = 0; p < nl; p++)
                            memcpy(g + (i * nl + p) * bytes + (h * nl + q) * blk,
                                   rcv + h * per_host + ((i * nl + q) * nl + p) * blk, blk);
            st = local_scatter(m, dst, g, bytes);
        }
        st = agree(c, st);
    }
    free(g), free(snd), free(rcv), free(idx), free(off);
    return st;
}

openpim_comm_status openpim_mpi_reduce_scatter(openpim_mcomm_t *m, uint64_t src, uint64_t dst, uint64_t bytes,
                                               openpim_comm_type type, openpim_comm_op op)
{
    uint32_t N = openpim_mcomm_size(m);
    size_t esz = openpim_comm_type_size(type);
    uint64_t msg = m ? (uint64_t)m->I_l * bytes : 0;
    openpim_comm_status st = enter(m, M_RS, src, dst, bytes, (int)type, (int)op, (uint64_t)N * (esz ? esz : 1), bytes,
                                   N ? bytes / N : 0, msg);
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    openpim_mcube_t *c = m->cube;
    if (!m->hosts)
        return agree(c, openpim_reduce_scatter(m->local, src, dst, bytes, type, op));
    uint64_t blk = bytes / N, nl = m->n_l, share = nl * blk; /* one host's part of an instance */
    size_t per_host = (size_t)(m->I_l * share), total = (size_t)msg;
    uint8_t *part = alloc_or_fail(total, &st), *snd = alloc_or_fail(total, &st), *rcv = alloc_or_fail(total, &st);
    if (st == OPENPIM_COMM_OK)
        st = local_reduce(m, src, part, bytes, type, op); /* [i][N blocks] */
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        for (int h2 = 0; h2 < c->H; h2++)
            for (uint64_t i = 0; i < m->I_l; i++)
                memcpy(snd + h2 * per_host + i * share, part + i * bytes + h2 * share, share);
        MPI_Alltoall(snd, (int)per_host, MPI_BYTE, rcv, (int)per_host, MPI_BYTE, c->mpi);
        inter_host(c, "comm mpi reduce_scatter: between hosts", (double)per_host * (c->H - 1));
        host_pass(c, "comm mpi reduce_scatter: host packing and fold", 2.0 * (double)total,
                  (double)total + (double)per_host, (double)total);
        fold_hosts(type, op, part, rcv, per_host, c->H, per_host); /* [i][p_l][blk] */
        st = agree(c, local_scatter(m, dst, part, blk));
    }
    free(part), free(snd), free(rcv);
    return st;
}

openpim_comm_status openpim_mpi_allgather(openpim_mcomm_t *m, uint64_t src, uint64_t dst, uint64_t bytes)
{
    uint32_t N = openpim_mcomm_size(m);
    uint64_t msg = m ? (uint64_t)m->I_l * m->n_l * bytes : 0;
    uint64_t out_len = bytes * N;
    if (m && N && out_len / N != bytes)
        out_len = UINT64_MAX; /* refused by the range check */
    openpim_comm_status st = enter(m, M_AG, src, dst, bytes, -1, 0, 0, bytes, out_len, msg * (m ? m->cube->H : 0));
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    openpim_mcube_t *c = m->cube;
    if (!m->hosts)
        return agree(c, openpim_allgather(m->local, src, dst, bytes));
    uint64_t nl = m->n_l;
    size_t per_host = (size_t)msg;
    uint8_t *g = alloc_or_fail(per_host, &st), *rcv = alloc_or_fail(per_host * c->H, &st),
            *out = alloc_or_fail((size_t)(m->I_l * out_len), &st);
    if (st == OPENPIM_COMM_OK)
        st = local_gather(m, src, g, bytes); /* [i][p_l][bytes] */
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        MPI_Allgather(g, (int)per_host, MPI_BYTE, rcv, (int)per_host, MPI_BYTE, c->mpi);
        inter_host(c, "comm mpi allgather: between hosts", (double)per_host * (c->H - 1));
        /* With several local instances and the local view, each instance's
         * lines are built straight from the received pieces (instance i's
         * block h at rcv + h per_host + i n_l bytes): no placement pass.  One
         * instance keeps the SDK's broadcast (2.5x a parallel push against
         * the view's 1.45x: timing h2d_bcast_speedup, h2d_direct_speedup). */
        int placed = 0;
        if (m->I_l > 1) {
            size_t *idx = local_index(m), *off = malloc((size_t)c->n * sizeof *off);
            if (!idx || !off)
                st = comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
            else {
                for (uint32_t n = 0; n < c->n; n++)
                    off[n] = (idx[n] / nl) * nl * bytes;
                struct comm_hostmap hm = {rcv, off, nl * bytes, 1, per_host, 0};
                st = comm_view_put_map(c->local, openpim_cube_get_techniques(c->local), dst, out_len, &hm, true,
                                       "comm mpi allgather: local broadcast placed in registers", &placed);
            }
            free(idx), free(off);
        }
        if (st == OPENPIM_COMM_OK && !placed) {
            host_pass(c, "comm mpi allgather: host placement", (double)per_host * c->H, (double)per_host * c->H, 0);
            for (int h = 0; h < c->H; h++)
                for (uint64_t i = 0; i < m->I_l; i++)
                    memcpy(out + i * out_len + h * nl * bytes, rcv + h * per_host + i * nl * bytes, nl * bytes);
            st = local_broadcast(m, dst, out, out_len);
        }
        st = agree(c, st);
    }
    free(g), free(rcv), free(out);
    return st;
}

openpim_comm_status openpim_mpi_allreduce(openpim_mcomm_t *m, uint64_t src, uint64_t dst, uint64_t bytes,
                                          openpim_comm_type type, openpim_comm_op op)
{
    size_t esz = openpim_comm_type_size(type);
    uint64_t msg = m ? (uint64_t)m->I_l * bytes : 0;
    openpim_comm_status st = enter(m, M_AR, src, dst, bytes, (int)type, (int)op, esz ? esz : 1, bytes, bytes, msg);
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    openpim_mcube_t *c = m->cube;
    if (!m->hosts)
        return agree(c, openpim_allreduce(m->local, src, dst, bytes, type, op));
    int H = c->H;
    size_t total = (size_t)msg, elems = total / esz;
    /* host h owns elements [elems h / H, elems (h + 1) / H): the shares differ by one element when H does
     * not divide elems, and a host receives its share from every host, H of them (up to total + H esz) */
    size_t most = (elems + (size_t)H - 1) / (size_t)H * esz;
    int *cnt = calloc((size_t)H, sizeof *cnt), *at = calloc((size_t)H, sizeof *at);
    uint8_t *part = alloc_or_fail(total, &st), *rcv = alloc_or_fail(most * (size_t)H, &st),
            *mine = alloc_or_fail(most, &st);
    if (!cnt || !at)
        st = st == OPENPIM_COMM_OK ? comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory") : st;
    if (st == OPENPIM_COMM_OK)
        st = local_reduce(m, src, part, bytes, type, op); /* [i][bytes] */
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        /* reduce-scatter between hosts: host h owns elements [elems h / H, elems (h + 1) / H) */
        for (int h = 0; h < H; h++) {
            at[h] = (int)(elems * (size_t)h / (size_t)H * esz);
            cnt[h] = (int)(elems * (size_t)(h + 1) / (size_t)H * esz) - at[h];
        }
        int own = cnt[c->me];
        int *rcnt = malloc((size_t)H * sizeof *rcnt), *rat = malloc((size_t)H * sizeof *rat);
        if (!rcnt || !rat) {
            free(rcnt), free(rat);
            st = comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
        } else {
            for (int h = 0; h < H; h++) {
                rcnt[h] = own;
                rat[h] = h * own;
            }
            MPI_Alltoallv(part, cnt, at, MPI_BYTE, rcv, rcnt, rat, MPI_BYTE, c->mpi);
            fold_hosts(type, op, mine, rcv, (size_t)own, H, (size_t)own);
            /* all-gather of the reduced shares */
            MPI_Allgatherv(mine, own, MPI_BYTE, part, cnt, at, MPI_BYTE, c->mpi);
            inter_host(c, "comm mpi allreduce: between hosts", 2.0 * (double)total * (H - 1) / H);
            host_pass(c, "comm mpi allreduce: host fold", (double)own * H, (double)own, (double)own * H);
            free(rcnt), free(rat);
        }
        st = agree(c, st);
        if (st == OPENPIM_COMM_OK)
            st = agree(c, local_broadcast(m, dst, part, bytes));
    }
    free(cnt), free(at), free(part), free(rcv), free(mine);
    return st;
}

/* ---- rooted primitives (root: MPI rank 0's host buffer) ------------------------------------ */

/* The root's share of host-buffer elements of host h: with the host
 * dimension, instance i's ranks [n_l h, n_l (h + 1)); without, instances
 * [I_l h, I_l (h + 1)).  `unit`: bytes per rank (per instance for
 * Broadcast/Reduce without ranks). */
static void pack(const openpim_mcomm_t *m, int h, const uint8_t *root, uint8_t *part, uint64_t unit, bool to_part)
{
    uint64_t nl = m->n_l, N = openpim_mcomm_size(m);
    if (!m->hosts) {
        size_t n = (size_t)(m->I_l * nl * unit);
        if (to_part)
            memcpy(part, root + (size_t)h * n, n);
        else
            memcpy((uint8_t *)root + (size_t)h * n, part, n);
        return;
    }
    for (uint64_t i = 0; i < m->I_l; i++) {
        uint8_t *r = (uint8_t *)root + (i * N + (uint64_t)h * nl) * unit, *p = part + i * nl * unit;
        if (to_part)
            memcpy(p, r, nl * unit);
        else
            memcpy(r, p, nl * unit);
    }
}

static openpim_comm_status scatter_like(openpim_mcomm_t *m, int prim, uint64_t dst, const void *host, uint64_t bytes)
{
    if (!m)
        return enter(m, prim, 0, dst, bytes, -1, 0, 0, 0, 0, 0);
    openpim_mcube_t *c = m->cube;
    /* this host's share of the root buffer: Scatter [I_l][n_l][bytes];
     * Broadcast [I_l][bytes] (with the host dimension every host needs all of it) */
    size_t share = (size_t)(m->I_l * (prim == M_SC ? m->n_l : 1) * bytes);
    openpim_comm_status st = enter(m, prim, 0, dst, bytes, -1, 0, 0, 0, bytes, (uint64_t)share * c->H);
    if (st == OPENPIM_COMM_OK && c->me == 0 && !host)
        st = comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "NULL host buffer on the root (MPI rank 0)");
    st = agree(c, st);
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    uint8_t *part = alloc_or_fail(share, &st), *all = NULL;
    bool same_everywhere = prim == M_BC && m->hosts;
    if (c->me == 0 && !same_everywhere)
        all = alloc_or_fail(share * c->H, &st);
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        if (same_everywhere) {
            if (c->me == 0)
                memcpy(part, host, share);
            MPI_Bcast(part, (int)share, MPI_BYTE, 0, c->mpi);
            inter_host(c, "comm mpi broadcast: between hosts", (double)share);
        } else {
            if (c->me == 0) {
                host_pass(c, "comm mpi scatter: host packing at the root", (double)share * c->H,
                          (double)share * c->H, 0);
            }
            if (c->me == 0)
                for (int h = 0; h < c->H; h++) {
                    if (prim == M_BC) /* instances i_l + I_l h: host h's slice is contiguous */
                        memcpy(all + (size_t)h * share, (const uint8_t *)host + (size_t)h * share, share);
                    else
                        pack(m, h, host, all + (size_t)h * share, bytes, true);
                }
            MPI_Scatter(all, (int)share, MPI_BYTE, part, (int)share, MPI_BYTE, 0, c->mpi);
            inter_host(c, prim == M_BC ? "comm mpi broadcast: between hosts" : "comm mpi scatter: between hosts",
                       (double)share * (c->H - 1));
        }
        st = agree(c, prim == M_BC ? local_broadcast(m, dst, part, bytes) : local_scatter(m, dst, part, bytes));
    }
    free(part), free(all);
    return st;
}

openpim_comm_status openpim_mpi_broadcast(openpim_mcomm_t *m, uint64_t dst, const void *host, uint64_t bytes)
{
    return scatter_like(m, M_BC, dst, host, bytes);
}

openpim_comm_status openpim_mpi_scatter(openpim_mcomm_t *m, uint64_t dst, const void *host, uint64_t bytes)
{
    return scatter_like(m, M_SC, dst, host, bytes);
}

static openpim_comm_status gather_like(openpim_mcomm_t *m, int prim, uint64_t src, void *host, uint64_t bytes,
                                       openpim_comm_type type, openpim_comm_op op)
{
    if (!m)
        return enter(m, prim, src, 0, bytes, -1, 0, 0, 0, 0, 0);
    size_t esz = prim == M_RE ? openpim_comm_type_size(type) : 1;
    uint64_t share = (uint64_t)m->I_l * (prim == M_RE ? 1 : m->n_l) * bytes;
    openpim_comm_status st = enter(m, prim, src, 0, bytes, prim == M_RE ? (int)type : -1, (int)op, esz ? esz : 1,
                                   bytes, 0, share * m->cube->H);
    if (st == OPENPIM_COMM_OK && m->cube->me == 0 && !host)
        st = comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "NULL host buffer on the root (MPI rank 0)");
    st = agree(m->cube, st);
    if (st != OPENPIM_COMM_OK || bytes == 0)
        return st;
    openpim_mcube_t *c = m->cube;
    size_t part_len = (size_t)share;
    uint8_t *part = alloc_or_fail(part_len, &st), *all = NULL;
    if (c->me == 0)
        all = alloc_or_fail(part_len * c->H, &st);
    if (st == OPENPIM_COMM_OK)
        st = prim == M_RE ? local_reduce(m, src, part, bytes, type, op) : local_gather(m, src, part, bytes);
    st = agree(c, st);
    if (st == OPENPIM_COMM_OK) {
        MPI_Gather(part, (int)part_len, MPI_BYTE, all, (int)part_len, MPI_BYTE, 0, c->mpi);
        inter_host(c, prim == M_RE ? "comm mpi reduce: between hosts" : "comm mpi gather: between hosts",
                   (double)part_len * (c->H - 1));
        if (c->me == 0) {
            host_pass(c, prim == M_RE ? "comm mpi reduce: host fold at the root" : "comm mpi gather: host placement",
                      (double)part_len * c->H, prim == M_RE && m->hosts ? (double)part_len : (double)part_len * c->H,
                      prim == M_RE && m->hosts ? (double)part_len * c->H : 0);
            if (prim == M_RE && m->hosts)
                fold_hosts(type, op, host, all, part_len, c->H, part_len); /* [I_l][bytes] */
            else if (prim == M_RE)
                memcpy(host, all, part_len * c->H); /* instances in host order */
            else
                for (int h = 0; h < c->H; h++)
                    pack(m, h, host, all + (size_t)h * part_len, bytes, false);
        }
    }
    free(part), free(all);
    return st;
}

openpim_comm_status openpim_mpi_gather(openpim_mcomm_t *m, uint64_t src, void *host, uint64_t bytes)
{
    return gather_like(m, M_GA, src, host, bytes, OPENPIM_UINT8, OPENPIM_SUM);
}

openpim_comm_status openpim_mpi_reduce(openpim_mcomm_t *m, uint64_t src, void *host, uint64_t bytes,
                                       openpim_comm_type type, openpim_comm_op op)
{
    return gather_like(m, M_RE, src, host, bytes, type, op);
}
