/*
 * answer_text.h - the answer, formatted: the grid of ratios to stream per
 * shape and mechanism (text for the terminal, Markdown for the README and
 * the report) and the sentences generated from those numbers. The numbers
 * come from bundle/answer.h; nothing here computes a statistic.
 */
#ifndef SE_RENDER_ANSWER_TEXT_H
#define SE_RENDER_ANSWER_TEXT_H

#include <stdio.h>

#include "bundle/answer.h"
#include "render/format.h"
#include "render/doc.h"

/* SUMMARY and JSON: render/answer_summary.h (se_answer_main only). */
/* The answer's formats: SE_FORMATS_ANSWER of render/format.h. */

/* The sentences as a list, the grid as a table and the head-to-head
 * lines, appended to a document (report, site, README); with context, then
 * the context table (our fastest of any kind and the best peer per shape). */
void se_answer_doc(se_doc *d, const se_answer *a, int context);

/* The generated sentences, one paragraph per line, plain text (no markup,
 * so every back end can use them). Returns a malloc'ed string or NULL. */
char *se_answer_sentences(const se_answer *a);

/* Sentences, then the grid, then the head-to-head lines (and, with
 * context, the context table): Markdown through the document builder, or
 * fixed-width text for the terminal. */
void se_answer_print(FILE *out, const se_answer *a, se_format fmt, int context);

/* `softmax-evidence answer RUN [RUN...] [--format text|md|summary|json]`: verifies
 * every run, then prints the answer built from them (the first run is the
 * reference, the others give the between-run range). */
se_status se_answer_main(const char *const *dirs, size_t n_dirs, se_format fmt, FILE *out,
                         se_err *err);

/* The runs the answer of a single run's renderings (table, report, site)
 * rests on: a run set file (bundle/runset.h), or NULL for the run alone
 * (the default). Set once by the command line (`--set FILE`). */
void se_answer_set_runs(const char *set_file);

/* The answer for a rendering of run rd: over the set given to
 * se_answer_set_runs (each run verified first; rd must be one of them,
 * matched by run id), or from rd alone. */
se_status se_answer_of_run(const se_rundata *rd, se_answer *a, se_err *err);

#endif
