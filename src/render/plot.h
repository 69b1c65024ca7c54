/*
 * plot.h - the figures of a run: for each, the data extracted from the run
 * (TSV under data/), one gnuplot script (under gnuplot/), and drawing it
 * with gnuplot into <name>.svg and <name>.png (docs/FIGURES.md).
 */
#ifndef SE_REPORT_PLOT_H
#define SE_REPORT_PLOT_H

#include <stdio.h>

#include "model/se_common.h"
#include "model/strategy.h"
#include "render/buf.h"
#include "render/plot_util.h"
#include "bundle/rundata.h"

/* Writes every figure's data files and script into dir (which exists),
 * creating dir/data and dir/gnuplot; fills figs. Free figs with
 * se_plot_free, also on failure. */
se_status se_plot_prepare(se_rundata *rd, const char *dir, se_figure figs[SE_NFIGURES],
                          se_err *err);

void se_plot_free(se_figure figs[SE_NFIGURES]);

/* The strategies the timelines (fig4) show, in table order: per
 * cooperative kernel (coop_group), its strategy launched on a stream.
 * Returns how many, at most max. */
int se_timeline_strategies(const se_strategy_table *t, int *out, int max);

/* The shape the timelines show: 4096x4096 if the run has a trace of every
 * timeline strategy on it (recorded in traces.json, and its file in the run
 * folder, not only in an archive), else the largest shape that has; NULL if
 * none. */
const se_shape *se_timeline_shape(const se_rundata *rd);

/* Runs `gnuplot --version`; version gets its first line ("gnuplot 5.4
 * patchlevel 4"). A missing gnuplot is an error saying how to install it. */
se_status se_gnuplot_version(char *version, size_t size, se_err *err);

/* Runs the figure's script with gnuplot in dir; gnuplot's messages go to
 * out. A non-zero exit is an error quoting gnuplot's last message. */
se_status se_plot_draw(const char *dir, const se_figure *f, FILE *out, se_err *err);

#endif
