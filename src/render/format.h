/*
 * format.h - the one registry of output formats (`--format`): every command
 * that takes --format (table, goals, answer, compare, export) parses it
 * here, against the set of formats it can print, and every error names the
 * command's formats the same way. The numbers are the same in each format;
 * only the layout differs.
 */
#ifndef SE_RENDER_FORMAT_H
#define SE_RENDER_FORMAT_H

#include <stddef.h>

#include "model/se_common.h"

typedef enum se_format {
    SE_FORMAT_TEXT = 0, /* aligned columns and sentences for a terminal */
    SE_FORMAT_MD,       /* GitHub-flavoured Markdown tables */
    SE_FORMAT_CSV,      /* RFC 4180, one header line */
    SE_FORMAT_JSON,     /* one JSON document, full precision */
    SE_FORMAT_SUMMARY,  /* answer: the answer in a few plain sentences */
    SE_FORMAT_NVBENCH,  /* export: nvbench's JSON */
    SE_FORMAT_GBENCH,   /* export: Google Benchmark's JSON */
    SE_NFORMATS
} se_format;

#define SE_FORMAT_BIT(f) (1u << (f))
/* The formats of each command, in the order their help lists them. */
#define SE_FORMATS_TABLE                                                                      \
    (SE_FORMAT_BIT(SE_FORMAT_TEXT) | SE_FORMAT_BIT(SE_FORMAT_MD) | SE_FORMAT_BIT(SE_FORMAT_CSV) | \
     SE_FORMAT_BIT(SE_FORMAT_JSON))
#define SE_FORMATS_COMPARE SE_FORMATS_TABLE
#define SE_FORMATS_GOALS (SE_FORMAT_BIT(SE_FORMAT_TEXT) | SE_FORMAT_BIT(SE_FORMAT_MD))
#define SE_FORMATS_ANSWER                                                                     \
    (SE_FORMAT_BIT(SE_FORMAT_TEXT) | SE_FORMAT_BIT(SE_FORMAT_MD) |                            \
     SE_FORMAT_BIT(SE_FORMAT_SUMMARY) | SE_FORMAT_BIT(SE_FORMAT_JSON))
#define SE_FORMATS_EXPORT (SE_FORMAT_BIT(SE_FORMAT_NVBENCH) | SE_FORMAT_BIT(SE_FORMAT_GBENCH))

/* "text", "md", ...; "?" for a value that is no format. */
const char *se_format_name(se_format f);

/* "text|md|csv|json": the names of the formats in `allowed` (SE_FORMAT_BIT
 * mask), in registry order. */
void se_format_list(unsigned allowed, char *buf, size_t size);

/* Parses --format's value for command `cmd` among `allowed`; an unknown or
 * not allowed value fails (SE_ERR_USAGE) with
 * "CMD: --format: 'V' is not one of text|md|csv|json". */
se_status se_format_parse(const char *cmd, const char *value, unsigned allowed, se_format *out,
                          se_err *err);

#endif
