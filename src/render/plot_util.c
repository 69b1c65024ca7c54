/*
 * plot_util.c - the helpers the figure files share (see plot_util.h). Data
 * files are written with fixed formatting (raw values with %.17g, positions
 * with fixed decimals), so they repeat byte for byte for the same run.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "model/strategy.h"

/* The timed cases that are not strategies, and the PyTorch peers, with
 * their colours and point types (a strategy's colour is in the strategy
 * table). */
#define COPY_NAME "copy"
static const struct {
    const char *name, *color;
    int pt;
} OTHER_ITEMS[] = {
    {COPY_NAME, "#525252", 3},          /* asterisk */
    {SE_MK_INIT_NAME, "#00441b", 2},    /* cross: not the megakernel's diamond */
    {"torch-eager", "#8c510a", 10},     /* open triangle down */
    {"torch-compile", "#543005", 14},   /* open pentagon */
    {"torch-softmax", "#bf812d", 1},    /* plus */
    {"liger-softmax", "#b2182b", 4},    /* open square */
    {"quack-softmax", "#313695", 8},    /* open triangle up */
    {"flashinfer-softmax", "#969696", 12}, /* open diamond */
};

const char *se_plot_color_of(const se_strategy_table *t, const char *what)
{
    const se_strategy_info *s = se_stable_get(t, se_stable_find(t, what));
    if (s)
        return s->colour;
    for (size_t i = 0; i < sizeof OTHER_ITEMS / sizeof OTHER_ITEMS[0]; i++)
        if (strcmp(OTHER_ITEMS[i].name, what) == 0)
            return OTHER_ITEMS[i].color;
    return "#000000";
}

/* Shape by mechanism, filled for a stream launch and open for a graph
 * launch: circle stream/graph, square PDL, triangle fusion, diamond
 * megakernel; rowblock a triangle down, cuDNN a pentagon; the copy, the
 * megakernel's initialization and the peers their own. */
int se_plot_point_of(const se_strategy_table *t, const char *what, const char *launch)
{
    for (size_t i = 0; i < sizeof OTHER_ITEMS / sizeof OTHER_ITEMS[0]; i++)
        if (strcmp(OTHER_ITEMS[i].name, what) == 0)
            return OTHER_ITEMS[i].pt;
    const se_strategy_info *s = se_stable_get(t, se_stable_find(t, what));
    const char *mech = s ? s->mechanism : "";
    int graph = launch && strcmp(launch, "graph") == 0;
    if (strcmp(mech, "pdl") == 0)
        return graph ? 4 : 5;
    if (strcmp(mech, "fusion") == 0)
        return graph ? 8 : 9;
    if (strcmp(mech, "megakernel") == 0)
        return graph ? 12 : 13;
    if (strcmp(mech, "rowblock") == 0)
        return 11;
    if (strcmp(mech, "cudnn") == 0)
        return 15;
    return graph ? 6 : 7;
}

void se_plot_legend_of(const se_strategy_table *t, char *buf, size_t size, const char *what,
                       const char *launch)
{
    const se_strategy_info *s = se_stable_get(t, se_stable_find(t, what));
    if (strcmp(what, COPY_NAME) == 0)
        snprintf(buf, size, "copy (control: cudaMemcpyAsync, same bytes)");
    else if (strcmp(what, SE_MK_INIT_NAME) == 0)
        snprintf(buf, size, "megakernel initialization alone (control)");
    else if (s && !s->tiled)
        snprintf(buf, size, "%s (%s, %s launch)", what, se_role_name(s->role), launch);
    else if (!s)
        snprintf(buf, size, "%s (PyTorch peer)", what);
    else
        snprintf(buf, size, "%s (%s launch)", what, launch);
}

/* A gnuplot double-quoted string. Backquotes (command substitution) are
 * replaced, control characters dropped. */
void se_plot_gp_quote(se_buf *b, const char *s)
{
    se_buf_add(b, "\"");
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') {
            char e[3] = {'\\', *s, '\0'};
            se_buf_add(b, e);
        } else if (*s == '\n') {
            se_buf_add(b, "\\n");
        } else if (*s == '`') {
            se_buf_add(b, "'");
        } else if ((unsigned char)*s >= 0x20) {
            se_buf_addn(b, s, 1);
        }
    }
    se_buf_add(b, "\"");
}

/* Explicit tics for a log axis over [lo, hi], 0 < lo < hi: powers of ten
 * (and 2 and 5 times them) across decades, finer or linear steps within
 * one, so that every panel has labelled tics. */
void se_plot_log_tics(se_buf *b, const char *axis, double lo, double hi)
{
    static const double one[] = {1}, mid[] = {1, 2, 5}, some[] = {1, 2, 3, 5},
                        all[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    double decades = log10(hi / lo);
    se_buf_printf(b, "    set %stics (", axis);
    int n = 0;
    if (decades > 0.4) {
        const double *m = decades > 4 ? one : decades > 1.5 ? mid : decades > 0.8 ? some : all;
        int nm = decades > 4 ? 1 : decades > 1.5 ? 3 : decades > 0.8 ? 4 : 9;
        for (int k = (int)floor(log10(lo)); k <= (int)ceil(log10(hi)); k++)
            for (int j = 0; j < nm; j++) {
                double v = m[j] * pow(10.0, k);
                if (v >= lo && v <= hi)
                    se_buf_printf(b, "%s\"%g\" %g", n++ ? ", " : "", v, v);
            }
    } else {
        double raw = (hi - lo) / 5, p = pow(10.0, floor(log10(raw)));
        double step = raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
        for (double k = ceil(lo / step); k * step <= hi; k++)
            se_buf_printf(b, "%s\"%.6g\" %.6g", n++ ? ", " : "", k * step, k * step);
    }
    se_buf_add(b, ")\n");
}

/* Deterministic horizontal spread of the samples of one item: the
 * golden-ratio sequence of the round, within +-0.3. */
double se_plot_jitter(int round)
{
    double g = fmod((double)round * 0.6180339887498949, 1.0);
    return 0.6 * g - 0.3;
}

se_status se_plot_write_rel(plot_ctx *c, const char *rel, const se_buf *b, se_err *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", c->dir, rel);
    return se_buf_write_file(b, path, rel, err);
}

void se_plot_data_header(se_buf *b, const char *rel, const se_rundata *rd, const char *what)
{
    se_buf_printf(b, "# %s: %s\n# run %s; written by softmax-evidence figures (docs/FIGURES.md)\n",
                  rel, what, rd->run_id);
}

/* Start of a script: every setting is reset, then the same plot is drawn
 * as SVG and as PNG. */
int se_plot_title_wrap(char *out, size_t size, const char *title, int width_px, int font_pt)
{
    if (size == 0)
        return 0;
    snprintf(out, size, "%s", title);
    size_t max = (size_t)(width_px / (SE_PLOT_CHAR_EM * font_pt));
    if (max < 16)
        max = 16;
    /* a line breaks at its last "; " past a third of it, else its last space */
    size_t start = 0, last_space = 0, last_semi = 0;
    int lines = 1, have_space = 0, have_semi = 0;
    for (size_t i = 0; out[i]; i++) {
        if (out[i] == '\n') {
            start = i + 1;
            have_space = have_semi = 0;
            lines++;
            continue;
        }
        if (i - start >= max && have_space) {
            size_t at = have_semi && last_semi - start >= max / 3 ? last_semi : last_space;
            out[at] = '\n';
            start = at + 1;
            have_space = have_semi = 0;
            lines++;
            i = at; /* scan the new line from its start */
            continue;
        }
        if (out[i] == ' ') {
            last_space = i;
            have_space = 1;
            if (i > start && out[i - 1] == ';') {
                last_semi = i;
                have_semi = 1;
            }
        }
    }
    return lines;
}

void se_plot_gp_title(se_buf *b, const char *title, int width_px, int font_pt)
{
    char wrapped[1024];
    se_plot_title_wrap(wrapped, sizeof wrapped, title, width_px, font_pt);
    se_plot_gp_quote(b, wrapped);
}

const char *se_plot_gpu_name(const se_rundata *rd)
{
    const struct se_run_views *v = se_rundata_views(rd);
    return v && v->env.gpu_name && v->env.gpu_name[0] ? v->env.gpu_name : NULL;
}

void se_plot_run_label(char *buf, size_t size, const se_rundata *rd)
{
    const char *gpu = se_plot_gpu_name(rd);
    if (gpu)
        snprintf(buf, size, "run %s on %.*s", rd->run_id, SE_PLOT_GPU_CHARS, gpu);
    else
        snprintf(buf, size, "run %s", rd->run_id);
}

void se_plot_script_begin(se_buf *b, const se_figure *f, const se_rundata *rd)
{
    se_buf_printf(b,
                  "# %s - %s\n"
                  "# Run %s. Run it in the figures directory:\n"
                  "#   " SE_GNUPLOT_ENV " " SE_GNUPLOT_ARGS " %s\n"
                  "# It writes %s.svg and %s.png from the files under data/.\n"
                  "do for [fmt in \"svg png\"] {\n"
                  "    reset\n"
                  "    set datafile separator \"\\t\"\n"
                  "    if (fmt eq \"svg\") {\n"
                  "        set terminal svg size %d,%d font \"" SE_PLOT_FONT ",14\" noenhanced background \"white\"\n"
                  "    } else {\n"
                  "        set terminal pngcairo size %d,%d font \"" SE_PLOT_FONT ",14\" noenhanced background \"white\"\n"
                  "    }\n"
                  "    set output \"%s.\" . fmt\n",
                  f->script, f->shows, rd->run_id, f->script, f->name, f->name, f->width,
                  f->height, f->width, f->height, f->name);
}

void se_plot_script_end(se_buf *b)
{
    se_buf_add(b, "    unset multiplot\n    set output\n}\n");
}

se_status se_plot_finish(plot_ctx *c, se_figure *f, se_buf *script, se_err *err)
{
    return se_plot_write_rel(c, f->script, script, err);
}

/* The end of a figure: its data files written and listed, the plot drawn
 * (only if st is still SE_OK); frees gp and every data buffer. */
se_status se_plot_finish_with_data(plot_ctx *c, se_figure *f, se_buf *gp, const char *const *rels,
                                  se_buf *const *bufs, size_t n, se_status st, se_err *err)
{
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = se_plot_write_rel(c, rels[i], bufs[i], err);
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = se_strlist_add(&f->data_files, rels[i], err);
    if (st == SE_OK)
        st = se_plot_finish(c, f, gp, err);
    for (size_t i = 0; i < n; i++)
        se_buf_free(bufs[i]);
    se_buf_free(gp);
    return st;
}


/* The timed items of one shape in summary.json's order (strategies, then
 * copy). */
size_t se_plot_shape_items(const se_rundata *rd, const se_shape *s, const se_case_view **items)
{
    const se_run_views *v = se_rundata_views(rd);
    size_t n = 0;
    for (size_t i = 0; i < v->n_cases; i++) {
        const se_case_view *e = &v->cases[i];
        if (e->rows == s->rows && e->cols == s->cols && n < SE_PLOT_MAX_ITEMS)
            items[n++] = e;
    }
    return n;
}

void se_plot_shape_title(char *buf, size_t size, const se_shape *s, const se_case_view *item)
{
    char id[64];
    se_rundata_shape_id(s, id, sizeof id);
    double bytes = item->bytes_moved;
    char amount[32];
    if (bytes < 1e3)
        snprintf(amount, sizeof amount, "%.0f B", bytes);
    else if (bytes < 1e6)
        snprintf(amount, sizeof amount, "%.3g kB", bytes / 1e3);
    else if (bytes < 1e9)
        snprintf(amount, sizeof amount, "%.3g MB", bytes / 1e6);
    else
        snprintf(amount, sizeof amount, "%.3g GB", bytes / 1e9);
    if (strcmp(s->spec, id) != 0)
        snprintf(buf, size, "%s (%s): %s read and written", id, s->spec, amount);
    else
        snprintf(buf, size, "%s: %s read and written", id, amount);
}

/* Reads the device-scope samples of a case into dev (the other scopes are
 * dropped). */
se_status se_plot_device_samples(se_rundata *rd, const char *rel, int n_scopes, se_sample_set *dev,
                                se_err *err)
{
    se_sample_set sets[SE_NSCOPES];
    se_status st = se_rundata_samples(rd, rel, sets, n_scopes, err);
    if (st != SE_OK)
        return st;
    *dev = sets[SE_SCOPE_DEVICE];
    for (int k = 1; k < n_scopes; k++)
        se_sample_set_free(&sets[k]);
    if (dev->n == 0) {
        se_sample_set_free(dev);
        return se_fail(err, SE_ERR_VALIDATION, "%s: no samples of scope device", rel);
    }
    return SE_OK;
}

se_status se_plot_add_common_run_files(se_figure *f, se_err *err)
{
    se_status st = se_strlist_add(&f->run_files, SE_RUN_JSON, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, SE_PROTOCOL_JSON, err);
    return st;
}

/* The end of a figure drawn from summary.json alone: its run files, its
 * data file, the plot; frees both buffers. */
se_status se_plot_finish_from_summary(plot_ctx *c, se_figure *f, se_buf *gp, se_buf *data,
                                     const char *rel, se_err *err)
{
    se_status st = se_plot_add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, SE_SUMMARY_JSON, err);
    const char *rels[] = {rel};
    se_buf *bufs[] = {data};
    return se_plot_finish_with_data(c, f, gp, rels, bufs, 1, st, err);
}

/* ---- fig2 and fig3: per shape and strategy, from summary.json --------- */

/* The strategies that appear in summary.json's cases (not copy), in order,
 * optionally only those with a ratio to stream. */
const char *se_plot_str(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

size_t se_plot_strategies_of(const se_rundata *rd, int with_ratio, const se_case_view **first)
{
    const se_run_views *v = se_rundata_views(rd);
    size_t n = 0;
    for (size_t i = 0; i < v->n_cases; i++) {
        const se_case_view *e = &v->cases[i];
        const char *what = se_plot_str(e->what, "");
        /* Not strategies: the copy, and the megakernel's initialization
         * (it moves no bytes; fig1 and the tables show it). */
        if (se_protocol_find_strategy(&rd->p, what) == se_protocol_nstrategies(&rd->p))
            continue;
        if (with_ratio && !e->scope[SE_SCOPE_DEVICE].has_ratio)
            continue;
        size_t k = 0;
        while (k < n && strcmp(se_plot_str(first[k]->what, ""), what) != 0)
            k++;
        if (k == n && n < SE_PLOT_MAX_ITEMS)
            first[n++] = e;
    }
    return n;
}

int se_plot_ratio_of(const se_rundata *rd, const se_shape *s, const char *what, double v[3])
{
    const se_case_view *c = se_plot_case_of(rd, s, what);
    const se_scope_view *d = c ? &c->scope[SE_SCOPE_DEVICE] : NULL;
    int has = d && d->has_ratio;
    v[0] = has ? d->ratio : 0;
    v[1] = has ? d->ratio_ci95[0] : 0;
    v[2] = has ? d->ratio_ci95[1] : 0;
    return has && v[0] > 0 && v[1] > 0 && v[2] > 0;
}

const se_case_view *se_plot_case_of(const se_rundata *rd, const se_shape *s, const char *what)
{
    char id[128];
    se_rundata_shape_id(s, id, sizeof id);
    size_t len = strlen(id);
    snprintf(id + len, sizeof id - len, ".%s", what);
    return se_views_case(se_rundata_views(rd), id);
}

/* x tics at the shapes, and light separators between them. */
void se_plot_shape_axis(se_buf *gp, const se_rundata *rd)
{
    se_buf_printf(gp, "    set xrange [0.5:%zu.5]\n    set xtics (", rd->p.n_shapes);
    for (size_t i = 0; i < rd->p.n_shapes; i++) {
        char id[64];
        se_rundata_shape_id(&rd->p.shapes[i], id, sizeof id);
        se_buf_add(gp, i ? ", " : "");
        se_plot_gp_quote(gp, id);
        se_buf_printf(gp, " %zu", i + 1);
    }
    se_buf_add(gp, ") rotate by 30 right nomirror\n");
    for (size_t i = 1; i < rd->p.n_shapes; i++)
        se_buf_printf(gp, "    set arrow %zu from first %zu.5, graph 0 to first %zu.5, graph 1 "
                          "nohead lc rgb \"#bbbbbb\"\n", i, i, i);
    se_buf_add(gp, "    set xlabel \"shape (rows x columns, fp32)\"\n");
}

double se_plot_offset_of(size_t k, size_t n)
{
    return -0.4 + ((double)k + 0.5) * 0.8 / (double)n;
}
