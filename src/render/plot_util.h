/*
 * plot_util.h - what the figure files share: the figure record (se_figure,
 * public through plot.h), and, private to plot.c, plot_util.c and fig_*.c,
 * the drawing context, one function per figure (one file each, fig_*.c,
 * listed in plot.c's registry) and the helpers of plot_util.c (colours
 * from the strategy table, legends, gnuplot quoting, axes, data and script
 * files).
 */
#ifndef SE_RENDER_PLOT_UTIL_H
#define SE_RENDER_PLOT_UTIL_H

#include <jansson.h>

#include "bundle/rundata.h"
#include "bundle/views.h"
#include "model/se_common.h"
#include "render/buf.h"

#define SE_NFIGURES 8

/* How gnuplot is run, in the figures directory; the script path follows. */
#define SE_GNUPLOT_ENV "LC_ALL=C"
#define SE_GNUPLOT_ARGS "gnuplot -d"

typedef struct se_figure {
    const char *name;       /* "fig1_latency": also the base name of its files */
    const char *shows;      /* one line: what it shows */
    char title[512];        /* the title drawn on it */
    int width, height;      /* pixels (PNG) and SVG units */
    int omitted;            /* the run has nothing to draw it from */
    char why_omitted[256];
    char script[64];        /* "gnuplot/fig1_latency.gp" */
    se_strlist run_files;   /* files of the run it was drawn from */
    se_strlist data_files;  /* "data/fig1_latency.tsv", ... */
} se_figure;

#define SE_PLOT_MAX_ITEMS 16
#define SE_PLOT_MAX_TIMELINES 4
#define SE_PLOT_FONT "Sans"

typedef struct plot_ctx {
    se_rundata *rd;
    const char *dir;
} plot_ctx;

/* One figure: fills f (title, size, run and data files) and writes its
 * data files and script under c->dir. */
typedef se_status (*se_fig_draw_fn)(plot_ctx *c, se_figure *f, se_err *err);

se_status se_fig_latency(plot_ctx *c, se_figure *f, se_err *err);   /* fig_latency.c */
se_status se_fig_speedup(plot_ctx *c, se_figure *f, se_err *err);   /* fig_speedup.c */
se_status se_fig_bandwidth(plot_ctx *c, se_figure *f, se_err *err); /* fig_bandwidth.c */
se_status se_fig_timelines(plot_ctx *c, se_figure *f, se_err *err); /* fig_timelines.c */
se_status se_fig_controls(plot_ctx *c, se_figure *f, se_err *err);  /* fig_controls.c */
se_status se_fig_distributions(plot_ctx *c, se_figure *f, se_err *err); /* fig_distributions.c */
se_status se_fig_answer(plot_ctx *c, se_figure *f, se_err *err);    /* fig_answer.c */
se_status se_fig_rowlength(plot_ctx *c, se_figure *f, se_err *err); /* fig_rowlength.c */

/* A case's colour: its strategy's (model/strategy.h), or a control's. */
const char *se_plot_color_of(const se_strategy_table *t, const char *what);
/* Point type: a shape per mechanism (circle stream and graph, square PDL,
 * triangle fusion, diamond megakernel, triangle down rowblock, pentagon
 * cuDNN), filled for a stream launch and open for a graph launch; the copy,
 * the megakernel's initialization and each PyTorch peer their own. */
int se_plot_point_of(const se_strategy_table *t, const char *what, const char *launch);
/* A case's legend entry: name, role when not tiled, launch. */
void se_plot_legend_of(const se_strategy_table *t, char *buf, size_t size, const char *what,
                       const char *launch);
/* A gnuplot double-quoted string (backquotes replaced, control
 * characters dropped). */
void se_plot_gp_quote(se_buf *b, const char *s);
/* Explicit tics for a log axis over [lo, hi], 0 < lo < hi. */
void se_plot_log_tics(se_buf *b, const char *axis, double lo, double hi);
/* Deterministic horizontal spread of a sample of round `round`, in +-0.3. */
double se_plot_jitter(int round);
/* Writes b to c->dir/rel. */
se_status se_plot_write_rel(plot_ctx *c, const char *rel, const se_buf *b, se_err *err);
/* The two comment lines every data file starts with. */
void se_plot_data_header(se_buf *b, const char *rel, const se_rundata *rd, const char *what);
/* Start and end of a script that draws the same plot as SVG and PNG. */
void se_plot_script_begin(se_buf *b, const se_figure *f, const se_rundata *rd);
void se_plot_script_end(se_buf *b);
/* Writes the figure's script. */
se_status se_plot_finish(plot_ctx *c, se_figure *f, se_buf *script, se_err *err);
/* Writes and lists the data files, then the script (only if st is still
 * SE_OK); frees gp and every data buffer. */
se_status se_plot_finish_with_data(plot_ctx *c, se_figure *f, se_buf *gp, const char *const *rels,
                                   se_buf *const *bufs, size_t n, se_status st, se_err *err);
/* The timed cases of a shape in summary.json's order (at most SE_PLOT_MAX_ITEMS). */
size_t se_plot_shape_items(const se_rundata *rd, const se_shape *s, const se_case_view **items);
/* The figures' name for their run in a title: "run ID on GPU" (the run's
 * recorded GPU name, cut at SE_PLOT_GPU_CHARS characters), or "run ID"
 * where the run recorded none. */
#define SE_PLOT_GPU_CHARS 64
void se_plot_run_label(char *buf, size_t size, const se_rundata *rd);
/* A title copied into out with its spaces turned into line breaks where a
 * line would pass what width_px holds at font_pt (SE_PLOT_CHAR_EM of the
 * font size a character, the figures' font), so that gnuplot clips none of
 * it; a word longer than a line stays whole. Returns its lines. */
#define SE_PLOT_CHAR_EM 0.72
int se_plot_title_wrap(char *out, size_t size, const char *title, int width_px, int font_pt);
/* se_plot_gp_quote of the title wrapped for width_px at font_pt. */
void se_plot_gp_title(se_buf *b, const char *title, int width_px, int font_pt);
/* The run's recorded GPU name, or NULL. */
const char *se_plot_gpu_name(const se_rundata *rd);
/* "4096x4096: 134 MB read and written". */
void se_plot_shape_title(char *buf, size_t size, const se_shape *s, const se_case_view *item);
/* The device-scope samples of a samples file. */
se_status se_plot_device_samples(se_rundata *rd, const char *rel, int n_scopes, se_sample_set *dev,
                                 se_err *err);
/* Lists run.json and protocol.json as run files of f. */
se_status se_plot_add_common_run_files(se_figure *f, se_err *err);
/* The end of a figure drawn from summary.json alone; frees both buffers. */
se_status se_plot_finish_from_summary(plot_ctx *c, se_figure *f, se_buf *gp, se_buf *data,
                                      const char *rel, se_err *err);
/* The strategies among summary.json's cases, in order (optionally only
 * those with a ratio to stream): the first case of each. */
size_t se_plot_strategies_of(const se_rundata *rd, int with_ratio, const se_case_view **first);
/* The device-scope (L2 warm) ratio to stream of `what` on shape s and its
 * 95% interval, v = {ratio, low, high}; 0 where the run has none. */
int se_plot_ratio_of(const se_rundata *rd, const se_shape *s, const char *what, double v[3]);
/* summary.json's case of `what` on shape s, or NULL. */
const se_case_view *se_plot_case_of(const se_rundata *rd, const se_shape *s, const char *what);
/* A string field of a view, or fallback where the run has none. */
const char *se_plot_str(const char *s, const char *fallback);
/* x tics at the shapes, with separators between them. */
void se_plot_shape_axis(se_buf *gp, const se_rundata *rd);
/* The x offset of item k of n within a shape's slot. */
double se_plot_offset_of(size_t k, size_t n);
/* A shape whose copy takes less than twice an empty kernel launch
 * (fig_bandwidth.c): no bandwidth is drawn for it. */
int se_plot_launch_bound(const se_rundata *rd, const se_shape *s);

#endif
