/*
 * sweep.c - a run read along its row lengths, its goals and floors (see
 * sweep.h). Groups: a shape that moves under SE_SWEEP_LAUNCH_BOUND is
 * launch-bound and joins the group of its row count; the others, in order
 * of input size, form families: a family starts at the smallest shape left
 * and takes every shape whose input is at most SE_SWEEP_FAMILY_SPAN times
 * that one's (the sweep protocol's shapes: one family of 33.2 to 67.1 MB of
 * input, one of 268 MB).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/sweep.h"
#include "model/operation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num_or_nan(const json_t *o, const char *path)
{
    const json_t *v = se_json_path(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int passed(const se_rundata *rd, const char *case_id)
{
    return json_is_true(json_object_get(se_rundata_validation_case(rd, case_id), "pass"));
}

static void add_name(se_sweep *s, const char *name, int peer)
{
    for (size_t i = 0; i < s->n_names; i++)
        if (strcmp(s->names[i], name) == 0)
            return;
    if (s->n_names < SE_SWEEP_MAX_ITEMS) {
        s->name_is_peer[s->n_names] = peer;
        s->names[s->n_names++] = name;
    }
}

/* The strategies of shape sh (summary.json's cases), then its peers
 * (peers.json entries with a summary). */
static void read_items(const se_rundata *rd, se_sweep_shape *sh)
{
    static const char *const scopes[2] = {"scopes.device", "scopes.device_cold"};
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(rd->summary, "cases"), i, c) {
        if (json_integer_value(json_object_get(c, "rows")) != sh->shape->rows ||
            json_integer_value(json_object_get(c, "cols")) != sh->shape->cols)
            continue;
        const char *what = se_json_str(c, "what", "");
        char path[64];
        if (strcmp(what, "copy") == 0 || se_stable_is_init_control(se_rundata_table(rd), what)) {
            for (int sc = 0; sc < 2; sc++) {
                snprintf(path, sizeof path, "%s.median_ns", scopes[sc]);
                if (strcmp(what, "copy") == 0)
                    sh->copy[sc] = num_or_nan(c, path);
                else if (sc == SE_WARM)
                    sh->mk_init = num_or_nan(c, path);
            }
            continue;
        }
        const se_strategy_table *t = se_rundata_table(rd);
        int st = se_stable_find(t, what);
        if (st == t->n || sh->n_items == SE_SWEEP_MAX_ITEMS)
            continue;
        se_sweep_item *it = &sh->items[sh->n_items++];
        it->name = what;
        it->strategy = st;
        it->info = &t->s[st];
        it->validated = passed(rd, se_json_str(c, "case", ""));
        for (int sc = 0; sc < 2; sc++) {
            snprintf(path, sizeof path, "%s.median_ns", scopes[sc]);
            it->median[sc] = num_or_nan(c, path);
            snprintf(path, sizeof path, "%s.fraction_of_copy", scopes[sc]);
            it->fraction[sc] = num_or_nan(c, path);
        }
    }
    json_array_foreach(json_object_get(rd->peers, "peers"), i, c) {
        const json_t *sum = json_object_get(c, "summary");
        if (json_integer_value(json_object_get(c, "rows")) != sh->shape->rows ||
            json_integer_value(json_object_get(c, "cols")) != sh->shape->cols || !sum ||
            !json_is_string(json_object_get(c, "peer")) || sh->n_items == SE_SWEEP_MAX_ITEMS)
            continue;
        se_sweep_item *it = &sh->items[sh->n_items++];
        it->name = se_json_str(c, "peer", "?");
        it->peer = 1;
        it->strategy = -1;
        it->info = NULL;
        it->validated = strcmp(se_json_str(c, "status", ""), "ok") == 0;
        it->median[SE_WARM] = num_or_nan(sum, "median_ns");
        it->fraction[SE_WARM] = num_or_nan(sum, "fraction_of_copy");
        it->median[SE_COLD] = it->fraction[SE_COLD] = NAN; /* peers are timed L2 warm only */
    }
}

static const se_sweep_shape *sort_base;

/* By row length, then rows. */
static int by_length(const void *a, const void *b)
{
    const se_shape *x = sort_base[*(const size_t *)a].shape, *y = sort_base[*(const size_t *)b].shape;
    if (x->cols != y->cols)
        return x->cols < y->cols ? -1 : 1;
    return (x->rows > y->rows) - (x->rows < y->rows);
}

/* By input size, then protocol order. */
static int by_input(const void *a, const void *b)
{
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = sort_base[i].input, y = sort_base[j].input;
    if (x != y)
        return x < y ? -1 : 1;
    return (i > j) - (i < j);
}

void se_sweep_bytes_text(char *buf, size_t size, double bytes)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (u < 4 && bytes >= 999.5) {
        bytes /= 1e3;
        u++;
    }
    snprintf(buf, size, u ? "%.3g %s" : "%.0f %s", bytes, unit[u]);
}

/* Group g's label, member order and number of distinct row lengths. */
static void finish_group(se_sweep *s, se_sweep_group *g)
{
    sort_base = s->shapes;
    qsort(g->members, g->n, sizeof *g->members, by_length);
    g->lo = g->hi = s->shapes[g->members[0]].input;
    g->n_lengths = 0;
    for (size_t k = 0; k < g->n; k++) {
        const se_sweep_shape *sh = &s->shapes[g->members[k]];
        g->lo = sh->input < g->lo ? sh->input : g->lo;
        g->hi = sh->input > g->hi ? sh->input : g->hi;
        if (k == 0 || s->shapes[g->members[k - 1]].shape->cols != sh->shape->cols)
            g->n_lengths++;
    }
    char lo[32], hi[32];
    se_sweep_bytes_text(lo, sizeof lo, g->lo);
    se_sweep_bytes_text(hi, sizeof hi, g->hi);
    if (g->launch_bound)
        snprintf(g->label, sizeof g->label, "launch-bound, %lld row%s",
                 (long long)g->rows, g->rows == 1 ? "" : "s");
    else if (strcmp(lo, hi) == 0)
        snprintf(g->label, sizeof g->label, "input %s", lo);
    else
        snprintf(g->label, sizeof g->label, "input %s to %s", lo, hi);
}

static se_status make_groups(se_sweep *s, se_err *err)
{
    size_t n = s->n_shapes;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    s->groups = calloc(n ? n : 1, sizeof *s->groups);
    if (!order || !s->groups) {
        free(order);
        return se_fail(err, SE_ERR_NOMEM, "sweep: out of memory");
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    sort_base = s->shapes;
    qsort(order, n, sizeof *order, by_input);
    /* Families, in order of size. */
    size_t k = 0;
    while (k < n && s->shapes[order[k]].moved < SE_SWEEP_LAUNCH_BOUND)
        k++;
    for (size_t first = k; first < n;) {
        se_sweep_group *g = &s->groups[s->n_groups];
        g->members = malloc((n - first) * sizeof *g->members);
        if (!g->members) {
            free(order);
            return se_fail(err, SE_ERR_NOMEM, "sweep: out of memory");
        }
        s->n_groups++;
        size_t j = first;
        while (j < n && s->shapes[order[j]].input <= SE_SWEEP_FAMILY_SPAN * s->shapes[order[first]].input) {
            s->shapes[order[j]].group = s->n_groups - 1;
            g->members[g->n++] = order[j++];
        }
        finish_group(s, g);
        first = j;
    }
    /* Launch-bound shapes, one group per row count, by rows. */
    for (;;) {
        int64_t rows = -1;
        for (size_t i = 0; i < k; i++) {
            int64_t r = s->shapes[order[i]].shape->rows;
            int taken = 0;
            for (size_t q = 0; q < s->n_groups; q++)
                taken |= s->groups[q].launch_bound && s->groups[q].rows == r;
            if (!taken && (rows < 0 || r < rows))
                rows = r;
        }
        if (rows < 0)
            break;
        se_sweep_group *g = &s->groups[s->n_groups];
        g->members = malloc(k * sizeof *g->members);
        if (!g->members) {
            free(order);
            return se_fail(err, SE_ERR_NOMEM, "sweep: out of memory");
        }
        s->n_groups++;
        g->launch_bound = 1;
        g->rows = rows;
        for (size_t i = 0; i < k; i++)
            if (s->shapes[order[i]].shape->rows == rows) {
                s->shapes[order[i]].group = s->n_groups - 1;
                g->members[g->n++] = order[i];
            }
        finish_group(s, g);
    }
    free(order);
    return SE_OK;
}

static double control_median(const se_rundata *rd, const char *id)
{
    return num_or_nan(se_rundata_summary_case(rd, id), "scopes.device.median_ns");
}

se_status se_sweep_read(const se_rundata *rd, se_sweep *s, se_err *err)
{
    memset(s, 0, sizeof *s);
    s->table = se_rundata_table(rd);
    s->n_shapes = rd->p.n_shapes;
    s->tile = rd->p.tile;
    s->shapes = calloc(s->n_shapes ? s->n_shapes : 1, sizeof *s->shapes);
    if (!s->shapes)
        return se_fail(err, SE_ERR_NOMEM, "sweep: out of memory");
    for (size_t i = 0; i < s->n_shapes; i++) {
        se_sweep_shape *sh = &s->shapes[i];
        sh->shape = &rd->p.shapes[i];
        se_shape_id(sh->shape->rows, sh->shape->cols, sh->id, sizeof sh->id);
        sh->input = 4.0 * (double)sh->shape->rows * (double)sh->shape->cols;
        sh->moved = 2.0 * sh->input;
        sh->copy[SE_WARM] = sh->copy[SE_COLD] = sh->mk_init = NAN;
        read_items(rd, sh);
        for (size_t k = 0; k < sh->n_items; k++)
            if (!sh->items[k].peer)
                add_name(s, sh->items[k].name, 0);
    }
    for (size_t i = 0; i < s->n_shapes; i++)
        for (size_t k = 0; k < s->shapes[i].n_items; k++)
            if (s->shapes[i].items[k].peer)
                add_name(s, s->shapes[i].items[k].name, 1);
    s->empty_stream = control_median(rd, "control.empty_stream");
    s->coop_noop = control_median(rd, "control.coop_noop");
    s->grid_barrier = num_or_nan(se_rundata_derived(rd), "grid_barrier_ns.value");
    s->phases = se_rundata_operation(rd)->n_phases;
    return make_groups(s, err);
}

void se_sweep_free(se_sweep *s)
{
    for (size_t g = 0; g < s->n_groups; g++)
        free(s->groups[g].members);
    free(s->groups);
    free(s->shapes);
    memset(s, 0, sizeof *s);
}

const se_sweep_item *se_sweep_item_of(const se_sweep_shape *sh, const char *name)
{
    for (size_t k = 0; k < sh->n_items; k++)
        if (strcmp(sh->items[k].name, name) == 0)
            return &sh->items[k];
    return NULL;
}

/* ---- goals -------------------------------------------------------------- */

int se_goal_floor_of(const se_strategy_info *s)
{
    const char *mech = s->mechanism;
    if (strcmp(mech, "fusion") == 0)
        return SE_FLOOR_FUSION;
    if (strcmp(mech, "megakernel") == 0)
        return SE_FLOOR_MEGAKERNEL;
    return SE_FLOOR_LAUNCHES; /* stream, graph, pdl: a launch a phase */
}

/* The fastest item in scope sc among those keep() accepts, or NULL. */
static const se_sweep_item *fastest(const se_sweep_shape *sh, int sc,
                                    int (*keep)(const se_sweep_item *))
{
    const se_sweep_item *best = NULL;
    for (size_t k = 0; k < sh->n_items; k++) {
        const se_sweep_item *it = &sh->items[k];
        if (it->validated && keep(it) && isfinite(it->median[sc]) &&
            (!best || it->median[sc] < best->median[sc]))
            best = it;
    }
    return best;
}

static int is_ours(const se_sweep_item *it)
{
    return !it->peer && it->info->role != SE_ROLE_REFERENCE;
}

static int is_peer(const se_sweep_item *it)
{
    return it->peer || it->info->role == SE_ROLE_REFERENCE;
}

static int is_tiled(const se_sweep_item *it)
{
    return !it->peer && it->info->tiled;
}

static double pos(double v)
{
    return v > 0 ? v : 0;
}

static void goal_row(const se_sweep *s, size_t i, se_goal_row *r)
{
    const se_sweep_shape *sh = &s->shapes[i];
    r->shape = i;
    for (int sc = 0; sc < 2; sc++)
        r->fastest[sc] = fastest(sh, sc, is_ours);
    r->best_peer = fastest(sh, SE_WARM, is_peer);
    r->best_tiled = fastest(sh, SE_WARM, is_tiled);
    const se_sweep_item *w = r->fastest[SE_WARM], *c = r->fastest[SE_COLD];
    for (int k = 0; k < 4; k++)
        r->g[k] = SE_GOAL_NA;
    if (sh->moved >= SE_GOAL_G1_MOVED)
        r->g[0] = w && c && w->fraction[SE_WARM] >= SE_GOAL_G1_WARM &&
                  c->fraction[SE_COLD] >= SE_GOAL_G1_COLD;
    if (sh->moved >= SE_GOAL_G2_MOVED && r->best_peer)
        r->g[1] = w && w->median[SE_WARM] < r->best_peer->median[SE_WARM];
    r->gap_ns = w ? w->median[SE_WARM] - sh->copy[SE_WARM] : NAN;
    if (s->groups[sh->group].launch_bound && sh->shape->rows <= SE_GOAL_G3_ROWS)
        r->g[2] = w && r->gap_ns <= SE_GOAL_G3_GAP_NS;
    if (sh->moved >= SE_GOAL_G4_MOVED)
        r->g[3] = r->best_tiled && r->best_tiled->fraction[SE_WARM] >= SE_GOAL_G4_FRACTION;
    /* The floors: the copy (one launch and the bytes), plus what the
     * algorithm adds to it (docs/PERFORMANCE.md, "The five-phase bound"):
     * a launch a phase past the first, or a grid barrier between two. */
    double copy = sh->copy[SE_WARM], L = s->empty_stream, between = s->phases - 1;
    r->floor[SE_FLOOR_LAUNCHES] = copy + between * L;
    r->floor[SE_FLOOR_FUSION] = copy + pos(s->coop_noop - L) + between * s->grid_barrier;
    r->floor[SE_FLOOR_MEGAKERNEL] = copy + pos(sh->mk_init - L);
}

/* Tiles a row of cols columns takes (1 where the run's tile is unknown). */
static int64_t row_tiles(const se_sweep *s, int64_t cols)
{
    return s->tile > 0 ? (cols + s->tile - 1) / s->tile : 1;
}

/* The aligned neighbour of unaligned shape u in its group, or -1: the row
 * length that is a multiple of 4 nearest by ratio, within a factor of
 * SE_GOAL_G5_NEAR, among those whose rows take as many tiles as u's where
 * the group has one (so that 4097 columns, two tiles of T = 4096, pair
 * with 4100, not with 4096's one tile: docs/PERFORMANCE.md, "G5 at the
 * tile boundary"), else among all. */
static long neighbour(const se_sweep *s, size_t u)
{
    const se_sweep_shape *su = &s->shapes[u];
    const se_sweep_group *g = &s->groups[su->group];
    long best[2] = {-1, -1}; /* [same tile count, any] */
    double best_d[2];
    best_d[0] = best_d[1] = log(SE_GOAL_G5_NEAR) * (1 + 1e-12);
    int64_t tiles = row_tiles(s, su->shape->cols);
    for (size_t k = 0; k < g->n; k++) {
        const se_sweep_shape *a = &s->shapes[g->members[k]];
        if (a->shape->cols % 4 != 0)
            continue;
        double d = fabs(log((double)a->shape->cols / (double)su->shape->cols));
        for (int same = 0; same < 2; same++) {
            if (same == 0 && row_tiles(s, a->shape->cols) != tiles)
                continue;
            if (d < best_d[same]) {
                best_d[same] = d;
                best[same] = (long)g->members[k];
            }
        }
    }
    return best[0] >= 0 ? best[0] : best[1];
}

static void goal_pair(const se_sweep *s, size_t u, size_t a, se_goal_pair *p)
{
    const se_sweep_shape *su = &s->shapes[u], *sa = &s->shapes[a];
    double eu = su->input / 4.0, ea = sa->input / 4.0;
    p->unaligned = u;
    p->aligned = a;
    p->met = 1;
    const se_strategy_table *t = s->table ? s->table : se_strategy_compiled();
    for (int k = 0; k < SE_STRATEGY_MAX; k++)
        p->ratio[k] = NAN;
    for (int k = 0; k < t->n; k++) {
        const se_strategy_info *info = &t->s[k];
        const se_sweep_item *x = se_sweep_item_of(su, info->name), *y = se_sweep_item_of(sa, info->name);
        if (!info->tiled || !x || !y || !(x->median[SE_WARM] > 0) || !(y->median[SE_WARM] > 0))
            continue;
        p->ratio[k] = (x->median[SE_WARM] / eu) / (y->median[SE_WARM] / ea);
        if (p->ratio[k] > SE_GOAL_G5_SLOWER)
            p->met = 0;
    }
}

se_status se_goals_compute(const se_sweep *s, se_goals *g, se_err *err)
{
    memset(g, 0, sizeof *g);
    g->rows = calloc(s->n_shapes ? s->n_shapes : 1, sizeof *g->rows);
    g->pairs = calloc(s->n_shapes ? s->n_shapes : 1, sizeof *g->pairs);
    if (!g->rows || !g->pairs) {
        se_goals_free(g);
        return se_fail(err, SE_ERR_NOMEM, "goals: out of memory");
    }
    g->n_rows = s->n_shapes;
    for (size_t i = 0; i < s->n_shapes; i++) {
        goal_row(s, i, &g->rows[i]);
        for (int k = 0; k < 4; k++)
            if (g->rows[i].g[k] != SE_GOAL_NA) {
                g->of[k]++;
                g->met[k] += g->rows[i].g[k] == SE_GOAL_MET;
            }
    }
    /* G5: pairs in order of the groups and row lengths. */
    for (size_t q = 0; q < s->n_groups; q++)
        for (size_t k = 0; k < s->groups[q].n; k++) {
            size_t u = s->groups[q].members[k];
            if (s->shapes[u].shape->cols % 4 == 0)
                continue;
            long a = neighbour(s, u);
            if (a < 0) {
                g->n_unpaired++;
                continue;
            }
            goal_pair(s, u, (size_t)a, &g->pairs[g->n_pairs]);
            g->of[4]++;
            g->met[4] += g->pairs[g->n_pairs++].met;
        }
    return SE_OK;
}

void se_goals_free(se_goals *g)
{
    free(g->rows);
    free(g->pairs);
    memset(g, 0, sizeof *g);
}
