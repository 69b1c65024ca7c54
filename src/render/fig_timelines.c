/*
 * fig_timelines.c - Fig. 4: the dependency-trace timelines of the
 * cooperative strategies on one shape, per SM, coloured by phase (see
 * plot.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/plot.h"
#include "render/plot_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/paths.h"
#include "model/operation.h"

/* Phase colours of the timelines, and what each phase does. */
static const char *const PHASE_COLOR[SE_NPHASES] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a",
                                                    "#66a61e"};
static const char *const PHASE_WHAT[SE_NPHASES] = {
    "A: per-tile sum of squares and max", "B: per-row combine (s, m)",
    "C: per-tile sum of exp", "D: per-row combine (1/l)", "E: per-tile write y"};
/* LayerNorm's three (a run of another operation than the softmax plots
 * its own phases, model/operation.h's). */
static const char *const LN_PHASE_WHAT[3] = {"A: per-tile sums of x and x^2",
                                             "B: per-row combine (mean, rstd)", "C: per-tile write y"};

/* ---- fig4: dependency-trace timelines --------------------------------- */

int se_timeline_strategies(const se_strategy_table *t, int *out, int max)
{
    int n = 0;
    for (int k = 0; k < t->n && n < max; k++) {
        const se_strategy_info *info = &t->s[k];
        if (!info->cooperative || strcmp(info->launch, "stream") != 0)
            continue;
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= strcmp(t->s[out[j]].coop_group, info->coop_group) == 0;
        if (!seen)
            out[n++] = k;
    }
    return n;
}

/* Whether the case's trace file is in the run folder (a selected bundle
 * may keep it only in its archive: remote.json). */
static int trace_here(const se_rundata *rd, const char *id)
{
    char rel[256], path[4400];
    struct stat sb;
    se_path_trace(id, rel, sizeof rel);
    se_path_join(rd->dir, rel, path, sizeof path);
    return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

const se_shape *se_timeline_shape(const se_rundata *rd)
{
    const se_run_views *v = se_rundata_views(rd);
    const se_strategy_table *t = se_rundata_table(rd);
    int tl[SE_STRATEGY_MAX];
    int n = se_timeline_strategies(t, tl, SE_STRATEGY_MAX);
    const se_shape *best = NULL;
    for (size_t i = 0; i < rd->p.n_shapes; i++) {
        const se_shape *s = &rd->p.shapes[i];
        int all = n > 0;
        for (int k = 0; k < n; k++) {
            char id[SE_CASE_ID_SIZE];
            se_case_id_make(s->rows, s->cols, t->s[tl[k]].name, id, sizeof id);
            all = all && se_views_trace(v, id) && trace_here(rd, id);
        }
        if (!all)
            continue;
        if (s->rows == 4096 && s->cols == 4096)
            return s;
        if (!best || s->rows * s->cols > best->rows * best->cols)
            best = s;
    }
    return best;
}

typedef struct sm_block {
    int sm, block;
    int slot, slots;
} sm_block;

static int cmp_sm_block(const void *a, const void *b)
{
    const sm_block *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return (x->block > y->block) - (x->block < y->block);
}

/* Each (SM, block) pair of a trace and its place among the blocks of that
 * SM, so that blocks sharing an SM are drawn side by side. */
static se_status block_slots(const se_trace *t, sm_block **out, size_t *n_out, se_err *err)
{
    sm_block *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "out of memory for a trace's blocks");
    for (size_t i = 0; i < t->n; i++)
        v[i] = (sm_block){t->v[i].sm, t->v[i].block, 0, 1};
    qsort(v, t->n, sizeof *v, cmp_sm_block);
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (n == 0 || v[n - 1].sm != v[i].sm || v[n - 1].block != v[i].block)
            v[n++] = v[i];
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].sm == v[i].sm)
            j++;
        for (size_t k = i; k < j; k++) {
            v[k].slot = (int)(k - i);
            v[k].slots = (int)(j - i);
        }
        i = j;
    }
    *out = v;
    *n_out = n;
    return SE_OK;
}

static void print_us(se_buf *b, uint64_t ns)
{
    se_buf_printf(b, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Writes one trace's records, one block per phase. */
static se_status timeline_blocks(const se_trace *t, const char *what, int *block, se_buf *data,
                                 uint64_t *span, int *max_sm, se_err *err)
{
    sm_block *slots = NULL;
    size_t n_slots = 0;
    se_status st = block_slots(t, &slots, &n_slots, err);
    if (st != SE_OK)
        return st;
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t i = 0; i < t->n; i++) {
        t0 = t->v[i].start_ns < t0 ? t->v[i].start_ns : t0;
        t1 = t->v[i].end_ns > t1 ? t->v[i].end_ns : t1;
        *max_sm = t->v[i].sm > *max_sm ? t->v[i].sm : *max_sm;
    }
    *span = t->n ? t1 - t0 : 0;
    static const char phases[SE_NPHASES] = {'A', 'B', 'C', 'D', 'E'};
    for (int ph = 0; ph < SE_NPHASES; ph++) {
        se_buf_printf(data, "%s# block %d: %s, phase %c\n", *block ? "\n\n" : "", *block, what,
                      phases[ph]);
        (*block)++;
        size_t written = 0;
        for (size_t i = 0; i < t->n; i++) {
            const se_trace_task *r = &t->v[i];
            if (r->col_phase[0] != phases[ph])
                continue;
            sm_block key = {r->sm, r->block, 0, 1};
            const sm_block *s = bsearch(&key, slots, n_slots, sizeof *slots, cmp_sm_block);
            double y = r->sm + (s ? (s->slot + 0.5) / s->slots : 0.5) - 0.5;
            print_us(data, r->start_ns - t0);
            se_buf_add(data, "\t");
            print_us(data, r->end_ns - t0);
            se_buf_printf(data, "\t%.4f\t%d\t%d\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n", y, r->sm,
                          r->block, r->task, r->col_row, r->col_tile);
            written++;
        }
        if (!written)
            se_buf_add(data, "NaN\tNaN\tNaN\t0\t0\t0\t0\t0\n");
    }
    free(slots);
    return SE_OK;
}

se_status se_fig_timelines(plot_ctx *c, se_figure *f, se_err *err)
{
    se_rundata *rd = c->rd;
    const se_shape *s = se_timeline_shape(rd);
    const se_strategy_table *tab = se_rundata_table(c->rd);
    int tl[SE_PLOT_MAX_TIMELINES];
    int n = se_timeline_strategies(tab, tl, SE_PLOT_MAX_TIMELINES);
    char names[256] = "";
    for (int k = 0; k < n; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 k == 0 ? "" : k + 1 == n ? " and " : ", ", tab->s[tl[k]].name);
    char run_label[160];
    se_plot_run_label(run_label, sizeof run_label, rd);
    f->width = 1800;
    f->height = 1400;
    if (!s) {
        snprintf(f->title, sizeof f->title, "Fig. 4: dependency-trace timelines; %s", run_label);
        f->omitted = 1;
        snprintf(f->why_omitted, sizeof f->why_omitted,
                 "the run has no shape with a trace of each of %s in its folder (a selected "
                 "bundle may keep them only in its archive: " SE_REMOTE_JSON ")", names);
        return SE_OK;
    }
    char id[SE_CASE_ID_SIZE];
    se_shape_id(s->rows, s->cols, id, sizeof id);
    snprintf(f->title, sizeof f->title,
             "Fig. 4: dependency traces on %s, one segment per task (start to end), by SM and "
             "phase; %s", id, run_label);
    se_buf data = {0}, gp = {0};
    static const char *const count[] = {"no", "one", "two", "three", "four"};
    char what[64];
    snprintf(what, sizeof what, "task records of %s traces", count[n]);
    se_plot_data_header(&data, "data/fig4_timelines.tsv", rd, what);
    se_buf_add(&data, "# columns: start_us, end_us (from the trace's first task start), y (SM, "
                      "blocks of one SM side by side), sm, block, task, row, tile\n"
                      "# one block per (strategy, phase)\n");
    se_status st = se_plot_add_common_run_files(f, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->run_files, SE_TRACES_JSON, err);
    uint64_t span[SE_PLOT_MAX_TIMELINES] = {0}, xmax = 0;
    int max_sm = 0, block = 0;
    for (int k = 0; k < n && st == SE_OK; k++) {
        char rid[SE_CASE_ID_SIZE], rel[SE_CASE_ID_SIZE + 32];
        se_case_id_make(s->rows, s->cols, tab->s[tl[k]].name, rid, sizeof rid);
        se_path_trace(rid, rel, sizeof rel);
        se_trace t = {NULL, 0};
        st = se_strlist_add(&f->run_files, rel, err);
        if (st == SE_OK)
            st = se_rundata_trace(rd, rel, &t, err);
        if (st == SE_OK)
            st = timeline_blocks(&t, tab->s[tl[k]].name, &block, &data, &span[k], &max_sm,
                                 err);
        se_trace_free(&t);
        xmax = span[k] > xmax ? span[k] : xmax;
    }
    /* Traced spans are not timings: what tracing adds, per strategy, from
     * traces.json's traced and untraced medians of the same case. */
    size_t tl_len = strlen(f->title);
    snprintf(f->title + tl_len, sizeof f->title - tl_len,
             ". Traced spans are not timings: tracing adds");
    for (int k = 0; k < n; k++) {
        char rid[SE_CASE_ID_SIZE];
        se_case_id_make(s->rows, s->cols, tab->s[tl[k]].name, rid, sizeof rid);
        const se_tracing_cost_view *cost = se_views_tracing_cost(se_rundata_views(rd), rid);
        tl_len = strlen(f->title);
        if (cost)
            snprintf(f->title + tl_len, sizeof f->title - tl_len,
                     "%s %.0f%% to %s (median %.1f us untraced, %.1f us traced)",
                     k ? ";" : "", cost->overhead_fraction * 100, tab->s[tl[k]].name,
                     cost->untraced_median_ns / 1e3, cost->traced_median_ns / 1e3);
        else
            snprintf(f->title + tl_len, sizeof f->title - tl_len, "%s an unmeasured amount to %s",
                     k ? ";" : "", tab->s[tl[k]].name);
    }
    tl_len = strlen(f->title);
    snprintf(f->title + tl_len, sizeof f->title - tl_len,
             "; compare strategies by the timing table, not by these spans");
    se_plot_script_begin(&gp, f, rd);
    se_buf_printf(&gp, "    set multiplot layout %d,1 title ", n);
    /* Drawn on three lines: what it shows, what tracing adds, the warning. */
    char drawn[sizeof f->title];
    snprintf(drawn, sizeof drawn, "%s", f->title);
    char *cut = strstr(drawn, ". Traced spans");
    if (cut) {
        memmove(cut + 1, cut + 2, strlen(cut + 2) + 1);
        cut[0] = '\n';
    }
    cut = strstr(drawn, "; compare strategies");
    if (cut) {
        memmove(cut + 1, cut + 2, strlen(cut + 2) + 1);
        cut[0] = '\n';
    }
    se_plot_gp_quote(&gp, drawn);
    se_buf_printf(&gp, " font \"" SE_PLOT_FONT ",16\"\n    set xrange [0:%.3f]\n    set yrange [-0.5:%d.5]\n",
                  (double)xmax / 1e3 * 1.01, max_sm);
    se_buf_add(&gp, "    set xlabel \"time from the trace's first task start (us; %globaltimer, gaps "
                    "under its resolution mean nothing)\"\n"
                    "    set ylabel \"SM (%smid)\"\n    set ytics 0,12 nomirror\n"
                    "    set grid xtics lc rgb \"#dddddd\"\n"
                    "    set lmargin at screen 0.06\n    set rmargin at screen 0.74\n");
    for (int k = 0; k < n; k++) {
        char rid[SE_CASE_ID_SIZE], title[400];
        se_case_id_make(s->rows, s->cols, tab->s[tl[k]].name, rid, sizeof rid);
        static const se_trace_view none;
        const se_trace_view *rep = se_views_trace(se_rundata_views(rd), rid);
        rep = rep ? rep : &none;
        snprintf(title, sizeof title,
                 "%s: %lld tasks on %lld SMs, traced span %.3f us, overlap of later phases %.3f, "
                 "checks: %s", tab->s[tl[k]].name, rep->records, rep->sms_used,
                 (double)span[k] / 1e3, rep->overlap_fraction, se_plot_str(rep->verdict, "?"));
        se_buf_add(&gp, "    set title ");
        se_plot_gp_quote(&gp, title);
        se_buf_add(&gp, "\n");
        if (k == 0)
            se_buf_add(&gp, "    set key at screen 0.75, screen 0.9 left top Left reverse samplen 2 "
                            "spacing 1.3\n");
        else
            se_buf_add(&gp, "    unset key\n");
        se_buf_add(&gp, "    plot ");
        const int ln = se_rundata_operation(rd)->n_phases == 3;
        for (int ph = 0; ph < (ln ? 3 : SE_NPHASES); ph++) {
            se_buf_printf(&gp, "%s\"data/fig4_timelines.tsv\" index %d using 1:3:($2-$1):(0) with "
                               "vectors nohead lw 1.2 lc rgb \"%s\" title ",
                          ph ? ", \\\n         " : "", k * SE_NPHASES + ph, PHASE_COLOR[ph]);
            se_plot_gp_quote(&gp, ln ? LN_PHASE_WHAT[ph] : PHASE_WHAT[ph]);
        }
        se_buf_add(&gp, "\n");
    }
    se_plot_script_end(&gp);
    if (st == SE_OK)
        st = se_plot_write_rel(c, "data/fig4_timelines.tsv", &data, err);
    if (st == SE_OK)
        st = se_strlist_add(&f->data_files, "data/fig4_timelines.tsv", err);
    if (st == SE_OK)
        st = se_plot_finish(c, f, &gp, err);
    se_buf_free(&data);
    se_buf_free(&gp);
    return st;
}
