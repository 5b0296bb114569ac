/* SPDX-License-Identifier: MIT */
/* Parameters: NTT-friendly primes (generated or checked), roots of unity and
 * the twiddle tables the DPU kernels read. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "he_internal.h"

static _Thread_local char last_error[256] = "no error";

openpim_he_status he_fail(openpim_he_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

const char *openpim_he_last_error(void)
{
    return last_error;
}

const char *openpim_he_status_name(openpim_he_status status)
{
    switch (status) {
    case OPENPIM_HE_OK: return "OPENPIM_HE_OK";
    case OPENPIM_HE_ERR_ARGUMENT: return "OPENPIM_HE_ERR_ARGUMENT";
    case OPENPIM_HE_ERR_DEGREE: return "OPENPIM_HE_ERR_DEGREE";
    case OPENPIM_HE_ERR_MODULUS: return "OPENPIM_HE_ERR_MODULUS";
    case OPENPIM_HE_ERR_FORM: return "OPENPIM_HE_ERR_FORM";
    case OPENPIM_HE_ERR_MRAM: return "OPENPIM_HE_ERR_MRAM";
    case OPENPIM_HE_ERR_DPUS: return "OPENPIM_HE_ERR_DPUS";
    case OPENPIM_HE_ERR_DPU: return "OPENPIM_HE_ERR_DPU";
    case OPENPIM_HE_ERR_NO_MEMORY: return "OPENPIM_HE_ERR_NO_MEMORY";
    }
    return "unknown status";
}

uint32_t he_mul_mod(uint32_t a, uint32_t b, uint32_t q)
{
    return (uint32_t)((uint64_t)a * b % q);
}

uint32_t he_pow_mod(uint32_t base, uint64_t exp, uint32_t q)
{
    uint32_t r = 1 % q, b = base % q;
    for (; exp; exp >>= 1) {
        if (exp & 1)
            r = he_mul_mod(r, b, q);
        b = he_mul_mod(b, b, q);
    }
    return r;
}

/* Deterministic Miller-Rabin: bases 2, 7 and 61 decide every q < 2^32. */
bool he_is_prime(uint32_t q)
{
    if (q < 2)
        return false;
    static const uint32_t small[] = {2, 3, 5, 7, 11, 13, 61};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        if (q % small[i] == 0)
            return q == small[i];
    uint32_t d = q - 1, s = 0;
    while (!(d & 1)) {
        d >>= 1;
        s++;
    }
    static const uint32_t bases[] = {2, 7, 61};
    for (size_t i = 0; i < 3; i++) {
        uint32_t x = he_pow_mod(bases[i], d, q);
        if (x == 1 || x == q - 1)
            continue;
        bool composite = true;
        for (uint32_t r = 1; r < s && composite; r++) {
            x = he_mul_mod(x, x, q);
            if (x == q - 1)
                composite = false;
        }
        if (composite)
            return false;
    }
    return true;
}

uint32_t he_bit_reverse(uint32_t x, uint32_t bits)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < bits; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

uint32_t he_log2(uint32_t n)
{
    uint32_t l = 0;
    while ((1ull << l) < n) /* 64-bit: n above 2^31 gives 32 */
        l++;
    return l;
}

static bool degree_ok(uint32_t n)
{
    return n >= (1u << OPENPIM_HE_MIN_LOG_N) && n <= (1u << OPENPIM_HE_MAX_LOG_N) && (n & (n - 1)) == 0;
}

static openpim_he_status degree_error(uint32_t n)
{
    return he_fail(OPENPIM_HE_ERR_DEGREE, "n = %u: the degree must be a power of two from 2^%d to 2^%d", n,
                   OPENPIM_HE_MIN_LOG_N, OPENPIM_HE_MAX_LOG_N);
}

uint32_t openpim_he_minimal_root(uint32_t q, uint32_t n)
{
    if (!degree_ok(n) || !he_is_prime(q) || (q - 1) % (2ull * n) != 0)
        return 0;
    /* a primitive 2n-th root: r = g^((q-1)/2n) with r^n = -1 (g a non-residue
     * suffices; try g = 2, 3, ...); the primitive ones are r^k, k odd */
    uint32_t r = 0;
    for (uint32_t g = 2; g < q && !r; g++) {
        uint32_t c = he_pow_mod(g, (q - 1) / (2ull * n), q);
        if (he_pow_mod(c, n, q) == q - 1)
            r = c;
    }
    uint32_t r2 = he_mul_mod(r, r, q), best = r;
    for (uint32_t k = 1, p = r; k < 2 * n; k += 2, p = he_mul_mod(p, r2, q))
        if (p < best)
            best = p;
    return best;
}

/* Every uint32_t modulus has at most OPENPIM_HE_MAX_MODULUS_BITS bits: no width check. */
_Static_assert(OPENPIM_HE_MAX_MODULUS_BITS == 32, "moduli are uint32_t words");

uint32_t he_barrett_mu(uint32_t q)
{
    uint32_t bits = 32 - (uint32_t)__builtin_clz(q);
    /* floor(2^(2b) / q) mod 2^32; for b = 32, floor((2^64 - 1) / q) is the same (q > 1 is odd) */
    return (uint32_t)(bits == 32 ? UINT64_MAX / q : (1ull << (2 * bits)) / q);
}

bool he_params_wide(const struct openpim_he_params *p)
{
    bool wide = p->special_modulus >= HE_NARROW_LIMIT;
    for (uint32_t i = 0; i < p->nr_moduli; i++)
        wide |= p->moduli[i] >= HE_NARROW_LIMIT;
    return wide;
}

openpim_he_status openpim_he_params_validate(const struct openpim_he_params *params)
{
    if (!params)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "params is NULL");
    if (!degree_ok(params->n))
        return degree_error(params->n);
    if (params->nr_moduli < 1 || params->nr_moduli > OPENPIM_HE_MAX_MODULI)
        return he_fail(OPENPIM_HE_ERR_MODULUS, "%u moduli: between 1 and %d are supported", params->nr_moduli,
                       OPENPIM_HE_MAX_MODULI);
    uint32_t all = params->nr_moduli + (params->special_modulus ? 1 : 0);
    for (uint32_t i = 0; i < all; i++) {
        uint32_t q = i < params->nr_moduli ? params->moduli[i] : params->special_modulus;
        char name[32];
        if (i < params->nr_moduli)
            snprintf(name, sizeof name, "q_%u", i);
        else
            snprintf(name, sizeof name, "the special modulus");
        if (!he_is_prime(q))
            return he_fail(OPENPIM_HE_ERR_MODULUS, "modulus %u (%s) is not prime", q, name);
        if ((q - 1) % (2ull * params->n) != 0)
            return he_fail(OPENPIM_HE_ERR_MODULUS,
                           "modulus %u (%s) is not NTT-friendly for n = %u: q mod 2n = %llu, must be 1", q, name,
                           params->n, (unsigned long long)(q % (2ull * params->n)));
        for (uint32_t j = 0; j < i; j++)
            if (params->moduli[j] == q)
                return he_fail(OPENPIM_HE_ERR_MODULUS, "modulus %u appears twice (q_%u and %s)", q, j, name);
    }
    return OPENPIM_HE_OK;
}

openpim_he_status openpim_he_params_generate(uint32_t n, uint32_t nr_moduli, uint32_t bits,
                                             struct openpim_he_params *params)
{
    if (!params)
        return he_fail(OPENPIM_HE_ERR_ARGUMENT, "params is NULL");
    if (!degree_ok(n))
        return degree_error(n);
    uint32_t log2n = he_log2(2 * n);
    if (bits < log2n + 2 || bits > OPENPIM_HE_MAX_MODULUS_BITS)
        return he_fail(OPENPIM_HE_ERR_MODULUS, "%u-bit moduli for n = %u: bits must be in [%u, %d]", bits, n,
                       log2n + 2, OPENPIM_HE_MAX_MODULUS_BITS);
    if (nr_moduli < 1 || nr_moduli > OPENPIM_HE_MAX_MODULI)
        return he_fail(OPENPIM_HE_ERR_MODULUS, "%u moduli: between 1 and %d are supported", nr_moduli,
                       OPENPIM_HE_MAX_MODULI);
    struct openpim_he_params p = {.n = n, .nr_moduli = 0};
    /* candidates k * 2n + 1 downwards from the largest below 2^bits, keeping
     * the top bit set (exactly `bits` bits) */
    uint64_t step = 2ull * n;
    for (uint64_t q = ((1ull << bits) - 1) / step * step + 1; q > (1ull << (bits - 1)) && p.nr_moduli < nr_moduli;
         q -= step)
        if (he_is_prime((uint32_t)q))
            p.moduli[p.nr_moduli++] = (uint32_t)q;
    if (p.nr_moduli < nr_moduli)
        return he_fail(OPENPIM_HE_ERR_MODULUS, "only %u primes of %u bits are 1 mod %llu; %u asked", p.nr_moduli,
                       bits, (unsigned long long)step, nr_moduli);
    /* SEAL's order: smallest first */
    for (uint32_t i = 0; i < p.nr_moduli / 2; i++) {
        uint32_t t = p.moduli[i];
        p.moduli[i] = p.moduli[p.nr_moduli - 1 - i];
        p.moduli[p.nr_moduli - 1 - i] = t;
    }
    *params = p;
    return OPENPIM_HE_OK;
}

static uint32_t inverse_mod(uint32_t a, uint32_t q)
{
    return he_pow_mod(a, q - 2, q);
}

void he_twiddles(uint32_t q, uint32_t n, uint32_t *tw, uint32_t *itw, uint32_t *scratch, uint32_t *n_inv)
{
    uint32_t bits = he_log2(n);
    uint32_t psi = openpim_he_minimal_root(q, n), psi_inv = inverse_mod(psi, q);
    /* powers psi^e and psi^-e, e < n, by bit-reversed index */
    uint32_t p = 1, pi = 1;
    for (uint32_t e = 0; e < n; e++, p = he_mul_mod(p, psi, q), pi = he_mul_mod(pi, psi_inv, q)) {
        tw[he_bit_reverse(e, bits)] = p;
        scratch[he_bit_reverse(e, bits)] = pi;
    }
    /* iNTT, stage with h groups: itw[n - 2h + i] = tw[h + i]^-1 */
    for (uint32_t h = n / 2; h >= 1; h /= 2)
        for (uint32_t i = 0; i < h; i++)
            itw[n - 2 * h + i] = scratch[h + i];
    *n_inv = inverse_mod(n % q, q);
    itw[n - 2] = he_mul_mod(itw[n - 2], *n_inv, q);
    itw[n - 1] = 0;
}
