/* SPDX-License-Identifier: MIT */
/* openpimd for virtual machines, on the host: what a guest does through
 * vhost-device-vsock arrives as UNIX connections on a guest socket, so a
 * client that connects there directly plays a guest exactly (the VM itself
 * is tests/vm).  Each scenario starts its own daemon on a temporary folder.
 *
 *   test_guest SCENARIO OPENPIMD DPU_PROGRAM BIG_DPU_PROGRAM
 *
 * stream   remoteStream=true: no shared memory, bulk data streams through the
 *          daemon's window (WINDOW_PUT/GET, many in flight): large, unaligned
 *          and partial-rank transfers, a broadcast, the prefetch's gathers, the
 *          rank view and a DPU program over 64 KB, every byte checked against
 *          the host's copy (and the view against its documented layout)
 * guest    tokens: a guest socket refuses no token, a wrong or revoked one
 *          and anything before HELLO, with a clear error at the client; a
 *          token's tenant has its own quota although every guest connection
 *          has the same peer credentials (the backend's), cannot touch another
 *          tenant's rank, is never an operator, cannot change at a second
 *          HELLO; a UNIX client with a token is that token's tenant; a store
 *          others may read is refused
 * vsock    profile keys vsock=CID:PORT (bad CIDs and ports refused with the
 *          limits named), token= and their conflicts with socket= */
#include "scenario.h"

#include <dpu.h>
#include <openpim_ext.h>

static const char *dpu_program, *big_program;
static char guest_sock[128], store[128];

#define PER_RANK 8

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)mix(seed * 2654435761u + (uint32_t)i);
}

/* ---- stream --------------------------------------------------------------------- */

/* Large pushes and reads of a 13-DPU set (part of a rank), each DPU's data
 * its own, sizes that are no multiple of any piece (8-byte aligned, as MRAM
 * transfers must be). */
static void stream_partial_rank(const char *profile)
{
    struct dpu_set_t set, dpu;
    uint32_t nr = 0, i;
    CHECK_EQ(dpu_alloc(13, profile, &set), DPU_OK);
    CHECK_EQ(dpu_get_nr_dpus(set, &nr), DPU_OK);
    CHECK_EQ(nr, 13);
    CHECK_EQ(dpu_load(set, dpu_program, NULL), DPU_OK);
    const size_t per = (3u << 20) + 40; /* 39 MB in all: pipelined, 4 MB pieces */
    uint8_t *data = malloc(13 * per), *back = malloc(13 * per);
    fill(data, 13 * per, 1);
    DPU_FOREACH(set, dpu, i) {
        CHECK_EQ(dpu_prepare_xfer(dpu, data + i * per), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_TO_DPU, DPU_MRAM_HEAP_POINTER_NAME, 8, per, DPU_XFER_DEFAULT), DPU_OK);
    memset(back, 0, 13 * per);
    DPU_FOREACH(set, dpu, i) {
        CHECK_EQ(dpu_prepare_xfer(dpu, back + i * per), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 8, per, DPU_XFER_DEFAULT), DPU_OK);
    CHECK(memcmp(data, back, 13 * per) == 0);
    /* a broadcast of 5 MB + 24 bytes, and reads of one piece, of a 100 KB window read, of 8 bytes */
    const size_t bsize = (5u << 20) + 24;
    fill(data, bsize, 2);
    CHECK_EQ(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 16u << 20, data, bsize, DPU_XFER_DEFAULT), DPU_OK);
    DPU_FOREACH(set, dpu, i) {
        if (i % 6 == 0) {
            memset(back, 0, bsize);
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 16u << 20, back, bsize), DPU_OK);
            CHECK(memcmp(data, back, bsize) == 0);
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, (16u << 20) + 4096, back, 100000), DPU_OK);
            CHECK(memcmp(data + 4096, back, 100000) == 0);
            uint64_t word = 0, want;
            memcpy(&want, data + bsize - 8, 8);
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, (16u << 20) + bsize - 8, &word, 8), DPU_OK);
            CHECK_EQ(word, want);
        }
    }
    /* small reads DPU after DPU: the prefetch gathers 12 x 8 KB (over 64 KB: through the window) */
    const size_t small = 8192;
    memset(back, 0, 13 * small);
    DPU_FOREACH(set, dpu, i) {
        CHECK_EQ(dpu_prepare_xfer(dpu, back + i * small), DPU_OK);
    }
    CHECK_EQ(dpu_push_xfer(set, DPU_XFER_FROM_DPU, DPU_MRAM_HEAP_POINTER_NAME, 8 + 4096, small, DPU_XFER_DEFAULT),
             DPU_OK);
    fill(data, 13 * per, 1); /* what the first push wrote there */
    for (i = 0; i < 13; i++)
        CHECK(memcmp(back + i * small, data + i * per + 4096, small) == 0);
    /* one DPU: 40 MB + 8 bytes each way */
    const size_t big = (40u << 20) + 8;
    uint8_t *one = malloc(big), *one_back = calloc(1, big);
    fill(one, big, 3);
    DPU_FOREACH(set, dpu, i) {
        if (i == 7) {
            CHECK_EQ(dpu_copy_to(dpu, DPU_MRAM_HEAP_POINTER_NAME, 20u << 20, one, big), DPU_OK);
            CHECK_EQ(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 20u << 20, one_back, big), DPU_OK);
            CHECK(memcmp(one, one_back, big) == 0);
        }
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
    free(one);
    free(one_back);
    free(data);
    free(back);
}

/* A DPU program of over 64 KB (its ELF goes through the window) runs, and
 * its initialised MRAM table arrives whole. */
static void stream_big_program(const char *profile)
{
    struct dpu_set_t set, dpu;
    CHECK_EQ(dpu_alloc(3, profile, &set), DPU_OK);
    CHECK_EQ(dpu_load(set, big_program, NULL), DPU_OK);
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_OK);
    DPU_FOREACH(set, dpu) {
        uint64_t sum = 0;
        uint8_t b[8];
        CHECK_EQ(dpu_copy_from(dpu, "sum", 0, &sum, sizeof sum), DPU_OK);
        CHECK_EQ(sum, 32768ull * (0x11 + 0x22 + 0x33));
        CHECK_EQ(dpu_copy_from(dpu, "table", 65536 - 4, b, 8), DPU_OK);
        CHECK(b[0] == 0x22 && b[3] == 0x22 && b[4] == 0x33 && b[7] == 0x33);
    }
    CHECK_EQ(dpu_free(set), DPU_OK);
}

/* The rank view through the window: 8 groups x 192 KB + 64 of lines written,
 * then each DPU's MRAM read and compared with the documented layout (line i,
 * byte 8j + k = byte j of word i of the DPU on chip k), then read back. */
static void stream_view(const char *profile)
{
    struct dpu_set_t rank, dpu;
    CHECK_EQ(dpu_alloc_ranks(1, profile, &rank), DPU_OK);
    CHECK_EQ(dpu_load(rank, dpu_program, NULL), DPU_OK);
    struct dpu_symbol_t whole_mram = {.address = 0x08000000u, .size = 64u << 20}; /* MRAM from its start */
    const size_t size = (192u << 10) + 64, words = size / 64;
    uint8_t *lines = malloc(size), *back = malloc(size), *mram = malloc(words * 8);
    for (uint32_t g = 0; g < 8; g++) {
        fill(lines, size, 10 + g);
        CHECK_EQ(openpim_rank_view_write(rank, g, 4096, lines, size), DPU_OK);
        uint32_t i;
        DPU_FOREACH(rank, dpu, i) {
            if (i % 8 != g)
                continue;
            uint32_t chip = i / 8;
            CHECK_EQ(dpu_copy_from_symbol(dpu, whole_mram, 4096, mram, words * 8), DPU_OK);
            int same = 1;
            for (size_t w = 0; w < words; w++)
                for (uint32_t j = 0; j < 8; j++)
                    same &= mram[w * 8 + j] == lines[w * 64 + 8 * j + chip];
            CHECK(same);
        }
        memset(back, 0, size);
        CHECK_EQ(openpim_rank_view_read(rank, g, 4096, back, size), DPU_OK);
        CHECK(memcmp(lines, back, size) == 0);
    }
    CHECK_EQ(dpu_free(rank), DPU_OK);
    free(lines);
    free(back);
    free(mram);
}

static void stream(void)
{
    const char *args[] = {"--machine", "nrRanks=2", "--workers", "1", "--memory-limit-mb", "900", "-v", NULL};
    daemon_pid = start(args);
    char profile[256];
    snprintf(profile, sizeof profile, "backend=remote,socket=%s,remoteStream=true", sock);
    stream_partial_rank(profile);
    stream_big_program(profile);
    stream_view(profile);
    /* the daemon kept windows of its own memory for the streaming clients; none was a memfd */
    FILE *f = fopen(logpath, "r");
    char line[512];
    int memfd = 0, own = 0;
    while (f && fgets(line, sizeof line, f)) {
        memfd += strstr(line, "window: a shared memfd") != NULL;
        own += strstr(line, "window: in the daemon's memory (streamed)") != NULL;
    }
    if (f)
        fclose(f);
    CHECK_EQ(memfd, 0);
    CHECK(own >= 1);
}

/* ---- guest ------------------------------------------------------------------------ */

/* Runs openpimctl (beside openpimd) with args and the test's store: its exit
 * status; stdout in out, stderr appended when `both`. */
static int ctl(const char *args, int both, char *out, size_t cap)
{
    char cmd[1024];
    const char *slash = strrchr(daemon_path, '/');
    snprintf(cmd, sizeof cmd, "%.*sopenpimctl --socket %s --tokens %s %s %s",
             slash ? (int)(slash - daemon_path + 1) : 0, daemon_path, sock, store, args, both ? "2>&1" : "2>/dev/null");
    FILE *f = popen(cmd, "r");
    size_t n = f ? fread(out, 1, cap - 1, f) : 0;
    out[n] = 0;
    int st = f ? pclose(f) : -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void new_token(const char *name, char *token, size_t cap)
{
    char args[64];
    snprintf(args, sizeof args, "token add %s", name);
    CHECK_EQ(ctl(args, 0, token, cap), 0);
    token[strcspn(token, "\n")] = 0;
    CHECK_EQ(strlen(token), 69); /* "opm1_" and 64 hex digits */
}

/* A raw client past HELLO with a token, on path; -1 with the reply's message in r. */
static int raw_hello_token(const char *path, const char *token, struct raw_reply *r)
{
    int fd = raw_connect(path);
    if (fd < 0)
        return -1;
    struct opd_hello req;
    memset(&req, 0, sizeof req);
    req.layout = OPD_LAYOUT;
    snprintf(req.token, sizeof req.token, "%s", token);
    struct opd_hello_reply h;
    if (raw_call(fd, OPD_HELLO, &req, sizeof req, NULL, 0, NULL, 0, -1, r, &h, sizeof h) != 0 ||
        r->status != OPD_OK) {
        close(fd);
        return -1;
    }
    return fd;
}

#define CHECK_LAST_ERROR(what)                                                                          \
    do {                                                                                                \
        if (!strstr(openpim_last_error(), (what))) {                                                    \
            fprintf(stderr, "%s:%d: error '%s' lacks '%s'\n", __FILE__, __LINE__, openpim_last_error(),  \
                    (what));                                                                            \
            CHECK(0);                                                                                   \
        }                                                                                               \
    } while (0)

/* The daemon closed the connection: the end of the stream, or a reset (it
 * closed without reading all that was sent). */
static int closed(int fd)
{
    char c;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 5000) != 1)
        return 0;
    ssize_t k = recv(fd, &c, 1, 0);
    return k == 0 || (k < 0 && errno == ECONNRESET);
}

/* One round of a tenant's work on a set: data in, launch, sums out. */
static int tenant_round(struct dpu_set_t set, uint32_t seed)
{
    uint32_t data[2048], step = seed % 100, n = 2048;
    struct dpu_set_t dpu;
    int bad = 0;
    if (dpu_load(set, dpu_program, NULL) != DPU_OK)
        return 1;
    DPU_FOREACH(set, dpu) {
        for (uint32_t k = 0; k < 2048; k++)
            data[k] = mix(seed + k);
        bad |= dpu_copy_to(dpu, "data", 0, data, sizeof data) != DPU_OK;
    }
    bad |= dpu_broadcast_to(set, "step", 0, &step, sizeof step, DPU_XFER_DEFAULT) != DPU_OK;
    bad |= dpu_broadcast_to(set, "n", 0, &n, sizeof n, DPU_XFER_DEFAULT) != DPU_OK;
    bad |= dpu_launch(set, DPU_SYNCHRONOUS) != DPU_OK;
    uint64_t want = 0;
    for (uint32_t k = 0; k < 2048; k++)
        want += (uint32_t)(mix(seed + k) + step);
    DPU_FOREACH(set, dpu) {
        uint64_t sum = 0;
        bad |= dpu_copy_from(dpu, "sum", 0, &sum, sizeof sum) != DPU_OK || sum != want;
    }
    return bad;
}

static void guest(void)
{
    const char *args[] = {"--machine", "nrRanks=4,nrDpusPerRank=8", "--workers", "1", "--quota", "1",
                          "--guest-socket", guest_sock, "--tokens", store, NULL};
    char alice[128], bob[128], out[4096], profile[512], cmd[512];
    /* the store: created by the first token add, mode 0600, hashes only */
    new_token("alice", alice, sizeof alice);
    new_token("bob", bob, sizeof bob);
    struct stat st;
    CHECK_EQ(stat(store, &st), 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    snprintf(cmd, sizeof cmd, "printf %%s '%s' | sha256sum | cut -d' ' -f1 > %s/alice.sha", alice, dir);
    CHECK_EQ(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "grep -q \"^alice $(cat %s/alice.sha) [0-9]*$\" %s && ! grep -q '%s' %s", dir, store,
             alice + 5, store);
    CHECK_EQ(system(cmd), 0); /* the token's SHA-256 is there, the token is not */
    CHECK_EQ(ctl("token list", 0, out, sizeof out), 0);
    CHECK(strstr(out, "token:alice") && strstr(out, "token:bob"));
    CHECK_EQ(ctl("token add alice", 1, out, sizeof out), 1);
    CHECK(strstr(out, "already has a token") != NULL);
    CHECK_EQ(ctl("token add ../x", 1, out, sizeof out), 1);
    CHECK(strstr(out, "tenant name '../x'") != NULL);
    CHECK_EQ(ctl("token revoke carol", 1, out, sizeof out), 1);
    CHECK(strstr(out, "no tenant carol") != NULL);

    daemon_pid = start(args);
    struct openpim_session *sa = openpim_session_create(), *sb = openpim_session_create(),
                           *sl = openpim_session_create();
    struct dpu_set_t a, b, l, more;
    /* no token, a wrong one: refused, the reason at the client */
    openpim_session_use(sa);
    snprintf(profile, sizeof profile, "backend=remote,socket=%s", guest_sock);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &a), DPU_ERR_ALLOCATION);
    CHECK_LAST_ERROR("must present a token");
    snprintf(profile, sizeof profile, "backend=remote,socket=%s,token=opm1_%064d", guest_sock, 7);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &a), DPU_ERR_ALLOCATION);
    CHECK_LAST_ERROR("the token is not valid: unknown or revoked");
    CHECK(!strstr(openpim_last_error(), "opm1_0000")); /* never quoted */
    /* alice through the guest socket (the token from the environment) */
    snprintf(profile, sizeof profile, "backend=remote,socket=%s", guest_sock);
    setenv("OPENPIM_TOKEN", alice, 1);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &a), DPU_OK);
    unsetenv("OPENPIM_TOKEN");
    CHECK_EQ(tenant_round(a, 11), 0);
    struct openpim_session *s2 = openpim_session_create(); /* a second connection, the same tenant */
    openpim_session_use(s2);
    snprintf(profile, sizeof profile, "backend=remote,socket=%s,token=%s,allocWaitMs=100", guest_sock, alice);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &more), DPU_ERR_ALLOCATION);
    CHECK_LAST_ERROR("quota reached, tenant token:alice holds 1 rank(s)");
    /* bob: the same peer credentials (this process), another tenant, its own quota */
    openpim_session_use(sb);
    snprintf(profile, sizeof profile, "backend=remote,socket=%s,token=%s", guest_sock, bob);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &b), DPU_OK);
    CHECK_EQ(tenant_round(b, 12), 0);
    /* a local client without a token is its uid */
    openpim_session_use(sl);
    snprintf(profile, sizeof profile, "backend=remote,socket=%s", sock);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &l), DPU_OK);
    CHECK_EQ(tenant_round(l, 13), 0);
    /* a local client with alice's token is alice: her quota is spent */
    openpim_session_use(s2);
    snprintf(profile, sizeof profile, "backend=remote,socket=%s,token=%s,allocWaitMs=100", sock, alice);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &more), DPU_ERR_ALLOCATION);
    CHECK_LAST_ERROR("quota reached, tenant token:alice");
    openpim_session_use(NULL);
    openpim_session_destroy(s2);
    CHECK_EQ(ctl("status", 1, out, sizeof out), 0);
    char line[128];
    snprintf(line, sizeof line, "tenant uid:%u holds 1 rank(s)", (unsigned)getuid());
    CHECK(strstr(out, "tenant token:alice holds 1 rank(s)") && strstr(out, "tenant token:bob holds 1 rank(s)") &&
          strstr(out, line));
    if (!strstr(out, "tenant token:alice"))
        fprintf(stderr, "%s", out);

    /* raw guests: bob cannot touch alice's rank and is no operator */
    struct raw_reply r;
    int fd = raw_hello_token(guest_sock, bob, &r);
    CHECK(fd >= 0);
    struct opd_status_reply head;
    uint8_t status[sizeof head + 4 * sizeof(struct opd_rank_status)];
    raw_call(fd, OPD_STATUS, NULL, 0, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "operators only");
    int local = raw_hello(sock, NULL); /* the operator (this uid) finds alice's rank */
    CHECK(local >= 0);
    raw_call(local, OPD_STATUS, NULL, 0, NULL, 0, NULL, 0, -1, &r, status, sizeof status);
    CHECK(r.status == OPD_OK);
    int64_t alice_rank = -1;
    for (uint32_t k = 0; k < 4; k++) {
        struct opd_rank_status rs;
        memcpy(&rs, status + sizeof head + k * sizeof rs, sizeof rs);
        if (!strcmp(rs.tenant, "token:alice"))
            alice_rank = k;
    }
    CHECK(alice_rank >= 0);
    uint32_t victim = (uint32_t)alice_rank * PER_RANK + 3, word = 0;
    struct opd_read rd = {.dpu = victim, .region = OP_REGION_MRAM, .off = 0, .len = 4};
    raw_call(fd, OPD_READ, &rd, sizeof rd, NULL, 0, NULL, 0, -1, &r, &word, sizeof word);
    CHECK_REFUSED(r, "which is not yours");
    struct opd_write wr = {.region = OP_REGION_MRAM, .off = 0, .n = 1, .nsrc = 1, .len = 4};
    raw_call(fd, OPD_WRITE, &wr, sizeof wr, &victim, 1, &word, 4, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "which is not yours");
    struct opd_rank rel = {.rank = (uint32_t)alice_rank};
    raw_call(fd, OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "is not yours");
    /* a second HELLO cannot change the tenant */
    struct opd_hello hello;
    memset(&hello, 0, sizeof hello);
    hello.layout = OPD_LAYOUT;
    snprintf(hello.token, sizeof hello.token, "%s", alice);
    raw_call(fd, OPD_HELLO, &hello, sizeof hello, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "tenant cannot change (it is token:bob)");
    CHECK(closed(fd));
    close(fd);
    close(local);
    /* anything before HELLO on a guest socket: refused, closed */
    fd = raw_connect(guest_sock);
    struct opd_claim claim = {.wait_ms = 0};
    raw_call(fd, OPD_CLAIM, &claim, sizeof claim, NULL, 0, NULL, 0, -1, &r, NULL, 0);
    CHECK_REFUSED(r, "must begin with HELLO and its token");
    CHECK(closed(fd));
    close(fd);
    /* a wrong token: refused, closed */
    CHECK_EQ(raw_hello_token(guest_sock, "opm1_nonsense", &r), -1);
    CHECK_REFUSED(r, "the token is not valid");
    /* revoked: refused from the next connection on */
    CHECK_EQ(ctl("token revoke bob", 0, out, sizeof out), 0);
    CHECK_EQ(raw_hello_token(guest_sock, bob, &r), -1);
    CHECK_REFUSED(r, "the token is not valid: unknown or revoked");
    CHECK_EQ(ctl("token list", 0, out, sizeof out), 0);
    CHECK(strstr(out, "token:alice") && !strstr(out, "token:bob"));
    /* a store others may read is no store */
    CHECK_EQ(chmod(store, 0644), 0);
    CHECK_EQ(raw_hello_token(guest_sock, alice, &r), -1);
    CHECK_REFUSED(r, "may be read or written by others (mode 0644)");
    CHECK_EQ(chmod(store, 0600), 0);
    fd = raw_hello_token(guest_sock, alice, &r);
    CHECK(fd >= 0);
    close(fd);
    /* the tenants' work is intact */
    openpim_session_use(sa);
    CHECK_EQ(tenant_round(a, 21), 0);
    CHECK_EQ(dpu_free(a), DPU_OK);
    openpim_session_use(sb);
    CHECK_EQ(tenant_round(b, 22), 0);
    CHECK_EQ(dpu_free(b), DPU_OK);
    openpim_session_use(sl);
    CHECK_EQ(dpu_free(l), DPU_OK);
    openpim_session_use(NULL);
    openpim_session_destroy(sa);
    openpim_session_destroy(sb);
    openpim_session_destroy(sl);
    /* a guest socket whose name has no port is refused at start */
    snprintf(cmd, sizeof cmd, "%s --socket %s/other.sock --guest-socket %s/vm.vsock 2>&1 | grep -q 'must end in _P'",
             daemon_path, dir, dir);
    CHECK_EQ(system(cmd), 0);
}

/* ---- vsock profile keys --------------------------------------------------------- */

static void vsock(void)
{
    static const struct {
        const char *value, *why;
    } bad[] = {
        {"2", "is not CID:PORT"},          {"2:", "port '' is not a number"}, {":5000", "CID '' is not a number"},
        {"0:5000", "CID '0' is not"},      {"4294967295:5000", "CID '4294967295'"},
        {"-1:5000", "CID '-1'"},           {"2:0", "port '0'"},              {"2:4294967295", "port '4294967295'"},
        {"2:99999999999", "port '99999999999'"}, {"x:5000", "CID 'x'"},      {"2:50a", "port '50a'"},
    };
    struct dpu_set_t set;
    char profile[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(profile, sizeof profile, "backend=remote,vsock=%s", bad[i].value);
        CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_ERR_INVALID_PROFILE);
        CHECK_LAST_ERROR("profile key 'vsock': ");
        CHECK_LAST_ERROR(bad[i].why);
    }
    /* a well-formed address: this host has no vsock peer at CID 3, the error names it */
    CHECK_EQ(dpu_alloc_ranks(1, "backend=remote,vsock=3:5000,token=x", &set), DPU_ERR_ALLOCATION);
    CHECK_LAST_ERROR("vsock");
    snprintf(profile, sizeof profile, "backend=remote,socket=%s,vsock=2:5000", sock);
    CHECK_EQ(dpu_alloc_ranks(1, profile, &set), DPU_ERR_INVALID_PROFILE);
    CHECK_LAST_ERROR("both socket=");
    CHECK_EQ(dpu_alloc_ranks(1, "backend=remote,vsock=2:5000,token=a b", &set), DPU_ERR_INVALID_PROFILE);
    CHECK_LAST_ERROR("profile key 'token'");
    CHECK(!strstr(openpim_last_error(), "a b")); /* a token is not repeated */
    /* the embedded machine ignores them */
    CHECK_EQ(dpu_alloc(1, "nrRanks=1,vsock=2:5000,token=x,remoteStream=1", &set), DPU_OK);
    CHECK_EQ(dpu_free(set), DPU_OK);
    CHECK_EQ(dpu_alloc(1, "nrRanks=1,remoteStream=maybe", &set), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, "nrRanks=1,remoteBatch=2", &set), DPU_ERR_INVALID_PROFILE);
    CHECK_EQ(dpu_alloc(1, "nrRanks=1,remotePrefetch=", &set), DPU_ERR_INVALID_PROFILE);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s SCENARIO OPENPIMD DPU_PROGRAM BIG_DPU_PROGRAM\n", argv[0]);
        return 2;
    }
    daemon_path = argv[2];
    dpu_program = argv[3];
    big_program = argv[4];
    if (scenario_folder("guest") != 0)
        return 2;
    snprintf(guest_sock, sizeof guest_sock, "%s/vm.vsock_5000", dir);
    snprintf(store, sizeof store, "%s/etc/tokens", dir);
    unsetenv("OPENPIM_TOKEN");
    unsetenv("OPENPIM_TOKENS");
    static const struct scenario scenarios[] = {{"stream", stream}, {"guest", guest}, {"vsock", vsock}};
    return scenario_run(argv[1], scenarios, sizeof scenarios / sizeof *scenarios);
}
