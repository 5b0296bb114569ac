/* SPDX-License-Identifier: MIT */
/* Internals of the 2D layout shared by the 2D NTT (he_ntt2d.c) and the
 * resident 2D arrays and their operations (he_res2d.c). */
#ifndef OPENPIM_HE_NTT2D_INTERNAL_H
#define OPENPIM_HE_NTT2D_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <dpu.h>
#include <openpim_comm.h>

#include "../dpu/he_ntt2d_abi.h"
#include "openpim_he.h"

/* One block of every DPU's MRAM heap holding a resident array or table. */
struct he2d_block {
    uint64_t offset, size;
    struct he2d_block *next; /* by offset */
};

struct openpim_he_ntt2d {
    struct openpim_he_params params;
    uint32_t n1, n2, log_n1, log_n2, g, groups, nr_dpus, count, nr_ntts, slots, c1, r2, row_words;
    uint32_t off_mods, off_tw1, off_tw2, off_twist, off_a, off_b, off_c, off_itw1, off_itw2, off_itwist;
    uint64_t heap_end, heap_size; /* the fixed regions end at heap_end; resident blocks go above */
    struct he2d_block *blocks;
    openpim_he_poly2d *polys;     /* live resident arrays, freed with the object */
    openpim_he_baseconv2d *convs; /* live base conversions */
    struct dpu_set_t set;
    struct dpu_set_t *node_dpu; /* [nr_dpus], node x + g * group */
    openpim_cube_t *cube;
    openpim_comm_t *comm;
    uint32_t *stage;            /* [nr_dpus][slots * n / g] */
    char path[4096];            /* the DPU image, loaded again after each All-to-All */
    int comm_view;
};

struct openpim_he_poly2d {
    openpim_he_ntt2d *ntt;
    struct he2d_block *block;   /* [slots][n / g] words on every DPU */
    enum openpim_he_form form;
    openpim_he_poly2d *next;
};

struct openpim_he_baseconv2d {
    openpim_he_ntt2d *ntt;
    uint32_t nr_from;
    uint32_t from[OPENPIM_HE_MAX_MODULI];
    uint8_t role[OPENPIM_HE_MAX_MODULI]; /* enum he2d_conv_role of each modulus */
    struct he2d_block *block;            /* the table of he2d_args.conv, per group */
    openpim_he_baseconv2d *next;
};

openpim_he_status he2d_sdk_fail(dpu_error_t err, const char *what);
/* One transfer of `bytes` per node at heap byte offset `offset`: node i's
 * data at base + i * stride_words words, or base + (i / g) * stride_words
 * with per_group (group-wide data; stride 0: the same for every node). */
openpim_he_status he2d_push(openpim_he_ntt2d *h, dpu_xfer_t dir, uint32_t offset, uint64_t bytes, uint32_t *base,
                            size_t stride_words, bool per_group, const char *what);
/* One launch of args on every DPU; the slowest DPU's cycles and time. */
openpim_he_status he2d_launch(openpim_he_ntt2d *h, const struct he2d_args *args, uint64_t *cycles, double *dpu_us);
/* The All-to-All b -> c of every group (then the program again). */
openpim_he_status he2d_exchange(openpim_he_ntt2d *h);
/* The modelled time since *mark; *mark moves to now. */
double he2d_since(double *mark);
/* Forward (inverse) 2D NTT of the arrays at heap offsets a -> dst (may be
 * equal), all groups' valid slots: two launches and the All-to-All. */
openpim_he_status he2d_transform(openpim_he_ntt2d *h, bool inverse, uint32_t dst, uint32_t a,
                                 struct openpim_he_ntt2d_times *t, double *mark);
/* The host side of a batch's transfer (data: nr_ntts * n words) into or out
 * of h->stage ([nr_dpus][slots * n / g]): node (x, grp) holds, of each slot
 * of its group, in NTT form words [x n / g, (x + 1) n / g); in coefficient
 * form columns i1 = x c1 .. as [i1 local][i2], a transposition recorded as
 * the host event `event`. */
openpim_he_status he2d_stage_in(openpim_he_ntt2d *h, const uint32_t *data, enum openpim_he_form form,
                                const char *event);
openpim_he_status he2d_stage_out(openpim_he_ntt2d *h, uint32_t *data, enum openpim_he_form form, const char *event);
/* The modulus of (group, slot): residue grp * slots + slot of the batch. */
uint32_t he2d_modulus_index(const openpim_he_ntt2d *h, uint32_t grp, uint32_t slot);
/* MRAM of every DPU above the fixed regions (8-aligned), first fit. */
openpim_he_status he2d_heap_alloc(openpim_he_ntt2d *h, uint64_t size, struct he2d_block **block);
void he2d_heap_free(openpim_he_ntt2d *h, struct he2d_block *block);
/* Frees the resident arrays and conversions (at destroy). */
void he2d_free_resident(openpim_he_ntt2d *h);

#endif
