/*
 * fig_speedup.c - Fig. 2: per shape and strategy, the speedup over stream
 * launches with its paired bootstrap 95% interval (see plot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

se_status se_fig_speedup(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const json_t *strat[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_strategies_of(rd, 1, strat);
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
    se_plot_data_header(&data, "data/fig2_speedup.tsv", rd,
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
            const json_t *r = se_json_path(se_plot_case_of(rd, &rd->p.shapes[i], what),
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
                          (double)(i + 1) + se_plot_offset_of(k, n), 1 / ratio, 1 / chi, 1 / clo, ratio,
                          clo, chi, id);
            lo = 1 / chi < lo ? 1 / chi : lo;
            hi = 1 / clo > hi ? 1 / clo : hi;
        }
    }
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set title ");
    se_plot_gp_quote(&gp, f->title);
    se_buf_printf(&gp, "\n    set logscale y 10\n    set yrange [%.6g:%.6g]\n", lo / 1.3, hi * 1.3);
    se_plot_log_tics(&gp, "y", lo / 1.3, hi * 1.3);
    se_plot_shape_axis(&gp, rd);
    se_buf_add(&gp, "    set ylabel \"speedup over stream launches (x, log scale; > 1 is faster)\"\n"
                    "    set grid ytics lc rgb \"#dddddd\"\n"
                    "    set key outside right top vertical Left reverse samplen 1 spacing 1.3\n"
                    "    plot 1 with lines dt 2 lw 2 lc rgb \"black\" title \"stream baseline (1x)\"");
    for (size_t k = 0; k < n; k++) {
        const char *what = se_json_str(strat[k], "what", "?");
        const char *launch = se_json_str(strat[k], "launch", "stream");
        char label[160];
        se_plot_legend_of(label, sizeof label, what, launch);
        se_buf_printf(&gp, ", \\\n         \"data/fig2_speedup.tsv\" index %zu using 1:2:3:4 with "
                           "yerrorbars pt %d ps 1.4 lw 1.5 lc rgb \"%s\" title ", k,
                      se_plot_point_of(what, launch), se_plot_color_of(what));
        se_plot_gp_quote(&gp, label);
    }
    se_buf_add(&gp, "\n");
    se_plot_script_end(&gp);
    return se_plot_finish_from_summary(c, f, &gp, &data, "data/fig2_speedup.tsv", err);
}
