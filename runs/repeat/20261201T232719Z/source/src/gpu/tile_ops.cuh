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

#include "gpu/kernels.h"

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

/* gpu-scope acquire load and release store (asm volatile: a poll cannot be
 * hoisted out of its loop). */
static __device__ __forceinline__ int se_ld_acquire(const int32_t *addr)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    return v;
}

static __device__ __forceinline__ void se_st_release(int32_t *addr, int v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(addr), "r"(v) : "memory");
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

/* The on-chip copy of a tile, for fusion: the first `n` elements of the
 * tile live in shared memory at `at` (n a multiple of 4 when vec4). Before
 * phase A the owner fills it from x with asynchronous copies
 * (se_tile_prefetch); phase A reads x from it; phase C overwrites each
 * element with its exponential e = exp(s x - m); phase E reads e from it and
 * only multiplies. Every other strategy passes SE_NO_CACHE and reads x from
 * device memory in every phase; the branches fold away. The same thread
 * touches the same elements in the same order, and e is the same float
 * whether kept or recomputed, so the results stay bitwise identical. */
typedef struct se_tile_cache {
    float *at;
    unsigned n;
} se_tile_cache;

static __device__ __forceinline__ se_tile_cache se_no_cache(void)
{
    se_tile_cache c = {NULL, 0u};
    return c;
}

#define SE_NO_CACHE se_no_cache()

/* For fusion and the megakernel: the block's k-th tile of a tile phase
 * (tile task blockIdx.x + k gridDim.x) and its share of the on-chip cache:
 * slot k starts k tiles into the block's shared memory, and holds what is
 * left of `cache_elems` there. */
static __device__ __forceinline__ se_tile_cache se_tile_slot(const se_gpu_problem *p,
                                                             float *cache, unsigned cache_elems,
                                                             int64_t k)
{
    se_tile_cache c;
    int64_t off = k * p->tile, left = (int64_t)cache_elems - off;
    c.at = cache + (left > 0 ? off : 0);
    c.n = left <= 0 ? 0u : (unsigned)(left < p->tile ? left : p->tile);
    return c;
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

/* cp.async, device memory to shared memory without registers: one 16-byte
 * copy (both addresses 16-byte aligned), the commit of this thread's
 * copies so far as one group, and the wait for all of them. */
static __device__ __forceinline__ void se_cp_async16(void *smem_dst, const void *src)
{
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

static __device__ __forceinline__ void se_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

static __device__ __forceinline__ void se_cp_async_wait_all(void)
{
    asm volatile("cp.async.wait_all;" ::: "memory");
}

/* Starts the asynchronous copy of this thread's elements of the cached part
 * of a tile (cp.async, device memory to shared memory without registers)
 * and commits them as one group; the caller waits (cp.async.wait_group)
 * before phase A reads them. Each thread copies exactly the elements it will
 * read itself, so no block barrier is needed in between. */
static __device__ __forceinline__ void se_tile_prefetch(const se_gpu_problem *p, int64_t row,
                                                        int64_t tile, se_tile_cache c)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    unsigned n = c.n < len ? c.n : len;
    if (p->vec4) {
        for (unsigned i = threadIdx.x; 4 * i < n; i += SE_TILE_THREADS)
            se_cp_async16(c.at + 4 * i, xt + 4 * i);
    } else {
        for (unsigned i = threadIdx.x; i < n; i += SE_TILE_THREADS) {
            unsigned dst = (unsigned)__cvta_generic_to_shared(c.at + i);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(xt + i)
                         : "memory");
        }
    }
    se_cp_async_commit();
}

/* Waits until all but the `pending` most recent prefetch groups of this
 * thread have landed (0 to 3; more waits for fewer). */
static __device__ __forceinline__ void se_tile_prefetch_wait(int pending)
{
    if (pending >= 3)
        asm volatile("cp.async.wait_group 3;" ::: "memory");
    else if (pending == 2)
        asm volatile("cp.async.wait_group 2;" ::: "memory");
    else if (pending == 1)
        asm volatile("cp.async.wait_group 1;" ::: "memory");
    else
        asm volatile("cp.async.wait_group 0;" ::: "memory");
}

/* x[i] (float4 index i) of a tile, from the on-chip copy when it holds it. */
static __device__ __forceinline__ float4 se_tile_ld4(const float4 *x4, se_tile_cache c, unsigned i)
{
    return 4 * i < c.n ? ((const float4 *)c.at)[i] : x4[i];
}

static __device__ __forceinline__ float se_tile_ld1(const float *x, se_tile_cache c, unsigned i)
{
    return i < c.n ? c.at[i] : x[i];
}

/* Phase A: sum of squares and max of one tile, by the whole block. */
static __device__ __forceinline__ void se_tile_a(const se_gpu_problem *p, int64_t row,
                                                 int64_t tile, float *red, se_tile_cache c)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    float ss = 0.0f, mx = -INFINITY;
    if (p->vec4) {
        const float4 *x4 = (const float4 *)xt;
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < len / 4; i += SE_TILE_THREADS) {
            float4 v = se_tile_ld4(x4, c, i);
            ss = fmaf(v.x, v.x, ss);
            ss = fmaf(v.y, v.y, ss);
            ss = fmaf(v.z, v.z, ss);
            ss = fmaf(v.w, v.w, ss);
            mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
        }
    } else {
        for (unsigned i = threadIdx.x; i < len; i += SE_TILE_THREADS) {
            float v = se_tile_ld1(xt, c, i);
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

/* A row's statistics as phases C and E use them: s_r and m_r from phase B,
 * 1 / l_r from phase D, loaded from L2 (other blocks wrote them). (Loading
 * the next tile's while working on this one made fusion 5% slower on the
 * H200: docs/PERFORMANCE.md.) */
typedef struct se_row_stats {
    float s, m, inv_l;
} se_row_stats;

/* s_r and m_r (for phase C). */
static __device__ __forceinline__ se_row_stats se_row_sm(const se_gpu_problem *p, int64_t row)
{
    se_row_stats r;
    r.s = __ldcg(p->row_s + row);
    r.m = __ldcg(p->row_m + row);
    r.inv_l = 0.0f;
    return r;
}

/* s_r, m_r and 1 / l_r (for phase E). */
static __device__ __forceinline__ se_row_stats se_row_sml(const se_gpu_problem *p, int64_t row)
{
    se_row_stats r = se_row_sm(p, row);
    r.inv_l = __ldcg(p->row_inv_l + row);
    return r;
}

/* e = exp(s x - m) = 2^(s' x - m') with s' = s log2(e), m' = m log2(e): the
 * one place the exponent is computed. exp2f is one MUFU.EX2 (with the
 * denormal scaling) where expf is a range reduction around it. Rounding s'
 * and m' adds at most (|s x| + |m|) 2^-24 to the base-2 exponent, about
 * what the rounding of expf's own argument already costs; the measured
 * errors stay in validation.json, far inside rtol 1e-4. */
#define SE_LOG2E 1.4426950408889634f

static __device__ __forceinline__ float se_exp_arg(float s, float x, float m)
{
    return exp2f(fmaf(__fmul_rn(s, SE_LOG2E), x, -__fmul_rn(m, SE_LOG2E)));
}

/* Phase C: sum of exp(s_r x - m_r) over one tile, by the whole block; the
 * cached elements are replaced by their exponentials for phase E. */
static __device__ __forceinline__ void se_tile_c(const se_gpu_problem *p, int64_t row,
                                                 int64_t tile, float *red, se_tile_cache c,
                                                 se_row_stats rs)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    const float s = rs.s, m = rs.m;
    float acc = 0.0f, unused = 0.0f;
    if (p->vec4) {
        const float4 *x4 = (const float4 *)xt;
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < len / 4; i += SE_TILE_THREADS) {
            float4 v = se_tile_ld4(x4, c, i), e;
            e.x = se_exp_arg(s, v.x, m);
            e.y = se_exp_arg(s, v.y, m);
            e.z = se_exp_arg(s, v.z, m);
            e.w = se_exp_arg(s, v.w, m);
            acc = __fadd_rn(acc, e.x);
            acc = __fadd_rn(acc, e.y);
            acc = __fadd_rn(acc, e.z);
            acc = __fadd_rn(acc, e.w);
            if (4 * i < c.n)
                ((float4 *)c.at)[i] = e;
        }
    } else {
        for (unsigned i = threadIdx.x; i < len; i += SE_TILE_THREADS) {
            float e = se_exp_arg(s, se_tile_ld1(xt, c, i), m);
            acc = __fadd_rn(acc, e);
            if (i < c.n)
                c.at[i] = e;
        }
    }
    se_block_sum_max(&acc, &unused, red);
    if (threadIdx.x == 0)
        p->part_l[row * p->tiles_per_row + tile] = acc;
}

/* Phase E: y = exp(s_r x - m_r) / l_r over one tile, by the whole block
 * (cached elements already hold the exponential, from phase C). */
static __device__ __forceinline__ void se_tile_e(const se_gpu_problem *p, int64_t row,
                                                 int64_t tile, se_tile_cache c,
                                                 se_row_stats rs)
{
    unsigned len;
    const float *xt = se_tile_x(p, row, tile, &len);
    float *yt = p->y + (xt - p->x);
    const float s = rs.s, m = rs.m, inv_l = rs.inv_l;
    if (p->vec4) {
        const float4 *x4 = (const float4 *)xt;
        float4 *y4 = (float4 *)yt;
#pragma unroll 4
        for (unsigned i = threadIdx.x; i < len / 4; i += SE_TILE_THREADS) {
            float4 e, o;
            if (4 * i < c.n) {
                e = ((const float4 *)c.at)[i];
            } else {
                float4 v = x4[i];
                e.x = se_exp_arg(s, v.x, m);
                e.y = se_exp_arg(s, v.y, m);
                e.z = se_exp_arg(s, v.z, m);
                e.w = se_exp_arg(s, v.w, m);
            }
            o.x = __fmul_rn(e.x, inv_l);
            o.y = __fmul_rn(e.y, inv_l);
            o.z = __fmul_rn(e.z, inv_l);
            o.w = __fmul_rn(e.w, inv_l);
            y4[i] = o;
        }
    } else {
        for (unsigned i = threadIdx.x; i < len; i += SE_TILE_THREADS) {
            float e = i < c.n ? c.at[i] : se_exp_arg(s, xt[i], m);
            yt[i] = __fmul_rn(e, inv_l);
        }
    }
}

/* A row's sum of squares in float64, by one full warp, from x in device
 * memory, in a fixed order (each lane its columns, then a butterfly):
 * phase B's path for a row whose float partials overflowed (|x| above
 * about 1.8e19, or many large values). A square of a finite float is exact
 * in float64 and at most 1.2e77, so this sum cannot overflow. Phase A is
 * left as it was (a branch there cost the megakernel its registers); only
 * such rows pay, one warp reading the row once more (docs/INPUTS.md). */
static __device__ __noinline__ double se_row_ss_f64(const se_gpu_problem *p, int64_t row)
{
    int lane = threadIdx.x & 31;
    const float *xr = p->x + row * p->cols;
    double d = 0.0;
    for (int64_t c = lane; c < p->cols; c += 32)
        d = fma((double)xr[c], (double)xr[c], d);
    return se_warp_sum_d(d);
}

/* Phase B, by one full warp: combine the row's A partials in float64, in a
 * fixed order, into s_r = 1/sqrt(mean x^2 + eps) and m_r = s_r * max x.
 * Where a partial overflowed (inf although x is finite), the row's sum is
 * taken again in float64 (se_row_ss_f64), so every finite input gives a
 * finite, right scale, the same in every strategy. */
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
    if (isinf(ss)) /* uniform over the warp: every lane has the same sum */
        ss = se_row_ss_f64(p, row);
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
