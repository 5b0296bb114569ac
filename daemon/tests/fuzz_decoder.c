/* SPDX-License-Identifier: MIT */
/* Fuzzing openpimd's request decoder and checker (daemon/protocol.c): any
 * bytes at all go through opd_check_header, opd_decode and opd_check as the
 * daemon runs them, and whatever they accept must be safe to act on, which
 * this harness re-checks independently: every DPU exists, is the sender's and
 * is named once; every range lies inside its memory and the window; inline
 * data lies inside the payload.  Any violation aborts.
 *
 * Input: a request header, one byte choosing the window's size, the payload.
 * Built two ways:
 *   with clang-14 -fsanitize=fuzzer (run_fuzz.sh): a libFuzzer target;
 *   otherwise (OPD_FUZZ_MAIN): a deterministic mutation fuzzer,
 *     fuzz_decoder ITERATIONS [SEED]     mutates built-in valid requests
 *     fuzz_decoder --seeds DIR           writes them as a libFuzzer corpus */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../backend/remote_protocol.h"

#define NR_DPUS 64
#define PER_RANK 8
#define MRAM (64u << 20)
#define WRAM 65536u

static int owns(void *ctx, uint32_t rank)
{
    (void)ctx;
    return rank % 2 == 0; /* the sender holds ranks 0, 2, 4, 6 */
}

static int has_program(void *ctx, uint32_t h)
{
    (void)ctx;
    return h >= 1 && h <= 3;
}

#define REQUIRE(cond)                                                                      \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_decoder: accepted a request that breaks: %s\n", #cond); \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static void require_dpus(const uint32_t *dpus, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        REQUIRE(dpus[i] < NR_DPUS && owns(NULL, dpus[i] / PER_RANK));
        for (uint32_t k = 0; k < i; k++)
            REQUIRE(dpus[k] != dpus[i]);
    }
}

static void require_in(uint64_t off, uint64_t len, uint64_t size)
{
    REQUIRE(off <= size && len <= size - off);
}

static uint64_t region(uint32_t r)
{
    return r == OP_REGION_MRAM ? MRAM : r == OP_REGION_WRAM ? WRAM : 0;
}

static unsigned long decoded, accepted; /* how deep inputs went (for the built-in fuzzer's report) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct opd_header h;
    if (size < sizeof h + 1)
        return 0;
    memcpy(&h, data, sizeof h);
    uint64_t shm_size = (uint64_t)data[sizeof h] * 4096u;
    const uint8_t *rest = data + sizeof h + 1;
    size_t rest_len = size - sizeof h - 1;
    char err[512] = "";
    if (opd_check_header(&h, err, sizeof err) != 0) {
        REQUIRE(err[0]);
        return 0;
    }
    REQUIRE(h.len <= OPD_MAX_PAYLOAD);
    if (h.len > rest_len) /* the daemon would wait for the rest */
        return 0;
    /* exactly the payload, in its own allocation: AddressSanitizer sees any over-read */
    uint8_t *payload = malloc(h.len ? h.len : 1);
    memcpy(payload, rest, h.len);
    struct opd_request r;
    if (opd_decode(&h, payload, &r, err, sizeof err) != 0) {
        REQUIRE(err[0]);
        free(payload);
        return 0;
    }
    decoded++;
    REQUIRE(r.n <= OPD_MAX_DPUS);
    if (r.dpus)
        REQUIRE((const uint8_t *)r.dpus >= payload && (const uint8_t *)(r.dpus + r.n) <= payload + h.len);
    if (r.inline_data)
        REQUIRE(r.inline_data >= payload && r.data_len <= OPD_INLINE_MAX &&
                r.inline_data + r.data_len == payload + h.len);
    uint8_t seen[NR_DPUS] = {0};
    struct opd_context ctx = {.nr_dpus = NR_DPUS, .dpus_per_rank = PER_RANK, .mram_size = MRAM, .wram_size = WRAM,
                              .shm_size = shm_size, .owns = owns, .has_program = has_program, .seen = seen};
    if (opd_check(&ctx, &r, err, sizeof err) == 0) {
        accepted++;
        if (r.data && r.data->where == OPD_SHM)
            require_in(r.data->shm_off, r.data_len, shm_size);
        if (r.data && r.data->where == OPD_INLINE)
            REQUIRE(r.data_len <= OPD_INLINE_MAX);
        switch (r.op) {
        case OPD_LOAD:
            REQUIRE(has_program(NULL, r.u.load.handle));
            require_dpus(r.dpus, r.n);
            break;
        case OPD_WRITE:
            REQUIRE(region(r.u.write.region));
            require_in(r.u.write.off, r.u.write.len, region(r.u.write.region));
            REQUIRE(r.u.write.nsrc == 1 || r.u.write.nsrc == r.n);
            require_dpus(r.dpus, r.n);
            break;
        case OPD_CHECK_ROOM:
            require_in(r.u.room.off, r.u.room.len, MRAM);
            require_dpus(r.dpus, r.n);
            break;
        case OPD_READ:
            REQUIRE(region(r.u.read.region));
            require_in(r.u.read.off, r.u.read.len, region(r.u.read.region));
            require_dpus(&r.u.read.dpu, 1);
            break;
        case OPD_VIEW_READ:
        case OPD_VIEW_WRITE:
            REQUIRE(r.u.view.off % 8 == 0 && r.u.view.size % 64 == 0);
            require_in(r.u.view.off, r.u.view.size / 8, MRAM);
            require_dpus(r.u.view.dpus, 8);
            break;
        case OPD_READ_GATHER:
            REQUIRE(region(r.u.gather.region));
            require_in(r.u.gather.off, r.u.gather.len, region(r.u.gather.region));
            REQUIRE(r.data_len == (uint64_t)r.n * r.u.gather.len);
            require_dpus(r.dpus, r.n);
            break;
        case OPD_WRITE_BATCH: { /* every entry, as the daemon takes them */
            uint64_t pos = 0;
            for (uint32_t i = 0; i < r.u.batch.count; i++) {
                struct opd_request w;
                REQUIRE(pos < r.data_len);
                if (opd_batch_next(&r, &pos, &w, err, sizeof err) != 0 || opd_check(&ctx, &w, err, sizeof err) != 0)
                    break;
                REQUIRE(w.op == OPD_WRITE && w.inline_data && w.data->where == OPD_INLINE);
                REQUIRE(w.inline_data >= payload && w.inline_data + w.data_len <= payload + h.len);
                require_in(w.u.write.off, w.u.write.len, region(w.u.write.region));
                require_dpus(w.dpus, w.n);
            }
            REQUIRE(pos <= r.data_len);
            break;
        }
        case OPD_LAUNCH: require_dpus(r.dpus, r.n); break;
        case OPD_RESULT: require_dpus(&r.u.dpu.dpu, 1); break;
        case OPD_RELEASE: REQUIRE(r.u.rank.rank < NR_DPUS / PER_RANK && owns(NULL, r.u.rank.rank)); break;
        case OPD_PROGRAM_CLOSE: REQUIRE(has_program(NULL, r.u.handle.handle)); break;
        case OPD_SHM_ATTACH:
            REQUIRE(r.u.shm.size > 0 && r.u.shm.size <= OPD_SHM_MAX);
            REQUIRE(r.u.shm.kind == OPD_WINDOW_MEMFD ||
                    (r.u.shm.kind == OPD_WINDOW_DAEMON && r.u.shm.size <= OPD_DAEMON_WINDOW_MAX));
            break;
        case OPD_WINDOW_PUT:
        case OPD_WINDOW_GET: /* inside the window (checked above), at most one inline piece */
            REQUIRE(r.data == &r.u.window.data && r.data->where == OPD_SHM && r.data_len <= OPD_INLINE_MAX);
            REQUIRE(r.op == OPD_WINDOW_GET ? !r.inline_data : r.inline_data != NULL);
            break;
        default: break;
        }
    } else {
        REQUIRE(err[0]);
    }
    for (uint32_t i = 0; i < NR_DPUS; i++)
        REQUIRE(seen[i] == 0); /* the daemon reuses its scratch */
    free(payload);
    return 0;
}

#ifdef OPD_FUZZ_MAIN
/* ---- the built-in mutation fuzzer ---------------------------------------------- */

struct seed {
    uint8_t bytes[512];
    size_t len;
};

/* A valid request: header, window byte, fixed part, DPU list, inline data. */
static struct seed make(uint16_t op, const void *fixed, size_t fixed_len, const uint32_t *dpus, uint32_t n,
                        size_t data_len, uint8_t window)
{
    struct seed s;
    memset(&s, 0, sizeof s);
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = 1,
                           .len = fixed_len + (size_t)n * 4 + data_len};
    memcpy(s.bytes, &h, sizeof h);
    s.bytes[sizeof h] = window;
    size_t at = sizeof h + 1;
    if (fixed_len)
        memcpy(s.bytes + at, fixed, fixed_len);
    at += fixed_len;
    if (n)
        memcpy(s.bytes + at, dpus, (size_t)n * 4);
    at += (size_t)n * 4;
    memset(s.bytes + at, 0x5a, data_len);
    s.len = at + data_len;
    return s;
}

static size_t seeds(struct seed *out)
{
    size_t n = 0;
    uint32_t dpus[4] = {0, 1, 17, 63 - 8};
    struct opd_hello hello = {.layout = OPD_LAYOUT};
    out[n++] = make(OPD_HELLO, &hello, sizeof hello, NULL, 0, 0, 0);
    struct opd_claim claim = {.wait_ms = 100, .count = 1, .min = 1};
    out[n++] = make(OPD_CLAIM, &claim, sizeof claim, NULL, 0, 0, 0);
    struct opd_rank rank = {.rank = 2};
    out[n++] = make(OPD_RELEASE, &rank, sizeof rank, NULL, 0, 0, 0);
    struct opd_program prog = {.len = 64};
    out[n++] = make(OPD_PROGRAM_OPEN, &prog, sizeof prog, NULL, 0, 64, 0);
    prog.data.where = OPD_SHM;
    prog.data.shm_off = 4096;
    out[n++] = make(OPD_PROGRAM_OPEN, &prog, sizeof prog, NULL, 0, 0, 4);
    struct opd_handle handle = {.handle = 2};
    out[n++] = make(OPD_PROGRAM_CLOSE, &handle, sizeof handle, NULL, 0, 0, 0);
    struct opd_load load = {.handle = 1, .n = 4};
    out[n++] = make(OPD_LOAD, &load, sizeof load, dpus, 4, 0, 0);
    struct opd_write w = {.region = OP_REGION_MRAM, .off = 1024, .n = 4, .nsrc = 1, .len = 32};
    out[n++] = make(OPD_WRITE, &w, sizeof w, dpus, 4, 32, 0);
    w.nsrc = 4;
    w.len = 8;
    w.region = OP_REGION_WRAM;
    out[n++] = make(OPD_WRITE, &w, sizeof w, dpus, 4, 32, 0);
    w.data.where = OPD_SHM;
    w.data.shm_off = 8192;
    w.len = 4096;
    w.region = OP_REGION_MRAM;
    out[n++] = make(OPD_WRITE, &w, sizeof w, dpus, 4, 0, 40);
    struct opd_room room = {.off = 0, .n = 4, .len = 1 << 20};
    out[n++] = make(OPD_CHECK_ROOM, &room, sizeof room, dpus, 4, 0, 0);
    struct opd_read rd = {.dpu = 17, .region = OP_REGION_MRAM, .off = 64, .len = 128};
    out[n++] = make(OPD_READ, &rd, sizeof rd, NULL, 0, 0, 0);
    rd.data.where = OPD_SHM;
    rd.len = 65536;
    out[n++] = make(OPD_READ, &rd, sizeof rd, NULL, 0, 0, 16);
    struct opd_gather g = {.region = OP_REGION_WRAM, .off = 0, .n = 4, .len = 64};
    out[n++] = make(OPD_READ_GATHER, &g, sizeof g, dpus, 4, 0, 0);
    g.data.where = OPD_SHM;
    g.len = 32768;
    g.region = OP_REGION_MRAM;
    out[n++] = make(OPD_READ_GATHER, &g, sizeof g, dpus, 4, 0, 64);
    { /* a batch of two writes */
        uint8_t body[256] = {0};
        struct opd_batch b = {.count = 2};
        struct opd_write bw = {.region = OP_REGION_WRAM, .off = 64, .n = 2, .nsrc = 1, .len = 8};
        size_t at = 0;
        for (int e = 0; e < 2; e++) {
            uint64_t len = sizeof bw + 8 + 8;
            memcpy(body + at, &len, 8);
            memcpy(body + at + 8, &bw, sizeof bw);
            memcpy(body + at + 8 + sizeof bw, dpus + e, 8);
            at += 8 + (len + 7) / 8 * 8;
        }
        struct seed sd = make(OPD_WRITE_BATCH, &b, sizeof b, NULL, 0, 0, 0);
        memcpy(sd.bytes + sd.len, body, at);
        sd.len += at;
        struct opd_header hh;
        memcpy(&hh, sd.bytes, sizeof hh);
        hh.len += at;
        memcpy(sd.bytes, &hh, sizeof hh);
        out[n++] = sd;
    }
    struct opd_view v = {.dpus = {0, 1, 2, 3, 4, 5, 6, 7}, .off = 8, .size = 128};
    out[n++] = make(OPD_VIEW_WRITE, &v, sizeof v, NULL, 0, 128, 0);
    out[n++] = make(OPD_VIEW_READ, &v, sizeof v, NULL, 0, 0, 0);
    struct opd_count cnt = {.n = 4};
    out[n++] = make(OPD_LAUNCH, &cnt, sizeof cnt, dpus, 4, 0, 0);
    struct opd_dpu one = {.dpu = 3};
    out[n++] = make(OPD_RESULT, &one, sizeof one, NULL, 0, 0, 0);
    out[n++] = make(OPD_MEMORY, NULL, 0, NULL, 0, 0, 0);
    struct opd_shm shm = {.size = 1 << 20};
    out[n++] = make(OPD_SHM_ATTACH, &shm, sizeof shm, NULL, 0, 0, 0);
    shm.kind = OPD_WINDOW_DAEMON;
    out[n++] = make(OPD_SHM_ATTACH, &shm, sizeof shm, NULL, 0, 0, 0);
    struct opd_window_io io = {.len = 96, .data = {.where = OPD_SHM, .shm_off = 4000}};
    out[n++] = make(OPD_WINDOW_PUT, &io, sizeof io, NULL, 0, 96, 2);
    io.len = 4096;
    out[n++] = make(OPD_WINDOW_GET, &io, sizeof io, NULL, 0, 0, 2);
    return n;
}

static uint64_t state;
static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(int argc, char **argv)
{
    struct seed base[32];
    size_t nb = seeds(base);
    if (argc == 3 && !strcmp(argv[1], "--seeds")) {
        for (size_t i = 0; i < nb; i++) {
            char path[512];
            snprintf(path, sizeof path, "%s/seed-%02zu", argv[2], i);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(base[i].bytes, 1, base[i].len, f) != base[i].len)
                return 1;
            fclose(f);
        }
        return 0;
    }
    unsigned long iterations = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
    state = argc > 2 ? strtoull(argv[2], NULL, 0) | 1 : 0x9e3779b97f4a7c15ull;
    static const uint64_t edges[] = {0, 1, 7, 8, 63, 64, 4095, 4096, 65535, 65536, 65537, 0x7fffffff, 0x80000000,
                                     0xffffffff, 0x100000000ull, 1ull << 40, ~0ull, ~0ull - 63};
    for (size_t i = 0; i < nb; i++) /* every seed is accepted as it is */
        LLVMFuzzerTestOneInput(base[i].bytes, base[i].len);
    for (unsigned long it = 0; it < iterations; it++) {
        struct seed s = base[next() % nb];
        unsigned muts = 1 + next() % 4;
        for (unsigned m = 0; m < muts; m++) {
            switch (next() % 5) {
            case 0: /* a random byte */
                s.bytes[next() % s.len] = (uint8_t)next();
                break;
            case 1: { /* a boundary value in a random aligned field */
                if (s.len < 8)
                    break;
                size_t at = (next() % (s.len / 4)) * 4;
                uint64_t v = edges[next() % (sizeof edges / sizeof *edges)];
                size_t w = at + 8 <= s.len && next() % 2 ? 8 : at + 4 <= s.len ? 4 : s.len - at;
                memcpy(s.bytes + at, &v, w);
                break;
            }
            case 2: /* truncated */
                s.len = 1 + next() % s.len;
                break;
            case 3: /* extended with garbage */
                while (s.len < sizeof s.bytes && next() % 8)
                    s.bytes[s.len++] = (uint8_t)next();
                break;
            default: { /* the header's length follows the bytes, so the payload is decoded */
                struct opd_header h;
                if (s.len > sizeof h) {
                    memcpy(&h, s.bytes, sizeof h);
                    h.len = s.len - sizeof h - 1;
                    memcpy(s.bytes, &h, sizeof h);
                }
                break;
            }
            }
        }
        LLVMFuzzerTestOneInput(s.bytes, s.len);
    }
    printf("fuzz_decoder: %lu mutated requests (%lu decoded, %lu accepted): no accepted request broke an "
           "invariant\n", iterations, decoded, accepted);
    if (!accepted || accepted == decoded)
        return 1; /* the mutations did not reach both outcomes of the checker */
    return 0;
}
#endif
