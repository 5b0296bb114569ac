/* SPDX-License-Identifier: MIT */
/* The PIM-interconnect what-if (openpim_comm.h, [Jonatan24] §6): link time of a
 * primitive on a bank / chip / rank hierarchy of direct DPU links, and the
 * transport that runs the DPU-to-DPU primitives as if on those links. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openpim_ext.h>

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

/* The data still move through the host (the emulator has no links), on the
 * host-mediated path: standard transfers and no DPU kernel, since a launch is
 * refused while timing is paused.  Its results are those of every other path;
 * only the clock differs: it advances by the link time alone. */
openpim_comm_status comm_interconnect_run(const struct comm_args *a,
                                          openpim_comm_status (*base)(const struct comm_args *),
                                          openpim_comm_prim prim)
{
    static const char *const names[] = {"alltoall", "reduce_scatter", "allgather", "allreduce"};
    openpim_cube_t *c = a->comm->cube;
    double link = comm_link_us(a->comm, prim, a->bytes, c->link_gbps);
    if (link < 0)
        return comm_fail(OPENPIM_COMM_ERR_NOMEM, "out of host memory");
    struct comm_args host = *a;
    host.tech = 0;             /* the plain host path ... */
    host.simd = comm_simd();   /* ... with this host's fastest reductions (same results) */
    dpu_error_t rc = openpim_timing_pause();
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "openpim_timing_pause");
    openpim_comm_status st = base(&host);
    rc = openpim_timing_resume(); /* always, even when base failed */
    if (st != OPENPIM_COMM_OK)
        return st;
    if (rc != DPU_OK)
        return comm_dpu_fail(rc, "openpim_timing_resume");
    char name[64];
    snprintf(name, sizeof name, "comm interconnect %s %llu B", names[prim], (unsigned long long)a->bytes);
    rc = openpim_record_event(c->set, OPENPIM_EVENT_INTER_DPU, name, link, false);
    return rc == DPU_OK ? OPENPIM_COMM_OK : comm_dpu_fail(rc, "openpim_record_event");
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
    return OPENPIM_COMM_OK;
}
