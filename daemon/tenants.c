/* SPDX-License-Identifier: MIT */
/* openpimd's tenants and their limits (tenants.h). */
#include "tenants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tenants_init(struct tenants *t, const struct limits *lim)
{
    pthread_mutex_init(&t->lock, NULL);
    t->list = NULL;
    t->lim = *lim;
}

void tenants_destroy(struct tenants *t)
{
    while (t->list) {
        struct tenant *n = t->list->next;
        free(t->list);
        t->list = n;
    }
    pthread_mutex_destroy(&t->lock);
}

struct tenant *tenant_join(struct tenants *t, const char *id, char *err, size_t errlen)
{
    pthread_mutex_lock(&t->lock);
    struct tenant *tn = t->list;
    while (tn && strcmp(tn->id, id))
        tn = tn->next;
    if (!tn) {
        tn = calloc(1, sizeof *tn);
        if (!tn) {
            pthread_mutex_unlock(&t->lock);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        snprintf(tn->id, sizeof tn->id, "%s", id);
        tn->next = t->list;
        t->list = tn;
    }
    if (tn->connections >= t->lim.connections) {
        pthread_mutex_unlock(&t->lock);
        snprintf(err, errlen, "tenant %s has %u connections, the most one tenant may have (--max-connections)", id,
             tn->connections);
        return NULL; /* it has connections: it stays listed */
    }
    tn->connections++;
    pthread_mutex_unlock(&t->lock);
    return tn;
}

void tenant_leave(struct tenants *t, struct tenant *tn)
{
    pthread_mutex_lock(&t->lock);
    if (--tn->connections == 0) {
        for (struct tenant **p = &t->list; *p; p = &(*p)->next)
            if (*p == tn) {
                *p = tn->next;
                break;
            }
        free(tn);
    }
    pthread_mutex_unlock(&t->lock);
}

int tenant_add_program(struct tenants *t, struct tenant *tn, uint32_t conn_programs, uint64_t bytes, char *err,
                       size_t errlen)
{
    int rc = 0;
    pthread_mutex_lock(&t->lock);
    if (conn_programs >= t->lim.conn_programs)
        rc = -1, snprintf(err, errlen, "PROGRAM_OPEN: this connection holds %u programs, the most one connection may "
                  "(--max-programs-per-connection): close one first", conn_programs);
    else if (tn->programs >= t->lim.programs)
        rc = -1, snprintf(err, errlen, "PROGRAM_OPEN: tenant %s holds %u programs, the most one tenant may "
                  "(--max-programs)", tn->id, tn->programs);
    else if (bytes > t->lim.program_bytes - tn->program_bytes || tn->program_bytes > t->lim.program_bytes)
        rc = -1, snprintf(err, errlen, "PROGRAM_OPEN: %llu more bytes of programs would put tenant %s over its %llu MB "
                  "(--max-program-mb; it holds %llu bytes)", (unsigned long long)bytes, tn->id,
                  (unsigned long long)(t->lim.program_bytes >> 20), (unsigned long long)tn->program_bytes);
    if (rc == 0) {
        tn->programs++;
        tn->program_bytes += bytes;
    }
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void tenant_drop_program(struct tenants *t, struct tenant *tn, uint64_t bytes)
{
    pthread_mutex_lock(&t->lock);
    tn->programs--;
    tn->program_bytes -= bytes;
    pthread_mutex_unlock(&t->lock);
}

int tenant_add_window(struct tenants *t, struct tenant *tn, uint64_t bytes, char *err, size_t errlen)
{
    int rc = 0;
    pthread_mutex_lock(&t->lock);
    if (bytes > t->lim.window_bytes - tn->window_bytes || tn->window_bytes > t->lim.window_bytes)
        rc = -1, snprintf(err, errlen, "SHM_ATTACH: a window of %llu MB in openpimd's memory would put tenant %s over "
                  "its %llu MB of such windows (--max-window-mb; it holds %llu MB)", (unsigned long long)(bytes >> 20),
                  tn->id, (unsigned long long)(t->lim.window_bytes >> 20),
                  (unsigned long long)(tn->window_bytes >> 20));
    else
        tn->window_bytes += bytes;
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void tenant_drop_window(struct tenants *t, struct tenant *tn, uint64_t bytes)
{
    pthread_mutex_lock(&t->lock);
    tn->window_bytes -= bytes;
    pthread_mutex_unlock(&t->lock);
}

int tenant_add_request(struct tenants *t, struct tenant *tn, uint32_t conn_inflight, char *err, size_t errlen)
{
    int rc = 0;
    pthread_mutex_lock(&t->lock);
    if (conn_inflight >= t->lim.conn_inflight)
        rc = -1, snprintf(err, errlen, "%u requests of this connection are in flight, the most one connection may have "
                  "(--max-requests-per-connection): wait for their replies", conn_inflight);
    else if (tn->inflight >= t->lim.inflight)
        rc = -1, snprintf(err, errlen, "%u requests of tenant %s are in flight, the most one tenant may have "
                  "(--max-requests)", tn->inflight, tn->id);
    else
        tn->inflight++;
    pthread_mutex_unlock(&t->lock);
    return rc;
}

void tenant_drop_request(struct tenants *t, struct tenant *tn)
{
    pthread_mutex_lock(&t->lock);
    tn->inflight--;
    pthread_mutex_unlock(&t->lock);
}
