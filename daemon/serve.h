/* openpimd's request handling: one thread per client connection runs its
 * requests in order; requests of different clients (hence different ranks)
 * run in parallel, launches included. */
#ifndef OPENPIM_DAEMON_SERVE_H
#define OPENPIM_DAEMON_SERVE_H

#include <pthread.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "ranks.h"

struct daemon {
    struct op_backend *b;
    struct op_machine_config cfg;
    struct op_backend_info info;
    struct rank_manager rm;
    uint32_t max_wait_ms; /* the longest a claim may wait */
    const char *token_store; /* daemon/tokens.h: the tenants that present tokens */
    int stop_fd;          /* readable once the daemon stops */
    int verbose;
    pthread_mutex_t lock;
    pthread_cond_t idle; /* live reached 0 */
    unsigned live;       /* connections being served */
    uint64_t next_id;
};

/* Serves the accepted connection fd on a thread of its own (fd is its);
 * guest: it came through a guest socket (transport_listen_guest), so it must
 * authenticate with a token at HELLO before anything else. */
int serve_start(struct daemon *d, int fd, int guest);
/* Waits until every connection has ended (after stop_fd became readable). */
void serve_wait_all(struct daemon *d);
/* A log line on stderr (the journal under systemd). */
void daemon_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
