/*
 * coop.h - private to the GPU module: the checked cooperative launch and the
 * co-residency query shared by fusion and megakernel, and each cooperative
 * kernel's entry point.
 */
#ifndef SE_GPU_COOP_H
#define SE_GPU_COOP_H

#include "gpu/kernels.h"

/* What a tiled kernel knows, when it is compiled, of the row groups of the
 * problems it runs: SE_TG_ROWS, a group is one row (p->group == 1: a row,
 * or a row's tile, a task, one piece over the whole block, se_tile_seg);
 * SE_TG_PACKED, several rows a group (p->group > 1). Every tiled kernel is
 * compiled once for each and the host launches the one of the problem
 * (se_tg_of), so each copy holds only its own paths: with both inlined,
 * se_k_fusion's code grew from 62 to 96 KiB and its launch-bound shapes
 * waited on instruction fetch (docs/PERFORMANCE.md, versions 20 and 21). */
#define SE_TG_ROWS 0
#define SE_TG_PACKED 1

static inline __host__ __device__ int se_tg_of(const se_gpu_problem *p)
{
    return p->group > 1 ? SE_TG_PACKED : SE_TG_ROWS;
}

se_status se_coop_launch(const void *kernel, const char *name, void **args, size_t smem,
                         int blocks, cudaStream_t stream, se_err *err);

/* Most blocks (SE_TILE_THREADS each, no dynamic shared memory) that can be
 * co-resident on the current device for both of a strategy's kernels (its
 * copies for groups of one row and for packed rows, SE_TG_ROWS and
 * SE_TG_PACKED): the smaller of the two. */
se_status se_coop_max_blocks(const void *const kernels[2], int *max_blocks, se_err *err);

/* Fusion's and the megakernel's launch of `kernel` (named `name` in
 * messages) for problem p on `blocks` blocks: the tile cache
 * (se_coop_cache_bytes), the megakernel's units a row, the cooperative
 * launch. Either operation's kernels (fused.cuh). */
se_status se_coop_fusion_enqueue(const void *kernel, const char *name, const se_gpu_problem *p,
                                 int blocks, cudaStream_t stream, se_err *err);
se_status se_coop_mk_enqueue(const void *kernel, const char *name, const se_gpu_problem *p,
                             int blocks, cudaStream_t stream, se_err *err);

/* The bytes of dynamic shared memory each of `blocks` blocks of `kernel`
 * (fusion or the megakernel) keeps its tiles of x in (fusion.cu); sets the
 * kernel's shared-memory attributes the first time. */
se_status se_coop_cache_bytes(const void *kernel, const se_gpu_problem *p, int blocks,
                              size_t *bytes, se_err *err);

/* The kernel of fusion and of the megakernel for row groups tg
 * (SE_TG_ROWS or SE_TG_PACKED). */
const void *se_fusion_kernel(int tg);
const void *se_megakernel_kernel(int tg);
const void *se_megakernel_init_kernel(void);

/* LayerNorm's (ln_fused.cu). */
const void *se_ln_fusion_kernel(int tg);
const void *se_ln_megakernel_kernel(int tg);

#endif
