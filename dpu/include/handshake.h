/* SPDX-License-Identifier: MIT */
/* OpenPIM DPU syslib: <handshake.h>, two-tasklet rendezvous.
 *
 * handshake_notify() blocks the notifier until some tasklet calls
 * handshake_wait_for(notifier), and handshake_wait_for blocks the waiter until
 * the notifier calls handshake_notify(); whichever comes second resumes the
 * other.  If a tasklet is already waiting for that notifier, a second
 * handshake_wait_for returns EALREADY at once (errno is set too).  Handshake
 * state belongs to the launch.  A notifier that finds its waiter already
 * waiting resumes it and continues without yielding; every other call yields
 * or blocks (see dpu/runtime/sync.c for why).
 */
#ifndef DPUSYSCORE_HANDSHAKE_H
#define DPUSYSCORE_HANDSHAKE_H

#include <sysdef.h>

/* Notifies the tasklet waiting for me() (waiting for one to come if needed). */
void handshake_notify(void);
/* Waits for `notifier` to call handshake_notify(); 0, or EALREADY. */
int handshake_wait_for(sysname_t notifier);

#endif
