/*
 * doc_backend.h - what the document builder's back ends (doc_markdown.c,
 * doc_html.c, doc_text.c) share about the blocks doc.c builds. Not for
 * callers of doc.h.
 */
#ifndef SE_RENDER_DOC_BACKEND_H
#define SE_RENDER_DOC_BACKEND_H

#include <stddef.h>

#include "render/buf.h"
#include "render/doc.h"

/* 1 when d->blocks[i] exists and is a list item. */
int se_doc_is_item(const se_doc *d, size_t i);

/* The first run of a block a back end writes as content (a figure's first
 * run is its alt text). */
size_t se_doc_first_run(const se_doc_block *b);

/* The number of cells of a table row (its SE_RUN_CELL runs plus one). */
int se_doc_n_cells(const se_doc_block *b);

/* A table's alignment of column col: 'l', 'r', or 0 when unmarked. */
char se_doc_align_of(const se_doc_block *table, int col);

/* The plain text of runs [from, to) of b, a link followed by its target in
 * parentheses when the two differ (for heading ids and the text back end). */
void se_doc_plain_runs(se_buf *out, const se_doc_block *b, size_t from, size_t to);

#endif
