/*
 * format.h - the output formats a command can print its results in
 * (`--format text|md|csv|json`): table, compare. The numbers are the same
 * in each; only the layout differs.
 */
#ifndef SE_RENDER_FORMAT_H
#define SE_RENDER_FORMAT_H

typedef enum se_format {
    SE_FORMAT_TEXT = 0, /* aligned columns for a terminal */
    SE_FORMAT_MD,       /* GitHub-flavoured Markdown tables */
    SE_FORMAT_CSV,      /* RFC 4180, one header line */
    SE_FORMAT_JSON      /* one JSON document, full precision */
} se_format;

#endif
