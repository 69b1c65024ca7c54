/*
 * ln_fused.cu - LayerNorm forward's fusion and megakernel strategies:
 * fusion.cu's and megakernel.cu's kernels over LayerNorm's three phases
 * (ln_ops.cuh) instead of the softmax's five.
 *
 * The bodies are fused.cuh's, the softmax's (fusion.cu, megakernel.cu)
 * compiled for LayerNorm's phases:
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
#include "gpu/fused.cuh"

#include "gpu/se_cuda.h"

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_ln_fusion(const __grid_constant__ se_gpu_problem p, unsigned cache_elems)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    se_fusion_body(&p, cache_elems, red, SE_TG_ROWS, SE_GPU_OP_LAYERNORM);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 4) se_k_ln_fusion_packed(const __grid_constant__ se_gpu_problem p, unsigned cache_elems)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    se_fusion_body(&p, cache_elems, red, SE_TG_PACKED, SE_GPU_OP_LAYERNORM);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_ln_megakernel(const __grid_constant__ se_gpu_problem p, unsigned cache_elems, unsigned q)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_ROWS, SE_GPU_OP_LAYERNORM);
}

__global__ void __launch_bounds__(SE_TILE_THREADS, 6) se_k_ln_megakernel_packed(const __grid_constant__ se_gpu_problem p, unsigned cache_elems,
                              unsigned q)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    __shared__ int s_last;
    se_mk_body(&p, cache_elems, q, red, &s_last, SE_TG_PACKED, SE_GPU_OP_LAYERNORM);
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
    return se_coop_fusion_enqueue(se_ln_fusion_kernel(tg),
                                  tg == SE_TG_PACKED ? "se_k_ln_fusion_packed" : "se_k_ln_fusion",
                                  p, blocks, stream, err);
}

extern "C" se_status se_gpu_ln_megakernel_enqueue(const se_gpu_problem *p, int blocks,
                                                  cudaStream_t stream, se_err *err)
{
    const int tg = se_tg_of(p);
    return se_coop_mk_enqueue(se_ln_megakernel_kernel(tg),
                              tg == SE_TG_PACKED ? "se_k_ln_megakernel_packed"
                                                 : "se_k_ln_megakernel",
                              p, blocks, stream, err);
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
