/*
 * fig_answer.c - Fig. 7, the answer in one picture (the README's figure):
 * per shape, smallest to largest, each tiled mechanism's device time over
 * stream's (L2 warm) with its 95% interval, one colour and point per
 * mechanism, a line at 1 (see plot.h). Compact and with large type, so
 * that it reads at a third of a screen's width.
 */
#define _POSIX_C_SOURCE 200809L
/* pixels a further line of the title takes */
#define TITLE_LINE_PX 22
#include "render/plot_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "model/strategy.h"
#include "render/answer_text.h"

/* Shapes smallest to largest (elements; protocol order among equals). */
static int by_size(const void *x, const void *y)
{
    const se_shape *a = *(const se_shape *const *)x, *b = *(const se_shape *const *)y;
    double ea = (double)a->rows * (double)a->cols, eb = (double)b->rows * (double)b->cols;
    return ea < eb ? -1 : ea > eb ? 1 : (a < b ? -1 : a > b);
}

/* The answer's ratio of mechanism `what` on shape `id` over a run set
 * (figures --set), or 0 where the answer lacks it. */
static int set_ratio_of(const se_answer *a, const char *id, const char *what, double r[3])
{
    for (size_t i = 0; i < a->n_shapes; i++) {
        if (strcmp(a->shape[i], id) != 0)
            continue;
        for (int m = 0; m < a->n_mech; m++) {
            const se_answer_ratio *c = &a->cell[i * (size_t)a->n_mech + (size_t)m];
            if (c->present && strcmp(se_answer_mech_name(a, m), what) == 0) {
                r[0] = c->ratio, r[1] = c->lo, r[2] = c->hi;
                return 1;
            }
        }
    }
    return 0;
}

se_status se_fig_answer(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    /* With --set, the answer over the set's runs (its points and intervals
     * of one more run's ratio), as the README's sentences beside it. */
    se_answer set;
    se_err aerr = {{0}};
    int over_set = se_answer_of_run(rd, &set, &aerr) == SE_OK;
    if (over_set && !set.multi) {
        se_answer_free(&set);
        over_set = 0;
    }
    const se_case_view *strat[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_strategies_of(rd, 1, strat), nm = 0;
    const se_case_view *mech[SE_PLOT_MAX_ITEMS];
    for (size_t k = 0; k < n; k++) {
        const se_strategy_info *s = se_protocol_strategy_named(&rd->p, se_plot_str(strat[k]->what, ""));
        if (s && s->tiled)
            mech[nm++] = strat[k];
    }
    f->width = 1000;
    f->height = 300;
    const char *gpu = se_plot_gpu_name(rd);
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    if (over_set)
        snprintf(f->title, sizeof f->title,
                 "Fig. 7: time over stream's (below 1: faster), 95%% intervals of one more run; "
                 "%zu runs%s%.*s", set.n_runs, gpu ? " on " : "", SE_PLOT_GPU_CHARS,
                 gpu ? gpu : "");
    else
        snprintf(f->title, sizeof f->title,
                 "Fig. 7: time over stream's (below 1: faster), 95%% intervals; %s", run_label);
    /* a title too long for one line takes more, from the plot's top (the
     * figure keeps its height: the README's first screen holds it) */
    char drawn[sizeof f->title + 8];
    int tlines = se_plot_title_wrap(drawn, sizeof drawn, f->title, f->width, 15);
    size_t ns = rd->p.n_shapes;
    if (nm == 0 || ns == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted,
                 "the run has no ratio to stream (no stream baseline, or no other strategy)");
        if (over_set)
            se_answer_free(&set);
        return SE_OK;
    }
    const se_shape **order = malloc(ns * sizeof *order);
    if (!order) {
        if (over_set)
            se_answer_free(&set);
        return se_fail(err, SE_ERR_NOMEM, "fig7: out of memory");
    }
    for (size_t i = 0; i < ns; i++)
        order[i] = &rd->p.shapes[i];
    qsort(order, ns, sizeof *order, by_size);
    se_buf data = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig7_answer.tsv", rd,
                        over_set ? "the answer over the run set (--set): the median of the runs' "
                                   "device time ratios to stream (L2 warm) and the interval of "
                                   "one more run's ratio (docs/TIMING.md)"
                                 : "time_ratio_to_stream of scope device (L2 warm), from "
                                   SE_SUMMARY_JSON);
    se_buf_add(&data, "# columns: x (shape's place, smallest first, offset per mechanism), "
                      "ratio, ci95 low, ci95 high, shape\n# one block per mechanism\n");
    double lo = 1, hi = 1;
    for (size_t k = 0; k < nm; k++) {
        const char *what = se_plot_str(mech[k]->what, "?");
        se_buf_printf(&data, "%s# block %zu: %s\n", k ? "\n\n" : "", k, what);
        for (size_t i = 0; i < ns; i++) {
            double r[3];
            char id[64];
            se_rundata_shape_id(order[i], id, sizeof id);
            if (!(over_set ? set_ratio_of(&set, id, what, r) : se_plot_ratio_of(rd, order[i], what, r)))
                continue;
            double v = r[0], clo = r[1], chi = r[2];
            se_buf_printf(&data, "%.4f\t%.17g\t%.17g\t%.17g\t%s\n",
                          (double)(i + 1) + se_plot_offset_of(k, nm), v, clo, chi, id);
            lo = clo < lo ? clo : lo;
            hi = chi > hi ? chi : hi;
        }
    }
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot\n    set label 100 ");
    se_plot_gp_quote(&gp, drawn);
    /* The title's first line 12 px from the top, the plot from 30 px
     * below the top to 84 px above the bottom; each further title line
     * moves the plot's top down. */
    double h = f->height, top = 30 + TITLE_LINE_PX * (tlines - 1);
    se_buf_printf(&gp, " at screen 0.01, screen %.4f left font \"" SE_PLOT_FONT ",15\"\n"
                       "    set lmargin at screen 0.075\n    set rmargin at screen 0.77\n"
                       "    set tmargin at screen %.4f\n    set bmargin at screen %.4f\n"
                       "    set yrange [%.3f:%.3f]\n    set ytics %.1f font \"" SE_PLOT_FONT ",15\"\n"
                       "    set grid ytics lc rgb \"#e0e0e0\"\n"
                       "    set ylabel \"time / stream's time\" font \"" SE_PLOT_FONT ",15\"\n",
                  1 - 12 / h, 1 - top / h, 84 / h, floor(lo * 20 - 0.5) / 20, ceil(hi * 20 + 0.5) / 20,
                  hi - lo <= 0.8 ? 0.1 : hi - lo <= 1.6 ? 0.2 : 0.5);
    se_buf_printf(&gp, "    set xrange [0.5:%zu.5]\n    set xtics (", ns);
    for (size_t i = 0; i < ns; i++) {
        char id[64];
        se_rundata_shape_id(order[i], id, sizeof id);
        se_buf_add(&gp, i ? ", " : "");
        se_plot_gp_quote(&gp, id);
        se_buf_printf(&gp, " %zu", i + 1);
    }
    se_buf_add(&gp, ") rotate by 30 right nomirror font \"" SE_PLOT_FONT ",14\"\n");
    for (size_t i = 1; i < ns; i++)
        se_buf_printf(&gp, "    set arrow %zu from first %zu.5, graph 0 to first %zu.5, graph 1 "
                           "nohead lc rgb \"#cccccc\"\n", i, i, i);
    se_buf_printf(&gp, "    set key at screen 0.78, screen %.4f left top vertical maxrows 8 "
                       "Left reverse samplen 1 spacing 1 font \"" SE_PLOT_FONT ",13\"\n"
                       "    plot 1 with lines dt 2 lw 2 lc rgb \"black\" title \"stream (= 1)\"",
                  1 - (top - 9) / h);
    for (size_t k = 0; k < nm; k++) {
        const char *what = se_plot_str(mech[k]->what, "?");
        const char *launch = se_plot_str(mech[k]->launch, "stream");
        se_buf_printf(&gp, ", \\\n         \"data/fig7_answer.tsv\" index %zu using 1:2:3:4 with "
                           "yerrorbars pt %d ps 1.2 lw 2 lc rgb \"%s\" title ",
                      k, se_plot_point_of(se_rundata_table(rd), what, launch), se_plot_color_of(se_rundata_table(rd), what));
        se_plot_gp_quote(&gp, what);
    }
    se_buf_add(&gp, "\n");
    se_plot_script_end(&gp);
    free(order);
    if (over_set)
        se_answer_free(&set);
    return se_plot_finish_from_summary(c, f, &gp, &data, "data/fig7_answer.tsv", err);
}
