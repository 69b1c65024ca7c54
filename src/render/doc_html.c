/*
 * doc_html.c - the HTML back end of the document builder (doc.h), and the
 * program's one HTML escaper (se_doc_esc_html): the report's report.html
 * and every page of the site. Also their one stylesheet (se_doc_css) and
 * their contents list (se_doc_html_toc).
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

/* Rows of the table whose header is d->blocks[i]. */
static size_t table_rows(const se_doc *d, size_t i)
{
    size_t n = 0;
    for (size_t k = i + 1; k < d->n && d->blocks[k].kind == SE_DOC_ROW; k++)
        n++;
    return n;
}

const char *se_doc_css(void)
{
    return "body { font-family: system-ui, sans-serif; margin: 0; color: #222; line-height: 1.45; }\n"
           "main, .page { max-width: 1200px; margin: 1em auto; padding: 0 1em; }\n"
           "nav.site { background: #1f2937; padding: 0.6em 1em; }\n"
           "nav.site a { color: #e5e7eb; margin-right: 1.2em; text-decoration: none; }\n"
           "nav.site a.here { color: #fff; font-weight: bold; }\n"
           "footer { max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #555; font-size: 0.9em; }\n"
           "h1 { font-size: 1.7em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }\n"
           "h2 a.anchor, h3 a.anchor { color: #bbb; text-decoration: none; font-size: 0.8em; margin-left: 0.3em; }\n"
           "a.top { float: right; font-size: 0.55em; font-weight: normal; margin-top: 0.6em; }\n"
           "nav.toc { background: #f6f7f9; border: 1px solid #e2e4e8; padding: 0.5em 1em; margin: 1em 0; }\n"
           "nav.toc ul { margin: 0.2em 0; padding-left: 1.2em; } nav.toc > ul { columns: 2 18em; }\n"
           "nav.toc li { break-inside: avoid; }\n"
           ".scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1.5em; }\n"
           "table { border-collapse: collapse; font-size: 0.85em; }\n"
           "th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }\n"
           "th { background: #f0f1f3; position: sticky; top: 0; }\n"
           "td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
           "details > summary { cursor: pointer; color: #1d4ed8; margin: 0.5em 0; }\n"
           "figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
           "figcaption { font-size: 0.9em; color: #444; }\n"
           "code, pre { font-family: ui-monospace, monospace; font-size: 0.9em; }\n"
           "code { overflow-wrap: anywhere; }\n"
           "pre { background: #f5f5f5; padding: 0.8em; overflow-x: auto; }\n"
           "p, li { overflow-wrap: anywhere; }\n"
           ".note { background: #fff7e6; border-left: 4px solid #f0a020; padding: 0.6em 1em; }\n";
}

void se_doc_html_toc(const se_doc *d, int max_level, se_buf *out)
{
    int open = 0; /* levels of <ul> open below the top one */
    se_buf_add(out, "<nav class=\"toc\" id=\"contents\"><strong>Contents</strong>\n<ul>\n");
    int first = 1;
    for (size_t i = 0; i < d->n; i++) {
        const se_doc_block *b = &d->blocks[i];
        if (b->kind != SE_DOC_HEADING || b->level < 2 || b->level > max_level)
            continue;
        int depth = b->level - 2;
        if (!first && depth <= open)
            se_buf_add(out, "</li>\n");
        while (open > depth) {
            se_buf_add(out, "</ul></li>\n");
            open--;
        }
        while (open < depth) {
            se_buf_add(out, first ? "<li><ul>\n" : "<ul>\n");
            open++;
        }
        char id[128];
        heading_id(d, i, id, sizeof id);
        se_buf_printf(out, "<li><a href=\"#%s\">", id);
        html_runs(out, b, NULL, NULL, NULL);
        se_buf_add(out, "</a>");
        first = 0;
    }
    if (!first)
        se_buf_add(out, "</li>\n");
    while (open > 0) {
        se_buf_add(out, "</ul></li>\n");
        open--;
    }
    se_buf_add(out, "</ul>\n</nav>\n");
}

/* Blocks from..to-1 of d; toc: the page has a contents list to link back to. */
static void html_range(const se_doc *d, const char *base, size_t from, size_t to, int toc,
                       se_buf *out)
{
    const se_doc_block *table = NULL;
    int folded = 0;
    for (size_t i = from; i < to; i++) {
        const se_doc_block *b = &d->blocks[i];
        switch (b->kind) {
        case SE_DOC_HEADING: {
            char id[128];
            heading_id(d, i, id, sizeof id);
            se_buf_printf(out, "<h%d id=\"%s\">", b->level, id);
            if (b->level == 2 && toc)
                se_buf_add(out, "<a class=\"top\" href=\"#contents\">contents</a>");
            html_runs(out, b, base, NULL, NULL);
            if (b->level >= 2)
                se_buf_printf(out, "<a class=\"anchor\" href=\"#%s\" title=\"link to this "
                                   "section\">#</a>", id);
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
        case SE_DOC_TABLE: {
            table = b;
            /* A long table is folded (the browser's find still opens it),
             * and every table scrolls sideways in its own box. */
            size_t rows = table_rows(d, i);
            folded = rows > SE_DOC_FOLD_ROWS;
            if (folded)
                se_buf_printf(out, "<details><summary>Show the table (%zu rows)</summary>\n", rows);
            se_buf_add(out, "<div class=\"scroll\"><table>\n<tr>");
            html_runs(out, b, base, "th", NULL);
            se_buf_add(out, "</tr>\n");
            break;
        }
        case SE_DOC_ROW:
            se_buf_add(out, "<tr>");
            html_runs(out, b, base, "td", table);
            se_buf_add(out, "</tr>\n");
            break;
        case SE_DOC_TABLE_END:
            table = NULL;
            se_buf_add(out, "</table></div>\n");
            if (folded)
                se_buf_add(out, "</details>\n");
            folded = 0;
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

void se_doc_html(const se_doc *d, const char *base, se_buf *out)
{
    html_range(d, base, 0, d->n, 0, out);
}

void se_doc_html_with_toc(const se_doc *d, const char *base, int max_level, se_buf *out)
{
    size_t split = d->n;
    int seen = 0;
    for (size_t i = 0; i < d->n && split == d->n; i++)
        if (d->blocks[i].kind == SE_DOC_HEADING && d->blocks[i].level == 2 && seen++ == 1)
            split = i;
    html_range(d, base, 0, split, 1, out);
    se_doc_html_toc(d, max_level, out);
    html_range(d, base, split, d->n, 1, out);
}
