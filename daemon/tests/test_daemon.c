/* SPDX-License-Identifier: MIT */
/* openpimd end to end: each scenario starts its own daemon on a temporary
 * socket, plays tenants (libdpu programs with backend=remote in child
 * processes, and raw protocol clients that send whatever they like), checks
 * every outcome exactly, and stops the daemon.
 *
 *   test_daemon SCENARIO OPENPIMD DPU_PROGRAM
 *
 * isolation  B cannot read, write, load, launch, view or release A's rank,
 *            not even with a request that mixes its own DPUs in (nothing is
 *            written); after A releases, B gets the rank and sees only zeros
 * kill       a client SIGKILLed in the middle of a transfer: its rank is
 *            reclaimed, reset, and served to the next client
 * release_then_claim
 *            a client goes right after its RELEASE (answered before the
 *            reset); another claims that rank at once, without waiting: it
 *            gets it, zeroed; the closed sessions' pools are freed after
 * memory_private
 *            MEMORY and every reply's memory figure count the session's own
 *            ranks only
 * gather     transfers from a set's DPUs (one READ_GATHER per window's worth)
 *            exact for every size, set, way (prefetch off, streamed window)
 * tenants    more tenants than ranks at once, queued FIFO; every result exact,
 *            read with and without the prefetch cache (rounds of write, launch,
 *            read: a stale cached byte would show)
 * queue      quota, the queue's timeout with a clear error, FIFO order; a
 *            claimant that goes leaves the queue at once
 * malformed  truncated, wrong version, huge sizes, bad ids, bad windows: an
 *            error reply, nothing changed, the daemon goes on serving
 * batch      OPENPIM_REMOTE_BATCH=1: a write the daemon refuses fails the next
 *            request, with the reason
 * ctl        openpimctl status / drain / undrain, operators only
 * large      pipelined window transfers (40 MB, 64 x 1 MB, a 20 MB broadcast)
 *            exact; one past the memory limit refused whole
 * profile    backend=remote, socket= and OPENPIM_SOCKET; the daemon's machine
 *            taken, named, or refused with a clear error
 * shutdown   SIGTERM: a waiting claim and an idle client are told, a libdpu
 *            program gets a clear error, the daemon exits 0 and removes its
 *            socket; a new daemon serves the same path */
#include "scenario.h"

#include <dirent.h>
#include <dpu.h>
#include <openpim_ext.h>

static const char *dpu_program;
static char profile[256];

#define PER_RANK 8
#define WORDS 2048

/* ---- a libdpu tenant ----------------------------------------------------------- */

/* rounds of: fresh data per DPU, step, launch, check sum and data against the
 * host's own arithmetic.  Returns the number of failed checks. */
static int tenant_rounds(struct dpu_set_t set, uint32_t seed, unsigned rounds)
{
    uint32_t nr;
    CHECK_EQ(dpu_get_nr_dpus(set, &nr), DPU_OK);
    CHECK_EQ(dpu_load(set, dpu_program, NULL), DPU_OK);
    uint32_t (*data)[WORDS] = calloc(nr, sizeof *data), (*back)[WORDS] = calloc(nr, sizeof *back);
    uint64_t *sums = calloc(nr, sizeof *sums);
    for (unsigned round = 0; round < rounds; round++) {
        uint32_t step = mix(seed * 131 + round) % 1000, n = WORDS - round * 7;
        struct dpu_set_t dpu;
        uint32_t i;
        DPU_FOREACH(set, dpu, i) {
            for (uint32_t k = 0; k < WORDS; k++)
                data[i][k] = mix(seed ^ (i * 7919u + k * 104729u + round));
            CHECK_EQ(dpu_prepare_xfer(dpu, data[i]), DPU_OK);
        }
        CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, "data", 0, sizeof data[0], DPU_XFER_DEFAULT), DPU_OK);
        CHECK_EQ(dpu_broadcast_to(set, "step", 0, &step, sizeof step, DPU_XFER_DEFAULT), DPU_OK);
        CHECK_EQ(dpu_broadcast_to(set, "n", 0, &n, sizeof n, DPU_XFER_DEFAULT), DPU_OK);
        CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
        DPU_FOREACH(set, dpu, i) {
            CHECK_EQ(dpu_prepare_xfer(dpu, &sums[i]), DPU_OK);
        }
        CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "sum", 0, sizeof sums[0], DPU_XFER_DEFAULT), DPU_OK);
        DPU_FOREACH(set, dpu, i) {
            CHECK_EQ(dpu_prepare_xfer(dpu, back[i]), DPU_OK);
        }
        CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, "data", 0, sizeof back[0], DPU_XFER_DEFAULT), DPU_OK);
        for (i = 0; i < nr; i++) {
            uint64_t want = 0;
            int same = 1;
            for (uint32_t k = 0; k < WORDS; k++) {
                uint32_t v = k < n ? data[i][k] + step : data[i][k];
                if (k < n)
                    want += v;
                same &= back[i][k] == v;
            }
            CHECK_EQ(sums[i], want);
            CHECK(same);
        }
    }
    free(data);
    free(back);
    free(sums);
    return check_failures;
}

/* ---- setup ------------------------------------------------------------------------- */

/* READ of len bytes (inline) of a DPU's region into buf: the reply. */
static struct raw_reply read_mem(int fd, uint32_t dpu, uint32_t region, uint32_t off, uint32_t len, void *buf)
{
    struct opd_read req = {.dpu = dpu, .region = region, .off = off, .len = len};
    struct raw_reply r;
    raw_call(fd, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, buf, len);
    return r;
}

static struct raw_reply write_mem(int fd, const uint32_t *dpus, uint32_t n, uint32_t region, uint32_t off,
                                  const void *data, uint32_t len)
{
    struct opd_write req = {.region = region, .off = off, .n = n, .nsrc = 1, .len = len};
    struct raw_reply r;
    raw_call(fd, OPD_WRITE, &req, sizeof req, dpus, n, data, len, -1, &r, NULL, 0);
    return r;
}

/* Every byte of a rank's MRAM (through a window) and WRAM is zero, and its
 * DPUs report no results. */
static void check_rank_clean(int fd, uint32_t rank, const struct opd_hello_reply *h)
{
    uint64_t win = 8u << 20;
    uint8_t *map;
    CHECK_EQ(raw_window(fd, win, &map), 0);
    uint8_t *wram = malloc(h->info.wram_size);
    for (uint32_t i = 0; i < PER_RANK; i++) {
        uint32_t dpu = rank * PER_RANK + i;
        for (uint64_t off = 0; off < h->info.mram_size; off += win) {
            struct opd_read req = {.dpu = dpu, .region = OP_REGION_MRAM, .off = (uint32_t)off, .len = win,
                                   .data = {.where = OPD_SHM}};
            struct raw_reply r;
            memset(map, 0xa5, win);
            CHECK_EQ(raw_call(fd, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, NULL, 0), 0);
            CHECK_EQ(r.status, OPD_OK);
            CHECK(all_zero(map, win));
        }
        for (uint32_t off = 0; off < h->info.wram_size; off += OPD_INLINE_MAX) {
            uint32_t len = h->info.wram_size - off < OPD_INLINE_MAX ? h->info.wram_size - off : OPD_INLINE_MAX;
            memset(wram, 0xa5, len);
            struct raw_reply r = read_mem(fd, dpu, OP_REGION_WRAM, off, len, wram);
            CHECK_EQ(r.status, OPD_OK);
            CHECK(all_zero(wram, len));
        }
        struct opd_dpu req = {.dpu = dpu};
        struct op_dpu_status st;
        struct raw_reply r;
        memset(&st, 0xa5, sizeof st);
        CHECK_EQ(raw_call(fd, OPD_RESULT, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, &st, sizeof st), 0);
        CHECK_EQ(r.status, OPD_OK);
        CHECK(all_zero((uint8_t *)&st, sizeof st)); /* not what the previous tenant's run left */
    }
    free(wram);
    munmap(map, win);
}

/* PROGRAM_OPEN of the test's DPU program (through the window when large). */
static uint32_t open_program(int fd, int use_window)
{
    size_t len = 0;
    uint8_t *elf = read_file(dpu_program, &len);
    CHECK(elf != NULL);
    struct opd_program req = {.len = len};
    struct opd_handle h = {0};
    struct raw_reply r;
    if (use_window || len > OPD_INLINE_MAX) {
        uint8_t *map;
        uint64_t size = (len + 4095) / 4096 * 4096;
        CHECK_EQ(raw_window(fd, size, &map), 0);
        memcpy(map, elf, len);
        req.data.where = OPD_SHM;
        raw_call(fd, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, &h, sizeof h);
        munmap(map, size);
    } else {
        raw_call(fd, OPD_PROGRAM_OPEN, &req, sizeof req, NULL, 0, elf, len, -1, &r, &h, sizeof h);
    }
    CHECK_EQ(r.status, OPD_OK);
    free(elf);
    return h.handle;
}

/* ---- scenarios ------------------------------------------------------------------- */

static void isolation(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "2", "-v", NULL};
    daemon_pid = start(args);
    int to_a[2], from_a[2];
    CHECK(pipe(to_a) == 0 && pipe(from_a) == 0);
    pid_t a = fork();
    if (a == 0) { /* tenant A: a plain libdpu program */
        struct dpu_set_t set;
        CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_OK);
        tenant_rounds(set, 11, 2);
        put(from_a[1], 'R');
        if (get(to_a[0]) != 'F')
            _exit(91);
        CHECK_EQ(dpu_free(set), DPU_OK);
        put(from_a[1], 'D');
        get(to_a[0]);
        _exit(check_done("tenant A"));
    }
    CHECK_EQ(get(from_a[0]), 'R');
    struct opd_hello_reply h;
    int b = raw_hello(sock, &h);
    CHECK(b >= 0);
    struct raw_reply r;
    int64_t mine = raw_claim(b, 0, &r);
    CHECK(mine == 0 || mine == 1);
    uint32_t theirs = 1 - (uint32_t)mine, adpu = theirs * PER_RANK, own = (uint32_t)mine * PER_RANK;
    uint8_t buf[256];
    /* everything that names A's DPUs or rank is refused */
    r = read_mem(b, adpu, OP_REGION_MRAM, 0, 64, buf);
    CHECK_REFUSED(r, "not yours");
    r = read_mem(b, adpu + 3, OP_REGION_WRAM, 0, 64, buf);
    CHECK_REFUSED(r, "not yours");
    memset(buf, 0x5a, sizeof buf);
    r = write_mem(b, &adpu, 1, OP_REGION_MRAM, 0, buf, 64);
    CHECK_REFUSED(r, "not yours");
    uint32_t mixed[2] = {own, adpu}; /* own DPU first: still nothing may be written */
    r = write_mem(b, mixed, 2, OP_REGION_MRAM, 0, buf, 64);
    CHECK_REFUSED(r, "not yours");
    r = write_mem(b, mixed, 2, OP_REGION_WRAM, 0, buf, 64);
    CHECK_REFUSED(r, "not yours");
    memset(buf, 0xa5, sizeof buf);
    r = read_mem(b, own, OP_REGION_MRAM, 0, 64, buf);
    CHECK_EQ(r.status, OPD_OK);
    CHECK(all_zero(buf, 64));
    r = read_mem(b, own, OP_REGION_WRAM, 0, 64, buf);
    CHECK(r.status == OPD_OK && all_zero(buf, 64));
    struct opd_count lc = {.n = 1};
    raw_call(b, OPD_LAUNCH, &lc, sizeof lc, &adpu, 1, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    lc.n = 2;
    raw_call(b, OPD_LAUNCH, &lc, sizeof lc, mixed, 2, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    uint32_t handle = open_program(b, 0);
    struct opd_load ld = {.handle = handle, .n = 1};
    raw_call(b, OPD_LOAD, &ld, sizeof ld, &adpu, 1, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    struct opd_dpu rq = {.dpu = adpu};
    raw_call(b, OPD_RESULT, &rq, sizeof rq, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    struct opd_view v = {.off = 0, .size = 64};
    for (uint32_t i = 0; i < 8; i++)
        v.dpus[i] = adpu + i;
    raw_call(b, OPD_VIEW_READ, &v, sizeof v, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    raw_call(b, OPD_VIEW_WRITE, &v, sizeof v, NULL, 0, buf, 64, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    struct opd_room room = {.off = 0, .n = 1, .len = 64};
    raw_call(b, OPD_CHECK_ROOM, &room, sizeof room, &adpu, 1, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    struct opd_rank rel = {.rank = theirs};
    raw_call(b, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    /* the machine is full: B's second claim fails at once */
    CHECK_EQ(raw_claim(b, 0, &r), -1);
    CHECK_REFUSED(r, "claim(s) waiting"); /* all ranks taken (and the uid at its quota) */
    /* A's work was not disturbed: it releases cleanly */
    put(to_a[1], 'F');
    CHECK_EQ(get(from_a[0]), 'D');
    /* B now gets A's old rank, reset: zeros everywhere, no results */
    int64_t again = raw_claim(b, 5000, &r);
    CHECK_EQ(again, theirs);
    if (again == theirs)
        check_rank_clean(b, theirs, &h);
    put(to_a[1], 'X');
    CHECK_EQ(wait_child(a), 0);
    close(b);
}

static void kill_mid_transfer(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t c = fork();
    if (c == 0) {
        int fd = raw_hello(sock, NULL);
        struct raw_reply r;
        if (fd < 0 || raw_claim(fd, 0, &r) != 0)
            _exit(1);
        uint8_t data[4096];
        memset(data, 0x77, sizeof data);
        uint32_t dpus[PER_RANK];
        for (uint32_t i = 0; i < PER_RANK; i++)
            dpus[i] = i;
        r = write_mem(fd, dpus, PER_RANK, OP_REGION_MRAM, 0, data, sizeof data);
        if (r.status != OPD_OK)
            _exit(2);
        r = write_mem(fd, dpus, PER_RANK, OP_REGION_WRAM, 4096, data, sizeof data);
        if (r.status != OPD_OK)
            _exit(3);
        /* a large write: header and half of its payload, then nothing */
        static uint8_t msg[sizeof(struct opd_header) + sizeof(struct opd_write) + 4 + 60000];
        struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = OPD_WRITE, .seq = 9,
                               .len = sizeof(struct opd_write) + 4 + 60000};
        struct opd_write w = {.region = OP_REGION_MRAM, .off = 8192, .n = 1, .nsrc = 1, .len = 60000};
        uint32_t d0 = 0;
        memcpy(msg, &h, sizeof h);
        memcpy(msg + sizeof h, &w, sizeof w);
        memcpy(msg + sizeof h + sizeof w, &d0, 4);
        memset(msg + sizeof h + sizeof w + 4, 0x66, 60000);
        raw_send(fd, msg, sizeof msg / 2, -1);
        put(ready[1], 'K');
        pause();
        _exit(4);
    }
    CHECK_EQ(get(ready[0]), 'K');
    kill(c, SIGKILL);
    CHECK_EQ(wait_child(c), 128 + SIGKILL);
    struct opd_hello_reply h;
    int fd = raw_hello(sock, &h);
    struct raw_reply r;
    /* the only rank comes back once the daemon has reclaimed and reset it */
    CHECK_EQ(raw_claim(fd, 10000, &r), 0);
    check_rank_clean(fd, 0, &h);
    close(fd);
}

static uint64_t memory_used(int fd)
{
    struct opd_memory m = {0};
    struct raw_reply r;
    CHECK_EQ(raw_call(fd, OPD_MEMORY, NULL, 0, NULL, 0, NULL, 0, -1, &r, &m, sizeof m), 0);
    CHECK_EQ(r.status, OPD_OK);
    CHECK(m.limit > 0);
    CHECK_EQ(r.memory, m.used); /* every reply's figure is the same: the session's own */
    return m.used;
}

/* MEMORY, and the figure every reply carries, tell a session the host memory
 * backing its own ranks only: what another session writes or releases does
 * not show in it. */
static void memory_private(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    int a = raw_hello(sock, NULL), b = raw_hello(sock, NULL);
    CHECK(a >= 0 && b >= 0);
    struct raw_reply r;
    int64_t ra = raw_claim(a, 0, &r), rb = raw_claim(b, 0, &r);
    CHECK(ra >= 0 && rb >= 0 && ra != rb);
    uint64_t b0 = memory_used(b), a0 = memory_used(a);
    static uint8_t data[OPD_INLINE_MAX];
    memset(data, 0x3c, sizeof data);
    uint32_t dpus[PER_RANK];
    for (uint32_t i = 0; i < PER_RANK; i++)
        dpus[i] = (uint32_t)ra * PER_RANK + i;
    for (uint32_t off = 0; off < (2u << 20); off += sizeof data) /* 2 MB into each of A's 8 DPUs */
        CHECK_EQ(write_mem(a, dpus, PER_RANK, OP_REGION_MRAM, off, data, sizeof data).status, OPD_OK);
    uint64_t a1 = memory_used(a);
    CHECK(a1 >= a0 + (uint64_t)PER_RANK * (2u << 20));
    CHECK_EQ(memory_used(b), b0);
    struct opd_rank rel = {.rank = (uint32_t)ra};
    CHECK_EQ(raw_call(a, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0), 0);
    CHECK_EQ(memory_used(b), b0);
    CHECK_EQ(memory_used(a), 0u); /* A holds no rank now */
    close(a);
    close(b);
}

/* Descriptors the process holds. */
static unsigned nr_fds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    unsigned n = 0;
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* A RELEASE is answered before its rank's reset: a session that goes at once
 * after it, and another that claims at once (without waiting) on a machine of
 * that one rank, gets the rank (its claim waits for the reset) and reads only
 * zeros; the pools of the sessions that closed while their reset ran are
 * freed after it (the daemon is back to its descriptors). */
static void release_then_claim(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    struct opd_hello_reply h;
    int fd = raw_hello(sock, &h);
    CHECK(fd >= 0);
    unsigned fds_before = nr_fds(daemon_pid); /* one connection, no pool */
    const uint32_t per_dpu = 8u << 20;        /* pages whose freeing makes the reset take a while */
    for (unsigned round = 0; round < 4; round++) {
        struct raw_reply r;
        CHECK_EQ(raw_claim(fd, 0, &r), 0); /* no wait: the last session's reset may still run */
        uint8_t *map;
        CHECK_EQ(raw_window(fd, per_dpu, &map), 0);
        for (uint32_t i = 0; round && i < PER_RANK; i++) { /* what the last session wrote (all of it: at the end) */
            struct opd_read req = {.dpu = i, .region = OP_REGION_MRAM, .len = per_dpu, .data = {.where = OPD_SHM}};
            memset(map, 0xa5, per_dpu);
            CHECK_EQ(raw_call(fd, OPD_READ, &req, sizeof req, NULL, 0, NULL, 0, -1, &r, NULL, 0), 0);
            CHECK_EQ(r.status, OPD_OK);
            CHECK(all_zero(map, per_dpu));
            static uint8_t wram[4096];
            memset(wram, 0xa5, sizeof wram);
            CHECK_EQ(read_mem(fd, i, OP_REGION_WRAM, 0, sizeof wram, wram).status, OPD_OK);
            CHECK(all_zero(wram, sizeof wram));
        }
        for (uint32_t i = 0; i < PER_RANK; i++) {
            memset(map, 0x5a + (int)i, per_dpu);
            struct opd_write w = {.region = OP_REGION_MRAM, .off = 0, .n = 1, .nsrc = 1, .len = per_dpu,
                                  .data = {.where = OPD_SHM}};
            CHECK_EQ(raw_call(fd, OPD_WRITE, &w, sizeof w, &i, 1, NULL, 0, -1, &r, NULL, 0), 0);
            CHECK_EQ(r.status, OPD_OK);
            static uint8_t wram[4096];
            memset(wram, 0xc3, sizeof wram);
            CHECK_EQ(write_mem(fd, &i, 1, OP_REGION_WRAM, 0, wram, sizeof wram).status, OPD_OK);
        }
        munmap(map, per_dpu);
        int next = raw_hello(sock, &h);
        CHECK(next >= 0);
        struct opd_rank rel = {.rank = 0};
        CHECK_EQ(raw_call(fd, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0), 0);
        CHECK_EQ(r.status, OPD_OK);
        close(fd); /* gone before its reset is done */
        fd = next;
    }
    struct raw_reply r;
    CHECK_EQ(raw_claim(fd, 0, &r), 0);
    check_rank_clean(fd, 0, &h);
    struct opd_rank rel = {.rank = 0};
    CHECK_EQ(raw_call(fd, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0), 0);
    close(fd);
    fd = raw_hello(sock, &h);
    CHECK(fd >= 0);
    unsigned fds = 0;
    for (int tries = 0; tries < 500 && (fds = nr_fds(daemon_pid)) != fds_before; tries++)
        usleep(10000); /* the last session's thread ends after its reply */
    CHECK_EQ(fds, fds_before);
    close(fd);
}

/* A transfer from a set's DPUs (dpu_push_xfer DPU_XFER_FROM_DPU) reads in
 * as few requests as it can (READ_GATHER: inline, through the window, in
 * several window's worth): every DPU's bytes land in its own buffer, for
 * sizes from 8 bytes to past the pipelined reads, sets of all the DPUs of two
 * ranks or of a few, synchronous and asynchronous, with the prefetch on and
 * off (DPU by DPU) and with the window streamed.  Checked against what each
 * DPU was given. */
static void gather(void)
{
    const char *args[] = {"--machine", "nrRanks=2", "--workers", "1", NULL};
    daemon_pid = start(args);
    static const char *const ways[] = {"", ",remotePrefetch=false", ",remoteStream=true"};
    for (unsigned way = 0; way < 3; way++) {
        pid_t kid = fork();
        if (kid == 0) {
            char p[400];
            snprintf(p, sizeof p, "%s,allocWaitMs=10000%s", profile, ways[way]);
            struct dpu_set_t set, dpu;
            CHECK_EQ(dpu_alloc_ranks(2, p, &set), DPU_OK);
            CHECK_EQ(dpu_load(set, dpu_program, NULL), DPU_OK);
            uint32_t nr_dpus = 0;
            CHECK_EQ(dpu_get_nr_dpus(set, &nr_dpus), DPU_OK);
            static const size_t lens[] = {8, 4000, 62504, 256u << 10, 1u << 20, 3u << 20};
            for (unsigned l = 0; l < sizeof lens / sizeof *lens; l++) {
                size_t len = lens[l];
                /* every DPU, or every third from the second (the large sizes: 40 DPUs at most) */
                uint32_t step = len >= (1u << 20) || l % 2 ? 3 : 1, first = step > 1, count = 0;
                uint8_t **in = calloc(nr_dpus, sizeof *in), **out = calloc(nr_dpus, sizeof *out);
                uint32_t i;
                DPU_FOREACH(set, dpu, i) {
                    if (i < first || (i - first) % step || (len >= (1u << 20) && count == 40))
                        continue;
                    count++;
                    in[i] = malloc(len);
                    out[i] = malloc(len);
                    for (size_t k = 0; k < len; k++)
                        in[i][k] = (uint8_t)((k * 131u + i * 7u + l) ^ (k >> 9));
                    memset(out[i], 0xee, len);
                    CHECK_EQ(dpu_prepare_xfer(dpu, in[i]), DPU_OK);
                }
                CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 4096, len, DPU_XFER_DEFAULT),
                         DPU_OK);
                DPU_FOREACH(set, dpu, i) {
                    if (out[i])
                        CHECK_EQ(dpu_prepare_xfer(dpu, out[i]), DPU_OK);
                }
                dpu_xfer_flags_t flags = l % 3 == 2 ? DPU_XFER_ASYNC : DPU_XFER_DEFAULT;
                CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 4096, len, flags), DPU_OK);
                CHECK_EQ(dpu_sync(set), DPU_OK);
                for (i = 0; i < nr_dpus; i++) {
                    if (in[i] && memcmp(in[i], out[i], len) != 0) {
                        fprintf(stderr, "way %u, %zu bytes: DPU %u read back wrong\n", way, len, i);
                        CHECK(0);
                    }
                    free(in[i]);
                    free(out[i]);
                }
                free(in);
                free(out);
            }
            CHECK_EQ(dpu_free(set), DPU_OK);
            _exit(check_done("gather") ? 1 : 0);
        }
        CHECK_EQ(wait_child(kid), 0);
    }
}

static void tenants(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "2", NULL};
    daemon_pid = start(args);
    enum { N = 6 };
    pid_t kids[N];
    char waiting[300];
    snprintf(waiting, sizeof waiting, "%s,allocWaitMs=120000", profile);
    for (int t = 0; t < N; t++) {
        kids[t] = fork();
        if (kids[t] == 0) {
            if (t % 2) /* half the tenants read without the prefetch cache */
                setenv("OPENPIM_REMOTE_PREFETCH", "0", 1);
            if (t % 3 == 0) /* a third batch their small writes */
                setenv("OPENPIM_REMOTE_BATCH", "1", 1);
            struct dpu_set_t set;
            CHECK_EQ(dpu_alloc_ranks(1, waiting, &set), DPU_OK);
            tenant_rounds(set, 100 + (uint32_t)t, 3);
            CHECK_EQ(dpu_free(set), DPU_OK);
            _exit(check_done("tenant") ? 1 : 0);
        }
    }
    for (int t = 0; t < N; t++)
        CHECK_EQ(wait_child(kids[t]), 0);
}

/* The number of claims waiting, from a no-wait claim's refusal. */
static int waiting_claims(int fd)
{
    struct raw_reply r;
    if (raw_claim(fd, 0, &r) >= 0)
        return -1;
    const char *p = strstr(r.msg, "[");
    return p ? atoi(p + 1) : -1;
}

static void queue(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", "--quota", "1", NULL};
    daemon_pid = start(args);
    struct raw_reply r;
    int c1 = raw_hello(sock, NULL), c2 = raw_hello(sock, NULL), c3 = raw_hello(sock, NULL),
        probe = raw_hello(sock, NULL);
    int64_t first = raw_claim(c1, 0, &r);
    CHECK(first == 0 || first == 1);
    /* a rank is free, but this tenant (uid) holds its quota of one */
    CHECK_EQ(raw_claim(c1, 0, &r), -1);
    CHECK_REFUSED(r, "quota reached");
    /* the quota is the tenant's, not the connection's: c2 is the same user;
     * its claim waits its time, then a clear error */
    double t0 = now_ms();
    CHECK_EQ(raw_claim(c2, 300, &r), -1);
    CHECK(now_ms() - t0 >= 300);
    CHECK_REFUSED(r, "no rank within 300 ms: quota reached");
    /* a rank released is reset and available again; a client that goes has its rank reclaimed */
    struct opd_rank rel = {.rank = (uint32_t)first};
    raw_call(c1, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_EQ(r.status, OPD_OK);
    int other = raw_hello(sock, NULL);
    CHECK(raw_claim(other, 0, &r) >= 0);
    close(other);
    first = raw_claim(c1, 10000, &r);
    CHECK(first == 0 || first == 1);
    rel.rank = (uint32_t)first;
    /* FIFO: c2 then c3 wait; a release serves c2 first, then c3 only when c2 is done */
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = OPD_CLAIM, .seq = 1,
                           .len = sizeof(struct opd_claim)};
    struct opd_claim cl = {.wait_ms = 60000, .count = 1, .min = 1};
    uint8_t msg[sizeof h + sizeof cl];
    memcpy(msg, &h, sizeof h);
    memcpy(msg + sizeof h, &cl, sizeof cl);
    raw_send(c2, msg, sizeof msg, -1);
    double end = now_ms() + 60000;
    while (waiting_claims(probe) != 1 && now_ms() < end) {
    }
    raw_send(c3, msg, sizeof msg, -1);
    while (waiting_claims(probe) != 2 && now_ms() < end) {
    }
    CHECK_EQ(waiting_claims(probe), 2);
    raw_call(c1, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_EQ(r.status, OPD_OK);
    uint32_t got = 99;
    CHECK_EQ(raw_reply(c2, &r, &got, sizeof got), 0);
    CHECK(r.status == OPD_OK && got < 2);
    CHECK_EQ(waiting_claims(probe), 1); /* c3 still waits: a rank is free, the tenant's quota is not */
    close(c2);                          /* c2 goes: its rank is reclaimed, c3 is served */
    got = 99;
    CHECK_EQ(raw_reply(c3, &r, &got, sizeof got), 0);
    CHECK(r.status == OPD_OK && got < 2);
    close(c1);
    close(c3);
    /* a claimant that goes while it waits leaves the queue within
     * RM_GONE_CHECK_MS, not when its 60-s wait ends, and takes no rank */
    int a = raw_hello(sock, NULL), b = raw_hello(sock, NULL);
    end = now_ms() + 60000;
    while (raw_claim(a, 0, &r) < 0 && now_ms() < end) { /* c3's rank is being reclaimed */
    }
    raw_send(b, msg, sizeof msg, -1); /* waits: the tenant is at its quota */
    while (waiting_claims(probe) != 1 && now_ms() < end) {
    }
    CHECK_EQ(waiting_claims(probe), 1);
    close(b);
    double gone_at = now_ms();
    while (waiting_claims(probe) != 0 && now_ms() < gone_at + 10000) {
    }
    CHECK_EQ(waiting_claims(probe), 0);
    close(a); /* its rank goes back; a newcomer that does not wait finds no ghost ahead of it */
    int n = raw_hello(sock, NULL);
    end = now_ms() + 60000;
    int64_t rank = -1;
    while ((rank = raw_claim(n, 0, &r)) < 0 && strstr(r.msg, "quota") && now_ms() < end) { /* a's rank reclaimed */
    }
    CHECK(rank == 0 || rank == 1);
    close(n);
    close(probe);
}

/* Sends raw bytes on a fresh connection; the reply (if any) and whether the
 * daemon then closed the connection. */
static int raw_bytes(const void *bytes, size_t len, struct raw_reply *r, int *closed)
{
    int fd = raw_connect(sock);
    raw_send(fd, bytes, len, -1);
    int rc = raw_reply(fd, r, NULL, 0);
    char c;
    *closed = recv(fd, &c, 1, 0) == 0;
    close(fd);
    return rc;
}

/* A new client can still HELLO and claim and release. */
static void still_serving(void)
{
    struct raw_reply r;
    int fd = raw_hello(sock, NULL);
    CHECK(fd >= 0);
    if (fd >= 0) {
        int64_t rank = raw_claim(fd, 10000, &r);
        CHECK(rank == 0);
        close(fd);
    }
}

static void malformed(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    struct raw_reply r;
    int closed;
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = OPD_MEMORY, .seq = 5};
    struct opd_header bad = h;
    bad.magic = 0x12345678;
    CHECK_EQ(raw_bytes(&bad, sizeof bad, &r, &closed), 0);
    CHECK_REFUSED(r, "magic");
    CHECK(closed);
    bad = h;
    bad.version = 7;
    raw_bytes(&bad, sizeof bad, &r, &closed);
    CHECK_REFUSED(r, "version 7 is not supported");
    CHECK(closed);
    bad = h;
    bad.op = 99;
    raw_bytes(&bad, sizeof bad, &r, &closed);
    CHECK_REFUSED(r, "unknown request");
    bad = h;
    bad.len = 1ull << 40;
    raw_bytes(&bad, sizeof bad, &r, &closed);
    CHECK_REFUSED(r, "over the limit");
    CHECK(closed);
    bad = h;
    bad.status = 1;
    raw_bytes(&bad, sizeof bad, &r, &closed);
    CHECK_REFUSED(r, "status");
    /* truncated header, truncated payload: the connection just ends */
    int fd = raw_connect(sock);
    raw_send(fd, &h, 10, -1);
    close(fd);
    fd = raw_connect(sock);
    bad = h;
    bad.op = OPD_READ;
    bad.len = sizeof(struct opd_read);
    raw_send(fd, &bad, sizeof bad, -1);
    raw_send(fd, "abc", 3, -1);
    close(fd);
    still_serving();

    /* one connection: each bad request is refused, the connection goes on */
    struct opd_hello_reply hr;
    fd = raw_hello(sock, &hr);
    struct opd_hello bad_layout = {.layout = OPD_LAYOUT + 1};
    raw_call(fd, OPD_HELLO, &bad_layout, sizeof bad_layout, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "different OpenPIM");
    CHECK_EQ(raw_claim(fd, 10000, &r), 0);
    uint8_t buf[4096];
    memset(buf, 0x42, sizeof buf);
    raw_call(fd, OPD_READ, buf, 4, NULL, 0, NULL, 0, -1, &r, NULL, 0); /* fixed part too short */
    CHECK_REFUSED(r, "the request needs");
    r = read_mem(fd, 1000, OP_REGION_MRAM, 0, 8, buf);
    CHECK_REFUSED(r, "no DPU 1000");
    r = read_mem(fd, 0, OP_REGION_MRAM, (uint32_t)hr.info.mram_size - 4, 8, buf);
    CHECK_REFUSED(r, "outside");
    r = read_mem(fd, 0, OP_REGION_WRAM, 0xffffffffu, 8, buf);
    CHECK_REFUSED(r, "outside");
    r = read_mem(fd, 0, OP_REGION_IRAM, 0, 8, buf);
    CHECK_REFUSED(r, "cannot be read");
    struct opd_read big = {.dpu = 0, .region = OP_REGION_MRAM, .len = 1u << 30};
    raw_call(fd, OPD_READ, &big, sizeof big, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "inline data");
    big.data.where = OPD_SHM;
    raw_call(fd, OPD_READ, &big, sizeof big, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "no window");
    big.data.where = 7;
    raw_call(fd, OPD_READ, &big, sizeof big, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "neither inline nor shared");
    uint32_t dpus[3] = {0, 1, 1};
    struct opd_write w = {.region = OP_REGION_MRAM, .off = 0, .n = 2, .nsrc = 3, .len = 16};
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, buf, 48, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "3 sources for 2 DPUs");
    w.nsrc = 1;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, buf, 15, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "carries 15 bytes");
    w.n = 3;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 3, buf, 16, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "named twice");
    w.n = 2;
    w.region = OP_REGION_IRAM;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, buf, 16, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "cannot be written");
    w.region = OP_REGION_MRAM;
    w.off = (uint32_t)hr.info.mram_size - 8;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, buf, 16, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "outside");
    w.off = 0;
    w.n = 70000;
    raw_call(fd, OPD_WRITE, &w, sizeof w, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "more than");
    w.n = 40;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 3, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "truncated");
    w.n = 2;
    w.len = 1u << 20;
    w.data.where = OPD_SHM;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "no window");
    struct opd_count lc = {.n = 3};
    raw_call(fd, OPD_LAUNCH, &lc, sizeof lc, dpus, 3, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "named twice");
    lc.n = 1;
    raw_call(fd, OPD_LAUNCH, &lc, sizeof lc, dpus, 1, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "no program"); /* the backend's own check */
    struct opd_load ld = {.handle = 77, .n = 1};
    raw_call(fd, OPD_LOAD, &ld, sizeof ld, dpus, 1, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "no program 77");
    struct opd_handle ph = {.handle = 0};
    raw_call(fd, OPD_PROGRAM_CLOSE, &ph, sizeof ph, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "no program 0");
    struct opd_program pg = {.len = 100};
    raw_call(fd, OPD_PROGRAM_OPEN, &pg, sizeof pg, NULL, 0, buf, 100, -1, &r, NULL, 0);
    CHECK(r.status == OPD_ERROR); /* not an ELF file */
    struct opd_view v = {.off = 4, .size = 64};
    for (uint32_t i = 0; i < 8; i++)
        v.dpus[i] = i;
    raw_call(fd, OPD_VIEW_READ, &v, sizeof v, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "whole lines");
    struct opd_rank rel = {.rank = 5};
    raw_call(fd, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "not yours");
    /* windows: none passed, not sealed, too small */
    struct opd_shm sh = {.size = 1 << 20};
    raw_call(fd, OPD_SHM_ATTACH, &sh, sizeof sh, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "no descriptor");
    int m = memfd_create("unsealed", MFD_CLOEXEC);
    CHECK(ftruncate(m, 1 << 20) == 0);
    raw_call(fd, OPD_SHM_ATTACH, &sh, sizeof sh, NULL, 0, NULL, 0, m, &r, NULL, 0);
    CHECK_REFUSED(r, "sealed");
    close(m);
    m = memfd_create("small", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    CHECK(ftruncate(m, 4096) == 0 && fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK) == 0);
    raw_call(fd, OPD_SHM_ATTACH, &sh, sizeof sh, NULL, 0, NULL, 0, m, &r, NULL, 0);
    CHECK_REFUSED(r, "fewer than");
    close(m);
    sh.size = 0;
    raw_call(fd, OPD_SHM_ATTACH, &sh, sizeof sh, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "window of 0 bytes");
    /* a window, and transfers outside it */
    uint8_t *map;
    CHECK_EQ(raw_window(fd, 1 << 16, &map), 0);
    w.len = 4096;
    w.data.shm_off = (1 << 16) - 4096 + 1;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "shared-memory window");
    w.data.shm_off = ~0ull;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "shared-memory window");
    /* nothing of it was written: the rank is as clean as it was given */
    munmap(map, 1 << 16);
    check_rank_clean(fd, 0, &hr);
    /* and the connection still works (with a new window: the check used its own) */
    CHECK_EQ(raw_window(fd, 1 << 16, &map), 0);
    memset(map, 0x3c, 4096);
    w.data.shm_off = 0;
    raw_call(fd, OPD_WRITE, &w, sizeof w, dpus, 2, NULL, 0, -1, &r, NULL, 0);
    CHECK_EQ(r.status, OPD_OK);
    memset(buf, 0, sizeof buf);
    r = read_mem(fd, 1, OP_REGION_MRAM, 0, 4096, buf);
    CHECK_EQ(r.status, OPD_OK);
    CHECK(buf[0] == 0x3c && buf[4095] == 0x3c);
    munmap(map, 1 << 16);
    close(fd);
    still_serving();
}

static void shutdown_scenario(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    int to_l[2], from_l[2];
    CHECK(pipe(to_l) == 0 && pipe(from_l) == 0);
    char errlog[160];
    snprintf(errlog, sizeof errlog, "%s/tenant.err", dir);
    pid_t l = fork();
    if (l == 0) {
        int e = open(errlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(e, 2);
        struct dpu_set_t set;
        CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_OK);
        tenant_rounds(set, 5, 1);
        put(from_l[1], 'R');
        get(to_l[0]);
        uint64_t sum;
        struct dpu_set_t dpu;
        DPU_FOREACH(set, dpu) {
            CHECK(dpu_copy_from(dpu, "sum", 0, &sum, sizeof sum) != DPU_OK); /* the daemon is gone */
            break;
        }
        _exit(check_done("tenant L"));
    }
    CHECK_EQ(get(from_l[0]), 'R');
    struct raw_reply r;
    int idle = raw_hello(sock, NULL), waiter = raw_hello(sock, NULL), probe = raw_hello(sock, NULL);
    CHECK_EQ(raw_claim(idle, 0, &r) >= 0, 1);
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = OPD_CLAIM, .seq = 1,
                           .len = sizeof(struct opd_claim)};
    struct opd_claim cl = {.wait_ms = 60000, .count = 1, .min = 1};
    uint8_t msg[sizeof h + sizeof cl];
    memcpy(msg, &h, sizeof h);
    memcpy(msg + sizeof h, &cl, sizeof cl);
    raw_send(waiter, msg, sizeof msg, -1);
    double end = now_ms() + 60000;
    while (waiting_claims(probe) != 1 && now_ms() < end) {
    }
    CHECK_EQ(stop_daemon(daemon_pid), 0);
    daemon_pid = 0;
    struct stat st;
    CHECK(stat(sock, &st) != 0); /* the socket is gone */
    /* the waiting claim got an error or the goodbye; the idle client the goodbye */
    CHECK_EQ(raw_reply(waiter, &r, NULL, 0), 0);
    CHECK(r.status == OPD_ERROR || r.status == OPD_BYE);
    CHECK(strstr(r.msg, "shutting down") != NULL);
    CHECK_EQ(raw_reply(idle, &r, NULL, 0), 0);
    CHECK_EQ(r.status, OPD_BYE);
    CHECK(strstr(r.msg, "shutting down") != NULL);
    close(idle);
    close(waiter);
    close(probe);
    put(to_l[1], 'G');
    CHECK_EQ(wait_child(l), 0);
    FILE *f = fopen(errlog, "r");
    char line[512];
    int told = 0;
    while (f && fgets(line, sizeof line, f))
        told |= strstr(line, "openpimd is shutting down") != NULL;
    if (f)
        fclose(f);
    CHECK(told); /* the program was told why */
    CHECK(log_has("stopping (Terminated)") && log_has("stopped"));
    /* a new daemon serves the same path */
    daemon_pid = start(args);
    still_serving();
}

/* The profile's channels: a profile that names no machine takes the
 * daemon's; one that names the daemon's works; one that names another, or a
 * socket where no daemon is, fails with a clear error. */
static void profile_keys(void)
{
    const char *args[] = {"--machine", "nrRanks=2,nrDpusPerRank=8", "--workers", "1", NULL};
    daemon_pid = start(args);
    struct dpu_set_t set;
    uint32_t nr = 0;
    CHECK_EQ(dpu_alloc(DPU_ALLOCATE_ALL, profile, &set), DPU_OK); /* the daemon's machine, all of it */
    CHECK_EQ(dpu_get_nr_dpus(set, &nr), DPU_OK);
    CHECK_EQ(nr, 2 * PER_RANK);
    CHECK_EQ(dpu_free(set), DPU_OK);
    char p[400];
    snprintf(p, sizeof p, "%s,nrRanks=2,nrDpusPerRank=8", profile);
    CHECK_EQ(dpu_alloc_ranks(1, p, &set), DPU_OK);
    CHECK_EQ(tenant_rounds(set, 3, 1), 0);
    CHECK_EQ(dpu_free(set), DPU_OK);
    snprintf(p, sizeof p, "%s,chip=v1B", profile);
    CHECK_EQ(dpu_alloc_ranks(1, p, &set), DPU_ERR_INVALID_PROFILE);
    CHECK(strstr(openpim_last_error(), "serves a v1A machine of 2 ranks of 8 DPUs") != NULL);
    snprintf(p, sizeof p, "backend=remote,socket=%s/nobody.sock", dir);
    CHECK_EQ(dpu_alloc_ranks(1, p, &set), DPU_ERR_ALLOCATION);
    CHECK(strstr(openpim_last_error(), "cannot reach openpimd") != NULL);
    setenv("OPENPIM_SOCKET", sock, 1); /* the socket from the environment */
    CHECK_EQ(dpu_alloc_ranks(2, "backend=remote", &set), DPU_OK);
    CHECK_EQ(dpu_alloc_ranks(1, "backend=remote", &set), DPU_ERR_ALLOCATION); /* all taken: at once, no wait */
    unsetenv("OPENPIM_SOCKET");
}

/* --machine applies keys as the SDK's profile does: chip and desc_file, then
 * server (which resets every server key), then the rest, whatever their order
 * in the text; a client naming the same keys in another order gets the same
 * machine (the descriptions are compared byte for byte). */
static void server_order(void)
{
    const char *args[] = {"--machine", "h2d_serial_gbps=0.5,nrRanks=1,server=prim,nrDpusPerRank=8", "--workers", "1",
                          NULL};
    daemon_pid = start(args);
    struct dpu_set_t set;
    char p[400];
    snprintf(p, sizeof p, "%s,nrRanks=1,h2d_serial_gbps=0.5,nrDpusPerRank=8,server=prim", profile);
    CHECK_EQ(dpu_alloc_ranks(1, p, &set), DPU_OK);
    CHECK_EQ(dpu_free(set), DPU_OK);
    snprintf(p, sizeof p, "%s,server=prim,nrRanks=1,nrDpusPerRank=8", profile); /* prim's own serial rate */
    CHECK_EQ(dpu_alloc_ranks(1, p, &set), DPU_ERR_INVALID_PROFILE);
}

/* Batched small writes (OPENPIM_REMOTE_BATCH=1): what only the daemon can
 * refuse (its host memory limit) fails the request that sends the batch, with
 * the reason; without batching, the write itself fails. */
static int fill_pages(struct dpu_set_t dpu, unsigned pages)
{
    uint64_t v = 0x1234;
    for (unsigned k = 0; k < pages; k++)
        if (dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, k * 4096u, &v, sizeof v) != DPU_OK)
            return (int)k;
    return -1;
}

static void batch(void)
{
    const char *args[] = {"--machine", "nrRanks=1,nrDpusPerRank=8", "--workers", "1", "--memory-limit-mb", "2", NULL};
    daemon_pid = start(args);
    for (int way = 0; way < 3; way++) { /* off; on by the environment; on by the profile key remoteBatch */
        int batched = way > 0;
        if (way == 1)
            setenv("OPENPIM_REMOTE_BATCH", "1", 1);
        else
            unsetenv("OPENPIM_REMOTE_BATCH");
        char p[400];
        /* the previous child's rank comes back once the daemon has seen it go: wait for it */
        snprintf(p, sizeof p, "%s,allocWaitMs=10000%s", profile, way == 2 ? ",remoteBatch=true" : "");
        pid_t kid = fork();
        if (kid == 0) {
            struct dpu_set_t set, dpu;
            CHECK_EQ(dpu_alloc_ranks(1, p, &set), DPU_OK);
            CHECK_EQ(dpu_load(set, dpu_program, NULL), DPU_OK);
            DPU_FOREACH(set, dpu) {
                break;
            }
            /* 2 MB of 4 KB pages cannot all be backed under a 2 MB limit (the WRAMs use some) */
            int failed_at = fill_pages(dpu, 512);
            char write_error[512];
            snprintf(write_error, sizeof write_error, "%s", openpim_last_error());
            uint64_t v = 0;
            dpu_error_t rd = dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, &v, sizeof v);
            if (!batched) {
                CHECK(failed_at > 0); /* the write itself is refused */
                CHECK(strstr(write_error, "host memory limit reached") != NULL);
                CHECK_EQ(rd, DPU_OK);
                CHECK_EQ(v, 0x1234);
            } else {
                CHECK_EQ(failed_at, -1); /* kept: the next request reports it */
                CHECK(rd != DPU_OK);
                CHECK(strstr(openpim_last_error(), "an earlier write (batched") != NULL);
                CHECK(strstr(openpim_last_error(), "host memory limit reached") != NULL);
                /* the connection goes on: what was written before the refused one is there */
                CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, &v, sizeof v), DPU_OK);
                CHECK_EQ(v, 0x1234);
            }
            _exit(check_done(batched ? "batched" : "unbatched"));
        }
        CHECK_EQ(wait_child(kid), 0);
    }
    unsetenv("OPENPIM_REMOTE_BATCH");
}

/* Large transfers go through the window in pipelined pieces (two requests in
 * flight): one DPU's 40 MB, a 64-DPU push of 1 MB each, a 20 MB broadcast and
 * a 3 MB write past the host memory limit (refused whole: nothing written). */
static void large(void)
{
    const char *args[] = {"--machine", "nrRanks=1", "--workers", "1", "--memory-limit-mb", "600", NULL};
    daemon_pid = start(args);
    struct dpu_set_t set, dpu;
    CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, dpu_program, NULL), DPU_OK);
    const size_t big = 40u << 20, per = 1u << 20;
    uint32_t *buf = malloc(big), *back = malloc(big);
    for (size_t i = 0; i < big / 4; i++)
        buf[i] = (uint32_t)(i * 2654435761u);
    uint32_t nr = 0;
    DPU_FOREACH(set, dpu, nr) {
        if (nr == 5) {
            CHECK_EQ(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 4096, buf, big), DPU_OK);
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 4096, back, big), DPU_OK);
            CHECK(memcmp(buf, back, big) == 0);
        }
    }
    DPU_FOREACH(set, dpu, nr) {
        CHECK_EQ(dpu_prepare_xfer(dpu, buf + nr % 39 * (per / 4)), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 48u << 20, per, DPU_XFER_DEFAULT), DPU_OK);
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, buf + 7, 20u << 20, DPU_XFER_DEFAULT), DPU_OK);
    DPU_FOREACH(set, dpu, nr) {
        if (nr % 21 == 0) {
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 48u << 20, back, per), DPU_OK);
            CHECK(memcmp(back, buf + nr % 39 * (per / 4), per) == 0);
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, back, 20u << 20), DPU_OK);
            CHECK(memcmp(back, buf + 7, 20u << 20) == 0);
        }
    }
    /* 64 x 12 MB more cannot fit under 600 MB: refused before any piece is sent */
    uint64_t marker = 0x1122334455667788ull, seen = 0;
    DPU_FOREACH(set, dpu, nr) {
        CHECK_EQ(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 50u << 20, &marker, 8), DPU_OK);
        CHECK_EQ(dpu_prepare_xfer(dpu, buf), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 50u << 20, 12u << 20, DPU_XFER_DEFAULT),
             DPU_ERR_SYSTEM);
    CHECK(strstr(openpim_last_error(), "host memory limit") != NULL);
    DPU_FOREACH(set, dpu, nr) {
        CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 50u << 20, &seen, 8), DPU_OK);
        CHECK_EQ(seen, marker);
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
    free(buf);
    free(back);
}

/* Runs openpimctl (beside openpimd) with args on the test's daemon: its exit
 * status, its output (stdout and stderr) in out. */
static char ctl_copy[128]; /* openpimctl where an unprivileged user can run it (see ctl) */

static int openpimctl(const char *args, char *out, size_t cap)
{
    char cmd[1024];
    const char *slash = strrchr(daemon_path, '/');
    if (*ctl_copy)
        snprintf(cmd, sizeof cmd, "%s --socket %s %s 2>&1", ctl_copy, sock, args);
    else
        snprintf(cmd, sizeof cmd, "%.*sopenpimctl --socket %s %s 2>&1", slash ? (int)(slash - daemon_path + 1) : 0,
                 daemon_path, sock, args);
    FILE *f = popen(cmd, "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    out[n] = 0;
    int st = f ? pclose(f) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* openpimctl: status shows each rank's state and tenant, the waiting claims
 * and what each tenant holds; a drained free rank goes to no one, a drained
 * allocated rank stays with its tenant and is drained once released; undrain
 * puts a rank back; only operators may look or drain. */
static void ctl(void)
{
    const char *args[] = {"--machine", "nrRanks=3,nrDpusPerRank=8", "--workers", "1", "--socket-mode", "666", NULL};
    daemon_pid = start(args);
    char out[4096], p[400];
    CHECK_EQ(openpimctl("status", out, sizeof out), 0);
    CHECK(strstr(out, "0      available") && strstr(out, "2      available") && strstr(out, "claims waiting: 0"));
    CHECK_EQ(openpimctl("drain 1", out, sizeof out), 0);
    CHECK_EQ(openpimctl("status", out, sizeof out), 0);
    CHECK(strstr(out, "1      drained    -                -          yes") != NULL);
    struct dpu_set_t set, more;
    snprintf(p, sizeof p, "%s,allocWaitMs=200", profile);
    CHECK_EQ(dpu_alloc_ranks(2, p, &set), DPU_OK); /* ranks 0 and 2: 1 is drained */
    CHECK_EQ(dpu_alloc_ranks(1, p, &more), DPU_ERR_ALLOCATION);
    CHECK(strstr(openpim_last_error(), "no rank became free within 200 ms") != NULL);
    CHECK_EQ(openpimctl("status", out, sizeof out), 0);
    char line[128];
    snprintf(line, sizeof line, "2      allocated  uid:%u", (unsigned)getuid());
    CHECK(strstr(out, line) != NULL);
    snprintf(line, sizeof line, "tenant uid:%u holds 2 rank(s)", (unsigned)getuid());
    CHECK(strstr(out, line) != NULL);
    /* drained while allocated: the tenant keeps it until it lets go */
    CHECK_EQ(openpimctl("drain 2", out, sizeof out), 0);
    CHECK_EQ(openpimctl("status", out, sizeof out), 0);
    CHECK(strstr(out, "2      allocated") != NULL && strstr(out, " yes\n") != NULL);
    CHECK_EQ(tenant_rounds(set, 5, 1), 0);
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(openpimctl("status", out, sizeof out), 0);
    CHECK(strstr(out, "0      available") && strstr(out, "2      drained"));
    CHECK_EQ(openpimctl("undrain 1", out, sizeof out), 0);
    CHECK_EQ(dpu_alloc_ranks(2, p, &set), DPU_OK); /* 0 and 1 */
    CHECK_EQ(dpu_alloc_ranks(1, p, &more), DPU_ERR_ALLOCATION);
    CHECK(strstr(openpim_last_error(), "no rank became free within 200 ms") != NULL);
    CHECK_EQ(dpu_free(set), DPU_OK);
    /* bad arguments: a clear error, nothing changed */
    CHECK_EQ(openpimctl("drain 3", out, sizeof out), 1);
    CHECK(strstr(out, "no rank 3") != NULL);
    CHECK_EQ(openpimctl("drain x1", out, sizeof out), 1);
    CHECK(strstr(out, "not a rank number") != NULL);
    CHECK_EQ(openpimctl("frobnicate", out, sizeof out), 2);
    CHECK_EQ(openpimctl("status", out, sizeof out), 0);
    CHECK(strstr(out, "2      drained") != NULL);
    /* a tenant that is not an operator sees nothing and drains nothing */
    if (geteuid() == 0) {
        CHECK_EQ(chmod(dir, 0711), 0); /* the test's socket directory: nobody may reach the socket */
        /* the build tree may sit where nobody cannot enter (a fresh clone in a mkdtemp folder, mode 0700):
         * nobody runs a copy of openpimctl from the socket directory */
        char src[512], buf[65536];
        const char *slash = strrchr(daemon_path, '/');
        snprintf(src, sizeof src, "%.*sopenpimctl", slash ? (int)(slash - daemon_path + 1) : 0, daemon_path);
        snprintf(ctl_copy, sizeof ctl_copy, "%s/openpimctl", dir);
        int in = open(src, O_RDONLY), cp = open(ctl_copy, O_WRONLY | O_CREAT | O_TRUNC, 0755);
        CHECK(in >= 0 && cp >= 0);
        for (ssize_t k; in >= 0 && cp >= 0 && (k = read(in, buf, sizeof buf)) > 0;)
            CHECK_EQ(write(cp, buf, (size_t)k), k);
        close(in), close(cp);
        pid_t kid = fork();
        if (kid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(3);
            CHECK_EQ(openpimctl("status", out, sizeof out), 1);
            CHECK(strstr(out, "operators only") != NULL);
            CHECK_EQ(openpimctl("undrain 2", out, sizeof out), 1);
            _exit(check_done("ctl (nobody)"));
        }
        CHECK_EQ(wait_child(kid), 0);
        CHECK_EQ(unlink(ctl_copy), 0);
        *ctl_copy = 0;
        CHECK_EQ(openpimctl("status", out, sizeof out), 0);
        CHECK(strstr(out, "2      drained") != NULL);
    } else {
        fprintf(stderr, "ctl: not root, the non-operator case needs another uid: not run\n");
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s SCENARIO OPENPIMD DPU_PROGRAM\n", argv[0]);
        return 2;
    }
    daemon_path = argv[2];
    dpu_program = argv[3];
    if (scenario_folder("test") != 0)
        return 2;
    snprintf(profile, sizeof profile, "backend=remote,socket=%s", sock);
    static const struct scenario scenarios[] = {
        {"isolation", isolation}, {"kill", kill_mid_transfer}, {"tenants", tenants},
        {"queue", queue},         {"malformed", malformed},    {"shutdown", shutdown_scenario},
        {"profile", profile_keys}, {"batch", batch},            {"large", large},
        {"ctl", ctl},             {"server_order", server_order}, {"memory_private", memory_private},
        {"release_then_claim", release_then_claim}, {"gather", gather}};
    return scenario_run(argv[1], scenarios, sizeof scenarios / sizeof *scenarios);
}
