/*
 * report.c - report.md and report.html (see report.h). The report is built
 * once through a few calls (heading, paragraph, list, table, figure) that
 * append to both renderings, so the two carry the same content; text is
 * escaped for each (Markdown punctuation, HTML entities). Nothing in it
 * depends on the output path or the time of writing.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/samples.h"
#include "bundle/peers.h"
#include "render/buf.h"

#define MAX_COLS 32
#define CELL 160

typedef struct doc {
    se_buf md, html;
    int in_list;
} doc;

/* ---- rendering ---------------------------------------------------------- */

static void esc_md(se_buf *b, const char *s)
{
    for (; *s; s++) {
        if (strchr("\\`*_[]<>|#", *s)) {
            char e[3] = {'\\', *s, '\0'};
            se_buf_add(b, e);
        } else if (*s == '\n') {
            se_buf_add(b, " ");
        } else {
            se_buf_addn(b, s, 1);
        }
    }
}

static void esc_html(se_buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': se_buf_add(b, "&amp;"); break;
        case '<': se_buf_add(b, "&lt;"); break;
        case '>': se_buf_add(b, "&gt;"); break;
        case '"': se_buf_add(b, "&quot;"); break;
        case '\'': se_buf_add(b, "&#39;"); break;
        default: se_buf_addn(b, s, 1);
        }
    }
}

static void list_end(doc *d)
{
    if (d->in_list) {
        se_buf_add(&d->md, "\n");
        se_buf_add(&d->html, "</ul>\n");
        d->in_list = 0;
    }
}

static void heading(doc *d, int level, const char *text)
{
    list_end(d);
    for (int i = 0; i < level; i++)
        se_buf_add(&d->md, "#");
    se_buf_add(&d->md, " ");
    esc_md(&d->md, text);
    se_buf_add(&d->md, "\n\n");
    se_buf_printf(&d->html, "<h%d>", level);
    esc_html(&d->html, text);
    se_buf_printf(&d->html, "</h%d>\n", level);
}

static void para(doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void para(doc *d, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    list_end(d);
    esc_md(&d->md, text);
    se_buf_add(&d->md, "\n\n");
    se_buf_add(&d->html, "<p>");
    esc_html(&d->html, text);
    se_buf_add(&d->html, "</p>\n");
}

static void item(doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void item(doc *d, const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!d->in_list) {
        se_buf_add(&d->html, "<ul>\n");
        d->in_list = 1;
    }
    se_buf_add(&d->md, "- ");
    esc_md(&d->md, text);
    se_buf_add(&d->md, "\n");
    se_buf_add(&d->html, "<li>");
    esc_html(&d->html, text);
    se_buf_add(&d->html, "</li>\n");
}

static void table_row(doc *d, int n, char cells[][CELL], int header)
{
    se_buf_add(&d->md, "|");
    se_buf_add(&d->html, "<tr>");
    for (int i = 0; i < n; i++) {
        se_buf_add(&d->md, " ");
        esc_md(&d->md, cells[i]);
        se_buf_add(&d->md, " |");
        se_buf_add(&d->html, header ? "<th>" : "<td>");
        esc_html(&d->html, cells[i]);
        se_buf_add(&d->html, header ? "</th>" : "</td>");
    }
    se_buf_add(&d->md, "\n");
    se_buf_add(&d->html, "</tr>\n");
    if (header) {
        se_buf_add(&d->md, "|");
        for (int i = 0; i < n; i++)
            se_buf_add(&d->md, "---|");
        se_buf_add(&d->md, "\n");
    }
}

/* A table's header from a '|'-separated list of column names. */
static int table_begin(doc *d, const char *columns)
{
    char cells[MAX_COLS][CELL];
    int n = 0;
    while (*columns && n < MAX_COLS) {
        size_t len = strcspn(columns, "|");
        snprintf(cells[n++], CELL, "%.*s", (int)len, columns);
        columns += len;
        if (*columns == '|')
            columns++;
    }
    list_end(d);
    se_buf_add(&d->html, "<table>\n");
    table_row(d, n, cells, 1);
    return n;
}

static void table_end(doc *d)
{
    se_buf_add(&d->md, "\n");
    se_buf_add(&d->html, "</table>\n");
}

static void figure(doc *d, const se_figure *f)
{
    list_end(d);
    char alt[600];
    snprintf(alt, sizeof alt, "%s: %s", f->name, f->shows);
    se_buf_printf(&d->md, "[![");
    esc_md(&d->md, alt);
    se_buf_printf(&d->md, "](%s.png)](%s.svg)\n\n", f->name, f->name);
    char files[256];
    snprintf(files, sizeof files, " (%s.svg, %s.png; script %s)", f->name, f->name, f->script);
    esc_md(&d->md, f->title);
    esc_md(&d->md, files);
    se_buf_add(&d->md, "\n\n");
    se_buf_printf(&d->html, "<figure><a href=\"%s.svg\"><img src=\"%s.png\" alt=\"", f->name,
                  f->name);
    esc_html(&d->html, alt);
    se_buf_printf(&d->html, "\" width=\"%d\" style=\"max-width:100%%;height:auto\"></a>"
                            "<figcaption>", f->width);
    esc_html(&d->html, f->title);
    esc_html(&d->html, files);
    se_buf_add(&d->html, "</figcaption></figure>\n");
}

/* ---- number formatting ---------------------------------------------------- */

static void fmt_us(char *buf, size_t size, double ns)
{
    snprintf(buf, size, "%.3f", ns / 1e3);
}

static const char *yes_no(const json_t *v)
{
    if (json_is_true(v))
        return "yes";
    if (json_is_false(v))
        return "no";
    return "-";
}

static void fmt_num(char *buf, size_t size, const json_t *v)
{
    if (json_is_integer(v))
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, size, "%.10g", json_real_value(v));
    else if (json_is_string(v))
        snprintf(buf, size, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, size, "%s", yes_no(v));
    else if (json_is_null(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "(%zu entries)", json_is_array(v) ? json_array_size(v)
                                                               : json_object_size(v));
}

static long long ival(const json_t *o, const char *path)
{
    return (long long)json_integer_value(se_json_path(o, path));
}

/* ---- sections ----------------------------------------------------------- */

static void section_intro(doc *d, const se_rundata *rd)
{
    char title[200];
    snprintf(title, sizeof title, "softmax-evidence report: run %s", rd->run_id);
    heading(d, 1, title);
    para(d, "Run %s, started %s, finished %s, status %s. Drawn by softmax-evidence figures from the "
            "run directory after it verified (every file against its manifest, every summary "
            "recomputed from the raw samples, validation and traces re-checked). provenance.json "
            "lists, for every figure, the run files it came from with their SHA-256, its data files, "
            "its gnuplot script and the command that drew it.",
         rd->run_id, se_json_str(rd->run, "started_utc", "?"),
         se_json_str(rd->run, "finished_utc", "?"), se_json_str(rd->run, "status", "?"));
    const se_protocol *p = &rd->p;
    char shapes[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->n_shapes && used < sizeof shapes; i++) {
        char id[64];
        se_rundata_shape_id(&p->shapes[i], id, sizeof id);
        int w = snprintf(shapes + used, sizeof shapes - used, "%s%s", i ? ", " : "", id);
        used += w > 0 ? (size_t)w : 0;
    }
    para(d, "Workload: the RMS-scaled softmax y = softmax(x / rms(x)) per row, fp32, tile %" PRId64
            " columns, protocol '%s', on the shapes %s. Samples per case: device %d, device_cold %d, "
            "batch %d (of %d instances each), host %d; controls %d; bootstrap %d resamples.",
         p->tile, p->name, shapes, p->device.samples, p->device_cold.samples, p->batch.samples,
         p->batch.batch, p->host.samples, p->controls.samples, p->bootstrap_resamples);
    heading(d, 2, "The megakernel is a toy");
    para(d, "From run.json: the megakernel is %s.", se_json_str(rd->run, "megakernel", "?"));
    para(d, "Its queue initialization (the reset of the ready-task queue and the per-row counters) "
            "runs inside every timed invocation, so every megakernel time in this report includes "
            "it. Blocking kernel before each event-timed sample: %s. Interleaving: %s.",
         json_is_true(json_object_get(rd->run, "blocking_kernel")) ? "yes" : "no",
         se_json_str(rd->run, "interleaving", "?"));
}

static void flatten(doc *d, const char *prefix, const json_t *o)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (!*prefix && (strcmp(key, "format") == 0 || strcmp(key, "version") == 0))
            continue;
        char name[CELL];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
        if (json_is_object(v)) {
            flatten(d, name, v);
            continue;
        }
        char cells[2][CELL];
        snprintf(cells[0], CELL, "%s", name);
        if (json_is_array(v)) {
            size_t i, used = 0;
            json_t *x;
            cells[1][0] = '\0';
            json_array_foreach(v, i, x) {
                char one[CELL];
                fmt_num(one, sizeof one, x);
                int w = snprintf(cells[1] + used, CELL - used, "%s%s", i ? " " : "", one);
                used += w > 0 ? (size_t)w : 0;
                if (used >= CELL)
                    break;
            }
        } else {
            fmt_num(cells[1], CELL, v);
        }
        table_row(d, 2, cells, 0);
    }
}

/* "13.0" from 13000 (driver and runtime), "9.14.0" from 91400 (cuDNN),
 * "10.4.0" from 10400 (cuRAND). */
static void version_text(char *buf, size_t size, long long v, int kind)
{
    if (kind == 0)
        snprintf(buf, size, "%lld.%lld", v / 1000, (v % 1000) / 10);
    else if (kind == 1)
        snprintf(buf, size, "%lld.%lld.%lld", v / 10000, (v % 10000) / 100, v % 100);
    else
        snprintf(buf, size, "%lld.%lld.%lld", v / 1000, (v % 1000) / 100, v % 100);
}

static void section_environment(doc *d, const se_rundata *rd)
{
    heading(d, 2, "GPU and software");
    const json_t *e = rd->env;
    char drv[32], rt[32], dnn[32], dnnc[32], rnd[32];
    version_text(drv, sizeof drv, ival(e, "software.driver_version"), 0);
    version_text(rt, sizeof rt, ival(e, "software.runtime_version"), 0);
    version_text(dnn, sizeof dnn, ival(e, "software.cudnn_version"), 1);
    version_text(dnnc, sizeof dnnc, ival(e, "software.cudnn_compiled_version"), 1);
    version_text(rnd, sizeof rnd, ival(e, "software.curand_version"), 2);
    para(d, "%s (compute capability %s, %lld SMs, L2 %.0f MiB, peak SM clock %.0f MHz); CUDA driver "
            "%s, runtime %s, nvcc %s (architectures %s), cuDNN %s loaded (%s compiled), cuRAND %s; "
            "%%globaltimer resolution %.0f ns. Every field of environment.json follows.",
         se_json_str(se_json_path(e, "gpu"), "name", "?"),
         se_json_str(se_json_path(e, "gpu"), "compute_capability", "?"), ival(e, "gpu.sm_count"),
         json_number_value(se_json_path(e, "gpu.l2_bytes")) / 1048576.0,
         json_number_value(se_json_path(e, "gpu.peak_sm_clock_mhz")), drv, rt,
         se_json_str(se_json_path(e, "software"), "nvcc_version", "?"),
         se_json_str(se_json_path(e, "software"), "cuda_architectures", "?"), dnn, dnnc, rnd,
         json_number_value(se_json_path(e, "globaltimer.smallest_step_ns")));
    table_begin(d, "field|value");
    flatten(d, "", e);
    table_end(d);
}

static void section_figures(doc *d, const se_figure *figs)
{
    heading(d, 2, "Figures");
    para(d, "Each figure links to its SVG; its data files and gnuplot script are under data/ and "
            "gnuplot/ beside this report.");
    for (int i = 0; i < SE_NFIGURES; i++) {
        if (figs[i].omitted)
            para(d, "%s is not drawn: %s.", figs[i].name, figs[i].why_omitted);
        else
            figure(d, &figs[i]);
    }
}

static const char *const SCOPES[SE_NSCOPES] = {"device", "device_cold", "batch", "host"};

static void scope_row(doc *d, const json_t *c, const char *scope)
{
    const json_t *s = se_json_path(json_object_get(c, "scopes"), scope);
    if (!s)
        return;
    char cells[12][CELL];
    const char *what = se_json_str(c, "what", "?");
    snprintf(cells[0], CELL, "%s", what);
    snprintf(cells[1], CELL, "%s", se_json_str(c, "launch", "-"));
    snprintf(cells[2], CELL, "%s", scope);
    snprintf(cells[3], CELL, "%s", se_json_str(s, "l2", "?"));
    snprintf(cells[4], CELL, "%lld (%lld)", ival(s, "n"), ival(s, "throttled"));
    fmt_us(cells[5], CELL, se_json_num(s, "median_ns"));
    fmt_us(cells[6], CELL, se_json_num(s, "p5_ns"));
    fmt_us(cells[7], CELL, se_json_num(s, "p95_ns"));
    const json_t *ci = json_object_get(s, "median_ci95_ns");
    snprintf(cells[8], CELL, "%.3f to %.3f", json_number_value(json_array_get(ci, 0)) / 1e3,
             json_number_value(json_array_get(ci, 1)) / 1e3);
    const json_t *r = json_object_get(s, "time_ratio_to_stream");
    if (r) {
        const json_t *rc = json_object_get(r, "ci95");
        snprintf(cells[9], CELL, "%.4f [%.4f, %.4f]", se_json_num(r, "ratio"),
                 json_number_value(json_array_get(rc, 0)), json_number_value(json_array_get(rc, 1)));
    } else {
        snprintf(cells[9], CELL, "%s", strcmp(what, "stream") == 0 ? "1 (baseline)" : "-");
    }
    if (json_object_get(s, "gbps"))
        snprintf(cells[10], CELL, "%.1f", se_json_num(s, "gbps"));
    else
        snprintf(cells[10], CELL, "-"); /* megakernel_init moves no bytes */
    if (json_object_get(s, "fraction_of_copy"))
        snprintf(cells[11], CELL, "%.3f", se_json_num(s, "fraction_of_copy"));
    else
        snprintf(cells[11], CELL, "%s", strcmp(what, "copy") == 0 ? "1 (ceiling)" : "-");
    table_row(d, 12, cells, 0);
}

static void section_timing(doc *d, const se_rundata *rd)
{
    heading(d, 2, "Timing");
    para(d, "Times are microseconds per instance. For each case and scope: the number of samples "
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
        heading(d, 3, title);
        int64_t tiles = (s->cols + rd->p.tile - 1) / rd->p.tile;
        para(d, "%" PRId64 " rows, %" PRId64 " columns, tile %" PRId64 " (%" PRId64
                " tile%s per row); %.0f bytes moved per instance (x read once, y written once).",
             s->rows, s->cols, rd->p.tile, tiles, tiles == 1 ? "" : "s",
             8.0 * (double)s->rows * (double)s->cols);
        table_begin(d, "strategy|launch|scope|L2|n (throttled)|median (us)|p5 (us)|p95 (us)|"
                       "median 95% CI (us)|ratio to stream [95% CI]|GB/s|fraction of copy");
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(rd->summary, "cases"), k, c) {
            if (json_integer_value(json_object_get(c, "rows")) != s->rows ||
                json_integer_value(json_object_get(c, "cols")) != s->cols)
                continue;
            for (int sc = 0; sc < SE_NSCOPES; sc++)
                scope_row(d, c, SCOPES[sc]);
        }
        table_end(d);
    }
    heading(d, 3, "Controls");
    para(d, "Run-level controls, scope device (docs/TIMING.md): an empty kernel of one 256-thread "
            "block per SM on a stream and as a one-node graph, a cooperative launch of the fusion "
            "grid that does nothing, and the same launch doing grid barriers.");
    table_begin(d, "control|n (throttled)|median (us)|p5 (us)|p95 (us)|median 95% CI (us)");
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(rd->summary, "controls"), k, c) {
        const json_t *s = se_json_path(c, "scopes.device");
        char cells[6][CELL];
        snprintf(cells[0], CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], CELL, "%lld (%lld)", ival(s, "n"), ival(s, "throttled"));
        fmt_us(cells[2], CELL, se_json_num(s, "median_ns"));
        fmt_us(cells[3], CELL, se_json_num(s, "p5_ns"));
        fmt_us(cells[4], CELL, se_json_num(s, "p95_ns"));
        const json_t *ci = json_object_get(s, "median_ci95_ns");
        snprintf(cells[5], CELL, "%.3f to %.3f", json_number_value(json_array_get(ci, 0)) / 1e3,
                 json_number_value(json_array_get(ci, 1)) / 1e3);
        table_row(d, 6, cells, 0);
    }
    table_end(d);
    const json_t *g = se_json_path(rd->summary, "derived.grid_barrier_ns");
    if (g)
        para(d, "One grid barrier costs %.1f ns: %s, with %lld barriers (summary.json "
                "derived.grid_barrier_ns).",
             se_json_num(g, "value"), se_json_str(g, "formula", "?"), ival(g, "barriers"));
}

static const char *const TILED[] = {"stream", "graph", "fusion", "fusion-graph", "megakernel",
                                    "megakernel-graph"};

static void section_cudnn(doc *d, const se_rundata *rd)
{
    heading(d, 2, "cuDNN reference");
    char dnn[32];
    version_text(dnn, sizeof dnn, ival(rd->env, "software.cudnn_version"), 1);
    para(d, "cuDNN %s computes the plain softmax of the pre-scaled input s*x (cuDNN has no RMS "
            "scaling); the pre-scaling kernel is not timed, so cuDNN is credited with less work "
            "than the strategies. Scope device, medians in microseconds; the fastest tiled "
            "strategy is the one with the smallest device median.", dnn);
    table_begin(d, "shape|cudnn median (us)|stream median (us)|fastest tiled strategy|its median "
                   "(us)|fastest tiled / cudnn|cudnn max rel err vs float64|stream max rel diff "
                   "vs cudnn");
    for (size_t i = 0; i < rd->p.n_shapes; i++) {
        char id[64], cid[128];
        se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
        snprintf(cid, sizeof cid, "%s.cudnn", id);
        const json_t *cu = se_rundata_summary_case(rd, cid);
        if (!cu)
            continue;
        double cm = json_number_value(se_json_path(cu, "scopes.device.median_ns"));
        const char *best = NULL;
        double bm = 0, sm = 0;
        for (size_t k = 0; k < sizeof TILED / sizeof TILED[0]; k++) {
            snprintf(cid, sizeof cid, "%s.%s", id, TILED[k]);
            const json_t *c = se_rundata_summary_case(rd, cid);
            if (!c)
                continue;
            double m = json_number_value(se_json_path(c, "scopes.device.median_ns"));
            if (k == 0)
                sm = m;
            if (!best || m < bm) {
                best = TILED[k];
                bm = m;
            }
        }
        char cells[8][CELL];
        snprintf(cells[0], CELL, "%s", id);
        fmt_us(cells[1], CELL, cm);
        if (sm > 0)
            fmt_us(cells[2], CELL, sm);
        else
            snprintf(cells[2], CELL, "-");
        snprintf(cells[3], CELL, "%s", best ? best : "-");
        if (best) {
            fmt_us(cells[4], CELL, bm);
            snprintf(cells[5], CELL, "%.3f", cm > 0 ? bm / cm : 0);
        } else {
            snprintf(cells[4], CELL, "-");
            snprintf(cells[5], CELL, "-");
        }
        snprintf(cid, sizeof cid, "%s.cudnn", id);
        snprintf(cells[6], CELL, "%.3e",
                 se_json_num(se_rundata_validation_case(rd, cid), "max_rel_err"));
        snprintf(cid, sizeof cid, "%s.stream", id);
        const json_t *v = se_rundata_validation_case(rd, cid);
        if (v)
            snprintf(cells[7], CELL, "%.3e", se_json_num(v, "vs_cudnn_max_rel"));
        else
            snprintf(cells[7], CELL, "-");
        table_row(d, 8, cells, 0);
    }
    table_end(d);
}

/* peers.json: PyTorch eager, torch.compile and torch.softmax on the same
 * inputs, timed in the device scope, validated like the strategies. */
static void section_peers(doc *d, const se_rundata *rd)
{
    heading(d, 2, "PyTorch peers");
    const json_t *pj = rd->peers;
    char why[1200];
    if (se_peers_absent(pj, why, sizeof why)) {
        para(d, "No PyTorch peer was measured: %s (docs/PEERS.md).", why);
        return;
    }
    const json_t *env = json_object_get(pj, "environment");
    para(d, "%s (SHA-256 %s, copied to %s) timed torch %s (CUDA %s, Triton %s) on %s with the "
            "run's own input bytes: %s Each output was validated here against the float64 reference "
            "(%s, atol %g, rtol %g). Times are microseconds, GB/s counts one read of x and one "
            "write of y, fraction of copy is median(copy) / median (docs/PEERS.md).",
         se_json_str(pj, "script", "?"), se_json_str(pj, "script_sha256", "?"),
         se_json_str(pj, "script_copy", "?"), se_json_str(env, "torch_version", "?"),
         se_json_str(env, "torch_cuda_version", "?"), se_json_str(env, "triton_version", "-"),
         se_json_str(env, "device_name", "?"), se_json_str(pj, "timing", "?"),
         se_json_str(json_object_get(pj, "tolerance"), "rule", "?"),
         se_json_num(json_object_get(pj, "tolerance"), "atol"),
         se_json_num(json_object_get(pj, "tolerance"), "rtol"));
    table_begin(d, "shape|peer|computes|status|median (us)|median 95% CI (us)|GB/s|fraction of "
                   "copy|max rel err|samples file|input SHA-256|output SHA-256");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(pj, "peers"), i, e) {
        char cells[12][CELL];
        const json_t *s = json_object_get(e, "summary");
        const json_t *ci = json_object_get(s, "median_ci95_ns");
        snprintf(cells[0], CELL, "%lldx%lld", ival(e, "rows"), ival(e, "cols"));
        snprintf(cells[1], CELL, "%s", se_json_str(e, "peer", "?"));
        snprintf(cells[2], CELL, "%s", se_json_str(e, "computes", "?"));
        snprintf(cells[3], CELL, "%s", se_json_str(e, "status", "?"));
        if (s) {
            fmt_us(cells[4], CELL, se_json_num(s, "median_ns"));
            snprintf(cells[5], CELL, "%.3f to %.3f", json_number_value(json_array_get(ci, 0)) / 1e3,
                     json_number_value(json_array_get(ci, 1)) / 1e3);
            snprintf(cells[6], CELL, "%.1f", se_json_num(s, "gbps"));
            snprintf(cells[7], CELL, "%.3f", se_json_num(s, "fraction_of_copy"));
            snprintf(cells[8], CELL, "%.3e", se_json_num(e, "max_rel_err"));
        } else {
            snprintf(cells[4], CELL, "error: %.140s", se_json_str(e, "error", "?"));
            for (int k = 5; k < 9; k++)
                snprintf(cells[k], CELL, "-");
        }
        snprintf(cells[9], CELL, "%s", se_json_str(e, "samples_file", "-"));
        snprintf(cells[10], CELL, "%s", se_json_str(e, "input_sha256", "-"));
        snprintf(cells[11], CELL, "%s", se_json_str(e, "output_sha256", "-"));
        table_row(d, 12, cells, 0);
    }
    table_end(d);
}

static void section_validation(doc *d, const se_rundata *rd)
{
    heading(d, 2, "Validation");
    const json_t *t = json_object_get(rd->validation, "tolerance");
    para(d, "Every output element is compared with a float64 reference: %s, with atol %g and rtol "
            "%g; %lld invocations per case. Tiny counts elements below fp32's normal range; repeat "
            "identical: both invocations wrote the same bytes; matches tiled: the bytes equal the "
            "other tiled strategies'.",
         se_json_str(t, "rule", "?"), se_json_num(t, "atol"), se_json_num(t, "rtol"),
         ival(rd->validation, "invocations"));
    table_begin(d, "shape|strategy|cooperative blocks|graph nodes|elements|fails|NaN|tiny|max abs "
                   "err|max rel err|vs cudnn max rel|vs cudnn fails|repeat identical|matches tiled|"
                   "pass");
    size_t k, passed = 0, total = 0;
    json_t *c;
    json_array_foreach(json_object_get(rd->validation, "cases"), k, c) {
        char cells[15][CELL], id[64];
        snprintf(id, sizeof id, "%lldx%lld", ival(c, "rows"), ival(c, "cols"));
        snprintf(cells[0], CELL, "%s", id);
        snprintf(cells[1], CELL, "%s", se_json_str(c, "strategy", "?"));
        snprintf(cells[2], CELL, "%lld", ival(c, "blocks"));
        snprintf(cells[3], CELL, "%lld", ival(c, "graph_nodes"));
        snprintf(cells[4], CELL, "%lld", ival(c, "elements"));
        snprintf(cells[5], CELL, "%lld", ival(c, "fails"));
        snprintf(cells[6], CELL, "%lld", ival(c, "nan"));
        snprintf(cells[7], CELL, "%lld", ival(c, "tiny"));
        snprintf(cells[8], CELL, "%.3e", se_json_num(c, "max_abs_err"));
        snprintf(cells[9], CELL, "%.3e", se_json_num(c, "max_rel_err"));
        snprintf(cells[10], CELL, "%.3e", se_json_num(c, "vs_cudnn_max_rel"));
        snprintf(cells[11], CELL, "%lld", ival(c, "vs_cudnn_fails"));
        snprintf(cells[12], CELL, "%s", yes_no(json_object_get(c, "repeat_identical")));
        snprintf(cells[13], CELL, "%s", yes_no(json_object_get(c, "matches_tiled")));
        snprintf(cells[14], CELL, "%s", json_is_true(json_object_get(c, "pass")) ? "PASS" : "FAIL");
        passed += json_is_true(json_object_get(c, "pass"));
        total++;
        table_row(d, 15, cells, 0);
    }
    table_end(d);
    para(d, "%zu of %zu cases pass.", passed, total);
}

static void section_resources(doc *d, const se_rundata *rd)
{
    heading(d, 2, "Resources");
    para(d, "Per kernel, from resources.json (cudaFuncGetAttributes and the occupancy API).");
    table_begin(d, "kernel|used by|block threads|registers|static shared (B)|local (B)|constant "
                   "(B)|max blocks per SM|PTX / binary version");
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(rd->resources, "kernels"), k, c) {
        char cells[9][CELL];
        snprintf(cells[0], CELL, "%s", se_json_str(c, "kernel", "?"));
        snprintf(cells[1], CELL, "%s", se_json_str(c, "used_by", "?"));
        snprintf(cells[2], CELL, "%lld", ival(c, "block_threads"));
        snprintf(cells[3], CELL, "%lld", ival(c, "registers"));
        snprintf(cells[4], CELL, "%lld", ival(c, "shared_static_bytes"));
        snprintf(cells[5], CELL, "%lld", ival(c, "local_bytes"));
        snprintf(cells[6], CELL, "%lld", ival(c, "const_bytes"));
        snprintf(cells[7], CELL, "%lld", ival(c, "max_blocks_per_sm"));
        snprintf(cells[8], CELL, "%lld / %lld", ival(c, "ptx_version"), ival(c, "binary_version"));
        table_row(d, 9, cells, 0);
    }
    table_end(d);
    para(d, "Graph node counts and cooperative grids per shape and strategy (resources.json "
            "launches; '-' for an ordinary stream launch).");
    table_begin(d, "shape|strategy|launch|graph nodes|cooperative blocks");
    json_array_foreach(json_object_get(rd->resources, "launches"), k, c) {
        char cells[5][CELL] = {""};
        const char *shape = se_json_str(c, "shape", "?");
        for (size_t i = 0; i < rd->p.n_shapes; i++)
            if (strcmp(rd->p.shapes[i].spec, shape) == 0)
                se_rundata_shape_id(&rd->p.shapes[i], cells[0], CELL);
        if (!cells[0][0])
            snprintf(cells[0], CELL, "%s", shape);
        snprintf(cells[1], CELL, "%s", se_json_str(c, "strategy", "?"));
        snprintf(cells[2], CELL, "%s", se_json_str(c, "launch", "?"));
        long long nodes = ival(c, "graph_nodes"), blocks = ival(c, "cooperative_blocks");
        snprintf(cells[3], CELL, "%lld", nodes);
        snprintf(cells[4], CELL, "%lld", blocks);
        if (!nodes)
            snprintf(cells[3], CELL, "-");
        if (!blocks)
            snprintf(cells[4], CELL, "-");
        table_row(d, 5, cells, 0);
    }
    table_end(d);
}

static void section_traces(doc *d, const se_rundata *rd)
{
    heading(d, 2, "Dependency traces");
    para(d, "One traced invocation per shape and traced strategy, separate from the timed ones "
            "(docs/TRACES.md). Coverage: every expected task exactly once; ordering: every "
            "dependency edge (and, for the phased strategies, every phase barrier) respected. "
            "Overlap: the share of the task time of phases B to E spent before the previous phase "
            "ended anywhere. From traces.json: %s. %%globaltimer resolution: %.0f ns.",
         se_json_str(rd->traces, "note", ""),
         se_json_num(rd->traces, "globaltimer_resolution_ns"));
    table_begin(d, "case|check|verdict|tasks expected|records|missing|duplicated|invalid|"
                   "dependency edges|order violations|phase barrier violations|span (us)|SMs used|"
                   "overlap");
    size_t k, failing = 0;
    json_t *c;
    json_array_foreach(json_object_get(rd->traces, "traces"), k, c) {
        char cells[14][CELL];
        snprintf(cells[0], CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], CELL, "%s", se_json_str(c, "kind", "?"));
        snprintf(cells[2], CELL, "%s", se_json_str(c, "verdict", "?"));
        snprintf(cells[3], CELL, "%lld", ival(c, "tasks_expected"));
        snprintf(cells[4], CELL, "%lld", ival(c, "records"));
        snprintf(cells[5], CELL, "%lld", ival(c, "missing_count"));
        snprintf(cells[6], CELL, "%lld", ival(c, "duplicated_count"));
        snprintf(cells[7], CELL, "%lld", ival(c, "invalid_count"));
        snprintf(cells[8], CELL, "%lld", ival(c, "dependency_edges_checked"));
        snprintf(cells[9], CELL, "%lld", ival(c, "order_violations_count"));
        if (json_is_true(json_object_get(c, "phase_barriers_checked")))
            snprintf(cells[10], CELL, "%lld", ival(c, "phase_barrier_violations_count"));
        else
            snprintf(cells[10], CELL, "not required");
        snprintf(cells[11], CELL, "%.3f", (double)ival(c, "span_ns") / 1e3);
        snprintf(cells[12], CELL, "%lld", ival(c, "sm.sms_used"));
        snprintf(cells[13], CELL, "%.3f", json_number_value(se_json_path(c, "overlap.fraction")));
        failing += strcmp(se_json_str(c, "verdict", ""), "pass") != 0;
        table_row(d, 14, cells, 0);
    }
    table_end(d);
    size_t n_traces = json_array_size(json_object_get(rd->traces, "traces"));
    para(d, "%zu of %zu traces pass their checks.", n_traces - failing, n_traces);
    heading(d, 3, "Cost of tracing");
    para(d, "Device-time medians of the traced and the untraced instance, interleaved, in the same "
            "run (traces.json tracing_cost).");
    table_begin(d, "case|samples|untraced median (us)|traced median (us)|overhead (us)|overhead|"
                   "untraced samples file|traced samples file");
    double lo = 0, hi = 0;
    json_array_foreach(json_object_get(rd->traces, "tracing_cost"), k, c) {
        char cells[8][CELL];
        double fr = se_json_num(c, "overhead_fraction");
        lo = k == 0 || fr < lo ? fr : lo;
        hi = k == 0 || fr > hi ? fr : hi;
        snprintf(cells[0], CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], CELL, "%lld", ival(c, "samples"));
        fmt_us(cells[2], CELL, se_json_num(c, "untraced_median_ns"));
        fmt_us(cells[3], CELL, se_json_num(c, "traced_median_ns"));
        fmt_us(cells[4], CELL, se_json_num(c, "overhead_ns"));
        snprintf(cells[5], CELL, "%.1f%%", 100 * fr);
        snprintf(cells[6], CELL, "%s", se_json_str(c, "untraced_samples_file", "?"));
        snprintf(cells[7], CELL, "%s", se_json_str(c, "traced_samples_file", "?"));
        table_row(d, 8, cells, 0);
    }
    table_end(d);
    para(d, "Tracing costs %.1f%% to %.1f%% of an instance's device time in this run.", 100 * lo,
         100 * hi);
}

/* Splits one CSV line (RFC 4180 quoting) into at most MAX_COLS cells. */
static int csv_cells(const char *line, char cells[][CELL])
{
    int n = 0;
    const char *p = line;
    while (n < MAX_COLS) {
        size_t used = 0;
        int quoted = *p == '"';
        if (quoted)
            p++;
        while (*p && (quoted || *p != ',')) {
            if (quoted && *p == '"') {
                if (p[1] == '"')
                    p++;
                else {
                    quoted = 0;
                    p++;
                    continue;
                }
            }
            if (used + 1 < CELL)
                cells[n][used++] = *p;
            p++;
        }
        cells[n++][used] = '\0';
        if (*p != ',')
            break;
        p++;
    }
    return n;
}

static se_status section_profile(doc *d, se_rundata *rd, se_err *err)
{
    heading(d, 2, "Profiler counters");
    static const char rel[] = "profile/kernels.csv";
    if (!se_rundata_listed(rd, rel)) {
        para(d, "This run carries no profiler export (no %s in its manifest); softmax-evidence "
                "profile RUN_DIR adds one on a GPU with Nsight Compute.", rel);
        return SE_OK;
    }
    char hex[65], path[4400];
    se_status st = se_rundata_hash(rd, rel, hex, err);
    if (st != SE_OK)
        return st;
    para(d, "Nsight Compute counters from %s (SHA-256 %s; docs/PROFILING.md). Nsight Compute "
            "replays each kernel in isolation, restoring memory between passes, and serializes "
            "kernels: its durations are not the run's timings, which are in the tables above. Use "
            "the counters for bytes and utilization.", rel, hex);
    se_rundata_path(rd, rel, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", rel, strerror(errno));
    char line[8192];
    int cols = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!*line)
            continue;
        char cells[MAX_COLS][CELL];
        int n = csv_cells(line, cells);
        if (lineno++ == 0) {
            list_end(d);
            se_buf_add(&d->html, "<table>\n");
            table_row(d, n, cells, 1);
            cols = n;
            continue;
        }
        for (int i = n; i < cols; i++)
            cells[i][0] = '\0';
        table_row(d, cols, cells, 0);
    }
    fclose(f);
    if (lineno)
        table_end(d);
    return SE_OK;
}

static void section_limitations(doc *d, const se_rundata *rd)
{
    heading(d, 2, "Limitations");
    item(d, "Nsight Compute's durations are not the run's timings: it replays each kernel in "
            "isolation and serializes kernels, so launch and graph overheads do not appear and the "
            "L2 state differs; use its counters to explain, not to time.");
    item(d, "Gaps and order differences in the traces smaller than the %%globaltimer resolution "
            "(%.0f ns here) mean nothing; a gap is time in which no traced task was recorded on an "
            "SM, not measured idle hardware. Traced invocations are separate from the timed ones.",
         se_json_num(rd->traces, "globaltimer_resolution_ns"));
    item(d, "The megakernel is a toy with its queue initialization inside its timing; it shows the "
            "ready-task mechanism and its costs on this workload, not what a model-scale megakernel "
            "achieves.");
    item(d, "cuDNN computes the plain softmax of the pre-scaled input; the pre-scaling is not timed.");
    item(d, "The intervals are bootstrap intervals of the median over this run's samples on one "
            "GPU; they do not cover run-to-run or machine-to-machine variation. Throttled samples "
            "are kept and counted, not dropped.");
    item(d, "The host scope includes the submission of the launches; the event scopes do not (a "
            "blocking kernel holds the stream until the instance is enqueued).");
    list_end(d);
}

static void provenance_row(doc *d, char cells[][CELL], const char *scope,
                           const json_t *s, const char *file, const char *file_hex,
                           const json_t *val, const char *input_hex)
{
    snprintf(cells[5], CELL, "%s", scope);
    snprintf(cells[6], CELL, "%s", se_json_str(s, "l2", "?"));
    snprintf(cells[7], CELL, "%lld", ival(s, "n"));
    snprintf(cells[8], CELL, "%s", file);
    snprintf(cells[9], CELL, "%s", file_hex);
    if (val) {
        snprintf(cells[10], CELL, "%s", se_json_str(val, "input_sha256", "-"));
        snprintf(cells[11], CELL, "%s", se_json_str(val, "output_sha256", "-"));
    } else if (input_hex) {
        snprintf(cells[10], CELL, "%s", input_hex);
        snprintf(cells[11], CELL, "not recorded (a copy of the input)");
    } else {
        snprintf(cells[10], CELL, "-");
        snprintf(cells[11], CELL, "-");
    }
    table_row(d, 12, cells, 0);
}

static se_status section_provenance(doc *d, se_rundata *rd, se_err *err)
{
    heading(d, 2, "Provenance of every timing number");
    para(d, "Every timing number above comes from one case and scope: its samples file (with the "
            "SHA-256 listed in the run's MANIFEST.sha256 and recomputed here), the shape and tile, "
            "the strategy and launch, the scope and L2 state, the number of samples, and the "
            "SHA-256 of the case's input and output bytes from validation.json. Controls have no "
            "input or output.");
    table_begin(d, "case|shape|tile|strategy|launch|scope|L2|samples|samples file|samples file "
                   "SHA-256|input SHA-256|output SHA-256");
    se_status st = SE_OK;
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(rd->summary, "cases"), k, c) {
        char cells[12][CELL], hex[65], cid[CELL + 16];
        const char *file = se_json_str(c, "samples_file", "?");
        st = se_rundata_hash(rd, file, hex, err);
        if (st != SE_OK)
            return st;
        snprintf(cells[0], CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], CELL, "%lldx%lld", ival(c, "rows"), ival(c, "cols"));
        snprintf(cells[2], CELL, "%lld", ival(c, "tile"));
        snprintf(cells[3], CELL, "%s", se_json_str(c, "what", "?"));
        snprintf(cells[4], CELL, "%s", se_json_str(c, "launch", "?"));
        const json_t *val = se_rundata_validation_case(rd, cells[0]);
        const char *input = NULL;
        if (!val) {
            snprintf(cid, sizeof cid, "%s.stream", cells[1]);
            const json_t *any = se_rundata_validation_case(rd, cid);
            if (!any)
                any = se_rundata_find(json_object_get(rd->validation, "cases"), "shape",
                                      se_json_str(c, "shape", ""));
            input = any ? se_json_str(any, "input_sha256", NULL) : NULL;
        }
        for (int sc = 0; sc < SE_NSCOPES; sc++) {
            const json_t *s = se_json_path(json_object_get(c, "scopes"), SCOPES[sc]);
            if (s)
                provenance_row(d, cells, SCOPES[sc], s, file, hex, val, input);
        }
    }
    json_array_foreach(json_object_get(rd->summary, "controls"), k, c) {
        char cells[12][CELL], hex[65];
        const char *file = se_json_str(c, "samples_file", "?");
        st = se_rundata_hash(rd, file, hex, err);
        if (st != SE_OK)
            return st;
        snprintf(cells[0], CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], CELL, "-");
        snprintf(cells[2], CELL, "-");
        snprintf(cells[3], CELL, "%s", se_json_str(c, "what", "?"));
        snprintf(cells[4], CELL, "%s", strcmp(se_json_str(c, "what", ""), "empty_graph") == 0
                                           ? "graph"
                                           : "stream");
        provenance_row(d, cells, "device", se_json_path(c, "scopes.device"), file, hex, NULL,
                       NULL);
    }
    json_array_foreach(json_object_get(rd->traces, "tracing_cost"), k, c) {
        const char *cid = se_json_str(c, "case", "?");
        const json_t *sc = se_rundata_summary_case(rd, cid);
        const json_t *val = se_rundata_validation_case(rd, cid);
        for (int t = 0; t < 2; t++) {
            char cells[12][CELL], hex[65];
            const char *file = se_json_str(c, t ? "traced_samples_file" : "untraced_samples_file",
                                           "?");
            st = se_rundata_hash(rd, file, hex, err);
            if (st != SE_OK)
                return st;
            snprintf(cells[0], CELL, "%s (%s)", cid, t ? "traced" : "untraced");
            snprintf(cells[1], CELL, "%lldx%lld", ival(sc, "rows"), ival(sc, "cols"));
            snprintf(cells[2], CELL, "%lld", ival(sc, "tile"));
            snprintf(cells[3], CELL, "%s", se_json_str(sc, "what", "?"));
            snprintf(cells[4], CELL, "%s", se_json_str(sc, "launch", "?"));
            json_t *s = json_pack("{s:s, s:I}", "l2", "warm", "n", ival(c, "samples"));
            provenance_row(d, cells, t ? "device (traced)" : "device (untraced)", s, file, hex,
                           val, NULL);
            json_decref(s);
        }
    }
    table_end(d);
    return SE_OK;
}

static void html_begin(doc *d, const se_rundata *rd)
{
    se_buf_add(&d->html, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                         "<title>softmax-evidence report: run ");
    esc_html(&d->html, rd->run_id);
    se_buf_add(&d->html,
               "</title>\n<style>\n"
               "body { font-family: sans-serif; max-width: 1400px; margin: 1em auto; padding: 0 1em; }\n"
               "table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.85em; }\n"
               "th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; }\n"
               "th { background: #eee; }\n"
               "figure { margin: 1em 0 2em; }\n"
               "figcaption { font-size: 0.9em; }\n"
               "</style>\n</head>\n<body>\n");
}

se_status se_report_write(se_rundata *rd, const se_figure figs[SE_NFIGURES], const char *dir,
                          se_err *err)
{
    doc d;
    memset(&d, 0, sizeof d);
    html_begin(&d, rd);
    section_intro(&d, rd);
    section_figures(&d, figs);
    section_environment(&d, rd);
    section_timing(&d, rd);
    section_cudnn(&d, rd);
    section_peers(&d, rd);
    section_validation(&d, rd);
    section_resources(&d, rd);
    section_traces(&d, rd);
    se_status st = section_profile(&d, rd, err);
    if (st == SE_OK) {
        section_limitations(&d, rd);
        st = section_provenance(&d, rd, err);
    }
    list_end(&d);
    se_buf_add(&d.html, "</body>\n</html>\n");
    char path[4400];
    if (st == SE_OK) {
        snprintf(path, sizeof path, "%s/report.md", dir);
        st = se_buf_write_file(&d.md, path, "report.md", err);
    }
    if (st == SE_OK) {
        snprintf(path, sizeof path, "%s/report.html", dir);
        st = se_buf_write_file(&d.html, path, "report.html", err);
    }
    se_buf_free(&d.md);
    se_buf_free(&d.html);
    return st;
}
