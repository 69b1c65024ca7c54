/*
 * plot.c - the figures of a run (see plot.h): data files written with
 * fixed formatting (raw values with %.17g, positions with fixed decimals),
 * gnuplot scripts that read them, and gnuplot run on each script. Nothing
 * here draws: gnuplot does.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot.h"

#include "bundle/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ITEMS 16
#define MAX_TIMELINES 4
#define FONT "Sans"

typedef struct plot_ctx {
    se_rundata *rd;
    const char *dir;
} plot_ctx;

/* Colours per strategy: one hue per mechanism, dark for stream launches,
 * light for graph launches. */
static const struct {
    const char *name, *color;
} COLORS[] = {
    {"stream", "#08519c"},     {"graph", "#6baed6"},
    {"fusion", "#a63603"},     {"fusion-graph", "#fd8d3c"},
    {"megakernel", "#006d2c"}, {"megakernel-graph", "#74c476"},
    {"rowblock", "#6a51a3"},   {"cudnn", "#e7298a"},
    {"copy", "#525252"},       {SE_MK_INIT_NAME, "#00441b"},
};

/* Phase colours of the timelines, and what each phase does. */
static const char *const PHASE_COLOR[SE_NPHASES] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                                    "#66a61e"};
static const char *const PHASE_WHAT[SE_NPHASES] = {
    "A: per-tile sum of squares and max", "B: per-row combine (s, m)",
    "C: per-tile sum of exp", "D: per-row combine (1/l)", "E: per-tile write y"};

static const char *color_of(const char *what)
{
    for (size_t i = 0; i < sizeof COLORS / sizeof COLORS[0]; i++)
        if (strcmp(COLORS[i].name, what) == 0)
            return COLORS[i].color;
    return "#000000";
}

/* Point type: filled circle for a stream launch, filled triangle for a
 * graph launch, filled square for the copy control. */
static int point_of(const char *what, const char *launch)
{
    if (strcmp(what, "copy") == 0)
        return 5;
    return launch && strcmp(launch, "graph") == 0 ? 9 : 7;
}

static void legend_of(char *buf, size_t size, const char *what, const char *launch)
{
    if (strcmp(what, "copy") == 0)
        snprintf(buf, size, "copy (control: cudaMemcpyAsync of the same bytes)");
    else if (strcmp(what, "rowblock") == 0)
        snprintf(buf, size, "rowblock (control, %s launch)", launch);
    else if (strcmp(what, SE_MK_INIT_NAME) == 0)
        snprintf(buf, size, "megakernel queue initialization alone (control)");
    else if (strcmp(what, "cudnn") == 0)
        snprintf(buf, size, "cudnn (reference, %s launch)", launch);
    else
        snprintf(buf, size, "%s (%s launch)", what, launch);
}

/* A gnuplot double-quoted string. Backquotes (command substitution) are
 * replaced, control characters dropped. */
static void gp_quote(se_buf *b, const char *s)
{
    se_buf_add(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            char e[3] = {'\\', *s, '\0'};
            se_buf_add(b, e);
        } else if (*s == '\n') {
            se_buf_add(b, "\\n");
        } else if (*s == '`') {
            se_buf_add(b, "'");
        } else if ((unsigned char)*s >= 0x20) {
            se_buf_addn(b, s, 1);
        }
    }
    se_buf_add(b, "\"");
}

/* Explicit tics for a log axis over [lo, hi], 0 < lo < hi: powers of ten
 * (and 2 and 5 times them) across decades, finer or linear steps within
 * one, so that every panel has labelled tics. */
static void log_tics(se_buf *b, const char *axis, double lo, double hi)
{
    static const double one[] = {1}, mid[] = {1, 2, 5}, some[] = {1, 2, 3, 5},
                        all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    double decades = log10(hi / lo);
    se_buf_printf(b, "    set %stics (", axis);
    int n = 0;
    if (decades > 0.4) {
        const double *m = decades > 4 ? one : decades > 1.5 ? mid : decades > 0.8 ? some : all;
        int nm = decades > 4 ? 1 : decades > 1.5 ? 3 : decades > 0.8 ? 4 : 9;
        for (int k = (int)floor(log10(lo)); k <= (int)ceil(log10(hi)); k++)
            for (int j = 0; j < nm; j++) {
                double v = m[j] * pow(10.0, k);
                if (v >= lo && v <= hi)
                    se_buf_printf(b, "%s\"%g\" %g", n++ ? ", " : "", v, v);
            }
    } else {
        double raw = (hi - lo) / 5, p = pow(10.0, floor(log10(raw)));
        double step = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
        for (double k = ceil(lo / step); k * step <= hi; k++)
            se_buf_printf(b, "%s\"%.6g\" %.6g", n++ ? ", " : "", k * step, k * step);
    }
    se_buf_add(b, ")\n");
}

/* Deterministic horizontal spread of the samples of one item: the
 * golden-ratio sequence of the round, within +-0.3. */
static double jitter(int round)
{
    double g = fmod((double)round * 0.6180339887498949, 1.0);
    return 0.6 * g - 0.3;
}

static se_status write_rel(plot_ctx *c, const char *rel, const se_buf *b, se_err *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", c->dir, rel);
    return se_buf_write_file(b, path, rel, err);
}

static void data_header(se_buf *b, const char *rel, const se_rundata *rd, const char *what)
{
    se_buf_printf(b, "# %s: %s\n# run %s; written by softmax-evidence figures (docs/FIGURES.md)\n",
                  rel, what, rd->run_id);
}

/* Start of a script: every setting is reset, then the same plot is drawn
 * as SVG and as PNG. */
static void script_begin(se_buf *b, const se_figure *f, const se_rundata *rd)
{
    se_buf_printf(b,
                  "# %s - %s\n"
                  "# Run %s. Run it in the figures directory:\n"
                  "#   " SE_GNUPLOT_ENV " " SE_GNUPLOT_ARGS " %s\n"
                  "# It writes %s.svg and %s.png from the files under data/.\n"
                  "do for [fmt in \"svg png\"] {\n"
                  "    reset\n"
                  "    set datafile separator \"\\t\"\n"
                  "    if (fmt eq \"svg\") {\n"
                  "        set terminal svg size %d,%d font \"" FONT ",14\" noenhanced background \"white\"\n"
                  "    } else {\n"
                  "        set terminal pngcairo size %d,%d font \"" FONT ",14\" noenhanced background \"white\"\n"
                  "    }\n"
                  "    set output \"%s.\" . fmt\n",
                  f->script, f->shows, rd->run_id, f->script, f->name, f->name, f->width,
                  f->height, f->width, f->height, f->name);
}

static void script_end(se_buf *b)
{
    se_buf_add(b, "    unset multiplot\n    set output\n}\n");
}

static se_status finish(plot_ctx *c, se_figure *f, se_buf *script, se_err *err)
{
    return write_rel(c, f->script, script, err);
}

/* The end of a figure: its data files written and listed, the plot drawn
 * (only if st is still SE_OK); frees gp and every data buffer. */
static se_status finish_with_data(plot_ctx *c, se_figure *f, se_buf *gp, const char *const *rels,
                                  se_buf *const *bufs, size_t n, se_status st, se_err *err)
{
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = write_rel(c, rels[i], bufs[i], err);
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = se_strlist_add(&f->data_files, rels[i], err);
    if (st == SE_OK)
        st = finish(c, f, gp, err);
    for (size_t i = 0; i < n; i++)
        se_buf_free(bufs[i]);
    se_buf_free(gp);
    return st;
}


/* The timed items of one shape in summary.json's order (strategies, then
 * copy). */
static size_t shape_items(const se_rundata *rd, const se_shape *s, json_t **items)
{
    size_t n = 0, i;
    json_t *e;
    json_array_foreach(json_object_get(rd->summary, "cases"), i, e) {
        if (json_integer_value(json_object_get(e, "rows")) == s->rows &&
            json_integer_value(json_object_get(e, "cols")) == s->cols && n < MAX_ITEMS)
            items[n++] = e;
    }
    return n;
}

static void shape_title(char *buf, size_t size, const se_shape *s, const json_t *item)
{
    char id[64];
    se_rundata_shape_id(s, id, sizeof id);
    double bytes = se_json_num(item, "bytes_moved");
    char amount[32];
    if (bytes < 1e3)
        snprintf(amount, sizeof amount, "%.0f B", bytes);
    else if (bytes < 1e6)
        snprintf(amount, sizeof amount, "%.3g kB", bytes / 1e3);
    else
        snprintf(amount, sizeof amount, "%.3g MB", bytes / 1e6);
    if (strcmp(s->spec, id) != 0)
        snprintf(buf, size, "%s (%s): %s read and written", id, s->spec, amount);
    else
        snprintf(buf, size, "%s: %s read and written", id, amount);
}

/* Reads the device-scope samples of a case into dev (the other scopes are
 * dropped). */
static se_status device_samples(se_rundata *rd, const char *rel, int n_scopes, se_sample_set *dev,
                                se_err *err)
{
    se_sample_set sets[SE_NSCOPES];
    se_status st = se_rundata_samples(rd, rel, sets, n_scopes, err);
    if (st != SE_OK)
        return st;
    *dev = sets[SE_SCOPE_DEVICE];
    for (int k = 1; k < n_scopes; k++)
        se_sample_set_free(&sets[k]);
    if (dev->n == 0) {
        se_sample_set_free(dev);
        return se_fail(err, SE_ERR_VALIDATION, "%s: no samples of scope device", rel);
    }
    return SE_OK;
}

static se_status add_common_run_files(se_figure *f, se_err *err)
{
    se_status st = se_strlist_add(&f->run_files, "run.json", err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, "protocol.json", err);
    return st;
}

/* The end of a figure drawn from summary.json alone: its run files, its
 * data file, the plot; frees both buffers. */
static se_status finish_from_summary(plot_ctx *c, se_figure *f, se_buf *gp, se_buf *data,
                                     const char *rel, se_err *err)
{
    se_status st = add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, "summary.json", err);
    const char *rels[] = {rel};
    se_buf *bufs[] = {data};
    return finish_with_data(c, f, gp, rels, bufs, 1, st, err);
}

/* ---- fig1: every device-time sample per shape and strategy ------------ */

typedef struct fig1_item {
    const char *what, *launch;
    int block;
} fig1_item;

static se_status fig1_shape(plot_ctx *c, se_figure *f, size_t si, int ncols, int *block,
                            se_buf *data, se_buf *med, se_buf *gp, fig1_item *legend,
                            size_t *n_legend, se_err *err)
{
    se_rundata *rd = c->rd;
    const se_shape *s = &rd->p.shapes[si];
    json_t *items[MAX_ITEMS];
    size_t n = shape_items(rd, s, items);
    fig1_item drawn[MAX_ITEMS];
    double lo = INFINITY, hi = 0;
    se_status st = SE_OK;
    char id[64];
    se_rundata_shape_id(s, id, sizeof id);
    if (si)
        se_buf_add(med, "\n\n");
    se_buf_printf(med, "# block %zu: shape %s\n", si, id);
    for (size_t k = 0; k < n && st == SE_OK; k++) {
        const char *what = se_json_str(items[k], "what", "?");
        const char *launch = se_json_str(items[k], "launch", "stream");
        const char *rel = se_json_str(items[k], "samples_file", "");
        se_sample_set dev;
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = device_samples(rd, rel, SE_NSCOPES, &dev, err);
        if (st != SE_OK)
            break;
        if (*block)
            se_buf_add(data, "\n\n");
        se_buf_printf(data, "# block %d: shape %s, %s, %s launch, %zu samples from %s\n", *block,
                      id, what, launch, dev.n, rel);
        for (size_t j = 0; j < dev.n; j++) {
            const se_sample *x = &dev.v[j];
            se_buf_printf(data, "%.4f\t%.17g\t%d\t%" PRId64 "\t%.17g\t%d\n",
                          (double)(k + 1) + jitter(x->round), x->ns, x->round, x->seq, x->sm_mhz,
                          x->throttled);
            lo = x->ns < lo ? x->ns : lo;
            hi = x->ns > hi ? x->ns : hi;
        }
        se_sample_set_free(&dev);
        double m = se_json_num(se_json_path(items[k], "scopes.device"), "median_ns");
        se_buf_printf(med, "%zu\t%.17g\t%s\n", k + 1, m, what);
        drawn[k] = (fig1_item){what, launch, (*block)++};
        size_t l = 0;
        while (l < *n_legend && strcmp(legend[l].what, what) != 0)
            l++;
        if (l == *n_legend && l < MAX_ITEMS)
            legend[(*n_legend)++] = drawn[k];
    }
    if (st != SE_OK || n == 0)
        return st;
    char title[256];
    shape_title(title, sizeof title, s, items[0]);
    se_buf_add(gp, "    set title ");
    gp_quote(gp, title);
    se_buf_printf(gp, "\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n", lo / 1e3 / 1.25,
                  hi / 1e3 * 1.25);
    log_tics(gp, "y", lo / 1e3 / 1.25, hi / 1e3 * 1.25);
    se_buf_printf(gp, "    set xrange [0.4:%zu.6]\n    set xtics (", n);
    for (size_t k = 0; k < n; k++) {
        se_buf_add(gp, k ? ", " : "");
        gp_quote(gp, drawn[k].what);
        se_buf_printf(gp, " %zu", k + 1);
    }
    se_buf_add(gp, ") rotate by 35 right nomirror\n");
    if ((int)si % ncols == 0)
        se_buf_add(gp, "    set ylabel \"device time per instance (us, log scale)\"\n");
    else
        se_buf_add(gp, "    unset ylabel\n");
    se_buf_add(gp, "    plot ");
    for (size_t k = 0; k < n; k++)
        se_buf_printf(gp, "%s\"data/fig1_latency.tsv\" index %d using 1:($2/1000.0) with points "
                          "pt %d ps 0.6 lc rgb \"%s\" notitle",
                      k ? ", \\\n         " : "", drawn[k].block,
                      point_of(drawn[k].what, drawn[k].launch), color_of(drawn[k].what));
    se_buf_printf(gp, ", \\\n         \"data/fig1_medians.tsv\" index %zu using ($1-0.4):($2/1000.0):"
                      "(0.8):(0) with vectors nohead lw 3 lc rgb \"black\" notitle\n", si);
    return SE_OK;
}

static se_status fig1_latency(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    size_t ns = rd->p.n_shapes;
    int ncols = ns + 1 < 4 ? (int)ns + 1 : 4;
    int nrows = (int)((ns + 1 + (size_t)ncols - 1) / (size_t)ncols);
    f->width = 560 * ncols;
    f->height = 120 + 480 * nrows;
    snprintf(f->title, sizeof f->title,
             "Fig. 1: device time per instance, every sample of scope device (L2 warm); "
             "bar = median; run %s", rd->run_id);
    se_buf data = {0}, med = {0}, gp = {0};
    data_header(&data, "data/fig1_latency.tsv", rd,
                "every sample of scope device (CUDA events around one instance, L2 warm)");
    se_buf_add(&data, "# columns: x (item's place in its panel, spread by round), ns (device time "
                      "per instance: the samples file's value), round, seq, sm_mhz, throttled\n"
                      "# one block per (shape, item), blocks separated by two blank lines "
                      "(gnuplot: index)\n");
    data_header(&med, "data/fig1_medians.tsv", rd, "median of scope device from summary.json");
    se_buf_add(&med, "# columns: x (item's place in its panel), median_ns, item\n"
                     "# one block per shape\n");
    script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot layout ");
    se_buf_printf(&gp, "%d,%d title ", nrows, ncols);
    gp_quote(&gp, f->title);
    se_buf_add(&gp, " font \"" FONT ",18\"\n    set grid ytics lc rgb \"#dddddd\"\n    unset key\n");
    se_status st = add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, "summary.json", err);
    fig1_item legend[MAX_ITEMS];
    size_t n_legend = 0;
    int block = 0;
    for (size_t si = 0; si < ns && st == SE_OK; si++)
        st = fig1_shape(c, f, si, ncols, &block, &data, &med, &gp, legend, &n_legend, err);
    se_buf_add(&gp, "    unset title\n    unset logscale y\n    unset border\n    unset tics\n"
                    "    unset grid\n    unset ylabel\n    set xrange [0:1]\n    set yrange [0:1]\n"
                    "    set key center center Left reverse samplen 1 spacing 1.4 font \"" FONT ",15\"\n"
                    "    plot ");
    for (size_t l = 0; l < n_legend; l++) {
        char label[160];
        legend_of(label, sizeof label, legend[l].what, legend[l].launch);
        se_buf_printf(&gp, "%sNaN with points pt %d ps 1.6 lc rgb \"%s\" title ",
                      l ? ", \\\n         " : "", point_of(legend[l].what, legend[l].launch),
                      color_of(legend[l].what));
        gp_quote(&gp, label);
    }
    se_buf_printf(&gp, "%sNaN with lines lw 3 lc rgb \"black\" title \"median (summary.json)\"\n",
                  n_legend ? ", \\\n         " : "");
    script_end(&gp);
    const char *rels[] = {"data/fig1_latency.tsv", "data/fig1_medians.tsv"};
    se_buf *bufs[] = {&data, &med};
    return finish_with_data(c, f, &gp, rels, bufs, 2, st, err);
}

/* ---- fig2 and fig3: per shape and strategy, from summary.json --------- */

/* The strategies that appear in summary.json's cases (not copy), in order,
 * optionally only those with a ratio to stream. */
static size_t strategies_of(const se_rundata *rd, int with_ratio, const json_t **first)
{
    size_t n = 0, i;
    json_t *e;
    json_array_foreach(json_object_get(rd->summary, "cases"), i, e) {
        const char *what = se_json_str(e, "what", "");
        /* Not strategies: the copy, and the megakernel's queue initialization
         * (it moves no bytes; fig1 and the tables show it). */
        if (strcmp(what, "copy") == 0 || strcmp(what, SE_MK_INIT_NAME) == 0)
            continue;
        if (with_ratio && !se_json_path(e, "scopes.device.time_ratio_to_stream"))
            continue;
        size_t k = 0;
        while (k < n && strcmp(se_json_str(first[k], "what", ""), what) != 0)
            k++;
        if (k == n && n < MAX_ITEMS)
            first[n++] = e;
    }
    return n;
}

static json_t *case_of(const se_rundata *rd, const se_shape *s, const char *what)
{
    char id[128];
    se_rundata_shape_id(s, id, sizeof id);
    size_t len = strlen(id);
    snprintf(id + len, sizeof id - len, ".%s", what);
    return se_rundata_summary_case(rd, id);
}

/* x tics at the shapes, and light separators between them. */
static void shape_axis(se_buf *gp, const se_rundata *rd)
{
    se_buf_printf(gp, "    set xrange [0.5:%zu.5]\n    set xtics (", rd->p.n_shapes);
    for (size_t i = 0; i < rd->p.n_shapes; i++) {
        char id[64];
        se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
        se_buf_add(gp, i ? ", " : "");
        gp_quote(gp, id);
        se_buf_printf(gp, " %zu", i + 1);
    }
    se_buf_add(gp, ") rotate by 30 right nomirror\n");
    for (size_t i = 1; i < rd->p.n_shapes; i++)
        se_buf_printf(gp, "    set arrow %zu from first %zu.5, graph 0 to first %zu.5, graph 1 "
                          "nohead lc rgb \"#bbbbbb\"\n", i, i, i);
    se_buf_add(gp, "    set xlabel \"shape (rows x columns, fp32)\"\n");
}

static double offset_of(size_t k, size_t n)
{
    return -0.4 + ((double)k + 0.5) * 0.8 / (double)n;
}


static se_status fig2_speedup(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const json_t *strat[MAX_ITEMS];
    size_t n = strategies_of(rd, 1, strat);
    f->width = 1800;
    f->height = 1000;
    snprintf(f->title, sizeof f->title,
             "Fig. 2: speedup over stream launches = 1 / time_ratio_to_stream (scope device, "
             "medians), paired bootstrap 95%% interval; run %s", rd->run_id);
    if (n == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted,
                 "the run has no ratio to stream (no stream baseline, or no other strategy)");
        return SE_OK;
    }
    se_buf data = {0}, gp = {0};
    data_header(&data, "data/fig2_speedup.tsv", rd,
                "speedup over stream = 1 / time_ratio_to_stream, scope device, from summary.json");
    se_buf_add(&data, "# columns: x (shape's place, offset per strategy), speedup, speedup_lo "
                      "(1 / ratio ci95 high), speedup_hi (1 / ratio ci95 low), ratio, ratio_ci95_lo, "
                      "ratio_ci95_hi, shape\n# one block per strategy\n");
    double lo = 1, hi = 1;
    for (size_t k = 0; k < n; k++) {
        const char *what = se_json_str(strat[k], "what", "?");
        se_buf_printf(&data, "%s# block %zu: %s, %s launch\n", k ? "\n\n" : "", k, what,
                      se_json_str(strat[k], "launch", "?"));
        for (size_t i = 0; i < rd->p.n_shapes; i++) {
            const json_t *r = se_json_path(case_of(rd, &rd->p.shapes[i], what),
                                           "scopes.device.time_ratio_to_stream");
            if (!r)
                continue;
            double ratio = se_json_num(r, "ratio");
            const json_t *ci = json_object_get(r, "ci95");
            double clo = json_number_value(json_array_get(ci, 0));
            double chi = json_number_value(json_array_get(ci, 1));
            if (!(ratio > 0 && clo > 0 && chi > 0))
                continue;
            char id[64];
            se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
            se_buf_printf(&data, "%.4f\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%s\n",
                          (double)(i + 1) + offset_of(k, n), 1 / ratio, 1 / chi, 1 / clo, ratio,
                          clo, chi, id);
            lo = 1 / chi < lo ? 1 / chi : lo;
            hi = 1 / clo > hi ? 1 / clo : hi;
        }
    }
    script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set title ");
    gp_quote(&gp, f->title);
    se_buf_printf(&gp, "\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n", lo / 1.3, hi * 1.3);
    log_tics(&gp, "y", lo / 1.3, hi * 1.3);
    shape_axis(&gp, rd);
    se_buf_add(&gp, "    set ylabel \"speedup over stream launches (x, log scale; > 1 is faster)\"\n"
                    "    set grid ytics lc rgb \"#dddddd\"\n"
                    "    set key outside right top vertical Left reverse samplen 1 spacing 1.3\n"
                    "    plot 1 with lines dt 2 lw 2 lc rgb \"black\" title \"stream baseline (1x)\"");
    for (size_t k = 0; k < n; k++) {
        const char *what = se_json_str(strat[k], "what", "?");
        const char *launch = se_json_str(strat[k], "launch", "stream");
        char label[160];
        legend_of(label, sizeof label, what, launch);
        se_buf_printf(&gp, ", \\\n         \"data/fig2_speedup.tsv\" index %zu using 1:2:3:4 with "
                           "yerrorbars pt %d ps 1.4 lw 1.5 lc rgb \"%s\" title ", k,
                      point_of(what, launch), color_of(what));
        gp_quote(&gp, label);
    }
    se_buf_add(&gp, "\n");
    script_end(&gp);
    return finish_from_summary(c, f, &gp, &data, "data/fig2_speedup.tsv", err);
}

static se_status fig3_bandwidth(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const json_t *strat[MAX_ITEMS];
    size_t n = strategies_of(rd, 0, strat);
    static const char *const scopes[2] = {"device", "device_cold"};
    static const char *const scope_what[2] = {"scope device: L2 warm", "scope device_cold: L2 flushed"};
    f->width = 1800;
    f->height = 1300;
    snprintf(f->title, sizeof f->title,
             "Fig. 3: achieved bandwidth as a fraction of the same-run copy bandwidth "
             "(median(copy) / median(strategy)); run %s", rd->run_id);
    if (n == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted, "the run has no strategy cases");
        return SE_OK;
    }
    se_buf data = {0}, gp = {0};
    data_header(&data, "data/fig3_bandwidth.tsv", rd,
                "fraction_of_copy and gbps of scopes device and device_cold, from summary.json");
    se_buf_add(&data, "# columns: x (shape's place, offset per strategy), fraction_of_copy, gbps, "
                      "median_ns, shape\n# one block per (scope, strategy)\n");
    double lo = 1, hi = 1;
    int block = 0;
    int blocks[2][MAX_ITEMS];
    for (int sc = 0; sc < 2; sc++)
        for (size_t k = 0; k < n; k++) {
            const char *what = se_json_str(strat[k], "what", "?");
            se_buf_printf(&data, "%s# block %d: %s, %s\n", block ? "\n\n" : "", block, scopes[sc],
                          what);
            blocks[sc][k] = block++;
            for (size_t i = 0; i < rd->p.n_shapes; i++) {
                char path[64];
                snprintf(path, sizeof path, "scopes.%s", scopes[sc]);
                const json_t *s = se_json_path(case_of(rd, &rd->p.shapes[i], what), path);
                double fr = se_json_num(s, "fraction_of_copy");
                if (!s || !(fr > 0))
                    continue;
                char id[64];
                se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
                se_buf_printf(&data, "%.4f\t%.17g\t%.17g\t%.17g\t%s\n",
                              (double)(i + 1) + offset_of(k, n), fr, se_json_num(s, "gbps"),
                              se_json_num(s, "median_ns"), id);
                lo = fr < lo ? fr : lo;
                hi = fr > hi ? fr : hi;
            }
        }
    script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot layout 2,1 title ");
    gp_quote(&gp, f->title);
    se_buf_printf(&gp, " font \"" FONT ",16\"\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n",
                  lo / 1.5, hi * 1.5);
    log_tics(&gp, "y", lo / 1.5, hi * 1.5);
    shape_axis(&gp, rd);
    se_buf_printf(&gp, "    set ylabel \"fraction of copy bandwidth (log scale)\"\n"
                       "    set grid ytics lc rgb \"#dddddd\"\n"
                       "    set style fill solid 1.0 border lc rgb \"#333333\"\n"
                       "    set boxwidth %.4f absolute\n"
                       "    set lmargin at screen 0.07\n    set rmargin at screen 0.76\n",
                  0.8 / (double)n);
    for (int sc = 0; sc < 2; sc++) {
        se_buf_add(&gp, "    set title ");
        gp_quote(&gp, scope_what[sc]);
        se_buf_add(&gp, "\n");
        if (sc == 0)
            se_buf_add(&gp, "    set key at screen 0.77, screen 0.9 left top Left reverse samplen 1 "
                            "spacing 1.3\n");
        else
            se_buf_add(&gp, "    unset key\n");
        se_buf_add(&gp, "    plot 1 with lines dt 2 lw 2 lc rgb \"black\" title \"copy, same run and "
                        "bytes (1)\"");
        for (size_t k = 0; k < n; k++) {
            const char *what = se_json_str(strat[k], "what", "?");
            char label[160];
            legend_of(label, sizeof label, what, se_json_str(strat[k], "launch", "stream"));
            se_buf_printf(&gp, ", \\\n         \"data/fig3_bandwidth.tsv\" index %d using 1:2 with "
                               "boxes lc rgb \"%s\" title ", blocks[sc][k], color_of(what));
            gp_quote(&gp, label);
        }
        se_buf_add(&gp, "\n");
    }
    script_end(&gp);
    return finish_from_summary(c, f, &gp, &data, "data/fig3_bandwidth.tsv", err);
}

/* ---- fig4: dependency-trace timelines --------------------------------- */

int se_timeline_strategies(se_strategy *out, int max)
{
    int n = 0;
    for (int k = 0; k < SE_NSTRATEGIES && n < max; k++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)k);
        if (!info->cooperative || strcmp(info->launch, "stream") != 0)
            continue;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= strcmp(se_strategy_get(out[j])->coop_group, info->coop_group) == 0;
        if (!seen)
            out[n++] = (se_strategy)k;
    }
    return n;
}

const se_shape *se_timeline_shape(const se_rundata *rd)
{
    const json_t *traces = json_object_get(rd->traces, "traces");
    se_strategy tl[SE_NSTRATEGIES];
    int n = se_timeline_strategies(tl, SE_NSTRATEGIES);
    const se_shape *best = NULL;
    for (size_t i = 0; i < rd->p.n_shapes; i++) {
        const se_shape *s = &rd->p.shapes[i];
        int all = n > 0;
        for (int k = 0; k < n; k++) {
            char id[SE_CASE_ID_SIZE];
            se_case_id_make(s->rows, s->cols, se_strategy_get(tl[k])->name, id, sizeof id);
            all = all && se_rundata_find(traces, "case", id);
        }
        if (!all)
            continue;
        if (s->rows == 4096 && s->cols == 4096)
            return s;
        if (!best || s->rows * s->cols > best->rows * best->cols)
            best = s;
    }
    return best;
}

typedef struct sm_block {
    int sm, block;
    int slot, slots;
} sm_block;

static int cmp_sm_block(const void *a, const void *b)
{
    const sm_block *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return (x->block > y->block) - (x->block < y->block);
}

/* Each (SM, block) pair of a trace and its place among the blocks of that
 * SM, so that blocks sharing an SM are drawn side by side. */
static se_status block_slots(const se_trace *t, sm_block **out, size_t *n_out, se_err *err)
{
    sm_block *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "out of memory for a trace's blocks");
    for (size_t i = 0; i < t->n; i++)
        v[i] = (sm_block){t->v[i].sm, t->v[i].block, 0, 1};
    qsort(v, t->n, sizeof *v, cmp_sm_block);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (n == 0 || v[n - 1].sm != v[i].sm || v[n - 1].block != v[i].block)
            v[n++] = v[i];
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].sm == v[i].sm)
            j++;
        for (size_t k = i; k < j; k++) {
            v[k].slot = (int)(k - i);
            v[k].slots = (int)(j - i);
        }
        i = j;
    }
    *out = v;
    *n_out = n;
    return SE_OK;
}

static void print_us(se_buf *b, uint64_t ns)
{
    se_buf_printf(b, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Writes one trace's records, one block per phase. */
static se_status timeline_blocks(const se_trace *t, const char *what, int *block, se_buf *data,
                                 uint64_t *span, int *max_sm, se_err *err)
{
    sm_block *slots = NULL;
    size_t n_slots = 0;
    se_status st = block_slots(t, &slots, &n_slots, err);
    if (st != SE_OK)
        return st;
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t i = 0; i < t->n; i++) {
        t0 = t->v[i].start_ns < t0 ? t->v[i].start_ns : t0;
        t1 = t->v[i].end_ns > t1 ? t->v[i].end_ns : t1;
        *max_sm = t->v[i].sm > *max_sm ? t->v[i].sm : *max_sm;
    }
    *span = t->n ? t1 - t0 : 0;
    static const char phases[SE_NPHASES] = {'A', 'B', 'C', 'D', 'E'};
    for (int ph = 0; ph < SE_NPHASES; ph++) {
        se_buf_printf(data, "%s# block %d: %s, phase %c\n", *block ? "\n\n" : "", *block, what,
                      phases[ph]);
        (*block)++;
        size_t written = 0;
        for (size_t i = 0; i < t->n; i++) {
            const se_trace_task *r = &t->v[i];
            if (r->col_phase[0] != phases[ph])
                continue;
            sm_block key = {r->sm, r->block, 0, 1};
            const sm_block *s = bsearch(&key, slots, n_slots, sizeof *slots, cmp_sm_block);
            double y = r->sm + (s ? (s->slot + 0.5) / s->slots : 0.5) - 0.5;
            print_us(data, r->start_ns - t0);
            se_buf_add(data, "\t");
            print_us(data, r->end_ns - t0);
            se_buf_printf(data, "\t%.4f\t%d\t%d\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", y, r->sm,
                          r->block, r->task, r->col_row, r->col_tile);
            written++;
        }
        if (!written)
            se_buf_add(data, "NaN\tNaN\tNaN\t0\t0\t0\t0\t0\n");
    }
    free(slots);
    return SE_OK;
}

static se_status fig4_timelines(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const se_shape *s = se_timeline_shape(rd);
    se_strategy tl[MAX_TIMELINES];
    int n = se_timeline_strategies(tl, MAX_TIMELINES);
    char names[256] = "";
    for (int k = 0; k < n; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 k == 0 ? "" : k + 1 == n ? " and " : ", ", se_strategy_get(tl[k])->name);
    f->width = 1800;
    f->height = 1400;
    if (!s) {
        snprintf(f->title, sizeof f->title, "Fig. 4: dependency-trace timelines; run %s", rd->run_id);
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted,
                 "the run has no shape with a trace of each of %s", names);
        return SE_OK;
    }
    char id[SE_CASE_ID_SIZE];
    se_shape_id(s->rows, s->cols, id, sizeof id);
    snprintf(f->title, sizeof f->title,
             "Fig. 4: dependency traces on %s, one segment per task (start to end), by SM and "
             "phase; run %s", id, rd->run_id);
    se_buf data = {0}, gp = {0};
    static const char *const count[] = {"no", "one", "two", "three", "four"};
    char what[64];
    snprintf(what, sizeof what, "task records of %s traces", count[n]);
    data_header(&data, "data/fig4_timelines.tsv", rd, what);
    se_buf_add(&data, "# columns: start_us, end_us (from the trace's first task start), y (SM, "
                      "blocks of one SM side by side), sm, block, task, row, tile\n"
                      "# one block per (strategy, phase)\n");
    se_status st = add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, "traces.json", err);
    uint64_t span[MAX_TIMELINES] = {0}, xmax = 0;
    int max_sm = 0, block = 0;
    for (int k = 0; k < n && st == SE_OK; k++) {
        char rid[SE_CASE_ID_SIZE], rel[SE_CASE_ID_SIZE + 32];
        se_case_id_make(s->rows, s->cols, se_strategy_get(tl[k])->name, rid, sizeof rid);
        se_path_trace(rid, rel, sizeof rel);
        se_trace t = {NULL, 0};
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = se_rundata_trace(rd, rel, &t, err);
        if (st == SE_OK)
            st = timeline_blocks(&t, se_strategy_get(tl[k])->name, &block, &data, &span[k], &max_sm,
                                 err);
        se_trace_free(&t);
        xmax = span[k] > xmax ? span[k] : xmax;
    }
    script_begin(&gp, f, rd);
    se_buf_printf(&gp, "    set multiplot layout %d,1 title ", n);
    gp_quote(&gp, f->title);
    se_buf_printf(&gp, " font \"" FONT ",16\"\n    set xrange [0:%.3f]\n    set yrange [-0.5:%d.5]\n",
                  (double)xmax / 1e3 * 1.01, max_sm);
    se_buf_add(&gp, "    set xlabel \"time from the trace's first task start (us; %globaltimer, gaps "
                    "under its resolution mean nothing)\"\n"
                    "    set ylabel \"SM (%smid)\"\n    set ytics 0,12 nomirror\n"
                    "    set grid xtics lc rgb \"#dddddd\"\n"
                    "    set lmargin at screen 0.06\n    set rmargin at screen 0.74\n");
    for (int k = 0; k < n; k++) {
        char rid[SE_CASE_ID_SIZE], title[400];
        se_case_id_make(s->rows, s->cols, se_strategy_get(tl[k])->name, rid, sizeof rid);
        const json_t *rep = se_rundata_find(json_object_get(rd->traces, "traces"), "case", rid);
        snprintf(title, sizeof title,
                 "%s: %" JSON_INTEGER_FORMAT " tasks on %" JSON_INTEGER_FORMAT " SMs, span %.3f us, "
                 "overlap of later phases %.3f, checks: %s",
                 se_strategy_get(tl[k])->name, json_integer_value(json_object_get(rep, "records")),
                 json_integer_value(se_json_path(rep, "sm.sms_used")), (double)span[k] / 1e3,
                 se_json_num(json_object_get(rep, "overlap"), "fraction"),
                 se_json_str(rep, "verdict", "?"));
        se_buf_add(&gp, "    set title ");
        gp_quote(&gp, title);
        se_buf_add(&gp, "\n");
        if (k == 0)
            se_buf_add(&gp, "    set key at screen 0.75, screen 0.9 left top Left reverse samplen 2 "
                            "spacing 1.3\n");
        else
            se_buf_add(&gp, "    unset key\n");
        se_buf_add(&gp, "    plot ");
        for (int ph = 0; ph < SE_NPHASES; ph++) {
            se_buf_printf(&gp, "%s\"data/fig4_timelines.tsv\" index %d using 1:3:($2-$1):(0) with "
                               "vectors nohead lw 1.2 lc rgb \"%s\" title ",
                          ph ? ", \\\n         " : "", k * SE_NPHASES + ph, PHASE_COLOR[ph]);
            gp_quote(&gp, PHASE_WHAT[ph]);
        }
        se_buf_add(&gp, "\n");
    }
    script_end(&gp);
    if (st == SE_OK)
        st = write_rel(c, "data/fig4_timelines.tsv", &data, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->data_files, "data/fig4_timelines.tsv", err);
    if (st == SE_OK)
        st = finish(c, f, &gp, err);
    se_buf_free(&data);
    se_buf_free(&gp);
    return st;
}

/* ---- fig5: launch and barrier controls -------------------------------- */

static const struct {
    const char *name, *label, *color;
    int pt;
} CONTROLS[] = { /* label NULL: "<barriers> grid barriers", from the protocol */
    {"control.empty_stream", "empty kernel\\n(stream launch)", "#08519c", 7},
    {"control.empty_graph", "empty kernel\\n(1-node graph)", "#6baed6", 9},
    {"control.coop_noop", "cooperative no-op\\n(fusion grid)", "#a63603", 7},
    {"control.barriers", NULL, "#fd8d3c", 7},
};

/* The shape with the fewest elements (the first of equals). */
static const se_shape *smallest_shape(const se_rundata *rd)
{
    const se_shape *best = NULL;
    for (size_t i = 0; i < rd->p.n_shapes; i++)
        if (!best || rd->p.shapes[i].rows * rd->p.shapes[i].cols < best->rows * best->cols)
            best = &rd->p.shapes[i];
    return best;
}

static se_status fig5_controls(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    f->width = 1600;
    f->height = 1000;
    snprintf(f->title, sizeof f->title,
             "Fig. 5: launch and barrier controls, every sample of scope device, bar = median; "
             "run %s", rd->run_id);
    const json_t *items[6];
    const char *labels[6], *colors[6];
    int pts[6];
    double top[6];
    char copy_label[128] = "", barrier_label[160] = "", barriers_label[96];
    snprintf(barriers_label, sizeof barriers_label, "%d grid barriers\\n(one cooperative launch)",
             rd->p.barriers);
    size_t n = 0;
    for (size_t i = 0; i < sizeof CONTROLS / sizeof CONTROLS[0]; i++) {
        const json_t *e = se_rundata_summary_case(rd, CONTROLS[i].name);
        if (e) {
            labels[n] = CONTROLS[i].label ? CONTROLS[i].label : barriers_label;
            colors[n] = CONTROLS[i].color;
            pts[n] = CONTROLS[i].pt;
            items[n++] = e;
        }
    }
    const se_shape *small = smallest_shape(rd);
    const json_t *copy = small ? case_of(rd, small, "copy") : NULL;
    if (copy) {
        char id[64];
        se_rundata_shape_id(small, id, sizeof id);
        snprintf(copy_label, sizeof copy_label, "copy %s\\n(cudaMemcpyAsync)", id);
        labels[n] = copy_label;
        colors[n] = color_of("copy");
        pts[n] = point_of("copy", "stream");
        items[n++] = copy;
    }
    if (n == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted, "the run has no controls");
        return SE_OK;
    }
    const json_t *derived = se_json_path(rd->summary, "derived.grid_barrier_ns");
    double barrier_ns = se_json_num(derived, "value");
    se_buf data = {0}, med = {0}, gp = {0};
    data_header(&data, "data/fig5_controls.tsv", rd, "every sample of scope device of the controls");
    se_buf_add(&data, "# columns: x (item's place, spread by round), ns, round, seq, sm_mhz, "
                      "throttled\n# one block per item\n");
    data_header(&med, "data/fig5_medians.tsv", rd,
                "medians of scope device from summary.json, and the derived cost of one grid barrier");
    se_buf_add(&med, "# columns: x, ns, item\n");
    se_status st = add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, "summary.json", err);
    double lo = INFINITY, hi = 0;
    for (size_t k = 0; k < n && st == SE_OK; k++) {
        const char *rel = se_json_str(items[k], "samples_file", "");
        int n_scopes = json_object_size(json_object_get(items[k], "scopes")) > 1 ? SE_NSCOPES : 1;
        se_sample_set dev;
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = device_samples(rd, rel, n_scopes, &dev, err);
        if (st != SE_OK)
            break;
        se_buf_printf(&data, "%s# block %zu: %s, %zu samples from %s\n", k ? "\n\n" : "", k,
                      se_json_str(items[k], "case", "?"), dev.n, rel);
        top[k] = 0;
        for (size_t j = 0; j < dev.n; j++) {
            const se_sample *x = &dev.v[j];
            se_buf_printf(&data, "%.4f\t%.17g\t%d\t%" PRId64 "\t%.17g\t%d\n",
                          (double)(k + 1) + jitter(x->round), x->ns, x->round, x->seq, x->sm_mhz,
                          x->throttled);
            lo = x->ns < lo ? x->ns : lo;
            hi = x->ns > hi ? x->ns : hi;
            top[k] = x->ns > top[k] ? x->ns : top[k];
        }
        se_sample_set_free(&dev);
        se_buf_printf(&med, "%zu\t%.17g\t%s\n", k + 1,
                      se_json_num(se_json_path(items[k], "scopes.device"), "median_ns"),
                      se_json_str(items[k], "case", "?"));
    }
    size_t nx = n;
    if (st == SE_OK && derived && barrier_ns > 0) {
        nx = n + 1;
        snprintf(barrier_label, sizeof barrier_label,
                 "one grid barrier, derived:\\n(median(barriers) -\\nmedian(coop_noop)) / %d",
                 (int)json_integer_value(json_object_get(derived, "barriers")));
        labels[n] = barrier_label;
        top[n] = barrier_ns;
        se_buf_printf(&med, "%zu\t%.17g\tderived.grid_barrier_ns\n", nx, barrier_ns);
        lo = barrier_ns < lo ? barrier_ns : lo;
    }
    script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set title ");
    gp_quote(&gp, f->title);
    se_buf_printf(&gp, "\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n", lo / 1e3 / 1.3,
                  hi / 1e3 * 1.6);
    log_tics(&gp, "y", lo / 1e3 / 1.3, hi / 1e3 * 1.6);
    se_buf_printf(&gp, "    set xrange [0.4:%zu.6]\n    set xtics (", nx);
    for (size_t k = 0; k < nx; k++)
        se_buf_printf(&gp, "%s\"%s\" %zu", k ? ", " : "", labels[k], k + 1);
    se_buf_add(&gp, ") nomirror\n    set bmargin 6\n    set ylabel \"device time (us, log scale)\"\n"
                    "    set grid ytics lc rgb \"#dddddd\"\n    unset key\n");
    for (size_t k = 0; k < nx; k++) {
        double m = k < n ? se_json_num(se_json_path(items[k], "scopes.device"), "median_ns")
                         : barrier_ns;
        char text[200];
        if (k < n)
            snprintf(text, sizeof text, "median %.3f us", m / 1e3);
        else
            snprintf(text, sizeof text, "%.3f us", m / 1e3);
        se_buf_printf(&gp, "    set label %zu \"%s\" at first %zu.0, first %.6g center offset 0,%s\n",
                      k + 1, text, k + 1, top[k] / 1e3, k < n ? "1.2" : "1.6");
    }
    se_buf_add(&gp, "    plot ");
    for (size_t k = 0; k < n; k++) {
        se_buf_printf(&gp, "%s\"data/fig5_controls.tsv\" index %zu using 1:($2/1000.0) with points "
                           "pt %d ps 0.8 lc rgb \"%s\" notitle",
                      k ? ", \\\n         " : "", k, pts[k], colors[k]);
    }
    se_buf_printf(&gp, ", \\\n         \"data/fig5_medians.tsv\" every ::0::%zu using ($1-0.4):"
                       "($2/1000.0):(0.8):(0) with vectors nohead lw 3 lc rgb \"black\" notitle",
                  n - 1);
    if (nx > n)
        se_buf_printf(&gp, ", \\\n         \"data/fig5_medians.tsv\" every ::%zu::%zu using 1:($2/1000.0) "
                           "with points pt 13 ps 2.5 lc rgb \"#a63603\" notitle", n, n);
    se_buf_add(&gp, "\n");
    script_end(&gp);
    const char *rels[] = {"data/fig5_controls.tsv", "data/fig5_medians.tsv"};
    se_buf *bufs[] = {&data, &med};
    return finish_with_data(c, f, &gp, rels, bufs, 2, st, err);
}

/* ---- driver ----------------------------------------------------------- */

static se_status make_dir(const char *dir, const char *rel, se_err *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return se_fail(err, SE_ERR_IO, "%s: cannot be created: %s", rel, strerror(errno));
    return SE_OK;
}

se_status se_plot_prepare(se_rundata *rd, const char *dir, se_figure figs[SE_NFIGURES],
                          se_err *err)
{
    static const struct {
        const char *name, *shows;
        se_status (*make)(plot_ctx *, se_figure *, se_err *);
    } defs[SE_NFIGURES] = {
        {"fig1_latency", "every device-time sample per shape and strategy (log scale), with medians",
         fig1_latency},
        {"fig2_speedup", "speedup over stream launches with its bootstrap 95% interval", fig2_speedup},
        {"fig3_bandwidth", "bandwidth as a fraction of the same-run copy, L2 warm and flushed",
         fig3_bandwidth},
        {"fig4_timelines", "task timelines of fusion and megakernel per SM, coloured by phase",
         fig4_timelines},
        {"fig5_controls", "launch and grid-barrier controls, every sample, with medians",
         fig5_controls},
    };
    memset(figs, 0, SE_NFIGURES * sizeof *figs);
    for (int i = 0; i < SE_NFIGURES; i++) {
        figs[i].name = defs[i].name;
        figs[i].shows = defs[i].shows;
        snprintf(figs[i].script, sizeof figs[i].script, "gnuplot/%s.gp", defs[i].name);
    }
    plot_ctx c = {rd, dir};
    se_status st = make_dir(dir, "data", err);
    if (st == SE_OK)
        st = make_dir(dir, "gnuplot", err);
    for (int i = 0; i < SE_NFIGURES && st == SE_OK; i++)
        st = defs[i].make(&c, &figs[i], err);
    return st;
}

void se_plot_free(se_figure figs[SE_NFIGURES])
{
    for (int i = 0; i < SE_NFIGURES; i++) {
        se_strlist_free(&figs[i].run_files);
        se_strlist_free(&figs[i].data_files);
    }
}

/* Runs argv (PATH search) in dir with LC_ALL=C and stdin from /dev/null,
 * collecting its stdout and stderr; *code is its exit status (127: not
 * found, 128+N: killed by signal N). */
static se_status run_tool(const char *dir, char *const argv[], se_buf *output, int *code,
                          se_err *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot create a pipe: %s", argv[0], strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return se_fail(err, SE_ERR_IO, "%s: cannot fork: %s", argv[0], strerror(errno));
    }
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        if (dir && chdir(dir) != 0) {
            dprintf(2, "cannot enter %s: %s\n", dir, strerror(errno));
            _exit(126);
        }
        setenv("LC_ALL", "C", 1);
        execvp(argv[0], argv);
        int e = errno;
        dprintf(2, "%s: %s\n", argv[0], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    close(fds[1]);
    char chunk[4096];
    for (;;) {
        ssize_t r = read(fds[0], chunk, sizeof chunk);
        if (r > 0)
            se_buf_addn(output, chunk, (size_t)r);
        else if (r == 0 || errno != EINTR)
            break;
    }
    close(fds[0]);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return se_fail(err, SE_ERR_IO, "%s: waiting for it failed: %s", argv[0],
                           strerror(errno));
    *code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    return SE_OK;
}

#define GNUPLOT_MISSING "gnuplot is not installed or not on PATH; install it (Debian/Ubuntu: " \
                        "apt-get install gnuplot-nox)"

se_status se_gnuplot_version(char *version, size_t size, se_err *err)
{
    char *argv[] = {"gnuplot", "--version", NULL};
    se_buf out = {0};
    int code = 0;
    se_status st = run_tool(NULL, argv, &out, &code, err);
    if (st == SE_OK && code == 127)
        st = se_fail(err, SE_ERR_IO, GNUPLOT_MISSING);
    else if (st == SE_OK && (code != 0 || strncmp(se_buf_str(&out), "gnuplot ", 8) != 0))
        st = se_fail(err, SE_ERR_IO, "`gnuplot --version` failed (exit %d): %.200s", code,
                     se_buf_str(&out));
    if (st == SE_OK)
        snprintf(version, size, "%.*s", (int)strcspn(se_buf_str(&out), "\r\n"), se_buf_str(&out));
    se_buf_free(&out);
    return st;
}

se_status se_plot_draw(const char *dir, const se_figure *f, FILE *out, se_err *err)
{
    char script[sizeof f->script];
    memcpy(script, f->script, sizeof script);
    char *argv[] = {"gnuplot", "-d", script, NULL};
    se_buf log = {0};
    int code = 0;
    se_status st = run_tool(dir, argv, &log, &code, err);
    const char *text = se_buf_str(&log);
    if (st == SE_OK && code == 127)
        st = se_fail(err, SE_ERR_IO, GNUPLOT_MISSING);
    else if (st == SE_OK && code != 0) {
        size_t len = strlen(text);
        const char *tail = len > 600 ? text + len - 600 : text;
        st = se_fail(err, SE_ERR_IO, "gnuplot failed on %s (exit %d): %s", f->script, code, tail);
    } else if (st == SE_OK && out && *text) {
        fprintf(out, "  gnuplot (%s) said:\n%s%s", f->script, text,
                text[strlen(text) - 1] == '\n' ? "" : "\n");
    }
    se_buf_free(&log);
    return st;
}
