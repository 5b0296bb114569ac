/* SPDX-License-Identifier: MIT */
/* openpim_timing_pause / openpim_timing_resume (openpim_ext.h): while a thread
 * is paused its transfers and library events move data but charge no modelled
 * time and leave no event; pauses nest; a resume without pause and a launch
 * while paused are refused loudly; another thread is charged as usual; an
 * asynchronous transfer keeps the state it was issued in; the report counts
 * the untimed work; openpim_category_time_us gives the report's totals. */
#define _GNU_SOURCE
#include <dpu.h>
#include <openpim_ext.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static struct dpu_set_t set;
static uint64_t words[64];

static double inter_dpu(void)
{
    double us = -1;
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_INTER_DPU, &us), DPU_OK);
    return us;
}

/* A transfer that costs modelled time when timed. */
static void copy(void)
{
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, words, sizeof words, DPU_XFER_DEFAULT));
}

static void *other_thread(void *arg)
{
    double *delta = arg;
    CHECK_EQ(openpim_timing_paused(), 0); /* the main thread's pause is not this thread's */
    double t0 = openpim_modelled_time_us();
    copy();
    *delta = openpim_modelled_time_us() - t0;
    return NULL;
}

static void *paused_thread(void *arg)
{
    (void)arg;
    CHECK_EQ(openpim_timing_pause(), DPU_OK);
    return NULL; /* ends paused: reported on stderr by the key's destructor */
}

/* In a child process of its own (fresh report state): the report counts the
 * untimed work, and a thread that ends paused and an exit while paused are
 * reported on stderr. */
static void report_scenario(void)
{
    char rpath[] = "/tmp/openpim_untimed_XXXXXX", epath[] = "/tmp/openpim_untimed_err_XXXXXX";
    int fd = mkstemp(rpath), fe = mkstemp(epath);
    CHECK(fd >= 0 && fe >= 0);
    close(fd);
    close(fe);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("OPENPIM_REPORT", rpath, 1);
        if (!freopen(epath, "w", stderr))
            _exit(3);
        struct dpu_set_t s;
        DPU_ASSERT(dpu_alloc(1, "nrRanks=1,nrDpusPerRank=1", &s));
        DPU_ASSERT(dpu_load(s, "./dpu_spin", NULL));
        pthread_t th;
        if (pthread_create(&th, NULL, paused_thread, NULL) || pthread_join(th, NULL))
            _exit(4);
        openpim_timing_pause();
        DPU_ASSERT(dpu_broadcast_to(s, DPU_MRAM_HEAP_POINTER_NAME, 0, words, sizeof words, DPU_XFER_DEFAULT));
        openpim_record_host_event(OPENPIM_EVENT_HOST, "hidden", 1);
        openpim_timing_resume();
        DPU_ASSERT(dpu_broadcast_to(s, DPU_MRAM_HEAP_POINTER_NAME, 0, words, sizeof words, DPU_XFER_DEFAULT));
        openpim_timing_pause(); /* left paused at exit */
        exit(0);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    static const char *const want[][2] = {
        {"r", "untimed (openpim_timing_pause): 1 transfer(s), 0.0 MB, and 1 library event(s) not charged"},
        {"e", "a thread ended with modelled timing paused (1 openpim_timing_pause without resume)"},
        {"e", "exit with modelled timing paused (1 openpim_timing_pause without resume)"},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        FILE *f = fopen(want[k][0][0] == 'r' ? rpath : epath, "r");
        CHECK(f != NULL);
        char line[512];
        int found = 0;
        while (f && fgets(line, sizeof line, f))
            found |= strstr(line, want[k][1]) != NULL;
        if (f)
            fclose(f);
        if (!found)
            fprintf(stderr, "not found: %s\n", want[k][1]);
        CHECK(found);
    }
    unlink(rpath);
    unlink(epath);
}

int main(void)
{
    report_scenario();
    /* misuse before anything is allocated: a resume without a pause */
    CHECK_EQ(openpim_timing_paused(), 0);
    CHECK_EQ(openpim_timing_resume(), DPU_ERR_UNSUPPORTED);
    CHECK(strstr(openpim_last_error(), "without openpim_timing_pause") != NULL);

    DPU_ASSERT(dpu_alloc(2, "nrRanks=2,nrDpusPerRank=1", &set));
    DPU_ASSERT(dpu_load(set, "./dpu_spin", NULL));
    double loaded; /* the load: an "Other" event */
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_HOST, &loaded), DPU_OK);
    for (int i = 0; i < 64; i++)
        words[i] = (uint64_t)i * 0x0101010101010101ull;
    copy(); /* first access */
    double t0 = openpim_modelled_time_us();
    copy();
    double timed = openpim_modelled_time_us() - t0;
    CHECK(timed > 0);

    /* paused: the data move (read back exactly), the clock does not */
    t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_timing_pause(), DPU_OK);
    CHECK_EQ(openpim_timing_paused(), 1);
    for (int i = 0; i < 64; i++)
        words[i] = ~words[i];
    copy();
    uint64_t back[64] = {0};
    struct dpu_set_t dpu;
    DPU_FOREACH(set, dpu) {
        memset(back, 0, sizeof back);
        DPU_ASSERT(dpu_copy_from(dpu, DPU_MRAM_HEAP_POINTER_NAME, 0, back, sizeof back));
        CHECK(memcmp(back, words, sizeof words) == 0);
    }
    /* library events are not charged either (bad arguments still refused) */
    CHECK_EQ(openpim_record_event(set, OPENPIM_EVENT_INTER_DPU, "hidden", 5.0, false), DPU_OK);
    CHECK_EQ(openpim_record_host_event(OPENPIM_EVENT_HOST, "hidden", 7.0), DPU_OK);
    CHECK_EQ(openpim_record_event(set, OPENPIM_EVENT_INTER_DPU, "bad", -1, false), DPU_ERR_UNSUPPORTED);
    /* nesting: the inner resume leaves the thread paused */
    CHECK_EQ(openpim_timing_pause(), DPU_OK);
    CHECK_EQ(openpim_timing_paused(), 2);
    CHECK_EQ(openpim_timing_resume(), DPU_OK);
    CHECK_EQ(openpim_timing_paused(), 1);
    copy();
    /* a launch is refused, clearly, and does not run */
    CHECK_EQ(dpu_launch(set, DPU_SYNCHRONOUS), DPU_ERR_UNSUPPORTED);
    CHECK(strstr(openpim_last_error(), "timing is paused") != NULL);
    CHECK_EQ(dpu_launch(set, DPU_ASYNCHRONOUS), DPU_ERR_UNSUPPORTED);
    /* an asynchronous transfer issued paused stays untimed */
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, words, sizeof words, DPU_XFER_ASYNC));
    DPU_ASSERT(dpu_sync(set));
    /* another thread is charged while this one is paused */
    double other = 0;
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, other_thread, &other), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK(other > 0);
    CHECK(openpim_modelled_time_us() == t0 + other); /* nothing of this thread's */
    CHECK_EQ(openpim_timing_resume(), DPU_OK);
    CHECK_EQ(openpim_timing_paused(), 0);
    CHECK_EQ(openpim_timing_resume(), DPU_ERR_UNSUPPORTED); /* one resume too many */
    CHECK_EQ(openpim_timing_paused(), 0);

    /* timed again: a launch runs, transfers and events are charged */
    DPU_FOREACH(set, dpu) {
        uint32_t n = 1000;
        DPU_ASSERT(dpu_copy_to(dpu, "iterations", 0, &n, 4));
    }
    DPU_ASSERT(dpu_launch(set, DPU_SYNCHRONOUS));
    /* an asynchronous transfer issued timed stays timed when a paused thread syncs it */
    t0 = openpim_modelled_time_us();
    DPU_ASSERT(dpu_broadcast_to(set, DPU_MRAM_HEAP_POINTER_NAME, 0, words, sizeof words, DPU_XFER_ASYNC));
    CHECK_EQ(openpim_timing_pause(), DPU_OK);
    DPU_ASSERT(dpu_sync(set));
    CHECK_EQ(openpim_timing_resume(), DPU_OK);
    CHECK(openpim_modelled_time_us() > t0);

    /* the Inter-DPU total grows by exactly a recorded event */
    double before = inter_dpu();
    t0 = openpim_modelled_time_us();
    CHECK_EQ(openpim_record_event(set, OPENPIM_EVENT_INTER_DPU, "link", 3.25, false), DPU_OK);
    CHECK(openpim_modelled_time_us() == t0 + 3.25);
    CHECK(inter_dpu() == before + 3.25);
    double us;
    CHECK_EQ(openpim_category_time_us((enum openpim_event_category)99, &us), DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_HOST, NULL), DPU_ERR_UNSUPPORTED);
    CHECK_EQ(openpim_category_time_us(OPENPIM_EVENT_HOST, &us), DPU_OK);
    CHECK(us == loaded); /* the hidden host event above left nothing */

    /* a thread that ends paused is reported; this thread is not affected */
    CHECK_EQ(pthread_create(&th, NULL, paused_thread, NULL), 0);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(openpim_timing_paused(), 0);

    DPU_ASSERT(dpu_free(set));
    return check_done("test_untimed");
}
