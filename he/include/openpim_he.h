/* SPDX-License-Identifier: MIT */
/* OpenPIM HE: RNS polynomial arithmetic and BGV ciphertext multiplication on
 * the DPUs of an OpenPIM (UPMEM-style) machine, the 1D design of DRAMatic
 * (Klinger et al.): one RNS modulus per group of DPUs, so that no DPU ever
 * needs another DPU's data.
 *
 * Rings and conventions (those of Microsoft SEAL, so results are bit-exact
 * with it for the same moduli):
 *   - R_q = Z_q[x]/(x^n + 1), n a power of two, 2^10 <= n <= 2^16;
 *   - q = q_0 q_1 ... q_{k-1}, distinct primes q_i < 2^32, q_i = 1 (mod 2n)
 *     (DRAMatic's 32-bit moduli; SEAL's parameter sets of primes up to 32
 *     bits as they are); with any modulus of 31 or 32 bits the kernels use
 *     wider Barrett arithmetic (the "_wide" DPU images), which costs more
 *     cycles per modular multiply than the 30-bit one;
 *     a polynomial is stored as its k residue polynomials (RNS);
 *   - psi_i = the smallest primitive 2n-th root of unity mod q_i;
 *   - NTT form: slot bitrev(j) of residue i holds a(psi_i^(2j+1)) mod q_i
 *     (Cooley-Tukey, natural order in, bit-reversed order out), the form of
 *     SEAL's BGV ciphertexts; the inverse NTT takes it back to coefficients.
 *
 * Data stays in DPU MRAM between operations: the host moves data only in
 * openpim_he_poly_upload / _download.  A polynomial array (openpim_he_poly)
 * holds `count` RNS polynomials; residue i of polynomial p lives on DPU
 * (p mod g) of modulus group i, g = nr_dpus / k DPUs per group.  Operations
 * act on whole arrays: every DPU works on its own sub-polynomials, the
 * (i)NTT with one sub-polynomial per tasklet (coarse-grained), element-wise
 * operations with all tasklets on each sub-polynomial (fine-grained).
 *
 * Host buffers use SEAL's layout: [count][k][n] uint32 words (polynomial,
 * then modulus, then coefficient), every word reduced (< q_i).
 *
 * Every call returns OPENPIM_HE_OK or an error and then changes nothing;
 * openpim_he_last_error() tells why, in words.  A context is not thread-safe.
 */
#ifndef OPENPIM_HE_H
#define OPENPIM_HE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OPENPIM_HE_MIN_LOG_N 10
#define OPENPIM_HE_MAX_LOG_N 16
#define OPENPIM_HE_MAX_MODULI 128 /* log Q = 2800 (Jonatan et al. Fig. 15) is 94 moduli of 30 bits */
/* Moduli are DPU words: at most 32 bits. */
#define OPENPIM_HE_MAX_MODULUS_BITS 32

typedef enum openpim_he_status {
    OPENPIM_HE_OK = 0,
    OPENPIM_HE_ERR_ARGUMENT,     /* NULL pointer, zero count, mismatched arrays, ... */
    OPENPIM_HE_ERR_DEGREE,       /* n not a power of two in [2^10, 2^16] */
    OPENPIM_HE_ERR_MODULUS,      /* a modulus not prime, not 1 mod 2n, too wide, repeated; or no such primes */
    OPENPIM_HE_ERR_FORM,         /* operand in the wrong form (coefficient / NTT) */
    OPENPIM_HE_ERR_MRAM,         /* the data does not fit the DPUs' MRAM */
    OPENPIM_HE_ERR_DPUS,         /* fewer DPUs than moduli, or none could be allocated */
    OPENPIM_HE_ERR_DPU,          /* an SDK call or a DPU failed */
    OPENPIM_HE_ERR_NO_MEMORY,    /* host allocation failed */
} openpim_he_status;

/* The reason for the calling thread's last error (never NULL). */
const char *openpim_he_last_error(void);
/* A fixed name for a status. */
const char *openpim_he_status_name(openpim_he_status status);

/* ---- parameters ----------------------------------------------------------- */

struct openpim_he_params {
    uint32_t n;                                 /* degree of x^n + 1 */
    uint32_t nr_moduli;                         /* k, 1..OPENPIM_HE_MAX_MODULI */
    uint32_t moduli[OPENPIM_HE_MAX_MODULI];     /* q_0 .. q_{k-1} */
    /* SEAL's special modulus p (0: none), needed only by relinearisation: it
     * gets a DPU group of its own; data never lives at it.  SEAL's
     * CoeffModulus::Create(n, {bits x (k + 1)}) = generate(n, k + 1, bits)
     * with the last (largest) modulus moved here. */
    uint32_t special_modulus;
};

/* Fills *params with n and the k largest primes q < 2^bits with q = 1 (mod 2n),
 * in increasing order: the moduli of SEAL's CoeffModulus::Create(n, {bits, ...
 * k times}), in its order.  Deterministic.  bits in [2 + log2(2n), 32]. */
openpim_he_status openpim_he_params_generate(uint32_t n, uint32_t nr_moduli, uint32_t bits,
                                             struct openpim_he_params *params);

/* Checks given parameters: n, k and each modulus, the special one included
 * (prime, = 1 mod 2n, all distinct). */
openpim_he_status openpim_he_params_validate(const struct openpim_he_params *params);

/* Smallest primitive 2n-th root of unity mod q (the NTT's psi), or 0 when q is
 * not a prime = 1 mod 2n. */
uint32_t openpim_he_minimal_root(uint32_t q, uint32_t n);

/* ---- context --------------------------------------------------------------- */

/* Which DPU multiply routines the kernels use (DRAMatic section 3.1.1). */
enum openpim_he_mul {
    OPENPIM_HE_MUL_CUSTOM = 0, /* constant-time products built from 8x8/16x16 pieces */
    OPENPIM_HE_MUL_NATIVE,     /* the compiler's 64-bit and 32-bit multiplies */
};

struct openpim_he_config {
    uint32_t nr_dpus;          /* DPUs to use; floor(nr_dpus / k) * k are allocated */
    const char *profile;       /* dpu_alloc profile (NULL: the environment's) */
    enum openpim_he_mul mul;   /* kernel variant */
    const char *dpu_dir;       /* directory of the DPU images (NULL: the build's) */
    const char *image;         /* image file in dpu_dir (NULL: mul's, he_dpu_custom / he_dpu_native;
                                  "_wide" is appended with a modulus of 31 or 32 bits);
                                  for benchmarks' builds of the same kernels (bench/he/whatif.sh) */
};

typedef struct openpim_he_context openpim_he_context;

/* Allocates the DPUs, loads the kernels and writes each DPU its modulus and
 * twiddle tables.  G = k groups (k + 1 with a special modulus) of
 * floor(nr_dpus / G) DPUs; fails with OPENPIM_HE_ERR_DPUS when nr_dpus < G. */
openpim_he_status openpim_he_context_create(const struct openpim_he_params *params,
                                            const struct openpim_he_config *config, openpim_he_context **ctx);
/* Frees the DPUs and every polynomial array still allocated.  NULL is a no-op. */
void openpim_he_context_destroy(openpim_he_context *ctx);

/* DPUs per modulus group and DPUs in use (g and g * k). */
uint32_t openpim_he_group_size(const openpim_he_context *ctx);
uint32_t openpim_he_nr_dpus(const openpim_he_context *ctx);

/* Modelled DPU kernel time (microseconds, the slowest DPU's cycles at the DPU
 * clock) and that slowest DPU's cycles, of the context's last operation
 * (summed over its launches). */
double openpim_he_last_kernel_us(const openpim_he_context *ctx);
uint64_t openpim_he_last_kernel_cycles(const openpim_he_context *ctx);

/* ---- polynomial arrays ----------------------------------------------------- */

enum openpim_he_form {
    OPENPIM_HE_COEFF = 0, /* coefficients, natural order */
    OPENPIM_HE_NTT,       /* NTT form, bit-reversed order (see above) */
};

typedef struct openpim_he_poly openpim_he_poly;

/* Reserves MRAM for `count` RNS polynomials (contents undefined, coefficient
 * form).  OPENPIM_HE_ERR_MRAM when a DPU's share does not fit its MRAM. */
openpim_he_status openpim_he_poly_alloc(openpim_he_context *ctx, uint32_t count, openpim_he_poly **poly);
void openpim_he_poly_free(openpim_he_context *ctx, openpim_he_poly *poly);
uint32_t openpim_he_poly_count(const openpim_he_poly *poly);
enum openpim_he_form openpim_he_poly_form(const openpim_he_poly *poly);

/* Host -> DPUs: `data` holds count * k * n words (layout above), declared to
 * be in `form`.  Every word is checked to be < its modulus. */
openpim_he_status openpim_he_poly_upload(openpim_he_context *ctx, openpim_he_poly *poly, const uint32_t *data,
                                         enum openpim_he_form form);
/* DPUs -> host: count * k * n words. */
openpim_he_status openpim_he_poly_download(openpim_he_context *ctx, const openpim_he_poly *poly, uint32_t *data);

/* ---- operations (dst may be one of the sources; all arrays of equal count) -- */

/* Both operands in the same form; dst gets that form. */
openpim_he_status openpim_he_add(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                 const openpim_he_poly *b);
openpim_he_status openpim_he_sub(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                 const openpim_he_poly *b);
openpim_he_status openpim_he_negate(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a);
/* Coefficient-wise product; both operands in NTT form (in coefficient form a
 * pointwise product is not a ring operation, so it is refused). */
openpim_he_status openpim_he_mul_pointwise(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                           const openpim_he_poly *b);
/* Coefficient form -> NTT form, and back. */
openpim_he_status openpim_he_ntt(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a);
openpim_he_status openpim_he_intt(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a);
/* Negacyclic product in R_q of coefficient-form operands (NTT, pointwise,
 * iNTT); dst in coefficient form. */
openpim_he_status openpim_he_poly_mul(openpim_he_context *ctx, openpim_he_poly *dst, const openpim_he_poly *a,
                                      const openpim_he_poly *b);

/* BGV ciphertext x ciphertext without relinearisation (the tensor product, as
 * SEAL's Evaluator::multiply for BGV): ciphertext j of the arrays is
 * (a[0]_j, a[1]_j) and (b[0]_j, b[1]_j), all in NTT form; out[0..2] get
 * (a0 b0, a0 b1 + a1 b0, a1 b1), in NTT form.  out[] must be three distinct
 * arrays distinct from the inputs. */
openpim_he_status openpim_he_bgv_multiply(openpim_he_context *ctx, openpim_he_poly *const out[3],
                                          const openpim_he_poly *const a[2], const openpim_he_poly *const b[2]);

/* ---- relinearisation (needs params.special_modulus) ------------------------ */

typedef struct openpim_he_relin_key openpim_he_relin_key;

/* Host -> DPUs, once: a relinearisation key in SEAL's layout, k * 2 * (k + 1)
 * * n words: for each RNS digit j < k, the two polynomials of SEAL's
 * RelinKeys key j (KSwitchKeys::data()[0][j]), each with its residues mod
 * q_0 .. q_{k-1} and then mod the special modulus, NTT form.  Every DPU keeps
 * the residues of its own modulus.  Each word is checked to be reduced. */
openpim_he_status openpim_he_relin_key_upload(openpim_he_context *ctx, const uint32_t *data,
                                              openpim_he_relin_key **key);
void openpim_he_relin_key_free(openpim_he_context *ctx, openpim_he_relin_key *key);

/* BGV relinearisation, bit-exact with SEAL's Evaluator::relinearize: the
 * size-3 ciphertexts (in[0], in[1], in[2]) (NTT form) become (out[0], out[1])
 * (NTT form); out[i] may be in[i] (i < 2), not in[2], and out[0] != out[1].
 * plain_modulus is BGV's t (2 <= t < 2^32, not a multiple of the special
 * modulus), needed for BGV's correction when dividing by the special modulus.
 * In the 1D split no DPU holds another modulus' residues, so each RNS digit
 * of c2 goes through the host to every group (k times the data of c2), and the
 * special modulus' sums come back to the host for the correction: the
 * transfers are modelled like every other. */
openpim_he_status openpim_he_relinearize(openpim_he_context *ctx, const openpim_he_relin_key *key,
                                         uint64_t plain_modulus, openpim_he_poly *const out[2],
                                         const openpim_he_poly *const in[3]);

/* ---- RNS base conversion (added for workloads/ckks: hybrid key switching) ---
 * The fast base conversion of Bajard et al. (as in RNS-CKKS's ModUp, ModDown
 * and rescaling): for the source moduli F (indices into params.moduli) and
 * x given by its residues x_f, the residue at each target modulus q is
 *   y = sum_f [x_f (Q_F / q_f)^-1]_{q_f} ((Q_F / q_f) mod q)  mod q,
 * i.e. x + u Q_F for some integer 0 <= u < |F| (no correction of u).
 * In the 1D split each modulus has its own DPUs, so the host relays the
 * sources' scaled residues to the DPUs of every target modulus (modelled). */

typedef struct openpim_he_baseconv openpim_he_baseconv;

/* Prepares a conversion from the moduli from[0..nr_from) to to[0..nr_to)
 * (data moduli, all distinct) and writes its constants to the DPUs once. */
openpim_he_status openpim_he_baseconv_create(openpim_he_context *ctx, const uint32_t *from, uint32_t nr_from,
                                             const uint32_t *to, uint32_t nr_to, openpim_he_baseconv **bc);
void openpim_he_baseconv_free(openpim_he_context *ctx, openpim_he_baseconv *bc); /* NULL is a no-op */

/* dst = the conversion of a (coefficient form; dst != a, equal counts):
 * dst's residues at the targets get y, at the sources a copy of a's, at
 * every other modulus zero; dst is in coefficient form. */
openpim_he_status openpim_he_base_convert(openpim_he_context *ctx, const openpim_he_baseconv *bc,
                                          openpim_he_poly *dst, const openpim_he_poly *a);

/* ---- 2D NTT across DPUs (Jonatan et al., section 5.2.3) --------------------
 * The hierarchical (four-step) NTT: each n-point NTT is spread over a group
 * of g DPUs, n = n1 n2 (n1 = 2^ceil(log2(n)/2), n2 = n / n1): step 1 runs the
 * n1 column NTTs of size n2 (each DPU n1 / g of them) and multiplies by the
 * twiddles between the steps, an All-to-All between the g DPUs of each group
 * (comm's openpim_alltoall) brings each DPU n2 / g whole rows, step 2 runs
 * the n2 row NTTs of size n1.  Several NTTs at once: a batch of `count`
 * RNS polynomials is count * k residue NTTs (each with its own modulus), the
 * groups take consecutive shares of ceil(count k / G) of them (model-level
 * parallelism inside a group, input-level across the G = nr_dpus / g groups:
 * the paper's "hybrid").  The result is the same NTT form as openpim_he_ntt
 * (SEAL's), computed without the 1D path's one-DPU-per-residue limit.
 * openpim_he_ntt2d_forward / _inverse move their inputs in and outputs out
 * in each call, as the paper's NTT experiment does; the resident 2D arrays
 * (below) keep data on the same DPUs between operations.  The inverse runs
 * the same steps backwards on the same object (rows, All-to-All, columns). */

/* Which collective implementation the All-to-All uses (comm's). */
enum openpim_he_comm {
    OPENPIM_HE_COMM_DEFAULT = 0, /* comm's default (OPENPIM_COMM_IMPL in the environment) */
    OPENPIM_HE_COMM_BASELINE,    /* host-mediated: DPUs -> host, reorder, host -> DPUs (the paper's) */
    OPENPIM_HE_COMM_OPTIMISED,   /* PID-Comm's techniques on the physical view */
};

struct openpim_he_ntt2d_config {
    uint32_t nr_dpus;        /* DPUs to allocate: a multiple of group_dpus */
    uint32_t group_dpus;     /* g, DPUs sharing one NTT: a power of two <= n2; 0: the largest that fits both */
    uint32_t count;          /* RNS polynomials per call, >= 1 */
    const char *profile;     /* dpu_alloc profile (NULL: the environment's) */
    enum openpim_he_mul mul; /* kernel variant */
    enum openpim_he_comm comm;
    const char *dpu_dir;     /* directory of the DPU images (NULL: the build's) */
};

/* Modelled time of one call, by the paper's categories (microseconds of the
 * OpenPIM clock, openpim_modelled_time_us), and the slowest DPU of each step. */
struct openpim_he_ntt2d_times {
    double cpu_dpu_us;    /* the host's transposition of the inputs into columns (charged at
                             9.9 GB/s, one core's strided DRAM-to-DRAM gather) and their transfer
                             (the inverse: the transfer only) */
    double kernel1_us;    /* launch of step 1 (columns, twiddles; the inverse: rows) */
    double inter_dpu_us;  /* the All-to-All */
    double kernel2_us;    /* launch of step 2 (rows; the inverse: twiddles, columns) */
    double dpu_cpu_us;    /* transfer of the results (the inverse: and their transposition) */
    double total_us;
    uint64_t kernel1_cycles, kernel2_cycles; /* slowest DPU's cycles of each step */
    double kernel1_dpu_us, kernel2_dpu_us;   /* the same at the DPU clock */
};

struct openpim_he_ntt2d_shape {
    uint32_t n1, n2;      /* step 2 and step 1 NTT sizes */
    uint32_t group_dpus;  /* g */
    uint32_t nr_groups;   /* G */
    uint32_t nr_dpus;     /* g G */
    uint32_t slots;       /* residue NTTs per group (the last groups may hold fewer) */
    int comm_view;        /* whether the last All-to-All used comm's physical-view path (-1: none yet) */
};

typedef struct openpim_he_ntt2d openpim_he_ntt2d;

/* Allocates the DPUs, loads the kernels, writes each DPU its moduli, twiddle
 * tables and between-step twiddles.  OPENPIM_HE_ERR_ARGUMENT for a bad
 * configuration (group size, DPU count), OPENPIM_HE_ERR_MRAM when a DPU's
 * share does not fit its MRAM. */
openpim_he_status openpim_he_ntt2d_create(const struct openpim_he_params *params,
                                          const struct openpim_he_ntt2d_config *config, openpim_he_ntt2d **ntt);
void openpim_he_ntt2d_destroy(openpim_he_ntt2d *ntt); /* NULL is a no-op; frees its resident arrays too */
openpim_he_status openpim_he_ntt2d_shape(const openpim_he_ntt2d *ntt, struct openpim_he_ntt2d_shape *shape);

/* in: count * k * n words in coefficient form (layout above, each word
 * checked to be below its modulus); out: the same in NTT form, equal to
 * openpim_he_ntt's.  times may be NULL.  in and out may be the same buffer. */
openpim_he_status openpim_he_ntt2d_forward(openpim_he_ntt2d *ntt, const uint32_t *in, uint32_t *out,
                                           struct openpim_he_ntt2d_times *times);

/* The exact inverse (openpim_he_intt's answer): in: count * k * n words in
 * NTT form (SEAL's bit-reversed order, each word checked to be below its
 * modulus); out: coefficient form.  The steps are reversed: each DPU gets its
 * words of the inputs as they are (no host transposition on the way in),
 * kernel1 = the row inverse NTTs (Gentleman-Sande, inverse twiddles),
 * inter_dpu = the All-to-All, kernel2 = the inverse twist with n^-1 and the
 * column inverse NTTs, and dpu_cpu_us counts the transfer of the results and
 * the host's transposition out of columns (charged as the forward's).  times
 * may be NULL; in and out may be the same buffer; on an argument error
 * nothing is written. */
openpim_he_status openpim_he_ntt2d_inverse(openpim_he_ntt2d *ntt, const uint32_t *in, uint32_t *out,
                                           struct openpim_he_ntt2d_times *times);

/* ---- resident 2D arrays (added for workloads/ckks: the paper's layout) ----
 * Polynomial arrays that stay in the MRAM of an openpim_he_ntt2d object's
 * DPUs between operations, each residue polynomial spread over the g DPUs of
 * a group (Jonatan et al.'s CKKS layout), and operations on them: forward and
 * inverse 2D NTT (the same steps and All-to-All as openpim_he_ntt2d_forward /
 * _inverse, without moving data to or from the host), element-wise
 * operations, and the fast base conversion (as openpim_he_base_convert: the
 * host relays the scaled source residues between the groups).
 *
 * An array holds the object's `count` RNS polynomials (k residues each, the
 * object's batch: residue p k + j goes to group (p k + j) / slots).  DPU x of
 * a group holds n / g words of each of its residues: in NTT form words
 * [x n / g, (x + 1) n / g) of SEAL's bit-reversed form; in coefficient form
 * the columns i1 = x c1 .. x c1 + c1 - 1 (coefficients i1 + n1 i2).  Both
 * layouts put the same coefficient (slot) positions on DPU x of every group,
 * so element-wise operations and base conversions need no reordering.
 * Host buffers are as elsewhere: [count][k][n] words.  Every operation fills
 * `times` (may be NULL) with its modelled time: kernel1_us the (first)
 * launch, inter_dpu_us the All-to-All or the host's relay, kernel2_us the
 * second launch, cpu_dpu_us / dpu_cpu_us an upload / download. */

typedef struct openpim_he_poly2d openpim_he_poly2d;
typedef struct openpim_he_baseconv2d openpim_he_baseconv2d;

/* Reserves MRAM for one array on every DPU (coefficient form, contents
 * undefined).  OPENPIM_HE_ERR_MRAM when it does not fit. */
openpim_he_status openpim_he_poly2d_alloc(openpim_he_ntt2d *ntt, openpim_he_poly2d **poly);
void openpim_he_poly2d_free(openpim_he_ntt2d *ntt, openpim_he_poly2d *poly); /* NULL is a no-op */
enum openpim_he_form openpim_he_poly2d_form(const openpim_he_poly2d *poly);

/* Host -> DPUs: count * k * n words declared to be in `form` (each checked
 * below its modulus; coefficient form is transposed into columns on the
 * host, charged as openpim_he_ntt2d_forward's).  DPUs -> host: the same. */
openpim_he_status openpim_he_poly2d_upload(openpim_he_ntt2d *ntt, openpim_he_poly2d *poly, const uint32_t *data,
                                           enum openpim_he_form form, struct openpim_he_ntt2d_times *times);
openpim_he_status openpim_he_poly2d_download(openpim_he_ntt2d *ntt, const openpim_he_poly2d *poly, uint32_t *data,
                                             struct openpim_he_ntt2d_times *times);

/* dst = NTT(a) (a in coefficient form), dst = iNTT(a) (a in NTT form) on the
 * resident data: equal to openpim_he_ntt / _intt.  dst may be a. */
openpim_he_status openpim_he_poly2d_ntt(openpim_he_ntt2d *ntt, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        struct openpim_he_ntt2d_times *times);
openpim_he_status openpim_he_poly2d_intt(openpim_he_ntt2d *ntt, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                         struct openpim_he_ntt2d_times *times);

/* Element-wise, one launch: add and sub (a and b in the same form, dst gets
 * it), mul (a b, both in NTT form), mac (dst += a b, dst, a and b in NTT
 * form).  dst may be a or b. */
openpim_he_status openpim_he_poly2d_add(openpim_he_ntt2d *ntt, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times);
openpim_he_status openpim_he_poly2d_sub(openpim_he_ntt2d *ntt, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times);
openpim_he_status openpim_he_poly2d_mul(openpim_he_ntt2d *ntt, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times);
openpim_he_status openpim_he_poly2d_mac(openpim_he_ntt2d *ntt, openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                        const openpim_he_poly2d *b, struct openpim_he_ntt2d_times *times);

/* The fast base conversion of openpim_he_base_convert on resident arrays:
 * from[0..nr_from) -> to[0..nr_to) (moduli indices, all distinct); its
 * constants are written to the DPUs once.  dst = the conversion of a (a in
 * coefficient form, dst != a): targets y, sources a copy, others zero. */
openpim_he_status openpim_he_baseconv2d_create(openpim_he_ntt2d *ntt, const uint32_t *from, uint32_t nr_from,
                                               const uint32_t *to, uint32_t nr_to, openpim_he_baseconv2d **bc);
void openpim_he_baseconv2d_free(openpim_he_ntt2d *ntt, openpim_he_baseconv2d *bc); /* NULL is a no-op */
openpim_he_status openpim_he_poly2d_base_convert(openpim_he_ntt2d *ntt, const openpim_he_baseconv2d *bc,
                                                 openpim_he_poly2d *dst, const openpim_he_poly2d *a,
                                                 struct openpim_he_ntt2d_times *times);

#ifdef __cplusplus
}
#endif

#endif
