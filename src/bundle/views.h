/*
 * views.h - typed views of a run's JSON files, for the renderers (issue 32,
 * item 5): every field a table, report, figure, site page or export prints
 * is read here once, its type checked, and handed over as a C value with a
 * presence flag, so that no renderer looks a key up in the bundle's JSON.
 * The run reader (rundata.c) builds them at the end of a strict load; a
 * malformed value (a string where a number belongs, a ci95 that is not two
 * numbers) is refused there with a message naming the file and the field.
 *
 * A field that is absent or JSON null reads as not present (has_* 0, a
 * NULL string, 0 for counts); the renderers keep their own fallbacks for
 * those. Strings point into the run's JSON and live as long as the
 * se_rundata they came from.
 */
#ifndef SE_BUNDLE_VIEWS_H
#define SE_BUNDLE_VIEWS_H

#include <stddef.h>

#include <jansson.h>

#include "bundle/samples.h"
#include "model/se_common.h"

/* One timing scope of a summary case (summary.json scopes.<scope>), or a
 * peer's device-scope summary (peers.json's "summary"). */
typedef struct se_scope_view {
    int present;
    long long n, throttled;
    double median_ns, p5_ns, p25_ns, p75_ns, p95_ns, min_ns, max_ns, mean_ns, stdev_ns;
    int has_ci;
    double ci95_ns[2];      /* median_ci95_ns */
    const char *l2;         /* "warm", "flushed" */
    int has_gbps;
    double gbps;            /* none for megakernel_init: it moves no bytes */
    int has_fraction;
    double fraction_of_copy;
    int has_ratio;          /* time_ratio_to_stream */
    double ratio, ratio_ci95[2];
} se_scope_view;

/* One entry of summary.json's "cases" or "controls". */
typedef struct se_case_view {
    const char *id;         /* "case": "32x4096.fusion", "control.barriers" */
    const char *what, *shape, *launch, *mechanism, *samples_file;
    long long rows, cols, tile; /* 0 for a run-level control */
    int has_bytes;
    double bytes_moved;
    size_t n_scopes;        /* keys of its "scopes": 1 for a run-level control */
    se_scope_view scope[SE_NSCOPES]; /* indexed by se_scope */
} se_case_view;

/* summary.json derived.shapes[].cases[] (bundle/derived.h). */
typedef struct se_derived_case_view {
    const char *id, *strategy, *role;
    int validated;          /* 1, 0, or -1 where it is null (a control) */
    int has_median;
    double median_ns;
    int has_ratio;
    double ratio_to_stream;
    int has_ratio_ci;
    double ratio_ci95[2];
    int has_fraction;
    double fraction_of_copy;
    int has_vs;
    double vs_best_peer;
} se_derived_case_view;

/* derived.shapes[].peers[]. */
typedef struct se_derived_peer_view {
    const char *peer, *status;
    int has_median;
    double median_ns;
    int has_fraction;
    double fraction_of_copy;
    int has_vs;
    double vs_best_peer;
} se_derived_peer_view;

/* derived.shapes[].fastest_tiled, fastest_ours (over_cudnn: tiled only). */
typedef struct se_pick_view {
    int present;
    const char *strategy;
    double median_ns;
    int has_fraction;
    double fraction_of_copy;
    int has_over_cudnn;
    double over_cudnn;
} se_pick_view;

/* derived.shapes[].best_peer. */
typedef struct se_best_peer_view {
    int present;
    const char *name;
    double median_ns;
    int has_vs;
    double vs_best_peer;
} se_best_peer_view;

typedef struct se_derived_shape_view {
    const char *shape, *id;
    long long rows, cols;
    int has_copy_median;
    double copy_median_ns;
    se_derived_case_view *cases;
    size_t n_cases;
    se_derived_peer_view *peers;
    size_t n_peers;
    se_pick_view fastest_tiled, fastest_ours;
    se_best_peer_view best_peer;
} se_derived_shape_view;

/* summary.json derived.grid_barrier_ns. */
typedef struct se_grid_barrier_view {
    int present;
    double value_ns;
    long long barriers;
    const char *formula;
} se_grid_barrier_view;

/* One entry of peers.json's "peers". */
typedef struct se_peer_view {
    const char *peer, *computes, *status, *reason, *error;
    const char *samples_file, *input_sha256, *output_sha256;
    long long rows, cols;
    se_scope_view summary;  /* present 0 for a peer that did not run */
    int has_max_rel_err;
    double max_rel_err;
} se_peer_view;

/* peers.json (present 0 in a run without one). */
typedef struct se_peers_view {
    int present;
    const char *script, *script_sha256, *script_copy, *timing;
    const char *torch_version, *torch_cuda_version, *triton_version, *device_name;
    const char *tolerance_rule;
    double atol, rtol;
    se_peer_view *v;
    size_t n;
} se_peers_view;

/* One entry of validation.json's "cases". */
typedef struct se_validation_view {
    const char *id, *strategy, *shape, *input_sha256, *output_sha256;
    long long rows, cols, tile, blocks, graph_nodes, elements, fails, nan, tiny, vs_cudnn_fails;
    double max_abs_err, max_rel_err, vs_cudnn_max_rel;
    int has_vs_cudnn;
    int pass;               /* 1 only where "pass" is true */
    int repeat_identical, matches_tiled; /* 1, 0, or -1 where absent or null */
} se_validation_view;

/* One leaf of environment.json, named by its dotted path ("gpu.name"); an
 * array is a leaf, its items listed. */
typedef struct se_env_field {
    char name[160];
    const json_t *value;    /* a string, number, boolean, null or array */
    const json_t **items;   /* an array's items, else NULL */
    size_t n_items;
} se_env_field;

/* environment.json. */
typedef struct se_env_view {
    const char *gpu_name, *compute_capability;
    long long sm_count, l2_bytes, global_memory_bytes, memory_bus_bits;
    double peak_sm_clock_mhz, peak_memory_clock_mhz;
    long long driver_version, runtime_version, cudnn_version, cudnn_compiled_version;
    long long curand_version;
    const char *nvcc_version, *cuda_architectures;
    const char *git_commit, *source_dir;
    int git_dirty;
    se_env_field *fields;   /* every leaf, in the file's order */
    size_t n_fields;
    const char *hostname;   /* host.hostname */
    int has_timer_step;
    double timer_step_ns;   /* globaltimer.smallest_step_ns */
} se_env_view;

/* run.json. */
typedef struct se_run_view {
    const char *started_utc, *finished_utc, *status, *megakernel, *interleaving;
    int blocking_kernel;    /* 1 only where "blocking_kernel" is true */
    const char *protocol_source, *protocol_sha256, *bundle_copy_sha256; /* its "protocol" */
} se_run_view;

/* One entry of traces.json's "traces". */
typedef struct se_trace_view {
    const char *id, *kind, *verdict;
    long long tasks_expected, records, missing_count, duplicated_count, invalid_count;
    long long dependency_edges_checked, order_violations_count, phase_barrier_violations_count;
    long long span_ns, sms_used; /* sm.sms_used */
    int phase_barriers_checked; /* 1 only where true */
    double overlap_fraction; /* overlap.fraction */
} se_trace_view;

/* One entry of traces.json's "tracing_cost". */
typedef struct se_tracing_cost_view {
    const char *id, *untraced_samples_file, *traced_samples_file;
    long long samples;
    double untraced_median_ns, traced_median_ns, overhead_ns, overhead_fraction;
} se_tracing_cost_view;

/* traces.json. */
typedef struct se_traces_view {
    double timer_resolution_ns; /* globaltimer_resolution_ns */
    const char *note;
    se_trace_view *v;
    size_t n;
    se_tracing_cost_view *cost;
    size_t n_cost;
} se_traces_view;

/* resources.json: one entry of "kernels". */
typedef struct se_kernel_view {
    const char *kernel, *used_by;
    long long block_threads, registers, shared_static_bytes, local_bytes, const_bytes;
    long long max_blocks_per_sm, ptx_version, binary_version;
} se_kernel_view;

/* resources.json: one entry of "launches". */
typedef struct se_launch_view {
    const char *shape, *strategy, *launch;
    long long graph_nodes, cooperative_blocks;
} se_launch_view;

typedef struct se_run_views {
    se_case_view *cases;    /* summary.json "cases", in its order */
    size_t n_cases;
    se_case_view *controls; /* summary.json "controls" */
    size_t n_controls;
    se_derived_shape_view *shapes; /* derived.shapes, protocol order */
    size_t n_shapes;
    se_grid_barrier_view grid_barrier;
    se_peers_view peers;
    se_validation_view *validation;
    size_t n_validation;
    const char *tolerance_rule; /* validation.json's tolerance and invocations */
    double atol, rtol;
    long long invocations;
    se_kernel_view *kernels;
    size_t n_kernels;
    se_launch_view *launches;
    size_t n_launches;
    se_env_view env;
    se_run_view run;
    se_traces_view traces;
} se_run_views;

/* The JSON the views are read from (rundata.h's se_rundata holds them);
 * peers may be NULL (a run without peers.json). */
typedef struct se_views_json {
    const json_t *run, *env, *summary, *derived, *validation, *traces, *peers, *resources;
} se_views_json;

/* Builds the views of in. On a malformed value nothing needs freeing and
 * err names the file and field ("summary.json: field
 * 'cases[3].scopes.device.median_ns': ..."). */
se_status se_views_load(const se_views_json *in, se_run_views **out, se_err *err);

void se_views_free(se_run_views *v);

/* summary.json's case or control named id ("32x4096.fusion",
 * "control.barriers"), or NULL. */
const se_case_view *se_views_case(const se_run_views *v, const char *id);

/* The case of strategy `what` on the shape rows x cols, or NULL. */
const se_case_view *se_views_case_on(const se_run_views *v, long long rows, long long cols,
                                     const char *what);

/* The run-level control whose "what" is `what` ("empty_stream"), or NULL. */
const se_case_view *se_views_control(const se_run_views *v, const char *what);

/* The derived entry of the shape rows x cols, or NULL. */
const se_derived_shape_view *se_views_shape(const se_run_views *v, long long rows,
                                            long long cols);

/* A derived shape's entry of case id, or of peer `peer`; NULL when absent
 * (s may be NULL). */
const se_derived_case_view *se_views_shape_case(const se_derived_shape_view *s, const char *id);
const se_derived_peer_view *se_views_shape_peer(const se_derived_shape_view *s, const char *peer);

/* validation.json's entry of case id, or NULL. */
const se_validation_view *se_views_validation(const se_run_views *v, const char *id);

/* traces.json's trace entry, and tracing-cost entry, of case id, or NULL. */
const se_trace_view *se_views_trace(const se_run_views *v, const char *id);
const se_tracing_cost_view *se_views_tracing_cost(const se_run_views *v, const char *id);

/* validation.json's first entry whose "shape" is shape, or NULL. */
const se_validation_view *se_views_validation_on(const se_run_views *v, const char *shape);

/* ---- the compare document (bundle/compare.h) ----------------------------- */

/* One case of a comparison: B's median over A's. */
typedef struct se_compare_case_view {
    const char *id, *verdict, *noise_from;
    double a_median_ns, b_median_ns, ratio, ci95[2], change_pct, noise_pct;
    long long a_n, b_n;
    int slower_than_gate;   /* 1, 0, or -1 without a gate */
} se_compare_case_view;

/* An environment field that differs: its value in A and in B (any JSON). */
typedef struct se_compare_diff_view {
    const char *field;
    const json_t *a, *b;
} se_compare_diff_view;

/* One pair: run B against run A (or run sets). */
typedef struct se_compare_pair_view {
    const char *a, *a_run_id, *b, *b_run_id;
    const char **a_runs, **b_runs; /* the run ids of each side */
    size_t n_a_runs, n_b_runs;
    long long fields_compared;
    se_compare_diff_view *diffs;
    size_t n_diffs;
    se_compare_case_view *cases;
    size_t n_cases;
    const char **only_in_a, **only_in_b;
    size_t n_only_in_a, n_only_in_b;
    long long faster, slower, unchanged, slower_than_gate; /* its "summary" */
} se_compare_pair_view;

typedef struct se_compare_view {
    const char *scope;
    int has_gate;
    double fail_if_slower_pct;
    se_compare_pair_view *pairs;
    size_t n_pairs;
} se_compare_view;

/* The view of a document se_compare_build made (strings and values point
 * into doc, which must outlive it); a malformed field is refused naming
 * it. Free with se_compare_view_free. */
se_status se_compare_view_load(const json_t *doc, se_compare_view **out, se_err *err);

void se_compare_view_free(se_compare_view *v);

/* ---- a trace's check report (bundle/trace.h's se_trace_check) ------------ */

typedef struct se_trace_phase_view {
    const char *name;       /* "A" to "E" */
    long long tasks, start_ns, end_ns, span_ns;
} se_trace_phase_view;

typedef struct se_trace_report_view {
    const char *verdict;
    long long tasks_expected, records, missing_count, duplicated_count;
    long long dependency_edges_checked, order_violations_count, phase_barrier_violations_count;
    int phase_barriers_checked; /* 1 only where true */
    se_trace_phase_view *phases; /* in the report's order */
    size_t n_phases;
    long long sms_used, tasks_per_sm_min, tasks_per_sm_max; /* its "sm" */
    long long idle_between_tasks_ns_total, idle_between_tasks_ns_max_sm;
    const char *sm_caveat;
    double overlap_fraction;
} se_trace_report_view;

/* The view of a trace's check report (strings point into report); a
 * malformed field is refused naming the case and field. Free with
 * se_trace_report_view_free. */
se_status se_trace_report_view_load(const json_t *report, const char *case_id,
                                    se_trace_report_view *v, se_err *err);

void se_trace_report_view_free(se_trace_report_view *v);

#endif
