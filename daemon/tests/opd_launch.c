/* SPDX-License-Identifier: MIT */
/* Starts openpimd for a shell script and returns once it is ready (it says
 * so through NOTIFY_SOCKET: no sleeping); prints the daemon's pid.
 *   opd_launch OPENPIMD SOCKET LOG [openpimd options...] */
#include "harness.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s OPENPIMD SOCKET LOG [options...]\n", argv[0]);
        return 2;
    }
    pid_t pid = start_daemon(argv[1], argv[2], (const char *const *)argv + 4, argv[3]);
    if (pid <= 0)
        return 1;
    printf("%d\n", (int)pid);
    return 0;
}
