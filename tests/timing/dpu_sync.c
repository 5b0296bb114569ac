/* SPDX-License-Identifier: MIT */
/* Kernels exercising one operation each, for the machine-description sweep
 * (test_desc_sweep.c) and the synchronisation timing tests:
 *   mode 0: nothing (boot only)            mode 1: barrier_wait
 *   mode 2: mutex_lock/unlock (+ trylock)  mode 3: sem_give/sem_take
 *   mode 4: handshake notify/wait_for      mode 5: mem_alloc
 *   mode 6: mem_reset                      mode 7: perfcounter_get
 *   mode 8: histogram of n values per tasklet, a mutex around every update
 *   mode 9: MRAM read and write            mode 10: every costed C operation
 *   mode 11: tasklet 0 spins n iterations, then barrier; the others wait at
 *            the barrier at once, then spin n iterations
 *   mode 12: histogram as PrIM's HST with a mutex: n values per tasklet read
 *            from MRAM in 256-byte blocks, a mutex around every update
 *   mode 13: the same in PrIM HST-L's form: each value read and binned,
 *            bin = (v * bins) >> 12 with bins (256) unknown to the compiler,
 *            before the lock, and the mutex read from an array indexed by
 *            the histogram's id (HST-L's my_mutex[histo_id], one histogram,
 *            left zero as HST-L leaves it: NULL is one mutex)
 *   mode 14: a work queue: each tasklet takes items from a shared counter
 *            under a mutex, with an 8-byte MRAM read inside the critical
 *            section (PrIM TRNS's flag test), until n are taken; then in[1]
 *            iterations of work per item.  out[t]: the items it took
 * in[] holds operands the compiler cannot see. */
#include <alloc.h>
#include <barrier.h>
#include <defs.h>
#include <handshake.h>
#include <mram.h>
#include <mutex.h>
#include <perfcounter.h>
#include <sem.h>
#include <stdint.h>

__host uint32_t mode, n;
__host uint32_t in[4];
__host uint32_t out[NR_TASKLETS];
__host uint32_t hist[256];
mutex_id_t hst_mutex[1]; /* mode 13 */
BARRIER_INIT(bar, NR_TASKLETS);
MUTEX_INIT(mtx);
SEMAPHORE_INIT(sem, 0);
__dma_aligned uint64_t buf[NR_TASKLETS][32];
__mram_noinit uint64_t mbuf[NR_TASKLETS][32];
__mram_noinit uint32_t input[NR_TASKLETS * 4096];
uint32_t queue_next; /* mode 14 */

/* not inlined: every caller runs the same instructions per iteration */
__attribute__((noinline)) static uint32_t spin(uint32_t k, uint32_t acc)
{
    for (uint32_t i = 0; i < k; i++)
        acc += i ^ (acc >> 3);
    return acc;
}

static uint32_t ops(void)
{
    volatile uint32_t a = in[0], b = in[1];
    volatile uint8_t c8 = (uint8_t)in[2], d8 = (uint8_t)in[3];
    volatile int32_t sa = (int32_t)in[0], sb = (int32_t)in[1] | 1;
    volatile uint64_t la = in[0] * 0x100000001ull, lb = in[1] | 3;
    volatile float fa = (float)in[2], fb = (float)in[3] + 1.0f;
    volatile double da = in[2], db = in[3] + 1.0;
    uint32_t r = (uint32_t)(c8 * d8);                 /* mul8 */
    r += a * b;                                       /* int32 multiply */
    r += a / (b | 1) + (uint32_t)(sa / sb);           /* unsigned and signed division */
    r += (uint32_t)(la * lb) + (uint32_t)(la / lb);   /* int64 */
    float f = fa + fb, g = fa * fb, h = fa / fb;      /* float */
    double x = da + db, y = da * db, z = da / db;     /* double */
    r += (uint32_t)f + (uint32_t)g + (uint32_t)h;     /* conversions */
    r += (uint32_t)x + (uint32_t)y + (uint32_t)z;
    r += fa < fb;                                     /* float compare */
    return r;
}

int main(void)
{
    uint32_t t = me(), acc = t;
    switch (mode) {
    case 1:
        barrier_wait(&bar);
        break;
    case 2:
        mutex_lock(mtx);
        acc = spin(n, acc);
        mutex_unlock(mtx);
        if (mutex_trylock(mtx))
            mutex_unlock(mtx);
        break;
    case 3:
        if (t == 0)
            for (uint32_t i = 1; i < NR_TASKLETS; i++)
                sem_give(&sem);
        else
            sem_take(&sem);
        break;
    case 4:
        if (t == 0)
            handshake_notify();
        else if (t == 1)
            handshake_wait_for(0);
        break;
    case 5:
        acc += (uint32_t)(uintptr_t)mem_alloc(8);
        break;
    case 6:
        acc += (uint32_t)(uintptr_t)mem_reset();
        break;
    case 7:
        acc += (uint32_t)perfcounter_get();
        break;
    case 8: {
        uint32_t s = (in[0] ^ (t * 0x9E3779B9u)) | 1u;
        for (uint32_t i = 0; i < n; i++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            mutex_lock(mtx);
            hist[s & 255]++;
            mutex_unlock(mtx);
        }
        break;
    }
    case 9:
        mram_read(mbuf[t], buf[t], sizeof buf[t]);
        buf[t][0] += t;
        mram_write(buf[t], mbuf[t], sizeof buf[t]);
        acc = (uint32_t)buf[t][1];
        break;
    case 10:
        acc = ops();
        break;
    case 11:
        if (t == 0)
            acc = spin(n, acc);
        barrier_wait(&bar);
        if (t != 0)
            acc = spin(n, acc);
        break;
    case 12: {
        uint32_t *blk = (uint32_t *)buf[t];
        for (uint32_t i = 0; i < n; i += 64) {
            mram_read(&input[t * 4096 + i], blk, 256);
            for (uint32_t j = 0; j < 64 && i + j < n; j++) {
                mutex_lock(mtx);
                hist[blk[j] & 255]++;
                mutex_unlock(mtx);
            }
        }
        break;
    }
    case 13: {
        uint32_t *blk = (uint32_t *)buf[t];
        uint32_t bins = in[1] << 8, histo_id = t & 0; /* HST-L: tasklet_id & (NR_HISTO - 1), NR_HISTO 1 */
        for (uint32_t i = 0; i < n; i += 64) {
            mram_read(&input[t * 4096 + i], blk, 256);
            for (uint32_t j = 0; j < 64 && i + j < n; j++) {
                uint32_t d = ((blk[j] & 4095) * bins) >> 12; /* 12-bit values, as HST's */
                mutex_lock(hst_mutex[histo_id]);
                hist[d] += 1;
                mutex_unlock(hst_mutex[histo_id]);
            }
        }
        break;
    }
    case 14: {
        uint32_t got = 0;
        for (;;) {
            mutex_lock(mtx);
            uint32_t item = queue_next++;
            mram_read(mbuf[0], buf[t], 8);
            mutex_unlock(mtx);
            if (item >= n)
                break;
            got++;
            spin(in[1], (uint32_t)buf[t][0]);
        }
        acc = got;
        break;
    }
    default:
        break;
    }
    out[t] = acc;
    return 0;
}
