/* SPDX-License-Identifier: MIT */
/* openpimd: one PIM machine shared by many client processes.
 *
 * The daemon owns the machine through backend/backend.h (today the embedded
 * emulator, op_backend_local_open; a hardware backend slots in the same way)
 * and serves its ranks over a UNIX-domain socket (transport.c) with the
 * protocol of backend/remote_protocol.h.  Clients are libdpu's remote backend
 * (backend/backend_remote.c), chosen by an unmodified UPMEM program through
 * UPMEM_PROFILE=backend=remote.  Runs in the foreground and logs to stderr
 * (the journal under systemd, see openpimd.service); SIGTERM or SIGINT stops
 * it cleanly: connected clients are told, their ranks reset.  Virtual
 * machines reach it through vhost-device-vsock's guest sockets
 * (--guest-socket, transport_vsock.c) with the tokens of --tokens (tokens.h).
 *
 *   openpimd [--socket PATH] [--machine PROFILE] [--quota N] [--max-wait-ms N]
 *            [--workers N] [--timeout-ms N] [--memory-limit-mb N] [--socket-mode OCTAL]
 *            [--max-connections N] [--max-programs N] [--max-programs-per-connection N]
 *            [--max-program-mb N] [--max-requests N] [--max-requests-per-connection N]
 *            [--hello-timeout-ms N] [--guest-socket UDS_PORT]... [--tokens PATH] [-v] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "serve.h"
#include "tokens.h"
#include "transport.h"

/* Defaults: a DPU's run may take a minute of the host's time (an emulated
 * DPU runs a real one's second in well under that); the limits keep one
 * tenant's connections, programs and requests to a fraction of what the
 * daemon's descriptors and memory allow. */
#define DEFAULT_BUDGET_MS 60000u
#define DEFAULT_CONNECTIONS 64u
#define DEFAULT_PROGRAMS 256u
#define DEFAULT_CONN_PROGRAMS 64u
#define DEFAULT_PROGRAM_MB 512u
#define DEFAULT_WINDOW_MB 128u /* four streaming connections' windows (32 MB each) */
#define DEFAULT_INFLIGHT 256u
#define DEFAULT_CONN_INFLIGHT 64u
#define DEFAULT_HELLO_MS 10000u

static void usage(FILE *f)
{
    fprintf(f,
            "usage: openpimd [options]\n"
            "  --socket PATH        UNIX socket to serve (default $XDG_RUNTIME_DIR/openpimd.sock, else "
            "/run/openpimd.sock)\n"
            "  --machine PROFILE    the machine, as profile keys: chip=v1A|v1B, desc_file=PATH, server=NAME, nrRanks=N,\n"
            "                       nrDpusPerRank=N, any machine-description key (default: v1A, 40 ranks)\n"
            "  --quota N            ranks one tenant (uid) may hold at once (default: all)\n"
            "  --max-wait-ms N      the longest a claim may wait for a free rank (default 60000)\n"
            "  --workers N          worker processes of one session (default: one per core)\n"
            "  --timeout-ms N       wall-clock limit of one DPU's run (default %u; 0: none)\n"
            "  --memory-limit-mb N  host memory the emulated memories may use (default: 85%% of RAM)\n"
            "  --socket-mode OCTAL  permissions of the socket (default 600; 666 lets every local user in)\n"
            "limits, per tenant (a uid or a token) and per connection (a refusal names the option):\n"
            "  --max-connections N             connections of one tenant (default %u)\n"
            "  --max-programs N                programs one tenant holds (default %u)\n"
            "  --max-programs-per-connection N (default %u)\n"
            "  --max-program-mb N              bytes of programs one tenant holds (default %u MB)\n"
            "  --max-window-mb N               bytes of streaming windows one tenant holds in openpimd's memory\n"
            "                                  (default %u MB; a guest's connection takes 32 MB)\n"
            "  --max-requests N                requests of one tenant in flight (default %u)\n"
            "  --max-requests-per-connection N (default %u)\n"
            "  --hello-timeout-ms N            a new connection says HELLO within this (default %u)\n"
            "  --guest-socket PATH  also serve virtual machines on PATH = <uds-path>_<port> of vhost-device-vsock\n"
            "                       (guests connect to vsock CID 2, that port; they must present a token);\n"
            "                       may be given several times (mode 600: run the backend as this user or root)\n"
            "  --tokens PATH        the token store (default $OPENPIM_TOKENS, else " TOKEN_DEFAULT_STORE ")\n"
            "  -v, --verbose        log every claim, release and refused request\n",
            DEFAULT_BUDGET_MS, DEFAULT_CONNECTIONS, DEFAULT_PROGRAMS, DEFAULT_CONN_PROGRAMS, DEFAULT_PROGRAM_MB,
            DEFAULT_WINDOW_MB,
            DEFAULT_INFLIGHT, DEFAULT_CONN_INFLIGHT, DEFAULT_HELLO_MS);
}

/* The machine of --machine: the SDK's profile keys for a machine
 * (sdk/profile.c), applied to the v1A description. */
static int parse_machine(const char *text, struct op_machine_desc *desc, char *err, size_t errlen)
{
    memset(desc, 0, sizeof *desc); /* as the SDK: clients compare descriptions byte for byte */
    op_machine_desc_preset("v1A", desc);
    if (!text)
        return op_machine_desc_validate(desc, err, errlen);
    for (int pass = 0; pass < 3; pass++) { /* as sdk/profile.c: chip and desc_file, then server, then the rest */
        char *copy = strdup(text), *save = NULL;
        if (!copy)
            return -1;
        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(item, '=');
            if (!eq) {
                snprintf(err, errlen, "--machine: '%s' is not key=value", item);
                free(copy);
                return -1;
            }
            *eq = 0;
            const char *key = item, *val = eq + 1;
            int key_pass = !strcmp(key, "chip") || !strcmp(key, "desc_file") ? 0 : !strcmp(key, "server") ? 1 : 2;
            if (key_pass != pass)
                continue;
            char kv[512];
            int rc = 0;
            if (!strcmp(key, "chip"))
                rc = op_machine_desc_preset(val, desc);
            else if (!strcmp(key, "nrRanks"))
                snprintf(kv, sizeof kv, "nr_ranks=%s", val), rc = op_machine_desc_apply(desc, kv) < 0 ? -1 : 0;
            else if (!strcmp(key, "nrDpusPerRank")) {
                char *end;
                unsigned long u = strtoul(val, &end, 0);
                if (*end || u < 1 || u > 64 || strchr(val, '-'))
                    rc = -1;
                else {
                    unsigned chips = u % 8 == 0 ? 8 : (u < 8 ? (unsigned)u : 1); /* as sdk/profile.c */
                    desc->chips_per_rank = chips;
                    desc->dpus_per_chip = (unsigned)u / chips;
                }
            } else {
                snprintf(kv, sizeof kv, "%s=%s", key, val);
                rc = op_machine_desc_apply(desc, kv) < 0 ? -1 : 0;
            }
            if (rc != 0) {
                snprintf(err, errlen, "--machine: key '%s' has an invalid value '%s'", key, val);
                free(copy);
                return -1;
            }
        }
        free(copy);
    }
    return op_machine_desc_validate(desc, err, errlen);
}

static int parse_u32(const char *v, const char *what, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || errno || strchr(v, '-') || x > UINT32_MAX) {
        fprintf(stderr, "openpimd: %s: '%s' is not a number\n", what, v);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

/* A limit: a number of at least 1. */
static int parse_limit(const char *v, const char *what, uint32_t *out)
{
    if (parse_u32(v, what, out) != 0)
        return -1;
    if (*out == 0) {
        fprintf(stderr, "openpimd: %s: at least 1\n", what);
        return -1;
    }
    return 0;
}

/* libdpu finds the worker next to itself; the daemon is installed in bin/,
 * the worker in lib/openpim/. */
static void find_worker(void)
{
    if (getenv("OPENPIM_WORKER"))
        return;
    char exe[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = 0;
    snprintf(path, sizeof path, "%s/../lib/openpim/openpim-worker", exe);
    if (access(path, X_OK) == 0)
        setenv("OPENPIM_WORKER", path, 1);
}

/* Descriptors: the soft limit goes up to the hard one (systemd gives a unit
 * 1,024 soft and far more hard).  Then the limits must let no tenant hold
 * more than a quarter of what is left once the machine has its own: its
 * connections (a socket, a pool's 3, a socket per worker) and programs (a
 * memfd each) are lowered to fit, with a log line, and connections at once
 * are bounded by what the descriptors allow. */
static void fit_descriptors(struct daemon *d, struct limits *lim)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    uint64_t nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (uint64_t)rl.rlim_cur : 1024;
    if (nofile > (1u << 30))
        nofile = 1u << 30;
    uint64_t workers = d->cfg.workers ? d->cfg.workers : (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t fixed = 64 + 2ull * d->rm.nr_ranks; /* stdio, signals, pipes, listen, reserve; rank memfds; a worker's start */
    uint64_t per_conn = 4 + workers + 2;         /* its socket, its pool, its workers' sockets, a window and a program in passing */
    uint64_t left = nofile > fixed + per_conn ? nofile - fixed : per_conn;
    uint64_t share = left / 4;
    if ((uint64_t)lim->connections * per_conn + lim->programs > share) {
        uint32_t c = (uint32_t)(share / 2 / per_conn), p = (uint32_t)(share / 2);
        lim->connections = c ? c : 1;
        lim->programs = p ? p : 1;
        if (lim->conn_programs > lim->programs)
            lim->conn_programs = lim->programs;
        daemon_log("%llu file descriptors: limits lowered to %u connections and %u programs per tenant (raise the "
                   "unit's LimitNOFILE)", (unsigned long long)nofile, lim->connections, lim->programs);
    }
    d->max_live = (unsigned)(left / (per_conn + 4)); /* 4: programs of an average connection */
    if (d->max_live < 1)
        d->max_live = 1;
}

/* Tells systemd (Type=notify) that the socket is ready. */
static void notify_ready(void)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || (*path != '/' && *path != '@'))
        return;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path)
        return;
    strcpy(a.sun_path, path);
    if (*path == '@')
        a.sun_path[0] = 0;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    static const char msg[] = "READY=1";
    sendto(fd, msg, sizeof msg - 1, MSG_NOSIGNAL, (struct sockaddr *)&a,
           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path)));
    close(fd);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"socket", required_argument, 0, 's'},      {"machine", required_argument, 0, 'm'},
        {"quota", required_argument, 0, 'q'},       {"max-wait-ms", required_argument, 0, 'W'},
        {"workers", required_argument, 0, 'w'},     {"timeout-ms", required_argument, 0, 't'},
        {"memory-limit-mb", required_argument, 0, 'M'}, {"socket-mode", required_argument, 0, 'p'},
        {"max-connections", required_argument, 0, 'C'}, {"max-programs", required_argument, 0, 'P'},
        {"max-programs-per-connection", required_argument, 0, 'Q'}, {"max-program-mb", required_argument, 0, 'B'},
        {"max-window-mb", required_argument, 0, 'X'},
        {"max-requests", required_argument, 0, 'R'}, {"max-requests-per-connection", required_argument, 0, 'S'},
        {"hello-timeout-ms", required_argument, 0, 'H'},
        {"guest-socket", required_argument, 0, 'g'}, {"tokens", required_argument, 0, 'k'},
        {"verbose", no_argument, 0, 'v'},           {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    char default_socket[PATH_MAX];
    const char *rt = getenv("XDG_RUNTIME_DIR");
    snprintf(default_socket, sizeof default_socket, "%s/openpimd.sock", rt && *rt ? rt : "/run");
    const char *socket_path = default_socket, *machine = NULL, *tokens = NULL;
    enum { MAX_GUEST_SOCKETS = 16 };
    const char *guest_paths[MAX_GUEST_SOCKETS];
    int nr_guest = 0;
    uint32_t quota = 0, max_wait = 60000, workers = 0, timeout_ms = DEFAULT_BUDGET_MS, limit_mb = 0, mode = 0600;
    uint32_t hello_ms = DEFAULT_HELLO_MS, program_mb = DEFAULT_PROGRAM_MB, window_mb = DEFAULT_WINDOW_MB;
    struct limits lim = {.connections = DEFAULT_CONNECTIONS, .programs = DEFAULT_PROGRAMS,
                         .conn_programs = DEFAULT_CONN_PROGRAMS, .inflight = DEFAULT_INFLIGHT,
                         .conn_inflight = DEFAULT_CONN_INFLIGHT};
    int verbose = 0, c;
    while ((c = getopt_long(argc, argv, "vh", opts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 's': socket_path = optarg; break;
        case 'm': machine = optarg; break;
        case 'q': bad = parse_u32(optarg, "--quota", &quota); break;
        case 'W': bad = parse_u32(optarg, "--max-wait-ms", &max_wait); break;
        case 'w': bad = parse_u32(optarg, "--workers", &workers); break;
        case 't': bad = parse_u32(optarg, "--timeout-ms", &timeout_ms); break;
        case 'M': bad = parse_u32(optarg, "--memory-limit-mb", &limit_mb); break;
        case 'C': bad = parse_limit(optarg, "--max-connections", &lim.connections); break;
        case 'P': bad = parse_limit(optarg, "--max-programs", &lim.programs); break;
        case 'Q': bad = parse_limit(optarg, "--max-programs-per-connection", &lim.conn_programs); break;
        case 'B': bad = parse_limit(optarg, "--max-program-mb", &program_mb); break;
        case 'X': bad = parse_limit(optarg, "--max-window-mb", &window_mb); break;
        case 'R': bad = parse_limit(optarg, "--max-requests", &lim.inflight); break;
        case 'S': bad = parse_limit(optarg, "--max-requests-per-connection", &lim.conn_inflight); break;
        case 'H': bad = parse_limit(optarg, "--hello-timeout-ms", &hello_ms); break;
        case 'p': {
            char *end;
            unsigned long m = strtoul(optarg, &end, 8);
            bad = *end || m > 0777;
            mode = (uint32_t)m;
            break;
        }
        case 'g':
            if (nr_guest == MAX_GUEST_SOCKETS) {
                fprintf(stderr, "openpimd: more than %d --guest-socket\n", MAX_GUEST_SOCKETS);
                return 2;
            }
            guest_paths[nr_guest++] = optarg;
            break;
        case 'k': tokens = optarg; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad)
            return 2;
    }
    if (optind != argc) {
        usage(stderr);
        return 2;
    }

    static struct daemon d;
    char err[512];
    struct op_machine_config *cfg = &d.cfg;
    memset(cfg, 0, sizeof *cfg);
    if (parse_machine(machine, &cfg->desc, err, sizeof err) != 0) {
        fprintf(stderr, "openpimd: %s\n", err);
        return 2;
    }
    cfg->workers = workers;
    cfg->budget_ns = (uint64_t)timeout_ms * 1000000u;
    cfg->memory_limit = (uint64_t)limit_mb << 20;
    if (quota > cfg->desc.nr_ranks)
        quota = cfg->desc.nr_ranks;

    /* every signal the daemon handles arrives through the signalfd of the
     * main thread; connection threads inherit the blocked mask */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
    int stop[2];
    if (sfd < 0 || pipe2(stop, O_CLOEXEC) != 0) {
        fprintf(stderr, "openpimd: %s\n", strerror(errno));
        return 1;
    }

    find_worker();
    d.b = op_backend_local_open(cfg, err, sizeof err);
    if (!d.b) {
        fprintf(stderr, "openpimd: cannot open the machine: %s\n", err);
        return 1;
    }
    d.b->ops->info(d.b, &d.info);
    d.cfg.workers = workers; /* what clients see of the daemon's settings */
    d.max_wait_ms = max_wait;
    d.hello_timeout_ms = hello_ms;
    d.token_store = token_store_path(tokens);
    d.stop_fd = stop[0];
    d.verbose = verbose;
    lim.program_bytes = (uint64_t)program_mb << 20;
    lim.window_bytes = (uint64_t)window_mb << 20;
    fit_descriptors(&d, &lim);
    tenants_init(&d.tenants, &lim);
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.idle, NULL);
    if (rm_init(&d.rm, d.b, cfg->desc.nr_ranks, quota, err, sizeof err) != 0) {
        fprintf(stderr, "openpimd: %s\n", err);
        return 1;
    }
    int lfd = transport_listen_unix(socket_path, err, sizeof err);
    if (lfd < 0 || chmod(socket_path, (mode_t)mode) != 0) {
        fprintf(stderr, "openpimd: %s\n", lfd < 0 ? err : strerror(errno));
        d.b->ops->close(d.b);
        return 1;
    }
    /* p[0]: signals, p[1]: the local socket, then the guest sockets */
    struct pollfd p[2 + MAX_GUEST_SOCKETS] = {{.fd = sfd, .events = POLLIN}, {.fd = lfd, .events = POLLIN}};
    for (int g = 0; g < nr_guest; g++) {
        uint32_t port;
        int gfd = transport_listen_guest(guest_paths[g], &port, err, sizeof err);
        if (gfd < 0) {
            fprintf(stderr, "openpimd: %s\n", err);
            for (int k = 0; k < g; k++)
                unlink(guest_paths[k]);
            unlink(socket_path);
            d.b->ops->close(d.b);
            return 1;
        }
        p[2 + g] = (struct pollfd){.fd = gfd, .events = POLLIN};
        daemon_log("serving virtual machines on %s: guests connect to vsock CID 2 port %u, with a token from %s",
                   guest_paths[g], port, d.token_store);
    }
    daemon_log("serving %s: %s, %u ranks of %u DPUs, quota %u rank(s) per tenant", socket_path,
               d.info.desc.name, cfg->desc.nr_ranks, d.info.dpus_per_rank, d.rm.quota);
    notify_ready();

    /* a descriptor kept in reserve: out of descriptors, the accept loop frees
     * it to take the waiting connection and tell it why it is refused (it
     * would otherwise stay in the backlog, and poll say so at once, for ever) */
    int reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int signo = 0, backoff_ms = -1;
    while (!signo) {
        /* after a refusal for want of descriptors, the sockets rest a moment */
        nfds_t listening = backoff_ms < 0 ? (nfds_t)(2 + nr_guest) : 1;
        for (nfds_t k = 0; k < (nfds_t)(2 + nr_guest); k++)
            p[k].revents = 0;
        int n = poll(p, listening, backoff_ms);
        if (backoff_ms >= 0 && n == 0)
            backoff_ms = -1;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            daemon_log("poll: %s", strerror(errno));
            break;
        }
        if (p[0].revents) {
            struct signalfd_siginfo si;
            if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
                signo = (int)si.ssi_signo;
            continue;
        }
        for (int k = 1; k < 2 + nr_guest && backoff_ms < 0; k++) {
            if (!p[k].revents)
                continue;
            int fd = accept4(p[k].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
            if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
                int e = errno;
                if (reserve >= 0)
                    close(reserve);
                fd = accept4(p[k].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd >= 0)
                    serve_refuse(fd, "openpimd is out of file descriptors: try again later");
                reserve = open("/dev/null", O_RDONLY | O_CLOEXEC);
                static time_t said;
                if (time(NULL) != said) { /* once a second at most */
                    said = time(NULL);
                    daemon_log("out of file descriptors (%s): new connections are refused until some end",
                               strerror(e));
                }
                backoff_ms = 100;
                continue;
            }
            if (fd >= 0 && fcntl(fd, F_SETFL, 0) != 0) { /* blocking, as the transport expects */
                close(fd);
                continue;
            }
            if (fd >= 0)
                serve_start(&d, fd, k >= 2); /* a refusal tells the client why */
        }
    }
    if (reserve >= 0)
        close(reserve);
    pthread_mutex_lock(&d.lock);
    unsigned live = d.live;
    pthread_mutex_unlock(&d.lock);
    daemon_log("stopping (%s): telling %u client(s)", signo ? strsignal(signo) : "error", live);
    close(lfd);
    unlink(socket_path);
    for (int g = 0; g < nr_guest; g++) {
        close(p[2 + g].fd);
        unlink(guest_paths[g]);
    }
    rm_stop(&d.rm); /* first: no waiting claim may take a rank the stopping connections give back */
    if (write(stop[1], "x", 1) != 1) /* every connection thread sees stop_fd readable */
        daemon_log("cannot signal the connections: %s", strerror(errno));
    serve_wait_all(&d); /* requests in flight finish; ranks are released and reset */
    rm_destroy(&d.rm);
    tenants_destroy(&d.tenants);
    d.b->ops->close(d.b);
    daemon_log("stopped");
    return 0;
}
