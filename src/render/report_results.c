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
#include "bundle/views.h"
#include "model/json.h"
#include "model/strategy.h"

/* s, or fallback where the run has no such field. */
static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* A scope's five sample cells: n (throttled), median, p5, p95 and the
 * median's 95% interval, in microseconds. */
static void sample_cells(char (*cells)[SE_REP_CELL], const se_scope_view *s)
{
    snprintf(cells[0], SE_REP_CELL, "%lld (%lld)", s->n, s->throttled);
    se_rep_us(cells[1], SE_REP_CELL, s->median_ns);
    se_rep_us(cells[2], SE_REP_CELL, s->p5_ns);
    se_rep_us(cells[3], SE_REP_CELL, s->p95_ns);
    se_rep_us_range(cells[4], SE_REP_CELL, s->ci95_ns[0], s->ci95_ns[1]);
}

static void scope_row(se_doc *d, const se_rundata *rd, const se_case_view *c, int sc)
{
    const se_scope_view *s = &c->scope[sc];
    if (!s->present)
        return;
    char cells[12][SE_REP_CELL];
    const char *what = or_else(c->what, "?");
    snprintf(cells[0], SE_REP_CELL, "%s", what);
    snprintf(cells[1], SE_REP_CELL, "%s", or_else(c->launch, "-"));
    snprintf(cells[2], SE_REP_CELL, "%s", se_rep_scopes[sc]);
    snprintf(cells[3], SE_REP_CELL, "%s", or_else(s->l2, "?"));
    sample_cells(&cells[4], s);
    if (s->has_ratio) {
        char a[32], b[32], c3[32];
        se_rep_sig(a, sizeof a, s->ratio);
        se_rep_sig(b, sizeof b, s->ratio_ci95[0]);
        se_rep_sig(c3, sizeof c3, s->ratio_ci95[1]);
        snprintf(cells[9], SE_REP_CELL, "%s [%s, %s]", a, b, c3);
    } else {
        snprintf(cells[9], SE_REP_CELL, "%s", se_protocol_find_strategy(&rd->p, what) == SE_STRATEGY_BASELINE ? "1 (baseline)" : "-");
    }
    if (s->has_gbps)
        snprintf(cells[10], SE_REP_CELL, "%.1f", s->gbps);
    else
        snprintf(cells[10], SE_REP_CELL, "-"); /* megakernel_init moves no bytes */
    if (s->has_fraction)
        snprintf(cells[11], SE_REP_CELL, "%.3f", s->fraction_of_copy);
    else
        snprintf(cells[11], SE_REP_CELL, "%s", strcmp(what, "copy") == 0 ? "1 (ceiling)" : "-");
    se_rep_row(d, 12, cells);
}

/* The run-level controls, scope device. */
static void controls_table(se_doc *d, const se_run_views *v)
{
    se_doc_table(d, "control|n (throttled)|median (us)|p5 (us)|p95 (us)|median 95% CI (us)", NULL);
    for (size_t k = 0; k < v->n_controls; k++) {
        const se_case_view *c = &v->controls[k];
        const se_scope_view *s = &c->scope[SE_SCOPE_DEVICE];
        char cells[6][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", or_else(c->id, "?"));
        sample_cells(&cells[1], s);
        se_rep_row(d, 6, cells);
    }
    se_doc_table_end(d);
}

void se_rep_timing(se_doc *d, const se_rundata *rd)
{
    const se_run_views *v = se_rundata_views(rd);
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
        for (size_t k = 0; k < v->n_cases; k++) {
            if (v->cases[k].rows != s->rows || v->cases[k].cols != s->cols)
                continue;
            for (int sc = 0; sc < SE_NSCOPES; sc++)
                scope_row(d, rd, &v->cases[k], sc);
        }
        se_doc_table_end(d);
    }
    se_doc_heading(d, 3, "Controls");
    se_doc_para(d, "Run-level controls, scope device (docs/TIMING.md): an empty kernel of one 256-thread "
            "block per SM on a stream and as a one-node graph, a cooperative launch of the fusion "
            "grid that does nothing, and the same launch doing grid barriers.");
    controls_table(d, v);
    const se_grid_barrier_view *g = &v->grid_barrier;
    if (g->present)
        se_doc_para(d, "One grid barrier costs %.1f ns: %s, with %lld barriers (" SE_SUMMARY_JSON " "
                "derived.grid_barrier_ns).",
             g->value_ns, or_else(g->formula, "?"), g->barriers);
}

/* The device median of a case, 0 if the run has none. */
static double device_median(const se_rundata *rd, const se_shape *sh, int k)
{
    char cid[SE_CASE_ID_SIZE];
    const se_strategy_info *info = se_protocol_strategy(&rd->p, k);
    if (!info)
        return 0;
    se_case_id_make(sh->rows, sh->cols, info->name, cid, sizeof cid);
    const se_case_view *c = se_views_case(se_rundata_views(rd), cid);
    return c ? c->scope[SE_SCOPE_DEVICE].median_ns : 0;
}

/* One row of the cuDNN table: cuDNN on sh against stream and the fastest
 * tiled strategy (summary.json's derived entry of the shape). */
static void cudnn_row(se_doc *d, const se_rundata *rd, const se_shape *sh, int cudnn,
                      const char *cid)
{
    const se_run_views *v = se_rundata_views(rd);
    char id[SE_CASE_ID_SIZE], sid[SE_CASE_ID_SIZE];
    se_shape_id(sh->rows, sh->cols, id, sizeof id);
    double cm = device_median(rd, sh, cudnn), sm = device_median(rd, sh, SE_STRATEGY_BASELINE);
    const se_derived_shape_view *ds = se_views_shape(v, sh->rows, sh->cols);
    const se_pick_view *ft = ds && ds->fastest_tiled.present ? &ds->fastest_tiled : NULL;
    const char *best = ft ? ft->strategy : NULL;
    char cells[8][SE_REP_CELL];
    snprintf(cells[0], SE_REP_CELL, "%s", id);
    se_rep_us(cells[1], SE_REP_CELL, cm);
    if (sm > 0)
        se_rep_us(cells[2], SE_REP_CELL, sm);
    else
        snprintf(cells[2], SE_REP_CELL, "-");
    snprintf(cells[3], SE_REP_CELL, "%s", best ? best : "-");
    if (best) {
        se_rep_us(cells[4], SE_REP_CELL, ft->median_ns);
        snprintf(cells[5], SE_REP_CELL, "%.3f", ft->over_cudnn);
    } else {
        snprintf(cells[4], SE_REP_CELL, "-");
        snprintf(cells[5], SE_REP_CELL, "-");
    }
    const se_validation_view *cv = se_views_validation(v, cid);
    snprintf(cells[6], SE_REP_CELL, "%.3e", cv ? cv->max_rel_err : 0.0);
    se_case_id_make(sh->rows, sh->cols, se_protocol_strategy(&rd->p, SE_STRATEGY_BASELINE)->name,
                    sid, sizeof sid);
    const se_validation_view *sv = se_views_validation(v, sid);
    if (sv && sv->has_vs_cudnn) /* none for a workload without cuDNN (LayerNorm) */
        snprintf(cells[7], SE_REP_CELL, "%.3e", sv->vs_cudnn_max_rel);
    else
        snprintf(cells[7], SE_REP_CELL, "-");
    se_rep_row(d, 8, cells);
}

void se_rep_cudnn(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "cuDNN reference");
    char dnn[32];
    se_rep_version(dnn, sizeof dnn, se_rundata_views(rd)->env.cudnn_version, 1);
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
        char cid[SE_CASE_ID_SIZE];
        se_case_id_make(sh->rows, sh->cols, cinfo->name, cid, sizeof cid);
        if (se_views_case(se_rundata_views(rd), cid))
            cudnn_row(d, rd, sh, cudnn, cid);
    }
    se_doc_table_end(d);
}

/* One row of the peers table. */
static void peer_row(se_doc *d, const se_peer_view *e)
{
    char cells[12][SE_REP_CELL];
    const se_scope_view *s = &e->summary;
    snprintf(cells[0], SE_REP_CELL, "%lldx%lld", e->rows, e->cols);
    snprintf(cells[1], SE_REP_CELL, "%s", or_else(e->peer, "?"));
    snprintf(cells[2], SE_REP_CELL, "%s", or_else(e->computes, "?"));
    snprintf(cells[3], SE_REP_CELL, "%s", or_else(e->status, "?"));
    if (s->present) {
        se_rep_us(cells[4], SE_REP_CELL, s->median_ns);
        se_rep_us_range(cells[5], SE_REP_CELL, s->ci95_ns[0], s->ci95_ns[1]);
        snprintf(cells[6], SE_REP_CELL, "%.1f", s->gbps);
        snprintf(cells[7], SE_REP_CELL, "%.3f", s->fraction_of_copy);
        snprintf(cells[8], SE_REP_CELL, "%.3e", e->max_rel_err);
    } else {
        char shown[600]; /* the run's text, made printable */
        int skipped = strcmp(or_else(e->status, "?"), "skipped") == 0;
        se_printable_plain(or_else(skipped ? e->reason : e->error, "?"), shown, sizeof shown);
        snprintf(cells[4], SE_REP_CELL, "%s: %.140s", skipped ? "skipped" : "error", shown);
        for (int k = 5; k < 9; k++)
            snprintf(cells[k], SE_REP_CELL, "-");
    }
    snprintf(cells[9], SE_REP_CELL, "%s", or_else(e->samples_file, "-"));
    snprintf(cells[10], SE_REP_CELL, "%s", or_else(e->input_sha256, "-"));
    snprintf(cells[11], SE_REP_CELL, "%s", or_else(e->output_sha256, "-"));
    se_rep_row(d, 12, cells);
}

/* peers.json: PyTorch eager, torch.compile and torch.softmax on the same
 * inputs, timed in the device scope, validated like the strategies. */
void se_rep_peers(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "PyTorch peers");
    char why[1200];
    if (se_peers_absent(rd->peers, why, sizeof why)) {
        se_doc_para(d, "No PyTorch peer was measured: %s (docs/PEERS.md).", why);
        return;
    }
    const se_peers_view *pv = &se_rundata_views(rd)->peers;
    char script[512];
    se_rep_path(script, sizeof script, or_else(pv->script, "?"), rd);
    se_doc_para(d, "%s (SHA-256 %s, copied to %s) timed torch %s (CUDA %s, Triton %s) on %s with the "
            "run's own input bytes: %s Each output was validated here against the float64 reference "
            "(%s, atol %g, rtol %g). Times are microseconds, GB/s counts one read of x and one "
            "write of y, fraction of copy is median(copy) / median (docs/PEERS.md).",
         script, or_else(pv->script_sha256, "?"), or_else(pv->script_copy, "?"),
         or_else(pv->torch_version, "?"), or_else(pv->torch_cuda_version, "?"),
         or_else(pv->triton_version, "-"), or_else(pv->device_name, "?"),
         or_else(pv->timing, "?"), or_else(pv->tolerance_rule, "?"), pv->atol, pv->rtol);
    se_doc_table(d, "shape|peer|computes|status|median (us)|median 95% CI (us)|GB/s|fraction of "
                   "copy|max rel err|samples file|input SHA-256|output SHA-256", NULL);
    for (size_t i = 0; i < pv->n; i++)
        peer_row(d, &pv->v[i]);
    se_doc_table_end(d);
}
