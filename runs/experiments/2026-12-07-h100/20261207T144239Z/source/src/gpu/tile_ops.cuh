/*
 * tile_ops.cuh - the per-tile and per-row device functions of the tiled
 * RMS-scaled softmax, shared by every tiled strategy.
 *
 * stream, graph, fusion and megakernel call exactly these functions with the
 * same block size, so for the same input their outputs are bitwise
 * identical: only the execution mechanism differs. To keep that true the
 * arithmetic is pinned down: explicit fmaf, __fadd_rn and __fmul_rn (never
 * contracted or reassociated by the compiler), fixed-order butterfly
 * reductions, and per-row combines in float64 in a fixed order. The order
 * depends on the problem's geometry only (its rows per group and threads
 * per row, se_tile_seg), never on where a value was read from.
 *
 * A tile is a contiguous span of x: part of one row, one row, or a packed
 * group of whole rows (taskgraph.h). It is read in the frame of 16-byte
 * addresses, so rows of any length take the float4 path: float4 loads on
 * the aligned middle, the elements before the span's first 16-byte
 * boundary and after its last one at a time (a head and a tail of up to 3
 * each), and inside a packed span a float4 that straddles two rows is read
 * once per row and masked to it (docs/STRATEGIES.md, "Row groups").
 *
 * Values written by one block and read by another (partials, row statistics)
 * are read with __ldcg, from L2, never from a possibly stale L1 line.
 */
#ifndef SE_TILE_OPS_CUH
#define SE_TILE_OPS_CUH

#include <math.h>

#include "gpu/coop.h"
#include "gpu/kernels.h"
#include "model/taskgraph.h"

#define SE_TILE_WARPS (SE_TILE_THREADS / 32)
/* log2 of SE_TILE_THREADS: p->seg_log2 is this exactly where a group is
 * one row (se_tile_seg: one piece over the whole block). */
#define SE_TILE_LOG2 8
static_assert((1 << SE_TILE_LOG2) == SE_TILE_THREADS, "SE_TILE_LOG2 is not log2 of SE_TILE_THREADS");

/* A packed group's rows get a thread each (se_packed_row_task) and a
 * segment each in one pass (se_tile_a, se_tile_c). */
static_assert(SE_MAX_GROUP_ROWS <= SE_TILE_THREADS, "a group has more rows than a tile's threads");

/* The task graph of the problem as the host made it (se_case_alloc filled
 * p from se_taskgeom_make): read from p's fields, so a kernel pays no
 * 64-bit division for it (se_taskgeom_make divides three times in every
 * thread; docs/PERFORMANCE.md, version 20). */
static __device__ __forceinline__ se_taskgeom se_gpu_geom(const se_gpu_problem *p)
{
    se_taskgeom g;
    g.rows = p->rows;
    g.cols = p->cols;
    g.tile = p->tile;
    g.version = SE_TASKGRAPH_VERSION;
    g.phases = SE_NPHASES; /* the softmax's; LayerNorm's kernels set 3 (ln_ops.cuh) */
    g.group = p->group;
    g.groups = p->groups;
    g.tiles_per_row = p->tiles_per_row;
    g.tile_tasks = p->tile_tasks;
    g.partials = p->rows * p->tiles_per_row;
    g.total = p->total_tasks;
    return g;
}

/* Tile task id's group and tile: no division where a group is one tile
 * (every shape of rows up to T columns, packed or not). */
static __device__ __forceinline__ int64_t se_task_grp(const se_gpu_problem *p, int64_t id)
{
    return p->tiles_per_row == 1 ? id : id / p->tiles_per_row;
}

static __device__ __forceinline__ int64_t se_task_tile(const se_gpu_problem *p, int64_t id)
{
    return p->tiles_per_row == 1 ? 0 : id % p->tiles_per_row;
}

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
/* The end of a traced tile task: several threads write its results (a
 * segment's first thread each piece's partials, every thread y), so the
 * block synchronizes and thread 0 records. Uniform: every thread calls it. */
static __device__ __forceinline__ void se_trace_tile_end(const se_trace_buf *tb, int64_t task,
                                                         uint64_t start)
{
    __syncthreads();
    if (threadIdx.x == 0)
        se_trace_record(tb, task, start);
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

/* The on-chip copy of a tile, for fusion and the megakernel: the first `n`
 * positions of the tile's slot in shared memory at `at` (n a multiple of
 * 4). A slot holds the tile's float4 cover: position r is x's element at
 * offset r of the tile's 16-byte frame (se_span), so slots are 16-byte
 * aligned whatever the row length. Before phase A the owner fills it from x
 * with asynchronous copies (se_tile_prefetch); phase A reads x from it;
 * phase C overwrites each element with its exponential e = exp(s x - m);
 * phase E reads e from it and only multiplies. Every other strategy passes
 * SE_NO_CACHE and reads x from device memory in every phase; the branches
 * fold away. e is the same float whether kept or recomputed, and the order
 * of the arithmetic does not depend on where x came from, so the results
 * stay bitwise identical. */
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

/* For fusion and the megakernel: the block's k-th tile of a tile phase and
 * its share of the on-chip cache: slot k starts k slots
 * (se_tile_slot_elems) into the block's shared memory, and holds what is
 * left of `cache_elems` there. */
static __device__ __forceinline__ se_tile_cache se_tile_slot(const se_gpu_problem *p,
                                                             float *cache, unsigned cache_elems,
                                                             int64_t k)
{
    se_tile_cache c;
    int64_t slot = se_tile_slot_elems(p->tile);
    int64_t off = k * slot, left = (int64_t)cache_elems - off;
    c.at = cache + (left > 0 ? off : 0);
    c.n = left <= 0 ? 0u : (unsigned)(left < slot ? left : slot);
    return c;
}

/* A tile as the tile functions read it: its elements are the span
 * [slo, shi) of x's frame xb = x + off (off the span's first element
 * rounded down to a multiple of 4; x and y are 16-byte aligned,
 * se_case_alloc checks it), cut into `nrows` row pieces of `plen`
 * elements from slo: the rows of a packed group, else one piece, the
 * tile. Piece k's partials go to index part0 + k, and its row is
 * row0 + k. Offsets in the frame fit 32 bits (a tile is at most
 * T <= INT32_MAX elements, plus 3). */
typedef struct se_span {
    int64_t off, row0, part0;
    unsigned slo, shi, nrows, plen;
} se_span;

static __device__ __forceinline__ se_span se_span_of(const se_gpu_problem *p, int64_t grp,
                                                     int64_t tile, int tg)
{
    se_span s;
    int64_t lo, len;
    if (tg == SE_TG_PACKED) {
        int64_t rest;
        s.row0 = grp * p->group;
        rest = p->rows - s.row0;
        s.nrows = (unsigned)(rest < p->group ? rest : p->group);
        s.plen = (unsigned)p->cols;
        s.part0 = s.row0; /* one tile a row */
        lo = s.row0 * p->cols;
        len = (int64_t)s.nrows * p->cols;
    } else {
        int64_t start = tile * p->tile, rest = p->cols - start;
        len = rest < p->tile ? rest : p->tile;
        s.row0 = grp;
        s.nrows = 1;
        s.plen = (unsigned)len;
        s.part0 = grp * p->tiles_per_row + tile;
        lo = grp * p->cols + start;
    }
    s.off = lo & ~(int64_t)3;
    s.slo = (unsigned)(lo - s.off);
    s.shi = s.slo + (unsigned)len;
    return s;
}

/* cp.async, device memory to shared memory without registers: one 16-byte
 * copy (both addresses 16-byte aligned), the commit of this thread's
 * copies so far as one group, and the wait for all of them. */
static __device__ __forceinline__ void se_cp_async16(void *smem_dst, const void *src)
{
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

static __device__ __forceinline__ void se_cp_async4(void *smem_dst, const void *src)
{
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}

static __device__ __forceinline__ void se_cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;" ::: "memory");
}

static __device__ __forceinline__ void se_cp_async_wait_all(void)
{
    asm volatile("cp.async.wait_all;" ::: "memory");
}

/* Whether phase A reads any element of tile (grp, tile)'s slot on another
 * thread than the one whose cp.async copied it (se_tile_prefetch), so that
 * the block must synchronize after the copy lands: a packed slot (read by
 * rows), or a tile not on 16-byte boundaries at both ends (its float4s read
 * one lane along, its head and tail by lanes 0 to 5). An aligned tile over
 * the whole block is read float4 q by thread q mod SE_TILE_THREADS, as
 * copied: its own cp.async.wait_group suffices. Uniform over the block. */
static __device__ __forceinline__ int se_slot_read_across(const se_gpu_problem *p, int64_t grp,
                                                         int64_t tile, int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    return tg == SE_TG_PACKED || s.slo != 0 || (s.shi & 3u) != 0;
}

/* Whether float4 q of a span's frame lies wholly in [lo, hi). */
static __device__ __forceinline__ int se_q_in(unsigned q, unsigned lo, unsigned hi)
{
    return 4 * q >= lo && 4 * q + 4 <= hi;
}

/* Starts the asynchronous copy of the cached part of a tile's cover into
 * its slot (16-byte copies on the span's aligned middle, 4-byte ones for
 * its head and tail) and commits them as one group. Float4 q of the frame
 * is thread q mod SE_TILE_THREADS's, as in phase E, so a slot that the
 * megakernel refills for its next visit is written by the thread that
 * read it last. Phase A reads the slot with another mapping: the caller
 * waits (se_tile_prefetch_wait) and synchronizes the block first. */
static __device__ __forceinline__ void se_tile_prefetch(const se_gpu_problem *p, int64_t grp,
                                                        int64_t tile, se_tile_cache c, int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    const float *xb = p->x + s.off;
    for (unsigned q = threadIdx.x; 4 * q < s.shi && 4 * q < c.n; q += SE_TILE_THREADS) {
        if (se_q_in(q, s.slo, s.shi)) {
            se_cp_async16(c.at + 4 * q, xb + 4 * q);
        } else {
            for (unsigned r = 4 * q; r < 4 * q + 4; r++)
                if (r >= s.slo && r < s.shi)
                    se_cp_async4(c.at + r, xb + r);
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

/* x at offset r (float4 q) of a span's frame, from the on-chip copy when
 * it holds it. */
static __device__ __forceinline__ float4 se_span_ld4(const float *xb, se_tile_cache c, unsigned q)
{
    return 4 * q < c.n ? ((const float4 *)c.at)[q] : ((const float4 *)xb)[q];
}

static __device__ __forceinline__ float se_span_ld1(const float *xb, se_tile_cache c, unsigned r)
{
    return r < c.n ? c.at[r] : xb[r];
}

/* Edge element e (0 to 5) of a row piece [lo, hi) whose whole float4s
 * are qf .. qe - 1, or hi for none: e = 0 to 2 its head (the elements
 * before its first 16-byte boundary; all of it where the piece lies within
 * one float4), e = 3 to 5 its tail (after its last boundary). Lane j of a
 * segment of S takes edges j, j + S, ...: one at most where S >= 8. */
static __device__ __forceinline__ unsigned se_piece_edge(unsigned lo, unsigned hi, unsigned qf,
                                                         unsigned qe, unsigned e)
{
    unsigned head = (qf <= qe ? 4 * qf : hi) - lo;
    unsigned tail = qf <= qe ? hi - 4 * qe : 0;
    if (e < 3)
        return e < head ? lo + e : hi;
    return e - 3 < tail ? 4 * qe + e - 3 : hi;
}

/* Sum (and, with_max, max) over the S threads of this thread's segment
 * (S a power of two from 1 to SE_TILE_THREADS; segments are aligned), in a
 * fixed order: a butterfly within the warp, then for segments of several
 * warps their warps' values in order (red: 2 * SE_TILE_WARPS floats of
 * shared memory). The segment's first thread gets the result (every
 * thread of it where S <= 32). Uniform: the whole block calls it with the
 * same S. */
static __device__ __forceinline__ void se_seg_reduce(float *sum, float *max, unsigned S,
                                                     float *red, const int with_max)
{
    unsigned w = S < 32 ? S : 32;
    float a = *sum, b = *max;
    for (unsigned o = w / 2; o > 0; o >>= 1) {
        a = __fadd_rn(a, __shfl_xor_sync(SE_FULL_MASK, a, o));
        if (with_max)
            b = fmaxf(b, __shfl_xor_sync(SE_FULL_MASK, b, o));
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
                a = __fadd_rn(a, red[warp + i]);
                if (with_max)
                    b = fmaxf(b, red[SE_TILE_WARPS + warp + i]);
            }
        __syncthreads(); /* red may be reused at once */
    }
    *sum = a;
    *max = b;
}

/* Phase A of one row piece [lo, hi) by one thread of its segment (lane of
 * S): the float4s of its aligned middle strided over the lanes, then its
 * head (the up to 3 elements before its first 16-byte boundary) and its
 * tail (the up to 3 after its last), one element a lane. In a packed span
 * the head and tail are the row boundaries: the float4 that holds one is
 * read element by element by both rows, never as another row's float4. */
static __device__ __forceinline__ void se_piece_a(const float *xb, se_tile_cache c, unsigned lo,
                                                  unsigned hi, unsigned lane, unsigned S,
                                                  float *ss_out, float *mx_out)
{
    float ss = 0.0f, mx = -INFINITY;
    unsigned qf = (lo + 3) / 4, qe = hi / 4;
#pragma unroll 4
    for (unsigned q = qf + lane; q < qe; q += S) {
        float4 v = se_span_ld4(xb, c, q);
        ss = fmaf(v.x, v.x, ss);
        ss = fmaf(v.y, v.y, ss);
        ss = fmaf(v.z, v.z, ss);
        ss = fmaf(v.w, v.w, ss);
        mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    for (unsigned e = lane; e < 6; e += S) {
        unsigned r = se_piece_edge(lo, hi, qf, qe, e);
        if (r < hi) {
            float v = se_span_ld1(xb, c, r);
            ss = fmaf(v, v, ss);
            mx = fmaxf(mx, v);
        }
    }
    *ss_out = ss;
    *mx_out = mx;
}

/* Phase A: each row piece's sum of squares and max, by the whole block
 * (p->seg_log2: segments of S threads, one piece each, all in one pass: a
 * group has at most SE_TILE_THREADS rows, taskgraph.h). */
static __device__ __forceinline__ void se_tile_a(const se_gpu_problem *p, int64_t grp,
                                                 int64_t tile, float *red, se_tile_cache c,
                                                 int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    const float *xb = p->x + s.off;
    float ss = 0.0f, mx = -INFINITY;
    if (tg == SE_TG_ROWS) {
        /* One piece over the whole block (a row, or a row's tile): the
         * segment is a compile-time constant, so the loop strides by a
         * constant and unrolls with its loads batched (the runtime stride
         * cost phase A 12 % on 4096x4096, docs/PERFORMANCE.md, version 19). */
        se_piece_a(xb, c, s.slo, s.shi, threadIdx.x, SE_TILE_THREADS, &ss, &mx);
        se_seg_reduce(&ss, &mx, SE_TILE_THREADS, red, 1);
        if (threadIdx.x == 0) {
            p->part_ss[s.part0] = ss;
            p->part_max[s.part0] = mx;
        }
        return;
    }
    const unsigned S = 1u << p->seg_log2, lane = threadIdx.x & (S - 1);
    const unsigned k = threadIdx.x >> p->seg_log2;
    if (k < s.nrows)
        se_piece_a(xb, c, s.slo + k * s.plen, s.slo + (k + 1) * s.plen, lane, S, &ss, &mx);
    se_seg_reduce(&ss, &mx, S, red, 1);
    if (k < s.nrows && lane == 0) {
        p->part_ss[s.part0 + k] = ss;
        p->part_max[s.part0 + k] = mx;
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

/* The statistics of a group's first row: what phases C and E take as `rs`
 * (a packed tile loads each row's own). */
static __device__ __forceinline__ se_row_stats se_group_sm(const se_gpu_problem *p, int64_t grp)
{
    return se_row_sm(p, grp * p->group);
}

static __device__ __forceinline__ se_row_stats se_group_sml(const se_gpu_problem *p, int64_t grp)
{
    return se_row_sml(p, grp * p->group);
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

/* Phase C of one row piece by one thread of its segment, as se_piece_a;
 * each cached element is overwritten by its exponential. */
static __device__ __forceinline__ float se_piece_c(const float *xb, se_tile_cache c, unsigned lo,
                                                   unsigned hi, unsigned lane, unsigned S,
                                                   se_row_stats rs)
{
    float acc = 0.0f;
    unsigned qf = (lo + 3) / 4, qe = hi / 4;
#pragma unroll 4
    for (unsigned q = qf + lane; q < qe; q += S) {
        float4 v = se_span_ld4(xb, c, q), e;
        e.x = se_exp_arg(rs.s, v.x, rs.m);
        e.y = se_exp_arg(rs.s, v.y, rs.m);
        e.z = se_exp_arg(rs.s, v.z, rs.m);
        e.w = se_exp_arg(rs.s, v.w, rs.m);
        acc = __fadd_rn(acc, e.x);
        acc = __fadd_rn(acc, e.y);
        acc = __fadd_rn(acc, e.z);
        acc = __fadd_rn(acc, e.w);
        if (4 * q < c.n)
            ((float4 *)c.at)[q] = e;
    }
    for (unsigned e = lane; e < 6; e += S) {
        unsigned r = se_piece_edge(lo, hi, qf, qe, e);
        if (r < hi) {
            float ev = se_exp_arg(rs.s, se_span_ld1(xb, c, r), rs.m);
            acc = __fadd_rn(acc, ev);
            if (r < c.n)
                c.at[r] = ev;
        }
    }
    return acc;
}

/* Phase C: each row piece's sum of exp(s_r x - m_r), by the whole block as
 * phase A; the cached elements are replaced by their exponentials for
 * phase E. rs: the statistics of the group's first row (se_group_sm); a
 * packed tile loads each row's own. */
static __device__ __forceinline__ void se_tile_c(const se_gpu_problem *p, int64_t grp,
                                                 int64_t tile, float *red, se_tile_cache c,
                                                 se_row_stats rs, int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    const float *xb = p->x + s.off;
    float acc = 0.0f, unused = 0.0f;
    if (tg == SE_TG_ROWS) { /* one piece, a constant segment: as se_tile_a */
        acc = se_piece_c(xb, c, s.slo, s.shi, threadIdx.x, SE_TILE_THREADS, rs);
        se_seg_reduce(&acc, &unused, SE_TILE_THREADS, red, 0);
        if (threadIdx.x == 0)
            p->part_l[s.part0] = acc;
        return;
    }
    const unsigned S = 1u << p->seg_log2, lane = threadIdx.x & (S - 1);
    const unsigned k = threadIdx.x >> p->seg_log2;
    if (k < s.nrows)
        acc = se_piece_c(xb, c, s.slo + k * s.plen, s.slo + (k + 1) * s.plen, lane, S,
                         se_row_sm(p, s.row0 + k));
    se_seg_reduce(&acc, &unused, S, red, 0);
    if (k < s.nrows && lane == 0)
        p->part_l[s.part0 + k] = acc;
}

/* Phase E at one element (offset r of the frame) of row stats rs. */
static __device__ __forceinline__ float se_e1(const float *xb, se_tile_cache c, unsigned r,
                                              se_row_stats rs)
{
    float e = r < c.n ? c.at[r] : se_exp_arg(rs.s, xb[r], rs.m);
    return __fmul_rn(e, rs.inv_l);
}

/* Phase E: y = exp(s_r x - m_r) / l_r over one tile, by the whole block
 * over the span (float4 q is thread q mod SE_TILE_THREADS's: a float4 store
 * on the aligned middle, the head and tail one element at a time); cached
 * elements already hold the exponential, from phase C. rs: the statistics
 * of the group's first row (se_group_sml); in a packed span each float4
 * finds its elements' rows (a row boundary may fall inside it). */
static __device__ __forceinline__ void se_tile_e(const se_gpu_problem *p, int64_t grp,
                                                 int64_t tile, se_tile_cache c,
                                                 se_row_stats rs, int tg)
{
    se_span s = se_span_of(p, grp, tile, tg);
    const float *xb = p->x + s.off;
    float *yb = p->y + s.off;
    if (tg == SE_TG_ROWS) {
        /* The whole float4s [qf, qe) in a loop with nothing but them (a
         * per-iteration test for the span's ends cost phase E its batched
         * stores), then the head float4 (q = 0: slo < 4) and the tail one
         * (qe), element by element, each by the thread of its q. */
        const unsigned qf = (s.slo + 3) / 4, qe = s.shi / 4;
#pragma unroll 4
        for (unsigned q = threadIdx.x < qf ? threadIdx.x + SE_TILE_THREADS : threadIdx.x; q < qe;
             q += SE_TILE_THREADS) {
            float4 e, o;
            if (4 * q < c.n) {
                e = ((const float4 *)c.at)[q];
            } else {
                float4 v = ((const float4 *)xb)[q];
                e.x = se_exp_arg(rs.s, v.x, rs.m);
                e.y = se_exp_arg(rs.s, v.y, rs.m);
                e.z = se_exp_arg(rs.s, v.z, rs.m);
                e.w = se_exp_arg(rs.s, v.w, rs.m);
            }
            o.x = __fmul_rn(e.x, rs.inv_l);
            o.y = __fmul_rn(e.y, rs.inv_l);
            o.z = __fmul_rn(e.z, rs.inv_l);
            o.w = __fmul_rn(e.w, rs.inv_l);
            ((float4 *)yb)[q] = o;
        }
        if (qf > 0 && threadIdx.x == 0) /* the head, or the whole span within float4 0 */
            for (unsigned r = s.slo; r < 4 && r < s.shi; r++)
                yb[r] = se_e1(xb, c, r, rs);
        if (qe >= qf && 4 * qe < s.shi && threadIdx.x == qe % SE_TILE_THREADS)
            for (unsigned r = 4 * qe; r < s.shi; r++)
                yb[r] = se_e1(xb, c, r, rs);
        return;
    }
    for (unsigned q = threadIdx.x; 4 * q < s.shi; q += SE_TILE_THREADS) {
        unsigned r0 = 4 * q > s.slo ? 4 * q : s.slo;
        unsigned k = (r0 - s.slo) / s.plen, next = s.slo + (k + 1) * s.plen;
        se_row_stats r = se_row_sml(p, s.row0 + k);
        float o[4];
        for (unsigned e = 0; e < 4; e++) {
            unsigned at = 4 * q + e;
            o[e] = 0.0f;
            if (at < s.slo || at >= s.shi)
                continue;
            if (at >= next) {
                k++;
                next += s.plen;
                r = se_row_sml(p, s.row0 + k);
            }
            o[e] = se_e1(xb, c, at, r);
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

/* The same for one row of a packed group, by one thread, in column order
 * (the row has at most T / 2 columns). */
static __device__ __noinline__ double se_row_ss_f64_serial(const se_gpu_problem *p, int64_t row)
{
    const float *xr = p->x + row * p->cols;
    double d = 0.0;
    for (int64_t c = 0; c < p->cols; c++)
        d = fma((double)xr[c], (double)xr[c], d);
    return d;
}

/* s_r = 1/sqrt(mean x^2 + eps) and m_r = s_r * max x from a row's float64
 * sum of squares and its max: the one formula of phase B. */
static __device__ __forceinline__ void se_row_b_store(const se_gpu_problem *p, int64_t row,
                                                      double ss, float mx)
{
    float s = (float)(1.0 / sqrt(ss / (double)p->cols + p->eps));
    p->row_s[row] = s;
    p->row_m[row] = __fmul_rn(s, mx);
}

/* Phase B of a row split over tiles (g = 1), by one full warp: combine the
 * row's A partials in float64, in a fixed order. Where a partial
 * overflowed (inf although x is finite), the row's sum is taken again in
 * float64 (se_row_ss_f64), so every finite input gives a finite, right
 * scale, the same in every strategy. */
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
    if (lane == 0)
        se_row_b_store(p, row, ss, mx);
}

/* Phase D of a row split over tiles, by one full warp: l_r = sum of the
 * row's C partials in float64, stored as 1 / l_r. */
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

/* Phase B or D of a packed group (g > 1) by a whole block: its rows (at
 * most SE_TILE_THREADS, taskgraph.h), one partial each, a thread each,
 * each row combined in float64 as se_row_b and se_row_d combine a row of
 * one tile (its one partial plus zeros), so the formula is the same. A row
 * whose partial overflowed takes its sum again in float64 on its thread. */
static __device__ __forceinline__ void se_packed_row_task(const se_gpu_problem *p, int64_t grp,
                                                          int phase)
{
    int64_t row = grp * p->group + threadIdx.x;
    if (threadIdx.x >= p->group || row >= p->rows)
        return;
    if (phase == SE_PHASE_B) {
        double ss = (double)__ldcg(p->part_ss + row);
        if (isinf(ss))
            ss = se_row_ss_f64_serial(p, row);
        se_row_b_store(p, row, ss, __ldcg(p->part_max + row));
    } else {
        p->row_inv_l[row] = (float)(1.0 / (double)__ldcg(p->part_l + row));
    }
}

/* Phase B or D of group grp by a whole block (uniform: every thread calls
 * it): warp 0 where the group is one row split over tiles, every thread
 * where it is packed. The caller synchronizes before it publishes the
 * results. */
static __device__ __forceinline__ void se_group_task_block(const se_gpu_problem *p, int64_t grp,
                                                           int phase, int tg)
{
    if (tg == SE_TG_PACKED) {
        se_packed_row_task(p, grp, phase);
    } else if (threadIdx.x < 32) {
        if (phase == SE_PHASE_B)
            se_row_b(p, grp);
        else
            se_row_d(p, grp);
    }
}

#endif
