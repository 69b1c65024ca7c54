/*
 * rowblock_rows.cu - rowblock's path for many short rows (at most
 * SE_RB_ROWS_MAX_COLS columns): several rows a warp, every load and store
 * 16 bytes wide whatever the row length, and a compile-time row length for
 * the shortest rows of few-row shapes (launch-bound). rowblock.cu's
 * dispatcher chooses it (rowblock.cuh).
 *
 * The design is OneFlow's SoftmaxWarpImpl (a group of G lanes per row, the
 * row in the group's registers, shuffles within the group) with one change
 * for rows whose length is not a multiple of 4: a warp stages a
 * contiguous span of whole rows through shared memory, so that the span is
 * read and written as float4 (a scalar head and tail only at the span's two
 * ends) and every row length, 37 or 100003 as well as 32, moves as a copy
 * does. One read of x and one write of y.
 */
#include <math.h>
#include <stdint.h>

#include "gpu/kernels.h"
#include "gpu/rowblock.cuh"

#include "gpu/se_cuda.h"

/* A span: at most SE_RB_SPAN floats of whole rows (4 KiB), a warp's own,
 * staged in the warp's slice of shared memory with 4 floats of padding
 * after every 32, so that the groups of a warp, which read rows cols
 * apart, fall on different banks when cols is a multiple of 32 (float4
 * stays aligned: 32 and 4 are multiples of 4). A warp loads, computes and
 * stores its span with no barrier but __syncwarp, so the warps of an SM
 * stay out of step (a block-wide span waited at two __syncthreads and its
 * 8 warps moved in lockstep: 0.55 to 0.78 of copy, docs/PERFORMANCE.md,
 * version 16). SE_RB_SPAN_CH float4 a lane cover a span plus the
 * misaligned chunk at each end. */
#define SE_RB_SPAN_THREADS 256
#define SE_RB_SPAN_WARPS (SE_RB_SPAN_THREADS / 32)
#define SE_RB_SPAN 1024
#define SE_RB_SPAN_CH (SE_RB_SPAN / 4 / 32 + 1)
/* Shapes of at most this many elements whose rows are not a multiple of 4
 * take the span kernels' direct form (launch-bound). */
#define SE_RB_DIRECT_MAX 65536
#define SE_RB_SPAN_VMAX 16 /* values a lane, at most (512 columns, 32 lanes) */
#define SE_RB_SPAN_PAD(i) ((i) + (((i) >> 5) << 2))
#define SE_RB_SPAN_SMEM (SE_RB_SPAN_PAD(SE_RB_SPAN + 8) + 4)

/* Rows a span holds: as many whole rows as SE_RB_SPAN floats take. */
static __host__ __device__ __forceinline__ int se_rb_span_rows(int cols)
{
    return cols >= SE_RB_SPAN ? 1 : SE_RB_SPAN / cols;
}

/* One row's softmax from the G lanes of its group, each holding up to V
 * values, value i inside the row where bit i of `valid` is set (the
 * others 0): the same arithmetic as the one-thread kernel, with the sums
 * and maxima butterflied over the group (xor within G lanes, so every
 * lane gets the same bits). Returns 1 / l, and leaves the exponentials
 * in v. */
static __device__ __forceinline__ float se_rb_group_softmax(float *v, unsigned valid, int cols,
                                                            double eps, const int G, const int V)
{
    float acc[2] = {0.0f, 0.0f}, mx = -INFINITY;
#pragma unroll
    for (int i = 0; i < V; i++) {
        acc[i & 1] = fmaf(v[i], v[i], acc[i & 1]);
        if ((valid >> i) & 1)
            mx = fmaxf(mx, v[i]);
    }
    float ss = acc[0] + acc[1];
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1) {
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    }
    const float rcols = __frcp_rn((float)cols);
    float s = rsqrtf(__fmaf_rn(ss, rcols, (float)eps));
    /* A float sum that overflowed is summed again with scaled values
     * (rowblock.cuh). The groups of a warp hold different rows, so the
     * branch is taken by the whole warp when any of its rows needs it
     * (every shuffle has all 32 lanes), and each row keeps its own s; a
     * lane a row (G = 1, no shuffle; lanes past the last row have left)
     * decides alone. */
    if (G == 1 ? isinf(ss) : __any_sync(0xffffffffu, isinf(ss))) {
        float a2 = 0.0f;
#pragma unroll
        for (int i = 0; i < V; i++) {
            float w = __fmul_rn(v[i], 0x1p-80f);
            a2 = fmaf(w, w, a2);
        }
#pragma unroll
        for (int o = G / 2; o > 0; o >>= 1)
            a2 += __shfl_xor_sync(0xffffffffu, a2, o);
        if (isinf(ss))
            s = se_rb_scale_from_scaled_f(a2, rcols);
    }
    const float m = s * mx;
    const float s2 = __fmul_rn(s, SE_RB_LOG2E), m2 = __fmul_rn(m, SE_RB_LOG2E);
    acc[0] = acc[1] = 0.0f;
#pragma unroll
    for (int i = 0; i < V; i++) {
        v[i] = (valid >> i) & 1 ? se_rb_exp2_ftz(s2, v[i], m2) : 0.0f;
        acc[i & 1] += v[i];
    }
    float l = acc[0] + acc[1];
#pragma unroll
    for (int o = G / 2; o > 0; o >>= 1)
        l += __shfl_xor_sync(0xffffffffu, l, o);
    return __frcp_rn(l);
}

/* Warp w's span (w = blockIdx.x SE_RB_SPAN_WARPS + the warp in its block):
 * rows [w R, w R + R) of `rows`, R = se_rb_span_rows. Loads: the span's
 * float4 chunks in x's 16-byte frame, all issued before any is stored to
 * the warp's shared memory (a chunk past the end of x element by element);
 * `vec` = 0 when x or y is not 16-byte aligned (every element alone). Then
 * each group of G lanes takes rows of the span in turn, and the warp
 * stores the span back as float4, the chunks that straddle its ends
 * element by element (a neighbour span owns their other elements). */
static __device__ __forceinline__ void se_rb_span_body(const float *x, float *y, int64_t rows,
                                                       int cols, double eps, int vec,
                                                       se_trace_buf trace, const int G,
                                                       const int V)
{
    __shared__ __align__(16) float smem[SE_RB_SPAN_WARPS][SE_RB_SPAN_SMEM];
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    float *sm = smem[wib];
    const int R = se_rb_span_rows(cols);
    const int64_t r0 = ((int64_t)blockIdx.x * SE_RB_SPAN_WARPS + wib) * R;
    if (r0 >= rows)
        return; /* the whole warp: it shares nothing with the others */
    const int nr = (int)(rows - r0 < R ? rows - r0 : R);
    const int64_t s = r0 * cols, e = s + (int64_t)nr * cols, total = rows * (int64_t)cols;
    const int64_t a0 = vec ? s & ~(int64_t)3 : s; /* first chunk's first element */
    const int lead = (int)(s - a0);                 /* span element 0 is sm[PAD(lead)] */
    const int nch = vec ? (int)((e - a0 + 3) >> 2) : 0;

    if (vec) {
        float4 c[SE_RB_SPAN_CH];
#pragma unroll
        for (int k = 0; k < SE_RB_SPAN_CH; k++) {
            int q = lane + k * 32;
            int64_t g = a0 + 4 * (int64_t)q;
            if (q < nch && g + 3 < total) {
                c[k] = __ldg((const float4 *)(x + g));
            } else if (q < nch) {
                c[k].x = x[g];
                c[k].y = g + 1 < total ? x[g + 1] : 0.0f;
                c[k].z = g + 2 < total ? x[g + 2] : 0.0f;
                c[k].w = 0.0f;
            }
        }
#pragma unroll
        for (int k = 0; k < SE_RB_SPAN_CH; k++) {
            int q = lane + k * 32;
            if (q < nch)
                *(float4 *)&sm[SE_RB_SPAN_PAD(4 * q)] = c[k];
        }
    } else {
        for (int i = lane; i < nr * cols; i += 32)
            sm[SE_RB_SPAN_PAD(i)] = x[s + i];
    }
    __syncwarp();

    const int j = lane % G, group = lane / G, groups = 32 / G;
    for (int base = 0; base < nr; base += groups) { /* uniform per warp */
        const int r = base + group;
        const int off = (vec ? lead : 0) + (r < nr ? r : 0) * cols;
        float v[SE_RB_SPAN_VMAX];
        unsigned valid = 0;
#pragma unroll
        for (int i = 0; i < V; i++) {
            int c = j + i * G;
            v[i] = r < nr && c < cols ? sm[SE_RB_SPAN_PAD(off + c)] : 0.0f;
            valid |= (unsigned)(r < nr && c < cols) << i;
        }
        float inv_l = se_rb_group_softmax(v, valid, cols, eps, G, V);
        if (r < nr) {
#pragma unroll
            for (int i = 0; i < V; i++) {
                int c = j + i * G;
                if (c < cols)
                    sm[SE_RB_SPAN_PAD(off + c)] = v[i] * inv_l;
            }
        }
    }
    __syncwarp();

    if (vec) {
#pragma unroll
        for (int k = 0; k < SE_RB_SPAN_CH; k++) {
            int q = lane + k * 32;
            int64_t g = a0 + 4 * (int64_t)q;
            if (q >= nch)
                continue;
            float4 c = *(const float4 *)&sm[SE_RB_SPAN_PAD(4 * q)];
            if (g >= s && g + 3 < e) {
                __stcs((float4 *)(y + g), c);
            } else {
                if (g >= s && g < e)
                    y[g] = c.x;
                if (g + 1 >= s && g + 1 < e)
                    y[g + 1] = c.y;
                if (g + 2 >= s && g + 2 < e)
                    y[g + 2] = c.z;
                if (g + 3 >= s && g + 3 < e)
                    y[g + 3] = c.w;
            }
        }
    } else {
        for (int i = lane; i < nr * cols; i += 32)
            y[s + i] = sm[SE_RB_SPAN_PAD(i)];
    }
    if (trace.rec) { /* a row ends when its span is stored */
        __syncwarp();
        for (int r = lane; r < nr; r += 32)
            se_trace_record(&trace, r0 + r, t0);
    }
}

/* Few rows of a length that is not a multiple of 4 (launch-bound shapes):
 * each group of G lanes loads its row straight from global memory, value
 * i of lane j being column j + i G, with no shared memory and no barrier
 * on the chain (the span kernels' two barriers cost 8x37 1.1 us on the
 * H200, docs/PERFORMANCE.md). One row a group. */
static __device__ __forceinline__ void se_rb_direct_body(const float *x, float *y, int64_t rows,
                                                         int cols, double eps, se_trace_buf trace,
                                                         const int G, const int V)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int j = (threadIdx.x & 31) % G;
    const int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / G;
    const float *xr = x + (row < rows ? row : 0) * cols;
    float v[SE_RB_SPAN_VMAX];
    unsigned valid = 0;
#pragma unroll
    for (int i = 0; i < V; i++) {
        int c = j + i * G;
        v[i] = row < rows && c < cols ? __ldg(xr + c) : 0.0f;
        valid |= (unsigned)(row < rows && c < cols) << i;
    }
    float inv_l = se_rb_group_softmax(v, valid, cols, eps, G, V);
    if (row < rows) {
#pragma unroll
        for (int i = 0; i < V; i++) {
            int c = j + i * G;
            if (c < cols)
                y[row * cols + c] = v[i] * inv_l;
        }
        if (trace.rec && j == 0)
            se_trace_record(&trace, row, t0);
    }
}

/* Each pair of kernels: G lanes a row, at most V values a lane (G V >=
 * cols), staged in spans, and (name_direct) straight from global memory. */
#define SE_RB_SPAN_KERNEL(name, G, V)                                                          \
    __global__ void __launch_bounds__(SE_RB_SPAN_THREADS) name(const float *x, float *y,       \
                                                               int64_t rows, int cols,         \
                                                               double eps, int vec,            \
                                                               se_trace_buf trace)             \
    {                                                                                          \
        se_rb_span_body(x, y, rows, cols, eps, vec, trace, G, V);                              \
    }                                                                                          \
    __global__ void __launch_bounds__(SE_RB_SPAN_THREADS) name##_direct(                       \
        const float *x, float *y, int64_t rows, int cols, double eps, int vec,                 \
        se_trace_buf trace)                                                                    \
    {                                                                                          \
        se_rb_direct_body(x, y, rows, cols, eps, trace, G, V);                                 \
    }

SE_RB_SPAN_KERNEL(se_k_rowblock_span_g1v1, 1, 1)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g1v2, 1, 2)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g1v4, 1, 4)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g1v8, 1, 8)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g2v8, 2, 8)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g4v8, 4, 8)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g8v8, 8, 8)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g16v8, 16, 8)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g32v8, 32, 8)
SE_RB_SPAN_KERNEL(se_k_rowblock_span_g32v16, 32, 16)

typedef void (*se_rb_span_fn)(const float *, float *, int64_t, int, double, int, se_trace_buf);

/* The span kernel for rows of `cols` columns (1..SE_RB_ROWS_MAX_COLS):
 * the fewest lanes a row (at most 8 values a lane, 16 at 512 columns),
 * so a warp takes 32 / G rows at once. */
static se_rb_span_fn rb_span_pick(int cols, int direct, int *lanes, const char **name)
{
    static const struct {
        int g, v;
        se_rb_span_fn fn, direct;
        const char *name, *direct_name;
    } k[] = {
        {1, 1, se_k_rowblock_span_g1v1, se_k_rowblock_span_g1v1_direct, "se_k_rowblock_span_g1v1", "se_k_rowblock_span_g1v1_direct"},
        {1, 2, se_k_rowblock_span_g1v2, se_k_rowblock_span_g1v2_direct, "se_k_rowblock_span_g1v2", "se_k_rowblock_span_g1v2_direct"},
        {1, 4, se_k_rowblock_span_g1v4, se_k_rowblock_span_g1v4_direct, "se_k_rowblock_span_g1v4", "se_k_rowblock_span_g1v4_direct"},
        {1, 8, se_k_rowblock_span_g1v8, se_k_rowblock_span_g1v8_direct, "se_k_rowblock_span_g1v8", "se_k_rowblock_span_g1v8_direct"},
        {2, 8, se_k_rowblock_span_g2v8, se_k_rowblock_span_g2v8_direct, "se_k_rowblock_span_g2v8", "se_k_rowblock_span_g2v8_direct"},
        {4, 8, se_k_rowblock_span_g4v8, se_k_rowblock_span_g4v8_direct, "se_k_rowblock_span_g4v8", "se_k_rowblock_span_g4v8_direct"},
        {8, 8, se_k_rowblock_span_g8v8, se_k_rowblock_span_g8v8_direct, "se_k_rowblock_span_g8v8", "se_k_rowblock_span_g8v8_direct"},
        {16, 8, se_k_rowblock_span_g16v8, se_k_rowblock_span_g16v8_direct, "se_k_rowblock_span_g16v8", "se_k_rowblock_span_g16v8_direct"},
        {32, 8, se_k_rowblock_span_g32v8, se_k_rowblock_span_g32v8_direct, "se_k_rowblock_span_g32v8", "se_k_rowblock_span_g32v8_direct"},
        {32, 16, se_k_rowblock_span_g32v16, se_k_rowblock_span_g32v16_direct, "se_k_rowblock_span_g32v16", "se_k_rowblock_span_g32v16_direct"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (cols <= k[i].g * k[i].v) {
            *lanes = k[i].g;
            *name = direct ? k[i].direct_name : k[i].name;
            return direct ? k[i].direct : k[i].fn;
        }
    return NULL;
}

/* A lane a row (rows of at most SE_RB_LANE_MAX_COLS columns, any length):
 * warp w's span is 32 whole rows, copied from x into the warp's slice of
 * shared memory by 16-byte cp.async (every copy in flight at once, no
 * registers held), then lane j computes row j of the span alone: three
 * passes over its row in shared memory (sum of squares and maximum; the
 * exponentials, written back, and their sum; the product with 1 / l), with
 * no shuffle and no index arithmetic beyond a base and a counter; then the
 * warp stores the span as float4, the chunks that straddle its ends
 * element by element. Lane j reads words j C + k: for an odd row length
 * the 32 lanes fall on 32 different banks (C and 32 coprime), for C = 2
 * mod 4 on pairs of them. Against the staged group kernels it drops the
 * shuffles, the padded index and the valid masks: the counters of sweep
 * 20261204T175546Z put 37 columns at 2.66 warp instructions an element
 * (issue-bound) and 7 columns on the shared-memory pipe (docs/PERFORMANCE.md,
 * version 25). */
#define SE_RB_LANE_THREADS 128
#define SE_RB_LANE_MAX_COLS 64
#define SE_RB_LANE_WARPS (SE_RB_LANE_THREADS / 32)
/* Floats of a warp's slice: 32 rows and a misaligned chunk at each end. */
static __host__ __device__ __forceinline__ int se_rb_lane_slice(int cols)
{
    return 32 * cols + 8;
}

__global__ void __launch_bounds__(SE_RB_LANE_THREADS) se_k_rowblock_lane(const float *x,
                                                                         float *y,
                                                                         int64_t rows, int cols,
                                                                         double eps, int vec,
                                                                         se_trace_buf trace)
{
    extern __shared__ __align__(16) float se_rb_lane_smem[];
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    float *sm = se_rb_lane_smem + wib * se_rb_lane_slice(cols);
    const int64_t r0 = ((int64_t)blockIdx.x * SE_RB_LANE_WARPS + wib) * 32;
    if (r0 >= rows)
        return; /* the whole warp: it shares nothing with the others */
    const int nr = (int)(rows - r0 < 32 ? rows - r0 : 32);
    const int64_t s = r0 * cols, e = s + (int64_t)nr * cols, total = rows * (int64_t)cols;
    const int64_t a0 = s & ~(int64_t)3; /* x and y are 16-byte aligned (the launcher checks) */
    const int lead = (int)(s - a0);
    const int nch = (int)((e - a0 + 3) >> 2);
    for (int q = lane; q < nch; q += 32) {
        int64_t g = a0 + 4 * (int64_t)q;
        int64_t left = total - g;
        if (left >= 4) {
            se_cp_async16(sm + 4 * q, x + g);
        } else { /* the chunk past the end of x: only its elements, by plain loads (a
                    cp.async of fewer source bytes reads none past them, but memcheck
                    counts 16) */
            for (int i = 0; i < 4; i++)
                sm[4 * q + i] = i < left ? x[g + i] : 0.0f;
        }
    }
    se_cp_async_wait_all();
    __syncwarp();

    if (lane < nr) {
        float *v = sm + lead + lane * cols;
        float a0s = 0.0f, a1s = 0.0f, mx0 = -INFINITY, mx1 = -INFINITY;
        int k = 0;
        for (; k + 1 < cols; k += 2) {
            float p = v[k], q = v[k + 1];
            a0s = fmaf(p, p, a0s);
            a1s = fmaf(q, q, a1s);
            mx0 = fmaxf(mx0, p);
            mx1 = fmaxf(mx1, q);
        }
        if (k < cols) {
            a0s = fmaf(v[k], v[k], a0s);
            mx0 = fmaxf(mx0, v[k]);
        }
        const float ss = a0s + a1s, mx = fmaxf(mx0, mx1);
        const float rcols = __frcp_rn((float)cols);
        float sc = rsqrtf(__fmaf_rn(ss, rcols, (float)eps));
        if (isinf(ss)) { /* a float sum that overflowed: summed again, scaled (rowblock.cuh) */
            float a2 = 0.0f;
            for (int i = 0; i < cols; i++) {
                float w = __fmul_rn(v[i], 0x1p-80f);
                a2 = fmaf(w, w, a2);
            }
            sc = se_rb_scale_from_scaled_f(a2, rcols);
        }
        const float s2 = __fmul_rn(sc, SE_RB_LOG2E), m2 = __fmul_rn(sc * mx, SE_RB_LOG2E);
        float l0 = 0.0f, l1 = 0.0f;
        for (k = 0; k + 1 < cols; k += 2) {
            float p = se_rb_exp2_ftz(s2, v[k], m2), q = se_rb_exp2_ftz(s2, v[k + 1], m2);
            v[k] = p;
            v[k + 1] = q;
            l0 += p;
            l1 += q;
        }
        if (k < cols) {
            float p = se_rb_exp2_ftz(s2, v[k], m2);
            v[k] = p;
            l0 += p;
        }
        const float inv_l = __frcp_rn(l0 + l1);
        for (k = 0; k < cols; k++)
            v[k] *= inv_l;
    }
    __syncwarp();

    for (int q = lane; q < nch; q += 32) {
        int64_t g = a0 + 4 * (int64_t)q;
        float4 c = *(const float4 *)(sm + 4 * q);
        if (g >= s && g + 3 < e) {
            __stcs((float4 *)(y + g), c);
        } else {
            if (g >= s && g < e)
                y[g] = c.x;
            if (g + 1 >= s && g + 1 < e)
                y[g + 1] = c.y;
            if (g + 2 >= s && g + 2 < e)
                y[g + 2] = c.z;
            if (g + 3 >= s && g + 3 < e)
                y[g + 3] = c.w;
        }
    }
    if (trace.rec && lane < nr)
        se_trace_record(&trace, r0 + lane, t0);
}

/* The launch of se_k_rowblock_lane: blocks of SE_RB_LANE_WARPS spans of 32
 * rows, dynamic shared memory for their slices (the kernel's attribute
 * raised once, for the longest row it takes). */
static se_status rb_lane_launch(const float *x, float *y, int64_t rows, int cols, double eps,
                                se_trace_buf trace, cudaStream_t stream, se_err *err)
{
    static int raised_dev = -1; /* function attributes are per device */
    int dev;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    size_t smem = (size_t)SE_RB_LANE_WARPS * se_rb_lane_slice(cols) * sizeof(float);
    if (raised_dev != dev) {
        SE_CUDA_TRY(cudaFuncSetAttribute(se_k_rowblock_lane,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)((size_t)SE_RB_LANE_WARPS *
                                               se_rb_lane_slice(SE_RB_LANE_MAX_COLS) *
                                               sizeof(float))));
        raised_dev = dev;
    }
    int64_t blocks = (rows + 32 * SE_RB_LANE_WARPS - 1) / (32 * SE_RB_LANE_WARPS);
    if (blocks > INT32_MAX)
        return se_fail(err, SE_ERR_LIMIT, "rowblock: %lld rows of %d columns need %lld blocks",
                       (long long)rows, cols, (long long)blocks);
    se_k_rowblock_lane<<<(unsigned)blocks, SE_RB_LANE_THREADS, smem, stream>>>(x, y, rows, cols,
                                                                             eps, 1, trace);
    SE_CUDA_LAUNCHED("se_k_rowblock_lane");
    return SE_OK;
}

/* Rows of a multiple of 4 columns (n4 = cols / 4 float4 chunks), x and y
 * 16-byte aligned: straight from global memory into registers, no shared
 * memory and no barrier. G lanes a row (the power of two at or above n4,
 * at most 32), P chunks a lane (chunk j + p G of the row for lane j of
 * its group), and R rows a group at once, so every lane has R P float4
 * (64 bytes) in flight; a warp's loads of one (r, p) cover 32 / G
 * consecutive rows. CS: y stored evict-first (the kernels below) or plainly
 * (bench/rows_probe.cu compares the two). */
static __device__ __forceinline__ void se_rb_vec_body(const float *x, float *y, int64_t rows,
                                                      int cols, double eps, se_trace_buf trace,
                                                      const int G, const int P, const int R,
                                                      const int CS)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int lane = threadIdx.x & 31, j = lane % G, k = lane / G, n4 = cols >> 2;
    const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int64_t base = warp * R * (32 / G) + k;
    const float4 *x4 = (const float4 *)x;
    float4 *y4 = (float4 *)y;
    float v[4][16]; /* [r][4 p + component]: R P <= 4 */
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t row = base + (int64_t)r * (32 / G);
#pragma unroll
        for (int p = 0; p < P; p++) {
            int c = j + p * G;
            float4 a = row < rows && c < n4 ? __ldg(x4 + row * n4 + c)
                                            : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[r][4 * p] = a.x;
            v[r][4 * p + 1] = a.y;
            v[r][4 * p + 2] = a.z;
            v[r][4 * p + 3] = a.w;
        }
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int64_t row = base + (int64_t)r * (32 / G);
        unsigned valid = 0;
#pragma unroll
        for (int p = 0; p < P; p++)
            valid |= (row < rows && j + p * G < n4 ? 0xfu : 0u) << (4 * p);
        float inv_l = se_rb_group_softmax(v[r], valid, cols, eps, G, 4 * P);
#pragma unroll
        for (int p = 0; p < P; p++) {
            int c = j + p * G;
            float4 o = make_float4(v[r][4 * p] * inv_l, v[r][4 * p + 1] * inv_l,
                                   v[r][4 * p + 2] * inv_l, v[r][4 * p + 3] * inv_l);
            if (row < rows && c < n4) {
                if (CS) /* streaming (evict-first) store */
                    __stcs(y4 + row * n4 + c, o);
                else
                    y4[row * n4 + c] = o;
            }
        }
        if (trace.rec && j == 0 && row < rows)
            se_trace_record(&trace, row, t0);
    }
}

#define SE_RB_VEC_KERNEL(name, G, P, R)                                                       \
    __global__ void __launch_bounds__(SE_RB_SPAN_THREADS) name(const float *x, float *y,      \
                                                               int64_t rows, int cols,        \
                                                               double eps, int vec,           \
                                                               se_trace_buf trace)            \
    {                                                                                         \
        se_rb_vec_body(x, y, rows, cols, eps, trace, G, P, R, 1);                             \
    }

SE_RB_VEC_KERNEL(se_k_rowblock_vec_g1, 1, 1, 4)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g2, 2, 1, 4)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g4, 4, 1, 4)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g8, 8, 1, 4)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g16, 16, 1, 4)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g8p4, 8, 4, 1)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g16p4, 16, 4, 1)
SE_RB_VEC_KERNEL(se_k_rowblock_vec_g32p4, 32, 4, 1)

/* The vector kernel for n4 float4 a row (1..128) and the rows one warp
 * takes. Rows of 17 to 64 float4 take 8 or 16 lanes of 4 float4 a row,
 * one row a group, not 32 lanes of 1 or 2 float4 (up to 4 rows a group):
 * in bench/rows_probe.cu on an H100 (2026-12-07, of the same process's
 * copy), 65536x128 27.78 us against 28.86 (cuDNN 28.83), 32768x256 27.78
 * against 28.61 (cuDNN 28.48); within 0.3 % either way on 524288x128 and
 * 262144x256 (docs/PERFORMANCE.md, version 25). */
static se_rb_span_fn rb_vec_pick(int n4, int *rows_per_warp, const char **name)
{
    static const struct {
        int g, p, r;
        se_rb_span_fn fn;
        const char *name;
    } k[] = {
        {1, 1, 4, se_k_rowblock_vec_g1, "se_k_rowblock_vec_g1"},
        {2, 1, 4, se_k_rowblock_vec_g2, "se_k_rowblock_vec_g2"},
        {4, 1, 4, se_k_rowblock_vec_g4, "se_k_rowblock_vec_g4"},
        {8, 1, 4, se_k_rowblock_vec_g8, "se_k_rowblock_vec_g8"},
        {16, 1, 4, se_k_rowblock_vec_g16, "se_k_rowblock_vec_g16"},
        {8, 4, 1, se_k_rowblock_vec_g8p4, "se_k_rowblock_vec_g8p4"},
        {16, 4, 1, se_k_rowblock_vec_g16p4, "se_k_rowblock_vec_g16p4"},
        {32, 4, 1, se_k_rowblock_vec_g32p4, "se_k_rowblock_vec_g32p4"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (n4 <= k[i].g * k[i].p) {
            *rows_per_warp = k[i].r * (32 / k[i].g);
            *name = k[i].name;
            return k[i].fn;
        }
    return NULL;
}

/* Rows of one column, x and y 16-byte aligned: a float4 holds 4 rows,
 * and each thread loads 4 of them (16 rows) before any use; the rows past
 * the last whole float4 (at most 3) one by one. */
__global__ void __launch_bounds__(SE_RB_SPAN_THREADS) se_k_rowblock_col1(const float *x, float *y,
                                                                        int64_t rows, int cols,
                                                                        double eps, int vec,
                                                                        se_trace_buf trace)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int64_t n4 = rows >> 2;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t first = (t / 32) * 128 + (t % 32); /* a warp's 4 loads: 128 consecutive float4 */
    float v[16];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        int64_t i = first + 32 * q;
        float4 a = i < n4 ? __ldg((const float4 *)x + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        v[4 * q] = a.x;
        v[4 * q + 1] = a.y;
        v[4 * q + 2] = a.z;
        v[4 * q + 3] = a.w;
    }
#pragma unroll
    for (int q = 0; q < 4; q++) {
        int64_t i = first + 32 * q;
        if (i >= n4)
            continue;
        float o[4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            float w = v[4 * q + c];
            float inv_l = se_rb_group_softmax(&w, 1u, 1, eps, 1, 1); /* w: the exponential */
            o[c] = w * inv_l;
        }
        __stcs((float4 *)y + i, make_float4(o[0], o[1], o[2], o[3]));
        if (trace.rec)
            for (int c = 0; c < 4; c++)
                se_trace_record(&trace, 4 * i + c, t0);
    }
    if (t < rows - 4 * n4) { /* the last rows, one a thread */
        int64_t r = 4 * n4 + t;
        float w = x[r];
        float inv_l = se_rb_group_softmax(&w, 1u, 1, eps, 1, 1);
        y[r] = w * inv_l;
        if (trace.rec)
            se_trace_record(&trace, r, t0);
    }
}

/* A compile-time row length for the one-thread kernel: rows of at most
 * SE_RB_THREAD_COLS columns in shapes of few rows, where the launch and
 * the chain of one thread are all the time there is (on the H200, 1x1 3.14
 * us with the length a constant against 3.36 us with it a parameter,
 * docs/PERFORMANCE.md). */
static __device__ __forceinline__ void se_rb_thread_body(const float *x, float *y, int64_t rows,
                                                         double eps, se_trace_buf trace,
                                                         const int C)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    float v[SE_RB_THREAD_COLS];
#pragma unroll
    for (int k = 0; k < C; k++)
        v[k] = x[row * C + k];
    float inv_l = se_rb_group_softmax(v, (1u << C) - 1, C, eps, 1, C);
#pragma unroll
    for (int k = 0; k < C; k++)
        y[row * C + k] = v[k] * inv_l;
    if (trace.rec)
        se_trace_record(&trace, row, t0);
}

#define SE_RB_THREADC_KERNEL(name, C)                                                         \
    __global__ void __launch_bounds__(SE_RB_SPAN_THREADS) name(const float *x, float *y,      \
                                                               int64_t rows, int cols,        \
                                                               double eps, int vec,           \
                                                               se_trace_buf trace)            \
    {                                                                                         \
        se_rb_thread_body(x, y, rows, eps, trace, C);                                         \
    }

SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c1, 1)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c2, 2)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c3, 3)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c4, 4)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c5, 5)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c6, 6)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c7, 7)
SE_RB_THREADC_KERNEL(se_k_rowblock_thread_c8, 8)

static se_rb_span_fn rb_threadc_pick(int cols, const char **name)
{
    static const struct {
        se_rb_span_fn fn;
        const char *name;
    } k[SE_RB_THREAD_COLS] = {
        {se_k_rowblock_thread_c1, "se_k_rowblock_thread_c1"},
        {se_k_rowblock_thread_c2, "se_k_rowblock_thread_c2"},
        {se_k_rowblock_thread_c3, "se_k_rowblock_thread_c3"},
        {se_k_rowblock_thread_c4, "se_k_rowblock_thread_c4"},
        {se_k_rowblock_thread_c5, "se_k_rowblock_thread_c5"},
        {se_k_rowblock_thread_c6, "se_k_rowblock_thread_c6"},
        {se_k_rowblock_thread_c7, "se_k_rowblock_thread_c7"},
        {se_k_rowblock_thread_c8, "se_k_rowblock_thread_c8"},
    };
    *name = k[cols - 1].name;
    return k[cols - 1].fn;
}

/* Rows of at most SE_RB_ROWS_MAX_COLS columns: a thread a row with the
 * length a constant where the whole shape is one span of rows of at most
 * SE_RB_THREAD_COLS columns (launch-bound: no shared memory, no barrier on
 * the chain); rows of a multiple of 4 columns straight into registers as
 * float4; every other length through the float4-staged spans. */
se_status se_rb_rows_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                            se_trace_buf trace, cudaStream_t stream, se_err *err)
{
    const char *name = NULL;
    int c = (int)cols;
    if (cols <= SE_RB_THREAD_COLS && rows <= SE_RB_SPAN_THREADS) {
        se_rb_span_fn fn = rb_threadc_pick(c, &name);
        int threads = (int)((rows + 31) / 32 * 32);
        fn<<<1, threads, 0, stream>>>(x, y, rows, c, eps, 0, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    int vec = ((uintptr_t)x & 15) == 0 && ((uintptr_t)y & 15) == 0;
    if (vec && cols == 1) {
        int64_t blocks = (rows / 4 + 4 * SE_RB_SPAN_THREADS - 1) / (4 * SE_RB_SPAN_THREADS);
        blocks = blocks < 1 ? 1 : blocks;
        if (blocks <= INT32_MAX) {
            se_k_rowblock_col1<<<(unsigned)blocks, SE_RB_SPAN_THREADS, 0, stream>>>(x, y, rows, c,
                                                                                   eps, 1, trace);
            SE_CUDA_LAUNCHED("se_k_rowblock_col1");
            return SE_OK;
        }
    }
    if (vec && cols % 4 == 0) {
        int rpw;
        se_rb_span_fn fn = rb_vec_pick(c / 4, &rpw, &name);
        int64_t per_block = (int64_t)rpw * (SE_RB_SPAN_THREADS / 32);
        int64_t blocks = (rows + per_block - 1) / per_block;
        if (fn && blocks <= INT32_MAX) {
            fn<<<(unsigned)blocks, SE_RB_SPAN_THREADS, 0, stream>>>(x, y, rows, c, eps, 1, trace);
            SE_CUDA_LAUNCHED(name);
            return SE_OK;
        }
    }
    int g, direct = rows * cols <= SE_RB_DIRECT_MAX; /* launch-bound: no barrier on the chain */
    /* A lane a row up to SE_RB_LANE_MAX_COLS columns: in bench/rows_probe.cu
     * on an H100 (2026-12-07, of the same process's copy) 226719x37 1.135
     * against the span kernels' 0.816, 1198372x7 1.069 against 0.935,
     * 300000x13 0.866 against 0.742, 160000x50 1.076 against 0.912
     * (docs/PERFORMANCE.md, version 25). */
    if (vec && !direct && cols <= SE_RB_LANE_MAX_COLS)
        return rb_lane_launch(x, y, rows, c, eps, trace, stream, err);
    se_rb_span_fn fn = rb_span_pick(c, direct, &g, &name);
    if (!fn)
        return se_fail(err, SE_ERR_USAGE, "rowblock: no span kernel for rows of %lld columns",
                       (long long)cols);
    if (direct) {
        int64_t threads = rows * g;
        int64_t blocks = (threads + SE_RB_SPAN_THREADS - 1) / SE_RB_SPAN_THREADS;
        fn<<<(unsigned)blocks, SE_RB_SPAN_THREADS, 0, stream>>>(x, y, rows, c, eps, 0, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    int R = se_rb_span_rows(c);
    int64_t spans = (rows + R - 1) / R;
    int64_t blocks = (spans + SE_RB_SPAN_WARPS - 1) / SE_RB_SPAN_WARPS;
    if (blocks > INT32_MAX)
        return se_fail(err, SE_ERR_LIMIT, "rowblock: %lld rows of %d columns need %lld blocks",
                       (long long)rows, c, (long long)blocks);
    fn<<<(unsigned)blocks, SE_RB_SPAN_THREADS, 0, stream>>>(x, y, rows, c, eps, vec, trace);
    SE_CUDA_LAUNCHED(name);
    return SE_OK;
}
