/* SPDX-License-Identifier: MIT */
/* Shared by the two layouts' multiplications (ckks.c: he's 1D split;
 * ckks2d.c: each limb over g DPUs, resident; ckks_seq.c: the sequence both run). */
#ifndef OPENPIM_CKKS_INTERNAL_H
#define OPENPIM_CKKS_INTERNAL_H

#include <stdint.h>

#include "openpim_ckks.h"

/* Sets the thread's last error (printf format) and returns st. */
openpim_he_status ckks_fail(openpim_he_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An he call failed: keep its reason. */
openpim_he_status ckks_he_failed(openpim_he_status st, const char *what);
/* Adds a step of `us` to category cat and to the step list. */
void ckks_record(struct openpim_ckks_times *t, enum openpim_ckks_category cat, double us, double kernel_us,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
uint32_t ckks_mul_mod(uint32_t a, uint32_t b, uint32_t q);
uint32_t ckks_inv_mod(uint32_t a, uint32_t q); /* q prime */
/* The constant of limb j: which 0: P^-1 mod q_j for j <= L (ModDown), which
 * 1: q_L^-1 mod q_j for j < L (rescaling); else 0. */
uint32_t ckks_constant(const struct openpim_he_params *hp, uint32_t l, int which, uint32_t j);

/* ---- the one multiplication, over either layout (ckks_seq.c) ----------------
 * A layout is he's 1D arrays (ckks.c: openpim_he_poly, openpim_he_baseconv on
 * an openpim_he_context) or its resident 2D arrays (ckks2d.c: openpim_he_poly2d,
 * openpim_he_baseconv2d on an openpim_he_ntt2d); the sequence sees them as
 * void * and reaches them only through the layout's table. */

struct ckks_run {                  /* one multiplication in progress */
    void *he;                      /* the layout's he object */
    struct openpim_ckks_times *t;  /* each operation records its step(s) here */
    double launch_us;              /* 1D: host-side overhead of the last single-launch step */
};

enum ckks_elem { CKKS_ADD, CKKS_SUB, CKKS_MUL };

struct ckks_layout {
    openpim_he_status (*conv_create)(void *he, const uint32_t *from, uint32_t nr_from, const uint32_t *to,
                                     uint32_t nr_to, void **bc);
    openpim_he_status (*alloc)(void *he, uint32_t count, void **p); /* 2D: count is the object's */
    openpim_he_status (*upload)(void *he, void *p, const uint32_t *data); /* NTT form */
    void (*free)(void *he, void *p);
    uint32_t (*count)(const void *p); /* NULL: every array holds the object's count */
    enum openpim_he_form (*form)(const void *p);
    int mac_needs_tmp;             /* mac goes through a temporary array (1D: product, then add) */
    /* Each runs he's operation(s) and records its step(s), named `name`, in r->t. */
    openpim_he_status (*tensor)(struct ckks_run *r, void *const d[3], const void *const a[2],
                                const void *const b[2]);
    openpim_he_status (*ntt)(struct ckks_run *r, int inverse, void *dst, const void *src, const char *name);
    openpim_he_status (*convert)(struct ckks_run *r, enum openpim_ckks_category cat, const void *bc, void *dst,
                                 const void *src, const char *name);
    openpim_he_status (*elem)(struct ckks_run *r, enum openpim_ckks_category cat, enum ckks_elem op, void *dst,
                              const void *a, const void *b, const char *name);
    /* dst += a b; `stem` names the step(s) ("inner[1]"), the layout adds its suffixes */
    openpim_he_status (*mac)(struct ckks_run *r, enum openpim_ckks_category cat, void *dst, const void *a,
                             const void *b, void *tmp, const char *stem);
};

struct ckks_core {                 /* what both layouts' contexts hold */
    const struct ckks_layout *lay;
    void *he;                      /* its he object (owns the conversions and arrays) */
    struct openpim_ckks_params params;
    struct openpim_he_params hp;
    void **up;                     /* [dnum]: digit -> every other limb */
    void *down;                    /* P -> Q */
    void *rescale;                 /* q_L -> q_0 .. q_{L-1} */
};

struct ckks_key_core {             /* what both layouts' switching keys hold */
    const struct ckks_core *owner; /* the context it was uploaded to */
    uint32_t count;
    void **ksk;                    /* [dnum][2] */
    void *p_inv;                   /* P^-1 mod q_j at the limbs j <= L, else 0 (NTT form, constant) */
    void *ql_inv;                  /* q_L^-1 mod q_j at the limbs j < L, else 0 */
};

/* Fills c's params (checked) and moduli, allocates c->up (the caller then
 * creates c->he). */
openpim_he_status ckks_core_init(struct ckks_core *c, const struct openpim_ckks_params *params);
/* Creates the ModUp, ModDown and rescaling conversions on c->he. */
openpim_he_status ckks_core_conversions(struct ckks_core *c);
/* Checks and uploads the switching key (one copy of dnum * 2 * k * n words),
 * stored `count` times, and the ModDown / rescaling constants. */
openpim_he_status ckks_key_upload(const struct ckks_core *c, const uint32_t *data, uint32_t count,
                                  struct ckks_key_core *key);
void ckks_key_release(const struct ckks_core *c, struct ckks_key_core *key);
/* out = a * b (include/openpim_ckks.h), argument checks included (c or key
 * NULL: the caller's ctx or key was). */
openpim_he_status ckks_multiply(const struct ckks_core *c, const struct ckks_key_core *key, void *const out[2],
                                const void *const a[2], const void *const b[2], struct openpim_ckks_times *times);

#endif
