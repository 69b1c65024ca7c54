/*
 * doc_text.c - the plain-text back end of the document builder (doc.h):
 * headings underlined, tables in aligned columns, preformatted text
 * indented.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/doc.h"
#include "render/doc_backend.h"

#include <stdlib.h>
#include <string.h>

/* ---- plain text -------------------------------------------------------- */

/* The cells of one row as separate strings (se_doc_n_cells(b) of them). */
static void row_cells(const se_doc_block *b, se_buf *cells)
{
    int col = 0;
    size_t start = 0;
    for (size_t i = 0; i <= b->n_runs; i++) {
        if (i == b->n_runs || b->runs[i].kind == SE_RUN_CELL) {
            se_doc_plain_runs(&cells[col++], b, start, i);
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
    int cols = se_doc_n_cells(head);
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
        if (se_doc_n_cells(b) <= cols)
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
            int right = se_doc_align_of(head, c) == 'r' && r > 0;
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
            se_doc_plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "%s\n", se_buf_str(&t));
            for (size_t k = text_width(se_buf_str(&t)); k > 0; k--)
                se_buf_add(out, b->level == 1 ? "=" : "-");
            se_buf_add(out, "\n\n");
            break;
        }
        case SE_DOC_PARA:
        case SE_DOC_NOTE:
            se_doc_plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "%s\n\n", se_buf_str(&t));
            break;
        case SE_DOC_ITEM:
            se_doc_plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "- %s\n%s", se_buf_str(&t), se_doc_is_item(d, i + 1) ? "" : "\n");
            break;
        case SE_DOC_TABLE:
            i = plain_table(d, i, out);
            se_buf_add(out, "\n");
            break;
        case SE_DOC_ROW:       /* a row outside a table: its cells on one line */
            se_doc_plain_runs(&t, b, 0, b->n_runs);
            se_buf_printf(out, "%s\n", se_buf_str(&t));
            break;
        case SE_DOC_TABLE_END:
            break;
        case SE_DOC_FIGURE:
            se_doc_plain_runs(&t, b, se_doc_first_run(b), b->n_runs);
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
