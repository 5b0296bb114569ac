/* The PIM-interconnect what-if (openpim_comm.h, paper 000 §6): link time of a
 * primitive on a bank / chip / rank hierarchy of direct DPU links, and the
 * cube's sums for re-timing a program. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* An instance's DPUs per chip, chips per rank and ranks (averages when the
 * instance does not fill its chips or ranks evenly). */
static void levels(const openpim_comm_t *m, uint32_t inst, uint8_t *seen, double g[3])
{
    const openpim_cube_t *c = m->cube;
    const uint32_t *node = m->node_of + (size_t)inst * m->size;
    uint32_t ranks = 0, chips = 0;
    for (uint32_t r = 0; r < m->size; r++) {
        const struct comm_place *p = &c->node_place[node[r]];
        uint8_t *s = seen + (size_t)p->rank * 65;
        if (!s[64]) {
            s[64] = 1;
            ranks++;
        }
        if (!s[p->chip & 63]) {
            s[p->chip & 63] = 1;
            chips++;
        }
    }
    for (uint32_t r = 0; r < m->size; r++) /* clear what was set */
        memset(seen + (size_t)c->node_place[node[r]].rank * 65, 0, 65);
    g[2] = ranks;
    g[1] = (double)chips / ranks;
    g[0] = (double)m->size / chips;
}

double comm_link_us(const openpim_comm_t *m, openpim_comm_prim prim, uint64_t bytes, double link_gbps)
{
    const openpim_cube_t *c = m->cube;
    uint8_t *seen = calloc((size_t)c->nr_ranks * 65, 1);
    if (!seen)
        return -1;
    double L = link_gbps * 1e3, worst = 0; /* bytes per microsecond */
    for (uint32_t i = 0; i < m->nr_instances; i++) {
        double g[3], t = 0, b = (double)bytes;
        levels(m, i, seen, g);
        for (int k = 0; k < 3; k++) {
            switch (prim) {
            case OPENPIM_PRIM_ALLTOALL: t += (g[k] - 1) / g[k] * b / L; break;
            case OPENPIM_PRIM_REDUCE_SCATTER: t += (g[k] - 1) / g[k] * b / L, b /= g[k]; break;
            case OPENPIM_PRIM_ALLREDUCE: t += 2 * (g[k] - 1) / g[k] * b / L, b /= g[k]; break;
            case OPENPIM_PRIM_ALLGATHER: t += (g[k] - 1) * b / L, b *= g[k]; break;
            }
        }
        worst = t > worst ? t : worst;
    }
    free(seen);
    return worst;
}

double openpim_comm_link_us(const openpim_comm_t *m, openpim_comm_prim prim, uint64_t bytes, double link_gbps)
{
    if (!m || (unsigned)prim > OPENPIM_PRIM_ALLREDUCE || !isfinite(link_gbps))
        return -1;
    return comm_link_us(m, prim, bytes, link_gbps > 0 ? link_gbps : COMM_DEFAULT_LINK_GBPS);
}

openpim_comm_status openpim_cube_set_transport(openpim_cube_t *c, openpim_comm_transport t, double link_gbps)
{
    comm_clear_error();
    if (!c)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_cube_set_transport: NULL cube");
    if (t != OPENPIM_COMM_HOST_ROUTED && t != OPENPIM_COMM_INTERCONNECT)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "unknown transport %d", (int)t);
    if (!isfinite(link_gbps) || link_gbps > 1000)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "link bandwidth %g GB/s: want (0, 1000], or <= 0 for 2.8",
                         link_gbps);
    c->transport = t;
    c->link_gbps = link_gbps > 0 ? link_gbps : COMM_DEFAULT_LINK_GBPS;
    memset(&c->whatif, 0, sizeof c->whatif);
    return OPENPIM_COMM_OK;
}

openpim_comm_status openpim_cube_get_whatif(const openpim_cube_t *c, struct openpim_comm_whatif *sums)
{
    comm_clear_error();
    if (!c || !sums)
        return comm_fail(OPENPIM_COMM_ERR_ARGUMENT, "openpim_cube_get_whatif: NULL argument");
    *sums = c->whatif;
    return OPENPIM_COMM_OK;
}
