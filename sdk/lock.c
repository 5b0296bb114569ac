/* SPDX-License-Identifier: MIT */
/* The host library's one lock (see "Threads" in internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "internal.h"
#include "report.h"
#include "vclock.h"

static pthread_mutex_t sdk_mutex = PTHREAD_MUTEX_INITIALIZER;
/* How many times this thread holds the lock: an entry point may call another
 * (dpu_load_from_incbin, dpulog_read_for_dpu) and a scatter-gather block
 * callback may call the API on the thread that holds the lock. */
static _Thread_local unsigned depth;
/* The virtual clock's SDK time (internal.h).  Calls of this thread that hold
 * or suspended the lock: when each took it (not before: a thread waiting for
 * another's call would count that call's time twice), a call below the top
 * being one that suspended the lock to run a job on this thread, the top one
 * called meanwhile (by a dpu_callback function or a scatter-gather get_block
 * function).  The outermost call's time is SDK time but for the program's own
 * functions it ran (user_us), whose SDK calls are SDK time again (nested_us). */
#define CALLS 8
static _Thread_local double call_start_us[CALLS];
static _Thread_local unsigned calls;
static _Thread_local double user_us, nested_us;
static _Thread_local int background;

void op_sdk_lock(void)
{
    if (depth++ == 0) {
        pthread_mutex_lock(&sdk_mutex);
        op_clear_last_error(); /* a new call from the program */
        if (calls < CALLS)
            call_start_us[calls] = op_real_now_us();
        if (calls++ == 0)
            user_us = 0;
    }
}

void op_sdk_unlock(void)
{
    if (depth == 1) {
        double us = calls <= CALLS ? op_real_now_us() - call_start_us[calls - 1] : 0;
        if (--calls > 0)
            nested_us += us;
        else if (!background)
            op_record_sdk_time(us - user_us);
    }
    if (--depth == 0)
        pthread_mutex_unlock(&sdk_mutex);
}

void op_sdk_background(void)
{
    background = 1;
}

double op_sdk_user_begin(void)
{
    return op_real_now_us() - nested_us;
}

void op_sdk_user_end(double begun)
{
    user_us += op_real_now_us() - nested_us - begun;
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
