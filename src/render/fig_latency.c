/*
 * fig_latency.c - Fig. 1: every device-time sample of every case, one panel
 * per shape (log scale), with the medians from summary.json (see plot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

/* ---- fig1: every device-time sample per shape and strategy ------------ */

typedef struct fig1_item {
    const char *what, *launch;
    int block;
} fig1_item;

/* cuDNN (a reference library) may be orders of magnitude off the tiled
 * strategies; it does not set the panels' common scale. */
static int is_reference(const se_rundata *rd, const char *what)
{
    const se_strategy_info *s = se_protocol_strategy_named(&rd->p, what);
    return s && s->role == SE_ROLE_REFERENCE;
}

/* The smallest and largest device sample (summary.json's min and max) of
 * a shape's items that are not references; 0 if none. */
static int shape_range(const se_rundata *rd, const se_shape *s, double *lo, double *hi)
{
    const se_case_view *items[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_shape_items(rd, s, items);
    *lo = INFINITY;
    *hi = 0;
    for (size_t k = 0; k < n; k++) {
        if (is_reference(rd, se_plot_str(items[k]->what, "")))
            continue;
        const se_scope_view *d = &items[k]->scope[SE_SCOPE_DEVICE];
        double a = d->min_ns, b = d->max_ns;
        if (a > 0 && a < *lo)
            *lo = a;
        if (b > *hi)
            *hi = b;
    }
    return *hi > 0 && *lo < INFINITY;
}

static se_status fig1_shape(plot_ctx *c, se_figure *f, size_t si, int ncols, double decades,
                            int *block, se_buf *data, se_buf *med, se_buf *gp, fig1_item *legend,
                            size_t *n_legend, se_err *err)
{
    se_rundata *rd = c->rd;
    const se_shape *s = &rd->p.shapes[si];
    const se_case_view *items[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_shape_items(rd, s, items);
    fig1_item drawn[SE_PLOT_MAX_ITEMS];
    double lo = INFINITY, hi = 0;
    se_status st = SE_OK;
    char id[64];
    se_rundata_shape_id(s, id, sizeof id);
    if (si)
        se_buf_add(med, "\n\n");
    se_buf_printf(med, "# block %zu: shape %s\n", si, id);
    for (size_t k = 0; k < n && st == SE_OK; k++) {
        const char *what = se_plot_str(items[k]->what, "?");
        const char *launch = se_plot_str(items[k]->launch, "stream");
        const char *rel = se_plot_str(items[k]->samples_file, "");
        se_sample_set dev;
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = se_plot_device_samples(rd, rel, SE_NSCOPES, &dev, err);
        if (st != SE_OK)
            break;
        if (*block)
            se_buf_add(data, "\n\n");
        se_buf_printf(data, "# block %d: shape %s, %s, %s launch, %zu samples from %s\n", *block,
                      id, what, launch, dev.n, rel);
        for (size_t j = 0; j < dev.n; j++) {
            const se_sample *x = &dev.v[j];
            se_buf_printf(data, "%.4f\t%.17g\t%d\t%" PRId64 "\t%.17g\t%d\n",
                          (double)(k + 1) + se_plot_jitter(x->round), x->ns, x->round, x->seq, x->sm_mhz,
                          x->throttled);
            lo = x->ns < lo ? x->ns : lo;
            hi = x->ns > hi ? x->ns : hi;
        }
        se_sample_set_free(&dev);
        double m = items[k]->scope[SE_SCOPE_DEVICE].median_ns;
        se_buf_printf(med, "%zu\t%.17g\t%s\n", k + 1, m, what);
        drawn[k] = (fig1_item){what, launch, (*block)++};
        size_t l = 0;
        while (l < *n_legend && strcmp(legend[l].what, what) != 0)
            l++;
        if (l == *n_legend && l < SE_PLOT_MAX_ITEMS)
            legend[(*n_legend)++] = drawn[k];
    }
    if (st != SE_OK || n == 0)
        return st;
    char title[256];
    se_plot_shape_title(title, sizeof title, s, items[0]);
    se_buf_add(gp, "    set title ");
    se_plot_gp_quote(gp, title);
    /* Every panel spans the same number of decades (the widest panel's,
     * references aside), centred on its own samples: equal heights are
     * equal ratios in every panel. */
    double plo, phi;
    if (!shape_range(rd, s, &plo, &phi)) {
        plo = lo;
        phi = hi;
    }
    double mid = sqrt(plo * phi) / 1e3, half = pow(10.0, decades / 2);
    double wlo = mid / half, whi = mid * half;
    se_buf_printf(gp, "\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n", wlo, whi);
    se_plot_log_tics(gp, "y", wlo, whi);
    se_buf_add(gp, "    unset label\n");
    for (size_t k = 0; k < n; k++) {
        double m = items[k]->scope[SE_SCOPE_DEVICE].median_ns / 1e3;
        if (m > whi || m < wlo)
            se_buf_printf(gp, "    set label %zu \"%s %s:\\nmedian %.4g us\" at first %zu, "
                              "graph %s center front font \"" SE_PLOT_FONT ",11\" tc rgb \"%s\"\n",
                          k + 1, drawn[k].what, m > whi ? "above" : "below", m, k + 1,
                          m > whi ? "0.92" : "0.08", se_plot_color_of(se_rundata_table(rd), drawn[k].what));
    }
    se_buf_printf(gp, "    set xrange [0.4:%zu.6]\n    set xtics (", n);
    for (size_t k = 0; k < n; k++) {
        se_buf_add(gp, k ? ", " : "");
        se_plot_gp_quote(gp, drawn[k].what);
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
                          "pt %d ps 0.8 lc rgb \"%s\" notitle",
                      k ? ", \\\n         " : "", drawn[k].block,
                      se_plot_point_of(se_rundata_table(rd), drawn[k].what, drawn[k].launch), se_plot_color_of(se_rundata_table(rd), drawn[k].what));
    se_buf_printf(gp, ", \\\n         \"data/fig1_medians.tsv\" index %zu using ($1-0.4):($2/1000.0):"
                      "(0.8):(0) with vectors nohead lw 3 lc rgb \"black\" notitle\n", si);
    return SE_OK;
}

se_status se_fig_latency(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    size_t ns = rd->p.n_shapes;
    int ncols = ns + 1 < 4 ? (int)ns + 1 : 4;
    int nrows = (int)((ns + 1 + (size_t)ncols - 1) / (size_t)ncols);
    f->width = 560 * ncols;
    f->height = 120 + 480 * nrows;
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    snprintf(f->title, sizeof f->title,
             "Fig. 1: device time per instance, every sample (L2 warm), bar = median; every panel "
             "spans the same ratio; %s", run_label);
    se_buf data = {0}, med = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig1_latency.tsv", rd,
                "every sample of scope device (CUDA events around one instance, L2 warm)");
    se_buf_add(&data, "# columns: x (item's place in its panel, spread by round), ns (device time "
                      "per instance: the samples file's value), round, seq, sm_mhz, throttled\n"
                      "# one block per (shape, item), blocks separated by two blank lines "
                      "(gnuplot: index)\n");
    se_plot_data_header(&med, "data/fig1_medians.tsv", rd, "median of scope device from " SE_SUMMARY_JSON);
    se_buf_add(&med, "# columns: x (item's place in its panel), median_ns, item\n"
                     "# one block per shape\n");
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot layout ");
    se_buf_printf(&gp, "%d,%d title ", nrows, ncols);
    se_plot_gp_title(&gp, f->title, f->width, 18);
    se_buf_add(&gp, " font \"" SE_PLOT_FONT ",18\"\n    set grid ytics lc rgb \"#dddddd\"\n    unset key\n");
    se_status st = se_plot_add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, SE_SUMMARY_JSON, err);
    fig1_item legend[SE_PLOT_MAX_ITEMS];
    size_t n_legend = 0;
    int block = 0;
    /* The common span: the widest panel's, references aside, plus a margin. */
    double decades = 0.5;
    for (size_t si = 0; si < ns; si++) {
        double lo, hi;
        if (shape_range(rd, &rd->p.shapes[si], &lo, &hi) && log10(hi / lo) > decades)
            decades = log10(hi / lo);
    }
    decades += 2 * log10(1.25);
    for (size_t si = 0; si < ns && st == SE_OK; si++)
        st = fig1_shape(c, f, si, ncols, decades, &block, &data, &med, &gp, legend, &n_legend,
                        err);
    se_buf_add(&gp, "    unset title\n    unset logscale y\n    unset border\n    unset tics\n"
                    "    unset grid\n    unset ylabel\n    set xrange [0:1]\n    set yrange [0:1]\n"
                    "    set lmargin 2\n    set rmargin 0\n    set key at graph 0, graph 0.5 left center Left reverse samplen 1 spacing 1.4 font \"" SE_PLOT_FONT ",14\"\n"
                    "    plot ");
    for (size_t l = 0; l < n_legend; l++) {
        char label[160];
        se_plot_legend_of(se_rundata_table(rd), label, sizeof label, legend[l].what, legend[l].launch);
        se_buf_printf(&gp, "%sNaN with points pt %d ps 1.6 lc rgb \"%s\" title ",
                      l ? ", \\\n         " : "", se_plot_point_of(se_rundata_table(rd), legend[l].what, legend[l].launch),
                      se_plot_color_of(se_rundata_table(rd), legend[l].what));
        se_plot_gp_quote(&gp, label);
    }
    se_buf_printf(&gp, "%sNaN with lines lw 3 lc rgb \"black\" title \"median (" SE_SUMMARY_JSON ")\"\n",
                  n_legend ? ", \\\n         " : "");
    se_plot_script_end(&gp);
    const char *rels[] = {"data/fig1_latency.tsv", "data/fig1_medians.tsv"};
    se_buf *bufs[] = {&data, &med};
    return se_plot_finish_with_data(c, f, &gp, rels, bufs, 2, st, err);
}
