/* SPDX-License-Identifier: MIT */
/* The processes around a sandbox test, read from /proc: libdpu's workers are
 * the test's children (the test makes itself a subreaper, so that anything a
 * worker could fork and orphan would become its child too). */
#ifndef OPENPIM_TEST_PROCS_H
#define OPENPIM_TEST_PROCS_H

#include <ctype.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 64

struct proc {
    pid_t pid;
    char state; /* R, S, T, Z, ... */
    char comm[32];
};

/* Reads /proc/pid/stat: "pid (comm) state ppid ..."; 0 on success. */
static inline int proc_stat(pid_t pid, struct proc *p, pid_t *ppid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    if (!open || !close || close[1] != ' ')
        return -1;
    size_t len = (size_t)(close - open - 1);
    if (len >= sizeof p->comm)
        len = sizeof p->comm - 1;
    memcpy(p->comm, open + 1, len);
    p->comm[len] = 0;
    p->pid = pid;
    p->state = close[2];
    int pp = 0;
    if (sscanf(close + 4, "%d", &pp) != 1)
        return -1;
    *ppid = pp;
    return 0;
}

/* Children of `parent` (zombies included); their number. */
static inline int children_of(pid_t parent, struct proc *out, int max)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        struct proc p;
        pid_t ppid;
        if (proc_stat((pid_t)atoi(e->d_name), &p, &ppid) == 0 && ppid == parent && n < max)
            out[n++] = p;
    }
    if (d)
        closedir(d);
    return n;
}

/* Processes whose parent is one of the test's children (a worker's fork). */
static inline int grandchildren(void)
{
    struct proc kids[MAX_PROCS], gk[MAX_PROCS];
    int n = children_of(getpid(), kids, MAX_PROCS), total = 0;
    for (int i = 0; i < n; i++)
        total += children_of(kids[i].pid, gk, MAX_PROCS);
    return total;
}

/* Of the workers (the test's children when called), the one that stays
 * runnable for 5 samples in a row while no other is: the one spinning in DPU
 * code.  0 if none before *stop becomes true or ~2 s have passed.  Reads only
 * the workers' own /proc entries, so that it stays quick on a loaded host. */
static inline pid_t find_spinning_worker(atomic_int *stop)
{
    struct proc workers[MAX_PROCS];
    int n = children_of(getpid(), workers, MAX_PROCS);
    pid_t last = 0;
    int streak = 0;
    for (int t = 0; t < 2000 && !atomic_load(stop); t++) {
        int running = 0;
        pid_t r = 0;
        for (int i = 0; i < n; i++) {
            struct proc p;
            pid_t ppid;
            if (proc_stat(workers[i].pid, &p, &ppid) == 0 && p.state == 'R') {
                r = p.pid;
                running++;
            }
        }
        if (running == 1 && r == last) {
            if (++streak >= 5)
                return r;
        } else {
            streak = 0;
            last = running == 1 ? r : 0;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    return 0;
}

static inline int is_child(pid_t pid)
{
    struct proc kids[MAX_PROCS];
    int n = children_of(getpid(), kids, MAX_PROCS);
    for (int i = 0; i < n; i++)
        if (kids[i].pid == pid)
            return 1;
    return 0;
}

static inline double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A helper thread that sends `sig` to the worker spinning in DPU code while
 * the caller's launch runs: spinner_start before the launch, spinner_finish
 * after it (returns the worker signalled, 0 if none was found). */
struct spinner {
    pthread_t thread;
    int sig;
    pid_t pid;
    atomic_int launch_over;
};

static inline void *spinner_run(void *arg)
{
    struct spinner *s = arg;
    s->pid = find_spinning_worker(&s->launch_over);
    if (s->pid)
        kill(s->pid, s->sig);
    return NULL;
}

static inline int spinner_start(struct spinner *s, int sig)
{
    s->sig = sig;
    s->pid = 0;
    atomic_store(&s->launch_over, 0);
    return pthread_create(&s->thread, NULL, spinner_run, s);
}

static inline pid_t spinner_finish(struct spinner *s)
{
    atomic_store(&s->launch_over, 1);
    pthread_join(s->thread, NULL);
    return s->pid;
}

#endif
