/*
 * views_internal.h - private to views_load.c and the loaders of each run
 * file's views that its se_views_load calls (views_summary.c,
 * views_records.c, views_traces.c), with views_compare.c: the loaders'
 * declarations, over the field readers of views_fields.h. Not part of the
 * bundle's interface (views.h is).
 */
#ifndef SE_VIEWS_INTERNAL_H
#define SE_VIEWS_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "bundle/views.h"
#include "bundle/views_fields.h"
#include "model/se_common.h"

/* One timing scope (a summary case's, or a peer's "summary"); s NULL: not
 * present (views_summary.c). */
se_status views_scope(const views_at *a, const json_t *s, se_scope_view *v);

/* summary.json's cases, controls and derived results (views_summary.c). */
se_status views_summary_load(const json_t *summary, const json_t *derived, se_run_views *v,
                             se_err *err);

/* peers.json, resources.json, validation.json, environment.json and
 * run.json, in that order (views_records.c). */
se_status views_records_load(const se_views_json *in, se_run_views *v, se_err *err);

/* traces.json: the traces and the tracing cost (views_traces.c). */
se_status views_traces_load(const json_t *tj, se_traces_view *v, se_err *err);

#endif
