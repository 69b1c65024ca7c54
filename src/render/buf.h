/*
 * buf.h - growable text buffers and string lists for the figures command:
 * data files, gnuplot scripts and the report are built in memory with
 * printf-style appends, then written in one piece. An allocation failure is
 * sticky (later appends do nothing) and reported once by se_buf_check.
 */
#ifndef SE_REPORT_BUF_H
#define SE_REPORT_BUF_H

#include <stddef.h>

#include "model/se_common.h"

typedef struct se_buf {
    char *s;     /* NUL-terminated text, NULL while empty */
    size_t n;    /* bytes, without the NUL */
    size_t cap;
    int oom;     /* an append failed */
} se_buf;

void se_buf_free(se_buf *b);
void se_buf_add(se_buf *b, const char *text);
void se_buf_addn(se_buf *b, const char *text, size_t n);
void se_buf_printf(se_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The text ("" while empty). */
const char *se_buf_str(const se_buf *b);

/* SE_ERR_NOMEM naming `what` if an append failed. */
se_status se_buf_check(const se_buf *b, const char *what, se_err *err);

/* Writes the buffer to path (created or truncated), naming `rel` in
 * messages. */
se_status se_buf_write_file(const se_buf *b, const char *path, const char *rel, se_err *err);

typedef struct se_strlist {
    char **v;
    size_t n, cap;
} se_strlist;

void se_strlist_free(se_strlist *l);
/* Appends a copy of s unless the list holds it already. */
se_status se_strlist_add(se_strlist *l, const char *s, se_err *err);

#endif
