/*
 * fusion.cu - the fusion strategy: one cooperative kernel that runs all five
 * phases, with a grid-wide barrier (cooperative groups' grid.sync, the one
 * C++ facility used here: it is CUDA's supported grid barrier) between
 * consecutive phases. Blocks stride over the tiles of a tile phase and warps
 * over the groups of a row phase (blocks where rows are packed), so any
 * grid size up to the co-residency limit computes the same, bitwise
 * identical result.
 */
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>

#include "gpu/coop.h"
#include "gpu/tile_ops.cuh"

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

namespace cg = cooperative_groups;

/* A row phase (B or D) of the fused kernel: warps stride over the groups
 * where a group is one row split over tiles, blocks where rows are packed
 * (every thread of the block on the group's rows). */
static __device__ __forceinline__ void se_fusion_rows(const se_gpu_problem *p,
                                                      const se_taskgeom *g, int phase, int tg)
{
    const int traced = p->trace.rec != NULL;
    uint64_t t0 = 0;
    if (tg == SE_TG_PACKED) {
        for (int64_t grp = blockIdx.x; grp < p->groups; grp += gridDim.x) {
            if (traced)
                t0 = se_now_ns();
            se_packed_row_task(p, grp, phase);
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
        if (phase == SE_PHASE_B)
            se_row_b(p, grp);
        else
            se_row_d(p, grp);
        if (traced && (threadIdx.x & 31) == 0)
            se_trace_record(&p->trace, se_phase_base(g, phase) + grp, t0);
    }
}

/* Tile task se_fusion_task(k, ...) (taskgraph.h) is the block's k-th tile; the first
 * cache_elems elements of the block's tiles' slots (in that order) stay in
 * shared memory from phase A to phase E (se_tile_cache in tile_ops.cuh).
 * Phases C and E walk the block's tiles last to first: the tiles that did
 * not fit on chip were read last in phase A, so they are the likeliest to
 * still be in L2, and phase E reads them before its writes of y evict them.
 * tg: the row groups the kernel is compiled for (se_k_fusion, groups of one
 * row; se_k_fusion_packed, packed rows). */
static __device__ __forceinline__ void se_fusion_body(const se_gpu_problem *p,
                                                      unsigned cache_elems, float *red, int tg)
{
    extern __shared__ float4 se_fusion_cache4[];
    float *cache = (float *)se_fusion_cache4;
    cg::grid_group grid = cg::this_grid();
    const uint32_t G = gridDim.x, b = blockIdx.x;
    const int rot = tg != SE_TG_PACKED &&
                    se_fusion_rotates(p->cols, p->tile, p->tiles_per_row, p->tile_tasks, G);
    int64_t mine = se_fusion_tasks_of(p->tile_tasks, b, G, rot);
    uint32_t j, j_last = mine > 0 ? se_fusion_place(mine - 1, b, G, rot) : b;

    se_taskgeom g = se_gpu_geom(p);
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
        se_tile_a(p, grp, tile, red, se_tile_slot(p, cache, cache_elems, k), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_A) + id, t0);
    }
    grid.sync();
    se_fusion_rows(p, &g, SE_PHASE_B, tg);
    grid.sync();
    j = j_last;
    for (int64_t k = mine - 1; k >= 0; k--, j = se_fusion_place_prev(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        if (traced)
            t0 = se_now_ns();
        se_tile_c(p, grp, tile, red, se_tile_slot(p, cache, cache_elems, k),
                  se_group_sm(p, grp), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_C) + id, t0);
    }
    grid.sync();
    se_fusion_rows(p, &g, SE_PHASE_D, tg);
    grid.sync();
    j = j_last;
    for (int64_t k = mine - 1; k >= 0; k--, j = se_fusion_place_prev(j, G, rot)) {
        int64_t id = k * (int64_t)G + j;
        int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
        if (traced)
            t0 = se_now_ns();
        se_tile_e(p, grp, tile, se_tile_slot(p, cache, cache_elems, k),
                  se_group_sml(p, grp), tg);
        if (traced)
            se_trace_tile_end(&p->trace, se_phase_base(&g, SE_PHASE_E) + id, t0);
    }
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_fusion(const __grid_constant__ se_gpu_problem p,
                                                               unsigned cache_elems)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    se_fusion_body(&p, cache_elems, red, SE_TG_ROWS);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_fusion_packed(const __grid_constant__ se_gpu_problem p,
                                                                      unsigned cache_elems)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    se_fusion_body(&p, cache_elems, red, SE_TG_PACKED);
}

/* Shared by fusion and megakernel: a checked cooperative launch. */
se_status se_coop_launch(const void *kernel, const char *name, void **args, size_t smem,
                         int blocks, cudaStream_t stream, se_err *err)
{
    cudaError_t e = cudaLaunchCooperativeKernel(kernel, dim3((unsigned)blocks),
                                                dim3(SE_TILE_THREADS), args, smem, stream);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky launch error */
        return se_fail(err, SE_ERR_CUDA,
                       "cooperative launch of %s with %d blocks of %d threads and %zu bytes of "
                       "dynamic shared memory failed: %s (%s)",
                       name, blocks, SE_TILE_THREADS, smem, cudaGetErrorString(e),
                       cudaGetErrorName(e));
    }
    return SE_OK;
}

/* The device's shared memory, read once per kernel: per SM, reserved per
 * block, the opt-in limit per block, and the kernel's own static arrays. */
typedef struct se_smem_limits {
    struct se_smem_limits *next;
    const void *kernel;
    int sms;
    size_t per_sm, reserved, optin, kstatic;
} se_smem_limits;

/* One entry per cooperative kernel that keeps tiles in shared memory
 * (fusion, the megakernel, any other), added the first time it is asked
 * for: a list, so there is no fixed count of kernels, and an entry never
 * moves (it lives as long as the process, reachable from `known`). */
static se_status smem_limits(const void *kernel, const se_smem_limits **out, se_err *err)
{
    static se_smem_limits *known = NULL;
    for (se_smem_limits *k = known; k; k = k->next)
        if (k->kernel == kernel) {
            *out = k;
            return SE_OK;
        }
    se_smem_limits l;
    memset(&l, 0, sizeof l);
    int dev, v;
    struct cudaFuncAttributes fa;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&l.sms, cudaDevAttrMultiProcessorCount, dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    l.per_sm = (size_t)v;
    SE_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    l.reserved = (size_t)v;
    SE_CUDA_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    l.optin = (size_t)v;
    SE_CUDA_TRY(cudaFuncGetAttributes(&fa, kernel));
    l.kstatic = fa.sharedSizeBytes;
    SE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)(l.optin - l.kstatic)));
    SE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                     cudaSharedmemCarveoutMaxShared));
    se_smem_limits *k = (se_smem_limits *)malloc(sizeof *k);
    if (!k)
        return se_fail(err, SE_ERR_NOMEM, "shared memory limits: out of host memory");
    l.kernel = kernel;
    l.next = known;
    *k = l;
    known = k;
    *out = k;
    return SE_OK;
}

/* The shared memory per block that fusion and the megakernel keep tiles of
 * x in (phase A fills it, phases C and E read it instead of device memory):
 * an equal share of each SM's shared memory for `blocks` blocks, at most
 * what the block's tiles need. Tiles beyond it are re-read from device
 * memory (mostly L2). */
se_status se_coop_cache_bytes(const void *kernel, const se_gpu_problem *p, int blocks,
                              size_t *bytes, se_err *err)
{
    const se_smem_limits *l;
    se_status st = smem_limits(kernel, &l, err);
    if (st != SE_OK)
        return st;
    /* Blocks spread evenly over the SMs; each gets an equal share of its
     * SM's shared memory, and no more than its tiles need. */
    size_t per_sm_blocks = ((size_t)blocks + (size_t)l->sms - 1) / (size_t)l->sms;
    /* Shared memory is allocated in 128-byte steps: a share that is not a
     * multiple of 128 would round up past the SM's total (233472 / 5 on
     * the H200), and the cooperative launch would fail. */
    size_t share = (l->per_sm / per_sm_blocks) & ~(size_t)127;
    size_t over = l->reserved + l->kstatic;
    size_t avail = share > over ? share - over : 0;
    if (avail > l->optin - l->kstatic)
        avail = l->optin - l->kstatic;
    int64_t tiles = (p->tile_tasks + blocks - 1) / blocks;
    size_t need = (size_t)tiles * (size_t)se_tile_slot_elems(p->tile) * sizeof(float);
    size_t b = avail < need ? avail : need;
    *bytes = b & ~(size_t)15;
    return SE_OK;
}

const void *se_fusion_kernel(int tg)
{
    return tg == SE_TG_PACKED ? (const void *)se_k_fusion_packed : (const void *)se_k_fusion;
}

extern "C" se_status se_gpu_fusion_enqueue(const se_gpu_problem *p, int blocks,
                                           cudaStream_t stream, se_err *err)
{
    const int tg = se_tg_of(p);
    const void *kernel = se_fusion_kernel(tg);
    size_t smem;
    se_status st = se_coop_cache_bytes(kernel, p, blocks, &smem, err);
    if (st != SE_OK)
        return st;
    unsigned cache_elems = (unsigned)(smem / sizeof(float));
    void *args[] = {(void *)p, &cache_elems};
    return se_coop_launch(kernel, tg == SE_TG_PACKED ? "se_k_fusion_packed" : "se_k_fusion",
                          args, smem, blocks, stream, err);
}

se_status se_coop_max_blocks(const void *const kernels[2], int *max_blocks, se_err *err)
{
    int dev, sms;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    *max_blocks = 0;
    for (int i = 0; i < 2; i++) {
        int per_sm;
        SE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[i],
                                                                  SE_TILE_THREADS, 0));
        if (i == 0 || per_sm * sms < *max_blocks)
            *max_blocks = per_sm * sms;
    }
    return SE_OK;
}

extern "C" se_status se_gpu_fusion_max_blocks(int *max_blocks, se_err *err)
{
    const void *const k[2] = {se_fusion_kernel(SE_TG_ROWS), se_fusion_kernel(SE_TG_PACKED)};
    return se_coop_max_blocks(k, max_blocks, err);
}
