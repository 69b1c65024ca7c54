/*
 * ln_ops.cuh - the per-tile and per-row device functions of tiled
 * LayerNorm forward (three phases, model/taskgraph.h), shared by every
 * tiled strategy's LayerNorm kernels (ln_phases.cu, ln_fused.cu), as
 * tile_ops.cuh's are by the softmax's.
 *
 *   A(i,t)  per row piece of the tile: the sum of x and the sum of x^2, in
 *           float64 (a float x^2 overflows above 1.8e19; a square of a
 *           float is exact in float64 and at most 1.2e77)
 *   B(i)    per row of the group: the A partials summed in float64 in a
 *           fixed order; mean = S / C, var = max(Q / C - mean^2, 0),
 *           rstd = 1 / sqrt(var + eps); mean and rstd stored as float
 *   C(i,t)  y = ((x - mean) rstd) gamma(c) + beta(c), in float32
 *           (gamma and beta from model/layernorm_params.h)
 *
 * The same span frame, float4 cover, segments and cache slots as the
 * softmax (tile_ops.cuh: se_span_of, se_piece_edge, se_tile_slot,
 * se_tile_prefetch), the same fixed-order reductions (in float64 here),
 * explicit __dadd_rn / __fma_rn / __fsub_rn / __fmul_rn / fmaf, so every
 * tiled strategy's LayerNorm output is bitwise the same: the order of the
 * arithmetic depends on the geometry only (rows per group, threads per
 * row), never on where x was read from or which block ran a task.
 *
 * The variance is E[x^2] - mean^2 in float64: its relative error is about
 * 2^-53 (1 + mean^2 / var), far inside the tolerance (atol 1e-5, rtol
 * 1e-4) for these inputs (normal * 16 with outliers: |mean| / std is
 * small); a row whose |mean| / std passed about 1e5 would lose digits
 * here, not in the float64 reference (docs/ADDING-A-WORKLOAD.md).
 */
#ifndef SE_LN_OPS_CUH
#define SE_LN_OPS_CUH

#include "gpu/tile_ops.cuh"
#include "model/layernorm_params.h"

/* LayerNorm's task graph: the softmax's numbering, three phases. */
#define SE_LN_PHASES 3

static __device__ __forceinline__ se_taskgeom se_ln_geom(const se_gpu_problem *p)
{
    se_taskgeom g = se_gpu_geom(p);
    g.phases = SE_LN_PHASES;
    g.total = p->total_tasks;
    return g;
}

/* Sums of x and x^2 over the S threads of this thread's segment, in
 * float64, in a fixed order: a butterfly within the warp, then for
 * segments of several warps their warps' values in order (red:
 * 2 * SE_TILE_WARPS doubles of shared memory). The segment's first
 * thread gets the result. Uniform: the whole block calls it. */
static __device__ __forceinline__ void se_ln_seg_reduce(double *sum, double *sq, unsigned S,
                                                        double *red)
{
    unsigned w = S < 32 ? S : 32;
    double a = *sum, b = *sq;
    for (unsigned o = w / 2; o > 0; o >>= 1) {
        a = __dadd_rn(a, __shfl_xor_sync(SE_FULL_MASK, a, o));
        b = __dadd_rn(b, __shfl_xor_sync(SE_FULL_MASK, b, o));
    }
    if (S > 32) {
        unsigned warp = threadIdx.x >> 5;
        if ((threadIdx.x & 31) == 0) {
            red[warp] = a;
            red[SE_TILE_WARPS + warp] = b;
        }
        __syncthreads();
        if ((threadIdx.x & (S - 1)) == 0)
            for (unsigned i = 1; i < S / 32; i++) {
                a = __dadd_rn(a, red[warp + i]);
                b = __dadd_rn(b, red[SE_TILE_WARPS + warp + i]);
            }
        __syncthreads(); /* red may be reused at once */
    }
    *sum = a;
    *sq = b;
}

static __device__ __forceinline__ void se_ln_acc(double *s, double *q, float v)
{
    double d = (double)v;
    *s = __dadd_rn(*s, d);
    *q = __fma_rn(d, d, *q);
}

/* Phase A of one row piece [lo, hi) by one thread of its segment (lane of
 * S), in se_piece_a's order: the float4s of the aligned middle strided
 * over the lanes, then the head and the tail, one element a lane. */
static __device__ __forceinline__ void se_ln_piece_a(const float *xb, se_tile_cache c,
                                                     unsigned lo, unsigned hi, unsigned lane,
                                                     unsigned S, double *s_out, double *q_out)
{
    double s = 0.0, q = 0.0;
    unsigned qf = (lo + 3) / 4, qe = hi / 4;
#pragma unroll 4
    for (unsigned k = qf + lane; k < qe; k += S) {
        float4 v = se_span_ld4(xb, c, k);
        se_ln_acc(&s, &q, v.x);
        se_ln_acc(&s, &q, v.y);
        se_ln_acc(&s, &q, v.z);
        se_ln_acc(&s, &q, v.w);
    }
    for (unsigned e = lane; e < 6; e += S) {
        unsigned r = se_piece_edge(lo, hi, qf, qe, e);
        if (r < hi)
            se_ln_acc(&s, &q, se_span_ld1(xb, c, r));
    }
    *s_out = s;
    *q_out = q;
}

/* Phase A: each row piece's sums of x and x^2, by the whole block
 * (segments of S threads, one piece each, in one pass), written to
 * ln_part[part] and ln_part[partials + part]. */
static __device__ __forceinline__ void se_ln_tile_a(const se_gpu_problem *p, int64_t grp,
                                                    int64_t tile, double *red, se_tile_cache c,
                                                    int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    const float *xb = p->x + s.off;
    const int64_t partials = p->rows * p->tiles_per_row;
    double sum = 0.0, sq = 0.0;
    if (tg == SE_TG_ROWS) {
        se_ln_piece_a(xb, c, s.slo, s.shi, threadIdx.x, SE_TILE_THREADS, &sum, &sq);
        se_ln_seg_reduce(&sum, &sq, SE_TILE_THREADS, red);
        if (threadIdx.x == 0) {
            p->ln_part[s.part0] = sum;
            p->ln_part[partials + s.part0] = sq;
        }
        return;
    }
    const unsigned S = 1u << p->seg_log2, lane = threadIdx.x & (S - 1);
    const unsigned k = threadIdx.x >> p->seg_log2;
    if (k < s.nrows)
        se_ln_piece_a(xb, c, s.slo + k * s.plen, s.slo + (k + 1) * s.plen, lane, S, &sum, &sq);
    se_ln_seg_reduce(&sum, &sq, S, red);
    if (k < s.nrows && lane == 0) {
        p->ln_part[s.part0 + k] = sum;
        p->ln_part[partials + s.part0 + k] = sq;
    }
}

/* A row's mean and rstd, as phase C and the rowblock control's write take
 * them. */
typedef struct se_ln_stats {
    float mean, rstd;
} se_ln_stats;

/* mean and rstd from a row's float64 sums of x and x^2 over `cols`
 * columns: the one formula of phase B (and of the rowblock control's
 * clustered rows). */
static __device__ __forceinline__ se_ln_stats se_ln_stats_of(double sum, double sq, int64_t cols,
                                                             double eps)
{
    /* pinned: no contraction of the square into the subtraction */
    double n = (double)cols;
    double mean = __ddiv_rn(sum, n);
    double var = __dadd_rn(__ddiv_rn(sq, n), -__dmul_rn(mean, mean));
    var = var > 0.0 ? var : 0.0;
    se_ln_stats r;
    r.mean = (float)mean;
    r.rstd = (float)__ddiv_rn(1.0, __dsqrt_rn(__dadd_rn(var, eps)));
    return r;
}

static __device__ __forceinline__ void se_ln_row_store(const se_gpu_problem *p, int64_t row,
                                                       double sum, double sq)
{
    const se_ln_stats st = se_ln_stats_of(sum, sq, p->cols, p->eps);
    p->ln_mean[row] = st.mean;
    p->ln_rstd[row] = st.rstd;
}

/* Phase B of a row split over tiles (g = 1), by one full warp: the row's
 * A partials in float64, each lane its tiles in order, then a butterfly. */
static __device__ __forceinline__ void se_ln_row_b(const se_gpu_problem *p, int64_t row)
{
    int lane = threadIdx.x & 31;
    const int64_t partials = p->rows * p->tiles_per_row;
    int64_t base = row * p->tiles_per_row;
    double sum = 0.0, sq = 0.0;
    for (int64_t t = lane; t < p->tiles_per_row; t += 32) {
        sum = __dadd_rn(sum, __ldcg(p->ln_part + base + t));
        sq = __dadd_rn(sq, __ldcg(p->ln_part + partials + base + t));
    }
    sum = se_warp_sum_d(sum);
    sq = se_warp_sum_d(sq);
    if (lane == 0)
        se_ln_row_store(p, row, sum, sq);
}

/* Phase B of a packed group (g > 1) by a whole block: a thread a row, its
 * one partial each, added to 0.0 as se_ln_row_b adds a row of one tile
 * (its partial plus the warp's zeros), so the formula is the same. */
static __device__ __forceinline__ void se_ln_packed_row_task(const se_gpu_problem *p,
                                                             int64_t grp)
{
    int64_t row = grp * p->group + threadIdx.x;
    if (threadIdx.x >= p->group || row >= p->rows)
        return;
    const int64_t partials = p->rows * p->tiles_per_row;
    se_ln_row_store(p, row, __ldcg(p->ln_part + row), __ldcg(p->ln_part + partials + row));
}

/* Phase B of group grp by a whole block (uniform): warp 0 where the group
 * is one row split over tiles, every thread where it is packed. */
static __device__ __forceinline__ void se_ln_group_task_block(const se_gpu_problem *p,
                                                              int64_t grp, int tg)
{
    if (tg == SE_TG_PACKED)
        se_ln_packed_row_task(p, grp);
    else if (threadIdx.x < 32)
        se_ln_row_b(p, grp);
}

/* A row's mean and rstd (phase C), from L2 (other blocks wrote them). */
static __device__ __forceinline__ se_ln_stats se_ln_row_stats(const se_gpu_problem *p,
                                                              int64_t row)
{
    se_ln_stats r;
    r.mean = __ldcg(p->ln_mean + row);
    r.rstd = __ldcg(p->ln_rstd + row);
    return r;
}

/* y at one element: the one formula of phase C (and of the rowblock
 * control's write). */
static __device__ __forceinline__ float se_ln_y(float x, se_ln_stats rs, int64_t col)
{
    return fmaf(__fmul_rn(__fsub_rn(x, rs.mean), rs.rstd), se_ln_gamma(col), se_ln_beta(col));
}

/* Phase C: y over one tile, by the whole block over the span (float4 q is
 * thread q mod SE_TILE_THREADS's; the float4s wholly inside the span
 * stored as float4, the others element by element), x from the on-chip
 * copy where it holds it. col0: the column of the span's frame offset 0
 * where the tile is one row's piece; in a packed span each element finds
 * its row and column from its offset. */
static __device__ __forceinline__ void se_ln_tile_c(const se_gpu_problem *p, int64_t grp,
                                                    int64_t tile, se_tile_cache c, int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    const float *xb = p->x + s.off;
    float *yb = p->y + s.off;
    if (tg == SE_TG_ROWS) {
        const se_ln_stats rs = se_ln_row_stats(p, grp);
        /* column of frame offset r: tile * T + r - slo */
        const int64_t col0 = tile * p->tile - (int64_t)s.slo;
        for (unsigned q = threadIdx.x; 4 * q < s.shi; q += SE_TILE_THREADS) {
            if (se_q_in(q, s.slo, s.shi)) {
                float4 v = se_span_ld4(xb, c, q), o;
                int64_t cc = col0 + 4 * q;
                o.x = se_ln_y(v.x, rs, cc);
                o.y = se_ln_y(v.y, rs, cc + 1);
                o.z = se_ln_y(v.z, rs, cc + 2);
                o.w = se_ln_y(v.w, rs, cc + 3);
                ((float4 *)yb)[q] = o;
            } else {
                for (unsigned r = 4 * q; r < 4 * q + 4; r++)
                    if (r >= s.slo && r < s.shi)
                        yb[r] = se_ln_y(se_span_ld1(xb, c, r), rs, col0 + r);
            }
        }
        return;
    }
    for (unsigned q = threadIdx.x; 4 * q < s.shi; q += SE_TILE_THREADS) {
        unsigned r0 = 4 * q > s.slo ? 4 * q : s.slo;
        unsigned k = (r0 - s.slo) / s.plen, next = s.slo + (k + 1) * s.plen;
        se_ln_stats rs = se_ln_row_stats(p, s.row0 + k);
        float o[4];
        for (unsigned e = 0; e < 4; e++) {
            unsigned at = 4 * q + e;
            o[e] = 0.0f;
            if (at < s.slo || at >= s.shi)
                continue;
            if (at >= next) {
                k++;
                next += s.plen;
                rs = se_ln_row_stats(p, s.row0 + k);
            }
            int64_t col = (int64_t)(at - s.slo) - (int64_t)k * s.plen;
            o[e] = se_ln_y(se_span_ld1(xb, c, at), rs, col);
        }
        if (se_q_in(q, s.slo, s.shi)) {
            ((float4 *)yb)[q] = make_float4(o[0], o[1], o[2], o[3]);
        } else {
            for (unsigned e = 0; e < 4; e++)
                if (4 * q + e >= s.slo && 4 * q + e < s.shi)
                    yb[4 * q + e] = o[e];
        }
    }
}

#endif
