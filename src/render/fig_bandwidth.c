/*
 * fig_bandwidth.c - Fig. 3: per shape and strategy, bandwidth as a fraction
 * of the same-run copy, L2 warm and flushed (see plot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

se_status se_fig_bandwidth(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const json_t *strat[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_strategies_of(rd, 0, strat);
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
    se_plot_data_header(&data, "data/fig3_bandwidth.tsv", rd,
                "fraction_of_copy and gbps of scopes device and device_cold, from summary.json");
    se_buf_add(&data, "# columns: x (shape's place, offset per strategy), fraction_of_copy, gbps, "
                      "median_ns, shape\n# one block per (scope, strategy)\n");
    double lo = 1, hi = 1;
    int block = 0;
    int blocks[2][SE_PLOT_MAX_ITEMS];
    for (int sc = 0; sc < 2; sc++)
        for (size_t k = 0; k < n; k++) {
            const char *what = se_json_str(strat[k], "what", "?");
            se_buf_printf(&data, "%s# block %d: %s, %s\n", block ? "\n\n" : "", block, scopes[sc],
                          what);
            blocks[sc][k] = block++;
            for (size_t i = 0; i < rd->p.n_shapes; i++) {
                char path[64];
                snprintf(path, sizeof path, "scopes.%s", scopes[sc]);
                const json_t *s = se_json_path(se_plot_case_of(rd, &rd->p.shapes[i], what), path);
                double fr = se_json_num(s, "fraction_of_copy");
                if (!s || !(fr > 0))
                    continue;
                char id[64];
                se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
                se_buf_printf(&data, "%.4f\t%.17g\t%.17g\t%.17g\t%s\n",
                              (double)(i + 1) + se_plot_offset_of(k, n), fr, se_json_num(s, "gbps"),
                              se_json_num(s, "median_ns"), id);
                lo = fr < lo ? fr : lo;
                hi = fr > hi ? fr : hi;
            }
        }
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot layout 2,1 title ");
    se_plot_gp_quote(&gp, f->title);
    se_buf_printf(&gp, " font \"" SE_PLOT_FONT ",16\"\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n",
                  lo / 1.5, hi * 1.5);
    se_plot_log_tics(&gp, "y", lo / 1.5, hi * 1.5);
    se_plot_shape_axis(&gp, rd);
    se_buf_printf(&gp, "    set ylabel \"fraction of copy bandwidth (log scale)\"\n"
                       "    set grid ytics lc rgb \"#dddddd\"\n"
                       "    set style fill solid 1.0 border lc rgb \"#333333\"\n"
                       "    set boxwidth %.4f absolute\n"
                       "    set lmargin at screen 0.07\n    set rmargin at screen 0.76\n",
                  0.8 / (double)n);
    for (int sc = 0; sc < 2; sc++) {
        se_buf_add(&gp, "    set title ");
        se_plot_gp_quote(&gp, scope_what[sc]);
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
            se_plot_legend_of(label, sizeof label, what, se_json_str(strat[k], "launch", "stream"));
            se_buf_printf(&gp, ", \\\n         \"data/fig3_bandwidth.tsv\" index %d using 1:2 with "
                               "boxes lc rgb \"%s\" title ", blocks[sc][k], se_plot_color_of(what));
            se_plot_gp_quote(&gp, label);
        }
        se_buf_add(&gp, "\n");
    }
    se_plot_script_end(&gp);
    return se_plot_finish_from_summary(c, f, &gp, &data, "data/fig3_bandwidth.tsv", err);
}
