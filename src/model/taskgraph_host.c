/*
 * taskgraph_host.c - dependencies, size checks and a host simulation of the
 * megakernel's static schedule (see taskgraph.h for the graph and the plan).
 */
#include "model/taskgraph_host.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* A tile phase (even index) depends on the row task before it (none for
 * A); a row phase on the group's tiles of the phase before it. */
int64_t se_task_dep_count(const se_taskgeom *g, int64_t id)
{
    int phase;
    int64_t grp, tile;
    se_task_decode(g, id, &phase, &grp, &tile);
    if (phase == SE_PHASE_A)
        return 0;
    return se_phase_is_tiled(phase) ? 1 : g->tiles_per_row;
}

int64_t se_task_dep(const se_taskgeom *g, int64_t id, int64_t k)
{
    int phase;
    int64_t grp, tile;
    se_task_decode(g, id, &phase, &grp, &tile);
    if (phase == SE_PHASE_A)
        return -1;
    return se_phase_is_tiled(phase) ? se_task_id(g, phase - 1, grp, 0)
                                    : se_task_id(g, phase - 1, grp, k);
}

se_status se_taskgeom_check(const se_taskgeom *g, se_err *err)
{
    /* total = 3*groups*n + 2*groups <= 3*R*n + 2*R with R*n <= R*C <= 2^40
     * (se_parse_shape's element limit), so it cannot overflow int64. */
    if (!se_phases_valid(g->phases))
        return se_fail(err, SE_ERR_USAGE, "a task graph of %d phases: the graphs have 3 to %d, "
                       "an odd count", g->phases, SE_NPHASES);
    if (g->total > SE_MAX_TASKS)
        return se_fail(err, SE_ERR_LIMIT,
                       "shape %" PRId64 "x%" PRId64 " with tile %" PRId64 " has %" PRId64
                       " tasks; the megakernel and the traces number tasks in 32 bits, at most %d"
                       " (use a larger --tile)",
                       g->rows, g->cols, g->tile, g->total, SE_MAX_TASKS);
    return SE_OK;
}

/* xorshift64*: a small deterministic generator for the interleaving. */
static uint64_t sim_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

typedef struct sim_state {
    const se_taskgeom *g;
    unsigned char *done; /* per task: 0 not run, 1 ran */
    int64_t *counters;   /* 2 groups, as the kernel's */
    int64_t *order;
    int64_t completed;
} sim_state;

/* Runs one task: every dependency must have run, and the task not yet. */
static se_status sim_run(sim_state *s, int64_t task, se_err *err)
{
    if (task < 0 || task >= s->g->total)
        return se_fail(err, SE_ERR_VALIDATION,
                       "task %" PRId64 " is not in the graph (%" PRId64 " tasks)", task,
                       s->g->total);
    int64_t ndeps = se_task_dep_count(s->g, task);
    for (int64_t k = 0; k < ndeps; k++) {
        int64_t d = se_task_dep(s->g, task, k);
        if (!s->done[d])
            return se_fail(err, SE_ERR_VALIDATION,
                           "task %" PRId64 " ran before its dependency %" PRId64, task, d);
    }
    if (s->done[task])
        return se_fail(err, SE_ERR_VALIDATION, "task %" PRId64 " ran twice", task);
    s->done[task] = 1;
    if (s->order)
        s->order[s->completed] = task;
    s->completed++;
    return SE_OK;
}

/* The schedule's constants, as the kernel computes them. */
typedef struct sim_plan {
    unsigned n, q, units, grid;
    se_mk_sim_variant variant;
} sim_plan;

/* The visit's tiles of one tile phase, in the kernel's order. */
static se_status sim_tiles(sim_state *s, const sim_plan *pl, const se_mk_visit *v, int phase,
                           se_err *err)
{
    if (v->grp >= (unsigned)s->g->groups)
        return se_fail(err, SE_ERR_VALIDATION,
                       "a block visits group %u; the graph has %" PRId64 " groups", v->grp,
                       s->g->groups);
    SE_MK_FOR_TILES(*v, m, tile, pl->q, pl->n, pl->grid) {
        (void)m;
        se_status st = sim_run(s, se_task_id(s->g, phase, v->grp, tile), err);
        if (st != SE_OK)
            return st;
    }
    return SE_OK;
}

/* se_mk_arrive, after the visit's tiles of tile phase A or C: the visit
 * arrives with its tiles on the group's counter, and the arrival that
 * brings it to the threshold runs the row task and adds the one that
 * releases the group (threshold + 1). The counter, the threshold and the
 * row task are the graph's own release rule (se_task_release). A visit of
 * the whole group counts the same way here; the kernel skips the counter
 * then, and no other block waits on it. */
static se_status sim_row_task(sim_state *s, const se_mk_visit *v, int tile_phase, se_err *err)
{
    se_release rel = se_task_release(s->g, se_task_id(s->g, tile_phase, v->grp, 0));
    int64_t *ctr = &s->counters[rel.counter];
    *ctr += v->mine;
    if (*ctr > rel.threshold)
        return se_fail(err, SE_ERR_VALIDATION,
                       "group %u: %" PRId64 " arrivals for %" PRId64 " tiles", v->grp, *ctr,
                       rel.threshold);
    if (*ctr < rel.threshold)
        return SE_OK;
    ++*ctr;
    return sim_run(s, rel.first, err);
}

/* A simulated block: its visit and where it is in it: step k < phases is
 * phase k's part of the visit (a tile phase's tiles and its arrival; a
 * row phase's wait for the row task), S_DONE when it has no more. */
enum { S_DONE = -1 };

typedef struct sim_block {
    se_mk_visit v;
    int step;
} sim_block;

/* The next visit of a block from unit u: the kernel's (se_mk_visit_at),
 * or one of the broken variants the tests check the simulation fails. */
static se_mk_visit sim_visit(const sim_plan *pl, unsigned u)
{
    if (pl->variant == SE_MK_SIM_SEPARATE_VISITS && u < pl->units) {
        se_mk_visit v = se_mk_visit_at(u, u + 1, pl->q, pl->n, pl->grid);
        v.u_end = u + pl->grid;
        return v;
    }
    return se_mk_visit_at(u, pl->units, pl->q, pl->n, pl->grid);
}

se_status se_mk_simulate(const se_taskgeom *g, int k, int blocks, uint64_t seed, int64_t *order,
                         se_err *err)
{
    return se_mk_simulate_variant(g, k, blocks, seed, SE_MK_SIM_KERNEL, order, err);
}

se_status se_mk_simulate_variant(const se_taskgeom *g, int k, int blocks, uint64_t seed,
                                 se_mk_sim_variant variant, int64_t *order, se_err *err)
{
    if (blocks < 1)
        return se_fail(err, SE_ERR_USAGE, "simulation needs at least one block, got %d", blocks);
    if (k < 1)
        return se_fail(err, SE_ERR_USAGE,
                       "simulation needs room for at least one tile a block, got %d", k);
    se_status st = se_taskgeom_check(g, err);
    if (st != SE_OK)
        return st;
    sim_plan pl;
    /* The kernel's arithmetic over groups; SE_MK_SIM_ROWS counts rows as
     * the schedule did before packing. */
    unsigned over = variant == SE_MK_SIM_ROWS ? (unsigned)g->rows : (unsigned)g->groups;
    pl.n = (unsigned)g->tiles_per_row;
    pl.q = se_mk_row_units(over, pl.n, (unsigned)k, (unsigned)blocks);
    pl.units = over * pl.q;
    pl.grid = (unsigned)blocks;
    pl.variant = variant;
    sim_state s = {g, calloc((size_t)g->total, 1),
                   calloc((size_t)(2 * g->rows), sizeof(int64_t)), order, 0};
    sim_block *b = calloc((size_t)blocks, sizeof *b);
    if (!s.done || !s.counters || !b) {
        st = se_fail(err, SE_ERR_NOMEM, "simulation of %" PRId64 " tasks: out of memory", g->total);
        goto out;
    }
    for (int i = 0; i < blocks; i++) {
        b[i].v = sim_visit(&pl, (unsigned)i);
        b[i].step = b[i].v.u < pl.units ? SE_PHASE_A : S_DONE;
    }
    uint64_t rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
    for (;;) {
        /* One step of a random block; if it cannot move, the next that can. */
        int start = (int)(sim_next(&rng) % (uint64_t)blocks), moved = 0, live = 0;
        for (int i = 0; i < blocks && !moved; i++) {
            sim_block *cur = &b[(start + i) % blocks];
            const se_mk_visit *v = &cur->v;
            int64_t need = (int64_t)pl.n + 1;
            if (cur->step == S_DONE)
                continue;
            if (se_phase_is_tiled(cur->step)) {
                /* the tiles, then (but after the last phase) the arrival */
                st = sim_tiles(&s, &pl, v, cur->step, err);
                if (st == SE_OK && cur->step < g->phases - 1)
                    st = sim_row_task(&s, v, cur->step, err);
                moved = 1;
            } else {
                /* the wait for the row task on the counter of the tile
                 * phase before it (A's, then C's) */
                moved = v->mine >= pl.n || s.counters[(cur->step / 2) * g->groups + v->grp] == need;
            }
            live++;
            if (st != SE_OK)
                goto out;
            if (moved && ++cur->step > g->phases - 1) {
                cur->v = sim_visit(&pl, v->u_end);
                cur->step = cur->v.u < pl.units ? SE_PHASE_A : S_DONE;
            }
        }
        if (!moved) {
            if (live == 0)
                break;
            st = se_fail(err, SE_ERR_VALIDATION,
                         "deadlock: %d blocks wait after %" PRId64 " of %" PRId64 " tasks", live,
                         s.completed, g->total);
            goto out;
        }
    }
    if (s.completed != g->total) {
        st = se_fail(err, SE_ERR_VALIDATION, "%" PRId64 " of %" PRId64 " tasks ran", s.completed,
                     g->total);
        goto out;
    }
    st = SE_OK;
out:
    free(s.done);
    free(s.counters);
    free(b);
    return st;
}
