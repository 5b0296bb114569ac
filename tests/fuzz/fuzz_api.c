/* SPDX-License-Identifier: MIT */
/* libFuzzer harness A: the UPMEM host API (dpu.h) as a program would misuse it.
 *
 * Each input is decoded into a sequence of API calls with fuzzer-chosen
 * arguments on a small fixed machine (PROFILE): valid sets (from dpu_alloc,
 * DPU_FOREACH, DPU_RANK_FOREACH), freed sets, sets made of garbage kinds and
 * NULL / out-of-range pointers; symbol names that exist or not (the MRAM heap
 * pseudo-symbol, NULL); offsets and sizes (0, unaligned, huge); random flags,
 * policies and directions; any call order; DPU images loaded from memory after
 * byte flips, field overwrites and truncations.  The DPU program (dpu_fuzz.c)
 * behaves according to __host inputs and can be asked to fault.
 *
 * Invariants checked (abort() on violation, which libFuzzer reports):
 *  - every call returns a dpu_error_t of the enum;
 *  - a set that cannot be valid (garbage, freed, a DPU of a freed rank) is
 *    never accepted;
 *  - a successful copy_to is read back identically by copy_from;
 *  - counts agree (dpu_get_nr_dpus, DPU_FOREACH, what was allocated);
 *  - a checked run (fresh load, chosen inputs, chosen fault) gives exactly
 *    the expected results or the expected fault;
 *  - after every input, once everything is freed, a fresh alloc, load,
 *    launch and check of the results works.
 *  - overflow class (op_overflow): offsets and lengths at the wrap points of
 *    the bound checks are refused with the right kind of error, and a refused
 *    call changes neither the host buffers nor the DPUs' memories.
 *
 * Environment: FUZZ_DPU_BIN (the DPU program built from dpu_fuzz.c with
 * NR_TASKLETS=4); the worker is libdpu's own (its seccomp filter confines
 * the mutated code it runs, worker/sandbox.c). */
#define _GNU_SOURCE
#include <dpu.h>
#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PROFILE "nrRanks=2,nrDpusPerRank=8,timeoutMs=300"
/* one rank of 64 DPUs (the rank view needs them), on a chip the DPU program does not fit */
#define ALT_PROFILE "nrRanks=1,nrDpusPerRank=64,chip=v1B,timeoutMs=300"
#define NR_TASKLETS 4
#define MAX_MACHINE_DPUS 16
#define MAX_OPS 48
#define NSLOTS 4
#define NHANDLES 24
#define NRANKSETS 8
#define BIG_PER_DPU ((size_t)64 << 20)
#define BIG_SIZE (BIG_PER_DPU * MAX_MACHINE_DPUS)

/* ---- failures ------------------------------------------------------------- */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz_api: INVARIANT VIOLATED: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static int g_verbose;
#define TRACE(...)                           \
    do {                                     \
        if (g_verbose)                       \
            fprintf(stderr, __VA_ARGS__);    \
    } while (0)

/* Every return value must be one of the enum's values. */
static dpu_error_t chk(dpu_error_t rc, const char *what)
{
    if (!(rc <= DPU_ERR_UNSUPPORTED || rc == DPU_ERR_ASYNC_JOBS))
        die("%s returned %u, not a dpu_error_t", what, (unsigned)rc);
    char *s = dpu_error_to_string(rc);
    if (!s || strncmp(s, "unknown error", 13) == 0)
        die("%s returned %u, which dpu_error_to_string does not know", what, (unsigned)rc);
    free(s);
    TRACE("  %s -> %u\n", what, (unsigned)rc);
    return rc;
}
#define CALL(expr) chk((expr), #expr)

/* ---- input ----------------------------------------------------------------- */

struct in {
    const uint8_t *p;
    size_t n;
};

static uint8_t u8(struct in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}
static uint16_t u16(struct in *in)
{
    return (uint16_t)(u8(in) | u8(in) << 8);
}
static uint32_t u32(struct in *in)
{
    return (uint32_t)u16(in) | (uint32_t)u16(in) << 16;
}
static uint64_t u64(struct in *in)
{
    return (uint64_t)u32(in) | (uint64_t)u32(in) << 32;
}

/* ---- the DPU program --------------------------------------------------------- */

static const char *g_bin;
static uint8_t *g_img;
static size_t g_img_len;
/* parts of the image worth mutating */
struct range {
    size_t off, len;
};
static struct range g_parts[16];
static unsigned g_nparts;
static size_t g_shoff, g_shnum, g_symoff, g_symnum, g_stroff, g_strlen;
static struct range g_text;
static FILE *g_null;
static uint8_t *g_big; /* BIG_SIZE bytes, NORESERVE: the host side of large transfers */

static void add_part(size_t off, size_t len)
{
    if (g_nparts < sizeof g_parts / sizeof *g_parts && len && off < g_img_len && len <= g_img_len - off)
        g_parts[g_nparts++] = (struct range){off, len};
}

static void read_image(void)
{
    FILE *f = fopen(g_bin, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_api: cannot open FUZZ_DPU_BIN=%s\n", g_bin);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    g_img_len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    g_img = malloc(g_img_len);
    if (!g_img || fread(g_img, 1, g_img_len, f) != g_img_len)
        exit(2);
    fclose(f);
    Elf32_Ehdr eh;
    memcpy(&eh, g_img, sizeof eh);
    g_shoff = eh.e_shoff;
    g_shnum = eh.e_shnum;
    add_part(0, sizeof eh);
    add_part(eh.e_phoff, (size_t)eh.e_phnum * sizeof(Elf32_Phdr));
    add_part(g_shoff, g_shnum * sizeof(Elf32_Shdr));
    for (size_t i = 0; i < g_shnum; i++) {
        Elf32_Shdr sh;
        memcpy(&sh, g_img + g_shoff + i * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_SYMTAB) {
            g_symoff = sh.sh_offset;
            g_symnum = sh.sh_size / sizeof(Elf32_Sym);
            Elf32_Shdr st;
            memcpy(&st, g_img + g_shoff + sh.sh_link * sizeof st, sizeof st);
            g_stroff = st.sh_offset;
            g_strlen = st.sh_size;
            add_part(sh.sh_offset, sh.sh_size);
            add_part(st.sh_offset, st.sh_size);
        } else if ((sh.sh_flags & SHF_ALLOC) && sh.sh_type == SHT_PROGBITS) {
            add_part(sh.sh_offset, sh.sh_size); /* .text, .rodata, .data, .mram */
            if (sh.sh_flags & SHF_EXECINSTR)
                g_text = (struct range){sh.sh_offset, sh.sh_size};
        }
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    g_bin = getenv("FUZZ_DPU_BIN");
    if (!g_bin) {
        fprintf(stderr, "fuzz_api: set FUZZ_DPU_BIN to the DPU program built from dpu_fuzz.c\n");
        exit(2);
    }
    g_verbose = getenv("FUZZ_VERBOSE") != NULL;
    unsetenv("UPMEM_PROFILE");
    unsetenv("UPMEM_PROFILE_BASE");
    read_image();
    if (!g_nparts || !g_symnum || !g_text.len || !g_strlen) {
        fprintf(stderr, "fuzz_api: %s does not look like an OpenPIM DPU image\n", g_bin);
        exit(2);
    }
    g_null = fopen("/dev/null", "w");
    g_big = mmap(NULL, BIG_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!g_null || g_big == MAP_FAILED)
        exit(2);
    return 0;
}

/* ---- the harness's model of what it holds ------------------------------------------ */

enum slot_state { SLOT_EMPTY, SLOT_LIVE, SLOT_FREED };
struct slot {
    enum slot_state state;
    struct dpu_set_t set;
    uint32_t nr_dpus;  /* what dpu_alloc promised */
    int machine;       /* which machine it came from */
};
struct handle { /* a DPU from DPU_FOREACH */
    struct dpu_set_t set;
    struct dpu_rank_t *rank; /* its rank, as the parent set's list named it */
};

static struct {
    struct slot slots[NSLOTS];
    struct handle handles[NHANDLES];
    unsigned nhandles;
    struct dpu_set_t ranksets[NRANKSETS]; /* from DPU_RANK_FOREACH */
    unsigned nranksets;
    int machine;        /* 0: PROFILE, 1: ALT_PROFILE, -1: unknown */
    uintptr_t junk[8];  /* memory garbage sets point to */
} S;

/* Is this rank allocated, as far as the live sets say? */
static bool rank_allocated(struct dpu_rank_t *r)
{
    if (!r)
        return false;
    for (unsigned i = 0; i < NSLOTS; i++)
        if (S.slots[i].state == SLOT_LIVE)
            for (uint32_t k = 0; k < S.slots[i].set.list.nr_ranks; k++)
                if (S.slots[i].set.list.ranks[k] == r)
                    return true;
    return false;
}

/* Expected validity of a set: 1 valid, 0 invalid, -1 cannot tell. */
static int expect_valid_list(struct dpu_set_t s)
{
    bool any_live = false;
    for (unsigned i = 0; i < NSLOTS; i++)
        any_live |= S.slots[i].state == SLOT_LIVE;
    if (!any_live)
        return s.list.nr_ranks == 0;
    /* lists handed out by dpu_alloc stay readable after dpu_free (libdpu keeps them) */
    for (uint32_t k = 0; k < s.list.nr_ranks; k++)
        if (!rank_allocated(s.list.ranks[k]))
            return 0;
    return 1;
}

struct pick {
    struct dpu_set_t set;
    int valid;       /* 1, 0, -1 */
    int slot;        /* live or freed slot index, or -1 */
    const char *what;
};

static struct dpu_set_t garbage_set(struct in *in)
{
    struct dpu_set_t s;
    memset(&s, 0, sizeof s);
    static const uintptr_t ptrs[] = {0, 1, 8, 0x1000, 0xdeadbeef, 0x7fffffffffffull, 0x800000000000ull,
                                     (uintptr_t)-1, (uintptr_t)-4096};
    uint8_t k = u8(in);
    s.kind = (k & 3) == 3 ? (enum dpu_set_kind_t)u32(in) : (enum dpu_set_kind_t)(k & 1);
    uint8_t p = u8(in) % 11;
    uintptr_t ptr = p < 9 ? ptrs[p] : (uintptr_t)(p == 9 ? (void *)S.junk : (void *)&S.junk[3]);
    for (unsigned i = 0; i < 8; i++)
        S.junk[i] = ptrs[(k + i) % 9];
    if (s.kind == DPU_SET_DPU) {
        s.dpu = (struct dpu_t *)ptr;
    } else {
        static const uint32_t counts[] = {0, 1, 2, 3, 8, 64, 0x10000, 0xffffffffu};
        s.list.nr_ranks = counts[u8(in) % 8];
        s.list.ranks = (struct dpu_rank_t **)ptr;
    }
    return s;
}

static struct pick pick_set(struct in *in)
{
    struct pick pk = {.valid = -1, .slot = -1, .what = "?"};
    uint8_t sel = u8(in) % 8;
    if (sel <= 2) { /* an allocation, live or freed */
        unsigned i = u8(in) % NSLOTS;
        for (unsigned t = 0; t < NSLOTS; t++, i = (i + 1) % NSLOTS)
            if (S.slots[i].state != SLOT_EMPTY)
                break;
        if (S.slots[i].state != SLOT_EMPTY) {
            pk.set = S.slots[i].set;
            pk.slot = (int)i;
            pk.valid = S.slots[i].state == SLOT_LIVE ? 1 : expect_valid_list(pk.set);
            pk.what = S.slots[i].state == SLOT_LIVE ? "live set" : "freed set";
            return pk;
        }
    } else if (sel <= 4 && S.nhandles) {
        struct handle *h = &S.handles[u8(in) % S.nhandles];
        pk.set = h->set;
        pk.valid = rank_allocated(h->rank);
        pk.what = "dpu";
        return pk;
    } else if (sel == 5 && S.nranksets) {
        pk.set = S.ranksets[u8(in) % S.nranksets];
        pk.valid = expect_valid_list(pk.set);
        pk.what = "rank";
        return pk;
    }
    pk.set = garbage_set(in);
    pk.valid = pk.set.kind == DPU_SET_RANKS && pk.set.list.nr_ranks == 0 ? 1 : 0;
    pk.what = "garbage";
    return pk;
}

static void expect_rejected(const struct pick *pk, dpu_error_t rc, const char *call)
{
    if (pk->valid == 0 && rc == DPU_OK)
        die("%s accepted an invalid set (%s, kind %u)", call, pk->what, (unsigned)pk->set.kind);
}

static void forget_handles(void)
{
    S.nhandles = 0;
}

/* ---- argument choosers ------------------------------------------------------------- */

static const char *const symbols[] = {
    "words", "results", "counter", "launches", "magic", "rounds", "heap_words", "fault_kind", "fault_arg",
    "m_init", "m_out", DPU_MRAM_HEAP_POINTER_NAME, "__stdout_buffer", "__stdout_buffer_state", "__op_env",
    "main", "nonexistent", "", "__op_nr_tasklets", "__op_heap_start",
};
#define NSYMS (sizeof symbols / sizeof *symbols)

static const char *pick_symbol(struct in *in, char *own, size_t ownlen)
{
    uint8_t s = u8(in);
    if (s < 240)
        return symbols[s % NSYMS];
    if (s < 248)
        return NULL;
    size_t n = u8(in) % (ownlen - 1);
    for (size_t i = 0; i < n; i++)
        own[i] = (char)(u8(in) | 1);
    own[n] = 0;
    return own;
}

static uint32_t pick_off(struct in *in)
{
    switch (u8(in) % 8) {
    case 0: return 0;
    case 1: return 4u * (u8(in) % 16);
    case 2: return 8u * u16(in);
    case 3: return u8(in) % 8;
    case 4: return u32(in);
    case 5: return 0xffffffffu - (u8(in) % 8);
    case 6: return (64u << 20) - 8u * (u8(in) % 4);
    default: return 4u * u8(in);
    }
}

static size_t pick_len(struct in *in)
{
    switch (u8(in) % 10) {
    case 0: return 0;
    case 1: return 1 + u8(in) % 7;
    case 2: return 4u * (1 + u8(in) % 16);
    case 3: return 8u * (1 + u8(in) % 256);
    case 4: return u16(in);
    case 5: return u32(in);
    case 6: return SIZE_MAX - (u8(in) % 8);
    case 7: /* near the size of the MRAM heap symbol (whole-MRAM transfers are slow: rarely) */
        return u8(in) == 0 ? (64u << 20) - 8u * (u8(in) % 4096) : (1u << 20) - 8u * (u8(in) % 64);
    case 8: return (size_t)u64(in);
    default: return 4u * u8(in);
    }
}

/* A host buffer of len bytes: exact-size heap memory when small (ASan sees
 * overruns), else the NORESERVE area (large lengths that may be valid). */
static void *host_buf(size_t len, uint8_t fill, bool *heap)
{
    *heap = len <= (256u << 10);
    if (*heap) {
        uint8_t *b = malloc(len ? len : 1);
        for (size_t i = 0; i < len; i++)
            b[i] = (uint8_t)(fill + i * 7);
        return b;
    }
    return len <= BIG_PER_DPU ? g_big : NULL;
}

/* ---- the operations ---------------------------------------------------------------- */

static const char *pick_profile(struct in *in, char *own, size_t ownlen, int *machine)
{
    static const char *const fixed[] = {
        PROFILE, PROFILE ",sgXferEnable=true", PROFILE ",sgXferEnable=true,sgXferMaxBlocksPerDpu=3",
        PROFILE ",disableResetOnAlloc=true", PROFILE ",backend=hw,someUnknownKey=1",
        "nrRanks=0", PROFILE ",nrDpusPerRank=65", PROFILE ",chip=v2", PROFILE ",timeoutMs=-1",
        PROFILE ",sgXferEnable=maybe", PROFILE ",noequals", PROFILE ",=", PROFILE ",,, ,",
        PROFILE ",backend=fpga",
    };
    uint8_t s = u8(in);
    *machine = 0;
    if (s == 255) {
        *machine = 1;
        return ALT_PROFILE;
    }
    if (s < 240)
        return fixed[s % (sizeof fixed / sizeof *fixed)];
    /* PROFILE followed by fuzzer text; keys that would change the machine or
     * lift the time budget are not allowed through */
    size_t n = u8(in) % 48, base = strlen(PROFILE);
    memcpy(own, PROFILE ",", base + 1);
    for (size_t i = 0; i < n && base + 1 + i < ownlen - 1; i++) {
        char c = (char)(u8(in) % 95 + 32);
        own[base + 1 + i] = c;
        own[base + 2 + i] = 0;
    }
    own[base + 1 + n] = 0;
    static const char *const forbidden[] = {"nrRanks", "nrDpusPerRank", "chip", "timeoutMs", "workers",
                                            "hostMemory"};
    for (size_t i = 0; i < sizeof forbidden / sizeof *forbidden; i++)
        if (strstr(own + base, forbidden[i]))
            return PROFILE;
    return own;
}

static void note_new_set(struct dpu_set_t set, uint32_t expected, int machine)
{
    unsigned i;
    for (i = 0; i < NSLOTS; i++)
        if (S.slots[i].state != SLOT_LIVE)
            break;
    if (i == NSLOTS) { /* cannot happen: the machine has 2 ranks */
        die("more live allocations than ranks");
    }
    uint32_t n = 0, count = 0, r = 0;
    if (CALL(dpu_get_nr_dpus(set, &n)) != DPU_OK)
        die("dpu_get_nr_dpus fails on a fresh set");
    struct dpu_set_t d;
    DPU_FOREACH(set, d)
        count++;
    if (n != count || (expected && n != expected))
        die("a fresh set has %u DPUs by dpu_get_nr_dpus, %u by DPU_FOREACH, %u asked", n, count, expected);
    if (CALL(dpu_get_nr_ranks(set, &r)) != DPU_OK || r != set.list.nr_ranks)
        die("dpu_get_nr_ranks disagrees with the set");
    S.slots[i] = (struct slot){SLOT_LIVE, set, n, machine};
}

static void op_alloc(struct in *in, bool by_ranks)
{
    static const uint32_t counts[] = {1, 2, 7, 8, 9, 15, 16, 17, 0, DPU_ALLOCATE_ALL, 64, 0xfffffffe};
    uint32_t n = counts[u8(in) % (sizeof counts / sizeof *counts)];
    if (by_ranks)
        n = n > 3 && n != DPU_ALLOCATE_ALL ? n % 4 : n;
    char own[160];
    int machine;
    const char *profile = pick_profile(in, own, sizeof own, &machine);
    bool any_live = false;
    for (unsigned i = 0; i < NSLOTS; i++)
        any_live |= S.slots[i].state == SLOT_LIVE;
    if (machine != S.machine && !any_live) {
        /* the machine may be rebuilt: DPU handles of the old one would dangle */
        forget_handles();
        S.machine = -1;
    }
    struct dpu_set_t set;
    dpu_error_t rc = by_ranks ? CALL(dpu_alloc_ranks(n, profile, &set)) : CALL(dpu_alloc(n, profile, &set));
    if (u8(in) == 0) /* a NULL out-pointer */
        CALL(by_ranks ? dpu_alloc_ranks(n, profile, NULL) : dpu_alloc(n, profile, NULL));
    if (rc != DPU_OK)
        return;
    if (any_live && machine != S.machine)
        die("dpu_alloc switched machines while sets of the old one were live");
    S.machine = machine;
    uint32_t per_rank = machine ? 64 : 8;
    uint32_t expected = by_ranks ? (n == DPU_ALLOCATE_ALL ? 0 : n * per_rank) : (n == DPU_ALLOCATE_ALL ? 0 : n);
    note_new_set(set, expected, machine);
}

static void op_free(struct in *in)
{
    struct pick pk = pick_set(in);
    dpu_error_t rc = CALL(dpu_free(pk.set));
    expect_rejected(&pk, rc, "dpu_free");
    if (rc != DPU_OK)
        return;
    /* only what dpu_alloc returned may be freed (not a DPU or a rank of it); a
     * freed set whose list libdpu handed out again names that new allocation */
    bool found = false;
    for (unsigned i = 0; i < NSLOTS; i++)
        if (S.slots[i].state == SLOT_LIVE && S.slots[i].set.list.ranks == pk.set.list.ranks &&
            S.slots[i].set.list.nr_ranks == pk.set.list.nr_ranks && pk.set.kind == DPU_SET_RANKS) {
            S.slots[i].state = SLOT_FREED;
            found = true;
        }
    if (!found)
        die("dpu_free accepted a %s", pk.what);
}

/* Mutates a copy of the image. */
static uint8_t *mutated_image(struct in *in, size_t *len)
{
    uint8_t *b = malloc(g_img_len);
    memcpy(b, g_img, g_img_len);
    *len = g_img_len;
    static const uint64_t vals[] = {0, 1, 2, 4, 0xff, 0xffff, 0xffffffffull, 0x7fffffff, 0x80000000u,
                                    0x08000000u, 0x0fffffffu, 0x10000000u, 0x1000fff8u, 0x10010000u,
                                    0x20000000u, 0x3ffff000u, 0x40000000u, (uint64_t)-1, 25, 24, 65536, 63488,
                                    0x17fffff8u};
    unsigned nmut = 1 + u8(in) % 6;
    for (unsigned m = 0; m < nmut && in->n; m++) {
        uint8_t how = u8(in) % 8;
        uint64_t v = u8(in) < 200 ? vals[u8(in) % (sizeof vals / sizeof *vals)] : u64(in);
        size_t off = 0, width = 1 << (u8(in) % 4);
        switch (how) {
        case 0: { /* a byte of an interesting part */
            struct range r = g_parts[u8(in) % g_nparts];
            off = r.off + u32(in) % r.len;
            width = 1;
            v = (b[off] ^ (1u << (u8(in) % 8)));
            break;
        }
        case 1: /* anywhere */
            off = u32(in) % g_img_len;
            break;
        case 2: { /* a field of a section header */
            static const size_t fields[] = {offsetof(Elf32_Shdr, sh_type), offsetof(Elf32_Shdr, sh_flags),
                                            offsetof(Elf32_Shdr, sh_addr), offsetof(Elf32_Shdr, sh_offset),
                                            offsetof(Elf32_Shdr, sh_size), offsetof(Elf32_Shdr, sh_link),
                                            offsetof(Elf32_Shdr, sh_entsize)};
            size_t f = fields[u8(in) % 7];
            off = g_shoff + (u8(in) % g_shnum) * sizeof(Elf32_Shdr) + f;
            width = f == offsetof(Elf32_Shdr, sh_type) || f == offsetof(Elf32_Shdr, sh_link) ? 4 : 8;
            break;
        }
        case 3: { /* value or size of a symbol, often a runtime one */
            size_t k = u16(in) % (g_symnum ? g_symnum : 1);
            static const char *const names[] = {"__op_nr_tasklets", "__op_wram_size", "__op_env", "__op_boot",
                                                "__op_tasklet_main", "__sys_used_mram_end", "__stdout_buffer",
                                                "__stdout_buffer_state", "__op_icount", "__op_heap_start",
                                                "words", "results", "m_out"};
            const char *want = names[u8(in) % (sizeof names / sizeof *names)];
            bool search = u8(in) < 192;
            for (size_t i = 0; search && i < g_symnum; i++) {
                Elf32_Sym s;
                memcpy(&s, g_img + g_symoff + i * sizeof s, sizeof s);
                if (strcmp((const char *)g_img + g_stroff + s.st_name, want) == 0) {
                    k = i;
                    break;
                }
            }
            bool size = u8(in) & 1;
            off = g_symoff + k * sizeof(Elf32_Sym) + (size ? offsetof(Elf32_Sym, st_size) : offsetof(Elf32_Sym, st_value));
            width = 8;
            break;
        }
        case 4: { /* a field of the ELF header */
            static const size_t fields[] = {offsetof(Elf32_Ehdr, e_shoff), offsetof(Elf32_Ehdr, e_shnum),
                                            offsetof(Elf32_Ehdr, e_shentsize), offsetof(Elf32_Ehdr, e_type),
                                            offsetof(Elf32_Ehdr, e_machine), offsetof(Elf32_Ehdr, e_ident) + EI_CLASS,
                                            offsetof(Elf32_Ehdr, e_shstrndx)};
            unsigned f = u8(in) % 7;
            off = fields[f];
            width = f == 0 ? 8 : f == 5 ? 1 : 2;
            break;
        }
        case 5: /* truncate */
            *len = u32(in) % (*len + 1);
            continue;
        case 6: /* the code: the worker runs it (sandboxed, worker/sandbox.c) */
            off = g_text.off + u16(in) % g_text.len;
            width = 1;
            v = u8(in);
            break;
        default: /* a byte of the string table (symbol names) */
            off = g_stroff + u16(in) % g_strlen;
            width = 1;
            v = u8(in);
            break;
        }
        if (off >= g_img_len || width > g_img_len - off)
            continue;
        memcpy(b + off, &v, width);
    }
    return b;
}

static void op_load_mem(struct in *in)
{
    struct pick pk = pick_set(in);
    uint8_t mode = u8(in) % 6;
    struct dpu_program_t *prog = NULL;
    dpu_error_t rc;
    if (mode == 0) {
        rc = CALL(dpu_load_from_memory(pk.set, g_img, g_img_len, &prog));
        if (pk.valid == 1 && rc != DPU_OK && S.machine == 0)
            die("the valid image does not load on a valid set (%u)", (unsigned)rc);
    } else if (mode == 1) {
        rc = CALL(dpu_load_from_memory(pk.set, NULL, u32(in), &prog));
        if (rc == DPU_OK)
            die("dpu_load_from_memory accepted a NULL buffer");
    } else if (mode == 2) {
        size_t n = u8(in) % 80;
        uint8_t *b = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            b[i] = i < 4 ? (uint8_t)"\177ELF"[i] : u8(in);
        rc = CALL(dpu_load_from_memory(pk.set, b, n, &prog));
        free(b);
        if (rc == DPU_OK)
            die("dpu_load_from_memory accepted %zu bytes", n);
    } else {
        size_t len;
        uint8_t *b = mutated_image(in, &len);
        /* an exact-size copy: ASan sees reads past the end */
        uint8_t *exact = malloc(len ? len : 1);
        memcpy(exact, b, len);
        free(b);
        rc = CALL(dpu_load_from_memory(pk.set, exact, len, u8(in) & 1 ? &prog : NULL));
        free(exact);
        if (rc != DPU_OK && rc != DPU_ERR_ELF_INVALID_FILE && rc != DPU_ERR_INVALID_DPU_SET)
            die("loading a mutated image gave %u", (unsigned)rc);
    }
    expect_rejected(&pk, rc, "dpu_load_from_memory");
    if (rc == DPU_OK && prog) {
        struct dpu_symbol_t sym;
        char own[32];
        const char *name = pick_symbol(in, own, sizeof own);
        CALL(dpu_get_symbol(prog, name, &sym));
        CALL(dpu_get_symbol(prog, name, NULL));
        if (CALL(dpu_get_symbol(prog, DPU_MRAM_HEAP_POINTER_NAME, &sym)) == DPU_OK && mode == 0 &&
            (uint64_t)sym.address - 0x08000000u + sym.size != (64u << 20))
            die("the MRAM heap symbol does not end at the end of MRAM");
    }
    CALL(dpu_get_symbol(NULL, "words", NULL));
}

static void op_load_path(struct in *in)
{
    struct pick pk = pick_set(in);
    static const char *const paths[] = {NULL, "/nonexistent/dpu", "/", "/proc/self/status", "/dev/null", "",
                                        "/dev/zero"};
    uint8_t s = u8(in) % 9;
    const char *path = s < 7 ? paths[s] : g_bin;
    struct dpu_program_t *prog = NULL;
    dpu_error_t rc = CALL(dpu_load(pk.set, path, u8(in) & 1 ? &prog : NULL));
    expect_rejected(&pk, rc, "dpu_load");
    if (s < 7 && rc == DPU_OK)
        die("dpu_load accepted '%s'", path ? path : "(null)");
    if (rc == DPU_OK && prog) {
        struct dpu_symbol_t sym;
        if (CALL(dpu_get_symbol(prog, "results", &sym)) != DPU_OK || sym.size != 64)
            die("symbol 'results' wrong after dpu_load");
    }
    struct dpu_incbin_t inc = {g_img, u8(in) & 1 ? g_img_len : u32(in) % (g_img_len + 1), "incbin"};
    rc = CALL(dpu_load_from_incbin(pk.set, u8(in) == 7 ? NULL : &inc, NULL));
    expect_rejected(&pk, rc, "dpu_load_from_incbin");
}

static void op_launch(struct in *in)
{
    struct pick pk = pick_set(in);
    uint8_t p = u8(in);
    dpu_launch_policy_t policy = p < 120 ? DPU_SYNCHRONOUS : p < 240 ? DPU_ASYNCHRONOUS : (dpu_launch_policy_t)u32(in);
    dpu_error_t rc = CALL(dpu_launch(pk.set, policy));
    expect_rejected(&pk, rc, "dpu_launch");
    if (rc == DPU_OK && policy != DPU_SYNCHRONOUS && policy != DPU_ASYNCHRONOUS)
        die("dpu_launch accepted policy %u", (unsigned)policy);
}

static void op_status_sync(struct in *in)
{
    struct pick pk = pick_set(in);
    bool done = false, fault = false;
    uint8_t k = u8(in);
    dpu_error_t rc = CALL(dpu_status(pk.set, k & 1 ? &done : NULL, k & 2 ? &fault : NULL));
    expect_rejected(&pk, rc, "dpu_status");
    rc = CALL(dpu_sync(pk.set));
    expect_rejected(&pk, rc, "dpu_sync");
}

struct cb_args {
    dpu_error_t ret;
    unsigned calls;
};
static dpu_error_t callback(struct dpu_set_t set, uint32_t index, void *args)
{
    struct cb_args *a = args;
    uint32_t n;
    (void)index;
    chk(dpu_get_nr_dpus(set, &n), "dpu_get_nr_dpus in a callback");
    a->calls++;
    return a->ret;
}

static void op_callback(struct in *in)
{
    struct pick pk = pick_set(in);
    static const dpu_error_t rets[] = {DPU_OK, DPU_ERR_INTERNAL, DPU_ERR_DPU_FAULT, DPU_ERR_SYSTEM};
    struct cb_args a = {rets[u8(in) % 4], 0};
    uint32_t flags = u8(in) < 200 ? u8(in) % 8 : u32(in);
    dpu_error_t rc = CALL(dpu_callback(pk.set, u8(in) == 3 ? NULL : callback, &a, (dpu_callback_flags_t)flags));
    if (rc == DPU_OK && (flags & DPU_CALLBACK_ASYNC))
        CALL(dpu_sync(pk.set)); /* the callback uses `a`, on this stack */
    expect_rejected(&pk, rc, "dpu_callback");
    if (pk.valid == 0 && a.calls)
        die("callback called for an invalid set");
}

static void op_copy(struct in *in, int kind)
{
    struct pick pk = pick_set(in);
    char own[32];
    const char *name = pick_symbol(in, own, sizeof own);
    uint32_t off = pick_off(in);
    size_t len = pick_len(in);
    bool heap;
    uint8_t fill = u8(in);
    bool null_buf = u8(in) == 0;
    void *buf = host_buf(len, fill, &heap);
    if (null_buf || !buf) {
        if (heap)
            free(buf);
        heap = false;
        buf = NULL;
    }
    dpu_error_t rc;
    if (kind == 0) {
        rc = CALL(dpu_copy_to(pk.set, name, off, buf, len));
    } else if (kind == 1) {
        dpu_xfer_flags_t flags = (dpu_xfer_flags_t)u8(in);
        rc = CALL(dpu_broadcast_to(pk.set, name, off, buf, len, flags));
        if (rc == DPU_OK && (flags & DPU_XFER_ASYNC))
            CALL(dpu_sync(pk.set)); /* it reads `buf`, freed below */
    } else {
        rc = CALL(dpu_copy_from(pk.set, name, off, buf, len));
    }
    expect_rejected(&pk, rc, kind == 2 ? "dpu_copy_from" : "dpu_copy_to");
    if (rc == DPU_OK && len && !buf)
        die("a transfer of %zu bytes with a NULL buffer succeeded", len);
    if (rc == DPU_OK && kind < 2 && len && heap && pk.valid == 1) {
        /* read it back from one DPU of the set */
        struct dpu_set_t d;
        unsigned target = u8(in), i = 0;
        DPU_FOREACH(pk.set, d) {
            if (i++ < target % 16)
                continue;
            uint8_t *back = malloc(len);
            memset(back, 0x5a, len);
            dpu_error_t r2 = CALL(dpu_copy_from(d, name, off, back, len));
            if (r2 != DPU_OK)
                die("copy_to of %zu bytes at %s+%u succeeded, copy_from of the same fails (%u)", len,
                    name ? name : "(null)", off, (unsigned)r2);
            if (memcmp(back, buf, len) != 0)
                die("copy_from does not read back what copy_to wrote (%s+%u, %zu bytes)", name ? name : "(null)",
                    off, len);
            free(back);
            break;
        }
    }
    if (heap)
        free(buf);
}

static void op_copy_symbol(struct in *in)
{
    struct pick pk = pick_set(in);
    struct dpu_symbol_t sym;
    uint8_t s = u8(in);
    if (s < 128) { /* a real symbol of the valid image */
        struct dpu_set_t tmp;
        (void)tmp;
        static const uint32_t addrs[][2] = {{0x10000000u, 64}, {0x08000000u, 32}, {0x08000000u, 64u << 20},
                                            {0x20000000u, 16}, {0, 0}, {0x0fffffffu, 2}, {0x17fffffcu, 8}};
        sym.address = addrs[s % 7][0];
        sym.size = addrs[s % 7][1];
    } else {
        sym.address = u32(in);
        sym.size = u32(in);
    }
    uint32_t off = pick_off(in);
    size_t len = pick_len(in);
    bool heap;
    void *buf = host_buf(len, u8(in), &heap);
    dpu_error_t rc;
    uint8_t k = u8(in) % 3;
    if (k == 0)
        rc = CALL(dpu_copy_to_symbol(pk.set, sym, off, buf, len));
    else if (k == 1)
        rc = CALL(dpu_broadcast_to_symbol(pk.set, sym, off, buf, len, DPU_XFER_DEFAULT));
    else
        rc = CALL(dpu_copy_from_symbol(pk.set, sym, off, buf, len));
    expect_rejected(&pk, rc, "dpu_copy_*_symbol");
    if (rc == DPU_OK && len && !buf)
        die("a symbol transfer of %zu bytes without a buffer succeeded", len);
    if (heap)
        free(buf);
}

static void op_prepare(struct in *in)
{
    struct pick pk = pick_set(in);
    uint8_t how = u8(in) % 4;
    dpu_error_t rc;
    if (how == 0) {
        rc = CALL(dpu_prepare_xfer(pk.set, NULL));
        expect_rejected(&pk, rc, "dpu_prepare_xfer");
        return;
    }
    if (how == 1 || pk.valid != 1) { /* one buffer for the whole set */
        rc = CALL(dpu_prepare_xfer(pk.set, g_big + (u8(in) % MAX_MACHINE_DPUS) * BIG_PER_DPU));
        expect_rejected(&pk, rc, "dpu_prepare_xfer");
        return;
    }
    struct dpu_set_t d;
    unsigned i = 0;
    DPU_FOREACH(pk.set, d) {
        if (u8(in) % 4 == 0)
            continue; /* some DPUs without a buffer */
        CALL(dpu_prepare_xfer(d, g_big + (i++ % MAX_MACHINE_DPUS) * BIG_PER_DPU));
    }
}

static void op_push(struct in *in)
{
    struct pick pk = pick_set(in);
    uint8_t x = u8(in);
    dpu_xfer_t xfer = x < 120 ? DPU_XFER_TO_DPU : x < 240 ? DPU_XFER_FROM_DPU : (dpu_xfer_t)u32(in);
    char own[32];
    const char *name = pick_symbol(in, own, sizeof own);
    uint32_t off = pick_off(in);
    size_t len = pick_len(in);
    if (len > BIG_PER_DPU && u8(in) < 128)
        len %= (2u << 20) + 1;
    uint32_t flags = u8(in) < 200 ? u8(in) % 8 : u32(in);
    dpu_error_t rc;
    if (u8(in) < 200) {
        rc = CALL(dpu_push_xfer(pk.set, xfer, name, off, len, (dpu_xfer_flags_t)flags));
    } else {
        struct dpu_symbol_t sym = {u8(in) & 1 ? 0x08000000u : 0x10000000u, u32(in)};
        rc = CALL(dpu_push_xfer_symbol(pk.set, xfer, sym, off, len, (dpu_xfer_flags_t)flags));
    }
    if (rc == DPU_OK && (flags & DPU_XFER_ASYNC))
        CALL(dpu_sync(pk.set)); /* the prepared buffers may be freed by the next operation */
    expect_rejected(&pk, rc, "dpu_push_xfer");
    if (rc == DPU_OK && xfer != DPU_XFER_TO_DPU && xfer != DPU_XFER_FROM_DPU)
        die("dpu_push_xfer accepted direction %u", (unsigned)xfer);
}

struct sg_args {
    uint32_t nblocks;
    uint32_t lens[8];
    bool null_addr;
};
static bool sg_block(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args)
{
    struct sg_args *a = args;
    if (block_index >= a->nblocks)
        return false;
    size_t at = 0;
    for (uint32_t i = 0; i < block_index; i++)
        at += a->lens[i];
    out->length = a->lens[block_index];
    out->addr = a->null_addr ? NULL : g_big + (dpu_index % MAX_MACHINE_DPUS) * BIG_PER_DPU + at % BIG_PER_DPU;
    if (!a->null_addr && at % BIG_PER_DPU + out->length > BIG_PER_DPU)
        out->length = 0;
    return true;
}

static void op_sg(struct in *in)
{
    struct pick pk = pick_set(in);
    uint8_t x = u8(in);
    dpu_xfer_t xfer = x < 120 ? DPU_XFER_TO_DPU : x < 240 ? DPU_XFER_FROM_DPU : (dpu_xfer_t)u32(in);
    char own[32];
    const char *name = pick_symbol(in, own, sizeof own);
    uint32_t off = pick_off(in);
    size_t len = pick_len(in);
    struct sg_args a = {0, {0}, false};
    a.nblocks = u8(in) % 9;
    a.null_addr = u8(in) == 1;
    size_t total = 0;
    for (uint32_t i = 0; i < a.nblocks; i++) {
        a.lens[i] = u8(in) < 128 ? (uint32_t)(len / (a.nblocks ? a.nblocks : 1)) : (uint32_t)pick_len(in);
        if (a.lens[i] > BIG_PER_DPU)
            a.lens[i] = BIG_PER_DPU / 8;
        total += a.lens[i];
    }
    (void)total;
    get_block_t gb = {sg_block, &a, sizeof a};
    uint8_t g = u8(in);
    get_block_t nofunc = {NULL, NULL, 0};
    uint32_t flags = u8(in) % 4;
    dpu_error_t rc = CALL(dpu_push_sg_xfer(pk.set, xfer, name, off, len, g == 2 ? NULL : g == 3 ? &nofunc : &gb,
                                           (dpu_sg_xfer_flags_t)flags));
    expect_rejected(&pk, rc, "dpu_push_sg_xfer");
}

/* Well-formed printf records (abi/log_record.h) with fuzzer-chosen
 * formats and argument items, for the host's decoder (sdk/log_format.c). */
static size_t log_records(struct in *in, uint8_t *out, size_t cap)
{
    static const char *const pieces[] = {
        "%d", "%i", "%*d", "%-*d", "%.*d", "%*.*f", "%u", "%x", "%#X", "%o", "%b", "%#b", "%08.3b", "%c",
        "%s", "%.3s", "%-10s", "%p", "%f", "%e", "%g", "%a", "%Lf", "%n", "%%", "%hhd", "%lld", "%zu",
        "%'d", "%+ d", "%4096.4096f", "%99999d", "%", "%5", "%.", "%k", "text ", "\n", "%*", "%.*"};
    static const uint64_t specials[] = {0, 1, (uint64_t)-1, 0x8000000000000000ull, 0x7fffffffffffffffull,
                                        0x7ff0000000000000ull, 0x7ff8000000000001ull, 0x7fefffffffffffffull,
                                        4096, 4097, (uint64_t)-4096, 0xffffffff80000000ull};
    static const uint8_t tags[] = {'i', 'u', 'f', 'p', 's'};
    size_t total = 0;
    unsigned nrec = 1 + u8(in) % 4;
    for (unsigned r = 0; r < nrec; r++) {
        uint8_t rec[400];
        char fmt[128];
        size_t fl = 0;
        unsigned np = u8(in) % 6;
        for (unsigned i = 0; i < np; i++) {
            const char *piece = pieces[u8(in) % (sizeof pieces / sizeof *pieces)];
            size_t n = strlen(piece);
            if (fl + n < sizeof fmt) {
                memcpy(fmt + fl, piece, n);
                fl += n;
            }
        }
        size_t len = 8;
        memcpy(rec + len, fmt, fl);
        len += fl;
        unsigned ni = u8(in) % 8;
        for (unsigned i = 0; i < ni; i++) {
            uint8_t t = u8(in);
            uint8_t tag = t < 250 ? tags[t % 5] : u8(in);
            rec[len++] = tag;
            if (tag == 's') {
                uint8_t k = u8(in);
                uint32_t n = k < 200 ? k % 24u : k & 1 ? 0xffffffffu : u32(in);
                memcpy(rec + len, &n, 4);
                len += 4;
                for (uint32_t j = 0; n <= 24 && j < n; j++)
                    rec[len++] = u8(in);
            } else {
                uint64_t v = u8(in) < 128 ? specials[u8(in) % (sizeof specials / sizeof *specials)] : u64(in);
                memcpy(rec + len, &v, 8);
                len += 8;
            }
        }
        uint32_t l32 = (uint32_t)len + 4, f32 = (uint32_t)fl;
        memcpy(rec, &l32, 4);
        memcpy(rec + 4, &f32, 4);
        if (u8(in) == 0)
            l32 += u8(in); /* a damaged trailer */
        memcpy(rec + len, &l32, 4);
        len += 4;
        if (total + len > cap)
            break;
        memcpy(out + total, rec, len);
        total += len;
    }
    return total;
}

static void op_log(struct in *in)
{
    struct pick pk = pick_set(in);
    /* sometimes write a log of the fuzzer's own first */
    uint8_t mode = pk.valid == 1 && pk.set.kind == DPU_SET_DPU ? u8(in) : 0;
    if (mode & 1) { /* raw bytes */
        uint8_t rec[96];
        size_t n = u8(in) % sizeof rec;
        for (size_t i = 0; i < n; i++)
            rec[i] = u8(in);
        uint32_t at = u32(in) % (1u << 20);
        CALL(dpu_copy_to(pk.set, "__stdout_buffer", at & ~7u, rec, n & ~7u));
        uint64_t state = u8(in) & 1 ? u64(in) : (uint64_t)u32(in);
        CALL(dpu_copy_to(pk.set, "__stdout_buffer_state", 0, &state, 8));
    } else if (mode & 2) { /* records, at the start of the ring or wrapped around it */
        uint8_t recs[2048];
        size_t n = log_records(in, recs, sizeof recs);
        const uint32_t ring = 1u << 20; /* the size of __stdout_buffer (dpu/libc/stdio.h) */
        uint32_t at = u8(in) & 1 ? 0 : u32(in) % (ring - (uint32_t)n);
        uint64_t state = at == 0 ? n : (uint64_t)ring + at + n;
        CALL(dpu_copy_to(pk.set, "__stdout_buffer", at, recs, n));
        CALL(dpu_copy_to(pk.set, "__stdout_buffer_state", 0, &state, 8));
    }
    dpu_error_t rc = CALL(dpu_log_read(pk.set, u8(in) == 0 ? NULL : g_null));
    expect_rejected(&pk, rc, "dpu_log_read");
}

static void op_queries(struct in *in)
{
    struct pick pk = pick_set(in);
    uint32_t n = 0;
    dpu_error_t rc = CALL(dpu_get_nr_dpus(pk.set, u8(in) == 0 ? NULL : &n));
    expect_rejected(&pk, rc, "dpu_get_nr_dpus");
    if (rc == DPU_OK && pk.slot >= 0 && S.slots[pk.slot].state == SLOT_LIVE && n != S.slots[pk.slot].nr_dpus)
        die("dpu_get_nr_dpus changed from %u to %u", S.slots[pk.slot].nr_dpus, n);
    rc = CALL(dpu_get_nr_ranks(pk.set, u8(in) == 0 ? NULL : &n));
    expect_rejected(&pk, rc, "dpu_get_nr_ranks");
    struct openpim_fault f;
    rc = CALL(openpim_get_fault(pk.set, u8(in) == 0 ? NULL : &f));
    expect_rejected(&pk, rc, "openpim_get_fault");
    if (rc == DPU_OK && (strnlen(f.message, sizeof f.message) == sizeof f.message || !f.kind))
        die("openpim_get_fault returned an unterminated message");
    dpu_error_t any = (dpu_error_t)u32(in);
    char *s = dpu_error_to_string(any);
    if (!s)
        die("dpu_error_to_string(%u) returned NULL", (unsigned)any);
    free(s);
    if (pk.valid == 1 && pk.set.kind == DPU_SET_DPU) {
        struct dpu_t *d = dpu_from_set(pk.set);
        if (dpu_get_slice_id(d) >= 8 || dpu_get_member_id(d) >= 8)
            die("slice/member id out of range");
        struct dpu_set_t back = dpu_set_from_dpu(d);
        if (back.kind != DPU_SET_DPU || back.dpu != d)
            die("dpu_set_from_dpu(dpu_from_set(x)) != x");
    }
}

static void op_iterate(struct in *in)
{
    unsigned i = u8(in) % NSLOTS;
    if (S.slots[i].state != SLOT_LIVE)
        return;
    struct dpu_set_t set = S.slots[i].set, d, r;
    uint32_t count = 0, ri = 0, per_rank_total = 0;
    DPU_RANK_FOREACH(set, r, ri) {
        if (S.nranksets < NRANKSETS)
            S.ranksets[S.nranksets++] = r;
        uint32_t n = 0;
        if (CALL(dpu_get_nr_dpus(r, &n)) != DPU_OK)
            die("a rank of a live set is invalid");
        per_rank_total += n;
        DPU_FOREACH(r, d) {
            if (S.nhandles < NHANDLES && u8(in) & 1)
                S.handles[S.nhandles++] = (struct handle){d, set.list.ranks[ri]};
        }
    }
    DPU_FOREACH(set, d)
        count++;
    if (count != S.slots[i].nr_dpus || per_rank_total != count)
        die("iteration finds %u DPUs (%u by rank), the set has %u", count, per_rank_total, S.slots[i].nr_dpus);
}

/* The rank's physical view (64-DPU ranks only): what is written reads back. */
static void op_rank_view(struct in *in)
{
    struct pick pk = pick_set(in);
    uint32_t group = u8(in) < 200 ? u8(in) % 9 : u32(in);
    uint64_t offset;
    switch (u8(in) % 5) {
    case 0: offset = 8u * u16(in); break;
    case 1: offset = (64u << 20) - 8u * (u8(in) % 64); break;
    case 2: offset = u64(in); break;
    case 3: offset = u8(in); break;
    default: offset = 0; break;
    }
    size_t size;
    switch (u8(in) % 6) {
    case 0: size = 64u * (u8(in) % 33); break;
    case 1: size = 64u * u16(in); break;
    case 2: size = u16(in); break;
    case 3: size = (size_t)u64(in); break;
    case 4: size = u8(in) == 0 ? (size_t)8 * ((64u << 20) - offset % (64u << 20)) : 64; break;
    default: size = 64u * 1024; break;
    }
    bool heap = size <= (256u << 10);
    uint8_t *lines = heap ? malloc(size ? size : 1) : size <= BIG_SIZE ? g_big : NULL;
    if (heap)
        for (size_t i = 0; i < size; i++)
            lines[i] = (uint8_t)(i * 13 + offset);
    if (u8(in) == 0) {
        if (heap)
            free(lines);
        heap = false;
        lines = NULL;
    }
    dpu_error_t rc = CALL(openpim_rank_view_write(pk.set, group, offset, lines, size));
    expect_rejected(&pk, rc, "openpim_rank_view_write");
    if (rc == DPU_OK && size && !lines)
        die("openpim_rank_view_write of %zu bytes without a buffer succeeded", size);
    if (rc == DPU_OK && heap && size) {
        uint8_t *back = malloc(size);
        if (CALL(openpim_rank_view_read(pk.set, group, offset, back, size)) != DPU_OK)
            die("openpim_rank_view_read fails where the write succeeded");
        if (memcmp(back, lines, size) != 0)
            die("the rank view does not read back what was written (group %u, offset %llu, %zu bytes)", group,
                (unsigned long long)offset, size);
        free(back);
    } else if (u8(in) & 1) {
        rc = CALL(openpim_rank_view_read(pk.set, group, offset, lines, size));
        expect_rejected(&pk, rc, "openpim_rank_view_read");
        if (rc == DPU_OK && size && !lines)
            die("openpim_rank_view_read of %zu bytes without a buffer succeeded", size);
    }
    if (heap)
        free(lines);
}

/* OpenPIM's other extensions. */
static void op_misc(struct in *in)
{
    struct pick pk = pick_set(in);
    uint64_t used = 0, limit = 0;
    uint8_t k = u8(in);
    if (CALL(openpim_memory_usage(k & 1 ? &used : NULL, k & 2 ? &limit : NULL)) == DPU_OK && (k & 3) == 3 &&
        limit == 0)
        die("openpim_memory_usage: no limit");
    struct openpim_dpu_stats st;
    dpu_error_t rc = CALL(openpim_get_dpu_stats(pk.set, k & 4 ? &st : NULL));
    expect_rejected(&pk, rc, "openpim_get_dpu_stats");
    static double last;
    double t = openpim_modelled_time_us();
    if (!(t >= 0) || t < last)
        die("openpim_modelled_time_us went from %g to %g", last, t);
    last = t;
    if (k & 8)
        CALL(dpulog_read_for_dpu(pk.set.kind == DPU_SET_DPU && pk.valid == 1 ? pk.set.dpu : NULL, g_null));
}

/* ---- the overflow class -------------------------------------------------------------
 * Offsets and lengths at the wrap points of the bound checks (off + len == 2^64 + d,
 * 2^63, 2^32 + d, UINT32_MAX, lengths that truncate to small ones in 32 bits), with
 * host buffers of OVF_BUF bytes only.  Invariants: a call whose range ends past its
 * symbol is refused with a symbol (or set/program) error, never accepted and never
 * refused by the later memory checks it should not have reached (INVALID_MRAM/WRAM_ACCESS,
 * or DPU_ERR_SYSTEM from the host-memory check of a wrapped size); a refused call
 * leaves the host buffers and the DPUs' WRAM and both ends of their MRAM as they were. */

#define OVF_BUF 64
#define OVF_SNAP (64u << 10) /* bytes of WRAM, MRAM head and MRAM tail compared per DPU */

static uint32_t ovf_off(struct in *in)
{
    switch (u8(in) % 6) {
    case 0: return UINT32_MAX - u8(in) % 16;
    case 1: return 0x80000000u + (uint32_t)(int32_t)(int8_t)u8(in);
    case 2: return 8u * (u8(in) % 16);
    case 3: return (64u << 20) - 8u * (u8(in) % 16);
    case 4: return 0x10000u - 4u * (u8(in) % 16);
    default: return u32(in);
    }
}

/* A length near a wrap point; case 0 makes off + len wrap to d exactly. */
static size_t ovf_len(struct in *in, uint64_t off)
{
    size_t d = (size_t)(ptrdiff_t)(int8_t)u8(in); /* -128..127, modulo 2^64 */
    switch (u8(in) % 7) {
    case 0: return (size_t)0 - (size_t)off + d;
    case 1: return SIZE_MAX - u8(in) % 16;
    case 2: return ((size_t)1 << 63) + d;
    case 3: return ((size_t)(1 + u8(in) % 4) << 32) + u8(in) % 65; /* small once truncated */
    case 4: return (size_t)UINT32_MAX + 1 - (size_t)off + d;     /* off + len near 2^32 */
    case 5: return (size_t)0 - ((size_t)u8(in) << 32) - (size_t)off;
    default: return (size_t)u64(in);
    }
}

static struct dpu_symbol_t ovf_symbol(struct in *in)
{
    static const uint32_t addrs[] = {0x08000000u, 0x10000000u, 0x08000000u + (64u << 20) - 64,
                                     0x10000000u + 0x10000u - 64, 0xfffffff0u};
    static const uint32_t sizes[] = {UINT32_MAX, UINT32_MAX - 7, 64u << 20, 0x10000u, 64};
    uint8_t a = u8(in), s = u8(in);
    struct dpu_symbol_t sym;
    sym.address = a < 250 ? addrs[a % 5] : u32(in); /* in this order (make_seeds.py) */
    sym.size = s < 250 ? sizes[s % 5] : u32(in);
    return sym;
}

/* WRAM, the first and the last OVF_SNAP bytes of MRAM of one DPU, read through
 * whole-memory symbols; false if the DPU cannot be read (no program). */
static bool ovf_snapshot(struct dpu_set_t dpu, uint8_t *out)
{
    struct dpu_symbol_t wram = {0x10000000u, S.machine ? 63488u : 0x10000u}, mram = {0x08000000u, 64u << 20};
    memset(out, 0, 3 * OVF_SNAP);
    return dpu_copy_from_symbol(dpu, wram, 0, out, wram.size) == DPU_OK &&
           dpu_copy_from_symbol(dpu, mram, 0, out + OVF_SNAP, OVF_SNAP) == DPU_OK &&
           dpu_copy_from_symbol(dpu, mram, (64u << 20) - OVF_SNAP, out + 2 * OVF_SNAP, OVF_SNAP) == DPU_OK;
}

struct ovf_sg {
    uint8_t *buf;
    uint32_t lens[2];
};
static bool ovf_sg_block(struct sg_block_info *out, uint32_t dpu_index, uint32_t block_index, void *args)
{
    struct ovf_sg *a = args;
    (void)dpu_index;
    if (block_index >= 2)
        return false;
    out->addr = a->buf + (block_index ? OVF_BUF / 2 : 0);
    out->length = a->lens[block_index];
    return true;
}

static void op_overflow(struct in *in)
{
    struct pick pk = pick_set(in);
    uint8_t call = u8(in) % 10;
    char own[32];
    const char *name = call <= 2 || call >= 6 ? pick_symbol(in, own, sizeof own) : NULL;
    struct dpu_symbol_t sym = {0, 0};
    if (call >= 3 && call <= 5)
        sym = ovf_symbol(in);
    uint64_t off64 = 0;
    uint32_t off = 0;
    if (call == 9) { /* the rank view's offsets are 64-bit and multiples of 8 */
        uint8_t k = u8(in) % 4;
        off64 = k == 0 ? UINT64_MAX - 7 - 8u * (u8(in) % 16) : k == 1 ? ((uint64_t)1 << 63) + 8u * (u8(in) % 16)
              : k == 2 ? (64u << 20) - 8u * (u8(in) % 16) : u64(in) & ~(uint64_t)7;
    } else {
        off64 = off = ovf_off(in);
    }
    size_t len = ovf_len(in, off64);
    /* a length that some symbol could hold is cut to the host buffer's: only
     * lengths past any memory (64 MB MRAM, 512 MB of rank view) stay large */
    if (len <= (call == 9 ? (size_t)1 << 30 : (size_t)1 << 27))
        len %= OVF_BUF + 1;
    if (call == 9)
        len &= ~(size_t)63; /* whole lines, so that the size check is the one that refuses */

    /* host side: OVF_BUF bytes of a known pattern; one buffer per DPU for pushes */
    uint8_t pattern[OVF_BUF], *buf = malloc(OVF_BUF), *bufs[MAX_MACHINE_DPUS] = {0};
    for (unsigned i = 0; i < OVF_BUF; i++)
        pattern[i] = buf[i] = (uint8_t)(0x3c + 5 * i);
    struct dpu_set_t d, snap_dpu[2];
    unsigned nsnap = 0, ndpus = 0;
    uint8_t *before = NULL;
    if (pk.valid == 1 && call != 9) {
        DPU_FOREACH(pk.set, d) {
            if (ndpus < MAX_MACHINE_DPUS && (call == 6 || call == 7)) {
                bufs[ndpus] = malloc(OVF_BUF);
                memcpy(bufs[ndpus], pattern, OVF_BUF);
                CALL(dpu_prepare_xfer(d, bufs[ndpus]));
            }
            snap_dpu[nsnap < 2 ? nsnap : 1] = d; /* the first and the last */
            nsnap = nsnap < 2 ? nsnap + 1 : 2;
            ndpus++;
        }
        before = malloc(2 * 3 * OVF_SNAP);
        for (unsigned i = 0; i < nsnap; i++)
            if (!ovf_snapshot(snap_dpu[i], before + i * 3 * OVF_SNAP))
                nsnap = 0; /* nothing loaded: nothing can be written either */
    }

    dpu_error_t rc;
    struct ovf_sg sga = {buf, {0, 0}};
    get_block_t gb = {ovf_sg_block, &sga, sizeof sga};
    bool past; /* the range ends past what the symbol can hold */
    switch (call) {
    case 0: rc = CALL(dpu_copy_to(pk.set, name, off, buf, len)); break;
    case 1: rc = CALL(dpu_broadcast_to(pk.set, name, off, buf, len, DPU_XFER_DEFAULT)); break;
    case 2: rc = CALL(dpu_copy_from(pk.set, name, off, buf, len)); break;
    case 3: rc = CALL(dpu_copy_to_symbol(pk.set, sym, off, buf, len)); break;
    case 4: rc = CALL(dpu_broadcast_to_symbol(pk.set, sym, off, buf, len, DPU_XFER_DEFAULT)); break;
    case 5: rc = CALL(dpu_copy_from_symbol(pk.set, sym, off, buf, len)); break;
    case 6: rc = CALL(dpu_push_xfer(pk.set, DPU_XFER_TO_DPU, name, off, len, DPU_XFER_DEFAULT)); break;
    case 7: rc = CALL(dpu_push_xfer(pk.set, DPU_XFER_FROM_DPU, name, off, len, DPU_XFER_DEFAULT)); break;
    case 8: {
        uint8_t dir = u8(in);
        static const uint32_t blens[] = {UINT32_MAX, UINT32_MAX - 7, 8, OVF_BUF / 2, 0x80000000u};
        sga.lens[0] = u8(in) < 128 ? (uint32_t)(len / 2) : blens[u8(in) % 5];
        sga.lens[1] = u8(in) < 128 ? (uint32_t)(len - len / 2) : blens[u8(in) % 5];
        rc = CALL(dpu_push_sg_xfer(pk.set, dir & 1 ? DPU_XFER_FROM_DPU : DPU_XFER_TO_DPU, name, off, len, &gb,
                                   (dpu_sg_xfer_flags_t)(dir & 2 ? DPU_SG_XFER_DISABLE_LENGTH_CHECK : 0)));
        break;
    }
    default: {
        uint32_t group = u8(in) % 8;
        rc = CALL(u8(in) & 1 ? openpim_rank_view_read(pk.set, group, off64, buf, len)
                             : openpim_rank_view_write(pk.set, group, off64, buf, len));
        break;
    }
    }
    expect_rejected(&pk, rc, "overflow-class call");

    /* image symbols are smaller than 2^32 bytes: a range ending at or past 2^32 is past
     * any of them; a given symbol has its own size; the rank view covers 64 MB */
    if (call == 9)
        past = off64 > (64u << 20) || len / 8 > (64u << 20) - off64;
    else if (call >= 3 && call <= 5)
        past = off > sym.size || len > (size_t)(sym.size - off);
    else
        past = len > UINT32_MAX || off > UINT32_MAX - len;
    if (past && (rc == DPU_OK || rc == DPU_ERR_SYSTEM ||
                 (call != 9 && (rc == DPU_ERR_INVALID_MRAM_ACCESS || rc == DPU_ERR_INVALID_WRAM_ACCESS))))
        die("call %u: off %llu + len %zu ends past its symbol, but the call gave %u", call,
            (unsigned long long)off64, len, (unsigned)rc);
    if (rc == DPU_OK && len > OVF_BUF && call != 8)
        die("call %u accepted %zu bytes, more than any memory holds", call, len);
    if (rc != DPU_OK) {
        if (memcmp(buf, pattern, OVF_BUF) != 0)
            die("call %u was refused (%u) but wrote the host buffer", call, (unsigned)rc);
        for (unsigned i = 0; i < MAX_MACHINE_DPUS; i++)
            if (bufs[i] && memcmp(bufs[i], pattern, OVF_BUF) != 0)
                die("push %u was refused (%u) but wrote prepared buffer %u", call, (unsigned)rc, i);
        uint8_t *after = nsnap ? malloc(3 * OVF_SNAP) : NULL;
        for (unsigned i = 0; i < nsnap; i++)
            if (!ovf_snapshot(snap_dpu[i], after) || memcmp(after, before + i * 3 * OVF_SNAP, 3 * OVF_SNAP) != 0)
                die("call %u was refused (%u) but changed the memory of a DPU (off %llu, len %zu)", call,
                    (unsigned)rc, (unsigned long long)off64, len);
        free(after);
    }
    if (call == 6 || call == 7)
        CALL(dpu_prepare_xfer(pk.set, NULL)); /* the buffers are freed below */
    for (unsigned i = 0; i < MAX_MACHINE_DPUS; i++)
        free(bufs[i]);
    free(before);
    free(buf);
}

/* ---- checked runs ------------------------------------------------------------------- */

struct run_inputs {
    uint32_t rounds, heap_words, fault_kind, fault_arg, words[16];
    uint64_t heap[256];
};

static void set_inputs(struct dpu_set_t set, const struct run_inputs *ri)
{
    if (CALL(dpu_broadcast_to(set, "rounds", 0, &ri->rounds, 4, DPU_XFER_DEFAULT)) != DPU_OK ||
        CALL(dpu_copy_to(set, "heap_words", 0, &ri->heap_words, 4)) != DPU_OK ||
        CALL(dpu_copy_to(set, "fault_kind", 0, &ri->fault_kind, 4)) != DPU_OK ||
        CALL(dpu_copy_to(set, "fault_arg", 0, &ri->fault_arg, 4)) != DPU_OK ||
        CALL(dpu_copy_to(set, "words", 0, ri->words, sizeof ri->words)) != DPU_OK)
        die("cannot write the inputs of a loaded program");
    /* the MRAM heap through prepared pushes, each DPU its own copy */
    struct dpu_set_t d;
    DPU_FOREACH(set, d)
        if (CALL(dpu_prepare_xfer(d, (void *)ri->heap)) != DPU_OK)
            die("dpu_prepare_xfer fails on a DPU of a live set");
    if (CALL(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 0, sizeof ri->heap, DPU_XFER_DEFAULT)) !=
        DPU_OK)
        die("cannot push to the MRAM heap");
}

static uint64_t expected_counter(const struct run_inputs *ri)
{
    return (uint64_t)ri->rounds * NR_TASKLETS;
}

static void check_results(struct dpu_set_t set, const struct run_inputs *ri, uint32_t launches)
{
    uint64_t sum = 0;
    uint32_t hw = ri->heap_words > 256 ? 256 : ri->heap_words;
    for (uint32_t i = 0; i < hw; i++)
        sum += ri->heap[i];
    struct dpu_set_t d;
    DPU_FOREACH(set, d) {
        uint64_t res[8];
        uint32_t counter;
        if (CALL(dpu_copy_from(d, "results", 0, res, sizeof res)) != DPU_OK ||
            CALL(dpu_copy_from(d, "counter", 0, &counter, 4)) != DPU_OK)
            die("cannot read the results");
        if (counter != expected_counter(ri) || res[0] != sum || res[1] != 110 || res[2] != launches ||
            res[3] != 0xC0FFEE || res[4] - ri->words[0] >= 8)
            die("wrong results: counter %u (want %llu), sum %llu (want %llu), init %llu, launches %llu (want %u), "
                "magic %llx, heap %llu",
                counter, (unsigned long long)expected_counter(ri), (unsigned long long)res[0],
                (unsigned long long)sum, (unsigned long long)res[1], (unsigned long long)res[2], launches,
                (unsigned long long)res[3], (unsigned long long)res[4]);
        uint64_t m[4];
        if (CALL(dpu_copy_from(d, "m_init", 0, m, sizeof m)) != DPU_OK || m[0] != 11 || m[3] != 44)
            die("initialised MRAM variables wrong");
    }
}

static void fill_inputs(struct in *in, struct run_inputs *ri)
{
    memset(ri, 0, sizeof *ri);
    ri->rounds = u8(in) % 24;
    ri->heap_words = u8(in) < 250 ? u16(in) % 257 : u32(in);
    for (int i = 0; i < 16; i++)
        ri->words[i] = u32(in);
    uint64_t seed = u64(in) | 1;
    for (int i = 0; i < 256; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ri->heap[i] = seed;
    }
}

/* A fresh load on a live set, chosen inputs and maybe a fault: the outcome is
 * known exactly. */
static void op_checked_run(struct in *in)
{
    unsigned si = u8(in) % NSLOTS;
    if (S.slots[si].state != SLOT_LIVE || S.machine != 0)
        return;
    struct dpu_set_t set = S.slots[si].set, d;
    if (u8(in) & 1) { /* one DPU of it */
        unsigned k = u8(in) % S.slots[si].nr_dpus, i = 0;
        DPU_FOREACH(set, d)
            if (i++ == k)
                break;
        set = d;
    }
    CALL(dpu_sync(set)); /* errors of earlier asynchronous launches */
    if (CALL(dpu_load(set, g_bin, NULL)) != DPU_OK)
        die("dpu_load of the valid program fails on a live set");
    struct run_inputs ri;
    fill_inputs(in, &ri);
    uint8_t fk = u8(in) % 12;
    ri.fault_kind = fk <= 8 ? fk : 0;
    ri.fault_arg = u8(in) < 128 ? u32(in) : (uint32_t)(0x10000000u + 4 * u16(in));
    if (ri.fault_kind == 5 && set.kind != DPU_SET_DPU)
        ri.fault_kind = 0; /* a timeout per DPU: only on one DPU */
    if (ri.fault_kind == 8 && u8(in) & 1)
        ri.fault_arg = 0x10000000u + 4 * (u16(in) % 0x4000); /* inside WRAM: a legal store */
    set_inputs(set, &ri);
    uint32_t nlaunch = 1 + u8(in) % 2;
    for (uint32_t l = 1; l <= nlaunch; l++) {
        bool async = u8(in) & 1;
        dpu_error_t rc = CALL(dpu_launch(set, async ? DPU_ASYNCHRONOUS : DPU_SYNCHRONOUS));
        if (async) {
            if (rc != DPU_OK)
                die("asynchronous launch failed at once (%u)", (unsigned)rc);
            bool done = false, fault = false;
            CALL(dpu_status(set, &done, &fault));
            rc = CALL(dpu_sync(set));
        }
        const char *kind = NULL;
        dpu_error_t want = DPU_ERR_DPU_FAULT;
        switch (ri.fault_kind) {
        case 0: want = DPU_OK; break;
        case 1: kind = "halt"; break;
        case 2: want = ri.fault_arg == 12345 ? DPU_OK : DPU_ERR_DPU_FAULT; kind = "assert"; break;
        case 3: want = (uint32_t)-1; break; /* depends on the address */
        case 4: kind = "heap"; break;
        case 5: want = DPU_ERR_TIMEOUT; kind = "timeout"; break;
        case 6: kind = "deadlock"; break;
        case 7: want = ri.fault_arg ? DPU_OK : DPU_ERR_DPU_FAULT; kind = "divide-by-zero"; break;
        case 8: want = (uint32_t)-1; break;
        }
        if (want == (uint32_t)-1) { /* outcome depends on the address: any clean end */
            if (rc != DPU_OK && rc != DPU_ERR_DPU_FAULT)
                die("launch with fault_kind %u (arg %#x) gave %u", ri.fault_kind, ri.fault_arg, (unsigned)rc);
            break;
        }
        if (rc != want)
            die("launch with fault_kind %u (arg %u) gave %u, want %u", ri.fault_kind, ri.fault_arg, (unsigned)rc,
                (unsigned)want);
        if (rc == DPU_OK) {
            check_results(set, &ri, l);
        } else if (kind && rc == want) {
            DPU_FOREACH(set, d) {
                struct openpim_fault f;
                if (CALL(openpim_get_fault(d, &f)) != DPU_OK || !f.faulted || strcmp(f.kind, kind) != 0 ||
                    (ri.fault_kind != 6 && f.tasklet != NR_TASKLETS - 1))
                    die("fault_kind %u: openpim_get_fault says %s/%s tasklet %u", ri.fault_kind,
                            f.faulted ? "faulted" : "ok", f.kind ? f.kind : "?", f.tasklet);
            }
            bool done = false, fault = false;
            if (CALL(dpu_status(set, &done, &fault)) != DPU_OK || !done || !fault)
                die("dpu_status does not report the fault");
            break;
        } else if (rc != DPU_OK && rc != DPU_ERR_DPU_FAULT && rc != DPU_ERR_TIMEOUT) {
            die("launch gave %u", (unsigned)rc);
        }
    }
    /* the log of the first DPU */
    DPU_FOREACH(set, d) {
        if (CALL(dpu_log_read(d, g_null)) != DPU_OK)
            die("dpu_log_read fails after a checked run");
        break;
    }
}

/* After any sequence: free everything; a fresh allocation must work. */
static void final_check(struct in *in)
{
    for (unsigned i = 0; i < NSLOTS; i++)
        if (S.slots[i].state == SLOT_LIVE) {
            if (CALL(dpu_free(S.slots[i].set)) != DPU_OK)
                die("dpu_free of a live set fails");
            S.slots[i].state = SLOT_FREED;
        }
    /* nothing is allocated now: every set we hold must be refused */
    for (unsigned i = 0; i < NSLOTS; i++)
        if (S.slots[i].state == SLOT_FREED && CALL(dpu_launch(S.slots[i].set, DPU_SYNCHRONOUS)) == DPU_OK)
            die("a freed set was launched");
    for (unsigned i = 0; i < S.nhandles; i++) {
        uint32_t v = 0;
        if (CALL(dpu_copy_to(S.handles[i].set, "rounds", 0, &v, 4)) == DPU_OK)
            die("copy_to a DPU of a freed set succeeded");
    }
    for (unsigned i = 0; i < S.nranksets; i++)
        if (CALL(dpu_free(S.ranksets[i])) == DPU_OK)
            die("dpu_free of a rank of a freed set succeeded");

    struct dpu_set_t set, d;
    uint32_t want = 1 + u8(in) % 16;
    if (CALL(dpu_alloc(want, PROFILE, &set)) != DPU_OK)
        die("a fresh dpu_alloc(%u) fails once everything is freed", want);
    S.machine = 0;
    if (CALL(dpu_launch(set, DPU_SYNCHRONOUS)) != DPU_ERR_NO_PROGRAM_LOADED)
        die("launch without a program does not say DPU_ERR_NO_PROGRAM_LOADED");
    if (CALL(dpu_load(set, g_bin, NULL)) != DPU_OK)
        die("dpu_load of the valid program fails on a fresh set");
    struct run_inputs ri;
    fill_inputs(in, &ri);
    set_inputs(set, &ri);
    if (CALL(dpu_launch(set, DPU_SYNCHRONOUS)) != DPU_OK)
        die("a fresh launch of the valid program fails");
    check_results(set, &ri, 1);
    uint32_t n = 0;
    DPU_FOREACH(set, d)
        n++;
    if (n != want)
        die("fresh set has %u DPUs, asked %u", n, want);
    if (CALL(dpu_free(set)) != DPU_OK)
        die("dpu_free of a fresh set fails");
    if (CALL(dpu_free(set)) == DPU_OK)
        die("double dpu_free accepted");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct in in = {data, size};
    int machine = S.machine;
    memset(&S, 0, sizeof S);
    S.machine = machine;
    for (unsigned op = 0; op < MAX_OPS && in.n; op++) {
        uint8_t code = u8(&in) % 24;
        TRACE("op %u: %u\n", op, code);
        switch (code) {
        case 0: op_alloc(&in, false); break;
        case 1: op_alloc(&in, true); break;
        case 2: op_free(&in); break;
        case 3: op_load_path(&in); break;
        case 4: op_load_mem(&in); break;
        case 5: op_launch(&in); break;
        case 6: op_status_sync(&in); break;
        case 7: op_callback(&in); break;
        case 8: op_copy(&in, 0); break;
        case 9: op_copy(&in, 1); break;
        case 10: op_copy(&in, 2); break;
        case 11: op_copy_symbol(&in); break;
        case 12: op_prepare(&in); break;
        case 13: op_push(&in); break;
        case 14: op_sg(&in); break;
        case 15: op_log(&in); break;
        case 16: op_queries(&in); break;
        case 17: op_iterate(&in); break;
        case 18: op_checked_run(&in); break;
        case 19: op_load_mem(&in); break;
        case 20: op_iterate(&in); break;
        case 21: op_rank_view(&in); break;
        case 22: op_misc(&in); break;
        default: op_overflow(&in); break;
        }
    }
    final_check(&in);
    madvise(g_big, BIG_SIZE, MADV_DONTNEED);
    return 0;
}
