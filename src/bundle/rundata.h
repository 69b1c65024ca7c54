/*
 * rundata.h - the typed reader of a run directory, used by verify and by
 * every renderer (table, report, figures, site, profile): its JSON files
 * (each through se_json_load, format and version checked, duplicate keys
 * refused), its protocol, its manifest (each file's listed SHA-256 through
 * the one manifest line reader, and the hash recomputed when a figure or
 * the report draws on the file), its derived results (derived.h), and
 * readers for its samples and trace files.
 */
#ifndef SE_BUNDLE_RUNDATA_H
#define SE_BUNDLE_RUNDATA_H

#include <stddef.h>

#include <jansson.h>

#include "bundle/samples.h"
#include "bundle/trace.h"
#include "model/protocol.h"
#include "model/se_common.h"

/* One line of MANIFEST.sha256; rd->files holds them in the manifest's order
 * (sorted by path), so "<listed>  <path>\n" rewrites the line (the site's
 * LEFT_OUT.sha256). */
typedef struct se_run_file {
    char *path;       /* relative to the run, as listed in MANIFEST.sha256 */
    char listed[65];  /* the manifest's hash */
    char actual[65];  /* recomputed, "" until asked for */
} se_run_file;

typedef struct se_rundata {
    char dir[4096];
    char run_id[64];
    se_protocol p;     /* its strategy table is the run's own (rd->described, or
                          the legacy v1 table of a run without strategies.json) */
    int have_protocol;
    struct se_run_strategies *described; /* strategies.json, NULL in a run made before it */
    json_t *run, *env, *summary, *validation, *resources, *traces;
    json_t *peers;    /* peers.json, NULL in a run made before the peers */
    json_t *profile;  /* profile/profile.json, NULL in a run not profiled */
    json_t *derived;  /* se_rundata_derived */
    struct se_run_views *views; /* se_rundata_views; NULL after a lenient load */
    int lenient;      /* loaded by se_rundata_load_each */
    int summary_version; /* summary.json's "version": 1, or 2 with "derived" */
    se_run_file *files;
    size_t n_files, cap_files;
} se_rundata;

/* Loads strategies.json when the run has one (else the run is read with the
 * legacy v1 table), run.json, environment.json, protocol.json (its strategy
 * names resolved in the run's table), summary.json,
 * validation.json, resources.json, traces.json, peers.json and
 * profile/profile.json when the run has them, and MANIFEST.sha256 (each
 * JSON file's format and version checked), and computes the derived
 * results of a version 1 summary, then the typed views (views.h). On failure nothing needs freeing; the
 * message names the file and field. */
se_status se_rundata_load(const char *dir, se_rundata *rd, se_err *err);

/* Reports one problem of a lenient load; message names the file and field. */
typedef void (*se_rundata_problem_fn)(void *ctx, const char *message);

/* verify's load: loads what can be loaded and goes on past what cannot. A
 * JSON file that cannot be read (absent, not a regular file, too large,
 * malformed, duplicate keys, wrong format or version) is left NULL and
 * reported as "<file>: cannot be read: <why>"; a protocol that cannot be
 * loaded as "protocol.json: <why>" (have_protocol stays 0); malformed
 * manifest lines are skipped (verify's manifest check names them). Returns
 * the number of problems reported; free rd with se_rundata_free in every
 * case. */
size_t se_rundata_load_each(const char *dir, se_rundata *rd, se_rundata_problem_fn problem,
                            void *ctx);

void se_rundata_free(se_rundata *rd);

/* The strategies the run recorded: its strategies.json, or the legacy v1
 * table (model/strategy.h) for a run made before strategies.json. */
const se_strategy_table *se_rundata_table(const se_rundata *rd);

/* The run's workload: its strategies.json's, or (a run made before that
 * file) the workload table's first, the RMS-scaled softmax. */
const struct se_operation *se_rundata_operation(const se_rundata *rd);

/* rd measures what ref measures: the same shapes (in order), tile and
 * strategies (other scopes' counts, traces or peers may differ). Fails
 * (SE_ERR_USAGE) naming both runs. */
se_status se_rundata_same_workload(const se_rundata *ref, const se_rundata *rd, se_err *err);

/* summary.json's "derived" object, the one source of derived numbers for
 * every renderer (docs/BUNDLE.md): "grid_barrier_ns" and "shapes", one
 * entry per shape in protocol order with its cases' ratios to stream and
 * intervals, fractions of the copy, vs_best_peer, and its fastest tiled
 * strategy, our fastest validated strategy and its best peer. A version 2
 * summary's is the recorded one (verify has recomputed it); for a version
 * 1 summary it is computed at load. NULL only when summary.json or the
 * protocol did not load (a lenient load). Owned by rd. */
const json_t *se_rundata_derived(const se_rundata *rd);

/* The typed views of the run's JSON (bundle/views.h), built by
 * se_rundata_load, which refuses a malformed field naming its file and
 * field: what every renderer reads instead of the JSON itself. NULL after
 * se_rundata_load_each (verify reads the JSON). Owned by rd. */
const struct se_run_views *se_rundata_views(const se_rundata *rd);

/* Full path of a file of the run. */
void se_rundata_path(const se_rundata *rd, const char *rel, char *path, size_t size);

/* 1 when the manifest lists rel. */
int se_rundata_listed(const se_rundata *rd, const char *rel);

/* Recomputes rel's SHA-256 (once; later calls reuse it) and checks it
 * against the manifest: a file that is not listed, or that changed since
 * the run was verified, is an error naming it. */
se_status se_rundata_hash(se_rundata *rd, const char *rel, char hex[65], se_err *err);

/* Reads a samples file of the run into n_scopes sets (free each with
 * se_sample_set_free). */
se_status se_rundata_samples(const se_rundata *rd, const char *rel, se_sample_set *sets,
                             int n_scopes, se_err *err);

/* Reads a trace file of the run (free it with se_trace_free). */
se_status se_rundata_trace(const se_rundata *rd, const char *rel, se_trace *t, se_err *err);

/* "4096x4096": se_shape_id of a protocol shape (kept for the renderers). */
void se_rundata_shape_id(const se_shape *s, char *buf, size_t size);

/* An entry of an array in one of the JSON files whose string field `key`
 * equals `value`, or NULL. */
json_t *se_rundata_find(const json_t *array, const char *key, const char *value);

/* summary.json's entry for a case ("32x4096.fusion", "control.barriers"),
 * looked up in its cases and controls; NULL if absent. */
json_t *se_rundata_summary_case(const se_rundata *rd, const char *case_id);

/* validation.json's entry for a case, or NULL. */
json_t *se_rundata_validation_case(const se_rundata *rd, const char *case_id);

/* Number fields, 0 when absent. */
double se_json_num(const json_t *o, const char *key);
/* A nested value by a dotted path ("scopes.device.median_ns"), or NULL. */
json_t *se_json_path(const json_t *o, const char *path);
/* String field, or `fallback`. */
const char *se_json_str(const json_t *o, const char *key, const char *fallback);

#endif
