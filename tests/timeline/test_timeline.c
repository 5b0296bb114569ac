/* SPDX-License-Identifier: MIT */
/* Modelled time keeps a timeline per rank and one for the host: asynchronous
 * launches on two ranks overlap (the host waits, at dpu_sync, for the longer
 * one only), and events recorded through openpim_ext.h land on those timelines
 * and in the report under their category. */
#define _GNU_SOURCE
#include <dpu.h>
#include <math.h>
#include <openpim_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

static double since(double t0)
{
    return openpim_modelled_time_us() - t0;
}

static void scenario(void)
{
    struct dpu_set_t set, rank, ranks[2];
    uint32_t i = 0;
    DPU_ASSERT(dpu_alloc(2, "nrRanks=2,nrDpusPerRank=1", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_spin", NULL));
    DPU_RANK_FOREACH(set, rank) {
        uint32_t n = i == 0 ? 20000 : 50000;
        DPU_ASSERT(dpu_copy_to(rank, "iterations", 0, &n, 4));
        ranks[i++] = rank;
    }
    CHECK_EQ(i, 2);
    /* the first launch hands each rank's MRAM to its DPUs; no later one does (no MRAM access
       in between), so every launch below costs the same overhead */
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    /* each alone */
    double t = openpim_modelled_time_us();
    DPU_ASSERT(dpu_launch(ranks[0], DPU_SYNCHRONOUS));
    double a = since(t);
    t = openpim_modelled_time_us();
    DPU_ASSERT(dpu_launch(ranks[1], DPU_SYNCHRONOUS));
    double b = since(t);
    CHECK(a > 0 && b > a);
    /* both at once: the host does not wait until dpu_sync, then for the longer */
    t = openpim_modelled_time_us();
    DPU_ASSERT(dpu_launch(ranks[0], DPU_ASYNCHRONOUS));
    DPU_ASSERT(dpu_launch(ranks[1], DPU_ASYNCHRONOUS));
    CHECK(NEAR(since(t), 0));
    DPU_ASSERT(dpu_sync(set));
    CHECK(NEAR(since(t), b));
    /* a second launch on a busy rank queues behind the first, and starts only
     * once the first is accounted (repeated: a race here shows now and then) */
    for (int round = 0; round < 20; round++) {
        t = openpim_modelled_time_us();
        DPU_ASSERT(dpu_launch(ranks[0], DPU_ASYNCHRONOUS));
        DPU_ASSERT(dpu_launch(ranks[0], DPU_ASYNCHRONOUS));
        DPU_ASSERT(dpu_sync(ranks[0]));
        CHECK(NEAR(since(t), 2 * a));
    }
    /* a synchronous launch waits for its ranks' earlier work */
    t = openpim_modelled_time_us();
    DPU_ASSERT(dpu_launch(ranks[1], DPU_ASYNCHRONOUS));
    DPU_ASSERT(dpu_launch(ranks[1], DPU_SYNCHRONOUS));
    CHECK(NEAR(since(t), 2 * b));

    /* library events */
    t = openpim_modelled_time_us();
    CHECK_EQ(openpim_record_event(ranks[0], OPENPIM_EVENT_INTER_HOST, "mpi exchange", 100.0, false), DPU_OK);
    CHECK(NEAR(since(t), 100.0));
    t = openpim_modelled_time_us();
    CHECK_EQ(openpim_record_host_event(OPENPIM_EVENT_HOST, "host shuffle", 50.0), DPU_OK);
    CHECK(NEAR(since(t), 50.0));
    t = openpim_modelled_time_us();
    CHECK_EQ(openpim_record_event(ranks[1], OPENPIM_EVENT_INTER_DPU, "reorder kernel", 70.0, true), DPU_OK);
    CHECK_EQ(openpim_record_host_event(OPENPIM_EVENT_HOST, "overlapped host work", 30.0), DPU_OK);
    CHECK(NEAR(since(t), 30.0));
    DPU_ASSERT(dpu_sync(ranks[1]));
    CHECK(NEAR(since(t), 70.0));
    /* refused: nothing recorded */
    t = openpim_modelled_time_us();
    CHECK_EQ(openpim_record_event(ranks[0], OPENPIM_EVENT_HOST, "x", -1.0, false), DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_record_event(ranks[0], OPENPIM_EVENT_HOST, "x", NAN, false), DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_record_event(ranks[0], (enum openpim_event_category)99, "x", 1.0, false), DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_record_event(ranks[0], OPENPIM_EVENT_HOST, NULL, 1.0, false), DPU_ERR_UNSUPPORTED);
    CHECK(NEAR(since(t), 0));
    DPU_ASSERT(dpu_free(set));
    struct dpu_set_t freed = set;
    CHECK_EQ(openpim_record_event(freed, OPENPIM_EVENT_HOST, "x", 1.0, false), DPU_ERR_INVALID_DPU_SET);
}

int main(void)
{
    char path[] = "/tmp/openpim-timeline-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    pid_t pid = fork();
    if (pid == 0) { /* the report is written at exit */
        setenv("OPENPIM_REPORT", path, 1);
        scenario();
        exit(check_done("test_timeline (scenario)"));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[256];
    double total = -1, timeline = -1, inter_host = -1;
    unsigned long long host_calls = 0;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "total %lf", &total);
        sscanf(line, "timeline %lf", &timeline);
        sscanf(line, "Inter-host %*u %lf", &inter_host);
        sscanf(line, "Other %llu", &host_calls);
    }
    if (f)
        fclose(f);
    unlink(path);
    CHECK(NEAR(inter_host, 0.1)); /* ms */
    CHECK_EQ(host_calls, 3); /* the two host events and the program's load */
    CHECK(timeline > 0 && timeline < total); /* overlapping work: the timeline is shorter than the sum */
    return check_done("test_timeline");
}
