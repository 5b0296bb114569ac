/* SPDX-License-Identifier: MIT */
/* openpimd against hostile tenants: each scenario is one way a tenant could
 * hurt another, played as that tenant would, with the daemon started as its
 * systemd unit ships it; each checks that the other tenant is unharmed.
 *
 *   test_hostile SCENARIO OPENPIMD DPU_SNOOP DPU_TENANT
 *
 * seal      tenant A keeps a secret in its DPUs' WRAM and MRAM; tenant B's
 *           DPU program (hand-written x86 among its code, dpu_snoop.S) looks
 *           for it by every route: worker addresses in the trampolines, the
 *           MRAM windows beside its own (rdgsbase), and every byte its worker
 *           can read (its mappings, read from /proc); it finds nothing, and
 *           no worker maps, or holds a descriptor of, two tenants' ranks
 * fds       one tenant opens all the programs and connections it can: it is
 *           refused at its limits, with the limit named, and another tenant
 *           is still served; then many tenants exhaust the descriptors: new
 *           clients are told so at once and the daemon does not spin
 * endless   an endless kernel holds only its own session: another tenant's
 *           launches run meanwhile; kill -9 of its client reclaims the rank
 *           and ends its workers; SIGTERM then stops the daemon at once
 * claims    a multi-rank claim waits allocWaitMs once, not once per rank it
 *           cannot have;
 *           two 2-rank claims queued while ranks free one by one are served
 *           in order, each with both its ranks (no starvation)
 * oversize  a PROGRAM_OPEN over the program limit, or a large one that is no
 *           ELF file, is refused before the daemon copies it (its peak
 *           memory barely moves)
 * hello     a request before HELLO is refused and the connection closed; a
 *           connection that never says HELLO is closed
 * parallel  one client's requests for different ranks are in flight at once:
 *           while a launch runs on one rank, another thread writes, launches
 *           and reads on another rank, with exact results
 * windows   a tenant's streaming windows (kept in the daemon's memory) are
 *           counted: over --max-window-mb the next is refused, naming it,
 *           and a window given back makes room again
 * timeouts  the remote backend against a "daemon" that accepts nothing, and
 *           one that never answers HELLO: each allocation fails within
 *           OPENPIM_REMOTE_TIMEOUT_MS with a message naming it */
#include "scenario.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <dpu.h>
#include <openpim_ext.h>

#include "sandbox/procs.h"

static const char *dpu_snoop, *dpu_tenant;
static char profile[256];

#define PER_RANK 8
#define MB (1ull << 20)
#define SKIP 77 /* ctest's SKIP_RETURN_CODE */

static void set_u32(struct dpu_set_t set, const char *sym, uint32_t v)
{
    CHECK_EQ(dpu_broadcast_to(set, sym, 0, &v, sizeof v, DPU_XFER_DEFAULT), DPU_OK);
}

static void set_u64(struct dpu_set_t set, const char *sym, uint64_t v)
{
    CHECK_EQ(dpu_broadcast_to(set, sym, 0, &v, sizeof v, DPU_XFER_DEFAULT), DPU_OK);
}

static uint64_t get_u64(struct dpu_set_t dpu, const char *sym)
{
    uint64_t v = 0;
    CHECK_EQ(dpu_copy_from(dpu, sym, 0, &v, sizeof v), DPU_OK);
    return v;
}

static struct dpu_set_t first_dpu(struct dpu_set_t set)
{
    struct dpu_set_t dpu, first = set;
    DPU_FOREACH(set, dpu) {
        first = dpu;
        break;
    }
    return first;
}

static uint64_t random64(void)
{
    uint64_t v = 0;
    if (syscall(SYS_getrandom, &v, sizeof v, 0) != (long)sizeof v)
        v = (uint64_t)now_ms() * 0x9e3779b97f4a7c15ull;
    return v | 1;
}

/* CPU seconds the process has used (user + system). */
static double cpu_seconds(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    unsigned long long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* A /proc/<pid>/status figure in kB ("VmHWM:", "VmRSS:"). */
static long status_kb(pid_t pid, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)))
            kb = atol(line + strlen(key));
    if (f)
        fclose(f);
    return kb;
}

/* ---- workers, as /proc shows them ------------------------------------------------------- */

static int daemon_workers(struct proc *out)
{
    struct proc kids[MAX_PROCS];
    int n = children_of(daemon_pid, kids, MAX_PROCS), k = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(kids[i].comm, "openpim-worker") && kids[i].state != 'Z')
            out[k++] = kids[i];
    return k;
}

/* The ranks whose memory a file name is: a rank's memfd is that rank; the
 * whole machine's memories (one memfd for every DPU) are every rank (a mask). */
static uint64_t ranks_of_name(const char *name)
{
    const char *p = strstr(name, "openpim-rank-");
    if (p)
        return 1ull << (atoi(p + strlen("openpim-rank-")) & 63);
    if (strstr(name, "openpim-mram") || strstr(name, "openpim-wram"))
        return ~0ull;
    return 0;
}

/* The ranks a worker maps memory of, and those it holds a descriptor of. */
static void worker_ranks(pid_t pid, uint64_t *mapped, uint64_t *held)
{
    char path[64], line[512];
    *mapped = *held = 0;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        *mapped |= ranks_of_name(line);
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char link[400], target[256];
        snprintf(link, sizeof link, "%s/%s", path, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n > 0) {
            target[n] = 0;
            *held |= ranks_of_name(target);
        }
    }
    if (d)
        closedir(d);
}

struct region {
    uint64_t lo, hi;
};

/* The worker's readable mappings, but those of [skip_lo, skip_hi) (the
 * scanning tenant's own MRAM windows), the kernel's special ones and any
 * larger than 256 MB (a sanitizer's shadow); their number. */
static int readable_regions(pid_t pid, uint64_t skip_lo, uint64_t skip_hi, struct region *out, int max)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    int n = 0;
    while (f && n < max && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        char perms[8];
        if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' || strstr(line, "[vvar") ||
            strstr(line, "[vsyscall]") || hi - lo > 256 * MB || (lo < skip_hi && hi > skip_lo))
            continue;
        out[n++] = (struct region){lo, hi};
    }
    if (f)
        fclose(f);
    return n;
}

/* The worker with a mapping that starts at addr (a DPU's MRAM window), or 0. */
static pid_t worker_mapping(uint64_t addr)
{
    struct proc w[MAX_PROCS];
    int n = daemon_workers(w);
    for (int i = 0; i < n; i++) {
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%d/maps", (int)w[i].pid);
        FILE *f = fopen(path, "r");
        int hit = 0;
        while (f && !hit && fgets(line, sizeof line, f)) {
            unsigned long long lo;
            hit = sscanf(line, "%llx-", &lo) == 1 && lo == addr;
        }
        if (f)
            fclose(f);
        if (hit)
            return w[i].pid;
    }
    return 0;
}

/* Whether an 8-byte value points into one of the worker's mappings above 4 GB
 * (not one larger than 256 MB: a sanitizer's shadow, where any number is). */
static int worker_address(pid_t pid, uint64_t v)
{
    if (v < (1ull << 32))
        return 0;
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    int in = 0;
    while (f && !in && fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        in = sscanf(line, "%llx-%llx", &lo, &hi) == 2 && v >= lo && v < hi && hi - lo <= 256 * MB;
    }
    if (f)
        fclose(f);
    return in;
}

/* ---- seal ---------------------------------------------------------------------------- */

/* Tells the probe which secret to look for, masked with a fresh key: the
 * image's memory never holds the secret itself. */
static void plant_key(struct dpu_set_t set, uint64_t s0, uint64_t s1, uint64_t key)
{
    set_u64(set, "key", key);
    set_u64(set, "s0k", s0 ^ key);
    set_u64(set, "s1k", s1 ^ key);
}

/* A tenant's secret (s0, s1) in its DPUs' WRAM (wram_area) and MRAM (1 MB at
 * 8 MB into the heap). */
static void plant(struct dpu_set_t set, uint64_t s0, uint64_t s1)
{
    uint64_t *pairs = malloc(MB);
    CHECK(pairs != NULL);
    if (!pairs)
        exit(1);
    for (size_t i = 0; i < MB / 8; i += 2)
        pairs[i] = s0, pairs[i + 1] = s1;
    CHECK_EQ(dpu_broadcast_to(set, "wram_area", 0, pairs, 4096, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 8 * MB, pairs, MB, DPU_XFER_DEFAULT), DPU_OK);
    free(pairs);
}

static void seal(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    uint64_t s0 = random64(), s1 = random64(), key = random64();
    int to_a[2], from_a[2];
    CHECK(pipe(to_a) == 0 && pipe(from_a) == 0);
    pid_t a = fork();
    if (a == 0) { /* tenant A: its secret in WRAM and MRAM, run once (its worker maps it) */
        struct dpu_set_t set;
        CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_OK);
        CHECK_EQ(dpu_load(set, dpu_snoop, NULL), DPU_OK);
        plant(set, s0, s1);
        set_u32(set, "mode", 0);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        put(from_a[1], 'R');
        get(to_a[0]);
        CHECK_EQ(dpu_free(set), DPU_OK);
        _exit(check_done("tenant A"));
    }
    CHECK_EQ(get(from_a[0]), 'R');

    /* tenant B, with a secret of its own in the same places: each route must
     * find B's own secret (the probe works) and never A's */
    struct dpu_set_t set, dpu, one;
    uint64_t b0 = random64(), b1 = random64();
    CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, dpu_snoop, NULL), DPU_OK);
    plant(set, b0, b1);
    set_u32(set, "mode", 0);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK); /* every DPU of B has run on its worker */
    one = first_dpu(set);
    set_u32(one, "mode", 2);
    CHECK_EQ(dpu_launch(one, DPU_SYNCHRONOUS), DPU_OK);
    uint64_t gs = get_u64(one, "gsbase");
    pid_t w = worker_mapping(gs + 0x08000000u);
    CHECK(gs != 0 && w > 0);
    printf("B's DPU 0: MRAM window at 0x%llx, worker %d\n", (unsigned long long)gs, (int)w);

    /* no worker maps, or holds, the memories of both tenants' ranks */
    struct proc ws[MAX_PROCS];
    int nw = daemon_workers(ws);
    CHECK(nw >= 2); /* one per session here */
    for (int i = 0; i < nw; i++) {
        uint64_t mapped, held;
        worker_ranks(ws[i].pid, &mapped, &held);
        printf("worker %d maps ranks %#llx, holds descriptors of ranks %#llx\n", (int)ws[i].pid,
               (unsigned long long)mapped, (unsigned long long)held);
        CHECK(__builtin_popcountll(mapped) <= 1);
        CHECK(__builtin_popcountll(held) <= 1);
        CHECK(!held || held == mapped);
    }

    /* route 1: the trampolines and the environment pages hold no worker
     * address (the search does know one: B's own MRAM window) */
    set_u32(one, "mode", 1);
    CHECK_EQ(dpu_launch(one, DPU_SYNCHRONOUS), DPU_OK);
    uint8_t env[8192];
    CHECK_EQ(dpu_copy_from(one, "env_copy", 0, env, sizeof env), DPU_OK);
    CHECK(worker_address(w, gs + 0x08000000u));
    unsigned leaks = 0, nonzero = 0;
    for (size_t at = 0; at < sizeof env; at++)
        nonzero += env[at] != 0;
    CHECK(nonzero > 0); /* the trampolines were read */
    for (size_t at = 0; at + 8 <= sizeof env; at++) {
        uint64_t v;
        memcpy(&v, env + at, 8);
        if (worker_address(w, v)) {
            if (leaks++ < 4)
                printf("the environment page holds 0x%llx, an address of the worker, at +0x%zx\n",
                       (unsigned long long)v, at);
        }
    }
    CHECK_EQ(leaks, 0);

    /* route 2: the MRAM windows beside B's own (rdgsbase).  First B's own:
     * each DPU finds B's secret in its own window and in its neighbour's */
    set_u64(set, "window_off", 8 * MB);
    set_u64(set, "window_len", MB);
    for (int64_t step = 0; step < 2; step++) {
        uint32_t i = 0;
        DPU_FOREACH(set, dpu, i) {
            int64_t s = i + step < PER_RANK ? step : -step; /* the last DPU's neighbour is before it */
            CHECK_EQ(dpu_copy_to(dpu, "window_step", 0, &s, sizeof s), DPU_OK);
        }
        set_u32(set, "mode", 3);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        unsigned own = 0;
        DPU_FOREACH(set, dpu, i)
            own += get_u64(dpu, "found") != 0;
        printf("rdgsbase route, %s window: B's own secret found on %u of %d DPUs\n", step ? "a neighbour's" : "its own",
               own, PER_RANK);
        CHECK_EQ(own, PER_RANK);
    }
    /* then each DPU tries the windows of another tenant's rank on either side */
    plant_key(set, s0, s1, key);
    unsigned tried = 0, faulted = 0;
    for (int t = 0; t < 2 * PER_RANK; t++) {
        int target = t < PER_RANK ? t - PER_RANK : t; /* relative to B's DPU 0: the rank before or after */
        uint32_t i = 0;
        DPU_FOREACH(set, dpu, i) {
            int64_t step = target - (int64_t)i;
            CHECK_EQ(dpu_copy_to(dpu, "window_step", 0, &step, sizeof step), DPU_OK);
        }
        set_u32(set, "mode", 3);
        dpu_error_t rc = dpu_launch(set, DPU_SYNCHRONOUS);
        CHECK(rc == DPU_OK || rc == DPU_ERR_DPU_FAULT);
        DPU_FOREACH(set, dpu, i) {
            struct openpim_fault f;
            CHECK_EQ(openpim_get_fault(dpu, &f), DPU_OK);
            faulted += f.kind != NULL && strcmp(f.kind, "none") != 0;
            uint64_t at = get_u64(dpu, "found");
            if (at)
                printf("DPU %u found the secret at 0x%llx (window %+d)\n", i, (unsigned long long)at, target);
            CHECK_EQ(at, 0);
            tried++;
        }
    }
    printf("rdgsbase route: %u windows tried, %u faulted\n", tried, faulted);

    /* route 3: every byte B's worker can read but B's own MRAM windows; B's
     * own WRAM among them, where the scan must find B's secret */
    static struct region reg[512];
    int nr = readable_regions(w, gs, gs + (uint64_t)PER_RANK * (4ull << 30), reg, 512);
    CHECK(nr > 0);
    CHECK_EQ(dpu_copy_to(one, "regions", 0, reg, (size_t)nr * sizeof *reg), DPU_OK);
    uint32_t n32 = (uint32_t)nr;
    CHECK_EQ(dpu_copy_to(one, "nr_regions", 0, &n32, sizeof n32), DPU_OK);
    set_u32(one, "mode", 4);
    plant_key(one, b0, b1, random64());
    CHECK_EQ(dpu_launch(one, DPU_SYNCHRONOUS), DPU_OK);
    uint64_t own_at = get_u64(one, "found");
    printf("scan of the worker's memory for B's own secret: %s at 0x%llx\n", own_at ? "found" : "NOT found",
           (unsigned long long)own_at);
    CHECK(own_at != 0);
    plant_key(one, s0, s1, key);
    dpu_error_t rc = dpu_launch(one, DPU_SYNCHRONOUS);
    uint64_t at = get_u64(one, "found"), scanned = get_u64(one, "scanned");
    char *how = dpu_error_to_string(rc); /* the caller's to free */
    printf("scan of the worker's memory: %d ranges, %.1f MB read: %s (launch %s)\n", nr, scanned / 1048576.0,
           at ? "the secret FOUND" : "nothing", how);
    free(how);
    CHECK_EQ(rc, DPU_OK);
    CHECK_EQ(at, 0);
    CHECK(scanned > MB);

    CHECK_EQ(dpu_free(set), DPU_OK);
    put(to_a[1], 'F');
    CHECK_EQ(wait_child(a), 0);
    /* the sessions are over: their workers with them */
    double end = now_ms() + 10000;
    while (daemon_workers(ws) && now_ms() < end)
        usleep(20000);
    CHECK_EQ(daemon_workers(ws), 0);
}

/* ---- fds ----------------------------------------------------------------------------- */

/* HELLO on a new connection as this process: the fd, or -1 with the refusal in why. */
static int hello_or_why(char *why, size_t cap)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%.100s", sock);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        snprintf(why, cap, "connect: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* a refused connection may already hold the daemon's goodbye: read it even
     * if HELLO cannot be sent */
    struct opd_hello req = {.layout = OPD_LAYOUT};
    struct opd_header hd = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = OPD_HELLO, .seq = 1, .len = sizeof req};
    uint8_t msg[sizeof hd + sizeof req];
    memcpy(msg, &hd, sizeof hd);
    memcpy(msg + sizeof hd, &req, sizeof req);
    raw_send(fd, msg, sizeof msg, -1);
    struct opd_hello_reply h;
    struct raw_reply r;
    if (raw_reply(fd, &r, &h, sizeof h) != 0 || r.status != OPD_OK) {
        snprintf(why, cap, "%s", r.ok ? r.msg : "no reply to HELLO");
        close(fd);
        return -1;
    }
    return fd;
}

/* PROGRAM_OPEN of a file's bytes through a window: the handle, or 0 with the
 * refusal in why. */
static uint32_t open_program(int fd, const uint8_t *elf, size_t len, char *why, size_t cap)
{
    uint8_t *map;
    uint64_t size = (len + 4095) / 4096 * 4096;
    if (raw_window(fd, size, &map) != 0) {
        snprintf(why, cap, "no window");
        return 0;
    }
    memcpy(map, elf, len);
    struct opd_program req = {.len = len, .data = {.where = OPD_SHM}};
    struct opd_handle h = {0};
    struct raw_reply r;
    raw_call(fd, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, &h, sizeof h);
    munmap(map, size);
    if (r.status != OPD_OK) {
        snprintf(why, cap, "%s", r.ok ? r.msg : "no reply");
        return 0;
    }
    return h.handle;
}

/* As uid, opens programs until refused, on up to `conns` connections (more
 * until refused); reports the first refusal of each kind through the pipe,
 * then holds everything until the pipe `hold` ends. */
static void hog(uid_t uid, int max_conns, int report, int hold)
{
    /* the program is read as the test's user: the build folder need not be
     * open to the tenants' uids (a clone in a 0700 folder) */
    size_t len = 0;
    uint8_t *elf = read_file(dpu_tenant, &len);
    if (!elf)
        _exit(5);
    if (setgid(uid) != 0 || setuid(uid) != 0)
        _exit(3);
    char why[512] = "", first_prog[512] = "", first_conn[512] = "";
    unsigned programs = 0, conns = 0;
    for (int c = 0; c < max_conns && !first_conn[0]; c++) {
        int fd = hello_or_why(why, sizeof why);
        if (fd < 0) {
            snprintf(first_conn, sizeof first_conn, "%s", why);
            break;
        }
        conns++;
        for (int k = 0; k < 4096; k++) {
            if (!open_program(fd, elf, len, why, sizeof why)) {
                if (!first_prog[0])
                    snprintf(first_prog, sizeof first_prog, "%s", why);
                break;
            }
            programs++;
        }
    }
    char line[1200];
    int n = snprintf(line, sizeof line, "%u connections, %u programs; program refused: %s; connection refused: %s\n",
                     conns, programs, first_prog, first_conn);
    if (write(report, line, (size_t)n) != n)
        _exit(4);
    close(report);
    get(hold);
    _exit(0);
}

/* A tenant's whole round (alloc, load, write, launch, read back): 0 if exact. */
static int tenant_round(uint32_t seed)
{
    struct dpu_set_t set, dpu;
    if (dpu_alloc_ranks(1, profile, &set) != DPU_OK || dpu_load(set, dpu_tenant, NULL) != DPU_OK)
        return 1;
    uint32_t data[2048], step = seed % 100 + 1, n = 2048, i;
    DPU_FOREACH(set, dpu, i) {
        for (uint32_t k = 0; k < 2048; k++)
            data[k] = seed * 7919u + i * 31u + k;
        if (dpu_copy_to(dpu, "data", 0, data, sizeof data) != DPU_OK)
            return 2;
    }
    if (dpu_broadcast_to(set, "step", 0, &step, 4, DPU_XFER_DEFAULT) != DPU_OK ||
        dpu_broadcast_to(set, "n", 0, &n, 4, DPU_XFER_DEFAULT) != DPU_OK || dpu_launch(set, DPU_SYNCHRONOUS) != DPU_OK)
        return 3;
    int bad = 0;
    DPU_FOREACH(set, dpu, i) {
        uint64_t sum = 0, want = 0;
        if (dpu_copy_from(dpu, "sum", 0, &sum, sizeof sum) != DPU_OK)
            return 4;
        for (uint32_t k = 0; k < 2048; k++)
            want += seed * 7919u + i * 31u + k + step;
        bad |= sum != want;
    }
    dpu_free(set);
    return bad ? 5 : 0;
}

/* Runs tenant_round in a child within limit_ms: its status, or -1 if it had to be killed. */
static int round_within(uint32_t seed, double limit_ms)
{
    pid_t kid = fork();
    if (kid == 0)
        _exit(tenant_round(seed));
    double end = now_ms() + limit_ms;
    int st;
    while (waitpid(kid, &st, WNOHANG) == 0) {
        if (now_ms() > end) {
            kill(kid, SIGKILL);
            waitpid(kid, &st, 0);
            return -1;
        }
        usleep(10000);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void fds(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "fds: tenants are uids: this scenario needs root to play several: skipped\n");
        exit(SKIP);
    }
    CHECK_EQ(chmod(dir, 0711), 0);
    daemon_nofile = 256; /* a small table, so that the test is quick */
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", "--socket-mode", "666", NULL};
    daemon_pid = start(args);
    /* one hostile tenant takes all it can */
    int rep[2], hold[2];
    CHECK(pipe(rep) == 0 && pipe(hold) == 0);
    pid_t h = fork();
    if (h == 0) {
        close(rep[0]);
        close(hold[1]);
        hog(60001, 4096, rep[1], hold[0]);
    }
    close(rep[1]);
    close(hold[0]);
    char line[1200] = "";
    ssize_t n = read(rep[0], line, sizeof line - 1);
    line[n > 0 ? n : 0] = 0;
    close(rep[0]);
    printf("one hostile tenant: %s", line);
    CHECK(strstr(line, "program refused: PROGRAM_OPEN:") != NULL && strstr(line, "(--max-program") != NULL);
    CHECK(strstr(line, "connection refused: tenant uid:60001 has") != NULL &&
          strstr(line, "(--max-connections)") != NULL);
    /* another tenant is served, whole */
    double t0 = now_ms();
    CHECK_EQ(round_within(7, 60000), 0);
    printf("another tenant's round: %.0f ms\n", now_ms() - t0);

    /* many tenants, a connection each: the descriptors run out */
    enum { HOGS = 16 };
    pid_t hogs[HOGS];
    int hold2[2];
    CHECK(pipe(hold2) == 0);
    for (int k = 0; k < HOGS; k++) {
        int r2[2];
        CHECK(pipe(r2) == 0);
        hogs[k] = fork();
        if (hogs[k] == 0) {
            close(r2[0]);
            close(hold2[1]);
            hog((uid_t)(60002 + k), 1, r2[1], hold2[0]);
        }
        close(r2[1]);
        n = read(r2[0], line, sizeof line - 1);
        line[n > 0 ? n : 0] = 0;
        close(r2[0]);
        if (k == HOGS - 1)
            printf("tenant %d of %d: %s", k + 2, HOGS + 1, line);
    }
    /* a new client is told at once, and the daemon does not spin while
     * connections wait (one stays in the backlog unaccepted all along) */
    int waiting = raw_connect(sock);
    double cpu0 = cpu_seconds(daemon_pid);
    t0 = now_ms();
    char why[512] = "";
    int fd = hello_or_why(why, sizeof why);
    double told = now_ms() - t0;
    printf("a new client after the descriptors ran out: %s within %.0f ms\n", fd < 0 ? why : "served", told);
    if (fd >= 0)
        close(fd);
    CHECK(fd >= 0 || strstr(why, "out of file descriptors") || strstr(why, "connections, the most it can"));
    CHECK(told < 5000);
    usleep(2000000);
    double cpu = cpu_seconds(daemon_pid) - cpu0;
    printf("daemon CPU over %.1f s with a connection waiting: %.3f s\n", (now_ms() - t0) / 1000, cpu);
    CHECK(cpu >= 0 && cpu < 0.5);
    close(waiting);
    CHECK(log_has("out of file descriptors"));
    /* they let go: the daemon serves again */
    close(hold[1]);
    close(hold2[1]);
    close(hold2[0]);
    CHECK_EQ(wait_child(h), 0);
    for (int k = 0; k < HOGS; k++)
        CHECK_EQ(wait_child(hogs[k]), 0);
    CHECK_EQ(round_within(8, 60000), 0);
}

/* ---- endless ----------------------------------------------------------------------------- */

static int alive(pid_t pid)
{
    struct proc p;
    pid_t pp;
    return proc_stat(pid, &p, &pp) == 0 && p.state != 'Z';
}

/* A child that claims a rank and launches an endless kernel on it; 'L' on the pipe once it launches. */
static pid_t endless_tenant(int ready)
{
    pid_t e = fork();
    if (e == 0) {
        struct dpu_set_t set;
        if (dpu_alloc_ranks(1, profile, &set) != DPU_OK || dpu_load(set, dpu_snoop, NULL) != DPU_OK)
            _exit(1);
        uint32_t mode = 9;
        dpu_broadcast_to(set, "mode", 0, &mode, 4, DPU_XFER_DEFAULT);
        put(ready, 'L');
        dpu_launch(set, DPU_SYNCHRONOUS);
        _exit(2);
    }
    return e;
}

static void endless(void)
{
    /* as the unit ships it, but for the machine's size */
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    struct opd_hello_reply hr;
    int probe = raw_hello(sock, &hr);
    CHECK(probe >= 0);
    printf("default launch budget: %.0f s\n", hr.cfg.budget_ns / 1e9);
    CHECK(hr.cfg.budget_ns > 0 && hr.cfg.budget_ns <= 3600ull * 1000000000ull);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t e = endless_tenant(ready[1]);
    CHECK_EQ(get(ready[0]), 'L');
    usleep(300000);
    struct proc ws[MAX_PROCS];
    int before = daemon_workers(ws);
    CHECK(before >= 1);
    pid_t spinning[MAX_PROCS];
    for (int i = 0; i < before; i++)
        spinning[i] = ws[i].pid;
    /* another tenant's whole round runs meanwhile */
    double t0 = now_ms();
    CHECK_EQ(round_within(3, 20000), 0);
    printf("another tenant's round beside an endless kernel: %.0f ms\n", now_ms() - t0);
    /* kill -9 of the endless tenant: its rank comes back (the machine's two
     * ranks can be claimed), its worker ends */
    kill(e, SIGKILL);
    CHECK_EQ(wait_child(e), 128 + SIGKILL);
    t0 = now_ms();
    struct dpu_set_t all;
    char p[400];
    snprintf(p, sizeof p, "%s,allocWaitMs=10000", profile);
    CHECK_EQ(dpu_alloc_ranks(2, p, &all), DPU_OK);
    double reclaimed = now_ms() - t0;
    printf("the endless tenant's rank reclaimed %.0f ms after kill -9\n", reclaimed);
    CHECK(reclaimed < 5000);
    int still = 0;
    for (int i = 0; i < before; i++)
        still += alive(spinning[i]);
    CHECK_EQ(still, 0);
    CHECK_EQ(dpu_free(all), DPU_OK);
    close(probe);
    /* SIGTERM with another endless kernel running: the daemon stops at once */
    e = endless_tenant(ready[1]);
    CHECK_EQ(get(ready[0]), 'L');
    usleep(300000);
    t0 = now_ms();
    CHECK_EQ(stop_daemon(daemon_pid), 0);
    double stopped = now_ms() - t0;
    daemon_pid = 0;
    printf("SIGTERM with an endless kernel running: stopped in %.0f ms\n", stopped);
    CHECK(stopped < 3000);
    CHECK_EQ(wait_child(e), 2);
}

/* ---- claims ----------------------------------------------------------------------------- */

/* Waiting claims, from the operator's STATUS. */
static int waiting(void)
{
    int fd = raw_hello(sock, NULL);
    struct raw_reply r = {0};
    uint8_t buf[4096];
    struct opd_status_reply head = {0};
    if (fd >= 0 && raw_call(fd, OPD_STATUS, NULL, 0, NULL, 0, NULL, 0, -1, &r, buf, sizeof buf) == 0 &&
        r.status == OPD_OK)
        memcpy(&head, buf, sizeof head);
    if (fd >= 0)
        close(fd);
    return fd >= 0 && r.status == OPD_OK ? (int)head.nr_waiting : -1;
}

/* A child that allocates `ranks` ranks (waiting up to wait_ms), says 'G' and
 * the time through the pipe (or 'X' on failure), and frees them when told. */
static pid_t claimer(uint32_t ranks, uint32_t wait_ms, int report, int hold)
{
    pid_t kid = fork();
    if (kid == 0) {
        char p[400];
        snprintf(p, sizeof p, "%s,allocWaitMs=%u", profile, wait_ms);
        struct dpu_set_t set;
        dpu_error_t rc = dpu_alloc_ranks(ranks, p, &set);
        double t = now_ms();
        put(report, rc == DPU_OK ? 'G' : 'X');
        if (write(report, &t, sizeof t) != (ssize_t)sizeof t)
            _exit(5);
        if (rc != DPU_OK)
            _exit(0);
        uint32_t nr = 0;
        dpu_get_nr_ranks(set, &nr);
        get(hold);
        dpu_free(set);
        _exit(nr == ranks ? 0 : 6);
    }
    return kid;
}

static int ready_within(int fd, int ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, ms) == 1;
}

static void claims(void)
{
    /* 4 ranks asked of a 4-rank machine with 2 held: one wait of 2 s, not
     * one per rank it cannot have (4 s, claimed one by one) */
    const char *four[] = {"--machine", "nrRanks=4,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(four);
    int rep[2], hold[2];
    CHECK(pipe(rep) == 0 && pipe(hold) == 0);
    pid_t holder = claimer(2, 0, rep[1], hold[0]);
    CHECK_EQ(get(rep[0]), 'G');
    double t;
    CHECK_EQ(read(rep[0], &t, sizeof t), (ssize_t)sizeof t);
    struct dpu_set_t set;
    char p[400];
    snprintf(p, sizeof p, "%s,allocWaitMs=2000", profile);
    double t0 = now_ms();
    CHECK_EQ(dpu_alloc_ranks(4, p, &set), DPU_ERR_ALLOCATION);
    double waited = now_ms() - t0;
    printf("4 ranks with 2 free, allocWaitMs=2000: refused after %.0f ms: %s\n", waited, openpim_last_error());
    CHECK(waited >= 1900 && waited < 3500);
    CHECK(strstr(openpim_last_error(), "2000 ms") != NULL);
    put(hold[1], 'F');
    CHECK_EQ(wait_child(holder), 0);
    CHECK_EQ(stop_daemon(daemon_pid), 0);
    const char *args[] = {"--machine", "nrRanks=3,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);

    /* FIFO: all 3 ranks held one by one; W1 then W2 ask for 2 ranks each; the
     * ranks come free one at a time: W1 gets both first, then W2 */
    int hp[3][2];
    pid_t holders[3];
    for (int k = 0; k < 3; k++) {
        CHECK(pipe(hp[k]) == 0);
        holders[k] = claimer(1, 0, rep[1], hp[k][0]);
        CHECK_EQ(get(rep[0]), 'G');
        CHECK_EQ(read(rep[0], &t, sizeof t), (ssize_t)sizeof t);
    }
    int r1[2], r2[2], h1[2], h2[2];
    CHECK(pipe(r1) == 0 && pipe(r2) == 0 && pipe(h1) == 0 && pipe(h2) == 0);
    pid_t w1 = claimer(2, 30000, r1[1], h1[0]);
    double end = now_ms() + 10000;
    while (waiting() < 1 && now_ms() < end)
        usleep(10000);
    pid_t w2 = claimer(2, 30000, r2[1], h2[0]);
    while (waiting() < 2 && now_ms() < end)
        usleep(10000);
    CHECK_EQ(waiting(), 2);
    put(hp[0][1], 'F');
    CHECK_EQ(wait_child(holders[0]), 0);
    CHECK(!ready_within(r1[0], 500) && !ready_within(r2[0], 1)); /* one rank free: neither is served */
    put(hp[1][1], 'F');
    CHECK_EQ(wait_child(holders[1]), 0);
    CHECK(ready_within(r1[0], 10000));
    CHECK_EQ(get(r1[0]), 'G'); /* W1, first in line, has both ranks */
    CHECK(!ready_within(r2[0], 500));
    CHECK_EQ(waiting(), 1);
    put(h1[1], 'F');
    CHECK_EQ(wait_child(w1), 0);
    CHECK(ready_within(r2[0], 10000));
    CHECK_EQ(get(r2[0]), 'G'); /* then W2 */
    put(h2[1], 'F');
    CHECK_EQ(wait_child(w2), 0);
    put(hp[2][1], 'F');
    CHECK_EQ(wait_child(holders[2]), 0);
}

/* ---- oversize ----------------------------------------------------------------------------- */

/* The daemon's peak memory from now on (VmHWM, reset where the kernel lets us). */
static long peak_reset(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/clear_refs", (int)daemon_pid);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (write(fd, "5", 1) != 1) { /* the peak stays as it was: the growth is still bounded by it */
        }
        close(fd);
    }
    return status_kb(daemon_pid, "VmHWM:");
}

static void oversize(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    int fd = raw_hello(sock, NULL);
    CHECK(fd >= 0);
    uint8_t *map = NULL;
    const uint64_t win = 64 * MB;
    CHECK_EQ(raw_window(fd, win, &map), 0);
    memset(map, 0, win); /* the client's pages, not the daemon's */
    struct raw_reply r;
    for (int round = 0; round < 2; round++) {
        uint64_t len = round == 0 ? win : 32 * MB; /* over the limit; at it, but no ELF file */
        long before = peak_reset();
        struct opd_program req = {.len = len, .data = {.where = OPD_SHM}};
        raw_call(fd, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, NULL, 0);
        long after = status_kb(daemon_pid, "VmHWM:");
        printf("PROGRAM_OPEN of %llu MB of zeros: %s; daemon peak %+ld kB\n", (unsigned long long)(len >> 20),
               r.ok ? r.msg : "no reply", after - before);
        CHECK(r.ok && r.status == OPD_ERROR);
        CHECK(after >= 0 && before >= 0 && after - before < 8 * 1024);
        CHECK(strstr(r.msg, round == 0 ? "over the 32 MB" : "not an ELF file") != NULL);
    }
    munmap(map, win);
    close(fd);
}

/* ---- hello ---------------------------------------------------------------------------- */

static void hello(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", "--hello-timeout-ms", "500",
                          NULL};
    daemon_pid = start(args);
    uint16_t ops[] = {OPD_MEMORY, OPD_STATUS};
    for (unsigned k = 0; k < 2; k++) {
        int fd = raw_connect(sock);
        struct raw_reply r;
        uint8_t buf[4096];
        CHECK_EQ(raw_call(fd, ops[k], NULL, 0, NULL, 0, NULL, 0, -1, &r, buf, sizeof buf), 0);
        printf("request %u before HELLO: %s\n", ops[k], r.status == OPD_OK ? "answered" : r.msg);
        CHECK_REFUSED(r, "before HELLO");
        char c;
        CHECK_EQ(recv(fd, &c, 1, 0), 0); /* and the connection is closed */
        close(fd);
    }
    /* a connection that says nothing is closed after the HELLO timeout */
    int fd = raw_connect(sock);
    double t0 = now_ms();
    struct pollfd p = {.fd = fd, .events = POLLIN};
    CHECK_EQ(poll(&p, 1, 10000), 1);
    char c;
    CHECK_EQ(recv(fd, &c, 1, 0), 0);
    double closed = now_ms() - t0;
    printf("a silent connection closed after %.0f ms\n", closed);
    CHECK(closed >= 400 && closed < 5000);
    close(fd);
    /* with HELLO, served */
    fd = raw_hello(sock, NULL);
    struct raw_reply r;
    struct opd_memory m;
    CHECK_EQ(raw_call(fd, OPD_MEMORY, NULL, 0, NULL, 0, NULL, 0, -1, &r, &m, sizeof m), 0);
    CHECK_EQ(r.status, OPD_OK);
    close(fd);
}

/* ---- parallel ----------------------------------------------------------------------------- */

struct spin {
    struct dpu_set_t rank;
    dpu_error_t rc;
    double end;
};

static void *spin_launch(void *arg)
{
    struct spin *s = arg;
    s->rc = dpu_launch(s->rank, DPU_SYNCHRONOUS);
    s->end = now_ms();
    return NULL;
}

static void parallel(void)
{
    /* each DPU's run may take 3 s: the endless kernel's launch ends then */
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "2", "--timeout-ms", "3000", NULL};
    daemon_pid = start(args);
    struct dpu_set_t set, rank, ranks[2];
    uint32_t nr = 0;
    CHECK_EQ(dpu_alloc_ranks(2, profile, &set), DPU_OK);
    DPU_RANK_FOREACH(set, rank) {
        if (nr < 2)
            ranks[nr] = rank;
        nr++;
    }
    CHECK_EQ(nr, 2);
    CHECK_EQ(dpu_load(ranks[0], dpu_snoop, NULL), DPU_OK);
    CHECK_EQ(dpu_load(ranks[1], dpu_tenant, NULL), DPU_OK);
    set_u32(ranks[0], "mode", 9);
    struct spin s = {.rank = first_dpu(ranks[0])}; /* one DPU: the session's other worker is free */
    pthread_t t;
    double t0 = now_ms();
    CHECK_EQ(pthread_create(&t, NULL, spin_launch, &s), 0);
    usleep(300000); /* rank 0's launch is in flight */
    /* rank 1: write, launch, read back, exactly */
    struct dpu_set_t dpu;
    uint32_t data[PER_RANK][2048], step = 5, n = 2048, i;
    DPU_FOREACH(ranks[1], dpu, i) {
        for (uint32_t w = 0; w < 2048; w++)
            data[i][w] = i * 100003u + w;
        CHECK_EQ(dpu_prepare_xfer(dpu, data[i]), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(ranks[1], DPU_XFER_TO_DPU, "data", 0, sizeof data[0], DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(ranks[1], "step", 0, &step, 4, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(ranks[1], "n", 0, &n, 4, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_launch(ranks[1], DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(ranks[1], dpu, i) {
        uint64_t sum = 0, want = 0;
        CHECK_EQ(dpu_copy_from(dpu, "sum", 0, &sum, sizeof sum), DPU_OK);
        for (uint32_t w = 0; w < 2048; w++)
            want += data[i][w] + step;
        CHECK_EQ(sum, want);
    }
    double other = now_ms();
    pthread_join(t, NULL);
    char *how = dpu_error_to_string(s.rc); /* the caller's to free */
    printf("rank 1's round done %.0f ms in; rank 0's endless launch ended at %.0f ms (%s)\n", other - t0, s.end - t0,
           how);
    free(how);
    CHECK(s.rc != DPU_OK); /* the budget stopped it */
    CHECK(other < s.end - 1000);       /* rank 1 did not wait for rank 0 */
    CHECK_EQ(dpu_free(set), DPU_OK);
}

/* ---- windows ---------------------------------------------------------------------------- */

/* SHM_ATTACH of a window in the daemon's memory on connection fd: the reply. */
static struct raw_reply daemon_window(int fd)
{
    struct opd_shm req = {.size = OPD_DAEMON_WINDOW_MAX, .kind = OPD_WINDOW_DAEMON};
    struct raw_reply r = {0};
    raw_call(fd, OPD_SHM_ATTACH, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    return r;
}

static void windows(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", "--max-window-mb", "64", NULL};
    daemon_pid = start(args);
    int fd[3];
    for (int k = 0; k < 3; k++) {
        fd[k] = raw_hello(sock, NULL);
        CHECK(fd[k] >= 0);
    }
    CHECK_EQ(daemon_window(fd[0]).status, OPD_OK);
    CHECK_EQ(daemon_window(fd[1]).status, OPD_OK);
    struct raw_reply r = daemon_window(fd[2]);
    printf("a third 32 MB streaming window of one tenant under --max-window-mb 64: %s\n",
           r.status == OPD_OK ? "granted" : r.msg);
    CHECK_REFUSED(r, "(--max-window-mb");
    CHECK(strstr(r.msg, "over its 64 MB") != NULL);
    CHECK_EQ(daemon_window(fd[0]).status, OPD_OK); /* a connection's new window replaces its old one */
    close(fd[1]); /* its window goes with it */
    double end = now_ms() + 10000;
    while ((r = daemon_window(fd[2])).status != OPD_OK && now_ms() < end)
        usleep(20000);
    CHECK_EQ(r.status, OPD_OK);
    close(fd[0]);
    close(fd[2]);
}

/* ---- timeouts ---------------------------------------------------------------------------- */

/* An allocation through the remote backend: how long it took, and its message. */
static double alloc_fails_after(char *why, size_t cap)
{
    struct dpu_set_t set;
    double t0 = now_ms();
    dpu_error_t rc = dpu_alloc_ranks(1, profile, &set);
    double took = now_ms() - t0;
    CHECK(rc != DPU_OK);
    snprintf(why, cap, "%s", openpim_last_error());
    return took;
}

static void timeouts(void)
{
    setenv("OPENPIM_REMOTE_TIMEOUT_MS", "500", 1);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%.100s", sock);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(lfd >= 0 && bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(lfd, 0) == 0);
    /* accepts nothing: its backlog full, connect fails until the timeout */
    int filler[4], nf = 0;
    for (; nf < 4; nf++) {
        filler[nf] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (connect(filler[nf], (struct sockaddr *)&sa, sizeof sa) != 0) {
            close(filler[nf]);
            break;
        }
    }
    char why[1024];
    double took = alloc_fails_after(why, sizeof why);
    printf("a daemon that accepts nothing (%d connections in its backlog): refused after %.0f ms: %s\n", nf, took,
           why);
    CHECK(took >= 450 && took < 5000);
    CHECK(strstr(why, "accepted no connection within 500 ms") != NULL);
    CHECK(strstr(why, "OPENPIM_REMOTE_TIMEOUT_MS") != NULL);
    for (int k = 0; k < nf; k++)
        close(filler[k]);
    /* accepts, reads the HELLO, answers nothing */
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t mute = fork();
    if (mute == 0) {
        put(ready[1], 'R');
        for (;;) {
            int fd = accept(lfd, NULL, NULL);
            if (fd < 0)
                _exit(0);
            char buf[4096];
            while (read(fd, buf, sizeof buf) > 0) /* holds the connection until the client goes */
                ;
            close(fd);
        }
    }
    CHECK_EQ(get(ready[0]), 'R');
    took = alloc_fails_after(why, sizeof why);
    printf("a daemon that never answers HELLO: refused after %.0f ms: %s\n", took, why);
    CHECK(took >= 450 && took < 5000);
    CHECK(strstr(why, "no word from the daemon for 500 ms") != NULL);
    CHECK(strstr(why, "OPENPIM_REMOTE_TIMEOUT_MS") != NULL);
    kill(mute, SIGKILL);
    CHECK_EQ(wait_child(mute), 128 + SIGKILL);
    close(lfd);
    unlink(sock);
    unsetenv("OPENPIM_REMOTE_TIMEOUT_MS");
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s SCENARIO OPENPIMD DPU_SNOOP DPU_TENANT\n", argv[0]);
        return 2;
    }
    daemon_path = argv[2];
    dpu_snoop = argv[3];
    dpu_tenant = argv[4];
    if (scenario_folder("hostile") != 0)
        return 2;
    snprintf(profile, sizeof profile, "backend=remote,socket=%s", sock);
    setvbuf(stdout, NULL, _IOLBF, 0);
    static const struct scenario scenarios[] = {
        {"seal", seal},         {"fds", fds},           {"endless", endless}, {"claims", claims},   {"oversize", oversize},
        {"hello", hello},       {"parallel", parallel}, {"windows", windows}, {"timeouts", timeouts}};
    return scenario_run(argv[1], scenarios, sizeof scenarios / sizeof *scenarios);
}
