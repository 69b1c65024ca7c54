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

#include "gpu/fused.cuh"

#include "gpu/se_cuda.h"

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_fusion(const __grid_constant__ se_gpu_problem p,
                                                               unsigned cache_elems)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    se_fusion_body(&p, cache_elems, red, SE_TG_ROWS, SE_GPU_OP_RMS_SOFTMAX);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_fusion_packed(const __grid_constant__ se_gpu_problem p,
                                                                      unsigned cache_elems)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    se_fusion_body(&p, cache_elems, red, SE_TG_PACKED, SE_GPU_OP_RMS_SOFTMAX);
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

/* Fusion's launch of `kernel` (either operation's, either row-group
 * copy): its tile cache, then the cooperative launch; with `units`, the
 * megakernel's, which also takes the units a row (se_mk_row_units). */
static se_status coop_tiles_enqueue(const void *kernel, const char *name,
                                    const se_gpu_problem *p, int blocks, int units,
                                    cudaStream_t stream, se_err *err)
{
    size_t smem;
    se_status st = se_coop_cache_bytes(kernel, p, blocks, &smem, err);
    if (st != SE_OK)
        return st;
    unsigned cache_elems = (unsigned)(smem / sizeof(float));
    unsigned q = units ? se_mk_row_units((unsigned)p->groups, (unsigned)p->tiles_per_row,
                                         cache_elems / (unsigned)se_tile_slot_elems(p->tile),
                                         (unsigned)blocks)
                       : 0;
    void *args[] = {(void *)p, &cache_elems, &q};
    return se_coop_launch(kernel, name, args, smem, blocks, stream, err);
}

se_status se_coop_fusion_enqueue(const void *kernel, const char *name, const se_gpu_problem *p,
                                 int blocks, cudaStream_t stream, se_err *err)
{
    return coop_tiles_enqueue(kernel, name, p, blocks, 0, stream, err);
}

se_status se_coop_mk_enqueue(const void *kernel, const char *name, const se_gpu_problem *p,
                             int blocks, cudaStream_t stream, se_err *err)
{
    return coop_tiles_enqueue(kernel, name, p, blocks, 1, stream, err);
}

extern "C" se_status se_gpu_fusion_enqueue(const se_gpu_problem *p, int blocks,
                                           cudaStream_t stream, se_err *err)
{
    const int tg = se_tg_of(p);
    return se_coop_fusion_enqueue(se_fusion_kernel(tg),
                                  tg == SE_TG_PACKED ? "se_k_fusion_packed" : "se_k_fusion", p,
                                  blocks, stream, err);
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
