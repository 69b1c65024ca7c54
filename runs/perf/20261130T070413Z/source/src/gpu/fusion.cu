/*
 * fusion.cu - the fusion strategy: one cooperative kernel that runs all five
 * phases, with a grid-wide barrier (cooperative groups' grid.sync, the one
 * C++ facility used here: it is CUDA's supported grid barrier) between
 * consecutive phases. Blocks stride over the tiles of a tile phase and warps
 * over the rows of a row phase, so any grid size up to the co-residency
 * limit computes the same, bitwise identical result.
 */
#include <cooperative_groups.h>

#include "coop.h"
#include "tile_ops.cuh"

#include "../se_cuda.h"
#include "../taskgraph.h"

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_fusion(const __grid_constant__ se_gpu_problem p)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    cg::grid_group grid = cg::this_grid();
    int64_t warp = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    int64_t nwarps = (int64_t)gridDim.x * SE_TILE_WARPS;

    se_taskgeom g = se_taskgeom_make(p.rows, p.cols, p.tile);
    const int traced = p.trace.rec != NULL;
    uint64_t t0 = 0;

    for (int64_t id = blockIdx.x; id < p.tile_tasks; id += gridDim.x) {
        if (traced)
            t0 = se_now_ns();
        se_tile_a(&p, id / p.tiles_per_row, id % p.tiles_per_row, red);
        if (traced && threadIdx.x == 0)
            se_trace_record(&p.trace, se_phase_base(&g, SE_PHASE_A) + id, t0);
    }
    grid.sync();
    for (int64_t row = warp; row < p.rows; row += nwarps) {
        if (traced)
            t0 = se_now_ns();
        se_row_b(&p, row);
        if (traced && (threadIdx.x & 31) == 0)
            se_trace_record(&p.trace, se_phase_base(&g, SE_PHASE_B) + row, t0);
    }
    grid.sync();
    for (int64_t id = blockIdx.x; id < p.tile_tasks; id += gridDim.x) {
        if (traced)
            t0 = se_now_ns();
        se_tile_c(&p, id / p.tiles_per_row, id % p.tiles_per_row, red);
        if (traced && threadIdx.x == 0)
            se_trace_record(&p.trace, se_phase_base(&g, SE_PHASE_C) + id, t0);
    }
    grid.sync();
    for (int64_t row = warp; row < p.rows; row += nwarps) {
        if (traced)
            t0 = se_now_ns();
        se_row_d(&p, row);
        if (traced && (threadIdx.x & 31) == 0)
            se_trace_record(&p.trace, se_phase_base(&g, SE_PHASE_D) + row, t0);
    }
    grid.sync();
    for (int64_t id = blockIdx.x; id < p.tile_tasks; id += gridDim.x) {
        if (traced)
            t0 = se_now_ns();
        se_tile_e(&p, id / p.tiles_per_row, id % p.tiles_per_row);
        if (traced) {
            __syncthreads(); /* the task ends when every thread has written */
            if (threadIdx.x == 0)
                se_trace_record(&p.trace, se_phase_base(&g, SE_PHASE_E) + id, t0);
        }
    }
}

/* Shared by fusion and megakernel: a checked cooperative launch. */
se_status se_coop_launch(const void *kernel, const char *name, const se_gpu_problem *p,
                         int blocks, cudaStream_t stream, se_err *err)
{
    void *args[] = {(void *)p};
    cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3((unsigned)blocks),
                                                dim3(SE_TILE_THREADS), args, 0, stream);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky launch error */
        return se_fail(err, SE_ERR_CUDA,
                       "cooperative launch of %s with %d blocks of %d threads failed: %s (%s)",
                       name, blocks, SE_TILE_THREADS, cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return SE_OK;
}

const void *se_fusion_kernel(void)
{
    return (const void *)se_k_fusion;
}

extern "C" se_status se_gpu_fusion_enqueue(const se_gpu_problem *p, int blocks,
                                           cudaStream_t stream, se_err *err)
{
    return se_coop_launch((const void *)se_k_fusion, "se_k_fusion", p, blocks, stream, err);
}

extern "C" se_status se_gpu_coop_max_blocks(se_coop_kernel kernel, int *max_blocks, se_err *err)
{
    int dev, sms, per_sm;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const void *fn = kernel == SE_COOP_FUSION ? se_fusion_kernel() : se_megakernel_kernel();
    SE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, SE_TILE_THREADS, 0));
    *max_blocks = per_sm * sms;
    return SE_OK;
}
