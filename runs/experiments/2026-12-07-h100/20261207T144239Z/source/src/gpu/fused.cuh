/*
 * fused.cuh - the bodies of the two single-kernel tiled strategies, written
 * once over an operation's phases: fusion (one cooperative kernel, a grid
 * barrier between consecutive phases) and the megakernel (one persistent
 * cooperative kernel on a static schedule, per-group counters releasing
 * each row phase). fusion.cu and megakernel.cu compile them for the
 * RMS-scaled softmax's five phases (tile_ops.cuh), ln_fused.cu for
 * LayerNorm's three (ln_ops.cuh); `op` (kernels.h's SE_GPU_OP_*) is a
 * compile-time constant in every kernel, so each copy holds its own
 * operation's code only.
 *
 * The task graph of either operation: tile phases A, C(, E) and row phases
 * B(, D) between them (model/taskgraph.h). What differs per operation is
 * in the se_op_* functions below: the tile and row tasks, the statistics a
 * later tile phase takes, the reduction scratch's type, and whether the
 * last tile phase reads the cached slots on other threads than the ones
 * that copied them.
 */
#ifndef SE_FUSED_CUH
#define SE_FUSED_CUH

#include <cooperative_groups.h>

#include "gpu/coop.h"
#include "gpu/ln_ops.cuh"
#include "model/taskgraph.h"

/* ---- what an operation's phases are ------------------------------------ */

static __device__ __forceinline__ int se_op_phases(const int op)
{
    return op == SE_GPU_OP_LAYERNORM ? SE_LN_PHASES : SE_NPHASES;
}

static __device__ __forceinline__ se_taskgeom se_op_geom(const se_gpu_problem *p, const int op)
{
    return op == SE_GPU_OP_LAYERNORM ? se_ln_geom(p) : se_gpu_geom(p);
}

/* Phase A of one tile; red: 2 * SE_TILE_WARPS of the operation's
 * reduction type (float for the softmax, double for LayerNorm). */
static __device__ __forceinline__ void se_op_tile_a(const se_gpu_problem *p, const int op,
                                                    int64_t grp, int64_t tile, void *red,
                                                    se_tile_cache c, int tg)
{
    if (op == SE_GPU_OP_LAYERNORM)
        se_ln_tile_a(p, grp, tile, (double *)red, c, tg);
    else
        se_tile_a(p, grp, tile, (float *)red, c, tg);
}

/* The statistics the group's tiles take in a later tile phase (the
 * softmax's C and E); LayerNorm's C loads its rows' own. */
static __device__ __forceinline__ se_row_stats se_op_stats(const se_gpu_problem *p, const int op,
                                                           int phase, int64_t grp)
{
    if (op == SE_GPU_OP_LAYERNORM) {
        se_row_stats none = {0.0f, 0.0f, 0.0f};
        return none;
    }
    return phase == SE_PHASE_C ? se_group_sm(p, grp) : se_group_sml(p, grp);
}

/* A later tile phase (C or E) of one tile. */
static __device__ __forceinline__ void se_op_tile_later(const se_gpu_problem *p, const int op,
                                                        int phase, int64_t grp, int64_t tile,
                                                        void *red, se_tile_cache c,
                                                        se_row_stats rs, int tg)
{
    if (op == SE_GPU_OP_LAYERNORM)
        se_ln_tile_c(p, grp, tile, c, tg);
    else if (phase == SE_PHASE_C)
        se_tile_c(p, grp, tile, (float *)red, c, rs, tg);
    else
        se_tile_e(p, grp, tile, c, rs, tg);
}

/* A row phase (B or D) of one group of one row, by one full warp. */
static __device__ __forceinline__ void se_op_row_warp(const se_gpu_problem *p, const int op,
                                                      int phase, int64_t grp)
{
    if (op == SE_GPU_OP_LAYERNORM)
        se_ln_row_b(p, grp);
    else if (phase == SE_PHASE_B)
        se_row_b(p, grp);
    else
        se_row_d(p, grp);
}

/* A row phase of a packed group, by the whole block. */
static __device__ __forceinline__ void se_op_row_packed(const se_gpu_problem *p, const int op,
                                                        int phase, int64_t grp)
{
    if (op == SE_GPU_OP_LAYERNORM)
        se_ln_packed_row_task(p, grp);
    else
        se_packed_row_task(p, grp, phase);
}

/* A row phase of a group by the block that completed its tiles (the
 * megakernel): warp 0 for a row, the whole block where packed. */
static __device__ __forceinline__ void se_op_row_block(const se_gpu_problem *p, const int op,
                                                       int phase, int64_t grp, int tg)
{
    if (op == SE_GPU_OP_LAYERNORM)
        se_ln_group_task_block(p, grp, tg);
    else
        se_group_task_block(p, grp, phase, tg);
}

/* Whether the last tile phase reads a cached slot on other threads than
 * the ones whose copies filled it, so that a block must synchronize
 * before the next visit's copies overwrite it: LayerNorm's C (its own
 * segment layout), not the softmax's E. */
static __device__ __forceinline__ int se_op_last_reads_across(const int op)
{
    return op == SE_GPU_OP_LAYERNORM;
}

/* ---- fusion -------------------------------------------------------------- */

/* A row phase of the fused kernel: warps stride over the groups where a
 * group is one row split over tiles, blocks where rows are packed (every
 * thread of the block on the group's rows). */
static __device__ __forceinline__ void se_fusion_rows(const se_gpu_problem *p,
                                                      const se_taskgeom *g, int phase, int tg,
                                                      const int op)
{
    const int traced = p->trace.rec != NULL;
    uint64_t t0 = 0;
    if (tg == SE_TG_PACKED) {
        for (int64_t grp = blockIdx.x; grp < p->groups; grp += gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_op_row_packed(p, op, phase, grp);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(g, phase) + grp, t0);
        }
        return;
    }
    int64_t warp = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * SE_TILE_WARPS;
    for (int64_t grp = warp; grp < p->groups; grp += nwarps) {
        if (traced)
            t0 = se_now_ns();
        se_op_row_warp(p, op, phase, grp);
        if (traced && (threadIdx.x & 31) == 0)
            se_trace_record(&p->trace, se_phase_base(g, phase) + grp, t0);
    }
}

/* Tile task se_fusion_task(k, ...) (taskgraph.h) is the block's k-th tile;
 * the first cache_elems elements of the block's tiles' slots (in that
 * order) stay in shared memory from phase A to the last tile phase
 * (se_tile_cache in tile_ops.cuh). The later tile phases walk the block's
 * tiles last to first: the tiles that did not fit on chip were read last
 * in phase A, so they are the likeliest to still be in L2, and the last
 * phase reads them before its writes of y evict them. tg: the row groups
 * the kernel is compiled for (groups of one row, or packed rows). A later
 * tile phase reads the slots on other threads than A: the block
 * synchronized at the grid barrier. */
static __device__ __forceinline__ void se_fusion_body(const se_gpu_problem *p,
                                                      unsigned cache_elems, void *red, int tg,
                                                      const int op)
{
    extern __shared__ float4 se_fusion_cache4[];
    float *cache = (float *)se_fusion_cache4;
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const uint32_t G = gridDim.x, b = blockIdx.x;
    const int rot = tg != SE_TG_PACKED &&
                    se_fusion_rotates(p->cols, p->tile, p->tiles_per_row, p->tile_tasks, G);
    int64_t mine = se_fusion_tasks_of(p->tile_tasks, b, G, rot);
    uint32_t j, j_last = mine > 0 ? se_fusion_place(mine - 1, b, G, rot) : b;
    se_taskgeom g = se_op_geom(p, op);
    const int traced = p->trace.rec != NULL;
    uint64_t t0 = 0;

    /* Phase A: first every cached tile's copy is started at once, so the
     * block has all of them in flight; then the tiles are reduced in order,
     * each as soon as its copy has landed (every thread's part of it: the
     * block synchronizes, as A reads the slot by rows). */
    int64_t slot = se_tile_slot_elems(p->tile);
    int64_t cached = (cache_elems + slot - 1) / slot;
    if (cached > mine)
        cached = mine;
    j = b;
    for (int64_t k = 0; k < cached; k++, j = se_fusion_place_next(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        se_tile_prefetch(p, grp, tile, se_tile_slot(p, cache, cache_elems, k), tg);
    }
    j = b;
    for (int64_t k = 0; k < mine; k++, j = se_fusion_place_next(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        if (traced)
            t0 = se_now_ns();
        if (k < cached) {
            se_tile_prefetch_wait((int)(cached - 1 - k));
            if (se_slot_read_across(p, grp, tile, tg))
                __syncthreads();
        }
        se_op_tile_a(p, op, grp, tile, red, se_tile_slot(p, cache, cache_elems, k), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_A) + id, t0);
    }
    /* Each row phase between two grid barriers, then the tile phase after
     * it (spelled out, not a loop over the phases: the softmax's kernels
     * compile to the same PTX as before fused.cuh, scripts/softmax-ptx-unchanged.sh). */
    grid.sync();
    se_fusion_rows(p, &g, SE_PHASE_B, tg, op);
    grid.sync();
    j = j_last;
    for (int64_t k = mine - 1; k >= 0; k--, j = se_fusion_place_prev(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        if (traced)
            t0 = se_now_ns();
        se_op_tile_later(p, op, SE_PHASE_C, grp, tile, red,
                         se_tile_slot(p, cache, cache_elems, k),
                         se_op_stats(p, op, SE_PHASE_C, grp), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_C) + id, t0);
    }
    if (se_op_phases(op) <= SE_PHASE_D)
        return;
    grid.sync();
    se_fusion_rows(p, &g, SE_PHASE_D, tg, op);
    grid.sync();
    j = j_last;
    for (int64_t k = mine - 1; k >= 0; k--, j = se_fusion_place_prev(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        if (traced)
            t0 = se_now_ns();
        se_op_tile_later(p, op, SE_PHASE_E, grp, tile, red,
                         se_tile_slot(p, cache, cache_elems, k),
                         se_op_stats(p, op, SE_PHASE_E, grp), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_E) + id, t0);
    }
}

/* ---- the megakernel ------------------------------------------------------ */

/* The reset every invocation begins with, grid-strided: a counter per
 * group and row phase. */
static __device__ __forceinline__ void se_mk_reset(const se_gpu_problem *p, const int op)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = tid; i < se_op_phases(op) / 2 * p->groups; i += nthreads)
        p->counters[i] = 0;
}

/* The counter of group grp's row phase `phase` (B: the first groups
 * counters, D: the next). */
static __device__ __forceinline__ int32_t *se_mk_counter(const se_gpu_problem *p, int phase,
                                                         int64_t grp)
{
    return p->counters + (phase == SE_PHASE_B ? grp : p->groups + grp);
}

/* After a block's tiles of group `grp` in the tile phase before `phase`:
 * the block arrives on the group's counter with their number; the block
 * whose arrival completes the group runs the row task (warp 0 for a row
 * split over tiles, the whole block for a packed group) and then adds the
 * one that releases the group's next tile phase. A block that holds the
 * whole group (`tiles` = n, always where packed) neither counts nor waits:
 * it runs the row task between two block barriers. Uniform: every thread
 * calls it. */
static __device__ __forceinline__ void se_mk_arrive(const se_gpu_problem *p, const se_taskgeom *g,
                                                    int64_t grp, int phase, int tiles, int *s_last,
                                                    int tg, const int op)
{
    int32_t *ctr = se_mk_counter(p, phase, grp);
    const int whole = tiles == (int)p->tiles_per_row;
    /* the tiles' partials are written (by each row's segment leader:
     * thread 0 where the group is one row) */
    __syncthreads();
    if (!whole) {
        if (threadIdx.x == 0) {
            __threadfence();
            int last = atomicAdd(ctr, tiles) == (int)p->tiles_per_row - tiles;
            if (last)
                __threadfence(); /* the other tiles' partials are visible */
            *s_last = last;
        }
        __syncthreads();
        if (!*s_last)
            return;
    }
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    se_op_row_block(p, op, phase, grp, tg);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (p->trace.rec)
            se_trace_record(&p->trace, se_phase_base(g, phase) + grp, t0);
        if (!whole) {
            __threadfence(); /* the group's statistics before the release */
            atomicAdd(ctr, 1);
        }
    }
}

/* Waits until the counter shows the row task done (n + 1), with backoff. */
static __device__ __forceinline__ void se_mk_wait(const int32_t *ctr, int need)
{
    if (threadIdx.x == 0) {
        unsigned ns = 32;
        while (se_ld_acquire(ctr) < need) {
            __nanosleep(ns);
            ns = ns < 256 ? 2 * ns : 256;
        }
        __threadfence();
    }
    __syncthreads();
}

/* The megakernel's body (megakernel.cu's se_k_megakernel says what it
 * does and why it cannot deadlock): a block's units a row at a time, all
 * of its tiles of the group through A (x copied to shared memory, where it
 * stays), then for each row phase one arrival on the group's counter, the
 * wait for the row task, the next tile phase; then its next group. */
static __device__ __forceinline__ void se_mk_body(const se_gpu_problem *p, unsigned cache_elems,
                                                  unsigned q, void *red, int *s_last, int tg,
                                                  const int op)
{
    extern __shared__ float4 se_mk_cache4[];
    float *cache = (float *)se_mk_cache4;
    se_taskgeom g = se_op_geom(p, op);
    /* 32-bit unit arithmetic (64-bit division is a call): every task id,
     * and so every unit and tile number, fits in an int32 (taskgraph.h);
     * se_mk_unit_start keeps the products below n. */
    const unsigned n = (unsigned)p->tiles_per_row;
    const unsigned slot_elems = (unsigned)se_tile_slot_elems(p->tile);
    const int traced = p->trace.rec != NULL;
    const unsigned units = (unsigned)p->groups * q; /* q: the host's (se_coop_mk_enqueue) */
    /* the last slot may hold part of a tile (se_tile_slot) */
    const unsigned cached_max = (cache_elems + slot_elems - 1) / slot_elems;
    uint64_t t0 = 0;

    se_mk_reset(p, op);
    cooperative_groups::this_grid().sync();

    se_mk_visit vis = se_mk_visit_at(blockIdx.x, units, q, n, gridDim.x);
    while (vis.u < units) {
        const unsigned grp = vis.grp, mine = vis.mine;
        const unsigned cached = mine < cached_max ? mine : cached_max;
        const int64_t base = (int64_t)grp * n;
        /* one cp.async group a tile, into slots of one tile each */
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x)
            if (m < cached)
                se_tile_prefetch(p, grp, tile, se_tile_slot(p, cache, cache_elems, m), tg);
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            if (m < cached) {
                se_tile_prefetch_wait((int)(cached - 1 - m));
                if (se_slot_read_across(p, grp, tile, tg)) /* A reads it as not copied */
                    __syncthreads();
            }
            se_op_tile_a(p, op, grp, tile, red, se_tile_slot(p, cache, cache_elems, m), tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_A) + base + tile, t0);
        }
        /* A later tile phase reads the slots on other threads than A: the
         * arrival and the wait synchronized the block. (The phases spelled
         * out, as in se_fusion_body.) */
        se_mk_arrive(p, &g, grp, SE_PHASE_B, (int)mine, s_last, tg, op);
        if (mine < n)
            se_mk_wait(p->counters + grp, (int)n + 1);
        se_row_stats rs = se_op_stats(p, op, SE_PHASE_C, grp);
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_op_tile_later(p, op, SE_PHASE_C, grp, tile, red,
                             se_tile_slot(p, cache, cache_elems, m), rs, tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_C) + base + tile, t0);
        }
        if (se_op_phases(op) > SE_PHASE_D) {
            se_mk_arrive(p, &g, grp, SE_PHASE_D, (int)mine, s_last, tg, op);
            if (mine < n)
                se_mk_wait(p->counters + p->groups + grp, (int)n + 1);
            rs = se_op_stats(p, op, SE_PHASE_E, grp);
            SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
                if (traced)
                    t0 = se_now_ns();
                se_op_tile_later(p, op, SE_PHASE_E, grp, tile, red,
                                 se_tile_slot(p, cache, cache_elems, m), rs, tg);
                if (traced)
                    se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_E) + base + tile,
                                      t0);
            }
        }
        /* the next visit's prefetch overwrites slots that the last phase
         * read on other threads */
        if (se_op_last_reads_across(op))
            __syncthreads();
        vis = se_mk_visit_at(vis.u_end, units, q, n, gridDim.x);
    }
}

#endif
