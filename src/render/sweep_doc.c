/*
 * sweep_doc.c - the fraction-of-copy tables by row length and the goals
 * with the five-phase bound, as documents (see sweep_doc.h). Every number
 * is bundle/sweep.c's; this file only lays them out.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/sweep_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/verify.h"
#include "bundle/views.h"
#include "render/buf.h"

#define CELL 200
#define NUM 40
#define MAX_COLS (SE_SWEEP_MAX_ITEMS + 4)

static void frac(char *buf, double v)
{
    if (isfinite(v))
        snprintf(buf, NUM, "%.3f", v);
    else
        snprintf(buf, NUM, "-");
}

static void us(char *buf, double ns)
{
    if (isfinite(ns))
        snprintf(buf, NUM, "%.2f", ns / 1e3);
    else
        snprintf(buf, NUM, "-");
}

static void row(se_doc *d, int n, char cells[][CELL])
{
    const char *p[MAX_COLS];
    for (int i = 0; i < n; i++)
        p[i] = cells[i];
    se_doc_row(d, n, p);
}

static void header(se_doc *d, int n, char cells[][CELL])
{
    const char *p[MAX_COLS];
    for (int i = 0; i < n; i++)
        p[i] = cells[i];
    se_doc_table_cells(d, n, p, NULL);
}

void se_sweep_doc_fractions(se_doc *d, const se_sweep *s, int level)
{
    char cells[MAX_COLS][CELL];
    for (size_t q = 0; q < s->n_groups; q++) {
        const se_sweep_group *g = &s->groups[q];
        se_doc_heading(d, level, "%s: %zu shape%s, %zu row length%s", g->label, g->n,
                       g->n == 1 ? "" : "s", g->n_lengths, g->n_lengths == 1 ? "" : "s");
        int n = 0;
        snprintf(cells[n++], CELL, "row length");
        snprintf(cells[n++], CELL, "shape");
        for (size_t k = 0; k < s->n_names; k++)
            snprintf(cells[n++], CELL, "%.100s%s", s->names[k], s->name_is_peer[k] ? " (warm)" : "");
        header(d, n, cells);
        for (size_t m = 0; m < g->n; m++) {
            const se_sweep_shape *sh = &s->shapes[g->members[m]];
            n = 0;
            snprintf(cells[n++], CELL, "%lld", (long long)sh->shape->cols);
            snprintf(cells[n++], CELL, "%s", sh->id);
            for (size_t k = 0; k < s->n_names; k++) {
                const se_sweep_item *it = se_sweep_item_of(sh, s->names[k]);
                char w[NUM], c[NUM];
                frac(w, it ? it->fraction[SE_WARM] : NAN);
                frac(c, it ? it->fraction[SE_COLD] : NAN);
                if (!it)
                    snprintf(cells[n++], CELL, "-");
                else if (it->peer)
                    snprintf(cells[n++], CELL, "%s%s", w, it->validated ? "" : " (failed)");
                else
                    snprintf(cells[n++], CELL, "%s / %s%s", w, c, it->validated ? "" : " (failed)");
            }
            row(d, n, cells);
        }
        se_doc_table_end(d);
    }
}

static const char *mark(int g)
{
    return g == SE_GOAL_MET ? "met" : g == SE_GOAL_NOT_MET ? "NOT MET" : "-";
}

static void named(char *buf, const se_sweep_item *it, int sc)
{
    if (it)
        snprintf(buf, CELL, "%.100s %.3f", it->name, it->fraction[sc]);
    else
        snprintf(buf, CELL, "-");
}

static void shapes_table(se_doc *d, const se_sweep *s, const se_goals *g)
{
    se_doc_table(d, "shape|group|moves|copy warm / flushed (us)|ours, of copy, warm|"
                    "ours, of copy, flushed|G1|best peer (us)|best peer / ours|G2|ours - copy (us)|"
                    "G3|best tiled, of copy|G4", NULL);
    char cells[14][CELL];
    for (size_t i = 0; i < g->n_rows; i++) {
        const se_goal_row *r = &g->rows[i];
        const se_sweep_shape *sh = &s->shapes[r->shape];
        const se_sweep_item *w = r->fastest[SE_WARM];
        char a[NUM], b[NUM];
        snprintf(cells[0], CELL, "%s", sh->id);
        snprintf(cells[1], CELL, "%s", s->groups[sh->group].label);
        se_sweep_bytes_text(cells[2], CELL, sh->moved);
        us(a, sh->copy[SE_WARM]);
        us(b, sh->copy[SE_COLD]);
        snprintf(cells[3], CELL, "%s / %s", a, b);
        named(cells[4], w, SE_WARM);
        named(cells[5], r->fastest[SE_COLD], SE_COLD);
        snprintf(cells[6], CELL, "%s", mark(r->g[0]));
        if (r->best_peer) {
            us(a, r->best_peer->median[SE_WARM]);
            snprintf(cells[7], CELL, "%.100s %s", r->best_peer->name, a);
        } else {
            snprintf(cells[7], CELL, "-");
        }
        if (r->best_peer && w)
            snprintf(cells[8], CELL, "%.3f", r->best_peer->median[SE_WARM] / w->median[SE_WARM]);
        else
            snprintf(cells[8], CELL, "-");
        snprintf(cells[9], CELL, "%s", mark(r->g[1]));
        if (isfinite(r->gap_ns))
            snprintf(cells[10], CELL, "%+.2f", r->gap_ns / 1e3);
        else
            snprintf(cells[10], CELL, "-");
        snprintf(cells[11], CELL, "%s", mark(r->g[2]));
        named(cells[12], r->best_tiled, SE_WARM);
        snprintf(cells[13], CELL, "%s", mark(r->g[3]));
        row(d, 14, cells);
    }
    se_doc_table_end(d);
}

/* The tiled strategies the run recorded, in table order. */
static int recorded_tiled(const se_sweep *s, int *out)
{
    int n = 0;
    for (size_t k = 0; k < s->n_names && n < SE_STRATEGY_MAX; k++) {
        int st = se_stable_find(s->table, s->names[k]);
        if (!s->name_is_peer[k] && st < s->table->n && s->table->s[st].tiled)
            out[n++] = st;
    }
    return n;
}

static void pairs_table(se_doc *d, const se_sweep *s, const se_goals *g)
{
    int tiled[SE_STRATEGY_MAX];
    int nt = recorded_tiled(s, tiled);
    char cells[MAX_COLS][CELL];
    int n = 0;
    snprintf(cells[n++], CELL, "unaligned shape");
    snprintf(cells[n++], CELL, "aligned neighbour");
    for (int k = 0; k < nt; k++)
        snprintf(cells[n++], CELL, "%s", (&s->table->s[tiled[k]])->name);
    snprintf(cells[n++], CELL, "G5");
    header(d, n, cells);
    for (size_t i = 0; i < g->n_pairs; i++) {
        const se_goal_pair *p = &g->pairs[i];
        n = 0;
        snprintf(cells[n++], CELL, "%s", s->shapes[p->unaligned].id);
        snprintf(cells[n++], CELL, "%s", s->shapes[p->aligned].id);
        for (int k = 0; k < nt; k++) {
            double r = p->ratio[tiled[k]];
            if (!isfinite(r))
                snprintf(cells[n++], CELL, "-");
            else
                snprintf(cells[n++], CELL, "%.3f%s", r, r > SE_GOAL_G5_SLOWER ? " (slower)" : "");
        }
        snprintf(cells[n++], CELL, "%s", mark(p->met));
        row(d, n, cells);
    }
    se_doc_table_end(d);
}

static void bound_table(se_doc *d, const se_sweep *s, const se_goals *g)
{
    int tiled[SE_STRATEGY_MAX];
    int nt = recorded_tiled(s, tiled);
    char launches[32];
    snprintf(launches, sizeof launches, "%d launches", s->phases);
    const char *const floor_name[SE_NFLOORS] = {launches, "fusion", "megakernel"};
    char cells[MAX_COLS][CELL];
    int n = 0;
    snprintf(cells[n++], CELL, "shape");
    snprintf(cells[n++], CELL, "moves");
    snprintf(cells[n++], CELL, "copy (us)");
    for (int f = 0; f < SE_NFLOORS; f++) {
        snprintf(cells[n++], CELL, "floor: %s (us)", floor_name[f]);
        for (int k = 0; k < nt; k++)
            if (se_goal_floor_of(&s->table->s[tiled[k]]) == f)
                snprintf(cells[n++], CELL, "%s / floor", (&s->table->s[tiled[k]])->name);
    }
    header(d, n, cells);
    for (size_t i = 0; i < g->n_rows; i++) {
        const se_goal_row *r = &g->rows[i];
        const se_sweep_shape *sh = &s->shapes[r->shape];
        n = 0;
        snprintf(cells[n++], CELL, "%s", sh->id);
        se_sweep_bytes_text(cells[n++], CELL, sh->moved);
        us(cells[n++], sh->copy[SE_WARM]);
        for (int f = 0; f < SE_NFLOORS; f++) {
            us(cells[n++], r->floor[f]);
            for (int k = 0; k < nt; k++) {
                if (se_goal_floor_of(&s->table->s[tiled[k]]) != f)
                    continue;
                const se_sweep_item *it = se_sweep_item_of(sh, (&s->table->s[tiled[k]])->name);
                if (it && isfinite(r->floor[f]) && r->floor[f] > 0 && isfinite(it->median[SE_WARM]))
                    snprintf(cells[n++], CELL, "%.2f", it->median[SE_WARM] / r->floor[f]);
                else
                    snprintf(cells[n++], CELL, "-");
            }
        }
        row(d, n, cells);
    }
    se_doc_table_end(d);
}

void se_sweep_doc_goals(se_doc *d, const se_rundata *rd, const se_sweep *s, const se_goals *g)
{
    const struct se_run_views *v = se_rundata_views(rd);
    const char *gpu = v && v->env.gpu_name ? v->env.gpu_name : "a GPU the run did not record";
    se_doc_para(d, "Issue 30's goals per shape, from run %s (protocol '%s', %zu shapes, on %s), device "
                   "time: \"of copy\" is median(copy) / median of the same shape and scope, L2 warm "
                   "(scope device) or flushed (device_cold); the PyTorch peers are timed L2 warm "
                   "only. Ours: the fastest validated strategy that is not a reference, in each "
                   "scope. Best peer: the fastest validated PyTorch peer or cuDNN, L2 warm (best "
                   "peer / ours above 1: ours is faster). MB: 10^6 bytes moved (x read once, y "
                   "written once).",
                rd->run_id, rd->p.name, s->n_shapes, gpu);
    se_doc_item(d, "G1: ours >= %.2f of copy L2 warm and >= %.2f flushed, on shapes moving >= "
                   "%.0f MB: met on %zu of %zu.", SE_GOAL_G1_WARM, SE_GOAL_G1_COLD,
                SE_GOAL_G1_MOVED / SE_SWEEP_MB, g->met[0], g->of[0]);
    se_doc_item(d, "G2: ours faster than the best peer (median below every validated peer's), "
                   "on shapes moving >= %.0f MB where a peer ran: met on %zu of %zu.",
                SE_GOAL_G2_MOVED / SE_SWEEP_MB, g->met[1], g->of[1]);
    se_doc_item(d, "G3: ours within %.1f us of copy (L2 warm), on launch-bound shapes (moving "
                   "under 1 MB) of at most %d rows: met on %zu of %zu.", SE_GOAL_G3_GAP_NS / 1e3,
                SE_GOAL_G3_ROWS, g->met[2], g->of[2]);
    se_doc_item(d, "G4: the fastest validated tiled strategy >= %.2f of copy L2 warm, on shapes "
                   "moving >= %.0f MB: met on %zu of %zu.", SE_GOAL_G4_FRACTION,
                SE_GOAL_G4_MOVED / SE_SWEEP_MB, g->met[3], g->of[3]);
    se_doc_item(d, "G5: no tiled strategy more than %.0f %% slower per element on a row length "
                   "that is not a multiple of 4 than on its aligned neighbour: met on %zu of %zu "
                   "pairs (%zu unaligned shape%s without an aligned neighbour).",
                (SE_GOAL_G5_SLOWER - 1) * 100, g->met[4], g->of[4], g->n_unpaired,
                g->n_unpaired == 1 ? "" : "s");
    shapes_table(d, s, g);
    se_doc_para(d, "G5 pairs: the aligned neighbour of a row length C that is not a multiple of 4 "
                   "is the row length that is a multiple of 4, in the same group (input-size "
                   "family, or launch-bound shapes of one row count), nearest to C by ratio and "
                   "within a factor of %.2f, among those whose rows take as many tiles as C's "
                   "where the group has one; each cell is a tiled strategy's time per element on "
                   "the unaligned shape over its time per element on the neighbour (L2 warm), "
                   "\"slower\" above %.2f.", SE_GOAL_G5_NEAR, SE_GOAL_G5_SLOWER);
    if (g->n_pairs)
        pairs_table(d, s, g);
    static const char *const count[] = {"zero", "one", "two", "three", "four", "five",
                                        "six", "seven", "eight"};
    const int ph = s->phases, between = ph - 1;
    const char *word = ph >= 0 && ph <= 8 ? count[ph] : "several";
    se_doc_para(d, "The %s-phase bound: bytes that must move (x read once, y written once) at "
                   "the same run's copy of the same bytes, which includes one launch, plus what "
                   "the tiled algorithm needs beyond it, each from this run's controls: %d "
                   "launches = copy + %d x empty stream launch (%.2f us; stream, graph and PDL run "
                   "the %s phases as %s kernels, and graphs and PDL exist to undercut this); "
                   "fusion = copy + max(0, cooperative no-op - empty launch) (%.2f us) + %d x grid "
                   "barrier (%.3f us); megakernel = copy + max(0, its initialization alone on the "
                   "shape - empty launch). Each strategy's column is its median (L2 warm) over its "
                   "floor.",
                word, ph, between, s->empty_stream / 1e3, word, word,
                fmax(0.0, s->coop_noop - s->empty_stream) / 1e3, between,
                s->grid_barrier / 1e3);
    bound_table(d, s, g);
}

se_status se_goals_main(const char *dir, int markdown, FILE *out, se_err *err)
{
    se_status st = se_verify_first(dir, "goals", "no goals are printed from it", err);
    if (st != SE_OK)
        return st;
    fprintf(stderr, "goals: %s verifies (softmax-evidence verify %s)\n", dir, dir);
    se_rundata rd;
    st = se_rundata_load(dir, &rd, err);
    if (st != SE_OK)
        return st;
    se_sweep s;
    se_goals g = {0};
    st = se_sweep_read(&rd, &s, err);
    if (st == SE_OK)
        st = se_goals_compute(&s, &g, err);
    se_doc d = {0};
    se_buf b = {0};
    if (st == SE_OK) {
        se_sweep_doc_goals(&d, &rd, &s, &g);
        st = se_doc_check(&d, "goals", err);
    }
    if (st == SE_OK) {
        if (markdown)
            se_doc_markdown(&d, &b);
        else
            se_doc_plain(&d, &b);
        if (fputs(se_buf_str(&b), out) == EOF || fflush(out) != 0)
            st = se_fail(err, SE_ERR_IO, "goals: the output cannot be written");
    }
    se_buf_free(&b);
    se_doc_free(&d);
    se_goals_free(&g);
    se_sweep_free(&s);
    se_rundata_free(&rd);
    return st;
}
