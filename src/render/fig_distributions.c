/*
 * fig_distributions.c - Fig. 6: the distribution of every case's
 * device-time samples, one panel per shape, a row per case: its quantiles
 * (summary.json's p5, p25, p75, p95, min and max) as a distance from its
 * median, a box and whisker each (see plot.h). Fig. 1 shows where the cases lie against each other; this one
 * shows the shape of each case's spread (tails, steps, outliers) on one
 * axis shared by every panel.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

/* The axis: percent from the median, the same in every panel, from the
 * run's smallest to its largest distance (summary.json's min and max),
 * within these bounds; samples beyond them are counted in the panel's
 * note. */
#define AXIS_MIN_PCT -50.0
#define AXIS_MAX_PCT 100.0

/* The common axis over every case of the run, rounded out to 2%. */
static void axis_of(const se_rundata *rd, double *lo, double *hi)
{
    *lo = -2;
    *hi = 2;
    const se_run_views *v = se_rundata_views(rd);
    for (size_t i = 0; i < v->n_cases; i++) {
        const se_scope_view *d = &v->cases[i].scope[SE_SCOPE_DEVICE];
        double m = d->median_ns, a = d->min_ns, b = d->max_ns;
        if (!(m > 0 && a > 0 && b > 0))
            continue;
        *lo = (a / m - 1) * 100 < *lo ? (a / m - 1) * 100 : *lo;
        *hi = (b / m - 1) * 100 > *hi ? (b / m - 1) * 100 : *hi;
    }
    *lo = floor(*lo / 2 - 0.25) * 2;
    *hi = ceil(*hi / 2 + 0.25) * 2;
    *lo = *lo < AXIS_MIN_PCT ? AXIS_MIN_PCT : *lo;
    *hi = *hi > AXIS_MAX_PCT ? AXIS_MAX_PCT : *hi;
}

/* Percent from the median m of one of summary.json's quantiles. */
static double pct_of(double q, double m)
{
    return (q / m - 1) * 100;
}

/* One panel: a row per case, its p25..p75 as a box, p5..p95 as a
 * whisker, min and max as points, the median at 0. */
static se_status fig6_shape(se_figure *f, const se_rundata *rd, size_t si, double alo,
                            double ahi, int *block, se_buf *data, se_buf *gp, se_err *err)
{
    const se_shape *s = &rd->p.shapes[si];
    const se_case_view *items[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_shape_items(rd, s, items);
    if (n == 0)
        return SE_OK;
    char id[64];
    se_rundata_shape_id(s, id, sizeof id);
    size_t outside = 0;
    int b0 = *block;
    for (size_t k = 0; k < n; k++) {
        const char *what = se_plot_str(items[k]->what, "?");
        const se_scope_view *d = &items[k]->scope[SE_SCOPE_DEVICE];
        double m = d->median_ns;
        se_buf_printf(data, "%s# block %d: shape %s, %s, %s launch, n %d, median %.17g ns\n",
                      *block ? "\n\n" : "", *block, id, what,
                      se_plot_str(items[k]->launch, "stream"), (int)d->n, m);
        (*block)++;
        if (!(m > 0))
            continue;
        double lo = pct_of(d->min_ns, m), hi = pct_of(d->max_ns, m);
        outside += (lo < alo) + (hi > ahi);
        se_buf_printf(data, "%zu\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\n", k + 1,
                      pct_of(d->p5_ns, m), pct_of(d->p25_ns, m), pct_of(d->p75_ns, m),
                      pct_of(d->p95_ns, m), lo, hi);
    }
    char title[256];
    se_plot_shape_title(title, sizeof title, s, items[0]);
    se_buf_add(gp, "    set title ");
    se_plot_gp_quote(gp, title);
    se_buf_printf(gp, " font \"" SE_PLOT_FONT ",15\"\n    set xrange [%g:%g]\n"
                      "    set yrange [%zu.6:0.4]\n    set xtics auto font \"" SE_PLOT_FONT ",13\"\n"
                      "    set ytics (", alo, ahi, n);
    for (size_t k = 0; k < n; k++) {
        se_buf_add(gp, k ? ", " : "");
        se_plot_gp_quote(gp, se_plot_str(items[k]->what, "?"));
        se_buf_printf(gp, " %zu", k + 1);
    }
    se_buf_add(gp, ") font \"" SE_PLOT_FONT ",12\" scale 0\n    unset label\n");
    if (outside)
        se_buf_printf(gp, "    set label 1 \"%zu min or max beyond the axis\" at graph 0.97, "
                          "graph 0.05 right front font \"" SE_PLOT_FONT ",11\"\n", outside);
    se_buf_add(gp, "    set xlabel \"distance from the case's median (%)\" font \"" SE_PLOT_FONT ",13\"\n"
                   "    plot 0 with lines notitle lc rgb \"black\" dt 2");
    for (size_t k = 0; k < n; k++) {
        const char *col = se_plot_color_of(se_rundata_table(rd), se_plot_str(items[k]->what, "?"));
        int b = b0 + (int)k;
        se_buf_printf(gp, ", \\\n         \"data/fig6_distributions.tsv\" index %d using "
                          "(($3+$4)/2):1:3:4:($1-0.3):($1+0.3) with boxxyerror fs solid 0.5 "
                          "lc rgb \"%s\" notitle"
                          ", \\\n         \"\" index %d using (($2+$5)/2):1:2:5 with xerrorbars "
                          "pt -1 lw 1.5 lc rgb \"%s\" notitle"
                          ", \\\n         \"\" index %d using 6:1 with points pt 1 ps 0.8 "
                          "lc rgb \"%s\" notitle, \"\" index %d using 7:1 with points pt 1 ps 0.8 "
                          "lc rgb \"%s\" notitle",
                      b, col, b, col, b, col, b, col);
    }
    se_buf_add(gp, "\n");
    (void)f;
    (void)err;
    return SE_OK;
}

se_status se_fig_distributions(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    size_t ns = rd->p.n_shapes;
    int ncols = ns < 4 ? (int)(ns ? ns : 1) : 4;
    int nrows = (int)((ns + (size_t)ncols - 1) / (size_t)ncols);
    f->width = 560 * ncols;
    f->height = 150 + 440 * (nrows ? nrows : 1);
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    snprintf(f->title, sizeof f->title,
             "Fig. 6: how each case's device-time samples spread around its median (L2 warm): box "
             "25th to 75th percentile, whisker 5th to 95th, + min and max; %s", run_label);
    se_buf data = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig6_distributions.tsv", rd,
                        "quantiles of scope device from " SE_SUMMARY_JSON ", as a distance from the "
                        "case's median");
    se_buf_add(&data, "# columns: row, then percent from the median ((ns / median - 1) * 100) of "
                      "p5, p25, p75, p95, min, max\n# one block per (shape, item)\n");
    se_plot_script_begin(&gp, f, rd);
    se_buf_printf(&gp, "    set multiplot layout %d,%d title ", nrows ? nrows : 1, ncols);
    se_plot_gp_title(&gp, f->title, f->width, 18);
    se_buf_add(&gp, " font \"" SE_PLOT_FONT ",18\"\n    set grid xtics lc rgb \"#dddddd\"\n"
                    "    unset key\n    set lmargin 17\n    set rmargin 2\n");
    se_status st = se_plot_add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, SE_SUMMARY_JSON, err);
    int block = 0;
    double alo, ahi;
    axis_of(rd, &alo, &ahi);
    for (size_t si = 0; si < ns && st == SE_OK; si++)
        st = fig6_shape(f, rd, si, alo, ahi, &block, &data, &gp, err);
    se_plot_script_end(&gp);
    if (st == SE_OK && block == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted, "the run has no timed cases");
        se_buf_free(&data);
        se_buf_free(&gp);
        return SE_OK;
    }
    const char *rels[] = {"data/fig6_distributions.tsv"};
    se_buf *bufs[] = {&data};
    return se_plot_finish_with_data(c, f, &gp, rels, bufs, 1, st, err);
}
