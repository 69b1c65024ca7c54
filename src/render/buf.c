/*
 * buf.c - growable text buffers and string lists (see buf.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/fsutil.h"

void se_buf_free(se_buf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static int reserve(se_buf *b, size_t more)
{
    if (b->oom)
        return 0;
    if (b->n + more + 1 <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more + 1)
        cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return 0;
    }
    b->s = s;
    b->cap = cap;
    return 1;
}

void se_buf_addn(se_buf *b, const char *text, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->n, text, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void se_buf_add(se_buf *b, const char *text)
{
    se_buf_addn(b, text, strlen(text));
}

void se_buf_printf(se_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) {
        b->oom = 1;
        return;
    }
    if (!reserve(b, (size_t)len))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->n, (size_t)len + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)len;
}

const char *se_buf_str(const se_buf *b)
{
    return b->s ? b->s : "";
}

se_status se_buf_check(const se_buf *b, const char *what, se_err *err)
{
    if (b->oom)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", what);
    return SE_OK;
}

se_status se_buf_write_file(const se_buf *b, const char *path, const char *rel, se_err *err)
{
    se_status st = se_buf_check(b, rel, err);
    if (st != SE_OK)
        return st;
    FILE *f;
    st = se_fcreate_new(path, rel, &f, err); /* a new file in the command's own folder */
    if (st != SE_OK)
        return st;
    int bad = b->n && fwrite(b->s, 1, b->n, f) != b->n;
    int saved = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    if (bad)
        return se_fail(err, SE_ERR_IO, "writing %s failed: %s", rel, strerror(saved));
    return SE_OK;
}

void se_strlist_free(se_strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

se_status se_strlist_add(se_strlist *l, const char *s, se_err *err)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return SE_OK;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "out of memory listing %s", s);
        l->v = v;
        l->cap = cap;
    }
    char *copy = strdup(s);
    if (!copy)
        return se_fail(err, SE_ERR_NOMEM, "out of memory listing %s", s);
    l->v[l->n++] = copy;
    return SE_OK;
}
