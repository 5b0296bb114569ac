/* Shared by the two layouts' multiplications (ckks.c: he's 1D split;
 * ckks2d.c: each limb over g DPUs, resident). */
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

#endif
