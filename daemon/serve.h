/* SPDX-License-Identifier: MIT */
/* openpimd's request handling: a thread per client connection reads its
 * requests; those that name the DPUs of one rank run in order on a thread of
 * that rank (its lane), so that one client's requests for different ranks run
 * at the same time, launches included; any other request waits until the
 * connection's lanes are idle and runs on the connection's thread.  Each
 * session's DPU code runs in a pool of worker processes of its own
 * (backend.h, pools). */
#ifndef OPENPIM_DAEMON_SERVE_H
#define OPENPIM_DAEMON_SERVE_H

#include <pthread.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "ranks.h"
#include "tenants.h"

struct daemon {
    struct op_backend *b;
    struct op_machine_config cfg;
    struct op_backend_info info;
    struct rank_manager rm;
    struct tenants tenants;
    uint32_t max_wait_ms;      /* the longest a claim may wait */
    uint32_t hello_timeout_ms; /* a connection says HELLO within this, or is closed */
    const char *token_store;   /* daemon/tokens.h: the tenants that present tokens */
    int stop_fd;               /* readable once the daemon stops */
    int verbose;
    pthread_mutex_t lock;
    pthread_cond_t idle; /* live reached 0 */
    unsigned live;       /* connections being served */
    unsigned max_live;   /* connections at once, all tenants (what the descriptors allow) */
    uint64_t next_id;
};

/* Serves the accepted connection fd on a thread of its own (fd is its);
 * guest: it came through a guest socket (transport_listen_guest), so it must
 * authenticate with a token at HELLO before anything else.  -1 (fd closed,
 * after a goodbye naming the reason) when the daemon is at its connections or
 * out of resources. */
int serve_start(struct daemon *d, int fd, int guest);
/* Tells a connection the daemon cannot serve it (an OPD_BYE with the reason)
 * and closes it; never blocks. */
void serve_refuse(int fd, const char *why);
/* Waits until every connection has ended (after stop_fd became readable). */
void serve_wait_all(struct daemon *d);
/* A log line on stderr (the journal under systemd). */
void daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
