/*
 * fig_bandwidth.c - Fig. 3: per shape and strategy, bandwidth as a fraction
 * of the same-run copy, L2 warm and flushed, points with 95% intervals on a
 * linear axis (see plot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

/* The fraction of copy of one (shape, item, scope) and its interval: from
 * the two medians' 95% intervals, copy low / strategy high .. copy high /
 * strategy low (conservative). 0 if the run has none. */
/* Scope sc of the case of `what` on s, or NULL. */
static const se_scope_view *scope_of(const se_rundata *rd, const se_shape *s, const char *what,
                                     se_scope sc)
{
    const se_case_view *c = se_plot_case_of(rd, s, what);
    return c && c->scope[sc].present ? &c->scope[sc] : NULL;
}

static int fraction_of(const se_rundata *rd, const se_shape *s, const char *what, se_scope sc,
                       double v[3])
{
    static const se_scope_view none;
    const se_scope_view *x = scope_of(rd, s, what, sc), *cp = scope_of(rd, s, "copy", sc);
    const se_scope_view *xs = x ? x : &none, *cs = cp ? cp : &none;
    double fr = xs->fraction_of_copy;
    double xlo = xs->ci95_ns[0], xhi = xs->ci95_ns[1];
    double clo = cs->ci95_ns[0], chi = cs->ci95_ns[1];
    if (!x || !(fr > 0))
        return 0;
    v[0] = fr;
    v[1] = v[2] = fr;
    if (xlo > 0 && xhi > 0 && clo > 0 && chi > 0) {
        v[1] = clo / xhi;
        v[2] = chi / xlo;
    }
    return 1;
}

/* The empty kernel's median device time (control.empty_stream), or 0. */
static double empty_launch_ns(const se_rundata *rd)
{
    const se_case_view *e = se_views_control(se_rundata_views(rd), "empty_stream");
    return e ? e->scope[SE_SCOPE_DEVICE].median_ns : 0;
}

/* A launch-bound shape: its copy takes less than twice an empty kernel
 * launch, so at least half of the copy's time is the launch, and a
 * fraction of copy compares launch costs, not bandwidths (1x1 moves 8
 * bytes). Such a shape gets no bandwidth in Fig. 3. */
int se_plot_launch_bound(const se_rundata *rd, const se_shape *s)
{
    double empty = empty_launch_ns(rd);
    const se_case_view *cp = se_plot_case_of(rd, s, "copy");
    double copy = cp ? cp->scope[SE_SCOPE_DEVICE].median_ns : 0;
    return empty > 0 && copy > 0 && copy < 2 * empty;
}

se_status se_fig_bandwidth(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const se_case_view *strat[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_strategies_of(rd, 0, strat);
    static const char *const scopes[2] = {"device", "device_cold"};
    static const se_scope scope_ids[2] = {SE_SCOPE_DEVICE, SE_SCOPE_DEVICE_COLD};
    static const char *const scope_what[2] = {"L2 warm (inputs left in L2 by the previous instance)",
                                              "L2 flushed before every instance"};
    f->width = 1800;
    f->height = 1400;
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    snprintf(f->title, sizeof f->title,
             "Fig. 3: achieved bandwidth over a plain copy of the same bytes in the same run "
             "(1 = copy speed), 95%% intervals; %s", run_label);
    if (n == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted, "the run has no strategy cases");
        return SE_OK;
    }
    se_buf data = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig3_bandwidth.tsv", rd,
                "fraction_of_copy of scopes device and device_cold, from " SE_SUMMARY_JSON);
    se_buf_add(&data, "# columns: x (shape's place, offset per strategy), fraction_of_copy "
                      "(median(copy) / median(strategy)), low, high (copy's median interval low / "
                      "the strategy's high .. high / low), gbps, median_ns, shape\n"
                      "# one block per (scope, strategy)\n");
    double hi = 1;
    int block = 0;
    int blocks[2][SE_PLOT_MAX_ITEMS];
    for (int sc = 0; sc < 2; sc++)
        for (size_t k = 0; k < n; k++) {
            const char *what = se_plot_str(strat[k]->what, "?");
            se_buf_printf(&data, "%s# block %d: %s, %s\n", block ? "\n\n" : "", block, scopes[sc],
                          what);
            blocks[sc][k] = block++;
            for (size_t i = 0; i < rd->p.n_shapes; i++) {
                double v[3];
                if (se_plot_launch_bound(rd, &rd->p.shapes[i]) ||
                    !fraction_of(rd, &rd->p.shapes[i], what, scope_ids[sc], v))
                    continue;
                const se_scope_view *s = scope_of(rd, &rd->p.shapes[i], what, scope_ids[sc]);
                char id[64];
                se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
                se_buf_printf(&data, "%.4f\t%.17g\t%.17g\t%.17g\t%.17g\t%.17g\t%s\n",
                              (double)(i + 1) + se_plot_offset_of(k, n), v[0], v[1], v[2],
                              s->gbps, s->median_ns, id);
                hi = v[2] > hi ? v[2] : hi;
            }
        }
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot title ");
    char title[sizeof f->title + 320];
    size_t nt = (size_t)snprintf(title, sizeof title, "%s", f->title);
    for (size_t i = 0; i < rd->p.n_shapes && nt < sizeof title; i++)
        if (se_plot_launch_bound(rd, &rd->p.shapes[i])) {
            snprintf(title + nt, sizeof title - nt, "\n\"launch-bound\": the copy takes less than "
                     "twice an empty kernel launch (%.2f us), so a fraction of copy would compare "
                     "launch costs, not bandwidths: no points", empty_launch_ns(rd) / 1e3);
            break;
        }
    se_plot_gp_title(&gp, title, f->width, 16);
    se_buf_printf(&gp, " font \"" SE_PLOT_FONT ",16\"\n    set yrange [0:%.4g]\n"
                       "    set ytics 0.1\n    set mytics 2\n", ceil(hi * 1.05 * 10) / 10);
    se_plot_shape_axis(&gp, rd);
    /* What a launch-bound shape's empty slot means, written in it. */
    int n_bound = 0;
    for (size_t i = 0; i < rd->p.n_shapes; i++)
        if (se_plot_launch_bound(rd, &rd->p.shapes[i]))
            se_buf_printf(&gp, "    set label %d \"launch-\\nbound\" at %zu, graph 0.5 "
                               "center font \"" SE_PLOT_FONT ",12\" tc rgb \"#707070\"\n",
                          ++n_bound, i + 1);
    se_buf_add(&gp, "    set ylabel \"fraction of copy bandwidth (linear)\"\n"
                    "    set grid ytics lc rgb \"#e0e0e0\"\n"
                    "    set lmargin at screen 0.06\n    set rmargin at screen 0.98\n");
    for (int sc = 0; sc < 2; sc++) {
        se_buf_add(&gp, "    set title ");
        se_plot_gp_quote(&gp, scope_what[sc]);
        se_buf_add(&gp, " font \"" SE_PLOT_FONT ",15\"\n");
        /* Two panels one above the other, the legend under both. */
        se_buf_printf(&gp, "    set tmargin at screen %s\n    set bmargin at screen %s\n",
                      sc == 0 ? "0.91" : "0.505", sc == 0 ? "0.605" : "0.185");
        if (sc == 0)
            se_buf_add(&gp, "    unset key\n    unset xlabel\n");
        else
            se_buf_add(&gp, "    set xlabel \"shape (rows x columns, fp32)\"\n"
                            "    set key at screen 0.06, screen 0.085 left top horizontal maxrows 3 "
                            "Left reverse samplen 1 spacing 1.3 width 2\n");
        se_buf_add(&gp, "    plot 1 with lines dt 2 lw 2 lc rgb \"black\" title \"copy of the same "
                        "bytes, same run (= 1)\"");
        for (size_t k = 0; k < n; k++) {
            const char *what = se_plot_str(strat[k]->what, "?");
            const char *launch = se_plot_str(strat[k]->launch, "stream");
            char label[160];
            se_plot_legend_of(se_rundata_table(rd), label, sizeof label, what, launch);
            se_buf_printf(&gp, ", \\\n         \"data/fig3_bandwidth.tsv\" index %d using 1:2:3:4 with "
                               "yerrorbars pt %d ps 1.1 lw 1.5 lc rgb \"%s\" title ", blocks[sc][k],
                          se_plot_point_of(se_rundata_table(rd), what, launch), se_plot_color_of(se_rundata_table(rd), what));
            se_plot_gp_quote(&gp, label);
        }
        se_buf_add(&gp, "\n");
    }
    se_plot_script_end(&gp);
    return se_plot_finish_from_summary(c, f, &gp, &data, "data/fig3_bandwidth.tsv", err);
}
