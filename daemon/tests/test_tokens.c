/* SPDX-License-Identifier: MIT */
/* openpimd's token store (daemon/tokens.c) on its own: what is stored (the
 * token's SHA-256, checked with coreutils' sha256sum, never the token), who
 * may read it (0600, of this user: anything else refused), what is accepted
 * (exactly the issued token, not one character off), revocation, tenant
 * names, a corrupt store, a symlinked one, concurrent additions under the
 * lock, and the digest comparison (equal only when every byte is).
 *   test_tokens */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tokens.h"
#include "check.h"

static char dir[64], store[128];

#define CHECK_MSG(err, what)                                                                           \
    do {                                                                                               \
        if (!strstr((err), (what))) {                                                                  \
            fprintf(stderr, "%s:%d: message '%s' lacks '%s'\n", __FILE__, __LINE__, (err), (what));     \
            CHECK(0);                                                                                  \
        }                                                                                              \
    } while (0)

/* The SHA-256 of s in hex, by sha256sum (not our code). */
static void sha256_hex(const char *s, char out[65])
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "printf %%s '%s' | sha256sum", s);
    FILE *f = popen(cmd, "r");
    CHECK(f && fread(out, 1, 64, f) == 64);
    out[64] = 0;
    if (f)
        pclose(f);
}

static char *slurp(const char *path)
{
    static char buf[65536];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = 0;
    if (f)
        fclose(f);
    return buf;
}

static void issue_and_check(void)
{
    char a[TOKEN_TEXT_LEN + 1], b[TOKEN_TEXT_LEN + 1], err[512], name[TOKEN_NAME_MAX + 1];
    CHECK_EQ(token_add(store, "alice", a, sizeof a, err, sizeof err), 0);
    CHECK_EQ(token_add(store, "bob.2-x_y", b, sizeof b, err, sizeof err), 0);
    /* the format: prefix, 64 lowercase hex digits; two tokens differ */
    CHECK_EQ(strlen(a), TOKEN_TEXT_LEN);
    CHECK(!strncmp(a, TOKEN_PREFIX, strlen(TOKEN_PREFIX)));
    CHECK_EQ(strspn(a + strlen(TOKEN_PREFIX), "0123456789abcdef"), 64);
    CHECK(strcmp(a, b) != 0);
    /* the folder and the store: this user's only */
    struct stat st;
    char folder[128];
    snprintf(folder, sizeof folder, "%s/etc", dir);
    CHECK_EQ(stat(folder, &st), 0);
    CHECK_EQ(st.st_mode & 0777, 0700);
    CHECK_EQ(stat(store, &st), 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    /* the SHA-256 is stored, the token is not */
    char ha[65], hb[65], line[200];
    sha256_hex(a, ha);
    sha256_hex(b, hb);
    const char *text = slurp(store);
    snprintf(line, sizeof line, "\nalice %s ", ha);
    CHECK(strstr(text, line) != NULL);
    snprintf(line, sizeof line, "\nbob.2-x_y %s ", hb);
    CHECK(strstr(text, line) != NULL);
    CHECK(!strstr(text, a + strlen(TOKEN_PREFIX)) && !strstr(text, b + strlen(TOKEN_PREFIX)));
    /* exactly the issued token */
    CHECK_EQ(token_check(store, a, name, err, sizeof err), 0);
    CHECK(!strcmp(name, "alice"));
    CHECK_EQ(token_check(store, b, name, err, sizeof err), 0);
    CHECK(!strcmp(name, "bob.2-x_y"));
    for (size_t at = 0; at < TOKEN_TEXT_LEN; at += 7) { /* one character off, anywhere */
        char off[TOKEN_TEXT_LEN + 1];
        memcpy(off, a, sizeof off);
        off[at] = off[at] == '0' ? '1' : '0';
        err[0] = 0;
        CHECK_EQ(token_check(store, off, name, err, sizeof err), -1);
        CHECK_MSG(err, "the token is not valid: unknown or revoked");
        CHECK(!strstr(err, off + strlen(TOKEN_PREFIX))); /* never quoted */
    }
    char longer[TOKEN_TEXT_LEN + 2];
    snprintf(longer, sizeof longer, "%sa", a);
    CHECK_EQ(token_check(store, longer, name, err, sizeof err), -1);
    CHECK_EQ(token_check(store, a + 1, name, err, sizeof err), -1);
    CHECK_EQ(token_check(store, "", name, err, sizeof err), -1);
    /* names: unique, of the allowed characters and length */
    char t[TOKEN_TEXT_LEN + 1];
    CHECK_EQ(token_add(store, "alice", t, sizeof t, err, sizeof err), -1);
    CHECK_MSG(err, "tenant alice already has a token");
    static const char *const bad[] = {"",    "-x", ".x", "_x", "a/b", "a b",
                                      "a:b", "é",  "abcdefghijklmnopqrstuvwxyz0123456"}; /* the last: 33 */
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_EQ(token_add(store, bad[i], t, sizeof t, err, sizeof err), -1);
        CHECK_MSG(err, "tenant name");
    }
    CHECK_EQ(token_add(store, "abcdefghijklmnopqrstuvwxyz012345", t, sizeof t, err, sizeof err), 0); /* 32 */
    /* revoked: refused; the others still valid */
    CHECK_EQ(token_revoke(store, "alice", err, sizeof err), 0);
    CHECK_EQ(token_check(store, a, name, err, sizeof err), -1);
    CHECK_MSG(err, "unknown or revoked");
    CHECK_EQ(token_check(store, b, name, err, sizeof err), 0);
    CHECK_EQ(token_check(store, t, name, err, sizeof err), 0);
    CHECK_EQ(token_revoke(store, "alice", err, sizeof err), -1);
    CHECK_MSG(err, "no tenant alice");
    /* re-issued: a new token, the old one still refused */
    char a2[TOKEN_TEXT_LEN + 1];
    CHECK_EQ(token_add(store, "alice", a2, sizeof a2, err, sizeof err), 0);
    CHECK(strcmp(a, a2) != 0);
    CHECK_EQ(token_check(store, a, name, err, sizeof err), -1);
    CHECK_EQ(token_check(store, a2, name, err, sizeof err), 0);
    struct token_entry *e;
    size_t n;
    CHECK_EQ(token_read(store, &e, &n, err, sizeof err), 0);
    CHECK_EQ(n, 3);
    free(e);

    /* a store others may read, or write, is refused for everything */
    static const unsigned modes[] = {0640, 0604, 0620, 0602, 0700 | 04};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        CHECK_EQ(chmod(store, modes[i]), 0);
        CHECK_EQ(token_check(store, b, name, err, sizeof err), -1);
        CHECK_MSG(err, "may be read or written by others");
        CHECK_EQ(token_add(store, "carol", t, sizeof t, err, sizeof err), -1);
        CHECK_EQ(token_revoke(store, "bob.2-x_y", err, sizeof err), -1);
    }
    CHECK_EQ(chmod(store, 0600), 0);
    CHECK_EQ(token_check(store, b, name, err, sizeof err), 0);
}

/* A corrupt or symlinked store is refused, with the line named. */
static void corrupt(void)
{
    char path[160], err[512], name[TOKEN_NAME_MAX + 1], cmd[400];
    snprintf(path, sizeof path, "%s/bad", dir);
    static const char *const lines[] = {
        "alice 00\n", "alice zz0000000000000000000000000000000000000000000000000000000000000000 1\n",
        "alice 0000000000000000000000000000000000000000000000000000000000000000\n",
        "al/ce 0000000000000000000000000000000000000000000000000000000000000000 1\n",
        "alice 0000000000000000000000000000000000000000000000000000000000000000 1 extra\n",
        "alice 0000000000000000000000000000000000000000000000000000000000000000x 1\n"};
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0);
        const char *head = "# comment\n\n";
        CHECK_EQ(write(fd, head, strlen(head)), (long)strlen(head));
        CHECK_EQ(write(fd, lines[i], strlen(lines[i])), (long)strlen(lines[i]));
        close(fd);
        CHECK_EQ(token_check(path, "opm1_x", name, err, sizeof err), -1);
        CHECK_MSG(err, "line 3: not 'NAME SHA256-HEX CREATED'");
    }
    snprintf(cmd, sizeof cmd, "ln -sf %s %s/link", store, dir);
    CHECK_EQ(system(cmd), 0);
    snprintf(path, sizeof path, "%s/link", dir);
    CHECK_EQ(token_check(path, "opm1_x", name, err, sizeof err), -1);
    CHECK_MSG(err, "cannot read token store");
    /* no store yet: no tenant */
    snprintf(path, sizeof path, "%s/none", dir);
    CHECK_EQ(token_check(path, "opm1_x", name, err, sizeof err), -1);
    CHECK_MSG(err, "unknown or revoked");
}

/* Concurrent additions: the lock keeps every one. */
static void concurrent(void)
{
    char path[160], err[512];
    snprintf(path, sizeof path, "%s/many", dir);
    enum { KIDS = 12 };
    pid_t kids[KIDS];
    for (int k = 0; k < KIDS; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            char name[16], t[TOKEN_TEXT_LEN + 1], e[512];
            snprintf(name, sizeof name, "tenant%d", k);
            _exit(token_add(path, name, t, sizeof t, e, sizeof e) == 0 ? 0 : 1);
        }
    }
    for (int k = 0; k < KIDS; k++) {
        int st;
        CHECK_EQ(waitpid(kids[k], &st, 0), kids[k]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    struct token_entry *e;
    size_t n;
    CHECK_EQ(token_read(path, &e, &n, err, sizeof err), 0);
    CHECK_EQ(n, KIDS);
    free(e);
}

/* The digest comparison: equal only when all 32 bytes are, whichever differs. */
static void digests(void)
{
    uint8_t a[32], b[32];
    for (int i = 0; i < 32; i++)
        a[i] = (uint8_t)(i * 37 + 5);
    memcpy(b, a, 32);
    CHECK_EQ(token_digest_equal(a, b), 1);
    for (int i = 0; i < 32; i++)
        for (int bit = 0; bit < 8; bit++) {
            b[i] ^= (uint8_t)(1u << bit);
            CHECK_EQ(token_digest_equal(a, b), 0);
            b[i] ^= (uint8_t)(1u << bit);
        }
    CHECK_EQ(token_digest_equal(a, b), 1);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/openpim-tokens-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    snprintf(store, sizeof store, "%s/etc/tokens", dir);
    unsetenv("OPENPIM_TOKENS");
    CHECK(!strcmp(token_store_path(NULL), TOKEN_DEFAULT_STORE));
    CHECK(!strcmp(token_store_path("/x"), "/x"));
    setenv("OPENPIM_TOKENS", "/y", 1);
    CHECK(!strcmp(token_store_path(NULL), "/y"));
    CHECK(!strcmp(token_store_path("/x"), "/x"));
    unsetenv("OPENPIM_TOKENS");
    issue_and_check();
    corrupt();
    concurrent();
    digests();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!check_failures && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return check_done("tokens");
}
