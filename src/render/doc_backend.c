/*
 * doc_backend.c - what the document builder's back ends share about the
 * blocks doc.c builds (see doc_backend.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/doc_backend.h"

#include <string.h>

#include "render/buf.h"
#include "render/doc.h"

int se_doc_is_item(const se_doc *d, size_t i)
{
    return i < d->n && d->blocks[i].kind == SE_DOC_ITEM;
}

/* The runs of a block a back end writes as content (a figure's first run
 * is its alt text). */
size_t se_doc_first_run(const se_doc_block *b)
{
    return b->kind == SE_DOC_FIGURE && b->n_runs ? 1 : 0;
}

int se_doc_n_cells(const se_doc_block *b)
{
    int n = 1;
    for (size_t i = 0; i < b->n_runs; i++)
        n += b->runs[i].kind == SE_RUN_CELL;
    return n;
}

char se_doc_align_of(const se_doc_block *table, int col)
{
    if (!table || !table->align || col >= (int)strlen(table->align))
        return 0;
    return table->align[col];
}

/* The plain text of a block's runs (for ids and the text back end). */
void se_doc_plain_runs(se_buf *out, const se_doc_block *b, size_t from, size_t to)
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
