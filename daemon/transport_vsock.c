/* SPDX-License-Identifier: MIT */
/* openpimd's guest sockets (transport.h): how virtual machines reach the
 * daemon without /dev/vhost-vsock.
 *
 * QEMU's vhost-user-vsock-pci device hands the guest's virtio-vsock queues to
 * vhost-device-vsock (rust-vmm), a process on the host.  Started as
 *     vhost-device-vsock --vm guest-cid=3,socket=VHOST_USER_SOCKET,uds-path=UDS
 * it turns a guest's connect() to CID 2 (the host), port P, into a connection
 * to the host UNIX socket UDS_P ("hybrid vsock", as Firecracker's).  openpimd
 * listens on UDS_P itself (--guest-socket UDS_P) rather than behind a symlink
 * to its main socket: it must know which connections come from guests, since
 * their peer credentials are those of the backend process and mean nothing.
 * A guest connection must start with HELLO and a valid token, and is never an
 * operator (serve.c).  One backend process per VM, so one guest socket per VM
 * (or several VMs' backends may share one uds-path: all their guests reach
 * UDS_P). */
#include "transport.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int transport_listen_guest(const char *path, uint32_t *port, char *err, size_t errlen)
{
    const char *under = strrchr(path, '_');
    char *end = NULL;
    unsigned long long p = 0;
    if (under && under[1] >= '0' && under[1] <= '9') {
        errno = 0;
        p = strtoull(under + 1, &end, 10);
    }
    if (!under || !end || *end || errno || p == 0 || p >= UINT32_MAX) {
        snprintf(err, errlen,
                 "guest socket %s: vhost-device-vsock connects a guest's vsock port P to <uds-path>_P, "
                 "so the path must end in _P (P from 1 to %u), e.g. /run/openpim/vm1.vsock_5000",
                 path, UINT32_MAX - 1);
        return -1;
    }
    *port = (uint32_t)p;
    return transport_listen_unix(path, err, errlen);
}
