/*
 * derived.h - the results derived from a run's summaries, computed once, in
 * one place: per shape, each case's ratio to stream with its interval, its
 * fraction of the same-run copy and its standing against the best peer, the
 * fastest tiled strategy, our fastest validated strategy and the best peer
 * (docs/BUNDLE.md, "summary.json's derived object"). A run records them in
 * summary.json (version 2) and verify recomputes them like every other
 * summary; for a version 1 summary the run reader computes them, so the
 * table, report, figures and site only format what is here.
 */
#ifndef SE_BUNDLE_DERIVED_H
#define SE_BUNDLE_DERIVED_H

#include <jansson.h>

#include "model/protocol.h"
#include "model/se_common.h"

/* The summary.json version whose "derived" object holds "shapes". */
#define SE_SUMMARY_VERSION_DERIVED 2

/* Builds derived.shapes: one object per shape of the protocol, in protocol
 * order, from summary.json's cases, validation.json's pass flags and
 * peers.json (NULL when the run has none or did not load). validation may
 * be NULL (then nothing counts as validated). Returns a new array. */
se_status se_derived_shapes(const se_protocol *p, const json_t *summary, const json_t *validation,
                            const json_t *peers, json_t **out, se_err *err);

/* Makes summary a version 2 summary: sets "version" to 2 and adds "shapes"
 * (se_derived_shapes) at the end of its "derived" object. */
se_status se_derived_add(const se_protocol *p, json_t *summary, const json_t *validation,
                         const json_t *peers, se_err *err);

/* se_derived_add with validation.json and peers.json (when present) read
 * from the run directory dir, as the run writes them before summary.json. */
se_status se_derived_add_dir(const se_protocol *p, const char *dir, json_t *summary, se_err *err);

#endif
