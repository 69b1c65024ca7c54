/*
 * doc_html.c - the HTML back end of the document builder (doc.h), and the
 * program's one HTML escaper (se_doc_esc_html): the report's report.html
 * and every page of the site.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/doc.h"
#include "render/doc_backend.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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
        se_buf_printf(out, "<%s%s>", cell_tag, se_doc_align_of(table, 0) == 'r' ? " class=\"n\"" : "");
    for (size_t i = se_doc_first_run(b); i < b->n_runs; i++) {
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
                              se_doc_align_of(table, col) == 'r' ? " class=\"n\"" : "");
            break;
        }
    }
    if (cell_tag)
        se_buf_printf(out, "</%s>", cell_tag);
}

/* A heading's text in lower case, runs of other characters as one '-'. */
static void slug(const se_doc_block *b, char *id, size_t size)
{
    se_buf t = {0};
    se_doc_plain_runs(&t, b, 0, b->n_runs);
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
            if (!i || !se_doc_is_item(d, i - 1))
                se_buf_add(out, "<ul>\n");
            se_buf_add(out, "<li>");
            html_runs(out, b, base, NULL, NULL);
            se_buf_add(out, "</li>\n");
            if (!se_doc_is_item(d, i + 1))
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
