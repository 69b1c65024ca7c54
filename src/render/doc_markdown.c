/*
 * doc_markdown.c - the Markdown back end of the document builder (doc.h):
 * the report's report.md.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/doc.h"
#include "render/doc_backend.h"

#include <string.h>

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
    for (size_t i = se_doc_first_run(b); i < b->n_runs; i++) {
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
            se_buf_add(out, se_doc_is_item(d, i + 1) ? "\n" : "\n\n");
            break;
        case SE_DOC_TABLE:
        case SE_DOC_ROW:
            se_buf_add(out, "| ");
            md_runs(out, b);
            se_buf_add(out, " |\n");
            if (b->kind == SE_DOC_TABLE) {
                se_buf_add(out, "|");
                for (int k = 0, n = se_doc_n_cells(b); k < n; k++) {
                    char a = se_doc_align_of(b, k);
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
