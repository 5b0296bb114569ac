/* SPDX-License-Identifier: MIT */
/* Cubes and communicators: shape checks, the node -> DPU mapping (chip, then
 * DPU in the chip, then rank in the set's order) and the node tables of each
 * communicator. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct dpu_pos {
    uint32_t member, slice;
    struct dpu_set_t dpu;
};

static int cmp_pos(const void *a, const void *b)
{
    const struct dpu_pos *x = a, *y = b;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    return (x->slice > y->slice) - (x->slice < y->slice);
}

/* Fills node_dpu in hierarchy order and decides whether the view path fits. */
static openpim_comm_status map_nodes(openpim_cube_t *c)
{
    struct dpu_set_t rank;
    uint32_t r, n = 0;
    c->view_ok = true;
    DPU_RANK_FOREACH(c->set, rank, r) {
        c->rank_set[r] = rank;
        uint32_t cnt = 0;
        dpu_error_t rc = dpu_get_nr_dpus(rank, &cnt);
        if (rc != DPU_OK)
            return comm_dpu_fail(rc, "counting the DPUs of a rank");
        struct dpu_pos *pos = calloc(cnt ? cnt : 1, sizeof *pos);
        if (!pos)
            return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
        struct dpu_set_t dpu;
        uint32_t k = 0;
        DPU_FOREACH(rank, dpu) {
            if (k == cnt)
                break;
            struct dpu_t *d = dpu_from_set(dpu);
            pos[k].member = dpu_get_member_id(d);
            pos[k].slice = dpu_get_slice_id(d);
            pos[k].dpu = dpu;
            k++;
        }
        qsort(pos, k, sizeof *pos, cmp_pos);
        bool full = k == COMM_CHIPS * COMM_GROUPS;
        for (uint32_t i = 0; i < k; i++) {
            if (full && (pos[i].member != i / COMM_CHIPS || pos[i].slice != i % COMM_CHIPS))
                full = false;
            if (n + i < c->nr_nodes) {
                c->node_dpu[n + i] = pos[i].dpu;
                c->node_place[n + i] = (struct comm_place){r, pos[i].slice, pos[i].member};
            }
        }
        c->view_ok = c->view_ok && full;
        n += k;
        free(pos);
    }
    if (n != c->nr_nodes)
        return comm_fail(OPENPIM_COMM_ERR_SHAPE, "the set's ranks hold %u enabled DPUs, not %u", n, c->nr_nodes);
    return OPENPIM_COMM_OK;
}

openpim_comm_status openpim_cube_create(struct dpu_set_t set, uint32_t nr_dims, const uint32_t *lengths,
                                        openpim_cube_t **out)
{
    comm_clear_error();
    if (!out)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_cube_create: NULL result pointer");
    *out = NULL;
    if (!lengths || nr_dims == 0 || nr_dims > OPENPIM_COMM_MAX_DIMS)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "a cube has 1 to %d dimensions (got %u%s)",
                         OPENPIM_COMM_MAX_DIMS, nr_dims, lengths ? "" : ", lengths NULL");
    if (set.kind != DPU_SET_RANKS)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "the cube needs a set of ranks (from dpu_alloc), not one DPU");
    uint32_t nr_dpus = 0, nr_ranks = 0;
    dpu_error_t rc = dpu_get_nr_dpus(set, &nr_dpus);
    if (rc == DPU_OK)
        rc = dpu_get_nr_ranks(set, &nr_ranks);
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "openpim_cube_create: the DPU set");
    uint64_t prod = 1;
    for (uint32_t d = 0; d < nr_dims; d++) {
        if (lengths[d] == 0)
            return comm_fail(OPENPIM_COMM_ERR_SHAPE, "dimension %u has length 0", d);
        prod *= lengths[d];
        if (prod > nr_dpus)
            break;
    }
    if (prod != nr_dpus)
        return comm_fail(OPENPIM_COMM_ERR_SHAPE, "the lengths multiply to %s%llu, but the set has %u DPUs",
                         prod > nr_dpus ? "more than " : "", (unsigned long long)prod, nr_dpus);
    openpim_cube_t *c = calloc(1, sizeof *c);
    if (!c)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    c->set = set;
    c->nr_dims = nr_dims;
    memcpy(c->len, lengths, nr_dims * sizeof *lengths);
    c->nr_nodes = nr_dpus;
    c->nr_ranks = nr_ranks;
    c->node_dpu = calloc(nr_dpus, sizeof *c->node_dpu);
    c->node_place = calloc(nr_dpus, sizeof *c->node_place);
    c->link_gbps = COMM_DEFAULT_LINK_GBPS;
    c->kernel_load_us = -1;
    c->rank_set = calloc(nr_ranks ? nr_ranks : 1, sizeof *c->rank_set);
    const char *env = getenv("OPENPIM_COMM_IMPL");
    c->tech = env && !strcmp(env, "baseline") ? 0 : ALL_TECH;
    uint32_t wram = 0;
    rc = openpim_get_memory_sizes(set, &c->mram_bytes, &wram);
    openpim_comm_status st = rc != DPU_OK ? comm_dpu_fail(rc, "openpim_get_memory_sizes")
                             : c->node_dpu && c->node_place && c->rank_set ? map_nodes(c)
                                                          : comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    if (st != OPENPIM_COMM_OK) {
        openpim_cube_destroy(c);
        return st;
    }
    /* the view path needs dimension 0 to cover whole entangled groups */
    c->view_ok = c->view_ok && lengths[0] % COMM_CHIPS == 0;
    *out = c;
    return OPENPIM_COMM_OK;
}

void openpim_cube_destroy(openpim_cube_t *c)
{
    if (!c)
        return;
    for (uint32_t i = 0; i < c->nr_comms; i++) {
        free(c->comms[i]->node_of);
        free(c->comms[i]);
    }
    free(c->comms);
    free(c->buf[0]);
    free(c->buf[1]);
    free(c->node_dpu);
    free(c->node_place);
    free(c->rank_set);
    free(c);
}

openpim_comm_status openpim_cube_set_impl(openpim_cube_t *c, openpim_comm_impl impl)
{
    comm_clear_error();
    if (!c)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_cube_set_impl: NULL cube");
    if (impl != OPENPIM_COMM_BASELINE && impl != OPENPIM_COMM_OPTIMISED)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "unknown implementation %d", (int)impl);
    c->tech = impl == OPENPIM_COMM_OPTIMISED ? ALL_TECH : 0;
    return OPENPIM_COMM_OK;
}

openpim_comm_impl openpim_cube_get_impl(const openpim_cube_t *c)
{
    return c && c->tech == ALL_TECH ? OPENPIM_COMM_OPTIMISED : OPENPIM_COMM_BASELINE;
}

openpim_comm_status openpim_cube_set_techniques(openpim_cube_t *c, unsigned t)
{
    comm_clear_error();
    if (!c)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_cube_set_techniques: NULL cube");
    if (t & ~ALL_TECH)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "unknown technique bits 0x%x", t & ~ALL_TECH);
    if ((t & OPENPIM_COMM_IM) && !(t & OPENPIM_COMM_PR))
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "in-register modulation (IM) builds on PE-assisted reordering (PR)");
    if ((t & OPENPIM_COMM_CM) && !(t & OPENPIM_COMM_IM))
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "cross-domain modulation (CM) builds on in-register modulation (IM)");
    c->tech = t;
    return OPENPIM_COMM_OK;
}

unsigned openpim_cube_get_techniques(const openpim_cube_t *c)
{
    return c ? c->tech : 0;
}

uint64_t openpim_cube_mram_bytes(const openpim_cube_t *c)
{
    return c ? c->mram_bytes : 0;
}

uint32_t openpim_cube_nr_nodes(const openpim_cube_t *c)
{
    return c ? c->nr_nodes : 0;
}

int openpim_cube_last_used_view(const openpim_cube_t *c)
{
    return c ? c->last_view : 0;
}

openpim_comm_status openpim_cube_node_dpu(const openpim_cube_t *c, uint32_t node, struct dpu_set_t *dpu)
{
    comm_clear_error();
    if (!c || !dpu)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_cube_node_dpu: NULL argument");
    if (node >= c->nr_nodes)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "node %u: the cube has %u nodes", node, c->nr_nodes);
    *dpu = c->node_dpu[node];
    return OPENPIM_COMM_OK;
}

static openpim_comm_status make_comm(openpim_cube_t *c, uint32_t mask, openpim_comm_t **out)
{
    openpim_comm_t *m = calloc(1, sizeof *m);
    openpim_comm_t **grown = realloc(c->comms, (c->nr_comms + 1) * sizeof *grown);
    if (grown)
        c->comms = grown;
    if (!m || !grown || !(m->node_of = malloc((size_t)c->nr_nodes * sizeof *m->node_of))) {
        free(m);
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    }
    m->cube = c;
    m->mask = mask;
    m->size = 1;
    for (uint32_t d = 0; d < c->nr_dims; d++)
        if (mask >> d & 1)
            m->size *= c->len[d];
    m->nr_instances = c->nr_nodes / m->size;
    /* rank = linear index over the selected coordinates, instance = over the others */
    for (uint32_t n = 0; n < c->nr_nodes; n++) {
        uint32_t rest = n, rank = 0, inst = 0, rs = 1, is = 1;
        for (uint32_t d = 0; d < c->nr_dims; d++) {
            uint32_t x = rest % c->len[d];
            rest /= c->len[d];
            if (mask >> d & 1) {
                rank += x * rs;
                rs *= c->len[d];
            } else {
                inst += x * is;
                is *= c->len[d];
            }
        }
        m->node_of[(size_t)inst * m->size + rank] = n;
    }
    c->comms[c->nr_comms++] = m;
    *out = m;
    return OPENPIM_COMM_OK;
}

openpim_comm_status openpim_comm_create(openpim_cube_t *c, uint32_t nr, const uint32_t *dims, openpim_comm_t **out)
{
    comm_clear_error();
    if (!c || !out || (nr && !dims))
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_comm_create: NULL argument");
    *out = NULL;
    if (nr == 0)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "a communicator needs at least one dimension");
    uint32_t mask = 0;
    for (uint32_t i = 0; i < nr; i++) {
        if (dims[i] >= c->nr_dims)
            return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "dimension %u: the cube has %u", dims[i], c->nr_dims);
        if (mask >> dims[i] & 1)
            return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "dimension %u listed twice", dims[i]);
        mask |= 1u << dims[i];
    }
    return make_comm(c, mask, out);
}

openpim_comm_status openpim_comm_create_mask(openpim_cube_t *c, const char *s, openpim_comm_t **out)
{
    comm_clear_error();
    if (!c || !s || !out)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_comm_create_mask: NULL argument");
    *out = NULL;
    if (strlen(s) != c->nr_dims)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "mask \"%s\": want one 0/1 per dimension (%u)", s, c->nr_dims);
    uint32_t dims[OPENPIM_COMM_MAX_DIMS], nr = 0;
    for (uint32_t d = 0; d < c->nr_dims; d++) {
        if (s[d] != '0' && s[d] != '1')
            return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "mask \"%s\": only '0' and '1'", s);
        if (s[d] == '1')
            dims[nr++] = d;
    }
    return openpim_comm_create(c, nr, dims, out);
}

uint32_t openpim_comm_size(const openpim_comm_t *m)
{
    return m ? m->size : 0;
}

uint32_t openpim_comm_nr_instances(const openpim_comm_t *m)
{
    return m ? m->nr_instances : 0;
}

uint32_t openpim_comm_node(const openpim_comm_t *m, uint32_t instance, uint32_t rank)
{
    if (!m || instance >= m->nr_instances || rank >= m->size)
        return UINT32_MAX;
    return m->node_of[(size_t)instance * m->size + rank];
}

double openpim_cube_last_host_pass_us(const openpim_cube_t *c)
{
    return c ? c->last_host_us : 0;
}

uint8_t *comm_buffer(openpim_cube_t *c, int slot, size_t size)
{
    if (size > c->buf_size[slot]) {
        free(c->buf[slot]);
        c->buf[slot] = malloc(size ? size : 1);
        c->buf_size[slot] = c->buf[slot] ? size : 0;
    }
    return c->buf[slot];
}
