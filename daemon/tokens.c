/* SPDX-License-Identifier: MIT */
/* openpimd's token store (tokens.h): reading, checking, and the operator's
 * changes (add, revoke) made under a lock and written whole. */
#define _GNU_SOURCE
#include "tokens.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../backend/backend.h" /* OP_TOKEN_MAX */

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#define TENANT_TEXT_MAX 48 /* "token:" and TOKEN_NAME_MAX characters fit */
_Static_assert(sizeof "token:" + TOKEN_NAME_MAX <= TENANT_TEXT_MAX, "a token's tenant fits");

const char *token_store_path(const char *explicit_path)
{
    const char *env = getenv("OPENPIM_TOKENS");
    if (explicit_path && *explicit_path)
        return explicit_path;
    return env && *env ? env : TOKEN_DEFAULT_STORE;
}

int token_digest_equal(const uint8_t a[32], const uint8_t b[32])
{
    return CRYPTO_memcmp(a, b, 32) == 0;
}

static int digest(const char *token, uint8_t out[32])
{
    unsigned len = 0;
    return EVP_Digest(token, strlen(token), out, &len, EVP_sha256(), NULL) == 1 && len == 32 ? 0 : -1;
}

static int valid_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > TOKEN_NAME_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-')))
            return 0;
    }
    return 1;
}

/* Refuses a store that is not a regular file of ours (or root's) or that
 * others may read or write. */
static int check_mode(const struct stat *st, const char *path, char *err, size_t errlen)
{
    if (!S_ISREG(st->st_mode))
        return fail(err, errlen, "token store %s is not a regular file", path);
    if (st->st_uid != geteuid() && st->st_uid != 0)
        return fail(err, errlen, "token store %s belongs to uid %u, neither this user (%u) nor root", path,
                    (unsigned)st->st_uid, (unsigned)geteuid());
    if (st->st_mode & 077)
        return fail(err, errlen, "token store %s may be read or written by others (mode %04o): chmod 600 it",
                    path, (unsigned)(st->st_mode & 07777));
    return 0;
}

static int nibble(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 2n lowercase hex digits, exactly. */
static int unhex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = nibble(s[2 * i]), lo = hi < 0 ? -1 : nibble(s[2 * i + 1]);
        if (lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return s[2 * n] == 0 ? 0 : -1;
}

int token_read(const char *path, struct token_entry **entries, size_t *n, char *err, size_t errlen)
{
    *entries = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        return fail(err, errlen, "cannot read token store %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fail(err, errlen, "cannot read token store %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (check_mode(&st, path, err, errlen) != 0) {
        close(fd);
        return -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return fail(err, errlen, "cannot read token store %s: %s", path, strerror(errno));
    }
    char line[256];
    size_t cap = 0, lineno = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        else if (!feof(f)) {
            rc = fail(err, errlen, "token store %s, line %zu: longer than %zu characters", path, lineno,
                      sizeof line - 2);
            break;
        }
        if (!line[0] || line[0] == '#')
            continue;
        char name[64], hex[80];
        long long created;
        char extra;
        struct token_entry e;
        memset(&e, 0, sizeof e);
        if (sscanf(line, "%63s %79s %lld %c", name, hex, &created, &extra) != 3 || !valid_name(name) ||
            strlen(hex) != 64 || unhex(hex, e.digest, 32) != 0) {
            rc = fail(err, errlen, "token store %s, line %zu: not 'NAME SHA256-HEX CREATED'", path, lineno);
            break;
        }
        memcpy(e.name, name, strlen(name) + 1); /* valid_name: at most TOKEN_NAME_MAX characters */
        e.created = created;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            struct token_entry *grown = realloc(*entries, cap * sizeof *grown);
            if (!grown) {
                rc = fail(err, errlen, "out of memory");
                break;
            }
            *entries = grown;
        }
        (*entries)[(*n)++] = e;
    }
    if (rc == 0 && ferror(f))
        rc = fail(err, errlen, "cannot read token store %s: %s", path, strerror(errno));
    fclose(f);
    if (rc != 0) {
        free(*entries);
        *entries = NULL;
        *n = 0;
    }
    return rc;
}

int token_check(const char *path, const char *token, char *name, char *err, size_t errlen)
{
    struct token_entry *e;
    size_t n;
    uint8_t d[32];
    if (token_read(path, &e, &n, err, errlen) != 0)
        return -1;
    if (digest(token, d) != 0) {
        free(e);
        return fail(err, errlen, "cannot hash the token (OpenSSL's SHA-256 failed)");
    }
    /* every entry is compared, whatever matched: the time is the store's size, not the guess's quality */
    size_t found = n;
    for (size_t i = 0; i < n; i++) {
        size_t eq = (size_t)token_digest_equal(d, e[i].digest);
        found = eq * i + (1 - eq) * found;
    }
    if (found < n)
        snprintf(name, TOKEN_NAME_MAX + 1, "%s", e[found].name);
    free(e);
    if (found == n)
        return fail(err, errlen, "the token is not valid: unknown or revoked (openpimctl token list)");
    return 0;
}

int token_tenant(const char *store, const char *token, int guest, unsigned uid, char *tenant, char *err,
                 size_t errlen)
{
    char text[OP_TOKEN_MAX], name[TOKEN_NAME_MAX + 1], why[400];
    memcpy(text, token, sizeof text);
    text[sizeof text - 1] = 0;
    if (!text[0] && guest)
        return fail(err, errlen,
                    "a connection through a guest socket (a virtual machine) must present a token: profile key "
                    "token=... or OPENPIM_TOKEN (the operator issues it with openpimctl token add NAME)");
    if (!text[0]) {
        snprintf(tenant, TENANT_TEXT_MAX, "uid:%u", uid);
        return 0;
    }
    int rc = token_check(store, text, name, why, sizeof why);
    OPENSSL_cleanse(text, sizeof text);
    if (rc != 0)
        return fail(err, errlen, "HELLO: %s", why);
    snprintf(tenant, TENANT_TEXT_MAX, "token:%s", name);
    return 0;
}

/* ---- changes ---------------------------------------------------------------- */

/* Takes the store's lock (PATH.lock, created 0600); its fd, or -1. */
static int lock_store(const char *path, char *err, size_t errlen)
{
    char lock[4096];
    if ((size_t)snprintf(lock, sizeof lock, "%s.lock", path) >= sizeof lock)
        return fail(err, errlen, "token store path %s is too long", path);
    char *dir_copy = strdup(path);
    if (!dir_copy)
        return fail(err, errlen, "out of memory");
    const char *dir = dirname(dir_copy);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        fail(err, errlen, "cannot create the token store's folder %s: %s", dir, strerror(errno));
        free(dir_copy);
        return -1;
    }
    free(dir_copy);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return fail(err, errlen, "cannot lock token store %s (%s): %s", path, lock, strerror(errno));
    if (flock(fd, LOCK_EX) != 0) {
        fail(err, errlen, "cannot lock token store %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Replaces the store with entries (under the lock). */
static int write_store(const char *path, const struct token_entry *e, size_t n, char *err, size_t errlen)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return fail(err, errlen, "token store path %s is too long", path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return fail(err, errlen, "cannot write token store %s: %s", tmp, strerror(errno));
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return fail(err, errlen, "cannot write token store %s: %s", tmp, strerror(errno));
    }
    fprintf(f, "# openpimd tokens: NAME SHA256(token) CREATED; managed with openpimctl token add|revoke|list\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s ", e[i].name);
        for (int k = 0; k < 32; k++)
            fprintf(f, "%02x", e[i].digest[k]);
        fprintf(f, " %lld\n", (long long)e[i].created);
    }
    int bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        fail(err, errlen, "cannot write token store %s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int token_add(const char *path, const char *name, char *token, size_t cap, char *err, size_t errlen)
{
    if (!valid_name(name))
        return fail(err, errlen,
                    "tenant name '%s': 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit",
                    name, TOKEN_NAME_MAX);
    if (cap < TOKEN_TEXT_LEN + 1)
        return fail(err, errlen, "no room for the token");
    int lock = lock_store(path, err, errlen);
    if (lock < 0)
        return -1;
    struct token_entry *e = NULL;
    size_t n = 0;
    int rc = token_read(path, &e, &n, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!strcmp(e[i].name, name))
            rc = fail(err, errlen, "tenant %s already has a token (revoke it first to issue a new one)", name);
    struct token_entry *grown = rc == 0 ? realloc(e, (n + 1) * sizeof *e) : NULL;
    if (rc == 0 && !grown)
        rc = fail(err, errlen, "out of memory");
    uint8_t raw[32];
    if (rc == 0) {
        e = grown;
        if (RAND_bytes(raw, sizeof raw) != 1)
            rc = fail(err, errlen, "no random bytes from OpenSSL's RAND_bytes");
    }
    if (rc == 0) {
        int at = snprintf(token, cap, "%s", TOKEN_PREFIX);
        for (int k = 0; k < 32; k++)
            at += snprintf(token + at, cap - (size_t)at, "%02x", raw[k]);
        memset(&e[n], 0, sizeof e[n]);
        snprintf(e[n].name, sizeof e[n].name, "%s", name);
        e[n].created = (int64_t)time(NULL);
        if (digest(token, e[n].digest) != 0)
            rc = fail(err, errlen, "cannot hash the token (OpenSSL's SHA-256 failed)");
        else
            rc = write_store(path, e, n + 1, err, errlen);
        OPENSSL_cleanse(raw, sizeof raw);
        if (rc != 0)
            OPENSSL_cleanse(token, cap);
    }
    free(e);
    close(lock);
    return rc;
}

int token_revoke(const char *path, const char *name, char *err, size_t errlen)
{
    int lock = lock_store(path, err, errlen);
    if (lock < 0)
        return -1;
    struct token_entry *e = NULL;
    size_t n = 0, k = 0;
    int rc = token_read(path, &e, &n, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (strcmp(e[i].name, name))
            e[k++] = e[i];
    if (rc == 0 && k == n)
        rc = fail(err, errlen, "no tenant %s in token store %s", name, path);
    if (rc == 0)
        rc = write_store(path, e, k, err, errlen);
    free(e);
    close(lock);
    return rc;
}
