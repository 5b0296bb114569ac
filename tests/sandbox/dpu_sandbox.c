/* SPDX-License-Identifier: MIT */
/* A DPU program that tries to leave its sandbox when the host asks it to.
 * `mode` 0 computes a result the host checks; other modes make tasklet 0 (or
 * the tasklet named below) issue raw system calls, spin forever or overflow
 * its stack.  The system calls go through dpu_escape.S with numbers and
 * arguments as 64-bit integers, so they mean the same with 4-byte pointers. */
#include <barrier.h>
#include <defs.h>
#include <mram.h>
#include <stdint.h>

__host uint32_t mode;
__host uint64_t host_pid;
__host char path[128];  /* a file the host expects never to exist */
__host char shell[192]; /* a shell command that would create it */
__host uint64_t result;
__host uint64_t returned; /* set if a forbidden call ever returns */
__mram_noinit uint64_t mram_out[NR_TASKLETS];
BARRIER_INIT(everyone, NR_TASKLETS);

static volatile uint64_t sink;

/* dpu_escape.S: system call nr(a0..a4) */
long long op_sys(long long nr, long long a0, long long a1, long long a2, long long a3, long long a4);

#define ADDR(p) ((long long)(uintptr_t)(p))

/* A frame of `size` bytes (more than a tasklet's stack here), written from
 * its lowest byte up: on the DPU it would overwrite the WRAM below the stack. */
static __attribute__((noinline)) uint32_t big_frame(uint32_t n)
{
    volatile uint8_t frame[6000];
    for (uint32_t i = 0; i < sizeof frame; i += 512)
        frame[i] = (uint8_t)n;
    return frame[n % sizeof frame];
}

static void overflow(unsigned tasklet)
{
    barrier_wait(&everyone);
    if (me() == tasklet)
        sink = big_frame(me());
}

int main(void)
{
    if (mode == 0) {
        uint64_t v = (uint64_t)me() * 1000 + 7;
        mram_write(&v, &mram_out[me()], 8);
        if (me() == 0)
            result = 42;
        return 0;
    }
    if (mode == 18) { /* tasklet 0, the lowest stack: its frame would reach below every stack */
        overflow(0);
        return 0;
    }
    if (mode == 19) { /* tasklet 3: its frame would reach into tasklets 2, 1 and 0's stacks */
        overflow(3);
        return 0;
    }
    if (me() != 0)
        return 0;
    uint64_t argv[4] = {(uint64_t)ADDR("/bin/sh"), (uint64_t)ADDR("-c"), (uint64_t)ADDR(shell), 0};
    long long r = 0;
    switch (mode) {
    case 1: r = op_sys(57, 0, 0, 0, 0, 0); break;                               /* fork */
    case 2: r = op_sys(58, 0, 0, 0, 0, 0); break;                               /* vfork */
    case 3: r = op_sys(56, 17 /* SIGCHLD */, 0, 0, 0, 0); break;                /* clone */
    case 4: r = op_sys(2, ADDR(path), 0101 /* O_WRONLY|O_CREAT */, 0644, 0, 0); break;  /* open */
    case 5: r = op_sys(257, -100 /* AT_FDCWD */, ADDR(path), 0101, 0644, 0); break; /* openat */
    case 6: r = op_sys(85, ADDR(path), 0644, 0, 0, 0); break;                   /* creat */
    case 7: r = op_sys(62, (long long)host_pid, 9 /* SIGKILL */, 0, 0, 0); break; /* kill(host) */
    case 8: /* kill(getppid(), SIGKILL) */
        r = op_sys(110, 0, 0, 0, 0, 0);
        r = op_sys(62, r, 9, 0, 0, 0);
        break;
    case 9: r = op_sys(234, (long long)host_pid, (long long)host_pid, 9, 0, 0); break; /* tgkill(host) */
    case 10: r = op_sys(9, 0, 1ll << 30, 3 /* RW */, 0x22 /* PRIVATE|ANONYMOUS */, -1); break; /* mmap 1 GB */
    case 11: r = op_sys(10, 0x10000000, 4096, 7 /* RWX */, 0, 0); break;        /* mprotect WRAM */
    case 12: r = op_sys(12, 0, 0, 0, 0, 0); break;                              /* brk */
    case 13: r = op_sys(59, ADDR("/bin/sh"), ADDR(argv), 0, 0, 0); break;       /* execve */
    case 14: r = op_sys(0x40000000ll | 39, 0, 0, 0, 0, 0); break;               /* x32 getpid */
    case 15: r = op_sys(1, 2, ADDR("x"), 1, 0, 0); break;                       /* write(2): allowed to the worker only */
    case 17: /* never finishes, makes no call */
        for (;;)
            sink++;
    }
    returned = (uint64_t)r + 1;
    return 0;
}
