/* SPDX-License-Identifier: MIT */
/* What the scenario programs (test_daemon.c, test_guest.c, test_hostile.c) share: the test's
 * daemon (its binary, folder, socket and log), starting it or giving up,
 * reading its log, children's exit statuses, a hash for test data, the
 * check of a refusal's message, reading a file, and a program's work folder
 * and main loop. */
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

/* A whole file in memory (malloc), its size in *len; NULL if unreadable. */
static inline uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(*len);
    if (p && fread(p, 1, *len, f) != *len) {
        free(p);
        p = NULL;
    }
    fclose(f);
    return p;
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

/* The work folder /tmp/openpimd-<what>-XXXXXX with the daemon's socket and
 * log in it, and a process that no profile of the caller's environment
 * reaches and that a closed socket does not kill.  0, or -1. */
static inline int scenario_folder(const char *what)
{
    snprintf(dir, sizeof dir, "/tmp/openpimd-%s-XXXXXX", what);
    if (!mkdtemp(dir))
        return -1;
    snprintf(sock, sizeof sock, "%s/s.sock", dir);
    snprintf(logpath, sizeof logpath, "%s/daemon.log", dir);
    unsetenv("UPMEM_PROFILE");
    unsetenv("UPMEM_PROFILE_BASE");
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

struct scenario {
    const char *name;
    void (*run)(void);
};

/* Runs the scenario called `name` of the n in `all`, stops the daemon it left
 * running, shows the daemon's log if a check failed and removes the folder
 * if none did; the program's exit status. */
static inline int scenario_run(const char *name, const struct scenario *all, size_t n)
{
    size_t k = 0;
    while (k < n && strcmp(name, all[k].name))
        k++;
    if (k == n) {
        fprintf(stderr, "unknown scenario %s\n", name);
        return 2;
    }
    all[k].run();
    if (daemon_pid > 0)
        CHECK_EQ(stop_daemon(daemon_pid), 0);
    if (check_failures)
        show_log();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!check_failures && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return check_done(name);
}

#endif
