/*
 * compare_print.h - `softmax-evidence compare`: builds the comparison of
 * runs (bundle/compare.h) and prints it as text, Markdown, CSV or JSON
 * (docs/COMPARE.md).
 */
#ifndef SE_RENDER_COMPARE_PRINT_H
#define SE_RENDER_COMPARE_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "bundle/compare.h"
#include "model/se_common.h"
#include "render/format.h"

/* Compares dirs[1..] with dirs[0] and prints the result on out (in CSV,
 * the environment differences go to stderr, so out stays one table).
 * Returns SE_ERR_SLOWER, after printing everything, when o->fail_if_slower
 * >= 0 and a case got slower than that gate; err names the cases. */
se_status se_compare_main(const char *const *dirs, size_t n, const se_compare_opts *o,
                          se_format format, FILE *out, se_err *err);

#endif
