/*
 * ln_fused.cu - LayerNorm forward's fusion and megakernel strategies:
 * fusion.cu's and megakernel.cu's kernels over LayerNorm's three phases
 * (ln_ops.cuh) instead of the softmax's five.
 *
 * fusion: one cooperative kernel, blocks strided over the tile tasks in
 * fusion's order (se_fusion_task, rotated where fusion.cu rotates), warps
 * (blocks where packed) over the groups of phase B, a grid barrier after A
 * and after B: two barriers where the softmax has four. Each block keeps
 * its first tiles of x in shared memory from phase A to phase C
 * (se_tile_cache), and walks C last to first as fusion.cu walks C and E.
 *
 * megakernel: one persistent cooperative kernel on megakernel.cu's static
 * schedule (se_mk_visit_at), a counter per group instead of two: the
 * block whose arrival completes a group's A tiles runs B (one warp; the
 * whole block where packed) and adds the one that releases C; a block
 * whose C tiles need B waits for n + 1 on the counter. The counter reset
 * and one grid barrier first, as the softmax's megakernel. Memory
 * ordering and deadlock freedom are megakernel.cu's (the same hand-off,
 * one phase fewer); the host simulation of the schedule runs the graph of
 * three phases (se_mk_simulate with g.phases = 3).
 *
 * Both compute, for any grid, the same bits as the LayerNorm stream
 * kernels: the tile and row functions are the same, and which block runs
 * a task does not change its arithmetic.
 */
#include <cooperative_groups.h>

#include "gpu/coop.h"
#include "gpu/ln_ops.cuh"

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

namespace cg = cooperative_groups;

/* Phase B of the fused kernel: warps stride over the groups of one row,
 * blocks over packed groups. */
static __device__ __forceinline__ void se_ln_fusion_rows(const se_gpu_problem *p,
                                                         const se_taskgeom *g, int tg)
{
    const int traced = p->trace.rec != NULL;
    uint64_t t0 = 0;
    if (tg == SE_TG_PACKED) {
        for (int64_t grp = blockIdx.x; grp < p->groups; grp += gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_ln_packed_row_task(p, grp);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(g, SE_PHASE_B) + grp, t0);
        }
        return;
    }
    int64_t warp = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * SE_TILE_WARPS;
    for (int64_t grp = warp; grp < p->groups; grp += nwarps) {
        if (traced)
            t0 = se_now_ns();
        se_ln_row_b(p, grp);
        if (traced && (threadIdx.x & 31) == 0)
            se_trace_record(&p->trace, se_phase_base(g, SE_PHASE_B) + grp, t0);
    }
}

static __device__ __forceinline__ void se_ln_fusion_body(const se_gpu_problem *p,
                                                         unsigned cache_elems, double *red, int tg)
{
    extern __shared__ float4 se_ln_fusion_cache4[];
    float *cache = (float *)se_ln_fusion_cache4;
    cg::grid_group grid = cg::this_grid();
    const uint32_t G = gridDim.x, b = blockIdx.x;
    const int rot = tg != SE_TG_PACKED &&
                    se_fusion_rotates(p->cols, p->tile, p->tiles_per_row, p->tile_tasks, G);
    int64_t mine = se_fusion_tasks_of(p->tile_tasks, b, G, rot);
    uint32_t j, j_last = mine > 0 ? se_fusion_place(mine - 1, b, G, rot) : b;
    se_taskgeom g = se_ln_geom(p);
    const int traced = p->trace.rec != NULL;
    uint64_t t0 = 0;

    int64_t slot = se_tile_slot_elems(p->tile);
    int64_t cached = (cache_elems + slot - 1) / slot;
    if (cached > mine)
        cached = mine;
    j = b;
    for (int64_t k = 0; k < cached; k++, j = se_fusion_place_next(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        se_tile_prefetch(p, se_task_grp(p, id), se_task_tile(p, id),
                         se_tile_slot(p, cache, cache_elems, k), tg);
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
        se_ln_tile_a(p, grp, tile, red, se_tile_slot(p, cache, cache_elems, k), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_A) + id, t0);
    }
    grid.sync();
    se_ln_fusion_rows(p, &g, tg);
    grid.sync();
    /* C reads the slots A read, on other threads: the block synchronized
     * at the grid barrier. */
    j = j_last;
    for (int64_t k = mine - 1; k >= 0; k--, j = se_fusion_place_prev(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        if (traced)
            t0 = se_now_ns();
        se_ln_tile_c(p, grp, tile, se_tile_slot(p, cache, cache_elems, k), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_C) + id, t0);
    }
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_ln_fusion(const __grid_constant__ se_gpu_problem p, unsigned cache_elems)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    se_ln_fusion_body(&p, cache_elems, red, SE_TG_ROWS);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_ln_fusion_packed(const __grid_constant__ se_gpu_problem p, unsigned cache_elems)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    se_ln_fusion_body(&p, cache_elems, red, SE_TG_PACKED);
}

/* ---- the megakernel ------------------------------------------------------ */

/* The reset every invocation begins with: the groups' counters. */
static __device__ __forceinline__ void se_ln_mk_reset(const se_gpu_problem *p)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = tid; i < p->groups; i += nthreads)
        p->counters[i] = 0;
}

/* megakernel.cu's se_mk_arrive for phase B: the block arrives with its A
 * tiles of group grp; the arrival that completes the group runs B and
 * adds the one that releases C. A block that holds the whole group
 * neither counts nor waits. Uniform. */
static __device__ __forceinline__ void se_ln_mk_arrive(const se_gpu_problem *p,
                                                       const se_taskgeom *g, int64_t grp,
                                                       int tiles, int *s_last, int tg)
{
    int32_t *ctr = p->counters + grp;
    const int whole = tiles == (int)p->tiles_per_row;
    __syncthreads(); /* the tiles' partials are written */
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
    se_ln_group_task_block(p, grp, tg);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (p->trace.rec)
            se_trace_record(&p->trace, se_phase_base(g, SE_PHASE_B) + grp, t0);
        if (!whole) {
            __threadfence(); /* the group's mean and rstd before the release */
            atomicAdd(ctr, 1);
        }
    }
}

static __device__ __forceinline__ void se_ln_mk_wait(const int32_t *ctr, int need)
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

static __device__ __forceinline__ void se_ln_mk_body(const se_gpu_problem *p,
                                                     unsigned cache_elems, unsigned q,
                                                     double *red, int *s_last, int tg)
{
    extern __shared__ float4 se_ln_mk_cache4[];
    float *cache = (float *)se_ln_mk_cache4;
    se_taskgeom g = se_ln_geom(p);
    const unsigned n = (unsigned)p->tiles_per_row;
    const unsigned slot_elems = (unsigned)se_tile_slot_elems(p->tile);
    const int traced = p->trace.rec != NULL;
    const unsigned units = (unsigned)p->groups * q;
    const unsigned cached_max = (cache_elems + slot_elems - 1) / slot_elems;
    uint64_t t0 = 0;

    se_ln_mk_reset(p);
    cg::this_grid().sync();

    se_mk_visit vis = se_mk_visit_at(blockIdx.x, units, q, n, gridDim.x);
    while (vis.u < units) {
        const unsigned grp = vis.grp, mine = vis.mine;
        const unsigned cached = mine < cached_max ? mine : cached_max;
        const int64_t base = (int64_t)grp * n;
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x)
            if (m < cached)
                se_tile_prefetch(p, grp, tile, se_tile_slot(p, cache, cache_elems, m), tg);
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            if (m < cached) {
                se_tile_prefetch_wait((int)(cached - 1 - m));
                if (se_slot_read_across(p, grp, tile, tg))
                    __syncthreads();
            }
            se_ln_tile_a(p, grp, tile, red, se_tile_slot(p, cache, cache_elems, m), tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_A) + base + tile, t0);
        }
        se_ln_mk_arrive(p, &g, grp, (int)mine, s_last, tg);
        if (mine < n)
            se_ln_mk_wait(p->counters + grp, (int)n + 1);
        /* C reads the slots on other threads than A: the arrival and the
         * wait synchronized the block. */
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_ln_tile_c(p, grp, tile, se_tile_slot(p, cache, cache_elems, m), tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_C) + base + tile, t0);
        }
        /* the next visit's prefetch overwrites slots that C read on other
         * threads */
        __syncthreads();
        vis = se_mk_visit_at(vis.u_end, units, q, n, gridDim.x);
    }
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_ln_megakernel(const __grid_constant__ se_gpu_problem p, unsigned cache_elems, unsigned q)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_ln_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_ROWS);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_ln_megakernel_packed(const __grid_constant__ se_gpu_problem p, unsigned cache_elems,
                              unsigned q)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_ln_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_PACKED);
}

const void *se_ln_fusion_kernel(int tg)
{
    return tg == SE_TG_PACKED ? (const void *)se_k_ln_fusion_packed : (const void *)se_k_ln_fusion;
}

const void *se_ln_megakernel_kernel(int tg)
{
    return tg == SE_TG_PACKED ? (const void *)se_k_ln_megakernel_packed
                              : (const void *)se_k_ln_megakernel;
}

extern "C" se_status se_gpu_ln_fusion_enqueue(const se_gpu_problem *p, int blocks,
                                              cudaStream_t stream, se_err *err)
{
    const int tg = se_tg_of(p);
    const void *kernel = se_ln_fusion_kernel(tg);
    size_t smem;
    se_status st = se_coop_cache_bytes(kernel, p, blocks, &smem, err);
    if (st != SE_OK)
        return st;
    unsigned cache_elems = (unsigned)(smem / sizeof(float));
    void *args[] = {(void *)p, &cache_elems};
    return se_coop_launch(kernel, tg == SE_TG_PACKED ? "se_k_ln_fusion_packed" : "se_k_ln_fusion",
                          args, smem, blocks, stream, err);
}

extern "C" se_status se_gpu_ln_megakernel_enqueue(const se_gpu_problem *p, int blocks,
                                                  cudaStream_t stream, se_err *err)
{
    const int tg = se_tg_of(p);
    const void *kernel = se_ln_megakernel_kernel(tg);
    size_t smem;
    se_status st = se_coop_cache_bytes(kernel, p, blocks, &smem, err);
    if (st != SE_OK)
        return st;
    unsigned cache_elems = (unsigned)(smem / sizeof(float));
    unsigned q = se_mk_row_units((unsigned)p->groups, (unsigned)p->tiles_per_row,
                                 cache_elems / (unsigned)se_tile_slot_elems(p->tile),
                                 (unsigned)blocks);
    void *args[] = {(void *)p, &cache_elems, &q};
    return se_coop_launch(kernel,
                          tg == SE_TG_PACKED ? "se_k_ln_megakernel_packed" : "se_k_ln_megakernel",
                          args, smem, blocks, stream, err);
}

extern "C" se_status se_gpu_ln_fusion_max_blocks(int *max_blocks, se_err *err)
{
    const void *const k[2] = {se_ln_fusion_kernel(SE_TG_ROWS), se_ln_fusion_kernel(SE_TG_PACKED)};
    return se_coop_max_blocks(k, max_blocks, err);
}

extern "C" se_status se_gpu_ln_megakernel_max_blocks(int *max_blocks, se_err *err)
{
    const void *const k[2] = {se_ln_megakernel_kernel(SE_TG_ROWS),
                              se_ln_megakernel_kernel(SE_TG_PACKED)};
    return se_coop_max_blocks(k, max_blocks, err);
}
