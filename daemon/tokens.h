/* SPDX-License-Identifier: MIT */
/* The token store of openpimd: the tenants that present a token at HELLO
 * (every guest of a virtual machine must, daemon/transport_vsock.c) and the
 * SHA-256 of each one's token.  The operator manages it with `openpimctl
 * token add|revoke|list`; the daemon reads it at every HELLO that carries a
 * token, so a revoked token is refused from the next connection on.
 *
 * The file (default /etc/openpim/tokens, or $OPENPIM_TOKENS; openpimd
 * --tokens and openpimctl --tokens name another) is text, one tenant a line:
 *     NAME SHA256-OF-TOKEN-IN-HEX CREATED-UNIX-SECONDS
 * It must be a regular file of the reading user (or root) that no one else
 * may read or write (mode 0600): anything else is refused, as sshd does with
 * its keys.  The token itself is never stored: it is printed once by
 * `token add`.  Tokens are 256 random bits (TOKEN_PREFIX then 64 hex digits),
 * so an unsalted SHA-256 is as strong as a slow password hash here: there is
 * no dictionary to try.  A presented token is hashed and compared with every
 * entry in constant time (OpenSSL's CRYPTO_memcmp; no early exit), so the
 * time taken says nothing about how close a guess was.
 *
 * Changes take a lock (PATH.lock) and replace the file whole (write PATH.tmp,
 * fsync, rename), so the daemon reads either the old or the new store. */
#ifndef OPENPIM_DAEMON_TOKENS_H
#define OPENPIM_DAEMON_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#define TOKEN_NAME_MAX 32  /* characters of a tenant name: [A-Za-z0-9][A-Za-z0-9._-]* */
#define TOKEN_PREFIX "opm1_"
#define TOKEN_TEXT_LEN (sizeof TOKEN_PREFIX - 1 + 64) /* the prefix, then 32 random bytes in hex */
#define TOKEN_DEFAULT_STORE "/etc/openpim/tokens"

/* The store's path: explicit (a command-line option), else $OPENPIM_TOKENS,
 * else TOKEN_DEFAULT_STORE. */
const char *token_store_path(const char *explicit_path);

/* Adds tenant `name` with a fresh token, written to token (at least
 * TOKEN_TEXT_LEN + 1 bytes).  Creates the store (and its folder, mode 0700)
 * if missing.  0, or -1 with a message (a bad name, a name already there, a
 * store others may read). */
int token_add(const char *path, const char *name, char *token, size_t cap, char *err, size_t errlen);
/* Removes tenant `name`: its token is refused from then on.  0, or -1 with
 * a message (no such tenant). */
int token_revoke(const char *path, const char *name, char *err, size_t errlen);

struct token_entry {
    char name[TOKEN_NAME_MAX + 1];
    uint8_t digest[32]; /* SHA-256 of the token */
    int64_t created;    /* unix seconds */
};
/* Reads the store: *entries (malloc'd, *n of them; free it).  A missing
 * store is empty.  0, or -1 with a message (unreadable, a bad line, a file
 * others may read or write). */
int token_read(const char *path, struct token_entry **entries, size_t *n, char *err, size_t errlen);

/* The tenant whose token `token` is (name: TOKEN_NAME_MAX + 1 bytes).  0, or
 * -1 with a message that says whether the token is unknown or the store is
 * unusable; the message never quotes the token. */
int token_check(const char *path, const char *token, char *name, char *err, size_t errlen);

/* The tenant a HELLO names (tenant: at least 48 bytes): "token:NAME" for a
 * valid token (token: a field of OP_TOKEN_MAX bytes, NUL-padded), "uid:UID"
 * for none, unless the connection came through a guest socket, which must
 * present one.  0, or -1 with the reason. */
int token_tenant(const char *store, const char *token, int guest, unsigned uid, char *tenant, char *err,
                 size_t errlen);

/* Whether two digests are equal, in time independent of their contents. */
int token_digest_equal(const uint8_t a[32], const uint8_t b[32]);

#endif
