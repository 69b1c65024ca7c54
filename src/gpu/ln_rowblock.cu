/*
 * ln_rowblock.cu - LayerNorm forward's rowblock control: not tiled, one
 * kernel, every row in one launch with no partials in device memory, the
 * row read once and held on chip:
 *
 *   at most 256 rows of at most 8 columns: a thread a row, the length a
 *   compile-time constant (launch-bound: no shuffle on the chain);
 *   rows of up to SE_LN_RB_WARP_COLS (1024) columns: a warp a row (8 rows
 *   a block of 256), the row in registers (1, 2, 4, ... 32 values a lane,
 *   a compile-time count: the fewest that hold the row), exact two-pass
 *   statistics (mean, then the squared deviations);
 *   longer rows: a row over a cluster of 1 to 16 CTAs (the softmax's
 *   cluster pick, rowblock_block.cu), each CTA's part in registers
 *   (SE_RB_VALS a thread) and, for 16-byte rows, as much again in shared
 *   memory; the float64 sums of x and x^2 of each warp go to every CTA of
 *   the cluster by st.async (cluster_xchg.cuh), one exchange, and mean and
 *   rstd come from them with phase B's formula (se_ln_rb_stats_of: the
 *   host's 1 / cols and rsqrt for its divisions and square root); with few
 *   rows (fewer than two an SM) of 257 to 8192 columns, one CTA a row of
 *   about 8 values a thread, 8 a compile-time count (short serial chains);
 *   rows over 32768 columns where the softmax's rule (se_rb_long_path,
 *   rowblock.cu) takes its grid, over the cluster: the CTAs of a
 *   cooperative grid, two or more a row (se_k_ln_rowblock_grid: the
 *   softmax's parts, chunks and tagged words, rowblock_grid.cuh; one
 *   exchange of the float64 sums of x and x^2): rows whose clusters would
 *   run in waves or leave most SMs idle, and rows no cluster holds (over
 *   16 x 32768 columns, or 524288 when the row is not a multiple of 4)
 *   that the grid takes, re-reading from L2 what it does not hold;
 *   rows neither takes: a block of 1024 threads a row, read three times
 *   (the sum, the squared deviations, the write).
 *
 * y with ln_ops.cuh's formula (se_ln_y), so the control differs from the
 * tiled strategies only in how the statistics are summed and in rstd
 * (rsqrt, not a division by a square root). Traced: one
 * record per row (task = row).
 */
#include <stdint.h>

#include "gpu/cluster_xchg.cuh"
#include "gpu/ln_ops.cuh"
#include "gpu/rowblock.cuh"
#include "gpu/rowblock_grid.cuh"

#include "gpu/se_cuda.h"

#define SE_LN_RB_WARP_REG (SE_LN_RB_WARP_COLS / 32)
#define SE_LN_RB_THREADS 1024
#define SE_LN_RB_BLOCK_WARPS (SE_LN_RB_THREADS / 32)
/* The grid kernel is launched with the softmax's grid's SE_ROW_THREADS and
 * reduces over SE_LN_RB_BLOCK_WARPS warps. */
static_assert(SE_ROW_THREADS == SE_LN_RB_THREADS, "LayerNorm's grid CTA is the softmax's");
/* With few rows, a row of at most SE_LN_RB_FEW_VALS * 1024 columns runs on
 * one CTA of about SE_LN_RB_FEW_VALS values a thread. */
#define SE_LN_RB_FEW_VALS 8
/* Shapes of at most SE_LN_RB_THREAD_ROWS rows of at most
 * SE_LN_RB_THREAD_COLS columns: a thread a row, the length a constant. */
#define SE_LN_RB_THREAD_COLS 8
#define SE_LN_RB_THREAD_ROWS SE_TILE_THREADS
/* Few rows (fewer than two an SM) of more than SE_LN_RB_FEW_MIN_COLS
 * columns take a CTA a row of SE_LN_RB_FEW_VALS values a thread, not a
 * warp: a row of 1024 on one warp issues everything on one of the SM's
 * four schedulers. */
#define SE_LN_RB_FEW_MIN_COLS 256

/* A row's mean and rstd as se_ln_y takes them, from its float64 sum of
 * squared deviations: 1 / cols comes from the host and rstd from float64
 * rsqrt (a few dependent instructions where division and square root are
 * subroutines of tens: on a launch-bound row they were the chain,
 * docs/PERFORMANCE.md, version 27). */
static __device__ __forceinline__ se_ln_stats se_ln_rb_stats(double mean, double dev,
                                                             double inv_cols, double eps)
{
    se_ln_stats s;
    s.mean = (float)mean;
    s.rstd = (float)rsqrt(__fma_rn(dev, inv_cols, eps));
    return s;
}

/* mean and rstd from a row's float64 sums of x and x^2 (the cluster
 * kernel's one exchange): phase B's formula (se_ln_stats_of) with the
 * host's 1 / cols and rsqrt in place of the divisions and the square
 * root. */
static __device__ __forceinline__ se_ln_stats se_ln_rb_stats_of(double sum, double sq,
                                                                double inv_cols, double eps)
{
    double mean = __dmul_rn(sum, inv_cols);
    double var = __dadd_rn(__dmul_rn(sq, inv_cols), -__dmul_rn(mean, mean));
    var = var > 0.0 ? var : 0.0;
    se_ln_stats r;
    r.mean = (float)mean;
    r.rstd = (float)rsqrt(__dadd_rn(var, eps));
    return r;
}

/* A warp a row, the row in registers: V values a lane (32 V >= cols, V a
 * compile-time constant so that a short row's chain has no dead steps),
 * summed in float64 over four chains. */
static __device__ __forceinline__ void se_ln_rb_warp_body(const float *x, float *y, int64_t rows,
                                                          int cols, double inv_cols, double eps,
                                                          se_trace_buf trace, const int V)
{
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    if (row >= rows)
        return;
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float v[SE_LN_RB_WARP_REG];
    double acc[4] = {0.0, 0.0, 0.0, 0.0};
#pragma unroll
    for (int i = 0; i < V; i++) {
        int c = lane + 32 * i;
        v[i] = c < cols ? xr[c] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < V; i++)
        acc[i & 3] = __dadd_rn(acc[i & 3], (double)v[i]);
    double sum = se_warp_sum_d(__dadd_rn(__dadd_rn(acc[0], acc[1]), __dadd_rn(acc[2], acc[3])));
    const double mean = __dmul_rn(sum, inv_cols);
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0;
#pragma unroll
    for (int i = 0; i < V; i++) {
        int c = lane + 32 * i;
        double d = (double)v[i] - mean;
        if (c < cols)
            acc[i & 3] = __fma_rn(d, d, acc[i & 3]);
    }
    double dev = se_warp_sum_d(__dadd_rn(__dadd_rn(acc[0], acc[1]), __dadd_rn(acc[2], acc[3])));
    const se_ln_stats st = se_ln_rb_stats(mean, dev, inv_cols, eps);
#pragma unroll
    for (int i = 0; i < V; i++) {
        int c = lane + 32 * i;
        if (c < cols)
            yr[c] = se_ln_y(v[i], st, c);
    }
    if (trace.rec && lane == 0)
        se_trace_record(&trace, row, t0);
}

#define SE_LN_RB_WARP_KERNEL(name, V)                                                         \
    __global__ void __launch_bounds__(SE_TILE_THREADS)                                        \
        name(const float *x, float *y, int64_t rows, int cols, double inv_cols, double eps,   \
             se_trace_buf trace)                                                              \
    {                                                                                         \
        se_ln_rb_warp_body(x, y, rows, cols, inv_cols, eps, trace, V);                        \
    }
SE_LN_RB_WARP_KERNEL(se_k_ln_rowblock_warp_v1, 1)
SE_LN_RB_WARP_KERNEL(se_k_ln_rowblock_warp_v2, 2)
SE_LN_RB_WARP_KERNEL(se_k_ln_rowblock_warp_v4, 4)
SE_LN_RB_WARP_KERNEL(se_k_ln_rowblock_warp_v8, 8)
SE_LN_RB_WARP_KERNEL(se_k_ln_rowblock_warp_v16, 16)
SE_LN_RB_WARP_KERNEL(se_k_ln_rowblock_warp_v32, 32)

/* A thread a row of C columns, C a compile-time constant (at most
 * SE_LN_RB_THREAD_COLS): shapes of few such rows, where the launch and
 * one chain are all the time there is; no shuffle. */
static __device__ __forceinline__ void se_ln_rb_thread_body(const float *x, float *y, int64_t rows,
                                                            double inv_cols, double eps,
                                                            se_trace_buf trace, const int C)
{
    const int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    float v[SE_LN_RB_THREAD_COLS];
    double sum = 0.0, dev = 0.0;
#pragma unroll
    for (int k = 0; k < C; k++)
        v[k] = x[row * C + k];
#pragma unroll
    for (int k = 0; k < C; k++)
        sum = __dadd_rn(sum, (double)v[k]);
    const double mean = __dmul_rn(sum, inv_cols);
#pragma unroll
    for (int k = 0; k < C; k++) {
        double d = (double)v[k] - mean;
        dev = __fma_rn(d, d, dev);
    }
    const se_ln_stats st = se_ln_rb_stats(mean, dev, inv_cols, eps);
#pragma unroll
    for (int k = 0; k < C; k++)
        y[row * C + k] = se_ln_y(v[k], st, k);
    if (trace.rec)
        se_trace_record(&trace, row, t0);
}

#define SE_LN_RB_THREAD_KERNEL(name, C)                                                       \
    __global__ void __launch_bounds__(SE_TILE_THREADS)                                        \
        name(const float *x, float *y, int64_t rows, int cols, double inv_cols, double eps,   \
             se_trace_buf trace)                                                              \
    {                                                                                         \
        se_ln_rb_thread_body(x, y, rows, inv_cols, eps, trace, C);                            \
    }
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c1, 1)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c2, 2)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c3, 3)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c4, 4)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c5, 5)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c6, 6)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c7, 7)
SE_LN_RB_THREAD_KERNEL(se_k_ln_rowblock_thread_c8, 8)

typedef void (*se_ln_rb_warp_fn)(const float *, float *, int64_t, int, double, double,
                                 se_trace_buf);

/* The block's sum of each thread's v, in float64: warps, then warp 0 over
 * the warps' sums in order; every thread gets it. */
static __device__ __forceinline__ double se_ln_rb_block_sum(double v, double *red)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = se_warp_sum_d(v);
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        double w = lane < SE_LN_RB_BLOCK_WARPS ? red[lane] : 0.0;
        w = se_warp_sum_d(w);
        if (lane == 0)
            red[SE_LN_RB_BLOCK_WARPS] = w;
    }
    __syncthreads();
    double r = red[SE_LN_RB_BLOCK_WARPS];
    __syncthreads(); /* red may be reused at once */
    return r;
}

/* A block a row in three passes over the row in device memory: rows no
 * cluster holds. */
__global__ void __launch_bounds__(SE_LN_RB_THREADS) se_k_ln_rowblock_block(const float *x, float *y, int64_t cols, double inv_cols, double eps, se_trace_buf trace)
{
    __shared__ double red[SE_LN_RB_BLOCK_WARPS + 1];
    const int64_t row = blockIdx.x;
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    double sum = 0.0, dev = 0.0;
    for (int64_t c = threadIdx.x; c < cols; c += SE_LN_RB_THREADS)
        sum = __dadd_rn(sum, (double)xr[c]);
    const double mean = __dmul_rn(se_ln_rb_block_sum(sum, red), inv_cols);
    for (int64_t c = threadIdx.x; c < cols; c += SE_LN_RB_THREADS) {
        double d = (double)xr[c] - mean;
        dev = __fma_rn(d, d, dev);
    }
    const se_ln_stats st = se_ln_rb_stats(mean, se_ln_rb_block_sum(dev, red), inv_cols, eps);
    for (int64_t c = threadIdx.x; c < cols; c += SE_LN_RB_THREADS)
        yr[c] = se_ln_y(xr[c], st, c);
    if (trace.rec) {
        __syncthreads();
        if (threadIdx.x == 0)
            se_trace_record(&trace, row, t0);
    }
}

/* The clustered row's exchange buffer: slot [rank][warp] holds that warp's
 * float64 (sum of x, sum of x^2). */
typedef struct se_ln_xbuf {
    double2 p[SE_RB_MAX_CLUSTER * SE_LN_RB_BLOCK_WARPS];
    unsigned long long bar;
} se_ln_xbuf;

/* A row over a cluster of gridDim.x / rows CTAs (one CTA: a cluster of 1):
 * CTA rank r holds columns [r chunk, (r + 1) chunk) (chunk a multiple of
 * 4), SE_RB_VALS a thread in registers, the float4 chunks past them in
 * dynamic shared memory (16-byte rows only), copied there by cp.async
 * issued before the register loads. Each thread sums its values' x and
 * x^2 in float64 in order; the warps' sums (xor butterfly) go to every
 * CTA's slot [rank][warp]; each CTA adds the csize x warps slots in one
 * order, so every CTA of the row gets the same mean and rstd. */
static __device__ __forceinline__ void se_ln_rb_cluster_body(const float *x, float *y, int64_t cols,
                                                             int chunk, double inv_cols,
                                                             double eps, int vec4,
                                                             se_trace_buf trace, const int vals)
{
    extern __shared__ float4 se_ln_spill[];
    __shared__ se_ln_xbuf xb;
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const unsigned csize = se_cl_size(), me = se_cl_rank();
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    const int64_t row = blockIdx.x / csize;
    const int64_t start = (int64_t)me * chunk;
    const int64_t left = cols - start;
    const int n = left <= 0 ? 0 : left < chunk ? (int)left : chunk;
    const float *xr = x + row * cols + (left > 0 ? start : 0);
    float *yr = y + row * cols + (left > 0 ? start : 0);
    if (threadIdx.x == 0) {
        se_cl_bar_init1(&xb.bar);
        se_cl_bar_fence();
    }
    se_cl_arrive();
    const int nt = blockDim.x;
    const int n4 = vec4 ? n / 4 : 0;
    const int r4 = vals / 4 * nt; /* float4 chunks held in registers */
    const float4 *x4 = (const float4 *)xr;
    const int spill = vec4 && n4 > r4;
    if (spill) {
        for (int i = r4 + threadIdx.x; i < n4; i += nt)
            se_cp_async16(&se_ln_spill[i - r4], x4 + i);
        se_cp_async_commit();
    }
    float v[SE_RB_VALS]; /* vals of them used */
    se_rb_load_part(v, xr, n, n4, nt, vec4, vals);
    double s = 0.0, q = 0.0, s1 = 0.0, q1 = 0.0; /* two chains of each */
#pragma unroll
    for (int k = 0; k < vals; k += 2) {
        se_ln_acc(&s, &q, v[k]); /* elements outside the part are 0 */
        se_ln_acc(&s1, &q1, v[k + 1]);
    }
    if (spill) {
        se_cp_async_wait_all(); /* this thread's own copies */
        for (int i = r4 + threadIdx.x; i < n4; i += nt) {
            float4 a = se_ln_spill[i - r4];
            se_ln_acc(&s, &q, a.x);
            se_ln_acc(&s, &q, a.y);
            se_ln_acc(&s, &q, a.z);
            se_ln_acc(&s, &q, a.w);
        }
    }
    s = __dadd_rn(s, s1);
    q = __dadd_rn(q, q1);
    for (int o = 16; o > 0; o >>= 1) {
        s = __dadd_rn(s, __shfl_xor_sync(0xffffffffu, s, o));
        q = __dadd_rn(q, __shfl_xor_sync(0xffffffffu, q, o));
    }
    se_cl_ready();
    if (csize > 1) {
        const unsigned bar = se_smem_u32(&xb.bar);
        if (threadIdx.x == 0)
            se_cl_expect(bar, csize * nw * 16u);
        if (lane < csize)
            se_cl_send_d2(se_cl_map(se_smem_u32(&xb.p[me * nw + warp]), lane), s, q,
                          se_cl_map(bar, lane));
        se_cl_wait(bar);
    } else { /* one CTA: st.async needs a cluster of at least 2 */
        if (lane == 0)
            xb.p[warp] = make_double2(s, q);
        __syncthreads();
    }
    s = 0.0;
    q = 0.0;
    for (unsigned i = lane; i < csize * nw; i += 32) {
        double2 w = xb.p[i];
        s = __dadd_rn(s, w.x);
        q = __dadd_rn(q, w.y);
    }
    for (int o = 16; o > 0; o >>= 1) { /* xor butterfly: every lane gets the same bits */
        s = __dadd_rn(s, __shfl_xor_sync(0xffffffffu, s, o));
        q = __dadd_rn(q, __shfl_xor_sync(0xffffffffu, q, o));
    }
    const se_ln_stats st = se_ln_rb_stats_of(s, q, inv_cols, eps);
    const int64_t col0 = start;
    if (vec4) {
        float4 *y4 = (float4 *)yr;
#pragma unroll
        for (int k = 0; k < vals / 4; k++) {
            int i = threadIdx.x + k * nt;
            int64_t c = col0 + 4 * (int64_t)i;
            if (i < n4)
                __stcs(y4 + i, make_float4(se_ln_y(v[4 * k], st, c), se_ln_y(v[4 * k + 1], st, c + 1),
                                           se_ln_y(v[4 * k + 2], st, c + 2),
                                           se_ln_y(v[4 * k + 3], st, c + 3)));
        }
        if (spill)
            for (int i = r4 + threadIdx.x; i < n4; i += nt) {
                float4 a = se_ln_spill[i - r4];
                int64_t c = col0 + 4 * (int64_t)i;
                __stcs(y4 + i, make_float4(se_ln_y(a.x, st, c), se_ln_y(a.y, st, c + 1),
                                           se_ln_y(a.z, st, c + 2), se_ln_y(a.w, st, c + 3)));
            }
    } else {
#pragma unroll
        for (int k = 0; k < vals; k++) {
            int i = threadIdx.x + k * nt;
            if (i < n)
                yr[i] = se_ln_y(v[k], st, col0 + i);
        }
    }
    if (trace.rec) {
        __syncthreads();
        if (csize > 1)
            asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory"); /* the row ends when every CTA has written */
        if (threadIdx.x == 0 && me == 0)
            se_trace_record(&trace, row, t0);
    }
}

#define SE_LN_RB_CLUSTER_KERNEL(name, vals)                                                   \
    __global__ void __launch_bounds__(SE_LN_RB_THREADS)                                       \
        name(const float *x, float *y, int64_t cols, int chunk, double inv_cols, double eps,  \
             int vec4, se_trace_buf trace)                                                    \
    {                                                                                         \
        se_ln_rb_cluster_body(x, y, cols, chunk, inv_cols, eps, vec4, trace, vals);           \
    }
/* A row over a cluster, SE_RB_VALS a thread (and shared memory). */
SE_LN_RB_CLUSTER_KERNEL(se_k_ln_rowblock_cluster, SE_RB_VALS)
/* Few rows of at most SE_LN_RB_FEW_VALS x 1024 columns: one CTA a row,
 * SE_LN_RB_FEW_VALS a thread, so the chain holds no dead steps. */
SE_LN_RB_CLUSTER_KERNEL(se_k_ln_rowblock_cta8, SE_LN_RB_FEW_VALS)

/* LayerNorm's exchange over the `parts` CTAs of a row of the grid
 * (se_k_ln_rowblock_grid): thread 0 publishes this CTA's float64 sums of
 * x and x^2 as four tagged words of its slot, the high and the low half
 * of each (rowblock_grid.cuh: a reader that sees the four tags sees both
 * values). One warp per 32 CTAs polls their words, every load in flight
 * at once (lane l of warp w takes parts w 32 + l, then that plus 32 pw,
 * ...), and sums them, then across its lanes by an xor butterfly; each
 * thread then adds the warps' sums in warp order: a fixed order, the same
 * in every CTA of the row, so all of them get the same bits. cs, cq: one
 * double per warp. */
static __device__ __forceinline__ void se_ln_grid_combine(unsigned long long *row_slots, int p,
                                                          int parts, unsigned tag, double *s,
                                                          double *q, double *cs, double *cq)
{
    const unsigned long long t = (unsigned long long)tag << 32;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nw = (int)(blockDim.x >> 5), pw = min(nw, (parts + 31) / 32);
    if (threadIdx.x == 0) {
        unsigned long long *mine = row_slots + SE_RB_SLOT_WORDS * p;
        se_st_relaxed_u64(mine, t | (unsigned)__double2hiint(*s));
        se_st_relaxed_u64(mine + 1, t | (unsigned)__double2loint(*s));
        se_st_relaxed_u64(mine + 2, t | (unsigned)__double2hiint(*q));
        se_st_relaxed_u64(mine + 3, t | (unsigned)__double2loint(*q));
    }
    if (warp < pw) {
        double ss = 0.0, qq = 0.0;
        for (int r = warp * 32 + lane; r < parts; r += pw * 32) {
            const unsigned long long *w = row_slots + SE_RB_SLOT_WORDS * r;
            unsigned long long a, b, c, d;
            do {
                a = se_ld_relaxed_u64(w);
                b = se_ld_relaxed_u64(w + 1);
                c = se_ld_relaxed_u64(w + 2);
                d = se_ld_relaxed_u64(w + 3);
            } while ((unsigned)(a >> 32) != tag || (unsigned)(b >> 32) != tag ||
                     (unsigned)(c >> 32) != tag || (unsigned)(d >> 32) != tag);
            ss = __dadd_rn(ss, __hiloint2double((int)(unsigned)a, (int)(unsigned)b));
            qq = __dadd_rn(qq, __hiloint2double((int)(unsigned)c, (int)(unsigned)d));
        }
        for (int o = 16; o > 0; o >>= 1) { /* xor butterfly: every lane gets the same bits */
            ss = __dadd_rn(ss, __shfl_xor_sync(0xffffffffu, ss, o));
            qq = __dadd_rn(qq, __shfl_xor_sync(0xffffffffu, qq, o));
        }
        if (lane == 0) {
            cs[warp] = ss;
            cq[warp] = qq;
        }
    }
    __syncthreads();
    double ss = 0.0, qq = 0.0;
    for (int k = 0; k < pw; k++) {
        ss = __dadd_rn(ss, cs[k]);
        qq = __dadd_rn(qq, cq[k]);
    }
    *s = ss;
    *q = qq;
}

/* Four elements of x at columns c .. c + 3 into the sums. */
static __device__ __forceinline__ void se_ln_acc4(double *s, double *q, float4 a)
{
    se_ln_acc(s, q, a.x);
    se_ln_acc(s, q, a.y);
    se_ln_acc(s, q, a.z);
    se_ln_acc(s, q, a.w);
}

static __device__ __forceinline__ float4 se_ln_y4(float4 a, se_ln_stats st, int64_t c)
{
    return make_float4(se_ln_y(a.x, st, c), se_ln_y(a.y, st, c + 1), se_ln_y(a.z, st, c + 2),
                       se_ln_y(a.w, st, c + 3));
}

/* Long LayerNorm rows split over `parts` CTAs of a cooperative grid, as
 * the softmax's se_k_rowblock_grid splits them (rowblock_grid.cu: the
 * same parts, chunks, edge elements, registers then shared memory, and
 * the tail read again where a part is more than the chip holds), with one
 * exchange instead of two: each CTA's float64 sums of x and x^2 (in
 * order: the edge element, the registers' two chains, the tail, the
 * shared memory), the block's sums (se_ln_rb_block_sum), then the row's
 * over its CTAs (se_ln_grid_combine, tag 2 gen + 1); mean and rstd with
 * the clustered kernel's formula (se_ln_rb_stats_of), y stored
 * evict-first: the edge element, the tail (while L2 still has it), shared
 * memory, registers. Columns for gamma and beta: a part's float4 i is
 * columns c4 + 4 i. Traced: one record per row. */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_ln_rowblock_grid(
    const float *x, float *y, int64_t cols, int parts, int chunk, int smem4, double inv_cols,
    double eps, se_rb_scratch sc, se_trace_buf trace)
{
    extern __shared__ float4 se_ln_held[];
    __shared__ double red[SE_LN_RB_BLOCK_WARPS + 1];
    __shared__ double cs[SE_ROW_WARPS], cq[SE_ROW_WARPS];
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int nt = blockDim.x, tid = threadIdx.x;
    const int64_t row = blockIdx.x / parts;
    const int p = blockIdx.x % parts;
    const int64_t start = (int64_t)p * chunk;
    const int64_t left = cols - start;
    const int len = left <= 0 ? 0 : (left < chunk ? (int)left : chunk);
    const int64_t col0 = left > 0 ? start : 0;
    const float *xp = x + row * cols + col0;
    const int head = min(len, (int)((16 - ((uintptr_t)xp & 15)) & 15) / 4);
    const int n4 = (len - head) / 4;
    const int64_t c4 = col0 + head; /* the column of x4[0] */
    const float4 *x4 = (const float4 *)(xp + head);
    float4 *y4 = (float4 *)(y + (xp - x) + head);
    const int r4 = SE_RB_VALS / 4 * nt;               /* float4 chunks in registers */
    const int h4 = min(n4, r4 + smem4);               /* ... and in shared memory */
    const int hs = h4 - r4;                           /* se_ln_held[j] is x4[r4 + j] */
    unsigned long long *row_slots = sc.slot + SE_RB_SLOT_WORDS * row * parts;

    for (int j = tid; j < hs; j += nt) /* each thread reads back only its own copies */
        se_cp_async16(&se_ln_held[j], x4 + r4 + j);
    se_cp_async_commit();
    float v[SE_RB_VALS];
    const int tail = h4 < n4;
#pragma unroll
    for (int k = 0; k < SE_RB_VALS / 4; k++) {
        int i = tid + k * nt;
        /* with a tail, evict-first: L2 keeps the tail for the second read */
        float4 a = i >= n4 ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : tail ? __ldcs(x4 + i)
                                                                        : __ldg(x4 + i);
        v[4 * k] = a.x;
        v[4 * k + 1] = a.y;
        v[4 * k + 2] = a.z;
        v[4 * k + 3] = a.w;
    }
    const unsigned gen = (unsigned)__ldcg(sc.gen) & SE_RB_GEN_MASK;
    double s = 0.0, q = 0.0, s1 = 0.0, q1 = 0.0; /* two chains of each */
    int64_t e = se_rb_grid_edge(x, cols, parts, chunk);
    if (e >= 0)
        se_ln_acc(&s, &q, x[e]);
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k += 2) { /* elements outside the part are 0 */
        se_ln_acc(&s, &q, v[k]);
        se_ln_acc(&s1, &q1, v[k + 1]);
    }
    for (int i = h4 + tid; i < n4; i += nt)
        se_ln_acc4(&s, &q, x4[i]);
    se_cp_async_wait_all(); /* this thread's own copies */
    for (int j = tid; j < hs; j += nt)
        se_ln_acc4(&s1, &q1, se_ln_held[j]);
    /* one block sum after the other: both at once spill 32 bytes (ptxas) */
    s = se_ln_rb_block_sum(__dadd_rn(s, s1), red);
    q = se_ln_rb_block_sum(__dadd_rn(q, q1), red);
    se_ln_grid_combine(row_slots, p, parts, 2 * gen + 1, &s, &q, cs, cq);
    const se_ln_stats st = se_ln_rb_stats_of(s, q, inv_cols, eps);

    e = se_rb_grid_edge(x, cols, parts, chunk);
    if (e >= 0)
        __stcs(y + e, se_ln_y(x[e], st, e - row * cols));
    for (int i = h4 + tid; i < n4; i += nt) /* the tail first, while L2 still has it */
        __stcs(y4 + i, se_ln_y4(x4[i], st, c4 + 4 * (int64_t)i));
    for (int j = tid; j < hs; j += nt)
        __stcs(y4 + r4 + j, se_ln_y4(se_ln_held[j], st, c4 + 4 * (int64_t)(r4 + j)));
#pragma unroll
    for (int k = 0; k < SE_RB_VALS / 4; k++) {
        int i = tid + k * nt;
        if (i < n4)
            __stcs(y4 + i, se_ln_y4(make_float4(v[4 * k], v[4 * k + 1], v[4 * k + 2],
                                                v[4 * k + 3]),
                                    st, c4 + 4 * (int64_t)i));
    }
    se_rb_grid_finish(sc, row, parts, gen, t0, trace);
}

/* Launches se_k_ln_rowblock_grid on the grid se_rb_grid_pick_for chose. */
static se_status ln_rb_grid_launch(const float *x, float *y, int64_t rows, int64_t cols,
                                   double inv_cols, double eps, const se_rb_grid_cfg *g,
                                   se_rb_scratch sc, se_trace_buf trace, cudaStream_t stream,
                                   se_err *err)
{
    int parts = g->parts, chunk = g->chunk, smem4 = g->smem4;
    void *args[] = {(void *)&x,     (void *)&y,        (void *)&cols, (void *)&parts,
                    (void *)&chunk, (void *)&smem4,    (void *)&inv_cols, (void *)&eps,
                    (void *)&sc,    (void *)&trace};
    cudaError_t e = cudaLaunchCooperativeKernel((const void *)se_k_ln_rowblock_grid,
                                                dim3((unsigned)(rows * parts)),
                                                dim3(SE_ROW_THREADS), args, (size_t)smem4 * 16,
                                                stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return se_fail(err, e == cudaErrorCooperativeLaunchTooLarge ? SE_ERR_LIMIT : SE_ERR_CUDA,
                       "se_k_ln_rowblock_grid: cooperative launch of %lld rows x %d blocks of %d "
                       "threads (%d columns and %d bytes of shared memory each) failed: %s (%s)",
                       (long long)rows, parts, SE_ROW_THREADS, chunk, smem4 * 16,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return SE_OK;
}

/* The cluster (or single CTA) for rows of more than SE_LN_RB_WARP_COLS
 * columns, or of more than SE_LN_RB_FEW_MIN_COLS in few rows; csize = 0:
 * none holds the row. */
static se_status ln_rb_pick(int64_t rows, int64_t cols, int vec4, int sms, se_rb_cluster_cfg *c,
                            se_err *err)
{
    if (rows < 2 * (int64_t)sms && cols <= (int64_t)SE_LN_RB_FEW_VALS * SE_LN_RB_THREADS) {
        /* few rows: one CTA a row, about SE_LN_RB_FEW_VALS values a thread */
        int64_t t = (cols + SE_LN_RB_FEW_VALS - 1) / SE_LN_RB_FEW_VALS;
        c->csize = 1;
        c->threads = (int)((t + 31) / 32 * 32);
        c->chunk = (int)((cols + 3) / 4 * 4);
        c->clusters = 1;
        c->smem = 0;
        return SE_OK;
    }
    return se_rb_cluster_pick_for((const void *)se_k_ln_rowblock_cluster, rows, cols, vec4, c,
                                  err);
}

/* The warp kernel with the fewest values a lane that hold a row of `cols`
 * (at most SE_LN_RB_WARP_COLS) columns. */
static se_ln_rb_warp_fn ln_rb_warp_pick(int64_t cols, const char **name)
{
    static const struct {
        int vals;
        se_ln_rb_warp_fn fn;
        const char *name;
    } k[] = {{1, se_k_ln_rowblock_warp_v1, "se_k_ln_rowblock_warp_v1"},
             {2, se_k_ln_rowblock_warp_v2, "se_k_ln_rowblock_warp_v2"},
             {4, se_k_ln_rowblock_warp_v4, "se_k_ln_rowblock_warp_v4"},
             {8, se_k_ln_rowblock_warp_v8, "se_k_ln_rowblock_warp_v8"},
             {16, se_k_ln_rowblock_warp_v16, "se_k_ln_rowblock_warp_v16"},
             {32, se_k_ln_rowblock_warp_v32, "se_k_ln_rowblock_warp_v32"}};
    size_t i = 0;
    while (i + 1 < sizeof k / sizeof k[0] && 32 * (int64_t)k[i].vals < cols)
        i++;
    *name = k[i].name;
    return k[i].fn;
}

extern "C" se_status se_gpu_ln_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                                int64_t cols, double eps, se_rb_scratch scratch,
                                                se_trace_buf trace, cudaStream_t stream,
                                                se_err *err)
{
    const double inv_cols = 1.0 / (double)cols;
    int dev, sms;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    const int few = rows < 2 * (int64_t)sms;
    if (cols <= SE_LN_RB_THREAD_COLS && rows <= SE_LN_RB_THREAD_ROWS) {
        static const se_ln_rb_warp_fn k[SE_LN_RB_THREAD_COLS] = {
            se_k_ln_rowblock_thread_c1, se_k_ln_rowblock_thread_c2, se_k_ln_rowblock_thread_c3,
            se_k_ln_rowblock_thread_c4, se_k_ln_rowblock_thread_c5, se_k_ln_rowblock_thread_c6,
            se_k_ln_rowblock_thread_c7, se_k_ln_rowblock_thread_c8};
        static const char *const names[SE_LN_RB_THREAD_COLS] = {
            "se_k_ln_rowblock_thread_c1", "se_k_ln_rowblock_thread_c2",
            "se_k_ln_rowblock_thread_c3", "se_k_ln_rowblock_thread_c4",
            "se_k_ln_rowblock_thread_c5", "se_k_ln_rowblock_thread_c6",
            "se_k_ln_rowblock_thread_c7", "se_k_ln_rowblock_thread_c8"};
        unsigned threads = (unsigned)((rows + 31) / 32 * 32);
        k[cols - 1]<<<1, threads, 0, stream>>>(x, y, rows, (int)cols, inv_cols, eps, trace);
        SE_CUDA_LAUNCHED(names[cols - 1]);
        return SE_OK;
    }
    /* rows <= SE_MAX_TASKS < 2^31 - 1, the grid's x limit (se_case_check) */
    if (cols <= SE_LN_RB_WARP_COLS && !(few && cols > SE_LN_RB_FEW_MIN_COLS)) {
        unsigned blocks = (unsigned)((rows + SE_TILE_WARPS - 1) / SE_TILE_WARPS);
        const char *name;
        se_ln_rb_warp_fn fn = ln_rb_warp_pick(cols, &name);
        fn<<<blocks, SE_TILE_THREADS, 0, stream>>>(x, y, rows, (int)cols, inv_cols, eps, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    /* 16-byte rows (x and y from cudaMalloc, cols a multiple of 4) */
    const int vec4 = cols % 4 == 0 && ((uintptr_t)x & 15) == 0 && ((uintptr_t)y & 15) == 0;
    se_rb_cluster_cfg c;
    se_status st = ln_rb_pick(rows, cols, vec4, sms, &c, err);
    if (st != SE_OK)
        return st;
    se_rb_grid_cfg g;
    const int frame = ((uintptr_t)x & 15) == ((uintptr_t)y & 15); /* any row length, as float4 */
    st = se_rb_grid_pick_for((const void *)se_k_ln_rowblock_grid, rows, cols, frame, sms, &g,
                             err);
    if (st != SE_OK)
        return st;
    const se_rb_long path = se_rb_long_path(rows, sms, &c, &g);
    if (path == SE_RB_LONG_GRID)
        return ln_rb_grid_launch(x, y, rows, cols, inv_cols, eps, &g, scratch, trace, stream,
                                 err);
    if (path == SE_RB_LONG_CLUSTER) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        se_rb_cluster_config(&cfg, &attr, rows, &c, stream);
        /* the few-rows CTA of ln_rb_pick: SE_LN_RB_FEW_VALS values a thread */
        if (c.csize == 1 && c.smem == 0 &&
            (int64_t)c.threads * SE_LN_RB_FEW_VALS >= cols)
            SE_CUDA_TRY(cudaLaunchKernelEx(&cfg, se_k_ln_rowblock_cta8, x, y, cols, c.chunk,
                                           inv_cols, eps, vec4, trace));
        else
            SE_CUDA_TRY(cudaLaunchKernelEx(&cfg, se_k_ln_rowblock_cluster, x, y, cols, c.chunk,
                                           inv_cols, eps, vec4, trace));
        return SE_OK;
    }
    se_k_ln_rowblock_block<<<(unsigned)rows, SE_LN_RB_THREADS, 0, stream>>>(x, y, cols, inv_cols,
                                                                            eps, trace);
    SE_CUDA_LAUNCHED("se_k_ln_rowblock_block");
    return SE_OK;
}
