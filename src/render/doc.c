/*
 * doc.c - the document builder and its Markdown, HTML and plain-text back
 * ends (see doc.h). Building only stores raw text; every escape happens
 * here, in the back end that writes it.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/doc.h"

#include <ctype.h>
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

/* ---- shared by the back ends ----------------------------------------- */

static int is_item(const se_doc *d, size_t i)
{
    return i < d->n && d->blocks[i].kind == SE_DOC_ITEM;
}

/* The runs of a block a back end writes as content (a figure's first run
 * is its alt text). */
static size_t first_run(const se_doc_block *b)
{
    return b->kind == SE_DOC_FIGURE && b->n_runs ? 1 : 0;
}

static int n_cells(const se_doc_block *b)
{
    int n = 1;
    for (size_t i = 0; i < b->n_runs; i++)
        n += b->runs[i].kind == SE_RUN_CELL;
    return n;
}

static char align_of(const se_doc_block *table, int col)
{
    if (!table || !table->align || col >= (int)strlen(table->align))
        return 0;
    return table->align[col];
}

/* ---- Markdown ---------------------------------------------------------- */

static void esc_md(se_buf *b, const char *s)
{
    for (; *s; s++) {
        if (strchr("\\`*_[]<>|#", *s)) {
            char e[3] = {'\\', *s, '\0'};
            se_buf_add(b, e);
        } else if (*s == '\n') {
            se_buf_add(b, " ");
        } else {
            se_buf_addn(b, s, 1);
        }
    }
}

static void md_runs(se_buf *out, const se_doc_block *b)
{
    for (size_t i = first_run(b); i < b->n_runs; i++) {
        const se_doc_run *r = &b->runs[i];
        switch (r->kind) {
        case SE_RUN_TEXT: esc_md(out, r->text); break;
        case SE_RUN_CODE: se_buf_printf(out, "`%s`", r->text); break;
        case SE_RUN_EM: se_buf_add(out, "*"); esc_md(out, r->text); se_buf_add(out, "*"); break;
        case SE_RUN_STRONG:
            se_buf_add(out, "**");
            esc_md(out, r->text);
            se_buf_add(out, "**");
            break;
        case SE_RUN_LINK:
        case SE_RUN_DOWNLOAD:
            se_buf_add(out, "[");
            esc_md(out, r->text);
            se_buf_printf(out, "](%s)", r->href);
            break;
        case SE_RUN_CELL: se_buf_add(out, " | "); break;
        }
    }
}

void se_doc_markdown(const se_doc *d, se_buf *out)
{
    for (size_t i = 0; i < d->n; i++) {
        const se_doc_block *b = &d->blocks[i];
        switch (b->kind) {
        case SE_DOC_HEADING:
            for (int k = 0; k < b->level; k++)
                se_buf_add(out, "#");
            se_buf_add(out, " ");
            md_runs(out, b);
            se_buf_add(out, "\n\n");
            break;
        case SE_DOC_PARA:
        case SE_DOC_NOTE:
            md_runs(out, b);
            se_buf_add(out, "\n\n");
            break;
        case SE_DOC_ITEM:
            se_buf_add(out, "- ");
            md_runs(out, b);
            se_buf_add(out, is_item(d, i + 1) ? "\n" : "\n\n");
            break;
        case SE_DOC_TABLE:
        case SE_DOC_ROW:
            se_buf_add(out, "| ");
            md_runs(out, b);
            se_buf_add(out, " |\n");
            if (b->kind == SE_DOC_TABLE) {
                se_buf_add(out, "|");
                for (int k = 0, n = n_cells(b); k < n; k++) {
                    char a = align_of(b, k);
                    se_buf_add(out, a == 'r' ? "---:|" : a == 'l' ? ":---|" : "---|");
                }
                se_buf_add(out, "\n");
            }
            break;
        case SE_DOC_TABLE_END:
            se_buf_add(out, "\n");
            break;
        case SE_DOC_FIGURE:
            se_buf_add(out, "[![");
            if (b->n_runs)
                esc_md(out, b->runs[0].text);
            se_buf_printf(out, "](%s)](%s)\n\n", b->src ? b->src : "", b->href ? b->href : "");
            md_runs(out, b);
            se_buf_add(out, "\n\n");
            break;
        case SE_DOC_PRE:
            se_buf_printf(out, "```\n%s\n```\n\n", b->n_runs ? b->runs[0].text : "");
            break;
        }
    }
}

/* ---- HTML -------------------------------------------------------------- */

void se_doc_esc_html(se_buf *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': se_buf_add(out, "&amp;"); break;
        case '<': se_buf_add(out, "&lt;"); break;
        case '>': se_buf_add(out, "&gt;"); break;
        case '"': se_buf_add(out, "&quot;"); break;
        case '\'': se_buf_add(out, "&#39;"); break;
        default: se_buf_addn(out, s, 1);
        }
    }
}

/* An attribute's URL, with base before a relative one. */
static void html_url(se_buf *out, const char *base, const char *url)
{
    if (!url)
        url = "";
    if (base && strncmp(url, "http", 4) != 0 && url[0] != '#' && url[0] != '/' &&
        strncmp(url, "../", 3) != 0)
        se_doc_esc_html(out, base);
    se_doc_esc_html(out, url);
}

/* Writes the runs of b; in a table row each cell is wrapped in cell_tag
 * (with class "n" when the table aligns the column right). */
static void html_runs(se_buf *out, const se_doc_block *b, const char *base, const char *cell_tag,
                      const se_doc_block *table)
{
    int col = 0;
    if (cell_tag)
        se_buf_printf(out, "<%s%s>", cell_tag, align_of(table, 0) == 'r' ? " class=\"n\"" : "");
    for (size_t i = first_run(b); i < b->n_runs; i++) {
        const se_doc_run *r = &b->runs[i];
        switch (r->kind) {
        case SE_RUN_TEXT: se_doc_esc_html(out, r->text); break;
        case SE_RUN_CODE:
            se_buf_add(out, "<code>");
            se_doc_esc_html(out, r->text);
            se_buf_add(out, "</code>");
            break;
        case SE_RUN_EM:
            se_buf_add(out, "<em>");
            se_doc_esc_html(out, r->text);
            se_buf_add(out, "</em>");
            break;
        case SE_RUN_STRONG:
            se_buf_add(out, "<strong>");
            se_doc_esc_html(out, r->text);
            se_buf_add(out, "</strong>");
            break;
        case SE_RUN_LINK:
        case SE_RUN_DOWNLOAD:
            se_buf_add(out, "<a href=\"");
            html_url(out, base, r->href);
            se_buf_add(out, r->kind == SE_RUN_DOWNLOAD ? "\" download>" : "\">");
            se_doc_esc_html(out, r->text);
            se_buf_add(out, "</a>");
            break;
        case SE_RUN_CELL:
            col++;
            if (cell_tag)
                se_buf_printf(out, "</%s><%s%s>", cell_tag, cell_tag,
                              align_of(table, col) == 'r' ? " class=\"n\"" : "");
            break;
        }
    }
    if (cell_tag)
        se_buf_printf(out, "</%s>", cell_tag);
}

/* The plain text of a block's runs (for ids and the text back end). */
static void plain_runs(se_buf *out, const se_doc_block *b, size_t from, size_t to)
{
    for (size_t i = from; i < to && i < b->n_runs; i++) {
        const se_doc_run *r = &b->runs[i];
        if (r->kind == SE_RUN_CELL)
            continue;
        se_buf_add(out, r->text);
        if ((r->kind == SE_RUN_LINK || r->kind == SE_RUN_DOWNLOAD) && r->href &&
            strcmp(r->href, r->text) != 0)
            se_buf_printf(out, " (%s)", r->href);
    }
}

/* A heading's text in lower case, runs of other characters as one '-'. */
static void slug(const se_doc_block *b, char *id, size_t size)
{
    se_buf t = {0};
    plain_runs(&t, b, 0, b->n_runs);
    size_t n = 0;
    int dash = 0;
    for (const char *s = se_buf_str(&t); *s && n + 2 < size; s++) {
        if (isalnum((unsigned char)*s)) {
            if (dash && n)
                id[n++] = '-';
            id[n++] = (char)tolower((unsigned char)*s);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    id[n] = '\0';
    if (!n)
        snprintf(id, size, "section");
    se_buf_free(&t);
}

/* The id of the heading at d->blocks[i]: its slug, with "-2", "-3", ...
 * after the first heading of the same slug. */
static void heading_id(const se_doc *d, size_t i, char *id, size_t size)
{
    slug(&d->blocks[i], id, size);
    int same = 0;
    for (size_t k = 0; k < i; k++) {
        char other[128];
        if (d->blocks[k].kind != SE_DOC_HEADING)
            continue;
        slug(&d->blocks[k], other, sizeof other);
        same += strcmp(other, id) == 0;
    }
    if (same) {
        size_t len = strlen(id);
        snprintf(id + len, size - len, "-%d", same + 1);
    }
}

void se_doc_html(const se_doc *d, const char *base, se_buf *out)
{
    const se_doc_block *table = NULL;
    for (size_t i = 0; i < d->n; i++) {
        const se_doc_block *b = &d->blocks[i];
        switch (b->kind) {
        case SE_DOC_HEADING: {
            char id[128];
            heading_id(d, i, id, sizeof id);
            se_buf_printf(out, "<h%d id=\"%s\">", b->level, id);
            html_runs(out, b, base, NULL, NULL);
            se_buf_printf(out, "</h%d>\n", b->level);
            break;
        }
        case SE_DOC_PARA:
        case SE_DOC_NOTE:
            se_buf_add(out, b->kind == SE_DOC_NOTE ? "<p class=\"note\">" : "<p>");
            html_runs(out, b, base, NULL, NULL);
            se_buf_add(out, "</p>\n");
            break;
        case SE_DOC_ITEM:
            if (!i || !is_item(d, i - 1))
                se_buf_add(out, "<ul>\n");
            se_buf_add(out, "<li>");
            html_runs(out, b, base, NULL, NULL);
            se_buf_add(out, "</li>\n");
            if (!is_item(d, i + 1))
                se_buf_add(out, "</ul>\n");
            break;
        case SE_DOC_TABLE:
            table = b;
            se_buf_add(out, "<table>\n<tr>");
            html_runs(out, b, base, "th", NULL);
            se_buf_add(out, "</tr>\n");
            break;
        case SE_DOC_ROW:
            se_buf_add(out, "<tr>");
            html_runs(out, b, base, "td", table);
            se_buf_add(out, "</tr>\n");
            break;
        case SE_DOC_TABLE_END:
            table = NULL;
            se_buf_add(out, "</table>\n");
            break;
        case SE_DOC_FIGURE:
            se_buf_add(out, "<figure><a href=\"");
            html_url(out, base, b->href);
            se_buf_add(out, "\"><img src=\"");
            html_url(out, base, b->src);
            se_buf_add(out, "\" alt=\"");
            if (b->n_runs)
                se_doc_esc_html(out, b->runs[0].text);
            if (b->width > 0)
                se_buf_printf(out, "\" width=\"%d\" style=\"max-width:100%%;height:auto", b->width);
            se_buf_add(out, "\"></a><figcaption>");
            html_runs(out, b, base, NULL, NULL);
            se_buf_add(out, "</figcaption></figure>\n");
            break;
        case SE_DOC_PRE:
            se_buf_add(out, "<pre>");
            se_doc_esc_html(out, b->n_runs ? b->runs[0].text : "");
            se_buf_add(out, "</pre>\n");
            break;
        }
    }
}

/* ---- plain text -------------------------------------------------------- */

/* The cells of one row as separate strings (n_cells(b) of them). */
static void row_cells(const se_doc_block *b, se_buf *cells)
{
    int col = 0;
    size_t start = 0;
    for (size_t i = 0; i <= b->n_runs; i++) {
        if (i == b->n_runs || b->runs[i].kind == SE_RUN_CELL) {
            plain_runs(&cells[col++], b, start, i);
            start = i + 1;
        }
    }
}

static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80; /* UTF-8: count characters */
    return w;
}

/* A table from its header block at d->blocks[i] to its end; returns the
 * index of the TABLE_END block (or the last one). */
static size_t plain_table(const se_doc *d, size_t i, se_buf *out)
{
    const se_doc_block *head = &d->blocks[i];
    int cols = n_cells(head);
    size_t end = i;
    while (end + 1 < d->n && d->blocks[end + 1].kind == SE_DOC_ROW)
        end++;
    size_t rows = end - i + 1;
    se_buf *cells = calloc(rows * (size_t)cols, sizeof *cells);
    size_t *width = calloc((size_t)cols, sizeof *width);
    if (!cells || !width) {
        free(cells);
        free(width);
        out->oom = 1;
        return end + 1;
    }
    for (size_t r = 0; r < rows; r++) {
        const se_doc_block *b = &d->blocks[i + r];
        if (n_cells(b) <= cols)
            row_cells(b, &cells[r * (size_t)cols]);
        for (int c = 0; c < cols; c++) {
            size_t w = text_width(se_buf_str(&cells[r * (size_t)cols + (size_t)c]));
            width[c] = w > width[c] ? w : width[c];
        }
    }
    for (size_t r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            const char *s = se_buf_str(&cells[r * (size_t)cols + (size_t)c]);
            size_t pad = width[c] - text_width(s);
            int right = align_of(head, c) == 'r' && r > 0;
            for (size_t k = 0; right && k < pad; k++)
                se_buf_add(out, " ");
            se_buf_add(out, s);
            for (size_t k = 0; !right && c + 1 < cols && k < pad; k++)
                se_buf_add(out, " ");
            se_buf_add(out, c + 1 < cols ? "  " : "\n");
        }
        if (r == 0) {
            for (int c = 0; c < cols; c++) {
                for (size_t k = 0; k < width[c]; k++)
                    se_buf_add(out, "-");
                se_buf_add(out, c + 1 < cols ? "  " : "\n");
            }
        }
    }
    for (size_t k = 0; k < rows * (size_t)cols; k++)
        se_buf_free(&cells[k]);
    free(cells);
    free(width);
    return end + 1 < d->n && d->blocks[end + 1].kind == SE_DOC_TABLE_END ? end + 1 : end;
}

void se_doc_plain(const se_doc *d, se_buf *out)
{
    for (size_t i = 0; i < d->n; i++) {
        const se_doc_block *b = &d->blocks[i];
        se_buf t = {0};
        switch (b->kind) {
        case SE_DOC_HEADING: {
            plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "%s\n", se_buf_str(&t));
            for (size_t k = text_width(se_buf_str(&t)); k > 0; k--)
                se_buf_add(out, b->level == 1 ? "=" : "-");
            se_buf_add(out, "\n\n");
            break;
        }
        case SE_DOC_PARA:
        case SE_DOC_NOTE:
            plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "%s\n\n", se_buf_str(&t));
            break;
        case SE_DOC_ITEM:
            plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "- %s\n%s", se_buf_str(&t), is_item(d, i + 1) ? "" : "\n");
            break;
        case SE_DOC_TABLE:
            i = plain_table(d, i, out);
            se_buf_add(out, "\n");
            break;
        case SE_DOC_ROW:       /* a row outside a table: its cells on one line */
            plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "%s\n", se_buf_str(&t));
            break;
        case SE_DOC_TABLE_END:
            break;
        case SE_DOC_FIGURE:
            plain_runs(&t, b, first_run(b), b->n_runs);
            se_buf_printf(out, "[figure %s: %s]\n%s\n\n", b->href ? b->href : "",
                          b->n_runs ? b->runs[0].text : "", se_buf_str(&t));
            break;
        case SE_DOC_PRE: {
            const char *s = b->n_runs ? b->runs[0].text : "";
            while (*s) {
                size_t len = strcspn(s, "\n");
                se_buf_printf(out, "    %.*s\n", (int)len, s);
                s += len + (s[len] == '\n');
            }
            se_buf_add(out, "\n");
            break;
        }
        }
        if (t.oom)
            out->oom = 1;
        se_buf_free(&t);
    }
}
