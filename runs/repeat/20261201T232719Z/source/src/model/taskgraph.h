/*
 * taskgraph.h - the tiled RMS-softmax as a graph of tasks.
 *
 * One header for the host and the device: the megakernel schedules with these
 * inline functions, and the host builds the same graph to test it, to simulate
 * the megakernel's schedule, and to check dependency traces.
 *
 * Per row r with n = tiles_per_row tiles:
 *   A(r,t) partial sum of squares and max of tile t      depends on nothing
 *   B(r)   combine A partials -> s_r, m_r                  depends on A(r,0..n-1)
 *   C(r,t) partial sum of exp(s_r x - m_r) of tile t       depends on B(r)
 *   D(r)   combine C partials -> 1/l_r                     depends on C(r,0..n-1)
 *   E(r,t) write y for tile t                              depends on D(r)
 *
 * Task ids are dense and grouped by phase: all A tasks (row-major), then all
 * B, C, D and E tasks. Completing a task "releases" a contiguous id range:
 * the last A of row r releases B(r); B(r) releases C(r,0..n-1); the last C of
 * row r releases D(r); D(r) releases E(r,0..n-1). "Last" is decided by a
 * per-row counter: one counter per row for phase A and one for phase C.
 */
#ifndef SE_TASKGRAPH_H
#define SE_TASKGRAPH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SE_HD static inline __host__ __device__
#else
#define SE_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

enum se_phase { SE_PHASE_A = 0, SE_PHASE_B, SE_PHASE_C, SE_PHASE_D, SE_PHASE_E, SE_NPHASES };

/* Largest task count: task ids are int32 in the trace records, and the
 * megakernel's schedule (se_mk_visit_at) counts units, tiles and rows in 32
 * bits; the headroom of 2^20 keeps a block's next unit (u + G) from
 * overflowing. */
#define SE_MAX_TASKS (INT32_MAX - (1 << 20))

typedef struct se_taskgeom {
    int64_t rows;          /* R */
    int64_t cols;          /* C */
    int64_t tile;          /* T, columns per tile */
    int64_t tiles_per_row; /* ceil(C / T) */
    int64_t tile_tasks;    /* R * tiles_per_row: tasks in each of A, C, E */
    int64_t total;         /* 3 * tile_tasks + 2 * R */
} se_taskgeom;

/* Fills g for a problem; the caller has checked rows, cols, tile >= 1. */
SE_HD se_taskgeom se_taskgeom_make(int64_t rows, int64_t cols, int64_t tile)
{
    se_taskgeom g;
    g.rows = rows;
    g.cols = cols;
    g.tile = tile;
    g.tiles_per_row = (cols + tile - 1) / tile;
    g.tile_tasks = rows * g.tiles_per_row;
    g.total = 3 * g.tile_tasks + 2 * rows;
    return g;
}

/* Columns in tile t (the last tile of a row may be partial). */
SE_HD int64_t se_tile_len(const se_taskgeom *g, int64_t t)
{
    int64_t start = t * g->tile;
    int64_t rest = g->cols - start;
    return rest < g->tile ? rest : g->tile;
}

/* First task id of a phase. */
SE_HD int64_t se_phase_base(const se_taskgeom *g, int phase)
{
    switch (phase) {
    case SE_PHASE_A: return 0;
    case SE_PHASE_B: return g->tile_tasks;
    case SE_PHASE_C: return g->tile_tasks + g->rows;
    case SE_PHASE_D: return 2 * g->tile_tasks + g->rows;
    default: return 2 * g->tile_tasks + 2 * g->rows;
    }
}

SE_HD int se_phase_is_tiled(int phase)
{
    return phase == SE_PHASE_A || phase == SE_PHASE_C || phase == SE_PHASE_E;
}

/* Task id of (phase, row, tile); tile is ignored for row phases B and D. */
SE_HD int64_t se_task_id(const se_taskgeom *g, int phase, int64_t row, int64_t tile)
{
    int64_t base = se_phase_base(g, phase);
    return se_phase_is_tiled(phase) ? base + row * g->tiles_per_row + tile : base + row;
}

/* Inverse of se_task_id; tile is 0 for row phases. */
SE_HD void se_task_decode(const se_taskgeom *g, int64_t id, int *phase, int64_t *row, int64_t *tile)
{
    int ph = SE_PHASE_E;
    while (ph > SE_PHASE_A && id < se_phase_base(g, ph))
        ph--;
    int64_t off = id - se_phase_base(g, ph);
    *phase = ph;
    if (se_phase_is_tiled(ph)) {
        *row = off / g->tiles_per_row;
        *tile = off % g->tiles_per_row;
    } else {
        *row = off;
        *tile = 0;
    }
}

/* What completing one task does to the schedule. If counter >= 0, the task
 * increments counters[counter] and releases only when it is the one that
 * brings it to threshold. The released tasks are ids first .. first+count-1. */
typedef struct se_release {
    int64_t counter;   /* index into the 2*R counters, or -1 */
    int64_t threshold; /* counter value at which the release happens */
    int64_t first;     /* first released task id */
    int64_t count;     /* number of released tasks, 0 for none */
} se_release;

SE_HD se_release se_task_release(const se_taskgeom *g, int64_t id)
{
    int phase;
    int64_t row, tile;
    se_release r;
    se_task_decode(g, id, &phase, &row, &tile);
    r.counter = -1;
    r.threshold = 0;
    r.first = 0;
    r.count = 0;
    switch (phase) {
    case SE_PHASE_A:
        r.counter = row;
        r.threshold = g->tiles_per_row;
        r.first = se_task_id(g, SE_PHASE_B, row, 0);
        r.count = 1;
        break;
    case SE_PHASE_B:
        r.first = se_task_id(g, SE_PHASE_C, row, 0);
        r.count = g->tiles_per_row;
        break;
    case SE_PHASE_C:
        r.counter = g->rows + row;
        r.threshold = g->tiles_per_row;
        r.first = se_task_id(g, SE_PHASE_D, row, 0);
        r.count = 1;
        break;
    case SE_PHASE_D:
        r.first = se_task_id(g, SE_PHASE_E, row, 0);
        r.count = g->tiles_per_row;
        break;
    default:
        break;
    }
    return r;
}

/* The megakernel's static schedule (docs/MEGAKERNEL.md), in 32 bits (every
 * task id fits in an int32: SE_MAX_TASKS), for the kernel and for its host
 * simulation (se_mk_simulate in taskgraph_host.h). With k the tiles a
 * block's shared memory holds (at least 1), each row's n tiles are cut
 * into q = ceil(n / k) units of at most k tiles, as even as they go (or
 * fewer, longer units: se_mk_row_units); unit
 * u = r q + j is block u mod G's. A block visits its units a row at a
 * time, in row order, and its units of one row (fewer blocks than units)
 * in one visit, so it never waits for itself. */
SE_HD unsigned se_mk_units_per_row(unsigned n, unsigned k)
{
    return k < 1 ? n : (n + k - 1) / k;
}

/* The units a row (the q above) on G blocks: ceil(n / k), except where
 * that would give a block more than one visit (rows q > G) and there are
 * fewer rows than blocks: then G / rows units a row, so every block makes
 * one visit (A, one wait, C, one wait, E) and reads the tiles past its
 * shared memory again from device memory (L2 where x fits), as fusion
 * does, instead of 2 or 3 rounds of row-wide waits. On the H200
 * (docs/PERFORMANCE.md, version 14): 4x4194304 1.468 -> 1.064 of fusion,
 * 8x1048576 1.344 -> 1.041, 256x1048576 level. */
SE_HD unsigned se_mk_row_units(unsigned rows, unsigned n, unsigned k, unsigned grid)
{
    unsigned q = se_mk_units_per_row(n, k);
    if (rows < grid && (unsigned long long)rows * q > grid) {
        unsigned w = grid / rows;
        q = w < q ? w : q;
    }
    return q;
}

/* The first tile of unit j of a row's q units over n tiles: the first
 * n mod q units one tile longer, with no product that could leave 32 bits
 * (j n would reach n^2 / k). */
SE_HD unsigned se_mk_unit_start(unsigned j, unsigned n, unsigned q)
{
    unsigned r = n % q;
    return j * (n / q) + (j < r ? j : r);
}

/* A block's visit of a row: its units u, u + G, ... < u_end of that row,
 * `mine` tiles in all. u >= units: the block has no more. */
typedef struct se_mk_visit {
    unsigned u, u_end, row, mine;
} se_mk_visit;

SE_HD se_mk_visit se_mk_visit_at(unsigned u, unsigned units, unsigned q, unsigned n,
                                 unsigned grid)
{
    se_mk_visit v;
    v.u = u;
    v.row = u < units ? u / q : 0;
    v.mine = 0;
    for (v.u_end = u; v.u_end < units && v.u_end / q == v.row; v.u_end += grid) {
        unsigned j = v.u_end - v.row * q;
        v.mine += se_mk_unit_start(j + 1, n, q) - se_mk_unit_start(j, n, q);
    }
    return v;
}

/* The tiles of a visit in order, m = 0 .. mine - 1 (q, n and grid as in
 * se_mk_visit_at). */
#define SE_MK_FOR_TILES(vis, m, tile, q, n, grid)                                          \
    for (unsigned v_ = (vis).u, m = 0; v_ < (vis).u_end; v_ += (grid))                     \
        for (unsigned j_ = v_ - (vis).row * (q), tile = se_mk_unit_start(j_, (n), (q));    \
             tile < se_mk_unit_start(j_ + 1, (n), (q)); tile++, m++)

#ifdef __cplusplus
}
#endif

#endif
