/*
 * fig_distributions.c - Fig. 6: the distribution of every case's
 * device-time samples, one panel per shape, as empirical cumulative
 * distributions of each sample's distance from its case's median (see
 * plot.h). Fig. 1 shows where the cases lie against each other; this one
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

typedef struct fig6_item {
    const char *what, *launch;
} fig6_item;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The common axis over every case of the run, rounded out to 2%. */
static void axis_of(const se_rundata *rd, double *lo, double *hi)
{
    *lo = -2;
    *hi = 2;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(rd->summary, "cases"), i, e) {
        const json_t *d = se_json_path(e, "scopes.device");
        double m = se_json_num(d, "median_ns"), a = se_json_num(d, "min_ns"),
               b = se_json_num(d, "max_ns");
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

static se_status fig6_shape(plot_ctx *c, se_figure *f, size_t si, int ncols, double alo,
                            double ahi, int *block,
                            se_buf *data, se_buf *gp, fig6_item *legend, size_t *n_legend,
                            se_err *err)
{
    se_rundata *rd = c->rd;
    const se_shape *s = &rd->p.shapes[si];
    json_t *items[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_shape_items(rd, s, items);
    int blocks[SE_PLOT_MAX_ITEMS];
    size_t outside = 0, total = 0;
    se_status st = SE_OK;
    char id[64];
    se_rundata_shape_id(s, id, sizeof id);
    for (size_t k = 0; k < n && st == SE_OK; k++) {
        const char *what = se_json_str(items[k], "what", "?");
        const char *launch = se_json_str(items[k], "launch", "stream");
        const char *rel = se_json_str(items[k], "samples_file", "");
        double m = se_json_num(se_json_path(items[k], "scopes.device"), "median_ns");
        se_sample_set dev;
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = se_plot_device_samples(rd, rel, SE_NSCOPES, &dev, err);
        if (st != SE_OK)
            break;
        double *v = malloc(dev.n * sizeof *v);
        if (!v) {
            se_sample_set_free(&dev);
            return se_fail(err, SE_ERR_NOMEM, "figures: out of memory");
        }
        for (size_t j = 0; j < dev.n; j++)
            v[j] = dev.v[j].ns;
        qsort(v, dev.n, sizeof *v, cmp_double);
        if (*block)
            se_buf_add(data, "\n\n");
        se_buf_printf(data, "# block %d: shape %s, %s, %s launch, %zu samples from %s, median "
                            "%.17g ns (summary.json)\n", *block, id, what, launch, dev.n, rel, m);
        for (size_t j = 0; j < dev.n; j++) {
            double pct = m > 0 ? (v[j] / m - 1) * 100 : 0;
            outside += pct < alo || pct > ahi;
            /* A step up at each sample: from (j)/n to (j+1)/n. */
            se_buf_printf(data, "%.17g\t%.17g\t%.17g\n", pct, (double)j / (double)dev.n, v[j]);
            se_buf_printf(data, "%.17g\t%.17g\t%.17g\n", pct, (double)(j + 1) / (double)dev.n, v[j]);
        }
        total += dev.n;
        free(v);
        se_sample_set_free(&dev);
        blocks[k] = (*block)++;
        size_t l = 0;
        while (l < *n_legend && strcmp(legend[l].what, what) != 0)
            l++;
        if (l == *n_legend && l < SE_PLOT_MAX_ITEMS)
            legend[(*n_legend)++] = (fig6_item){what, launch};
    }
    if (st != SE_OK || n == 0)
        return st;
    char title[256];
    se_plot_shape_title(title, sizeof title, s, items[0]);
    se_buf_add(gp, "    set title ");
    se_plot_gp_quote(gp, title);
    se_buf_printf(gp, "\n    set xrange [%g:%g]\n    set yrange [0:1]\n    set xtics auto\n"
                      "    set ytics 0.25\n", alo, ahi);
    se_buf_add(gp, "    unset label\n");
    if (outside)
        se_buf_printf(gp, "    set label 1 \"%zu of %zu samples beyond the axis\" at graph 0.97, "
                          "graph 0.08 right front font \"" SE_PLOT_FONT ",11\"\n", outside, total);
    se_buf_add(gp, "    set xlabel \"distance from the case's median (%)\"\n");
    if ((int)si % ncols == 0)
        se_buf_add(gp, "    set ylabel \"fraction of samples at or below\"\n");
    else
        se_buf_add(gp, "    unset ylabel\n");
    se_buf_add(gp, "    plot ");
    for (size_t k = 0; k < n; k++) {
        const char *what = se_json_str(items[k], "what", "?");
        const char *launch = se_json_str(items[k], "launch", "stream");
        se_buf_printf(gp, "%s\"data/fig6_distributions.tsv\" index %d using 1:2 with lines lw 2 "
                          "dt %d lc rgb \"%s\" notitle",
                      k ? ", \\\n         " : "", blocks[k], strcmp(launch, "graph") == 0 ? 2 : 1,
                      se_plot_color_of(what));
    }
    se_buf_add(gp, "\n");
    return SE_OK;
}

se_status se_fig_distributions(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    size_t ns = rd->p.n_shapes;
    int ncols = ns + 1 < 4 ? (int)ns + 1 : 4;
    int nrows = (int)((ns + 1 + (size_t)ncols - 1) / (size_t)ncols);
    f->width = 560 * ncols;
    f->height = 120 + 440 * nrows;
    snprintf(f->title, sizeof f->title,
             "Fig. 6: how each case's device-time samples spread around its median (L2 warm), "
             "cumulative share of samples; run %s", rd->run_id);
    se_buf data = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig6_distributions.tsv", rd,
                        "every sample of scope device, sorted, as a distance from the case's median");
    se_buf_add(&data, "# columns: percent from the median ((ns / median - 1) * 100), cumulative "
                      "fraction of samples, ns\n# two rows per sample (the step up), one block per "
                      "(shape, item)\n");
    se_plot_script_begin(&gp, f, rd);
    se_buf_printf(&gp, "    set multiplot layout %d,%d title ", nrows, ncols);
    se_plot_gp_quote(&gp, f->title);
    se_buf_add(&gp, " font \"" SE_PLOT_FONT ",18\"\n    set grid xtics ytics lc rgb \"#dddddd\"\n"
                    "    unset key\n");
    se_status st = se_plot_add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, "summary.json", err);
    fig6_item legend[SE_PLOT_MAX_ITEMS];
    size_t n_legend = 0;
    int block = 0;
    double alo, ahi;
    axis_of(rd, &alo, &ahi);
    for (size_t si = 0; si < ns && st == SE_OK; si++)
        st = fig6_shape(c, f, si, ncols, alo, ahi, &block, &data, &gp, legend, &n_legend, err);
    se_buf_add(&gp, "    unset title\n    unset border\n    unset tics\n    unset grid\n"
                    "    unset label\n    unset xlabel\n    unset ylabel\n    set xrange [0:1]\n"
                    "    set yrange [0:1]\n"
                    "    set lmargin 2\n    set rmargin 0\n    set key at graph 0, graph 0.5 left center Left reverse samplen 2 spacing 1.4 font \"" SE_PLOT_FONT ",14\"\n"
                    "    plot ");
    for (size_t l = 0; l < n_legend; l++) {
        char label[160];
        se_plot_legend_of(label, sizeof label, legend[l].what, legend[l].launch);
        se_buf_printf(&gp, "%sNaN with lines lw 2 dt %d lc rgb \"%s\" title ",
                      l ? ", \\\n         " : "", strcmp(legend[l].launch, "graph") == 0 ? 2 : 1,
                      se_plot_color_of(legend[l].what));
        se_plot_gp_quote(&gp, label);
    }
    se_buf_add(&gp, "\n");
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
