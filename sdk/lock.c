/* SPDX-License-Identifier: MIT */
/* The host library's one lock (see "Threads" in internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "internal.h"

static pthread_mutex_t sdk_mutex = PTHREAD_MUTEX_INITIALIZER;
/* How many times this thread holds the lock: an entry point may call another
 * (dpu_load_from_incbin, dpulog_read_for_dpu) and a scatter-gather block
 * callback may call the API on the thread that holds the lock. */
static _Thread_local unsigned depth;

void op_sdk_lock(void)
{
    if (depth++ == 0) {
        pthread_mutex_lock(&sdk_mutex);
        op_clear_last_error(); /* a new call from the program */
    }
}

void op_sdk_unlock(void)
{
    if (--depth == 0)
        pthread_mutex_unlock(&sdk_mutex);
}

unsigned op_sdk_suspend(void)
{
    unsigned held = depth;
    if (held) {
        depth = 0;
        pthread_mutex_unlock(&sdk_mutex);
    }
    return held;
}

void op_sdk_resume(unsigned held)
{
    if (held) {
        pthread_mutex_lock(&sdk_mutex);
        depth = held;
    }
}
