/*
 * rowblock_grid.cuh - the pieces of a cooperative grid whose CTAs split
 * long rows, shared by the softmax's (rowblock_grid.cu) and LayerNorm's
 * (ln_rowblock.cu) grid kernels: the 64-bit words, each a 32-bit value
 * and a 32-bit tag, through which a row's CTAs exchange their partials
 * (a reader that sees the tag sees the value: no counter, fence or second
 * read); a CTA's edge elements, so that any row length is read as float4;
 * and the arrivals at a launch's end (the row's trace record, the next
 * launch's tags). The scratch is se_rb_scratch (kernels.h).
 */
#ifndef SE_ROWBLOCK_GRID_CUH
#define SE_ROWBLOCK_GRID_CUH

#include <stdint.h>

#include "gpu/kernels.h"
#include "gpu/tile_ops.cuh"

static __device__ __forceinline__ void se_st_relaxed_u64(unsigned long long *addr,
                                                         unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(addr), "l"(v) : "memory");
}

static __device__ __forceinline__ unsigned long long se_ld_relaxed_u64(
    const unsigned long long *addr)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    return v;
}

/* The flat index in x (and y) of this thread's edge element of its CTA's
 * part (CTA b holds row b / parts, columns [p chunk, (p + 1) chunk) with
 * p = b % parts), or -1 where it has none: the up to 3 elements before the
 * part's first 16-byte boundary go to threads 0-2, the up to 3 after its
 * last to threads 4-6. Recomputed from the launch's parameters where it
 * is used, so it holds no register across the exchanges. */
static __device__ __forceinline__ int64_t se_rb_grid_edge(const float *x, int64_t cols, int parts,
                                                          int chunk)
{
    const int tid = threadIdx.x;
    if (tid >= 8)
        return -1;
    const int64_t start = (int64_t)(blockIdx.x % parts) * chunk;
    const int64_t left = cols - start;
    if (left <= 0)
        return -1;
    const int len = left < chunk ? (int)left : chunk;
    const int64_t base = (int64_t)(blockIdx.x / parts) * cols + start;
    const int head = min(len, (int)((16 - ((uintptr_t)(x + base) & 15)) & 15) / 4);
    const int body = (len - head) / 4 * 4;
    if (tid < head)
        return base + tid;
    if (tid >= 4 && tid - 4 < len - head - body)
        return base + head + body + tid - 4;
    return -1;
}

/* Launch counts wrap here, so tags (2 gen + 1, 2 gen + 2) are never 0, the
 * tag of the cleared scratch; every launch has tags of its own, so a word
 * left by an earlier launch, of any shape, never matches. */
#define SE_RB_GEN_MASK 0x3fffffff

/* A launch's end, by every thread of the CTA once its writes are issued:
 * thread 0 arrives on its row's counter (the last CTA of the row resets it
 * and, traced, records the row from the earliest start of its CTAs) and on
 * the grid's (the last CTA of the grid resets it and advances the launch
 * count `gen` read at the start: the next launch's tags). */
static __device__ __forceinline__ void se_rb_grid_finish(se_rb_scratch sc, int64_t row,
                                                         int parts, unsigned gen, uint64_t t0,
                                                         se_trace_buf trace)
{
    __syncthreads(); /* the CTA's writes are done */
    if (threadIdx.x == 0) {
        if (trace.rec) {
            sc.start[blockIdx.x] = t0;
            __threadfence();
        }
        /* Both arrivals at once (relaxed: the counters order nothing within
         * the launch; the next launch sees them after this one ends). */
        int row_done = atomicAdd(sc.count + row, 1) == parts - 1;
        int grid_done = atomicAdd(sc.gen + 1, 1) == (int)gridDim.x - 1;
        if (row_done) {
            sc.count[row] = 0;
            if (trace.rec) {
                __threadfence();
                uint64_t first = t0;
                for (int r = 0; r < parts; r++) {
                    uint64_t t = __ldcg((const unsigned long long *)sc.start + row * parts + r);
                    first = t < first ? t : first;
                }
                se_trace_record(&trace, row, first);
            }
        }
        if (grid_done) {
            sc.gen[1] = 0;
            sc.gen[0] = (int32_t)((gen + 1) & SE_RB_GEN_MASK);
        }
    }
}

#endif
