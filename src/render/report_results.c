/*
 * report_results.c - the report's timing sections: per shape every case and
 * scope, the run-level controls, the cuDNN reference against the fastest
 * tiled strategy, and the PyTorch peers (see report.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/report_sections.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/peers.h"
#include "model/json.h"
#include "model/strategy.h"

static void scope_row(se_doc *d, const se_rundata *rd, const json_t *c, const char *scope)
{
    const json_t *s = se_json_path(json_object_get(c, "scopes"), scope);
    if (!s)
        return;
    char cells[12][SE_REP_CELL];
    const char *what = se_json_str(c, "what", "?");
    snprintf(cells[0], SE_REP_CELL, "%s", what);
    snprintf(cells[1], SE_REP_CELL, "%s", se_json_str(c, "launch", "-"));
    snprintf(cells[2], SE_REP_CELL, "%s", scope);
    snprintf(cells[3], SE_REP_CELL, "%s", se_json_str(s, "l2", "?"));
    snprintf(cells[4], SE_REP_CELL, "%lld (%lld)", se_rep_int(s, "n"), se_rep_int(s, "throttled"));
    se_rep_us(cells[5], SE_REP_CELL, se_json_num(s, "median_ns"));
    se_rep_us(cells[6], SE_REP_CELL, se_json_num(s, "p5_ns"));
    se_rep_us(cells[7], SE_REP_CELL, se_json_num(s, "p95_ns"));
    const json_t *ci = json_object_get(s, "median_ci95_ns");
    se_rep_us_range(cells[8], SE_REP_CELL, ci);
    const json_t *r = json_object_get(s, "time_ratio_to_stream");
    if (r) {
        const json_t *rc = json_object_get(r, "ci95");
        char a[32], b[32], c3[32];
        se_rep_sig(a, sizeof a, se_json_num(r, "ratio"));
        se_rep_sig(b, sizeof b, json_number_value(json_array_get(rc, 0)));
        se_rep_sig(c3, sizeof c3, json_number_value(json_array_get(rc, 1)));
        snprintf(cells[9], SE_REP_CELL, "%s [%s, %s]", a, b, c3);
    } else {
        snprintf(cells[9], SE_REP_CELL, "%s", se_protocol_find_strategy(&rd->p, what) == SE_STRATEGY_BASELINE ? "1 (baseline)" : "-");
    }
    if (json_object_get(s, "gbps"))
        snprintf(cells[10], SE_REP_CELL, "%.1f", se_json_num(s, "gbps"));
    else
        snprintf(cells[10], SE_REP_CELL, "-"); /* megakernel_init moves no bytes */
    if (json_object_get(s, "fraction_of_copy"))
        snprintf(cells[11], SE_REP_CELL, "%.3f", se_json_num(s, "fraction_of_copy"));
    else
        snprintf(cells[11], SE_REP_CELL, "%s", strcmp(what, "copy") == 0 ? "1 (ceiling)" : "-");
    se_rep_row(d, 12, cells);
}

void se_rep_timing(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "Timing");
    se_doc_para(d, "Times are microseconds per instance. For each case and scope: the number of samples "
            "(of them flagged throttled, kept), the median, p5 and p95 (Hyndman-Fan type 7), the "
            "bootstrap 95%% percentile interval of the median (%d resamples), the ratio to the "
            "stream baseline (median / median(stream), same shape and scope; below 1 is faster) "
            "with its paired bootstrap 95%% interval, GB/s (one read of x and one write of y over "
            "the median) and the fraction of the same-run copy bandwidth (median(copy) / median). "
            "Scopes: device = CUDA events around one instance, L2 warm; device_cold = the same "
            "after an L2 flush; batch = events around back-to-back instances, per instance; host = "
            "wall clock from the first launch call to stream synchronize (docs/TIMING.md).",
         rd->p.bootstrap_resamples);
    for (size_t i = 0; i < rd->p.n_shapes; i++) {
        const se_shape *s = &rd->p.shapes[i];
        char id[64], title[200];
        se_rundata_shape_id(s, id, sizeof id);
        if (strcmp(id, s->spec) != 0)
            snprintf(title, sizeof title, "Shape %s (%s)", id, s->spec);
        else
            snprintf(title, sizeof title, "Shape %s", id);
        se_doc_heading(d, 3, "%s", title);
        int64_t tiles = (s->cols + rd->p.tile - 1) / rd->p.tile;
        se_doc_para(d, "%" PRId64 " rows, %" PRId64 " columns, tile %" PRId64 " (%" PRId64
                " tile%s per row); %.0f bytes moved per instance (x read once, y written once).",
             s->rows, s->cols, rd->p.tile, tiles, tiles == 1 ? "" : "s",
             8.0 * (double)s->rows * (double)s->cols);
        se_doc_table(d, "strategy|launch|scope|L2|n (throttled)|median (us)|p5 (us)|p95 (us)|"
                       "median 95% CI (us)|ratio to stream [95% CI]|GB/s|fraction of copy", NULL);
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(rd->summary, "cases"), k, c) {
            if (json_integer_value(json_object_get(c, "rows")) != s->rows ||
                json_integer_value(json_object_get(c, "cols")) != s->cols)
                continue;
            for (int sc = 0; sc < SE_NSCOPES; sc++)
                scope_row(d, rd, c, se_rep_scopes[sc]);
        }
        se_doc_table_end(d);
    }
    se_doc_heading(d, 3, "Controls");
    se_doc_para(d, "Run-level controls, scope device (docs/TIMING.md): an empty kernel of one 256-thread "
            "block per SM on a stream and as a one-node graph, a cooperative launch of the fusion "
            "grid that does nothing, and the same launch doing grid barriers.");
    se_doc_table(d, "control|n (throttled)|median (us)|p5 (us)|p95 (us)|median 95% CI (us)", NULL);
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(rd->summary, "controls"), k, c) {
        const json_t *s = se_json_path(c, "scopes.device");
        char cells[6][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], SE_REP_CELL, "%lld (%lld)", se_rep_int(s, "n"), se_rep_int(s, "throttled"));
        se_rep_us(cells[2], SE_REP_CELL, se_json_num(s, "median_ns"));
        se_rep_us(cells[3], SE_REP_CELL, se_json_num(s, "p5_ns"));
        se_rep_us(cells[4], SE_REP_CELL, se_json_num(s, "p95_ns"));
        const json_t *ci = json_object_get(s, "median_ci95_ns");
        se_rep_us_range(cells[5], SE_REP_CELL, ci);
        se_rep_row(d, 6, cells);
    }
    se_doc_table_end(d);
    const json_t *g = se_json_path(rd->summary, "derived.grid_barrier_ns");
    if (g)
        se_doc_para(d, "One grid barrier costs %.1f ns: %s, with %lld barriers (" SE_SUMMARY_JSON " "
                "derived.grid_barrier_ns).",
             se_json_num(g, "value"), se_json_str(g, "formula", "?"), se_rep_int(g, "barriers"));
}

/* The device median of a case, 0 if the run has none. */
static double device_median(const se_rundata *rd, const se_shape *sh, int k)
{
    char cid[SE_CASE_ID_SIZE];
    const se_strategy_info *info = se_protocol_strategy(&rd->p, k);
    if (!info)
        return 0;
    se_case_id_make(sh->rows, sh->cols, info->name, cid, sizeof cid);
    const json_t *c = se_rundata_summary_case(rd, cid);
    return c ? json_number_value(se_json_path(c, "scopes.device.median_ns")) : 0;
}

/* summary.json's derived entry of a shape (bundle/derived.h). */
static const json_t *derived_shape(const se_rundata *rd, const se_shape *sh)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(se_rundata_derived(rd), "shapes"), i, e)
        if (se_json_num(e, "rows") == (double)sh->rows && se_json_num(e, "cols") == (double)sh->cols)
            return e;
    return NULL;
}

void se_rep_cudnn(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "cuDNN reference");
    char dnn[32];
    se_rep_version(dnn, sizeof dnn, se_rep_int(rd->env, "software.cudnn_version"), 1);
    se_doc_para(d, "cuDNN %s computes the plain softmax of the pre-scaled input s*x (cuDNN has no RMS "
            "scaling); the pre-scaling kernel is not timed, so cuDNN is credited with less work "
            "than the strategies. Scope device, medians in microseconds; the fastest tiled "
            "strategy is the one with the smallest device median.", dnn);
    se_doc_table(d, "shape|cudnn median (us)|stream median (us)|fastest tiled strategy|its median "
                   "(us)|fastest tiled / cudnn|cudnn max rel err vs float64|stream max rel diff "
                   "vs cudnn", NULL);
    /* The run's cuDNN reference, if its table has one. */
    int cudnn = se_stable_first_mechanism(se_rundata_table(rd), "cudnn");
    const se_strategy_info *cinfo = se_protocol_strategy(&rd->p, cudnn);
    for (size_t i = 0; cinfo && i < rd->p.n_shapes; i++) {
        const se_shape *sh = &rd->p.shapes[i];
        char id[SE_CASE_ID_SIZE], cid[SE_CASE_ID_SIZE];
        se_shape_id(sh->rows, sh->cols, id, sizeof id);
        se_case_id_make(sh->rows, sh->cols, cinfo->name, cid, sizeof cid);
        if (!se_rundata_summary_case(rd, cid))
            continue;
        double cm = device_median(rd, sh, cudnn), sm = device_median(rd, sh, SE_STRATEGY_BASELINE);
        const json_t *ft = json_object_get(derived_shape(rd, sh), "fastest_tiled");
        const char *best = json_is_object(ft) ? se_json_str(ft, "strategy", NULL) : NULL;
        double bm = best ? se_json_num(ft, "median_ns") : 0.0;
        char cells[8][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", id);
        se_rep_us(cells[1], SE_REP_CELL, cm);
        if (sm > 0)
            se_rep_us(cells[2], SE_REP_CELL, sm);
        else
            snprintf(cells[2], SE_REP_CELL, "-");
        snprintf(cells[3], SE_REP_CELL, "%s", best ? best : "-");
        if (best) {
            se_rep_us(cells[4], SE_REP_CELL, bm);
            snprintf(cells[5], SE_REP_CELL, "%.3f", se_json_num(ft, "over_cudnn"));
        } else {
            snprintf(cells[4], SE_REP_CELL, "-");
            snprintf(cells[5], SE_REP_CELL, "-");
        }
        snprintf(cells[6], SE_REP_CELL, "%.3e",
                 se_json_num(se_rundata_validation_case(rd, cid), "max_rel_err"));
        se_case_id_make(sh->rows, sh->cols, se_protocol_strategy(&rd->p, SE_STRATEGY_BASELINE)->name,
                        cid, sizeof cid);
        const json_t *v = se_rundata_validation_case(rd, cid);
        if (v)
            snprintf(cells[7], SE_REP_CELL, "%.3e", se_json_num(v, "vs_cudnn_max_rel"));
        else
            snprintf(cells[7], SE_REP_CELL, "-");
        se_rep_row(d, 8, cells);
    }
    se_doc_table_end(d);
}

/* peers.json: PyTorch eager, torch.compile and torch.softmax on the same
 * inputs, timed in the device scope, validated like the strategies. */
void se_rep_peers(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "PyTorch peers");
    const json_t *pj = rd->peers;
    char why[1200];
    if (se_peers_absent(pj, why, sizeof why)) {
        se_doc_para(d, "No PyTorch peer was measured: %s (docs/PEERS.md).", why);
        return;
    }
    const json_t *env = json_object_get(pj, "environment");
    char script[512];
    se_rep_path(script, sizeof script, se_json_str(pj, "script", "?"), rd);
    se_doc_para(d, "%s (SHA-256 %s, copied to %s) timed torch %s (CUDA %s, Triton %s) on %s with the "
            "run's own input bytes: %s Each output was validated here against the float64 reference "
            "(%s, atol %g, rtol %g). Times are microseconds, GB/s counts one read of x and one "
            "write of y, fraction of copy is median(copy) / median (docs/PEERS.md).",
         script, se_json_str(pj, "script_sha256", "?"),
         se_json_str(pj, "script_copy", "?"), se_json_str(env, "torch_version", "?"),
         se_json_str(env, "torch_cuda_version", "?"), se_json_str(env, "triton_version", "-"),
         se_json_str(env, "device_name", "?"), se_json_str(pj, "timing", "?"),
         se_json_str(json_object_get(pj, "tolerance"), "rule", "?"),
         se_json_num(json_object_get(pj, "tolerance"), "atol"),
         se_json_num(json_object_get(pj, "tolerance"), "rtol"));
    se_doc_table(d, "shape|peer|computes|status|median (us)|median 95% CI (us)|GB/s|fraction of "
                   "copy|max rel err|samples file|input SHA-256|output SHA-256", NULL);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(pj, "peers"), i, e) {
        char cells[12][SE_REP_CELL];
        const json_t *s = json_object_get(e, "summary");
        const json_t *ci = json_object_get(s, "median_ci95_ns");
        snprintf(cells[0], SE_REP_CELL, "%lldx%lld", se_rep_int(e, "rows"), se_rep_int(e, "cols"));
        snprintf(cells[1], SE_REP_CELL, "%s", se_json_str(e, "peer", "?"));
        snprintf(cells[2], SE_REP_CELL, "%s", se_json_str(e, "computes", "?"));
        snprintf(cells[3], SE_REP_CELL, "%s", se_json_str(e, "status", "?"));
        if (s) {
            se_rep_us(cells[4], SE_REP_CELL, se_json_num(s, "median_ns"));
            se_rep_us_range(cells[5], SE_REP_CELL, ci);
            snprintf(cells[6], SE_REP_CELL, "%.1f", se_json_num(s, "gbps"));
            snprintf(cells[7], SE_REP_CELL, "%.3f", se_json_num(s, "fraction_of_copy"));
            snprintf(cells[8], SE_REP_CELL, "%.3e", se_json_num(e, "max_rel_err"));
        } else {
            char shown[600]; /* the run's text, made printable */
            int skipped = strcmp(se_json_str(e, "status", "?"), "skipped") == 0;
            se_printable_plain(se_json_str(e, skipped ? "reason" : "error", "?"), shown, sizeof shown);
            snprintf(cells[4], SE_REP_CELL, "%s: %.140s", skipped ? "skipped" : "error", shown);
            for (int k = 5; k < 9; k++)
                snprintf(cells[k], SE_REP_CELL, "-");
        }
        snprintf(cells[9], SE_REP_CELL, "%s", se_json_str(e, "samples_file", "-"));
        snprintf(cells[10], SE_REP_CELL, "%s", se_json_str(e, "input_sha256", "-"));
        snprintf(cells[11], SE_REP_CELL, "%s", se_json_str(e, "output_sha256", "-"));
        se_rep_row(d, 12, cells);
    }
    se_doc_table_end(d);
}
