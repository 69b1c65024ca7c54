/*
 * doc.c - the document builder (see doc.h). Building only stores raw text;
 * every escape happens in the back end that writes it: doc_markdown.c,
 * doc_html.c, doc_text.c (what they share is doc_backend.c).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building --------------------------------------------------------- */

static char *dup_or_oom(se_doc *d, const char *s)
{
    if (!s)
        return NULL;
    char *c = strdup(s);
    if (!c)
        d->oom = 1;
    return c;
}

static void block_free(se_doc_block *b)
{
    for (size_t i = 0; i < b->n_runs; i++) {
        free(b->runs[i].text);
        free(b->runs[i].href);
    }
    free(b->runs);
    free(b->align);
    free(b->src);
    free(b->href);
}

void se_doc_free(se_doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        block_free(&d->blocks[i]);
    free(d->blocks);
    memset(d, 0, sizeof *d);
}

se_status se_doc_check(const se_doc *d, const char *what, se_err *err)
{
    if (d->oom)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", what);
    return SE_OK;
}

/* A new block (NULL once out of memory); it takes runs until the next. */
static se_doc_block *add_block(se_doc *d, se_doc_kind kind)
{
    d->open = 0;
    if (d->oom)
        return NULL;
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 64;
        se_doc_block *b = realloc(d->blocks, cap * sizeof *b);
        if (!b) {
            d->oom = 1;
            return NULL;
        }
        d->blocks = b;
        d->cap = cap;
    }
    se_doc_block *b = &d->blocks[d->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    d->open = 1;
    return b;
}

static void add_run(se_doc *d, se_doc_run_kind kind, const char *text, const char *href)
{
    if (d->oom || !d->open || d->n == 0) {
        d->oom |= !d->open || d->n == 0; /* a run outside a block is a bug: fail loudly */
        return;
    }
    se_doc_block *b = &d->blocks[d->n - 1];
    if (b->n_runs == b->cap_runs) {
        size_t cap = b->cap_runs ? 2 * b->cap_runs : 4;
        se_doc_run *r = realloc(b->runs, cap * sizeof *r);
        if (!r) {
            d->oom = 1;
            return;
        }
        b->runs = r;
        b->cap_runs = cap;
    }
    se_doc_run *r = &b->runs[b->n_runs++];
    r->kind = kind;
    r->text = dup_or_oom(d, text ? text : "");
    r->href = dup_or_oom(d, href);
}

static char *vformat(se_doc *d, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (!s) {
        d->oom = 1;
        return NULL;
    }
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    return s;
}

static void text_block(se_doc *d, se_doc_kind kind, int level, const char *fmt, va_list ap)
{
    se_doc_block *b = add_block(d, kind);
    if (!b)
        return;
    b->level = level;
    char *s = vformat(d, fmt, ap);
    if (s)
        add_run(d, SE_RUN_TEXT, s, NULL);
    free(s);
    d->open = 0;
}

void se_doc_heading(se_doc *d, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_block(d, SE_DOC_HEADING, level < 1 ? 1 : level > 6 ? 6 : level, fmt, ap);
    va_end(ap);
}

void se_doc_para(se_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_block(d, SE_DOC_PARA, 0, fmt, ap);
    va_end(ap);
}

void se_doc_item(se_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    text_block(d, SE_DOC_ITEM, 0, fmt, ap);
    va_end(ap);
}

void se_doc_begin(se_doc *d, se_doc_kind kind)
{
    se_doc_block *b = add_block(d, kind);
    if (b && kind == SE_DOC_HEADING)
        b->level = 2;
}

void se_doc_text(se_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(d, fmt, ap);
    va_end(ap);
    if (s)
        add_run(d, SE_RUN_TEXT, s, NULL);
    free(s);
}

void se_doc_code(se_doc *d, const char *text) { add_run(d, SE_RUN_CODE, text, NULL); }
void se_doc_em(se_doc *d, const char *text) { add_run(d, SE_RUN_EM, text, NULL); }
void se_doc_strong(se_doc *d, const char *text) { add_run(d, SE_RUN_STRONG, text, NULL); }
void se_doc_cell(se_doc *d) { add_run(d, SE_RUN_CELL, "", NULL); }

void se_doc_link(se_doc *d, const char *href, const char *text)
{
    add_run(d, SE_RUN_LINK, text, href);
}

void se_doc_download(se_doc *d, const char *href, const char *text)
{
    add_run(d, SE_RUN_DOWNLOAD, text, href);
}

void se_doc_end(se_doc *d)
{
    d->open = 0;
}

void se_doc_table_cells(se_doc *d, int n, const char *const *cells, const char *align)
{
    se_doc_block *b = add_block(d, SE_DOC_TABLE);
    if (!b)
        return;
    b->align = dup_or_oom(d, align);
    for (int i = 0; i < n; i++) {
        if (i)
            se_doc_cell(d);
        add_run(d, SE_RUN_TEXT, cells[i], NULL);
    }
    d->open = 0;
}

void se_doc_table(se_doc *d, const char *columns, const char *align)
{
    enum { MAX = 64 };
    char *names[MAX];
    int n = 0;
    for (;;) {
        size_t len = strcspn(columns, "|");
        if (n < MAX && !(names[n] = strndup(columns, len)))
            d->oom = 1;
        else if (n < MAX)
            n++;
        columns += len;
        if (*columns != '|')
            break;
        columns++;
    }
    se_doc_table_cells(d, n, (const char *const *)names, align);
    for (int i = 0; i < n; i++)
        free(names[i]);
}

void se_doc_row(se_doc *d, int n, const char *const *cells)
{
    se_doc_begin(d, SE_DOC_ROW);
    for (int i = 0; i < n; i++) {
        if (i)
            se_doc_cell(d);
        add_run(d, SE_RUN_TEXT, cells[i], NULL);
    }
    d->open = 0;
}

void se_doc_table_end(se_doc *d)
{
    add_block(d, SE_DOC_TABLE_END);
    d->open = 0;
}

void se_doc_figure(se_doc *d, const char *src, const char *href, const char *alt, int width)
{
    se_doc_block *b = add_block(d, SE_DOC_FIGURE);
    if (!b)
        return;
    b->src = dup_or_oom(d, src);
    b->href = dup_or_oom(d, href);
    b->width = width;
    /* The alt text is the block's first run; the caption follows. */
    add_run(d, SE_RUN_TEXT, alt, NULL);
}

void se_doc_pre(se_doc *d, const char *text)
{
    se_doc_block *b = add_block(d, SE_DOC_PRE);
    if (b)
        add_run(d, SE_RUN_TEXT, text, NULL);
    d->open = 0;
}
