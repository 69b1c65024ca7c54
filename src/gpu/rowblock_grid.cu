/*
 * rowblock_grid.cu - rowblock's cooperative-grid path: a long row
 * split over two or more co-resident blocks of a cooperative grid, which
 * exchange their partials through tagged words in global memory
 * (se_k_rowblock_grid), with the host code that sizes and launches the
 * grid. rowblock.cu chooses between the paths (rowblock.cuh).
 */
#include <math.h>
#include <stdint.h>

#include "gpu/kernels.h"
#include "gpu/rowblock.cuh"
#include "gpu/rowblock_grid.cuh"

#include "gpu/se_cuda.h"


static __device__ __forceinline__ void se_rb_grid_term(float4 a, float4 *keep, int i, int exps,
                                                       float s2, float m2, float *acc, float *mx)
{
    if (exps) {
        a.x = se_rb_exp2(s2, a.x, m2);
        a.y = se_rb_exp2(s2, a.y, m2);
        a.z = se_rb_exp2(s2, a.z, m2);
        a.w = se_rb_exp2(s2, a.w, m2);
        acc[0] += a.x;
        acc[1] += a.y;
        acc[2] += a.z;
        acc[3] += a.w;
        if (keep)
            keep[i] = a;
    } else {
        acc[0] = fmaf(a.x, a.x, acc[0]);
        acc[1] = fmaf(a.y, a.y, acc[1]);
        acc[2] = fmaf(a.z, a.z, acc[2]);
        acc[3] = fmaf(a.w, a.w, acc[3]);
        *mx = fmaxf(*mx, fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)));
    }
}

/* Float sums of a thread's float4 chunks i = first, first + stride, ... <
 * end of `src`: four chains (one per component) of at most 16 terms, each
 * 16 flushed into float64, so a long part keeps the chains of
 * docs/TOLERANCES.md; two loads in flight at a time (more spill registers). With `exps`, the
 * terms are 2^(s2 x - m2) instead of x^2, written back to `keep` (same
 * indices) unless NULL; otherwise the max is taken too. */
static __device__ __forceinline__ double se_rb_grid_sum(const float4 *src, float4 *keep, int first,
                                                        int end, int stride, int exps, float s2,
                                                        float m2, float *mx)
{
    double total = 0.0;
    int i = first;
    while (i < end) {
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 4
        for (int k = 0; k < 16 && i < end; k++, i += stride)
            se_rb_grid_term(src[i], keep, i, exps, s2, m2, acc, mx);
        total += (double)((acc[0] + acc[1]) + (acc[2] + acc[3]));
    }
    return total;
}

/* Combines the block-wide partials of the `parts` CTAs of this CTA's row:
 * thread 0 publishes this CTA's (*a at word w, and *b at word w + 1 when
 * `two`), each float in one 64-bit word with `tag`, so a reader that sees
 * the tag sees the value: no counter, fence or second read. One warp per
 * 32 CTAs polls their words (every load in flight at once) and sums them
 * in float64 (an xor butterfly); each thread then adds the warps' sums in
 * warp order, so every CTA of the row gets the same bits. cs/cm: one
 * double and one float per warp, not shared with another call. */
static __device__ __forceinline__ void se_rb_grid_combine(unsigned long long *row_slots, int p,
                                                          int parts, int w, int two, unsigned tag,
                                                          float *a, float *b, double *cs,
                                                          float *cm)
{
    const unsigned long long t = (unsigned long long)tag << 32;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nw = (int)(blockDim.x >> 5), pw = min(nw, (parts + 31) / 32);
    if (threadIdx.x == 0) {
        se_st_relaxed_u64(row_slots + SE_RB_SLOT_WORDS * p + w, t | __float_as_uint(*a));
        if (two)
            se_st_relaxed_u64(row_slots + SE_RB_SLOT_WORDS * p + w + 1, t | __float_as_uint(*b));
    }
    if (warp < pw) {
        double sum = 0.0;
        float mx = -INFINITY;
        for (int r = warp * 32 + lane; r < parts; r += pw * 32) {
            unsigned long long va, vb;
            do {
                va = se_ld_relaxed_u64(row_slots + SE_RB_SLOT_WORDS * r + w);
                vb = two ? se_ld_relaxed_u64(row_slots + SE_RB_SLOT_WORDS * r + w + 1) : t;
            } while ((unsigned)(va >> 32) != tag || (unsigned)(vb >> 32) != tag);
            sum += (double)__uint_as_float((unsigned)va);
            mx = fmaxf(mx, __uint_as_float((unsigned)vb));
        }
        for (int o = 16; o > 0; o >>= 1) { /* xor butterfly: every lane gets the same bits */
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        }
        if (lane == 0) {
            cs[warp] = sum;
            cm[warp] = mx;
        }
    }
    __syncthreads();
    double sum = 0.0;
    float mx = -INFINITY;
    for (int k = 0; k < pw; k++) {
        sum += cs[k];
        mx = fmaxf(mx, cm[k]);
    }
    *a = (float)sum;
    if (two)
        *b = mx;
}

/* s of a row whose float sum of squares overflowed: every CTA sums its part
 * again in float64 from device memory, and the scaled partials
 * (rowblock.cuh) cross the row's CTAs in word 3 of their slots, which the
 * softmax's kernel writes only here (LayerNorm's grid kernel uses all four
 * words for its one exchange, in launches of its own: every launch has
 * its own tags). Out of line: the float path keeps its registers. */
static __device__ __noinline__ float se_rb_grid_overflow_scale(const float4 *x4, int n4, float ev,
                                                              unsigned long long *row_slots, int p,
                                                              int parts, unsigned tag,
                                                              int64_t cols, double eps, double *cs,
                                                              float *cm)
{
    double d = se_rb_thread_ss_f64((const float *)x4, threadIdx.x, n4, blockDim.x, 1);
    d = fma((double)ev, (double)ev, d); /* this thread's edge element, or 0 */
    float sc = se_rb_block_sum_scaled(d), unused = -INFINITY;
    se_rb_grid_combine(row_slots, p, parts, 3, 0, tag, &sc, &unused, cs, cm);
    return se_rb_scale_from_scaled(sc, cols, eps);
}

/* A long row split over `parts` CTAs of a cooperative grid (all
 * co-resident, so a CTA may wait for the others of its row): CTA b holds
 * row b / parts, columns [p chunk, (p + 1) chunk) with p = b % parts and
 * chunk a multiple of 4. A part is read in the frame of 16-byte addresses,
 * so any row length is read as float4: the up to 3 edge elements before
 * the part's first 16-byte boundary and the up to 3 after its last go one
 * to a thread (threads 0-2 and 4-6, se_rb_grid_edge); x and y must have
 * the same address modulo 16 (the dispatcher checks). Of its float4, the
 * first 1024 x 32 columns are held
 * in registers, the next `smem4` float4 in dynamic shared memory; the rest
 * (the tail, when the rows are more than the chip holds) is read again
 * in each pass, from L2 where it stays there: where a CTA has a tail, its
 * register part of x is loaded with the evict-first hint, so that L2 keeps
 * the tail (an L2 prefetch of the tail at the start measured slower);
 * where it has none, x is loaded plainly, so an x that fits in L2 is still
 * there for the next call. y is always stored evict-first. Two exchanges
 * per row (sums of squares and maxima; sums of exponentials) through
 * tagged words in `sc`, and one exponential per element held (two per
 * tail element); after its writes
 * each CTA arrives on its row's counter (the last one resets it and
 * records the row's trace) and on the grid's (the last one resets it and
 * advances the launch count: the next launch's tags). */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_grid(const float *x, float *y,
                                                                     int64_t cols, int parts,
                                                                     int chunk, int smem4,
                                                                     double eps, se_rb_scratch sc,
                                                                     se_trace_buf trace)
{
    extern __shared__ float4 se_rb_held[];
    __shared__ float red_ss[SE_ROW_WARPS], red_mx[SE_ROW_WARPS];
    __shared__ float red_l[SE_ROW_WARPS], red_unused[SE_ROW_WARPS];
    __shared__ double cs1[SE_ROW_WARPS], cs2[SE_ROW_WARPS];
    __shared__ float cm1[SE_ROW_WARPS], cm2[SE_ROW_WARPS];
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int nt = blockDim.x, tid = threadIdx.x;
    const int64_t row = blockIdx.x / parts;
    const int p = blockIdx.x % parts;
    const int64_t start = (int64_t)p * chunk;
    const int64_t left = cols - start;
    const int len = left <= 0 ? 0 : (left < chunk ? (int)left : chunk);
    const float *xp = x + row * cols + (left > 0 ? start : 0);
    const int head = min(len, (int)((16 - ((uintptr_t)xp & 15)) & 15) / 4);
    const int n4 = (len - head) / 4;
    const float4 *x4 = (const float4 *)(xp + head);
    float4 *y4 = (float4 *)(y + (xp - x) + head);
    const int r4 = SE_RB_VALS / 4 * nt;               /* float4 chunks in registers */
    const int h4 = min(n4, r4 + smem4);               /* ... and in shared memory */
    const int hs = h4 - r4;                           /* se_rb_held[j] is x4[r4 + j] */
    unsigned long long *row_slots = sc.slot + SE_RB_SLOT_WORDS * row * parts;

    for (int j = tid; j < hs; j += nt) /* each thread reads back only its own copies */
        se_cp_async16(&se_rb_held[j], x4 + r4 + j);
    se_cp_async_commit();
    float v[SE_RB_VALS];
    if (h4 < n4) { /* a tail: keep L2 for it */
#pragma unroll
        for (int q = 0; q < SE_RB_VALS / 4; q++) {
            int i = tid + q * nt;
            float4 a = i < n4 ? __ldcs(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * q] = a.x;
            v[4 * q + 1] = a.y;
            v[4 * q + 2] = a.z;
            v[4 * q + 3] = a.w;
        }
    } else {
#pragma unroll
        for (int q = 0; q < SE_RB_VALS / 4; q++) {
            int i = tid + q * nt;
            float4 a = i < n4 ? __ldg(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * q] = a.x;
            v[4 * q + 1] = a.y;
            v[4 * q + 2] = a.z;
            v[4 * q + 3] = a.w;
        }
    }
    const unsigned gen = (unsigned)__ldcg(sc.gen) & SE_RB_GEN_MASK;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, mx = -INFINITY;
    int64_t e = se_rb_grid_edge(x, cols, parts, chunk); /* read again where needed (L1) */
    if (e >= 0) {
        acc[0] = x[e] * x[e];
        mx = x[e];
    }
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k++) {
        acc[k % 4] = fmaf(v[k], v[k], acc[k % 4]); /* invalid elements are 0 */
        if (tid + (k / 4) * nt < n4)
            mx = fmaxf(mx, v[k]);
    }
    double part = se_rb_grid_sum(x4, NULL, h4 + tid, n4, nt, 0, 0.0f, 0.0f, &mx);
    se_cp_async_wait_all();
    part += se_rb_grid_sum(se_rb_held, NULL, tid, hs, nt, 0, 0.0f, 0.0f, &mx);
    float ss = (float)((double)((acc[0] + acc[1]) + (acc[2] + acc[3])) + part);
    se_row_reduce_f(&ss, &mx, red_ss, red_mx);
    se_rb_grid_combine(row_slots, p, parts, 0, 1, 2 * gen + 1, &ss, &mx, cs1, cm1);

    /* float64 once per block, off any short row's critical path: the
     * error of s is then the sums' alone (docs/TOLERANCES.md). */
    float s;
    if (isinf(ss)) { /* uniform over the row's CTAs: again in float64 (rowblock.cuh) */
        e = se_rb_grid_edge(x, cols, parts, chunk);
        s = se_rb_grid_overflow_scale(x4, n4, e >= 0 ? x[e] : 0.0f, row_slots, p, parts,
                                      2 * gen + 1, cols, eps, cs2, cm2);
    } else {
        s = (float)(1.0 / sqrt((double)ss / (double)cols + eps));
    }
    float s2 = __fmul_rn(s, SE_RB_LOG2E), m2 = __fmul_rn(__fmul_rn(s, mx), SE_RB_LOG2E);
    e = se_rb_grid_edge(x, cols, parts, chunk);
    acc[0] = e >= 0 ? se_rb_exp2(s2, x[e], m2) : 0.0f;
    acc[1] = acc[2] = acc[3] = 0.0f;
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k++) {
        v[k] = tid + (k / 4) * nt < n4 ? se_rb_exp2(s2, v[k], m2) : 0.0f;
        acc[k % 4] += v[k];
    }
    float unused = -INFINITY;
    part = se_rb_grid_sum(x4, NULL, h4 + tid, n4, nt, 1, s2, m2, &unused);
    part += se_rb_grid_sum(se_rb_held, se_rb_held, tid, hs, nt, 1, s2, m2, &unused);
    float l = (float)((double)((acc[0] + acc[1]) + (acc[2] + acc[3])) + part);
    se_row_reduce_f(&l, &unused, red_l, red_unused);
    se_rb_grid_combine(row_slots, p, parts, 2, 0, 2 * gen + 2, &l, &unused, cs2, cm2);

    float inv_l = __frcp_rn(l);
    e = se_rb_grid_edge(x, cols, parts, chunk);
    if (e >= 0) /* the same exponential as in the sum, again */
        __stcs(y + e, se_rb_exp2(s2, x[e], m2) * inv_l);
    for (int i = h4 + tid; i < n4; i += nt) { /* the tail first, while L2 still has it */
        float4 a = x4[i];
        __stcs(y4 + i, make_float4(se_rb_exp2(s2, a.x, m2) * inv_l,
                                   se_rb_exp2(s2, a.y, m2) * inv_l,
                                   se_rb_exp2(s2, a.z, m2) * inv_l,
                                   se_rb_exp2(s2, a.w, m2) * inv_l));
    }
    for (int j = tid; j < hs; j += nt) {
        float4 a = se_rb_held[j];
        __stcs(y4 + r4 + j, make_float4(a.x * inv_l, a.y * inv_l, a.z * inv_l, a.w * inv_l));
    }
#pragma unroll
    for (int q = 0; q < SE_RB_VALS / 4; q++) {
        int i = tid + q * nt;
        if (i < n4)
            __stcs(y4 + i, make_float4(v[4 * q] * inv_l, v[4 * q + 1] * inv_l,
                                       v[4 * q + 2] * inv_l, v[4 * q + 3] * inv_l));
    }
    se_rb_grid_finish(sc, row, parts, gen, t0, trace);
}

/* The cooperative grid of `kernel` (one of 1024 threads: SE_RB_VALS
 * values a thread in registers, then dynamic shared memory) for rows too
 * long for one CTA's registers when x and y are equally aligned (`frame`:
 * the same address modulo 16) and there are CTAs enough for two or more
 * per row: `parts` CTAs per row of `chunk` columns, each with smem4 float4
 * of shared memory; parts = 0 when it does not serve. Every CTA
 * co-resident is what the cooperative launch guarantees; one CTA per SM.
 * The last answer is kept, as for the clusters. */
se_status se_rb_grid_pick_for(const void *kernel, int64_t rows, int64_t cols, int frame, int sms,
                              se_rb_grid_cfg *out, se_err *err)
{
    static const void *cached_kernel;
    static int cached_dev = -1, smem_max = 0;
    static int64_t cached_rows = -1, cached_cols = -1;
    static se_rb_grid_cfg cached;
    const int64_t in_regs = (int64_t)SE_RB_VALS * SE_ROW_THREADS;
    se_rb_grid_cfg g = {0, 0, 0, 0};
    *out = g;
    if (!frame || cols <= in_regs)
        return SE_OK;
    int dev;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    if (kernel == cached_kernel && dev == cached_dev && rows == cached_rows &&
        cols == cached_cols) {
        *out = cached;
        return SE_OK;
    }
    if (kernel != cached_kernel || dev != cached_dev) { /* attributes are per kernel and device */
        cudaFuncAttributes fa;
        int optin;
        cached_kernel = NULL; /* until this kernel's attributes are set */
        cached_dev = -1;
        cached_rows = cached_cols = -1;
        SE_CUDA_TRY(cudaFuncGetAttributes(&fa, kernel));
        SE_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        smem_max = (optin - (int)fa.sharedSizeBytes) / 16 * 16;
        SE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         smem_max));
        cached_kernel = kernel;
        cached_dev = dev;
    }
    int per_sm = 0;
    SE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, SE_ROW_THREADS,
                                                              (size_t)smem_max));
    int64_t ctas = (int64_t)per_sm * sms;
    if (ctas > SE_RB_GRID_CAP)
        ctas = SE_RB_GRID_CAP;
    int64_t parts = ctas / rows;
    if (parts >= 2) {
        int64_t chunk = ((cols + parts - 1) / parts + 3) / 4 * 4;
        int64_t smem4 = (chunk - in_regs) / 4;
        g.parts = (int)((cols + chunk - 1) / chunk); /* no CTA without columns */
        g.chunk = (int)chunk;
        g.smem4 = (int)(smem4 < 0 ? 0 : smem4 < smem_max / 16 ? smem4 : smem_max / 16);
        g.tail = smem4 > smem_max / 16;
    }
    cached_rows = rows;
    cached_cols = cols;
    cached = g;
    *out = g;
    return SE_OK;
}

se_status se_rb_grid_pick(int64_t rows, int64_t cols, int frame, int sms, se_rb_grid_cfg *out,
                          se_err *err)
{
    return se_rb_grid_pick_for((const void *)se_k_rowblock_grid, rows, cols, frame, sms, out,
                               err);
}

se_status se_rb_grid_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                            const se_rb_grid_cfg *g, se_rb_scratch sc, se_trace_buf trace,
                            cudaStream_t stream, se_err *err)
{
    int parts = g->parts, chunk = g->chunk, smem4 = g->smem4;
    void *args[] = {(void *)&x, (void *)&y, (void *)&cols, (void *)&parts, (void *)&chunk,
                    (void *)&smem4, (void *)&eps, (void *)&sc, (void *)&trace};
    cudaError_t e = cudaLaunchCooperativeKernel((const void *)se_k_rowblock_grid,
                                                dim3((unsigned)(rows * parts)),
                                                dim3(SE_ROW_THREADS), args, (size_t)smem4 * 16,
                                                stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return se_fail(err, e == cudaErrorCooperativeLaunchTooLarge ? SE_ERR_LIMIT : SE_ERR_CUDA,
                       "se_k_rowblock_grid: cooperative launch of %lld rows x %d blocks of %d "
                       "threads (%d columns and %d bytes of shared memory each) failed: %s (%s)",
                       (long long)rows, parts, SE_ROW_THREADS, chunk, smem4 * 16,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return SE_OK;
}
