/* SPDX-License-Identifier: MIT */
/* openpimd's tenants: who a connection acts for, and what each may hold.
 *
 * A tenant is an identity string: "uid:<n>" for a peer on the UNIX socket
 * (the kernel's SO_PEERCRED, not forgeable by the peer).  One function maps a
 * connection to its tenant (serve.c, identify()); another transport's
 * identity (a token presented in HELLO) goes through the same function.
 * Quotas and limits are per tenant: ranks (ranks.c), and here connections,
 * programs (count and bytes), requests in flight and the bytes of the
 * windows the daemon keeps in its own memory for streaming clients (a
 * guest's), each also bounded per connection where that means something.  A refusal names the limit, its value and the daemon option
 * that sets it. */
#ifndef OPENPIM_DAEMON_TENANTS_H
#define OPENPIM_DAEMON_TENANTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ranks.h" /* RM_TENANT_MAX */

/* The daemon's limits (openpimd options; 0 never means "none"). */
struct limits {
    uint32_t connections;       /* per tenant */
    uint32_t programs;          /* per tenant */
    uint32_t conn_programs;     /* per connection */
    uint64_t program_bytes;     /* per tenant: bytes of ELF files held */
    uint64_t window_bytes;      /* per tenant: bytes of windows in the daemon's memory (streaming clients) */
    uint32_t inflight;          /* per tenant: requests queued or running */
    uint32_t conn_inflight;     /* per connection */
};

struct tenant {
    struct tenant *next;
    char id[RM_TENANT_MAX];
    /* what it holds, under the registry's lock */
    uint32_t connections, programs, inflight;
    uint64_t program_bytes, window_bytes;
};

struct tenants {
    pthread_mutex_t lock;
    struct tenant *list;
    struct limits lim;
};

void tenants_init(struct tenants *t, const struct limits *lim);
void tenants_destroy(struct tenants *t);
/* The tenant of that identity, counting one more connection of it; NULL with
 * a message when it has its limit of connections. */
struct tenant *tenant_join(struct tenants *t, const char *id, char *err, size_t errlen);
/* A connection of the tenant ended (the tenant is forgotten once it has none). */
void tenant_leave(struct tenants *t, struct tenant *tn);
/* Takes room for one more program of `bytes` bytes (conn_programs: the
 * connection's count so far): 0, or -1 with a message naming the limit. */
int tenant_add_program(struct tenants *t, struct tenant *tn, uint32_t conn_programs, uint64_t bytes, char *err,
                       size_t errlen);
void tenant_drop_program(struct tenants *t, struct tenant *tn, uint64_t bytes);
/* Takes room for a window of `bytes` in the daemon's memory: 0, or -1 with a
 * message naming the limit. */
int tenant_add_window(struct tenants *t, struct tenant *tn, uint64_t bytes, char *err, size_t errlen);
void tenant_drop_window(struct tenants *t, struct tenant *tn, uint64_t bytes);
/* One more request in flight (conn_inflight: the connection's so far): 0, or
 * -1 with a message naming the limit. */
int tenant_add_request(struct tenants *t, struct tenant *tn, uint32_t conn_inflight, char *err, size_t errlen);
void tenant_drop_request(struct tenants *t, struct tenant *tn);

#endif
