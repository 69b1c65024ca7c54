/*
 * fig_controls.c - Fig. 5: the launch and grid-barrier controls, every
 * sample, with medians (see plot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

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

se_status se_fig_controls(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    f->width = 1600;
    f->height = 1000;
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    snprintf(f->title, sizeof f->title,
             "Fig. 5: launch and barrier controls, every sample of scope device, bar = median; "
             "%s", run_label);
    const se_case_view *items[6];
    const char *labels[6], *colors[6];
    int pts[6];
    double top[6];
    char copy_label[128] = "", barrier_label[160] = "", barriers_label[96];
    snprintf(barriers_label, sizeof barriers_label, "%d grid barriers\\n(one cooperative launch)",
             rd->p.barriers);
    size_t n = 0;
    for (size_t i = 0; i < sizeof CONTROLS / sizeof CONTROLS[0]; i++) {
        const se_case_view *e = se_views_case(se_rundata_views(rd), CONTROLS[i].name);
        if (e) {
            labels[n] = CONTROLS[i].label ? CONTROLS[i].label : barriers_label;
            colors[n] = CONTROLS[i].color;
            pts[n] = CONTROLS[i].pt;
            items[n++] = e;
        }
    }
    const se_shape *small = smallest_shape(rd);
    const se_case_view *copy = small ? se_plot_case_of(rd, small, "copy") : NULL;
    if (copy) {
        char id[64];
        se_rundata_shape_id(small, id, sizeof id);
        snprintf(copy_label, sizeof copy_label, "copy %s\\n(cudaMemcpyAsync)", id);
        labels[n] = copy_label;
        colors[n] = se_plot_color_of(se_rundata_table(rd), "copy");
        pts[n] = se_plot_point_of(se_rundata_table(rd), "copy", "stream");
        items[n++] = copy;
    }
    if (n == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted, "the run has no controls");
        return SE_OK;
    }
    const se_grid_barrier_view *derived = &se_rundata_views(rd)->grid_barrier;
    double barrier_ns = derived->value_ns;
    se_buf data = {0}, med = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig5_controls.tsv", rd, "every sample of scope device of the controls");
    se_buf_add(&data, "# columns: x (item's place, spread by round), ns, round, seq, sm_mhz, "
                      "throttled\n# one block per item\n");
    se_plot_data_header(&med, "data/fig5_medians.tsv", rd,
                "medians of scope device from " SE_SUMMARY_JSON ", and the derived cost of one grid barrier");
    se_buf_add(&med, "# columns: x, ns, item\n");
    se_status st = se_plot_add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, SE_SUMMARY_JSON, err);
    double lo = INFINITY, hi = 0;
    for (size_t k = 0; k < n && st == SE_OK; k++) {
        const char *rel = se_plot_str(items[k]->samples_file, "");
        int n_scopes = items[k]->n_scopes > 1 ? SE_NSCOPES : 1;
        se_sample_set dev;
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = se_plot_device_samples(rd, rel, n_scopes, &dev, err);
        if (st != SE_OK)
            break;
        se_buf_printf(&data, "%s# block %zu: %s, %zu samples from %s\n", k ? "\n\n" : "", k,
                      se_plot_str(items[k]->id, "?"), dev.n, rel);
        top[k] = 0;
        for (size_t j = 0; j < dev.n; j++) {
            const se_sample *x = &dev.v[j];
            se_buf_printf(&data, "%.4f\t%.17g\t%d\t%" PRId64 "\t%.17g\t%d\n",
                          (double)(k + 1) + se_plot_jitter(x->round), x->ns, x->round, x->seq, x->sm_mhz,
                          x->throttled);
            lo = x->ns < lo ? x->ns : lo;
            hi = x->ns > hi ? x->ns : hi;
            top[k] = x->ns > top[k] ? x->ns : top[k];
        }
        se_sample_set_free(&dev);
        se_buf_printf(&med, "%zu\t%.17g\t%s\n", k + 1,
                      items[k]->scope[SE_SCOPE_DEVICE].median_ns, se_plot_str(items[k]->id, "?"));
    }
    size_t nx = n;
    if (st == SE_OK && derived->present && barrier_ns > 0) {
        nx = n + 1;
        snprintf(barrier_label, sizeof barrier_label,
                 "one grid barrier, derived:\\n(median(barriers) -\\nmedian(coop_noop)) / %d",
                 (int)derived->barriers);
        labels[n] = barrier_label;
        top[n] = barrier_ns;
        se_buf_printf(&med, "%zu\t%.17g\tderived.grid_barrier_ns\n", nx, barrier_ns);
        lo = barrier_ns < lo ? barrier_ns : lo;
    }
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set title ");
    se_plot_gp_title(&gp, f->title, f->width, 14);
    se_buf_printf(&gp, "\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n", lo / 1e3 / 1.3,
                  hi / 1e3 * 1.6);
    se_plot_log_tics(&gp, "y", lo / 1e3 / 1.3, hi / 1e3 * 1.6);
    se_buf_printf(&gp, "    set xrange [0.4:%zu.6]\n    set xtics (", nx);
    for (size_t k = 0; k < nx; k++)
        se_buf_printf(&gp, "%s\"%s\" %zu", k ? ", " : "", labels[k], k + 1);
    se_buf_add(&gp, ") nomirror\n    set bmargin 6\n    set ylabel \"device time (us, log scale)\"\n"
                    "    set grid ytics lc rgb \"#dddddd\"\n    unset key\n");
    for (size_t k = 0; k < nx; k++) {
        double m = k < n ? items[k]->scope[SE_SCOPE_DEVICE].median_ns : barrier_ns;
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
    se_plot_script_end(&gp);
    const char *rels[] = {"data/fig5_controls.tsv", "data/fig5_medians.tsv"};
    se_buf *bufs[] = {&data, &med};
    return se_plot_finish_with_data(c, f, &gp, rels, bufs, 2, st, err);
}
