/* SPDX-License-Identifier: MIT */
/* The profile string of dpu_alloc: "key=value,key=value", with the
 * environment's UPMEM_PROFILE_BASE before and UPMEM_PROFILE after the argument
 * (later keys win).  Keys OpenPIM does not know are ignored, as the UPMEM SDK
 * does.  The machine starts from the v1A description (timing/timing.h); keys:
 *   chip=v1A|v1B             start from that chip's description
 *   desc_file=PATH           a machine description file (timing/presets/)
 *   server=NAME              a server preset (timing/presets/server-NAME.desc):
 *                            topology, transfer and launch constants; applied
 *                            after chip/desc_file and before the other keys
 *   nrRanks=N, nrDpusPerRank=N
 *   any key of the machine description (freq_mhz, dma_read_fixed, channels, ...)
 *   workers, timeoutMs, hostMemoryLimitMB, sgXferEnable, sgXferMaxBlocksPerDpu,
 *   disableResetOnAlloc, backend (hw|simulator: both mean the embedded emulator;
 *   remote: the machine of an openpimd daemon, at socket=PATH, else
 *   $OPENPIM_SOCKET, else $XDG_RUNTIME_DIR/openpimd.sock or /run/openpimd.sock,
 *   or from inside a virtual machine at vsock=CID:PORT (AF_VSOCK; the host is
 *   CID 2); token=TOKEN, else $OPENPIM_TOKEN: the tenant's token (required
 *   over vsock); remoteStream=true: bulk data streams over the connection, not
 *   through shared memory (always so over vsock); remoteBatch=BOOL, else
 *   $OPENPIM_REMOTE_BATCH=1 (default off), and remotePrefetch=BOOL, else
 *   $OPENPIM_REMOTE_PREFETCH=0 (default on): vPIM's batching of small writes
 *   and prefetch of small reads; allocWaitMs=N: how long a claim waits in the
 *   daemon's queue). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int parse_bool(const char *v, bool *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes")) {
        *out = true;
        return 0;
    }
    if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no")) {
        *out = false;
        return 0;
    }
    return -1;
}

static int parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end;
    /* strtoull negates a leading '-' modulo 2^64 ("-18446744073709551615" is
     * 1) and saturates on overflow: refuse both rather than wrap */
    if (strchr(v, '-'))
        return -1;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (!*v || *end || errno == ERANGE || x < lo || x > hi)
        return -1;
    *out = (uint32_t)x;
    return 0;
}

/* vsock=CID:PORT, both decimal: CID 0 is the hypervisor and 2^32 - 1 "any",
 * neither a peer; port 0 and 2^32 - 1 ("any") name no service.  0, or -1
 * with the reason in why. */
static int parse_vsock(const char *v, uint32_t *cid, uint32_t *port, char *why, size_t whylen)
{
    char copy[64];
    const char *colon = strchr(v, ':');
    if (!colon || strlen(v) >= sizeof copy) {
        snprintf(why, whylen, "'%s' is not CID:PORT (the host is CID 2, e.g. vsock=2:5000)", v);
        return -1;
    }
    snprintf(copy, sizeof copy, "%.*s", (int)(colon - v), v);
    if (parse_u32(copy, 1, UINT32_MAX - 1, cid) != 0) {
        snprintf(why, whylen, "CID '%s' is not a number from 1 to %u (0 is the hypervisor, %u any)", copy,
                 UINT32_MAX - 1, UINT32_MAX);
        return -1;
    }
    if (parse_u32(colon + 1, 1, UINT32_MAX - 1, port) != 0) {
        snprintf(why, whylen, "port '%s' is not a number from 1 to %u", colon + 1, UINT32_MAX - 1);
        return -1;
    }
    return 0;
}

/* Applies one key; returns -1 for a bad value of a known key. */
static int apply(struct op_profile *p, const char *key, const char *val, int pass)
{
    uint32_t u;
    char kv[512];
    bool chip_key = !strcmp(key, "chip") || !strcmp(key, "desc_file");
    int key_pass = chip_key ? 0 : !strcmp(key, "server") ? 1 : 2;
    if (key_pass != pass) /* chip and description file first, then the server, then everything else */
        return 0;
    if (!strcmp(key, "server"))
        return op_machine_desc_server(&p->machine.desc, val, NULL, 0);
    if (!strcmp(key, "chip"))
        return op_machine_desc_preset(val, &p->machine.desc);
    if (!strcmp(key, "nrRanks")) {
        if (parse_u32(val, 1, OP_TIMING_MAX_RANKS, &u))
            return -1;
        snprintf(kv, sizeof kv, "nr_ranks=%u", u);
        return op_machine_desc_apply(&p->machine.desc, kv) < 0 ? -1 : 0;
    }
    if (!strcmp(key, "nrDpusPerRank")) {
        if (parse_u32(val, 1, 64, &u))
            return -1;
        unsigned chips = u % 8 == 0 ? 8 : (u < 8 ? u : 1);
        p->machine.desc.chips_per_rank = chips;
        p->machine.desc.dpus_per_chip = u / chips;
        return 0;
    }
    if (!strcmp(key, "workers"))
        return parse_u32(val, 0, OP_MAX_WORKERS, &p->machine.workers);
    if (!strcmp(key, "timeoutMs")) {
        if (parse_u32(val, 0, UINT32_MAX, &u))
            return -1;
        p->machine.budget_ns = (uint64_t)u * 1000000u;
        return 0;
    }
    if (!strcmp(key, "hostMemoryLimitMB")) {
        if (parse_u32(val, 1, UINT32_MAX, &u))
            return -1;
        p->machine.memory_limit = (uint64_t)u << 20;
        return 0;
    }
    if (!strcmp(key, "sgXferEnable"))
        return parse_bool(val, &p->sg_enabled);
    if (!strcmp(key, "sgXferMaxBlocksPerDpu"))
        return parse_u32(val, 1, UINT32_MAX, &p->sg_max_blocks);
    if (!strcmp(key, "disableResetOnAlloc")) /* released ranks are reset: allocated ones are always clean */
        return parse_bool(val, &(bool){false});
    if (!strcmp(key, "backend")) {
        p->remote = !strcmp(val, "remote");
        return p->remote || !strcmp(val, "hw") || !strcmp(val, "simulator") ? 0 : -1;
    }
    if (!strcmp(key, "socket")) {
        if (!*val || strlen(val) >= sizeof p->machine.remote)
            return -1;
        snprintf(p->machine.remote, sizeof p->machine.remote, "%s", val);
        return 0;
    }
    if (!strcmp(key, "vsock"))
        return parse_vsock(val, &p->machine.vsock_cid, &p->machine.vsock_port, kv, sizeof kv);
    if (!strcmp(key, "token")) {
        if (!*val || strlen(val) >= sizeof p->machine.token || strpbrk(val, " \t\r\n"))
            return -1;
        snprintf(p->machine.token, sizeof p->machine.token, "%s", val);
        return 0;
    }
    if (!strcmp(key, "remoteStream") || !strcmp(key, "remoteBatch") || !strcmp(key, "remotePrefetch")) {
        bool on;
        if (parse_bool(val, &on))
            return -1;
        if (!strcmp(key, "remoteStream"))
            p->machine.stream = on;
        else
            *(!strcmp(key, "remoteBatch") ? &p->batch : &p->prefetch) = on;
        return 0;
    }
    if (!strcmp(key, "allocWaitMs"))
        return parse_u32(val, 0, UINT32_MAX, &p->machine.alloc_wait_ms);
    /* a key of the machine description, or unknown (ignored) */
    snprintf(kv, sizeof kv, "%s=%s", key, val);
    return op_machine_desc_apply(&p->machine.desc, kv) < 0 ? -1 : 0;
}

/* backend=remote: the machine is the daemon's.  A profile that names no
 * machine (the v1A default) takes it; one that does must name the daemon's.
 * Host workers, the run budget and the memory limit are the daemon's. */
static dpu_error_t remote_machine(struct op_profile *p, char *err, size_t errlen)
{
    const char *token = getenv("OPENPIM_TOKEN");
    if (!p->machine.token[0] && token && *token) {
        if (strlen(token) >= sizeof p->machine.token) {
            snprintf(err, errlen, "OPENPIM_TOKEN is longer than %zu characters", sizeof p->machine.token - 1);
            return DPU_ERR_INVALID_PROFILE;
        }
        snprintf(p->machine.token, sizeof p->machine.token, "%s", token);
    }
    const char *batch = getenv("OPENPIM_REMOTE_BATCH"), *prefetch = getenv("OPENPIM_REMOTE_PREFETCH");
    p->machine.batch = p->batch >= 0 ? p->batch : batch && !strcmp(batch, "1");
    p->machine.prefetch = p->prefetch >= 0 ? p->prefetch : !(prefetch && !strcmp(prefetch, "0"));
    if (p->machine.vsock_port && p->machine.remote[0]) {
        snprintf(err, errlen, "the profile names both socket=%s and vsock=%u:%u: one openpimd, one way to reach it",
                 p->machine.remote, p->machine.vsock_cid, p->machine.vsock_port);
        return DPU_ERR_INVALID_PROFILE;
    }
    if (p->machine.vsock_port) {
        p->machine.stream = 1; /* no descriptor crosses into a virtual machine */
        snprintf(p->machine.remote, sizeof p->machine.remote, "vsock:%u:%u", p->machine.vsock_cid,
                 p->machine.vsock_port);
    } else if (!p->machine.remote[0]) {
        const char *env = getenv("OPENPIM_SOCKET"), *rt = getenv("XDG_RUNTIME_DIR");
        if (env && *env)
            snprintf(p->machine.remote, sizeof p->machine.remote, "%s", env);
        else
            snprintf(p->machine.remote, sizeof p->machine.remote, "%s/openpimd.sock", rt && *rt ? rt : "/run");
    }
    struct op_machine_config daemon;
    if (op_backend_remote_describe(&p->machine, &daemon, err, errlen) != 0)
        return DPU_ERR_ALLOCATION;
    struct op_machine_desc dflt;
    memset(&dflt, 0, sizeof dflt);
    op_machine_desc_preset("v1A", &dflt);
    if (memcmp(&p->machine.desc, &dflt, sizeof dflt) != 0 &&
        memcmp(&p->machine.desc, &daemon.desc, sizeof dflt) != 0) {
        snprintf(err, errlen,
                 "openpimd at %s serves a %s machine of %u ranks of %u DPUs, not the one the profile describes "
                 "(%s, %u ranks of %u DPUs): drop the machine keys or give the daemon's",
                 p->machine.remote, daemon.desc.name, daemon.desc.nr_ranks,
                 daemon.desc.chips_per_rank * daemon.desc.dpus_per_chip, p->machine.desc.name,
                 p->machine.desc.nr_ranks, p->machine.desc.chips_per_rank * p->machine.desc.dpus_per_chip);
        return DPU_ERR_INVALID_PROFILE;
    }
    p->machine.desc = daemon.desc;
    p->machine.workers = daemon.workers;
    p->machine.budget_ns = daemon.budget_ns;
    p->machine.memory_limit = daemon.memory_limit;
    return DPU_OK;
}

static dpu_error_t parse_into(const char *text, struct op_profile *p, int pass, char *err, size_t errlen)
{
    if (!text)
        return DPU_OK;
    char *copy = strdup(text), *save = NULL;
    if (!copy)
        return DPU_ERR_SYSTEM;
    dpu_error_t rc = DPU_OK;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ')
            item++;
        if (!*item)
            continue;
        char *eq = strchr(item, '=');
        if (!eq) {
            snprintf(err, errlen, "profile entry '%s' is not key=value", item);
            rc = DPU_ERR_INVALID_PROFILE;
            break;
        }
        *eq = 0;
        if (apply(p, item, eq + 1, pass) != 0) {
            char why[256];
            struct op_machine_desc scratch = p->machine.desc;
            uint32_t cid, port;
            if (!strcmp(item, "server") && op_machine_desc_server(&scratch, eq + 1, why, sizeof why) != 0)
                snprintf(err, errlen, "profile key 'server': %s", why);
            else if (!strcmp(item, "vsock") && parse_vsock(eq + 1, &cid, &port, why, sizeof why) != 0)
                snprintf(err, errlen, "profile key 'vsock': %s", why);
            else if (!strcmp(item, "token"))
                snprintf(err, errlen, "profile key 'token': empty, longer than %d characters or with white space",
                         OP_TOKEN_MAX - 1);
            else
                snprintf(err, errlen, "profile key '%s' has an invalid value '%s'", item, eq + 1);
            rc = DPU_ERR_INVALID_PROFILE;
            break;
        }
    }
    free(copy);
    return rc;
}

dpu_error_t op_profile_parse(const char *profile, struct op_profile *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->batch = out->prefetch = -1;
    op_machine_desc_preset("v1A", &out->machine.desc); /* the embedded default: a 2560-DPU server */
    out->sg_max_blocks = UINT32_MAX;
    const char *parts[] = {getenv("UPMEM_PROFILE_BASE"), profile, getenv("UPMEM_PROFILE")};
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < 3; i++) {
            dpu_error_t rc = parse_into(parts[i], out, pass, err, errlen);
            if (rc != DPU_OK)
                return rc;
        }
    if (op_machine_desc_validate(&out->machine.desc, err, errlen) != 0)
        return DPU_ERR_INVALID_PROFILE;
    if (out->remote)
        return remote_machine(out, err, errlen);
    out->machine.remote[0] = 0;
    return DPU_OK;
}
