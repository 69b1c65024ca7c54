/*
 * fig_speedup.c - Fig. 2: per shape, how much faster than stream launches
 * each mechanism is, with its 95% interval drawn and written beside it
 * (see plot.h). Two panels on one set of rows: the tiled mechanisms on a
 * linear axis, and the controls and references (rowblock, cuDNN, the
 * PyTorch peers), whose speedups span orders of magnitude, on a log axis of
 * their own, so they cannot squash the mechanisms.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/peers.h"
#include "model/strategy.h"

#define ROW_PX 15      /* pixels per row of the plot */
#define TOP_PX 130     /* title and panel titles */
/* Below the panels: the axis label and the legends, one line per 24 px.
 * A legend of up to 6 lines fits the base; more (the peers of a run with
 * every package) grow it, so the last entries are not cut off. */
#define BOTTOM_BASE_PX 230
#define BOTTOM_LINE_PX 24
static int bottom_px(size_t legend_lines)
{
    return legend_lines <= 6 ? BOTTOM_BASE_PX
                             : BOTTOM_BASE_PX + BOTTOM_LINE_PX * (int)(legend_lines - 6);
}
#define MAX_PEERS 8

/* One series: a strategy (from summary.json) or a peer (from peers.json). */
typedef struct item {
    const char *what, *launch;
    int peer;
} item;

/* The speedup of one (shape, item) over stream and its interval; 0 if the
 * run has none. Strategies: 1 / ratio_to_stream with its paired bootstrap
 * interval. Peers: median(stream) / median(peer), the interval from the
 * two medians' own 95% intervals (conservative: lo/hi and hi/lo). */
static int speedup_of(const se_rundata *rd, const se_shape *s, const item *it, double v[3])
{
    if (!it->peer) {
        double r[3];
        if (!se_plot_ratio_of(rd, s, it->what, r))
            return 0;
        v[0] = 1 / r[0];
        v[1] = 1 / r[2];
        v[2] = 1 / r[1];
        return 1;
    }
    static const se_scope_view none;
    const se_case_view *sc = se_plot_case_of(rd, s, "stream");
    const se_scope_view *st = sc ? &sc->scope[SE_SCOPE_DEVICE] : &none;
    const se_peers_view *pv = &se_rundata_views(rd)->peers;
    for (size_t i = 0; i < pv->n; i++) {
        const se_peer_view *e = &pv->v[i];
        if (strcmp(se_plot_str(e->peer, ""), it->what) != 0 || e->rows != s->rows ||
            e->cols != s->cols || strcmp(se_plot_str(e->status, ""), "ok") != 0)
            continue;
        const se_scope_view *sum = &e->summary;
        double m = sum->median_ns, ms = st->median_ns;
        double plo = sum->ci95_ns[0], phi = sum->ci95_ns[1];
        double slo = st->ci95_ns[0], shi = st->ci95_ns[1];
        if (!(m > 0 && ms > 0 && plo > 0 && phi > 0 && slo > 0 && shi > 0))
            return 0;
        v[0] = ms / m;
        v[1] = slo / phi;
        v[2] = shi / plo;
        return 1;
    }
    return 0;
}

/* The peers that ran (status ok), in order of first appearance. */
static size_t peers_of(const se_rundata *rd, item *out, size_t max)
{
    char why[256];
    if (!rd->peers || se_peers_absent(rd->peers, why, sizeof why))
        return 0;
    const se_peers_view *pv = &se_rundata_views(rd)->peers;
    size_t n = 0;
    for (size_t i = 0; i < pv->n; i++) {
        const char *name = pv->v[i].peer;
        if (!name || strcmp(se_plot_str(pv->v[i].status, ""), "ok") != 0)
            continue;
        size_t k = 0;
        while (k < n && strcmp(out[k].what, name) != 0)
            k++;
        if (k == n && n < max)
            out[n++] = (item){name, "stream", 1};
    }
    return n;
}

/* One panel: its data blocks (first block index b0), its rows, axis and
 * legend. x range [xlo, xhi], labels at xlab. */
static void panel(se_buf *gp, const se_rundata *rd, const item *items, size_t n, int b0, int K,
                  const char *title, double left, double right, int logx, double xlo, double xhi,
                  double xlab, const char *xlabel, int height, int bottom)
{
    size_t ns = rd->p.n_shapes;
    se_buf_printf(gp, "    set lmargin at screen %.4f\n    set rmargin at screen %.4f\n"
                      "    set tmargin at screen %.4f\n    set bmargin at screen %.4f\n",
                  left, right, 1.0 - (double)TOP_PX / height, (double)bottom / height);
    se_buf_add(gp, "    set title ");
    se_plot_gp_quote(gp, title);
    se_buf_add(gp, " font \"" SE_PLOT_FONT ",16\"\n");
    se_buf_printf(gp, "    set yrange [%zu.5:0.5]\n    set ytics (", ns * (size_t)K);
    for (size_t i = 0; i < ns; i++) {
        char id[64];
        se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
        se_buf_add(gp, i ? ", " : "");
        se_plot_gp_quote(gp, id);
        se_buf_printf(gp, " %.2f", (double)i * K + (K - 1) / 2.0 + 0.5);
    }
    se_buf_add(gp, ") nomirror scale 0 font \"" SE_PLOT_FONT ",13\"\n");
    se_buf_add(gp, "    unset arrow\n");
    for (size_t i = 1; i < ns; i++)
        se_buf_printf(gp, "    set arrow from graph 0, first %zu to graph 1, first %zu nohead lc rgb "
                          "\"#bbbbbb\"\n", i * (size_t)K, i * (size_t)K);
    se_buf_printf(gp, "    set arrow from first 1, graph 0 to first 1, graph 1 nohead dt 2 lw 2 lc "
                      "rgb \"black\"\n    %s\n    set xrange [%.6g:%.6g]\n",
                  logx ? "set logscale x 10" : "unset logscale x", xlo, xhi);
    /* Tics only under the data, not under the written intervals. */
    if (logx && log10(xlab / xlo) > 1.2) {
        /* A narrow panel: powers of ten only. */
        se_buf_add(gp, "    set xtics (");
        int nt = 0;
        for (int k = (int)ceil(log10(xlo) - 1e-9); pow(10.0, k) <= xlab; k++)
            se_buf_printf(gp, "%s\"%g\" %g", nt++ ? ", " : "", pow(10.0, k), pow(10.0, k));
        se_buf_add(gp, ")\n");
    } else if (logx) {
        se_plot_log_tics(gp, "x", xlo, xlab);
    } else {
        double raw = (xlab - xlo) / 6, p = pow(10.0, floor(log10(raw)));
        double step = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
        se_buf_add(gp, "    set xtics (");
        int nt = 0;
        for (double k = ceil(xlo / step); k * step <= xlab; k++)
            se_buf_printf(gp, "%s\"%.6g\" %.6g", nt++ ? ", " : "", k * step, k * step);
        se_buf_add(gp, ")\n");
    }
    se_buf_add(gp, "    set xlabel ");
    se_plot_gp_quote(gp, xlabel);
    se_buf_add(gp, "\n    set grid xtics lc rgb \"#e0e0e0\"\n");
    /* The legend under the panel, in two columns when it is wide. */
    se_buf_printf(gp, "    set key at screen %.4f, screen %.4f left top vertical maxrows %zu "
                      "Left reverse samplen 1 spacing 1.2 font \"" SE_PLOT_FONT ",13\"\n",
                  left, (double)(bottom - 75) / height, right - left > 0.4 ? (n + 2) / 2 : n + 1);
    se_buf_add(gp, "    plot NaN with lines dt 2 lw 2 lc rgb \"black\" title \"stream launches (= 1)\"");
    for (size_t k = 0; k < n; k++) {
        char label[160];
        se_plot_legend_of(se_rundata_table(rd), label, sizeof label, items[k].what, items[k].launch);
        se_buf_printf(gp, ", \\\n         \"data/fig2_speedup.tsv\" index %d using 2:1:3:4 with "
                          "xerrorbars pt %d ps 1.1 lw 2 lc rgb \"%s\" title ",
                      b0 + (int)k, se_plot_point_of(se_rundata_table(rd), items[k].what, items[k].launch),
                      se_plot_color_of(se_rundata_table(rd), items[k].what));
        se_plot_gp_quote(gp, label);
        se_buf_printf(gp, ", \\\n         \"data/fig2_speedup.tsv\" index %d using (%.6g):1:5 with "
                          "labels left font \"" SE_PLOT_FONT ",10\" tc rgb \"%s\" notitle",
                      b0 + (int)k, xlab, se_plot_color_of(se_rundata_table(rd), items[k].what));
    }
    se_buf_add(gp, "\n");
}

se_status se_fig_speedup(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const se_case_view *strat[SE_PLOT_MAX_ITEMS];
    size_t n = se_plot_strategies_of(rd, 1, strat);
    item mech[SE_PLOT_MAX_ITEMS], ref[SE_PLOT_MAX_ITEMS + MAX_PEERS];
    size_t nm = 0, nr = 0;
    for (size_t k = 0; k < n; k++) {
        const char *what = se_plot_str(strat[k]->what, "?");
        item it = {what, se_plot_str(strat[k]->launch, "stream"), 0};
        const se_strategy_info *s = se_protocol_strategy_named(&rd->p, what);
        if (s && s->tiled)
            mech[nm++] = it;
        else
            ref[nr++] = it;
    }
    size_t npeers = peers_of(rd, ref + nr, MAX_PEERS);
    nr += npeers;
    int K = (int)(nm > nr ? nm : nr) + 1;
    int rows = (int)rd->p.n_shapes * K;
    f->width = 1800;
    /* legend lines: the mechanisms' in two columns, the references' in one,
     * each with the stream line */
    size_t lines = (nm + 2) / 2 > nr + 1 ? (nm + 2) / 2 : nr + 1;
    int bottom = bottom_px(lines);
    f->height = TOP_PX + bottom + ROW_PX * (rows > 20 ? rows : 20);
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    snprintf(f->title, sizeof f->title,
             "Fig. 2: how much faster than stream launches each mechanism is, with 95%% intervals "
             "(speedup = median device time of stream launches / of the mechanism, L2 warm; "
             "%s)", run_label);
    if (nm + nr == 0) {
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted,
                 "the run has no ratio to stream (no stream baseline, or no other strategy)");
        return SE_OK;
    }
    se_buf data = {0}, gp = {0};
    se_plot_data_header(&data, "data/fig2_speedup.tsv", rd,
                        "speedup over stream launches, scope device (L2 warm), from " SE_SUMMARY_JSON " "
                        "and " SE_PEERS_FILE);
    se_buf_add(&data,
               "# strategies: speedup = 1 / time_ratio_to_stream.ratio, interval 1 / ci95 (the "
               "paired bootstrap); peers: speedup = median(stream) / median(peer), interval "
               "from the two medians' 95% intervals (stream low / peer high .. stream high / "
               "peer low)\n# columns: y (row), speedup, low, high, label (name speedup [interval]), shape\n"
               "# one block per series: the mechanisms, then the controls, references and peers\n");
    double lo[2] = {1, 1}, hi[2] = {1, 1};
    int block = 0;
    for (int pane = 0; pane < 2; pane++) {
        const item *items = pane ? ref : mech;
        size_t ni = pane ? nr : nm;
        for (size_t k = 0; k < ni; k++, block++) {
            se_buf_printf(&data, "%s# block %d: %s, %s launch%s\n", block ? "\n\n" : "", block,
                          items[k].what, items[k].launch, items[k].peer ? " (peer)" : "");
            for (size_t i = 0; i < rd->p.n_shapes; i++) {
                double v[3];
                if (!speedup_of(rd, &rd->p.shapes[i], &items[k], v))
                    continue;
                char id[64];
                se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
                se_buf_printf(&data, "%zu\t%.17g\t%.17g\t%.17g\t%s %.4g [%.4g, %.4g]\t%s\n",
                              i * (size_t)K + k + 1, v[0], v[1], v[2], items[k].what, v[0], v[1],
                              v[2], id);
                lo[pane] = v[1] < lo[pane] ? v[1] : lo[pane];
                hi[pane] = v[2] > hi[pane] ? v[2] : hi[pane];
            }
        }
    }
    se_plot_script_begin(&gp, f, rd);
    /* The title on two lines: the question, then the definition. */
    char title[sizeof f->title];
    snprintf(title, sizeof title, "%s", f->title);
    char *paren = strstr(title, " (speedup");
    if (paren) {
        paren[0] = '\n';
        memmove(paren + 1, paren + 2, strlen(paren + 2) + 1);
        title[strlen(title) - 1] = '\0';
    }
    se_buf_add(&gp, "    set multiplot title ");
    se_plot_gp_title(&gp, title, f->width, 17);
    se_buf_add(&gp, " font \"" SE_PLOT_FONT ",17\"\n");
    /* Mechanisms: linear, from just below the slowest to just above the
     * fastest, with room on the right for the written intervals. */
    double span = hi[0] - lo[0];
    double xlo = lo[0] - 0.05 * span, xlab = hi[0] + 0.03 * span, xhi = hi[0] + 0.62 * span;
    double right0 = nr ? 0.60 : 0.95;
    if (nm)
        panel(&gp, rd, mech, nm, 0, K,
              "Tiled mechanisms (outputs bitwise identical to stream's)", 0.09, right0, 0, xlo,
              xhi, xlab, "speedup over stream launches (x, linear; > 1 is faster)", f->height,
              bottom);
    if (nr) {
        double l = lo[1] / 1.4, h = hi[1] * 1.15, decades = log10(h / l);
        panel(&gp, rd, ref, nr, (int)nm, K,
              "Controls and references (other algorithms)", nm ? 0.67 : 0.09, 0.97, 1, l,
              h * pow(10.0, 1.1 * decades), h, "speedup over stream launches (x, log scale)",
              f->height, bottom);
    }
    se_plot_script_end(&gp);
    se_status st = SE_OK;
    if (npeers)
        st = se_strlist_add(&f->run_files, SE_PEERS_FILE, err);
    if (st != SE_OK) {
        se_buf_free(&gp);
        se_buf_free(&data);
        return st;
    }
    return se_plot_finish_from_summary(c, f, &gp, &data, "data/fig2_speedup.tsv", err);
}
