/*
 * megakernel.cu - the megakernel strategy (a toy): one persistent kernel
 * whose blocks pull ready tasks from a queue in global memory.
 *
 * The queue has one int32 slot per task (taskgraph.h). Slots
 * [0, tile_tasks) are the A tasks, ready from the start, and are never
 * written; the other slots start empty (-1) and are filled as tasks become
 * ready. A block pops the next slot index with atomicAdd on head, waits
 * until that slot holds a task (acquire load), runs it, and then releases
 * what it completes (se_task_release): the last A tile of a row, detected
 * with a per-row counter, pushes B(r); B(r) pushes C(r, all tiles); the last
 * C tile pushes D(r); D(r) pushes E(r, all tiles). A row's next phase is
 * thus ready as soon as that row's previous phase is, whatever other rows
 * are doing.
 *
 * Every invocation resets its own state first (queue slots, counters, head
 * and tail), so no prepare kernel and no host memset is needed and the
 * reset is inside every timed region. Ordering of that reset before the
 * first pop by any block: the kernel is launched cooperatively and all
 * blocks pass one grid.sync() between the reset and the pull loop;
 * grid.sync() is a memory barrier at device scope.
 *
 * Memory ordering of a hand-off: the producer's data is written, the block
 * synchronizes, thread 0 issues __threadfence() before the counter atomic
 * and before reserving slots, and every slot is written with st.release.gpu;
 * the consumer's thread 0 polls the slot with ld.acquire.gpu (an asm
 * volatile, so the poll cannot be hoisted), fences, then the block
 * synchronizes before reading the data through L2 (__ldcg).
 *
 * Deadlock freedom: a block only ever waits for a slot; slots are filled by
 * blocks that are running tasks, and the cooperative launch guarantees every
 * block is resident. The host simulation in taskgraph_host.c runs the same
 * protocol (the same se_task_release) under random interleavings.
 */
#include <cooperative_groups.h>

#include "gpu/coop.h"
#include "gpu/tile_ops.cuh"

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

namespace cg = cooperative_groups;

#define SE_SLOT_EMPTY (-1)

/* The queue reset every invocation begins with, grid-strided: the slots
 * after the A tasks empty, the per-row counters zero, head and tail. */
static __device__ __forceinline__ void se_mk_reset(const se_gpu_problem *p, int n_tasks,
                                                   int n_ready)
{
    int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t nthreads = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = n_ready + tid; i < n_tasks; i += nthreads)
        p->queue[i] = SE_SLOT_EMPTY;
    for (int64_t i = tid; i < 2 * p->rows; i += nthreads)
        p->counters[i] = 0;
    if (tid == 0) {
        p->head_tail[0] = 0;
        p->head_tail[1] = n_ready;
    }
}

/* The megakernel's queue initialization and nothing else: the same
 * cooperative launch and grid, the same reset, the same grid barrier. Timed
 * on its own, it is what the megakernel pays before its first task. */
__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_megakernel_init(const __grid_constant__ se_gpu_problem p)
{
    se_taskgeom g = se_taskgeom_make(p.rows, p.cols, p.tile);
    se_mk_reset(&p, (int)g.total, (int)g.tile_tasks);
    cg::this_grid().sync();
}

__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_megakernel(const __grid_constant__ se_gpu_problem p)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    __shared__ int s_task, s_pos, s_fire;
    cg::grid_group grid = cg::this_grid();
    se_taskgeom g = se_taskgeom_make(p.rows, p.cols, p.tile);
    int n_tasks = (int)g.total, n_ready = (int)g.tile_tasks;

    /* Reset, grid-strided, then one grid barrier (see the file comment). */
    se_mk_reset(&p, n_tasks, n_ready);
    grid.sync();

    for (;;) {
        if (threadIdx.x == 0) {
            int slot = atomicAdd(&p.head_tail[0], 1);
            int task = -1;
            if (slot < n_ready) {
                task = slot;
            } else if (slot < n_tasks) {
                while ((task = se_ld_acquire(p.queue + slot)) == SE_SLOT_EMPTY)
                    __nanosleep(32);
                __threadfence();
            }
            s_task = task;
        }
        __syncthreads();
        int task = s_task;
        if (task < 0)
            break;
        uint64_t t0 = p.trace.rec ? se_now_ns() : 0;

        int phase;
        int64_t row, tile;
        se_task_decode(&g, task, &phase, &row, &tile);
        switch (phase) {
        case SE_PHASE_A: se_tile_a(&p, row, tile, red, SE_NO_CACHE); break;
        case SE_PHASE_B: if (threadIdx.x < 32) se_row_b(&p, row); break;
        case SE_PHASE_C: se_tile_c(&p, row, tile, red, SE_NO_CACHE, se_row_sm(&p, row)); break;
        case SE_PHASE_D: if (threadIdx.x < 32) se_row_d(&p, row); break;
        default: se_tile_e(&p, row, tile, SE_NO_CACHE, se_row_sml(&p, row)); break;
        }
        __syncthreads();
        /* The trace record ends before the release, so a consumer's start is
         * always later than its producer's end. */
        if (p.trace.rec && threadIdx.x == 0)
            se_trace_record(&p.trace, task, t0);

        se_release rel = se_task_release(&g, task);
        if (threadIdx.x == 0) {
            int fire = rel.count > 0;
            __threadfence();
            if (rel.counter >= 0)
                fire = atomicAdd(p.counters + rel.counter, 1) == (int)rel.threshold - 1;
            if (fire) {
                __threadfence();
                s_pos = atomicAdd(&p.head_tail[1], (int)rel.count);
            }
            s_fire = fire;
        }
        __syncthreads();
        if (s_fire)
            for (int j = threadIdx.x; j < (int)rel.count; j += SE_TILE_THREADS)
                se_st_release(p.queue + s_pos + j, (int)rel.first + j);
    }
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

const void *se_megakernel_kernel(void)
{
    return (const void *)se_k_megakernel;
}

extern "C" se_status se_gpu_megakernel_enqueue(const se_gpu_problem *p, int blocks,
                                               cudaStream_t stream, se_err *err)
{
    void *args[] = {(void *)p};
    return se_coop_launch((const void *)se_k_megakernel, "se_k_megakernel", args, 0, blocks,
                          stream, err);
}

extern "C" se_status se_gpu_megakernel_max_blocks(int *max_blocks, se_err *err)
{
    return se_coop_max_blocks((const void *)se_k_megakernel, max_blocks, err);
}
