/* SPDX-License-Identifier: MIT */
/* Sessions (see internal.h) and the process's backends.  The default session
 * is what a plain UPMEM program uses; openpim_session_create makes more (a
 * daemon serving several clients, a test playing two tenants).  Sessions that
 * ask for the same machine share its backend, which arbitrates their ranks. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "openpim_ext.h"

static struct op_session default_session = {.is_default = true};
static _Thread_local struct op_session *current;

struct op_session *op_session(void)
{
    return current ? current : &default_session;
}

/* ---- backends ---------------------------------------------------------------- */

struct shared_backend {
    struct shared_backend *next;
    struct op_machine_config cfg;
    struct op_backend *b;
    unsigned users;
};
static struct shared_backend *backends; /* under the library lock */

struct op_backend *op_backend_get(const struct op_machine_config *cfg, char *err, size_t errlen)
{
    for (struct shared_backend *e = backends; e; e = e->next)
        if (memcmp(&e->cfg, cfg, sizeof *cfg) == 0) {
            e->users++;
            return e->b;
        }
    struct shared_backend *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* the profile's backend key: the embedded machine, or an openpimd's */
    e->b = cfg->remote[0] ? op_backend_remote_open(cfg, err, errlen) : op_backend_local_open(cfg, err, errlen);
    if (!e->b) {
        free(e);
        return NULL;
    }
    e->cfg = *cfg;
    e->users = 1;
    e->next = backends;
    backends = e;
    return e->b;
}

void op_backend_put(struct op_backend *b)
{
    for (struct shared_backend **p = &backends; *p; p = &(*p)->next)
        if ((*p)->b == b) {
            struct shared_backend *e = *p;
            if (--e->users)
                return;
            *p = e->next;
            b->ops->close(b);
            free(e);
            return;
        }
}

/* ---- the public API (openpim_ext.h) ---------------------------------------------- */

struct openpim_session *openpim_session_create(void)
{
    struct op_session *s = calloc(1, sizeof *s);
    return (struct openpim_session *)s;
}

struct openpim_session *openpim_session_use(struct openpim_session *session)
{
    struct op_session *prev = current;
    current = (struct op_session *)session;
    return (struct openpim_session *)prev;
}

dpu_error_t openpim_session_destroy(struct openpim_session *session)
{
    struct op_session *s = (struct op_session *)session;
    if (!s || s == &default_session)
        return DPU_ERR_INVALID_DPU_SET;
    op_sdk_lock();
    struct op_session *prev = current;
    current = s;
    op_session_release(s); /* waits for its asynchronous work */
    op_report_state_free(s);
    current = prev == s ? NULL : prev;
    op_sdk_unlock();
    free(s);
    return DPU_OK;
}
