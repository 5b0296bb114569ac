/* SPDX-License-Identifier: MIT */
/* A guest tenant that speaks openpimd's protocol itself (backend/
 * remote_protocol.h) over AF_VSOCK, to try what libdpu never would: another
 * tenant's DPUs.  Built statically into the test VM's initramfs (run_vm.py).
 *
 *   vm_tenant hold  CID PORT TOKEN        claims a rank, writes a secret to
 *                                         every DPU, prints "@@OPENPIM HOLD
 *                                         rank=R", waits for a line on stdin,
 *                                         then checks the secret is intact
 *   vm_tenant probe CID PORT TOKEN RANK   claims a rank of its own (it must
 *                                         read zeros), then tries to read,
 *                                         write, launch and release DPUs of
 *                                         RANK and to see the daemon's status:
 *                                         every try must be refused
 * Prints "@@OPENPIM <MODE>-OK" when every check passed, else the failures
 * and "@@OPENPIM <MODE>-BAD"; exit status 0 or 1. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/vm_sockets.h>

#include "remote_protocol.h"

static int fd, failures;
static uint32_t seq;
static char msg[512];

static void fail(const char *what)
{
    printf("@@OPENPIM CHECK-FAILED %s%s%s\n", what, msg[0] ? ": " : "", msg);
    fflush(stdout);
    failures++;
}

static int put(const void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = send(fd, (const char *)p + done, n - done, MSG_NOSIGNAL);
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

static int get(void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = recv(fd, (char *)p + done, n - done, 0);
        if (k <= 0)
            return -1;
        done += (size_t)k;
    }
    return 0;
}

/* One request: its status (OPD_OK, OPD_ERROR with the message in msg), or -1
 * if the connection broke. */
static int call(uint16_t op, const void *fixed, size_t flen, const uint32_t *dpus, uint32_t n, const void *data,
                size_t dlen, void *rep, size_t rlen)
{
    struct opd_header h = {.magic = OPD_MAGIC, .version = OPD_VERSION, .op = op, .seq = ++seq,
                           .len = flen + (size_t)n * 4 + dlen};
    msg[0] = 0;
    if (put(&h, sizeof h) || put(fixed, flen) || put(dpus, (size_t)n * 4) || put(data, dlen))
        return -1;
    struct opd_header a;
    if (get(&a, sizeof a) || a.magic != OPD_MAGIC || a.len > (1u << 20))
        return -1;
    char *payload = malloc(a.len + 1);
    if (!payload || get(payload, a.len)) {
        free(payload);
        return -1;
    }
    payload[a.len] = 0;
    if (a.status == OPD_OK && rep && a.len == rlen)
        memcpy(rep, payload, rlen);
    else if (a.status != OPD_OK)
        snprintf(msg, sizeof msg, "%s", payload);
    free(payload);
    return (int)a.status;
}

/* The call must be refused with a message containing `why`. */
static void refused(int status, const char *what, const char *why)
{
    char line[256];
    snprintf(line, sizeof line, "%s is refused with '%s'", what, why);
    if (status != OPD_ERROR || !strstr(msg, why))
        fail(line);
}

static uint32_t secret(uint32_t dpu, uint32_t k)
{
    uint32_t x = dpu * 0x9e3779b9u ^ k * 0x85ebca6bu ^ 0x5ec2e7u;
    x ^= x >> 15;
    return x * 0x2c1b3c6du;
}

int main(int argc, char **argv)
{
    if (argc < 5 || (!strcmp(argv[1], "probe") && argc != 6)) {
        fprintf(stderr, "usage: vm_tenant hold|probe CID PORT TOKEN [RANK]\n");
        return 2;
    }
    int hold = !strcmp(argv[1], "hold");
    fd = socket(AF_VSOCK, SOCK_STREAM, 0);
    struct sockaddr_vm a = {.svm_family = AF_VSOCK, .svm_cid = (unsigned)atoi(argv[2]),
                            .svm_port = (unsigned)atoi(argv[3])};
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        printf("@@OPENPIM CHECK-FAILED connect: %s\n", strerror(errno));
        return 1;
    }
    struct opd_hello hello;
    memset(&hello, 0, sizeof hello);
    hello.layout = OPD_LAYOUT;
    snprintf(hello.token, sizeof hello.token, "%s", argv[4]);
    struct opd_hello_reply info;
    if (call(OPD_HELLO, &hello, sizeof hello, NULL, 0, NULL, 0, &info, sizeof info) != OPD_OK) {
        fail("HELLO");
        return 1;
    }
    uint32_t per = info.info.dpus_per_rank;
    struct opd_claim claim = {.wait_ms = 20000, .count = 1, .min = 1};
    struct opd_rank mine = {0};
    if (call(OPD_CLAIM, &claim, sizeof claim, NULL, 0, NULL, 0, &mine.rank, sizeof mine.rank) != OPD_OK) {
        fail("CLAIM of a rank of its own");
        return 1;
    }
    enum { WORDS = 1024 };
    static uint32_t buf[WORDS], back[WORDS];
    if (hold) {
        for (uint32_t i = 0; i < per; i++) {
            uint32_t dpu = mine.rank * per + i;
            for (uint32_t k = 0; k < WORDS; k++)
                buf[k] = secret(dpu, k);
            struct opd_write w = {.region = OP_REGION_MRAM, .off = 4096, .n = 1, .nsrc = 1, .len = sizeof buf};
            if (call(OPD_WRITE, &w, sizeof w, &dpu, 1, buf, sizeof buf, NULL, 0) != OPD_OK)
                fail("WRITE of the secret");
        }
        printf("@@OPENPIM HOLD rank=%u\n", mine.rank);
        fflush(stdout);
        char line[64];
        if (!fgets(line, sizeof line, stdin))
            fail("a line on stdin");
        for (uint32_t i = 0; i < per; i++) {
            uint32_t dpu = mine.rank * per + i;
            struct opd_read rd = {.dpu = dpu, .region = OP_REGION_MRAM, .off = 4096, .len = sizeof back};
            if (call(OPD_READ, &rd, sizeof rd, NULL, 0, NULL, 0, back, sizeof back) != OPD_OK) {
                fail("READ of the secret");
                continue;
            }
            for (uint32_t k = 0; k < WORDS; k++)
                if (back[k] != secret(dpu, k)) {
                    fail("the secret is intact");
                    break;
                }
        }
    } else {
        uint32_t other = (uint32_t)atoi(argv[5]);
        if (other == mine.rank)
            fail("a rank other than the holder's");
        struct opd_read rd = {.dpu = mine.rank * per + 1, .region = OP_REGION_MRAM, .off = 4096, .len = sizeof back};
        memset(back, 0xff, sizeof back);
        if (call(OPD_READ, &rd, sizeof rd, NULL, 0, NULL, 0, back, sizeof back) != OPD_OK)
            fail("READ of its own rank");
        for (uint32_t k = 0; k < WORDS; k++)
            if (back[k]) {
                fail("its own rank reads zeros");
                break;
            }
        uint32_t victim = other * per + 5;
        rd.dpu = victim;
        refused(call(OPD_READ, &rd, sizeof rd, NULL, 0, NULL, 0, back, sizeof back), "READ of the holder's DPU",
                "which is not yours");
        struct opd_write w = {.region = OP_REGION_MRAM, .off = 4096, .n = 1, .nsrc = 1, .len = 8};
        refused(call(OPD_WRITE, &w, sizeof w, &victim, 1, buf, 8, NULL, 0), "WRITE to the holder's DPU",
                "which is not yours");
        uint32_t both[2] = {mine.rank * per, victim};
        w.n = 2;
        refused(call(OPD_WRITE, &w, sizeof w, both, 2, buf, 8, NULL, 0), "WRITE to its own DPU and the holder's",
                "which is not yours");
        struct opd_count cnt = {.n = 1};
        refused(call(OPD_LAUNCH, &cnt, sizeof cnt, &victim, 1, NULL, 0, NULL, 0), "LAUNCH of the holder's DPU",
                "which is not yours");
        struct opd_rank rel = {.rank = other};
        refused(call(OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, NULL, 0), "RELEASE of the holder's rank",
                "is not yours");
        refused(call(OPD_STATUS, NULL, 0, NULL, 0, NULL, 0, NULL, 0), "STATUS from a guest", "operators only");
        struct opd_drain dr = {.rank = other, .on = 1};
        refused(call(OPD_DRAIN, &dr, sizeof dr, NULL, 0, NULL, 0, NULL, 0), "DRAIN from a guest", "operators only");
    }
    struct opd_rank rel = {.rank = mine.rank};
    if (call(OPD_RELEASE, &rel, sizeof rel, NULL, 0, NULL, 0, NULL, 0) != OPD_OK)
        fail("RELEASE of its own rank");
    printf("@@OPENPIM %s-%s\n", hold ? "HOLD" : "PROBE", failures ? "BAD" : "OK");
    return failures ? 1 : 0;
}
