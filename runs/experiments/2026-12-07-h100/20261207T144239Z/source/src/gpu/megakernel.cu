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
#include "gpu/fused.cuh"

#include "gpu/se_cuda.h"

/* The megakernel's initialization and nothing else: the same cooperative
 * launch and grid, the same reset, the same grid barrier. Timed on its own,
 * it is what the megakernel pays before its first task. */
__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_megakernel_init(const __grid_constant__ se_gpu_problem p)
{
    se_mk_reset(&p, SE_GPU_OP_RMS_SOFTMAX);
    cooperative_groups::this_grid().sync();
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
__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_megakernel(const __grid_constant__ se_gpu_problem p,
                                                                unsigned cache_elems, unsigned q)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_ROWS, SE_GPU_OP_RMS_SOFTMAX);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_megakernel_packed(const __grid_constant__ se_gpu_problem p,
                                                                       unsigned cache_elems, unsigned q)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_PACKED, SE_GPU_OP_RMS_SOFTMAX);
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
    return se_coop_mk_enqueue(se_megakernel_kernel(tg),
                              tg == SE_TG_PACKED ? "se_k_megakernel_packed" : "se_k_megakernel",
                              p, blocks, stream, err);
}

extern "C" se_status se_gpu_megakernel_max_blocks(int *max_blocks, se_err *err)
{
    const void *const k[2] = {se_megakernel_kernel(SE_TG_ROWS), se_megakernel_kernel(SE_TG_PACKED)};
    return se_coop_max_blocks(k, max_blocks, err);
}
