/*
 * report.c - report.md and report.html (see report.h): the sections, in
 * order, append to one document (render/doc.h), which is then rendered as
 * Markdown and as HTML, so the two carry the same content. Nothing in it
 * depends on the output path or the time of writing. The sections live in
 * report.c (introduction, strategies, figures, limitations),
 * report_results.c (timing, cuDNN, peers), report_sweep.c (row lengths,
 * goals), report_checks.c (environment,
 * validation, resources, traces, profile) and report_provenance.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/views.h"
#include "model/operation.h"
#include "model/strategy.h"
#include "render/answer_text.h"
#include "render/report_sections.h"

const char *const se_rep_scopes[SE_NSCOPES] = {"device", "device_cold", "batch", "host"};

/* ---- shared by the sections -------------------------------------------- */

void se_rep_sig(char *buf, size_t size, double v)
{
    double a = fabs(v);
    if (!isfinite(v)) {
        snprintf(buf, size, "%g", v);
    } else if (a == 0 || a >= 1000) {
        snprintf(buf, size, "%.0f", v);
    } else if (a < 1e-4) {
        snprintf(buf, size, "%.3e", v);
    } else {
        int decimals = 3 - (int)floor(log10(a));
        /* Rounding may carry into the next decade (9.9996 -> "10.000"). */
        char tmp[64];
        snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
        if (fabs(strtod(tmp, NULL)) >= pow(10.0, floor(log10(a)) + 1) && decimals > 0)
            decimals--;
        snprintf(buf, size, "%.*f", decimals, v);
    }
}

void se_rep_us(char *buf, size_t size, double ns)
{
    se_rep_sig(buf, size, ns / 1e3);
}

void se_rep_us_range(char *buf, size_t size, double lo_ns, double hi_ns)
{
    char a[32], b[32];
    se_rep_us(a, sizeof a, lo_ns);
    se_rep_us(b, sizeof b, hi_ns);
    snprintf(buf, size, "%s to %s", a, b);
}

const char *se_rep_yes_no(int v)
{
    return v == 1 ? "yes" : v == 0 ? "no" : "-";
}

void se_rep_num(char *buf, size_t size, const json_t *v)
{
    if (json_is_integer(v))
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        se_rep_sig(buf, size, json_real_value(v));
    else if (json_is_string(v))
        snprintf(buf, size, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, size, "%s", se_rep_yes_no(json_is_true(v)));
    else if (json_is_null(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "(%zu entries)", json_is_array(v) ? json_array_size(v)
                                                               : json_object_size(v));
}

/* "13.0" from 13000 (driver and runtime), "9.14.0" from 91400 (cuDNN),
 * "10.4.0" from 10400 (cuRAND). */
void se_rep_version(char *buf, size_t size, long long v, int kind)
{
    if (kind == 0)
        snprintf(buf, size, "%lld.%lld", v / 1000, (v % 1000) / 10);
    else if (kind == 1)
        snprintf(buf, size, "%lld.%lld.%lld", v / 10000, (v % 10000) / 100, v % 100);
    else
        snprintf(buf, size, "%lld.%lld.%lld", v / 1000, (v % 1000) / 100, v % 100);
}

static void cell_pointers(int n, char cells[][SE_REP_CELL], const char **p)
{
    for (int i = 0; i < n && i < SE_REP_MAX_COLS; i++)
        p[i] = cells[i];
}

void se_rep_row(se_doc *d, int n, char cells[][SE_REP_CELL])
{
    const char *p[SE_REP_MAX_COLS];
    n = n < SE_REP_MAX_COLS ? n : SE_REP_MAX_COLS;
    cell_pointers(n, cells, p);
    se_doc_row(d, n, p);
}

void se_rep_header(se_doc *d, int n, char cells[][SE_REP_CELL])
{
    const char *p[SE_REP_MAX_COLS];
    n = n < SE_REP_MAX_COLS ? n : SE_REP_MAX_COLS;
    cell_pointers(n, cells, p);
    se_doc_table_cells(d, n, p, NULL);
}

/* ---- sections ------------------------------------------------------------ */

void se_rep_answer(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "The answer");
    se_answer a;
    se_err err = {{0}};
    if (se_answer_of_run(rd, &a, &err) != SE_OK) {
        se_doc_para(d, "The answer cannot be built from this run: %s", err.msg);
        return;
    }
    se_answer_doc(d, &a, 1);
    se_answer_free(&a);
}

/* s, or "?" where the run has no such field. */
static const char *or_unknown(const char *s)
{
    return s ? s : "?";
}

void se_rep_intro(se_doc *d, const se_rundata *rd)
{
    const se_run_view *run = &se_rundata_views(rd)->run;
    se_doc_para(d, "Run %s, started %s, finished %s, status %s. Drawn by softmax-evidence figures from the "
            "run directory after it verified (every file against its manifest, every summary "
            "recomputed from the raw samples, validation and traces re-checked). provenance.json "
            "lists, for every figure, the run files it came from with their SHA-256, its data files, "
            "its gnuplot script and the command that drew it.",
         rd->run_id, or_unknown(run->started_utc), or_unknown(run->finished_utc),
         or_unknown(run->status));
    const se_protocol *p = &rd->p;
    char shapes[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->n_shapes && used < sizeof shapes; i++) {
        char id[64];
        se_rundata_shape_id(&p->shapes[i], id, sizeof id);
        int w = snprintf(shapes + used, sizeof shapes - used, "%s%s", i ? ", " : "", id);
        used += w > 0 ? (size_t)w : 0;
    }
    const se_operation *op = se_rundata_operation(rd); /* what the run recorded */
    se_doc_para(d, "Workload: the %s %s per row, fp32, tile %" PRId64
            " columns, protocol '%s', on the shapes %s. Samples per case: device %d, device_cold %d, "
            "batch %d (of %d instances each), host %d; controls %d; bootstrap %d resamples.",
         op->title, op->brief, p->tile, p->name, shapes, p->device.samples, p->device_cold.samples, p->batch.samples,
         p->batch.batch, p->host.samples, p->controls.samples, p->bootstrap_resamples);
    se_doc_heading(d, 2, "The megakernel is a toy");
    se_doc_para(d, "From " SE_RUN_JSON ": the megakernel is %s.", or_unknown(run->megakernel));
    se_doc_para(d, "Its initialization (the reset of the per-row counters and one grid barrier) "
            "runs inside every timed invocation, so every megakernel time in this report includes "
            "it. Blocking kernel before each event-timed sample: %s. Interleaving: %s.",
         run->blocking_kernel ? "yes" : "no", or_unknown(run->interleaving));
}

/* The run's strategy table (se_rundata_table), one row per strategy. */
void se_rep_strategies(se_doc *d, const se_rundata *rd)
{
    const se_protocol *p = &rd->p;
    se_doc_heading(d, 2, "Strategies");
    /* A run made before strategies.json is described by the legacy v1
     * table, the program's table as it was then. */
    se_doc_para(d, "One row per strategy of %s: its role in the comparison, the mechanism it "
                   "measures, how one invocation is launched, and what it does.",
                rd->described ? "the run's own strategy table (" SE_STRATEGIES_JSON ")"
                              : "the program's strategy table (src/model/strategy.h)");
    se_doc_table(d, "strategy|role|mechanism|launch|description", NULL);
    for (int s = 0; s < se_protocol_nstrategies(p); s++) {
        const se_strategy_info *info = se_protocol_strategy(p, s);
        const char *cells[5] = {info->name, se_role_name(info->role), info->mechanism,
                                info->launch, info->description};
        se_doc_row(d, 5, cells);
    }
    se_doc_table_end(d);
}

static void figure(se_doc *d, const se_figure *f)
{
    char alt[600], png[96], svg[96];
    snprintf(alt, sizeof alt, "%s: %s", f->name, f->shows);
    snprintf(png, sizeof png, "%s.png", f->name);
    snprintf(svg, sizeof svg, "%s.svg", f->name);
    se_doc_figure(d, png, svg, alt, f->width);
    se_doc_text(d, "%s", f->title);
    se_doc_text(d, " (%s.svg, %s.png; script %s)", f->name, f->name, f->script);
    se_doc_end(d);
}

void se_rep_figures(se_doc *d, const se_figure *figs)
{
    se_doc_heading(d, 2, "Figures");
    se_doc_para(d, "Each figure links to its SVG; its data files and gnuplot script are under data/ and "
            "gnuplot/ beside this report.");
    for (int i = 0; i < SE_NFIGURES; i++) {
        if (figs[i].omitted)
            se_doc_para(d, "%s is not drawn: %s.", figs[i].name, figs[i].why_omitted);
        else
            figure(d, &figs[i]);
    }
}

void se_rep_limitations(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "Limitations");
    se_doc_item(d, "Nsight Compute's durations are not the run's timings: it replays each kernel in "
            "isolation and serializes kernels, so launch and graph overheads do not appear and the "
            "L2 state differs; use its counters to explain, not to time.");
    se_doc_item(d, "Gaps and order differences in the traces smaller than the %%globaltimer resolution "
            "(%.0f ns here) mean nothing; a gap is time in which no traced task was recorded on an "
            "SM, not measured idle hardware. Traced invocations are separate from the timed ones.",
         se_rundata_views(rd)->traces.timer_resolution_ns);
    se_doc_item(d, "The megakernel is a toy with its initialization inside its timing; it shows a static "
            "schedule with per-row counters and its costs on this workload, not what a model-scale "
            "megakernel achieves.");
    se_doc_item(d, "cuDNN computes the plain softmax of the pre-scaled input; the pre-scaling is not timed.");
    se_doc_item(d, "The intervals are bootstrap intervals of the median over this run's samples on one "
            "GPU; they do not cover run-to-run or machine-to-machine variation. Throttled samples "
            "are kept and counted, not dropped.");
    se_doc_item(d, "The host scope includes the submission of the launches; the event scopes do not (a "
            "blocking kernel holds the stream until the instance is enqueued).");
}

/* ---- the report ------------------------------------------------------------ */

se_status se_report_build(se_rundata *rd, const se_figure figs[SE_NFIGURES], se_doc *d,
                          se_err *err)
{
    se_doc_heading(d, 1, "softmax-evidence report: run %s", rd->run_id);
    se_rep_answer(d, rd);
    se_doc_heading(d, 2, "The run");
    se_rep_intro(d, rd);
    se_rep_strategies(d, rd);
    se_rep_figures(d, figs);
    se_rep_environment(d, rd);
    se_rep_timing(d, rd);
    se_rep_cudnn(d, rd);
    se_rep_peers(d, rd);
    se_rep_sweep(d, rd);
    se_rep_validation(d, rd);
    se_rep_resources(d, rd);
    se_rep_traces(d, rd);
    se_status st = se_rep_profile(d, rd, err);
    if (st == SE_OK) {
        se_rep_limitations(d, rd);
        st = se_rep_provenance(d, rd, err);
    }
    if (st == SE_OK)
        st = se_doc_check(d, "the report", err);
    return st;
}

static void html_page(const se_rundata *rd, const se_doc *d, se_buf *html)
{
    se_buf_add(html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>softmax-evidence report: run ");
    se_doc_esc_html(html, rd->run_id);
    se_buf_add(html, "</title>\n<style>\n");
    se_buf_add(html, se_doc_css());
    se_buf_add(html, "</style>\n</head>\n<body>\n<div class=\"page\">\n");
    se_doc_html_with_toc(d, NULL, 3, html);
    se_buf_add(html, "</div>\n</body>\n</html>\n");
}

se_status se_report_write(se_rundata *rd, const se_figure figs[SE_NFIGURES], const char *dir,
                          se_doc *keep, se_err *err)
{
    se_doc d = {0};
    se_buf md = {0}, html = {0};
    se_status st = se_report_build(rd, figs, &d, err);
    char path[4400];
    if (st == SE_OK) {
        se_doc_markdown(&d, &md);
        snprintf(path, sizeof path, "%s/report.md", dir);
        st = se_buf_write_file(&md, path, "report.md", err);
    }
    if (st == SE_OK) {
        html_page(rd, &d, &html);
        snprintf(path, sizeof path, "%s/report.html", dir);
        st = se_buf_write_file(&html, path, "report.html", err);
    }
    se_buf_free(&md);
    se_buf_free(&html);
    if (st == SE_OK && keep)
        *keep = d;
    else
        se_doc_free(&d);
    return st;
}
