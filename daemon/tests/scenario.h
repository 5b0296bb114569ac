/* SPDX-License-Identifier: MIT */
/* What the scenario programs (test_daemon.c, test_guest.c) share: the test's
 * daemon (its binary, folder, socket and log), starting it or giving up,
 * reading its log, children's exit statuses, a hash for test data, and the
 * check of a refusal's message. */
#ifndef OPENPIM_DAEMON_TESTS_SCENARIO_H
#define OPENPIM_DAEMON_TESTS_SCENARIO_H

#include "harness.h"

#include "check.h"

static const char *daemon_path;
static char dir[64], sock[128], logpath[128];
static pid_t daemon_pid;

static inline uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static inline pid_t start(const char *const *args)
{
    pid_t pid = start_daemon(daemon_path, sock, args, logpath);
    CHECK(pid > 0);
    if (pid <= 0) {
        fprintf(stderr, "cannot start %s\n", daemon_path);
        exit(1);
    }
    return pid;
}

static inline void show_log(void)
{
    FILE *f = fopen(logpath, "r");
    char line[512];
    fprintf(stderr, "---- daemon log ----\n");
    while (f && fgets(line, sizeof line, f))
        fputs(line, stderr);
    if (f)
        fclose(f);
}

static inline int log_has(const char *what)
{
    FILE *f = fopen(logpath, "r");
    char line[512];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return found;
}

static inline int wait_child(pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* An error reply whose message contains `what`. */
#define CHECK_REFUSED(r, what)                                                                  \
    do {                                                                                        \
        CHECK((r).ok && (r).status == OPD_ERROR);                                               \
        if (!strstr((r).msg, (what))) {                                                         \
            fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, (r).msg, (what)); \
            CHECK(0);                                                                           \
        }                                                                                       \
    } while (0)

#endif
