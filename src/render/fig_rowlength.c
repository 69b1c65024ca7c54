/*
 * fig_rowlength.c - Fig. 8: fraction of the same-run copy against row
 * length, one line per strategy and PyTorch peer, L2 warm (left) and
 * flushed (right), one row of panels per group of shapes with at least
 * SE_SWEEP_MIN_LENGTHS row lengths (bundle/sweep.h: input-size families,
 * then the launch-bound shapes of one row count), log row-length axis. A
 * run without such a group (most small protocols) is not drawn, saying why.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/sweep.h"
#include "model/strategy.h"

#define REL "data/fig8_rowlength.tsv"
#define ROW_PX 450
#define TOP_PX 90
#define LEGEND_COLS 4
#define LEGEND_ROW_PX 28

/* The row-length tics of a panel over [lo, hi]: powers of 4, written with
 * K = 1024 and M = 1048576. */
static void length_tics(se_buf *gp, int64_t lo, int64_t hi)
{
    se_buf_add(gp, "    set xtics (");
    int n = 0;
    for (int e = 0; e <= 30; e += 2) {
        int64_t v = (int64_t)1 << e;
        if (v * 2 < lo || v > hi * 2)
            continue;
        char label[16];
        if (v >= 1048576)
            snprintf(label, sizeof label, "%lldM", (long long)(v >> 20));
        else if (v >= 1024)
            snprintf(label, sizeof label, "%lldK", (long long)(v >> 10));
        else
            snprintf(label, sizeof label, "%lld", (long long)v);
        se_buf_printf(gp, "%s\"%s\" %lld", n++ ? ", " : "", label, (long long)v);
    }
    se_buf_add(gp, ")\n");
}

static double screen_y(double px, double height)
{
    return 1.0 - px / height;
}

/* The legend entry of item k: colour, point, dash (peers dashed). */
static void style_of(const se_sweep *s, size_t k, se_buf *gp)
{
    const char *what = s->names[k];
    const se_strategy_info *st = se_stable_get(s->table, se_stable_find(s->table, what));
    const char *launch = st ? st->launch : "stream";
    se_buf_printf(gp, "with linespoints lw 2 dt %d pt %d ps 1.1 lc rgb \"%s\"",
                  s->name_is_peer[k] ? 2 : 1, se_plot_point_of(s->table, what, launch), se_plot_color_of(s->table, what));
}

se_status se_fig_rowlength(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    se_sweep s;
    se_status st = se_sweep_read(rd, &s, err);
    size_t drawn[64], nd = 0;
    for (size_t q = 0; st == SE_OK && q < s.n_groups && nd < 64; q++)
        if (s.groups[q].n_lengths >= SE_SWEEP_MIN_LENGTHS)
            drawn[nd++] = q;
    f->width = 1800;
    int legend_rows = (int)((s.n_names + 1 + LEGEND_COLS - 1) / LEGEND_COLS);
    f->height = TOP_PX + ROW_PX * (int)(nd ? nd : 1) + 40 + LEGEND_ROW_PX * legend_rows;
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    snprintf(f->title, sizeof f->title,
             "Fig. 8: fraction of the same-run copy (median(copy) / median) against row length, "
             "per group of shapes; %s", run_label);
    if (st == SE_OK && nd == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted,
                 "no group of shapes (input-size family, or launch-bound shapes of one row count) "
                 "has %d or more distinct row lengths", SE_SWEEP_MIN_LENGTHS);
    }
    if (st != SE_OK || f->omitted) {
        se_sweep_free(&s);
        return st;
    }
    se_buf data = {0}, gp = {0};
    se_plot_data_header(&data, REL, rd,
                        "fraction_of_copy by row length, scopes device and device_cold of "
                        SE_SUMMARY_JSON ", the peers' (device only) of " SE_PEERS_FILE);
    se_buf_add(&data, "# columns: cols (row length), fraction_of_copy, median_ns, rows, shape, "
                      "validated (1/0)\n# one block per (group, scope, item) with a value, "
                      "in order of row length\n");
    se_plot_script_begin(&gp, f, rd);
    se_buf_add(&gp, "    set multiplot title ");
    se_plot_gp_title(&gp, f->title, f->width, 16);
    se_buf_add(&gp, " font \"" SE_PLOT_FONT ",16\"\n    set logscale x 2\n"
                    "    set grid xtics ytics lc rgb \"#e0e0e0\"\n    unset key\n"
                    "    set ylabel \"fraction of copy (linear; copy = 1)\"\n"
                    "    set xlabel \"row length (columns, fp32; log axis; K = 1024, M = 1048576)\"\n");
    static const char *const scope_what[2] = {"L2 warm", "L2 flushed (peers: warm only)"};
    int block = 0;
    for (size_t r = 0; r < nd; r++) {
        const se_sweep_group *g = &s.groups[drawn[r]];
        int64_t lo = s.shapes[g->members[0]].shape->cols, hi = s.shapes[g->members[g->n - 1]].shape->cols;
        double top = TOP_PX + ROW_PX * (double)r + 62, bottom = TOP_PX + ROW_PX * (double)(r + 1) - 70;
        double ymax = 1.1;
        for (int sc = 0; sc < 2; sc++)
            for (size_t m = 0; m < g->n; m++)
                for (size_t k = 0; k < s.shapes[g->members[m]].n_items; k++) {
                    double v = s.shapes[g->members[m]].items[k].fraction[sc];
                    ymax = isfinite(v) && v * 1.05 > ymax ? v * 1.05 : ymax;
                }
        se_buf_printf(&gp, "    set xrange [%.6g:%.6g]\n    set yrange [0:%.2f]\n    set ytics 0.1\n",
                      (double)lo / 1.5, (double)hi * 1.5, ceil(ymax * 10) / 10);
        length_tics(&gp, lo, hi);
        se_buf_printf(&gp, "    set tmargin at screen %.4f\n    set bmargin at screen %.4f\n",
                      screen_y(top, f->height), screen_y(bottom, f->height));
        for (int sc = 0; sc < 2; sc++) {
            char title[320];
            snprintf(title, sizeof title, "%s, %zu row lengths: %s", g->label, g->n_lengths,
                     scope_what[sc]);
            se_buf_printf(&gp, "    set lmargin at screen %s\n    set rmargin at screen %s\n"
                               "    set title ", sc ? "0.545" : "0.05", sc ? "0.98" : "0.485");
            se_plot_gp_quote(&gp, title);
            se_buf_add(&gp, " font \"" SE_PLOT_FONT ",14\"\n    plot 1 with lines dt 3 lw 3 lc rgb \"#525252\" notitle");
            for (size_t k = 0; k < s.n_names; k++) {
                int points = 0;
                for (size_t m = 0; m < g->n; m++) {
                    const se_sweep_shape *sh = &s.shapes[g->members[m]];
                    const se_sweep_item *it = se_sweep_item_of(sh, s.names[k]);
                    if (!it || !isfinite(it->fraction[sc]))
                        continue;
                    if (!points++)
                        se_buf_printf(&data, "%s# block %d: %s, %s, %s\n", block ? "\n\n" : "", block,
                                      g->label, sc ? "device_cold" : "device", s.names[k]);
                    se_buf_printf(&data, "%lld\t%.17g\t%.17g\t%lld\t%s\t%d\n",
                                  (long long)sh->shape->cols, it->fraction[sc], it->median[sc],
                                  (long long)sh->shape->rows, sh->id, it->validated);
                }
                if (!points)
                    continue;
                se_buf_printf(&gp, ", \\\n         \"" REL "\" index %d using 1:2 ", block++);
                style_of(&s, k, &gp);
                se_buf_add(&gp, " notitle");
            }
            se_buf_add(&gp, "\n");
        }
    }
    /* The legend: one entry per item, under every panel. */
    se_buf_printf(&gp, "    unset title\n    unset logscale x\n    unset border\n    unset tics\n"
                       "    unset grid\n    unset xlabel\n    unset ylabel\n    set xrange [0:1]\n"
                       "    set yrange [0:1]\n    set lmargin at screen 0.05\n    set rmargin at screen 0.98\n"
                       "    set tmargin at screen %.4f\n    set bmargin at screen 0.005\n"
                       "    set key at graph 0, graph 1 left top vertical maxrows %d Left reverse "
                       "samplen 2.5 spacing 1.3 width -2 font \"" SE_PLOT_FONT ",14\"\n"
                       "    plot NaN with lines dt 3 lw 3 lc rgb \"#525252\" title \"copy, same bytes, "
                       "same run (= 1)\"",
                  screen_y(TOP_PX + ROW_PX * (double)nd + 10, f->height), legend_rows);
    for (size_t k = 0; k < s.n_names; k++) {
        const se_strategy_info *stg = se_stable_get(s.table, se_stable_find(s.table, s.names[k]));
        char label[160];
        se_plot_legend_of(s.table, label, sizeof label, s.names[k], stg ? stg->launch : "stream");
        se_buf_add(&gp, ", \\\n         NaN ");
        style_of(&s, k, &gp);
        se_buf_add(&gp, " title ");
        se_plot_gp_quote(&gp, label);
    }
    se_buf_add(&gp, "\n");
    se_plot_script_end(&gp);
    se_sweep_free(&s);
    st = se_strlist_add(&f->run_files, SE_VALIDATION_JSON, err);
    if (st == SE_OK && rd->peers)
        st = se_strlist_add(&f->run_files, SE_PEERS_FILE, err);
    if (st != SE_OK) {
        se_buf_free(&data);
        se_buf_free(&gp);
        return st;
    }
    return se_plot_finish_from_summary(c, f, &gp, &data, REL, err);
}
