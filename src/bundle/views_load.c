/*
 * views_load.c - se_views_load (see views.h): the typed views of a run's
 * JSON, built by each run file's loader in turn (views_summary.c,
 * views_records.c, views_traces.c); a malformed field is refused with its
 * file and field named, and nothing is kept.
 */
#include "bundle/views.h"

#include <stdlib.h>

#include "bundle/paths.h"
#include "bundle/views_internal.h"

se_status se_views_load(const se_views_json *in, se_run_views **out, se_err *err)
{
    *out = NULL;
    se_run_views *v = calloc(1, sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_SUMMARY_JSON);
    se_status st = views_summary_load(in->summary, in->derived, v, err);
    if (st == SE_OK)
        st = views_records_load(in, v, err);
    if (st == SE_OK)
        st = views_traces_load(in->traces, &v->traces, err);
    if (st != SE_OK) {
        se_views_free(v);
        return st;
    }
    *out = v;
    return SE_OK;
}
