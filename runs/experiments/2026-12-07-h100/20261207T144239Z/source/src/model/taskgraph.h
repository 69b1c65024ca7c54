/*
 * taskgraph.h - a tiled operation as a graph of tasks: the RMS-scaled
 * softmax's five phases A..E, or LayerNorm's three, A..C (g.phases, the
 * operation's phase count, model/operation.h).
 *
 * One header for the host and the device: the megakernel schedules with these
 * inline functions, and the host builds the same graph to test it, to simulate
 * the megakernel's schedule, and to check dependency traces.
 *
 * A tile is at most T elements (T = the protocol's tile). Rows longer than T
 * split into ceil(C / T) tiles. Rows of at most T / 2 columns are packed
 * g = floor(T / C) rows to a tile, at most 256 (SE_MAX_GROUP_ROWS), into a
 * row group: contiguous in memory, the last group of a matrix may hold
 * fewer. Rows of T / 2 < C <= T are one row a tile (g = 1: two would not
 * fit, and splitting a row of at most T would only add tasks). The row
 * tasks B and D run per group: one task computes every row of its group.
 * So every tile task moves between T / 2 and T elements (but the last tile
 * of a split row, the last group, and rows under T / 256 columns), and a
 * shape of many short rows has R / g groups, not R rows of tasks
 * (100000x37: 910 tiles and 1820 row tasks, not 100000 and 200000).
 *
 * Per group i with n = tiles_per_row tiles (n = 1 when packed, g = 1 when
 * split):
 *   A(i,t) per row of the tile: partial sum of squares and max    depends on nothing
 *   B(i)   combine A partials -> s_r, m_r of each row              depends on A(i,0..n-1)
 *   C(i,t) per row of the tile: partial sum of exp(s_r x - m_r)   depends on B(i)
 *   D(i)   combine C partials -> 1/l_r of each row                 depends on C(i,0..n-1)
 *   E(i,t) write y for tile t                                      depends on D(i)
 *
 * Task ids are dense and grouped by phase: all A tasks (group-major), then
 * all B, C, D and E tasks. Completing a task "releases" a contiguous id
 * range: the last A of group i releases B(i); B(i) releases C(i,0..n-1);
 * the last C of group i releases D(i); D(i) releases E(i,0..n-1). "Last" is
 * decided by a per-group counter: one counter per group for phase A and
 * one for phase C. Where g = 1 a group is a row, and the graph is the one
 * every run before packing used (SE_TASKGRAPH_VERSION 1).
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

/* The task graph's versions: 1, one row a tile at least (runs made before
 * packing, which record no version); 2, short rows packed into row groups.
 * A run records the version it ran (run.json's task_graph) and its traces
 * are checked against that graph. */
#define SE_TASKGRAPH_VERSION 2
#define SE_TASKGRAPH_V1 1

enum se_phase { SE_PHASE_A = 0, SE_PHASE_B, SE_PHASE_C, SE_PHASE_D, SE_PHASE_E, SE_NPHASES };

/* Largest task count: task ids are int32 in the trace records, and the
 * megakernel's schedule (se_mk_visit_at) counts units, tiles and rows in 32
 * bits; the headroom of 2^20 keeps a block's next unit (u + G) from
 * overflowing. */
#define SE_MAX_TASKS (INT32_MAX - (1 << 20))

typedef struct se_taskgeom {
    int64_t rows;          /* R */
    int64_t cols;          /* C */
    int64_t tile;          /* T, elements per tile at most */
    int64_t group;         /* g, rows per group: floor(T / C) (at most R) when packed, else 1 */
    int64_t groups;        /* ceil(R / g): groups, each with one B and one D task */
    int64_t tiles_per_row; /* ceil(C / T): tiles of a group (1 when packed) */
    int64_t tile_tasks;    /* groups * tiles_per_row: tasks in each of A, C, E */
    int64_t partials;      /* R * tiles_per_row: A's and C's partials, one per row and tile */
    int64_t total;         /* 3 * tile_tasks + 2 * groups (5 phases; 3: 2 * tile_tasks + groups) */
    int version;           /* SE_TASKGRAPH_VERSION, or 1 for the runs before packing */
    int phases;            /* the operation's phases: SE_NPHASES (5), or 3 (LayerNorm) */
} se_taskgeom;

/* The phase counts a graph may have: odd, 3 to SE_NPHASES. */
SE_HD int se_phases_valid(int phases)
{
    return phases >= 3 && phases <= SE_NPHASES && (phases & 1);
}

/* Tasks of a graph of `phases` phases: (phases + 1) / 2 tile phases and
 * phases / 2 row phases. */
SE_HD int64_t se_taskgeom_total(int64_t tile_tasks, int64_t groups, int phases)
{
    return (int64_t)((phases + 1) / 2) * tile_tasks + (int64_t)(phases / 2) * groups;
}

/* The most rows a group holds: one row a thread of a tile's block
 * (SE_TILE_THREADS in gpu/kernels.h), so a tile function takes every row of
 * its tile in one pass and a packed row task gives each row a thread (a
 * loop over more made ptxas spill the megakernel's 40 registers). Only
 * rows under 16 columns (T = 4096) meet it: their tiles hold 256 C
 * elements. */
#define SE_MAX_GROUP_ROWS 256

/* Rows per group under a version of the graph: floor(T / C) for rows of at
 * most T / 2 columns (version 2), at most SE_MAX_GROUP_ROWS and R;
 * otherwise 1. */
SE_HD int64_t se_rows_per_group(int64_t rows, int64_t cols, int64_t tile, int version)
{
    int64_t g = version >= 2 && cols <= tile / 2 ? tile / cols : 1;
    g = g < SE_MAX_GROUP_ROWS ? g : SE_MAX_GROUP_ROWS;
    return g < rows ? g : rows;
}

/* Fills g for a problem under a given version of the graph (a run's
 * recorded one); the caller has checked rows, cols, tile >= 1. */
SE_HD se_taskgeom se_taskgeom_make_v(int64_t rows, int64_t cols, int64_t tile, int version)
{
    se_taskgeom g;
    g.rows = rows;
    g.cols = cols;
    g.tile = tile;
    g.version = version;
    g.group = se_rows_per_group(rows, cols, tile, version);
    g.groups = (rows + g.group - 1) / g.group;
    g.tiles_per_row = (cols + tile - 1) / tile;
    g.tile_tasks = g.groups * g.tiles_per_row;
    g.partials = rows * g.tiles_per_row;
    g.phases = SE_NPHASES;
    g.total = se_taskgeom_total(g.tile_tasks, g.groups, g.phases);
    return g;
}

/* The same graph for an operation of `phases` phases (se_phases_valid;
 * the softmax's 5 gives se_taskgeom_make_v's). */
SE_HD se_taskgeom se_taskgeom_make_p(int64_t rows, int64_t cols, int64_t tile, int version,
                                     int phases)
{
    se_taskgeom g = se_taskgeom_make_v(rows, cols, tile, version);
    g.phases = phases;
    g.total = se_taskgeom_total(g.tile_tasks, g.groups, phases);
    return g;
}

/* The graph this code runs (SE_TASKGRAPH_VERSION). */
SE_HD se_taskgeom se_taskgeom_make(int64_t rows, int64_t cols, int64_t tile)
{
    return se_taskgeom_make_v(rows, cols, tile, SE_TASKGRAPH_VERSION);
}

/* First row of group i, and its rows (g, fewer in the last group). */
SE_HD int64_t se_group_row0(const se_taskgeom *g, int64_t i)
{
    return i * g->group;
}

SE_HD int64_t se_group_rows(const se_taskgeom *g, int64_t i)
{
    int64_t rest = g->rows - i * g->group;
    return rest < g->group ? rest : g->group;
}

/* Columns of a row in tile t (the last tile of a split row may be
 * partial); a packed tile holds se_group_rows such rows. */
SE_HD int64_t se_tile_len(const se_taskgeom *g, int64_t t)
{
    int64_t start = t * g->tile;
    int64_t rest = g->cols - start;
    return rest < g->tile ? rest : g->tile;
}

/* Elements of x in tile t of group i. */
SE_HD int64_t se_tile_elems(const se_taskgeom *g, int64_t i, int64_t t)
{
    return se_group_rows(g, i) * se_tile_len(g, t);
}

/* First task id of a phase: the tile phases and the row phases before
 * it (A 0, B T, C T + G, D 2T + G, E 2T + 2G with T tile tasks and G
 * groups, whatever the graph's phase count). */
SE_HD int64_t se_phase_base(const se_taskgeom *g, int phase)
{
    switch (phase) {
    case SE_PHASE_A: return 0;
    case SE_PHASE_B: return g->tile_tasks;
    case SE_PHASE_C: return g->tile_tasks + g->groups;
    case SE_PHASE_D: return 2 * g->tile_tasks + g->groups;
    default: return 2 * g->tile_tasks + 2 * g->groups;
    }
}

/* The graph's last phase (E, or C for three phases): it releases nothing. */
SE_HD int se_last_phase(const se_taskgeom *g)
{
    return g->phases - 1;
}

SE_HD int se_phase_is_tiled(int phase)
{
    return phase == SE_PHASE_A || phase == SE_PHASE_C || phase == SE_PHASE_E;
}

/* Task id of (phase, group, tile); tile is ignored for row phases B and D. */
SE_HD int64_t se_task_id(const se_taskgeom *g, int phase, int64_t grp, int64_t tile)
{
    int64_t base = se_phase_base(g, phase);
    return se_phase_is_tiled(phase) ? base + grp * g->tiles_per_row + tile : base + grp;
}

/* Inverse of se_task_id: the phase, the group (*grp; the row where g = 1)
 * and the tile (0 for row phases). */
SE_HD void se_task_decode(const se_taskgeom *g, int64_t id, int *phase, int64_t *grp, int64_t *tile)
{
    int ph = se_last_phase(g);
    while (ph > SE_PHASE_A && id < se_phase_base(g, ph))
        ph--;
    int64_t off = id - se_phase_base(g, ph);
    *phase = ph;
    if (se_phase_is_tiled(ph)) {
        *grp = off / g->tiles_per_row;
        *tile = off % g->tiles_per_row;
    } else {
        *grp = off;
        *tile = 0;
    }
}

/* What completing one task does to the schedule. If counter >= 0, the task
 * increments counters[counter] and releases only when it is the one that
 * brings it to threshold. The released tasks are ids first .. first+count-1.
 * The last phase (E, or C in a graph of three) releases nothing. */
typedef struct se_release {
    int64_t counter;   /* index into the 2 * groups counters, or -1 */
    int64_t threshold; /* counter value at which the release happens */
    int64_t first;     /* first released task id */
    int64_t count;     /* number of released tasks, 0 for none */
} se_release;

SE_HD se_release se_task_release(const se_taskgeom *g, int64_t id)
{
    int phase;
    int64_t grp, tile;
    se_release r;
    se_task_decode(g, id, &phase, &grp, &tile);
    r.counter = -1;
    r.threshold = 0;
    r.first = 0;
    r.count = 0;
    if (phase >= se_last_phase(g))
        return r;
    switch (phase) {
    case SE_PHASE_A:
        r.counter = grp;
        r.threshold = g->tiles_per_row;
        r.first = se_task_id(g, SE_PHASE_B, grp, 0);
        r.count = 1;
        break;
    case SE_PHASE_B:
        r.first = se_task_id(g, SE_PHASE_C, grp, 0);
        r.count = g->tiles_per_row;
        break;
    case SE_PHASE_C:
        r.counter = g->groups + grp;
        r.threshold = g->tiles_per_row;
        r.first = se_task_id(g, SE_PHASE_D, grp, 0);
        r.count = 1;
        break;
    case SE_PHASE_D:
        r.first = se_task_id(g, SE_PHASE_E, grp, 0);
        r.count = g->tiles_per_row;
        break;
    default:
        break;
    }
    return r;
}

/* The megakernel's static schedule (docs/MEGAKERNEL.md), in 32 bits (every
 * task id fits in an int32: SE_MAX_TASKS), for the kernel and for its host
 * simulation (se_mk_simulate in taskgraph_host.h). It runs over groups (a
 * group is a row where rows are not packed). With k the tiles a block's
 * shared memory holds (at least 1), each group's n tiles are cut into
 * q = ceil(n / k) units of at most k tiles, as even as they go (or fewer,
 * longer units: se_mk_row_units); unit u = i q + j is block u mod G's. A
 * block visits its units a group at a time, in group order, and its units
 * of one group (fewer blocks than units) in one visit, so it never waits
 * for itself. A packed group is one tile (n = 1): one unit, one visit, no
 * wait. */
SE_HD unsigned se_mk_units_per_row(unsigned n, unsigned k)
{
    return k < 1 ? n : (n + k - 1) / k;
}

/* The units a group (the q above) on G blocks: ceil(n / k), except where
 * that would give a block more than one visit (groups q > G) and there are
 * fewer groups than blocks: then G / groups units a group, so every block
 * makes one visit (A, one wait, C, one wait, E) and reads the tiles past
 * its shared memory again from device memory (L2 where x fits), as fusion
 * does, instead of 2 or 3 rounds of row-wide waits. On the H200
 * (docs/PERFORMANCE.md, version 14): 4x4194304 1.468 -> 1.064 of fusion,
 * 8x1048576 1.344 -> 1.041, 256x1048576 level. */
SE_HD unsigned se_mk_row_units(unsigned groups, unsigned n, unsigned k, unsigned grid)
{
    unsigned q = se_mk_units_per_row(n, k);
    if (groups < grid && (unsigned long long)groups * q > grid) {
        unsigned w = grid / groups;
        q = w < q ? w : q;
    }
    return q;
}

/* The first tile of unit j of a group's q units over n tiles: the first
 * n mod q units one tile longer, with no product that could leave 32 bits
 * (j n would reach n^2 / k). */
SE_HD unsigned se_mk_unit_start(unsigned j, unsigned n, unsigned q)
{
    unsigned r = n % q;
    return j * (n / q) + (j < r ? j : r);
}

/* A block's visit of a group: its units u, u + G, ... < u_end of that
 * group, `mine` tiles in all. u >= units: the block has no more. */
typedef struct se_mk_visit {
    unsigned u, u_end, grp, mine;
} se_mk_visit;

SE_HD se_mk_visit se_mk_visit_at(unsigned u, unsigned units, unsigned q, unsigned n,
                                 unsigned grid)
{
    se_mk_visit v;
    v.u = u;
    v.grp = u < units ? u / q : 0;
    v.mine = 0;
    for (v.u_end = u; v.u_end < units && v.u_end / q == v.grp; v.u_end += grid) {
        unsigned j = v.u_end - v.grp * q;
        v.mine += se_mk_unit_start(j + 1, n, q) - se_mk_unit_start(j, n, q);
    }
    return v;
}

/* The tiles of a visit in order, m = 0 .. mine - 1 (q, n and grid as in
 * se_mk_visit_at). */
#define SE_MK_FOR_TILES(vis, m, tile, q, n, grid)                                          \
    for (unsigned v_ = (vis).u, m = 0; v_ < (vis).u_end; v_ += (grid))                     \
        for (unsigned j_ = v_ - (vis).grp * (q), tile = se_mk_unit_start(j_, (n), (q));    \
             tile < se_mk_unit_start(j_ + 1, (n), (q)); tile++, m++)

/* Threads a tile function gives each row of a tile (docs/STRATEGIES.md,
 * "Row groups"): where g = 1 (a split row, one row a tile, or a matrix of
 * one row) the whole block, so the kernels compiled for groups of one row
 * stride by a constant (SE_TG_ROWS in gpu/tile_ops.cuh); where rows are
 * packed the largest power of two that has a float4 of the row for each
 * thread, at most threads / g rounded down to a power of two, so every
 * row of a group (at most `threads`) has its own segment. */
SE_HD unsigned se_tile_seg(const se_taskgeom *g, unsigned threads)
{
    int64_t piece = g->cols < g->tile ? g->cols : g->tile;
    int64_t cover = (piece + 3) / 4;
    unsigned s = 1, fit = threads;
    if (g->group == 1)
        return threads;
    while (2 * (int64_t)s <= cover && 2 * s <= threads)
        s *= 2;
    while (fit > 1 && (int64_t)fit * g->group > (int64_t)threads)
        fit /= 2;
    return s < fit ? s : fit;
}

/* Elements of one tile's slot in fusion's and the megakernel's shared
 * memory: the tile's float4 cover (from the 16-byte boundary at or below
 * its first element to the one at or above its end), which for at most T
 * elements is at most T / 4 + 2 float4s; a multiple of 4, so every slot is
 * 16-byte aligned. */
SE_HD int64_t se_tile_slot_elems(int64_t tile)
{
    return 4 * (tile / 4 + 2);
}

/* Fusion's tile tasks over its G blocks: round k holds tasks k G .. k G +
 * G - 1, and block b takes k G + (b + k) mod G of round k, so that where a
 * row has t tiles and t divides G a block's tiles cycle through the t
 * places of a row. With b + k G instead, block b took tile b mod t of
 * every row: on 16380x4097 (two tiles a row, of 4096 elements and 1) over
 * 528 blocks the even blocks took every 4096-element tile and the odd ones
 * every 1-element one, and blocks go to the SMs round robin, so the SMs of
 * the odd blocks waited (docs/PERFORMANCE.md, version 24). rotate 0 keeps
 * b + k G (packed groups: one tile a group, nothing to cycle through).
 * Tile tasks are numbered in 32 bits (the run refuses more), so the places
 * are 32-bit: a 64-bit modulo a task cost fusion 2 to 5 % (version 24). */
SE_HD uint32_t se_fusion_place(int64_t k, uint32_t b, uint32_t G, int rotate)
{
    return rotate ? (uint32_t)((b + (uint32_t)k) % G) : b;
}

SE_HD int64_t se_fusion_task(int64_t k, uint32_t b, uint32_t G, int rotate)
{
    return k * (int64_t)G + se_fusion_place(k, b, G, rotate);
}

/* The place of task k + 1 (next) or k - 1 (prev) from task k's place j,
 * with no division: how fusion's loops walk se_fusion_place. */
SE_HD uint32_t se_fusion_place_next(uint32_t j, uint32_t G, int rotate)
{
    return !rotate ? j : j + 1 == G ? 0 : j + 1;
}

SE_HD uint32_t se_fusion_place_prev(uint32_t j, uint32_t G, int rotate)
{
    return !rotate ? j : j == 0 ? G - 1 : j - 1;
}

/* Whether fusion rotates a shape's tile tasks (se_fusion_task): where a
 * row has several tiles of unequal sizes (cols not a multiple of the
 * tile), the grid is a multiple of the tiles a row (so that block b would
 * see tile b mod t only: 2 or 3 tiles a row on 528 blocks, not 256), and
 * a block has more than one task (with one, the two orders are the same).
 * Every other shape keeps b + k G, the order measured before version 24. */
SE_HD int se_fusion_rotates(int64_t cols, int64_t tile, int64_t tiles_per_row, int64_t tasks,
                            uint32_t G)
{
    return tiles_per_row > 1 && cols % tile != 0 && G % tiles_per_row == 0 && tasks > G;
}

/* How many of n tile tasks block b of G takes (se_fusion_task): every full
 * round's one, and one of the last round's rem = n mod G where its place
 * in that round is below rem. */
SE_HD int64_t se_fusion_tasks_of(int64_t n, uint32_t b, uint32_t G, int rotate)
{
    if (!rotate)
        return b < n ? (n - b + G - 1) / G : 0;
    uint32_t full = (uint32_t)n / G, rem = (uint32_t)n % G;
    return full + (se_fusion_place(full, b, G, 1) < rem ? 1 : 0);
}

#ifdef __cplusplus
}
#endif

#endif
