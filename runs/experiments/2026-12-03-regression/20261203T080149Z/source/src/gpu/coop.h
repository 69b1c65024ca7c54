/*
 * coop.h - private to the GPU module: the checked cooperative launch and the
 * co-residency query shared by fusion and megakernel, and each cooperative
 * kernel's entry point.
 */
#ifndef SE_GPU_COOP_H
#define SE_GPU_COOP_H

#include "gpu/kernels.h"

se_status se_coop_launch(const void *kernel, const char *name, void **args, size_t smem,
                         int blocks, cudaStream_t stream, se_err *err);

/* Most blocks of `kernel` (SE_TILE_THREADS each, no dynamic shared memory)
 * that can be co-resident on the current device. */
se_status se_coop_max_blocks(const void *kernel, int *max_blocks, se_err *err);

/* The bytes of dynamic shared memory each of `blocks` blocks of `kernel`
 * (fusion or the megakernel) keeps its tiles of x in (fusion.cu); sets the
 * kernel's shared-memory attributes the first time. */
se_status se_coop_cache_bytes(const void *kernel, const se_gpu_problem *p, int blocks,
                              size_t *bytes, se_err *err);

const void *se_fusion_kernel(void);
const void *se_megakernel_kernel(void);
const void *se_megakernel_init_kernel(void);

#endif
