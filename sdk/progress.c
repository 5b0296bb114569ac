/* SPDX-License-Identifier: MIT */
/* The progress line (see progress.h).  Work in progress is a list under one
 * mutex; the threads doing the work (a launch's thread, woken by the machine
 * every OP_WATCH_PERIOD_MS; a write's, after each DPU the machine wrote; a
 * read's loop over the DPUs) report to it and print the
 * line themselves, so there is no thread of its own.  A line sums every piece
 * of work since the list was last empty (a "burst"): DPUs done / total and the
 * time since the burst began, so it only grows, and the piece that empties the
 * list prints the final total / total and the newline. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "vclock.h"

#define REDRAW_US 200000.0 /* at most five lines a second */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled;
static double after_us = 2e6;

static void configure(void)
{
    const char *v = getenv("OPENPIM_PROGRESS");
    if (v && !strcmp(v, "0"))
        enabled = false;
    else if (v && !strcmp(v, "1"))
        enabled = true;
    else {
        if (v && *v)
            op_warn("OPENPIM_PROGRESS=%s is neither 0 nor 1: progress is shown when stderr is a terminal", v);
        enabled = isatty(STDERR_FILENO) == 1;
    }
    const char *a = getenv("OPENPIM_PROGRESS_AFTER_MS");
    if (a && *a) {
        char *end;
        errno = 0;
        unsigned long long ms = strtoull(a, &end, 10);
        if (*end || errno || a[0] == '-' || ms > 86400000ull)
            op_warn("OPENPIM_PROGRESS_AFTER_MS=%s is not a number of milliseconds (0 to 86400000): using 2000", a);
        else
            after_us = (double)ms * 1e3;
    }
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
/* under mutex: */
static struct op_progress *active;          /* the work in progress */
static uint64_t ended_done, ended_total;    /* DPUs of the burst's work that ended */
static double burst_start_us, drawn_us;
static const char *burst_what;              /* "launch", "transfer", or both */
static bool shown;                          /* a line is on screen, not yet ended */
static int drawn_len;                       /* its length, to blank what a shorter line leaves */

/* Prints the line (final: total / total and a newline). */
static void draw(double now, bool final)
{
    uint64_t done = ended_done, total = ended_total;
    for (struct op_progress *p = active; p; p = p->next) {
        done += p->done;
        total += p->total;
    }
    char line[160];
    int len = snprintf(line, sizeof line, "openpim: %s %llu/%llu DPUs, %.1f s", burst_what, (unsigned long long)done,
                       (unsigned long long)total, (now - burst_start_us) / 1e6);
    /* one fprintf: stdio locks stderr for it, so the program's own stderr
     * output cannot land inside the line */
    fprintf(stderr, "\r%s%*s%s", line, drawn_len > len ? drawn_len - len : 0, "", final ? "\n" : "");
    fflush(stderr);
    drawn_len = final ? 0 : len;
    drawn_us = now;
    shown = !final;
}

/* Draws the line if the burst has run long enough and the last one is old. */
static void maybe_draw(double now)
{
    if (now - burst_start_us < after_us || (shown && now - drawn_us < REDRAW_US))
        return;
    draw(now, false);
}

void op_progress_begin(struct op_progress *p, const char *what, uint32_t total)
{
    pthread_once(&once, configure);
    *p = (struct op_progress){.on = enabled, .what = what, .total = total};
    if (!p->on)
        return;
    p->start_us = op_real_now_us();
    pthread_mutex_lock(&mutex);
    if (!active) { /* a new burst */
        burst_start_us = p->start_us;
        ended_done = ended_total = 0;
        burst_what = what;
    } else if (strcmp(burst_what, what)) {
        burst_what = "launch/transfer";
    }
    p->next = active;
    active = p;
    pthread_mutex_unlock(&mutex);
}

void op_progress_update(struct op_progress *p, uint32_t done)
{
    if (!p->on)
        return;
    double now = op_real_now_us();
    pthread_mutex_lock(&mutex);
    p->done = done < p->total ? done : p->total;
    maybe_draw(now);
    pthread_mutex_unlock(&mutex);
}

void op_progress_end(struct op_progress *p)
{
    if (!p->on)
        return;
    double now = op_real_now_us();
    pthread_mutex_lock(&mutex);
    struct op_progress **at = &active;
    while (*at != p)
        at = &(*at)->next;
    *at = p->next;
    ended_done += p->total; /* it ended: all its DPUs are done, faulted ones included */
    ended_total += p->total;
    if (!active && shown)
        draw(now, true);
    pthread_mutex_unlock(&mutex);
}

void op_progress_break(void)
{
    pthread_mutex_lock(&mutex);
    if (shown) {
        fputs("\n", stderr);
        shown = false;
        drawn_len = 0;
    }
    pthread_mutex_unlock(&mutex);
}
