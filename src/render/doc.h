/*
 * doc.h - one document, three renderings. The report and the site's pages
 * are built once as a list of blocks (headings, paragraphs, list items,
 * tables, figures, preformatted text) made of inline runs (text, code,
 * emphasis, links), then written as Markdown, HTML or plain text. Text is
 * given raw and escaped by the back end that writes it: the HTML back end
 * (se_doc_html, se_doc_esc_html) is the program's one HTML escaper.
 * An allocation failure is sticky and reported once by se_doc_check.
 */
#ifndef SE_RENDER_DOC_H
#define SE_RENDER_DOC_H

#include <stddef.h>

#include "model/se_common.h"
#include "render/buf.h"

#if defined(__GNUC__)
#define SE_DOC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SE_DOC_PRINTF(a, b)
#endif

typedef enum se_doc_kind {
    SE_DOC_HEADING,  /* level 1 to 6; HTML gets an id from its text */
    SE_DOC_PARA,
    SE_DOC_NOTE,     /* a paragraph set apart (HTML class "note") */
    SE_DOC_ITEM,     /* consecutive items form one bulleted list */
    SE_DOC_TABLE,    /* the header row; rows follow, then se_doc_table_end */
    SE_DOC_ROW,
    SE_DOC_TABLE_END,
    SE_DOC_FIGURE,   /* an image linking to a file; its runs are the caption */
    SE_DOC_PRE       /* preformatted text */
} se_doc_kind;

typedef enum se_doc_run_kind {
    SE_RUN_TEXT,
    SE_RUN_CODE,
    SE_RUN_EM,
    SE_RUN_STRONG,
    SE_RUN_LINK,      /* text linking to href */
    SE_RUN_DOWNLOAD,  /* a link the browser downloads */
    SE_RUN_CELL       /* the start of the next table cell */
} se_doc_run_kind;

typedef struct se_doc_run {
    se_doc_run_kind kind;
    char *text;
    char *href;  /* links only */
} se_doc_run;

typedef struct se_doc_block {
    se_doc_kind kind;
    int level;          /* headings */
    char *align;        /* tables: one of 'l' or 'r' per column, or NULL (unmarked) */
    char *src, *href;   /* figures: the image and the file it links to */
    int width;          /* figures: HTML width in pixels, 0 for none */
    se_doc_run *runs;
    size_t n_runs, cap_runs;
} se_doc_block;

typedef struct se_doc {
    se_doc_block *blocks;
    size_t n, cap;
    int open;  /* the last block still takes runs */
    int oom;
} se_doc;

void se_doc_free(se_doc *d);

/* SE_ERR_NOMEM naming `what` if building the document ran out of memory. */
se_status se_doc_check(const se_doc *d, const char *what, se_err *err);

/* ---- building --------------------------------------------------------- */

/* Blocks of one text run each (printf-style). */
void se_doc_heading(se_doc *d, int level, const char *fmt, ...) SE_DOC_PRINTF(3, 4);
void se_doc_para(se_doc *d, const char *fmt, ...) SE_DOC_PRINTF(2, 3);
void se_doc_item(se_doc *d, const char *fmt, ...) SE_DOC_PRINTF(2, 3);

/* Starts a block that takes runs until the next block starts (or
 * se_doc_end): a paragraph, note, item, heading or table row. */
void se_doc_begin(se_doc *d, se_doc_kind kind);

/* Inline runs of the open block. */
void se_doc_text(se_doc *d, const char *fmt, ...) SE_DOC_PRINTF(2, 3);
void se_doc_code(se_doc *d, const char *text);
void se_doc_em(se_doc *d, const char *text);
void se_doc_strong(se_doc *d, const char *text);
void se_doc_link(se_doc *d, const char *href, const char *text);
void se_doc_download(se_doc *d, const char *href, const char *text);
/* In a table row: the next cell (the row's first cell needs none). */
void se_doc_cell(se_doc *d);

/* Closes the open block. */
void se_doc_end(se_doc *d);

/* A table's header from '|'-separated column names; align is NULL or one
 * 'l' or 'r' per column. Rows follow (se_doc_row, or se_doc_begin with
 * SE_DOC_ROW), then se_doc_table_end. */
void se_doc_table(se_doc *d, const char *columns, const char *align);
/* The same from n column names. */
void se_doc_table_cells(se_doc *d, int n, const char *const *cells, const char *align);
/* A row of n plain-text cells. */
void se_doc_row(se_doc *d, int n, const char *const *cells);
void se_doc_table_end(se_doc *d);

/* A figure: image src linking to href, alt text, HTML width (0: none); the
 * caption follows as runs of the open block. */
void se_doc_figure(se_doc *d, const char *src, const char *href, const char *alt, int width);

/* Preformatted text, kept as it is. */
void se_doc_pre(se_doc *d, const char *text);

/* ---- back ends -------------------------------------------------------- */

/* Markdown: text escaped for Markdown (\`*_[]<>|#), newlines as spaces. */
void se_doc_markdown(const se_doc *d, se_buf *out);

/* HTML body content. base, when not NULL, is put before every relative
 * link and image path (e.g. "figures/" for a document moved up a folder).
 * Every table sits in a box that scrolls sideways (class "scroll"); one of
 * more than SE_DOC_FOLD_ROWS rows is folded in a <details>. Headings of
 * level 2 and 3 end with a link to themselves. */
#define SE_DOC_FOLD_ROWS 40
void se_doc_html(const se_doc *d, const char *base, se_buf *out);

/* The contents list of d: a link to every heading of level 2 to
 * max_level, nested by level, in <nav class="toc" id="contents">. */
void se_doc_html_toc(const se_doc *d, int max_level, se_buf *out);

/* se_doc_html with the contents list after the first section (the answer
 * first, then the contents, then the rest); headings of level 2 start with
 * a link back to it. */
void se_doc_html_with_toc(const se_doc *d, const char *base, int max_level, se_buf *out);

/* The one stylesheet of report.html and the site (class names used by
 * se_doc_html and the site's frame). */
const char *se_doc_css(void);

/* Plain text: headings underlined, tables in aligned columns. */
void se_doc_plain(const se_doc *d, se_buf *out);

/* HTML-escapes s (& < > " ') into out: for page frames around a document. */
void se_doc_esc_html(se_buf *out, const char *s);

#endif
