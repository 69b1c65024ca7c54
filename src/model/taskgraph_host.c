/*
 * taskgraph_host.c - dependencies, size checks and a host simulation of the
 * megakernel's ready-task queue (see taskgraph.h for the graph itself).
 */
#include "model/taskgraph_host.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int64_t se_task_dep_count(const se_taskgeom *g, int64_t id)
{
    int phase;
    int64_t row, tile;
    se_task_decode(g, id, &phase, &row, &tile);
    switch (phase) {
    case SE_PHASE_A: return 0;
    case SE_PHASE_B: return g->tiles_per_row;
    case SE_PHASE_C: return 1;
    case SE_PHASE_D: return g->tiles_per_row;
    default: return 1;
    }
}

int64_t se_task_dep(const se_taskgeom *g, int64_t id, int64_t k)
{
    int phase;
    int64_t row, tile;
    se_task_decode(g, id, &phase, &row, &tile);
    switch (phase) {
    case SE_PHASE_B: return se_task_id(g, SE_PHASE_A, row, k);
    case SE_PHASE_C: return se_task_id(g, SE_PHASE_B, row, 0);
    case SE_PHASE_D: return se_task_id(g, SE_PHASE_C, row, k);
    case SE_PHASE_E: return se_task_id(g, SE_PHASE_D, row, 0);
    default: return -1;
    }
}

se_status se_taskgeom_check(const se_taskgeom *g, se_err *err)
{
    /* total = 3*R*n + 2*R with R*n <= R*C <= 2^40 (se_parse_shape's element
     * limit), so it cannot overflow int64. */
    if (g->total > SE_MAX_TASKS)
        return se_fail(err, SE_ERR_LIMIT,
                       "shape %" PRId64 "x%" PRId64 " with tile %" PRId64 " has %" PRId64
                       " tasks; the megakernel queue holds at most %d (use a larger --tile)",
                       g->rows, g->cols, g->tile, g->total, SE_MAX_TASKS);
    return SE_OK;
}

enum { W_IDLE, W_WAIT, W_RUN, W_DONE };

typedef struct sim_worker {
    int state;
    int64_t slot;
    int64_t task;
} sim_worker;

/* xorshift64*: a small deterministic generator for the interleaving. */
static uint64_t sim_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* A worker starts a task: every dependency must have completed. */
static se_status sim_start_task(const se_taskgeom *g, int64_t task, const unsigned char *state,
                                se_err *err)
{
    int64_t ndeps = se_task_dep_count(g, task);
    for (int64_t k = 0; k < ndeps; k++) {
        int64_t d = se_task_dep(g, task, k);
        if (state[d] != 2)
            return se_fail(err, SE_ERR_VALIDATION,
                           "task %" PRId64 " started before its dependency %" PRId64 " completed",
                           task, d);
    }
    if (state[task] != 0)
        return se_fail(err, SE_ERR_VALIDATION, "task %" PRId64 " started twice", task);
    return SE_OK;
}

/* A worker completes a task: bump the row counter, push what it releases. */
static se_status sim_finish_task(const se_taskgeom *g, int64_t task, int64_t *queue,
                                 int64_t *tail, int64_t *counters, se_err *err)
{
    se_release rel = se_task_release(g, task);
    int fire = 1;
    if (rel.counter >= 0)
        fire = ++counters[rel.counter] == rel.threshold;
    if (fire && rel.count > 0) {
        int64_t pos = *tail;
        *tail += rel.count;
        if (*tail > g->total)
            return se_fail(err, SE_ERR_VALIDATION, "queue overflow after task %" PRId64, task);
        for (int64_t j = 0; j < rel.count; j++)
            queue[pos + j] = rel.first + j;
    }
    return SE_OK;
}

se_status se_taskgraph_simulate(const se_taskgeom *g, int workers, uint64_t seed,
                                int64_t *order, se_err *err)
{
    if (workers < 1)
        return se_fail(err, SE_ERR_USAGE, "simulation needs at least one worker, got %d", workers);
    se_status st = se_taskgeom_check(g, err);
    if (st != SE_OK)
        return st;
    int64_t n = g->total;
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    int64_t *counters = calloc((size_t)(2 * g->rows), sizeof *counters);
    unsigned char *done = calloc((size_t)n, 1); /* 0 new, 1 running, 2 done */
    sim_worker *w = calloc((size_t)workers, sizeof *w);
    if (!queue || !counters || !done || !w) {
        st = se_fail(err, SE_ERR_NOMEM, "simulation of %" PRId64 " tasks: out of memory", n);
        goto out;
    }
    /* Initialization, as in the kernel: slots [0, tile_tasks) are the A
     * tasks, the rest empty; head 0, tail tile_tasks, counters 0. */
    for (int64_t i = 0; i < n; i++)
        queue[i] = i < g->tile_tasks ? i : -1;
    int64_t head = 0, tail = g->tile_tasks, completed = 0;
    uint64_t rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
    int finished = 0;
    while (finished < workers) {
        /* One step of a random worker; if it cannot move, scan for any that can. */
        int start = (int)(sim_next(&rng) % (uint64_t)workers), moved = 0;
        for (int k = 0; k < workers && !moved; k++) {
            sim_worker *cur = &w[(start + k) % workers];
            if (cur->state == W_DONE)
                continue;
            if (cur->state == W_IDLE) {
                cur->slot = head++;
                if (cur->slot >= n) {
                    cur->state = W_DONE;
                    finished++;
                } else {
                    cur->state = W_WAIT;
                }
                moved = 1;
            } else if (cur->state == W_WAIT && queue[cur->slot] >= 0) {
                cur->task = queue[cur->slot];
                st = sim_start_task(g, cur->task, done, err);
                if (st != SE_OK)
                    goto out;
                done[cur->task] = 1;
                cur->state = W_RUN;
                moved = 1;
            } else if (cur->state == W_RUN) {
                done[cur->task] = 2;
                st = sim_finish_task(g, cur->task, queue, &tail, counters, err);
                if (st != SE_OK)
                    goto out;
                if (order)
                    order[completed] = cur->task;
                completed++;
                cur->state = W_IDLE;
                moved = 1;
            }
        }
        if (!moved) {
            st = se_fail(err, SE_ERR_VALIDATION,
                         "deadlock: %d workers wait on empty slots after %" PRId64 " of %" PRId64
                         " tasks", workers - finished, completed, n);
            goto out;
        }
    }
    if (completed != n) {
        st = se_fail(err, SE_ERR_VALIDATION, "%" PRId64 " of %" PRId64 " tasks ran", completed, n);
        goto out;
    }
    st = SE_OK;
out:
    free(queue);
    free(counters);
    free(done);
    free(w);
    return st;
}
