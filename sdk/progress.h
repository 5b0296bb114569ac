/* SPDX-License-Identifier: MIT */
/* The progress line of long launches and transfers (progress.c): on stderr,
 * only when it is a terminal (or OPENPIM_PROGRESS=1), only once the work has
 * run OPENPIM_PROGRESS_AFTER_MS (default 2000 ms); one line for all the work
 * in progress, so concurrent jobs share it rather than garble it. */
#ifndef OPENPIM_SDK_PROGRESS_H
#define OPENPIM_SDK_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* One piece of work being watched, in the caller's storage from begin to end. */
struct op_progress {
    bool on;          /* false: progress is off, the calls do nothing */
    const char *what; /* "launch", "transfer" */
    uint32_t total, done;
    double start_us;
    struct op_progress *next;
};

/* Starts watching work on `total` DPUs.  Any thread, with or without the library lock. */
void op_progress_begin(struct op_progress *p, const char *what, uint32_t total);
/* `done` of its DPUs have finished. */
void op_progress_update(struct op_progress *p, uint32_t done);
/* The work is over; the last one to end finishes the line on screen, if any. */
void op_progress_end(struct op_progress *p);
/* Ends the line on screen (a newline) so that another message starts on a line of its own. */
void op_progress_break(void);

#endif
