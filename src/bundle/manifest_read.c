/*
 * manifest_read.c - the one manifest line reader (se_manifest_read): every
 * line of an untrusted manifest parsed strictly and capped in length; the
 * kept lines, their duplicates, and whether a path is listed.
 */
#define _POSIX_C_SOURCE 200809L

#include "bundle/manifest.h"
#include "bundle/paths.h"

#include "bundle/fsutil.h"
#include "bundle/manifest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

void manifest_lines_free(line_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static void set_why(se_manifest_line *r, const char *why)
{
    snprintf(r->why, sizeof r->why, "%s", why);
}

/* Parses one line of len bytes held in s[0..len] (newline removed, s[len]
 * writable; may hold NUL bytes) into r: either r->path (pointing into s)
 * and r->hex, or r->why. */
static void parse_line(char *s, size_t len, se_manifest_line *r)
{
    if (len < 64 + 2) {
        set_why(r, len == 0 ? "empty line" : "too short for a digest and a path");
        return;
    }
    for (size_t i = 0; i < 64; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            set_why(r, "the first 64 bytes are not lowercase hex digits");
            return;
        }
    }
    if (s[64] != ' ' || (s[65] != ' ' && s[65] != '*')) {
        set_why(r, "expected two spaces or \" *\" after the digest");
        return;
    }
    char *p = s + 66;
    size_t plen = len - 66;
    if (!manifest_path_check(p, plen, r->why, sizeof r->why))
        return;
    p[plen] = '\0';
    r->path = p;
    memcpy(r->hex, s, 64);
    r->hex[64] = '\0';
}

se_status se_manifest_read(const char *dir, const char *name, se_manifest_line_fn fn, void *ctx,
                           se_err *err)
{
    char *mpath = manifest_join_path(dir, name);
    if (!mpath)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate the manifest path in %s", dir);
    /* Untrusted: a regular file (no link, FIFO or device), bounded in size;
     * read in blocks, each line copied once into a bounded buffer. */
    int fd;
    se_err oerr = {{0}};
    se_status st = se_open_regular(mpath, mpath, SE_MANIFEST_MAX_BYTES, &fd, NULL, &oerr);
    if (st != SE_OK) {
        const char *why = oerr.msg + strlen(mpath);
        why += strncmp(why, ": ", 2) == 0 ? 2 : 0;
        /* Too large is a manifest no run of ours has: the run does not verify
         * (exit 1, docs/CLI.md), not a device or memory limit (3). */
        st = se_fail(err, st == SE_ERR_LIMIT ? SE_ERR_VALIDATION : st,
                     "cannot read manifest %s: %s", mpath, why);
    }
    free(mpath);
    if (st != SE_OK)
        return st;
    enum { BLOCK = 1 << 16 };
    char *buf = malloc(MAX_LINE + 1), *block = malloc(BLOCK);
    if (!buf || !block) {
        free(buf);
        free(block);
        close(fd);
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate a line buffer for %s", name);
    }
    size_t line_no = 0, len = 0;
    int too_long = 0, at_eof = 0;
    while (!at_eof && st == SE_OK) {
        ssize_t got = read(fd, block, BLOCK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            st = se_fail(err, SE_ERR_IO, "cannot read manifest %s: %s", name, strerror(errno));
            break;
        }
        at_eof = got == 0;
        size_t off = 0, n = (size_t)got;
        while (st == SE_OK && (off < n || (at_eof && (len > 0 || too_long)))) {
            const char *nl = off < n ? memchr(block + off, '\n', n - off) : NULL;
            size_t take = nl ? (size_t)(nl - (block + off)) : n - off;
            if (too_long || len + take > MAX_LINE) {
                too_long = 1;
            } else {
                memcpy(buf + len, block + off, take);
                len += take;
            }
            off += take;
            if (!nl && !at_eof)
                break; /* the line continues in the next block */
            if (nl)
                off++;
            se_manifest_line r;
            memset(&r, 0, sizeof r);
            r.line_no = ++line_no;
            if (too_long)
                snprintf(r.why, sizeof r.why, "line longer than %d bytes", MAX_LINE);
            else
                parse_line(buf, len, &r);
            st = fn(ctx, &r, err);
            len = 0;
            too_long = 0;
        }
    }
    free(buf);
    free(block);
    close(fd);
    return st;
}

/* se_manifest_read's callback that keeps every line in a line_list. */
static se_status keep_line(void *ctx, const se_manifest_line *line, se_err *err)
{
    line_list *l = ctx;
    if (!line->path) {
        if (l->n_malformed < SHOWN_MALFORMED) {
            l->bad_line[l->n_malformed] = line->line_no;
            memcpy(l->bad_why[l->n_malformed], line->why, sizeof line->why);
        }
        l->n_malformed++;
        return SE_OK;
    }
    if (l->n >= SE_MANIFEST_MAX_FILES)
        return se_fail(err, SE_ERR_LIMIT, "a manifest may list at most %d files; line %zu is "
                       "one more", SE_MANIFEST_MAX_FILES, line->line_no);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        line_rec *v = cap <= SIZE_MAX / sizeof *v ? realloc(l->v, cap * sizeof *v) : NULL;
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "cannot allocate line %zu of a manifest",
                           line->line_no);
        l->v = v;
        l->cap = cap;
    }
    line_rec *r = &l->v[l->n];
    memset(r, 0, sizeof *r);
    r->line_no = line->line_no;
    r->path = strdup(line->path);
    if (!r->path)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate line %zu of a manifest",
                       line->line_no);
    memcpy(r->hex, line->hex, sizeof r->hex);
    l->n++;
    return SE_OK;
}

/* Reads and parses every line of dir/name. */
se_status manifest_read_manifest(const char *dir, const char *name, line_list *l, se_err *err)
{
    memset(l, 0, sizeof *l);
    se_status st = se_manifest_read(dir, name, keep_line, l, err);
    if (st != SE_OK)
        manifest_lines_free(l);
    return st;
}

static int cmp_line_ptr(const void *pa, const void *pb)
{
    const line_rec *a = *(const line_rec *const *)pa, *b = *(const line_rec *const *)pb;
    int c = strcmp(a->path, b->path);
    if (c)
        return c;
    return (a->line_no > b->line_no) - (a->line_no < b->line_no);
}

/* Marks every repeat listing of a path malformed (the first one stands) and
 * returns the well-formed lines sorted by path in *sorted, *n_sorted. */
se_status manifest_mark_duplicates(line_list *l, line_rec ***sorted, size_t *n_sorted,
                                  const char *mpath, se_err *err)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->v[i].path != NULL;
    line_rec **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "cannot index the lines of %s", mpath);
    n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].path)
            v[n++] = &l->v[i];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_line_ptr);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && strcmp(v[kept - 1]->path, v[i]->path) == 0) {
            v[i]->dup_of = v[kept - 1]->line_no;
            free(v[i]->path);
            v[i]->path = NULL;
        } else {
            v[kept++] = v[i];
        }
    }
    *sorted = v;
    *n_sorted = kept;
    return SE_OK;
}

const line_rec *manifest_find_listed(line_rec *const *sorted, size_t n, const char *path)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(sorted[mid]->path, path);
        if (c == 0)
            return sorted[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int manifest_is_listed(line_rec *const *sorted, size_t n, const char *path)
{
    return manifest_find_listed(sorted, n, path) != NULL;
}

typedef struct lists_ctx {
    const char *rel;
    int *listed;
} lists_ctx;

static se_status match_line(void *ctx, const se_manifest_line *line, se_err *err)
{
    (void)err;
    lists_ctx *c = ctx;
    if (line->path && strcmp(line->path, c->rel) == 0)
        *c->listed = 1;
    return SE_OK;
}

se_status se_manifest_lists(const char *dir, const char *name, const char *rel, int *listed,
                            se_err *err)
{
    *listed = 0;
    lists_ctx c = {rel, listed};
    return se_manifest_read(dir, name, match_line, &c, err);
}
