/* SPDX-License-Identifier: MIT */
/* openpimctl: what an operator of openpimd sees and does -- the ranks with
 * their state and tenant, the claims waiting, the ranks each tenant holds;
 * draining a rank (no new tenant gets it; a tenant that holds it keeps it
 * until it releases it) and putting it back in service; the tokens that
 * tenants (virtual machines) present.  Operators are root and openpimd's own
 * user (the daemon refuses anyone else; the token store is theirs, mode 0600).
 *
 *   openpimctl [--socket PATH] status
 *   openpimctl [--socket PATH] drain RANK | undrain RANK
 *   openpimctl [--tokens PATH] token add NAME | token revoke NAME | token list
 * The socket: --socket, else $OPENPIM_SOCKET, else $XDG_RUNTIME_DIR/openpimd.sock
 * or /run/openpimd.sock (as libdpu's remote backend).  The token store:
 * --tokens, else $OPENPIM_TOKENS, else /etc/openpim/tokens (daemon/tokens.h).
 * `token add` prints the new token once, on stdout; only its hash is kept.
 * Exit status 0, or 1 with the reason on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../backend/remote_protocol.h"
#include "tokens.h"

static int fd = -1;
static uint32_t seq;

__attribute__((format(printf, 1, 2))) static _Noreturn void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "openpimctl: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void put(const void *p, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = send(fd, (const char *)p + done, len - done, MSG_NOSIGNAL);
        if (n <= 0)
            die("the daemon closed the connection: %s", strerror(errno));
        done += (size_t)n;
    }
}

static void get(void *p, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = recv(fd, (char *)p + done, len - done, 0);
        if (n <= 0)
            die("the daemon closed the connection");
        done += (size_t)n;
    }
}

/* One request; its reply's payload (malloc'd, *len bytes).  An error reply
 * ends the program with its message. */
static void *call(uint16_t op, const void *req, size_t req_len, uint64_t *len)
{
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = ++seq, .len = req_len};
    put(&h, sizeof h);
    put(req, req_len);
    struct opd_header a;
    get(&a, sizeof a);
    if (a.magic != OPD_MAGIC || a.seq != h.seq || a.op != op || a.len > (1u << 26))
        die("garbled reply from the daemon");
    char *payload = malloc(a.len + 1);
    if (!payload)
        die("out of memory");
    get(payload, a.len);
    payload[a.len] = 0;
    if (a.status != OPD_OK)
        die("openpimd: %s", payload);
    *len = a.len;
    return payload;
}

static void status(void)
{
    uint64_t len;
    uint8_t *p = call(OPD_STATUS, NULL, 0, &len);
    struct opd_status_reply head;
    if (len < sizeof head)
        die("short STATUS reply");
    memcpy(&head, p, sizeof head);
    if (len != sizeof head + (uint64_t)head.nr_ranks * sizeof(struct opd_rank_status))
        die("STATUS reply of the wrong size");
    static const char *const names[] = {"available", "allocated", "resetting", "drained"};
    printf("%-6s %-10s %-16s %-10s %s\n", "rank", "state", "tenant", "conn", "drain");
    char(*ids)[OPD_TENANT_MAX] = calloc(head.nr_ranks + 1, sizeof *ids);
    uint32_t *held = calloc(head.nr_ranks + 1, sizeof *held), tenants = 0;
    if (!ids || !held)
        die("out of memory");
    for (uint32_t r = 0; r < head.nr_ranks; r++) {
        struct opd_rank_status st;
        memcpy(&st, p + sizeof head + (size_t)r * sizeof st, sizeof st);
        st.tenant[sizeof st.tenant - 1] = 0;
        int busy = st.state == OPD_RANK_ALLOCATED || st.state == OPD_RANK_RESETTING;
        char tenant[OPD_TENANT_MAX] = "-", conn[24] = "-";
        if (busy) {
            memcpy(tenant, st.tenant, sizeof tenant);
            snprintf(conn, sizeof conn, "%llu", (unsigned long long)st.conn);
            uint32_t t = 0;
            while (t < tenants && strcmp(ids[t], st.tenant))
                t++;
            if (t == tenants)
                memcpy(ids[tenants++], st.tenant, sizeof ids[0]);
            held[t]++;
        }
        printf("%-6u %-10s %-16s %-10s %s\n", r, st.state < 4 ? names[st.state] : "?", tenant, conn,
               st.drain ? "yes" : "no");
    }
    printf("claims waiting: %u\n", head.nr_waiting);
    printf("quota: %u rank(s) per tenant\n", head.quota);
    for (uint32_t t = 0; t < tenants; t++)
        printf("tenant %s holds %u rank(s)\n", ids[t], held[t]);
    free(ids);
    free(held);
    free(p);
}

/* token add NAME | revoke NAME | list: the store only, not the daemon. */
static int token_command(const char *store, int argc, char **argv)
{
    char err[512];
    if (argc == 2 && !strcmp(argv[0], "add")) {
        char token[TOKEN_TEXT_LEN + 1];
        if (token_add(store, argv[1], token, sizeof token, err, sizeof err) != 0)
            die("%s", err);
        printf("%s\n", token);
        fprintf(stderr, "openpimctl: tenant token:%s added to %s; the token above is shown once (only its SHA-256 is "
                        "kept): give it to the guest as UPMEM_PROFILE=...,token=TOKEN or OPENPIM_TOKEN\n",
                argv[1], store);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[0], "revoke")) {
        if (token_revoke(store, argv[1], err, sizeof err) != 0)
            die("%s", err);
        printf("tenant token:%s revoked: its token is refused from the next connection on\n", argv[1]);
        return 0;
    }
    if (argc == 1 && !strcmp(argv[0], "list")) {
        struct token_entry *e;
        size_t n;
        if (token_read(store, &e, &n, err, sizeof err) != 0)
            die("%s", err);
        printf("%-34s %s\n", "tenant", "created (UTC)");
        for (size_t i = 0; i < n; i++) {
            char when[32] = "?";
            time_t t = (time_t)e[i].created;
            struct tm tm;
            if (gmtime_r(&t, &tm))
                strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
            printf("token:%-28s %s\n", e[i].name, when);
        }
        free(e);
        return 0;
    }
    fprintf(stderr, "usage: openpimctl [--tokens PATH] token add NAME | token revoke NAME | token list\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = getenv("OPENPIM_SOCKET"), *tokens = NULL;
    char fallback[sizeof ((struct sockaddr_un *)0)->sun_path];
    int a = 1;
    for (; a + 1 < argc && (!strcmp(argv[a], "--socket") || !strcmp(argv[a], "--tokens")); a += 2)
        *(!strcmp(argv[a], "--socket") ? &path : &tokens) = argv[a + 1];
    if (a < argc && !strcmp(argv[a], "token"))
        return token_command(token_store_path(tokens), argc - a - 1, argv + a + 1);
    if (!path || !*path) {
        const char *rt = getenv("XDG_RUNTIME_DIR");
        snprintf(fallback, sizeof fallback, "%s/openpimd.sock", rt && *rt ? rt : "/run");
        path = fallback;
    }
    if (a >= argc || (strcmp(argv[a], "status") && strcmp(argv[a], "drain") && strcmp(argv[a], "undrain")) ||
        (!strcmp(argv[a], "status") ? a + 1 != argc : a + 2 != argc)) {
        fprintf(stderr, "usage: openpimctl [--socket PATH] status | drain RANK | undrain RANK\n"
                        "       openpimctl [--tokens PATH] token add NAME | token revoke NAME | token list\n");
        return 2;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        die("socket path too long: %s", path);
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        die("cannot reach openpimd at %s", path);
    struct opd_hello hello = {.layout = OPD_LAYOUT};
    uint64_t len;
    free(call(OPD_HELLO, &hello, sizeof hello, &len));
    if (!strcmp(argv[a], "status")) {
        status();
    } else {
        char *end;
        errno = 0;
        unsigned long rank = strtoul(argv[a + 1], &end, 10);
        if (errno || *end || end == argv[a + 1] || rank > UINT32_MAX)
            die("not a rank number: %s", argv[a + 1]);
        struct opd_drain d = {.rank = (uint32_t)rank, .on = !strcmp(argv[a], "drain")};
        free(call(OPD_DRAIN, &d, sizeof d, &len));
        printf("rank %lu %s\n", rank, d.on ? "drained (once its tenant releases it, if any)" : "back in service");
    }
    close(fd);
    return 0;
}
