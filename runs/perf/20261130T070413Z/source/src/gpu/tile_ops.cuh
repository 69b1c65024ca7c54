/*
 * tile_ops.cuh - the per-tile and per-row device functions of the tiled
 * RMS-scaled softmax, shared by every tiled strategy.
 *
 * stream, graph, fusion and megakernel call exactly these functions with the
 * same block size, so for the same input their outputs are bitwise
 * identical: only the execution mechanism differs. To keep that true the
 * arithmetic is pinned down: explicit fmaf, __fadd_rn and __fmul_rn (never
 * contracted or reassociated by the compiler), fixed-order butterfly
 * reductions, and per-row combines in float64 in a fixed order.
 *
 * Values written by one block and read by another (partials, row statistics)
 * are read with __ldcg, from L2, never from a possibly stale L1 line.
 */
#ifndef SE_TILE_OPS_CUH
#define SE_TILE_OPS_CUH

#include <math.h>

#include "kernels.h"

#define SE_TILE_WARPS (SE_TILE_THREADS / 32)

/* Tracing: one thread of the task reads the global timer when the task
 * starts and appends a record when it ends. Untraced runs (trace.rec NULL)
 * skip both on a uniform branch. */
static __device__ __forceinline__ uint64_t se_now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ int se_smid(void)
{
    int id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

static __device__ __forceinline__ void se_trace_record(const se_trace_buf *tb, int64_t task,
                                                       uint64_t start)
{
    uint64_t end = se_now_ns();
    int k = atomicAdd(tb->count, 1);
    if (k < tb->cap) {
        se_trace_rec r;
        r.task = (int32_t)task;
        r.block = (int32_t)blockIdx.x;
        r.sm = se_smid();
        r.reserved = 0;
        r.start_ns = start;
        r.end_ns = end;
        tb->rec[k] = r;
    }
}
#define SE_FULL_MASK 0xffffffffu

static __device__ __forceinline__ float se_warp_sum_f(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = __fadd_rn(v, __shfl_xor_sync(SE_FULL_MASK, v, o));
    return v;
}

static __device__ __forceinline__ float se_warp_max_f(float v)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(SE_FULL_MASK, v, o));
    return v;
}

static __device__ __forceinline__ double se_warp_sum_d(double v)
{
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_xor_sync(SE_FULL_MASK, v, o);
    return v;
}

/* Block-wide sum and max over SE_TILE_THREADS threads; every thread gets the
 * result. red holds 2 * SE_TILE_WARPS floats of shared memory. */
static __device__ __forceinline__ void se_block_sum_max(float *sum, float *max, float *red)
{
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float a = se_warp_sum_f(*sum), b = se_warp_max_f(*max);
    if (lane == 0) {
        red[warp] = a;
        red[SE_TILE_WARPS + warp] = b;
    }
    __syncthreads();
    a = lane < SE_TILE_WARPS ? red[lane] : 0.0f;
    b = lane < SE_TILE_WARPS ? red[SE_TILE_WARPS + lane] : -INFINITY;
    *sum = se_warp_sum_f(a);
    *max = se_warp_max_f(b);
    __syncthreads(); /* red may be reused at once */
}

/* Columns [start, start + len) of row `row`, as a pointer and a length. */
static __device__ __forceinline__ const float *se_tile_x(const se_gpu_problem *p, int64_t row,
                                                         int64_t tile, unsigned *len)
{
    int64_t start = tile * p->tile;
    int64_t rest = p->cols - start;
    *len = (unsigned)(rest < p->tile ? rest : p->tile);
    return p->x + row * p->cols + start;
}

/* Phase A: sum of squares and max of one tile, by the whole block. */
static __device__ __forceinline__ void se_tile_a(const se_gpu_problem *p, int64_t row,
                                                 int64_t tile, float *red)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    float ss = 0.0f, mx = -INFINITY;
    if (p->vec4) {
        const float4 *x4 = (const float4 *)xt;
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < len / 4; i += SE_TILE_THREADS) {
            float4 v = x4[i];
            ss = fmaf(v.x, v.x, ss);
            ss = fmaf(v.y, v.y, ss);
            ss = fmaf(v.z, v.z, ss);
            ss = fmaf(v.w, v.w, ss);
            mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
        }
    } else {
        for (unsigned i = threadIdx.x; i < len; i += SE_TILE_THREADS) {
            float v = xt[i];
            ss = fmaf(v, v, ss);
            mx = fmaxf(mx, v);
        }
    }
    se_block_sum_max(&ss, &mx, red);
    if (threadIdx.x == 0) {
        int64_t k = row * p->tiles_per_row + tile;
        p->part_ss[k] = ss;
        p->part_max[k] = mx;
    }
}

/* e = exp(s x - m): the one place the exponent is computed. */
static __device__ __forceinline__ float se_exp_arg(float s, float x, float m)
{
    return expf(fmaf(s, x, -m));
}

/* Phase C: sum of exp(s_r x - m_r) over one tile, by the whole block. */
static __device__ __forceinline__ void se_tile_c(const se_gpu_problem *p, int64_t row,
                                                 int64_t tile, float *red)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    float s = __ldcg(p->row_s + row), m = __ldcg(p->row_m + row);
    float acc = 0.0f, unused = 0.0f;
    if (p->vec4) {
        const float4 *x4 = (const float4 *)xt;
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < len / 4; i += SE_TILE_THREADS) {
            float4 v = x4[i];
            acc = __fadd_rn(acc, se_exp_arg(s, v.x, m));
            acc = __fadd_rn(acc, se_exp_arg(s, v.y, m));
            acc = __fadd_rn(acc, se_exp_arg(s, v.z, m));
            acc = __fadd_rn(acc, se_exp_arg(s, v.w, m));
        }
    } else {
        for (unsigned i = threadIdx.x; i < len; i += SE_TILE_THREADS)
            acc = __fadd_rn(acc, se_exp_arg(s, xt[i], m));
    }
    se_block_sum_max(&acc, &unused, red);
    if (threadIdx.x == 0)
        p->part_l[row * p->tiles_per_row + tile] = acc;
}

/* Phase E: y = exp(s_r x - m_r) / l_r over one tile, by the whole block. */
static __device__ __forceinline__ void se_tile_e(const se_gpu_problem *p, int64_t row,
                                                 int64_t tile)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    float *yt = p->y + (xt - p->x);
    float s = __ldcg(p->row_s + row), m = __ldcg(p->row_m + row);
    float inv_l = __ldcg(p->row_inv_l + row);
    if (p->vec4) {
        const float4 *x4 = (const float4 *)xt;
        float4 *y4 = (float4 *)yt;
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < len / 4; i += SE_TILE_THREADS) {
            float4 v = x4[i], o;
            o.x = __fmul_rn(se_exp_arg(s, v.x, m), inv_l);
            o.y = __fmul_rn(se_exp_arg(s, v.y, m), inv_l);
            o.z = __fmul_rn(se_exp_arg(s, v.z, m), inv_l);
            o.w = __fmul_rn(se_exp_arg(s, v.w, m), inv_l);
            y4[i] = o;
        }
    } else {
        for (unsigned i = threadIdx.x; i < len; i += SE_TILE_THREADS)
            yt[i] = __fmul_rn(se_exp_arg(s, xt[i], m), inv_l);
    }
}

/* Phase B, by one full warp: combine the row's A partials in float64, in a
 * fixed order, into s_r = 1/sqrt(mean x^2 + eps) and m_r = s_r * max x. */
static __device__ __forceinline__ void se_row_b(const se_gpu_problem *p, int64_t row)
{
    int lane = threadIdx.x & 31;
    int64_t base = row * p->tiles_per_row;
    double ss = 0.0;
    float mx = -INFINITY;
    for (int64_t t = lane; t < p->tiles_per_row; t += 32) {
        ss += (double)__ldcg(p->part_ss + base + t);
        mx = fmaxf(mx, __ldcg(p->part_max + base + t));
    }
    ss = se_warp_sum_d(ss);
    mx = se_warp_max_f(mx);
    if (lane == 0) {
        float s = (float)(1.0 / sqrt(ss / (double)p->cols + p->eps));
        p->row_s[row] = s;
        p->row_m[row] = __fmul_rn(s, mx);
    }
}

/* Phase D, by one full warp: l_r = sum of the row's C partials in float64,
 * stored as 1 / l_r. */
static __device__ __forceinline__ void se_row_d(const se_gpu_problem *p, int64_t row)
{
    int lane = threadIdx.x & 31;
    int64_t base = row * p->tiles_per_row;
    double l = 0.0;
    for (int64_t t = lane; t < p->tiles_per_row; t += 32)
        l += (double)__ldcg(p->part_l + base + t);
    l = se_warp_sum_d(l);
    if (lane == 0)
        p->row_inv_l[row] = (float)(1.0 / l);
}

#endif
