/*
 * answer_summary.h - the answer in a few plain sentences (the README's
 * first screen: `softmax-evidence answer --format summary`) and as JSON
 * (`--format json`). Like answer_text.h, it only words and writes the
 * numbers of bundle/answer.h; nothing here computes a statistic beyond
 * counting and picking the lowest and highest of them.
 */
#ifndef SE_RENDER_ANSWER_SUMMARY_H
#define SE_RENDER_ANSWER_SUMMARY_H

#include <stdio.h>

#include "bundle/answer.h"
#include "bundle/rundata.h"

/* Three to five sentences, one paragraph, plain text: the launch
 * mechanisms (graph and PDL) against stream, the fused ones (fusion and the
 * megakernel) against stream, the megakernel against graph-pdl, and what
 * the numbers are (GPU, scope, runs and how far a ratio moved between
 * them). ref is the answer's first run (its GPU's name). Returns a
 * malloc'ed string or NULL. */
char *se_answer_summary(const se_answer *a, const se_rundata *ref);

/* The answer as one JSON object: the runs, per shape and mechanism the
 * ratio to stream with its interval and runs range, the head-to-head
 * ratios, the megakernel's initialization, the context, the summary and
 * the answer's sentences (answer_text.h's se_answer_sentences, one a line). */
void se_answer_json(FILE *out, const se_answer *a, const se_rundata *ref, const char *sentences);

/* se_answer_json (json) or se_answer_summary's paragraph to out. */
void se_answer_summary_print(FILE *out, const se_answer *a, const se_rundata *ref, int json,
                             const char *sentences);

#endif
