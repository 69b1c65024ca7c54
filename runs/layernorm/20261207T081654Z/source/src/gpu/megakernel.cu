/*
 * megakernel.cu - the megakernel strategy: one persistent cooperative
 * kernel whose blocks run the task graph (taskgraph.h) on a static
 * schedule, each row's phases released by per-row counters instead of grid
 * barriers (docs/MEGAKERNEL.md).
 *
 * Ownership: row-major (se_k_megakernel's comment; se_mk_visit_at in
 * taskgraph.h): each row's tiles are
 * cut into units of as many tiles as a block's shared memory holds, unit u
 * is block u mod G's, and a block takes its units a row at a time through
 * A, C and E with the row's x kept in shared memory (se_tile_cache), so x
 * is read once and rows at different phases overlap across blocks. The
 * row tasks run where they become ready: the block whose arrival completes
 * a row's A (C) tiles runs B(r) (D(r)) at once (one warp). The tiles are
 * uniform, so no shared queue is needed: a block waits only for a row's
 * statistics, never for a task to be handed out.
 *
 * Rows here are the task graph's groups (taskgraph.h): a row where rows
 * are not packed; a packed group of short rows is one tile, one unit and
 * one visit, with no counter or wait, its B and D run by the whole block.
 *
 * Counters: counters[r] counts the A tiles of row r done, and B(r) adds one
 * more when s_r and m_r are written (n + 1 for n tiles); counters[R + r]
 * the same for C and D. A block's C(r, t) waits for counters[r] = n + 1,
 * its E(r, t) for counters[R + r] = n + 1 (thread 0 polls with an acquire
 * load and an exponential backoff of 32 to 256 ns).
 *
 * Every invocation resets its counters first, so no prepare kernel and no
 * host memset is needed and the reset is inside every timed region; all
 * blocks pass one grid.sync() between the reset and the first task
 * (grid.sync() is a memory barrier at device scope). It is the only grid
 * barrier: fusion has four.
 *
 * Memory ordering of a hand-off: the producer's results are written (a
 * tile's partials and a row's statistics by thread 0), the block
 * synchronizes, thread 0 issues __threadfence() before its counter atomic;
 * the block that sees the count complete fences before it reads the
 * partials; a waiting block's thread 0 fences after its acquire load, and
 * the block synchronizes before reading the statistics through L2 (__ldcg).
 *
 * Deadlock freedom: see se_k_megakernel (induction over the rows). The
 * cooperative launch guarantees every block is resident. The host
 * simulation (se_mk_simulate in taskgraph_host.c) runs the same schedule
 * and counters under random interleavings of the blocks.
 */
#include <cooperative_groups.h>

#include "gpu/coop.h"
#include "gpu/tile_ops.cuh"

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

namespace cg = cooperative_groups;

/* The reset every invocation begins with, grid-strided: the 2 * groups
 * counters. */
static __device__ __forceinline__ void se_mk_reset(const se_gpu_problem *p)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = tid; i < 2 * p->groups; i += nthreads)
        p->counters[i] = 0;
}

/* The megakernel's initialization and nothing else: the same cooperative
 * launch and grid, the same reset, the same grid barrier. Timed on its own,
 * it is what the megakernel pays before its first task. */
__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_megakernel_init(const __grid_constant__ se_gpu_problem p)
{
    se_mk_reset(&p);
    cg::this_grid().sync();
}

/* After a block's tiles of group `grp` in phase A or C: the block arrives
 * on the group's counter with their number; the block whose arrival
 * completes the group runs the row task (B after A, D after C: warp 0 for
 * a row split over tiles, the whole block for a packed group) and then
 * adds the one that releases the group's next tile phase. A block that
 * holds the whole group (`tiles` = n, always where packed) neither counts
 * nor waits: it runs the row task between two block barriers. Uniform:
 * every thread calls it. */
static __device__ __forceinline__ void se_mk_arrive(const se_gpu_problem *p, const se_taskgeom *g,
                                                    int64_t grp, int phase, int tiles, int *s_last,
                                                    int tg)
{
    int32_t *ctr = p->counters + (phase == SE_PHASE_B ? grp : p->groups + grp);
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
    se_group_task_block(p, grp, phase, tg);
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

/* Row-major ownership (se_mk_visit_at in taskgraph.h): each row's n tiles
 * are cut into q units (se_mk_row_units, computed by the host: of at most
 * k tiles, k the tiles the block's shared memory holds, unless there are
 * fewer rows than blocks and that would give a block several visits),
 * unit u = r q + j is block u mod G's, and a block runs its units in order, a row at a time: all of its tiles of row r through A (x
 * copied to shared memory, where it stays), one arrival on the row's
 * counter, the wait for B(r), C, one arrival, the wait for D(r), E; then
 * its next row. So a row's x is read from device memory once and y written
 * once, and the rows of different blocks are at different phases at once:
 * one block's E writes while another's A reads. Deadlock freedom: a
 * block's work on row r waits only for row r's other tiles, whose blocks
 * reach row r after rows < r only; by induction over the rows every row
 * completes (every block is resident: cooperative launch). With fewer
 * blocks than units in a row, a block's units of one row are visited
 * together, so it never waits for itself; the tiles past its shared memory
 * are then read from device memory. A block that holds a whole row neither
 * counts nor waits. 6 blocks an SM (40 registers): more rows in flight
 * than fusion's 4. tg: the row groups the kernel is compiled for
 * (se_k_megakernel, groups of one row; se_k_megakernel_packed, packed rows):
 * with both inlined the 40 registers spilled. */
static __device__ __forceinline__ void se_mk_body(const se_gpu_problem *p, unsigned cache_elems,
                                                  unsigned q, float *red, int *s_last, int tg)
{
    extern __shared__ float4 se_mk_cache4[];
    float *cache = (float *)se_mk_cache4;
    se_taskgeom g = se_gpu_geom(p);
    /* 32-bit unit arithmetic (64-bit division is a call): every task id,
     * and so every unit and tile number, fits in an int32 (taskgraph.h);
     * se_mk_unit_start keeps the products below n. */
    const unsigned n = (unsigned)p->tiles_per_row;
    const unsigned slot_elems = (unsigned)se_tile_slot_elems(p->tile);
    const int traced = p->trace.rec != NULL;
    const unsigned units = (unsigned)p->groups * q; /* q: the host's (se_gpu_megakernel_enqueue) */
    /* the last slot may hold part of a tile (se_tile_slot) */
    const unsigned cached_max = (cache_elems + slot_elems - 1) / slot_elems;
    uint64_t t0 = 0;

    se_mk_reset(p);
    cg::this_grid().sync();

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
            se_tile_a(p, grp, tile, red, se_tile_slot(p, cache, cache_elems, m), tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_A) + base + tile, t0);
        }
        se_mk_arrive(p, &g, grp, SE_PHASE_B, (int)mine, s_last, tg);
        if (mine < n)
            se_mk_wait(p->counters + grp, (int)n + 1);
        se_row_stats rs = se_group_sm(p, grp);
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_tile_c(p, grp, tile, red, se_tile_slot(p, cache, cache_elems, m), rs, tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_C) + base + tile, t0);
        }
        se_mk_arrive(p, &g, grp, SE_PHASE_D, (int)mine, s_last, tg);
        if (mine < n)
            se_mk_wait(p->counters + p->groups + grp, (int)n + 1);
        rs = se_group_sml(p, grp);
        SE_MK_FOR_TILES(vis, m, tile, q, n, gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_tile_e(p, grp, tile, se_tile_slot(p, cache, cache_elems, m), rs, tg);
            if (traced)
                se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_E) + base + tile, t0);
        }
        vis = se_mk_visit_at(vis.u_end, units, q, n, gridDim.x);
    }
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_megakernel(const __grid_constant__ se_gpu_problem p,
                                                                unsigned cache_elems, unsigned q)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_ROWS);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_megakernel_packed(const __grid_constant__ se_gpu_problem p,
                                                                       unsigned cache_elems, unsigned q)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_PACKED);
}

const void *se_megakernel_init_kernel(void)
{
    return (const void *)se_k_megakernel_init;
}

extern "C" se_status se_gpu_megakernel_init_enqueue(const se_gpu_problem *p, int blocks,
                                                    cudaStream_t stream, se_err *err)
{
    void *args[] = {(void *)p};
    return se_coop_launch((const void *)se_k_megakernel_init, "se_k_megakernel_init", args, 0,
                          blocks, stream, err);
}

const void *se_megakernel_kernel(int tg)
{
    return tg == SE_TG_PACKED ? (const void *)se_k_megakernel_packed
                              : (const void *)se_k_megakernel;
}

extern "C" se_status se_gpu_megakernel_enqueue(const se_gpu_problem *p, int blocks,
                                               cudaStream_t stream, se_err *err)
{
    const int tg = se_tg_of(p);
    const void *kernel = se_megakernel_kernel(tg);
    size_t smem;
    se_status st = se_coop_cache_bytes(kernel, p, blocks, &smem, err);
    if (st != SE_OK)
        return st;
    unsigned cache_elems = (unsigned)(smem / sizeof(float));
    unsigned q = se_mk_row_units((unsigned)p->groups, (unsigned)p->tiles_per_row,
                                 cache_elems / (unsigned)se_tile_slot_elems(p->tile),
                                 (unsigned)blocks);
    void *args[] = {(void *)p, &cache_elems, &q};
    return se_coop_launch(kernel, tg == SE_TG_PACKED ? "se_k_megakernel_packed" : "se_k_megakernel",
                          args, smem, blocks, stream, err);
}

extern "C" se_status se_gpu_megakernel_max_blocks(int *max_blocks, se_err *err)
{
    const void *const k[2] = {se_megakernel_kernel(SE_TG_ROWS), se_megakernel_kernel(SE_TG_PACKED)};
    return se_coop_max_blocks(k, max_blocks, err);
}
