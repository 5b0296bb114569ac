/* SPDX-License-Identifier: MIT */
/* openpimd's transport: the listening UNIX-domain socket, peer credentials,
 * and whole-message I/O that gives up when the daemon stops (stop_fd becomes
 * readable) so that no client can hold a shutdown up (transport.c); the
 * sockets that serve virtual machines through vhost-device-vsock
 * (transport_vsock.c). */
#ifndef OPENPIM_DAEMON_TRANSPORT_H
#define OPENPIM_DAEMON_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Binds and listens on path; refuses if a live daemon answers there, removes
 * a stale socket file.  The fd, or -1 with a message. */
int transport_listen_unix(const char *path, char *err, size_t errlen);

/* Listens on a guest socket: the UNIX socket <uds-path>_<port> to which
 * vhost-device-vsock ("hybrid vsock") turns a guest's connection to the host
 * (CID 2) on vsock port <port>; path must end in _<port>, which goes to
 * *port.  Its connections come from the backend process, whose peer
 * credentials say nothing of the guest: they must authenticate with a token.
 * The fd, or -1 with a message. */
int transport_listen_guest(const char *path, uint32_t *port, char *err, size_t errlen);

struct peer {
    pid_t pid;
    uid_t uid;
    gid_t gid;
};
/* The kernel's record of who connected (SO_PEERCRED): not forgeable by the peer. */
int transport_peer(int fd, struct peer *out);

/* Reads exactly len bytes.  Descriptors passed with them (SCM_RIGHTS) are
 * stored in fds[0..*nfds) (at most max_fds; extra ones are closed).
 * 0, 1 on a clean end of stream before any byte, -1 on error, a cut stream
 * or when stop_fd is readable. */
int transport_recv(int fd, void *buf, size_t len, int *fds, int max_fds, int *nfds, int stop_fd);
/* The same, giving up (-1) when the whole message has not come within
 * timeout_ms (-1: no limit). */
int transport_recv_within(int fd, void *buf, size_t len, int *fds, int max_fds, int *nfds, int stop_fd,
                          int timeout_ms);
/* Writes the iovecs whole; -1 on error or when the peer reads nothing for
 * timeout_ms (replies in flight still go out while the daemon stops). */
struct iovec;
int transport_send(int fd, struct iovec *iov, int iovcnt, int timeout_ms);

#endif
