/*
 * rowblock.cu - the rowblock control (docs/STRATEGIES.md): not tiled, each
 * row read once by a thread, a block, a cluster or the blocks of a
 * cooperative grid. This file holds the dispatcher that picks the path for
 * a shape, and the simplest path: one block per row in three passes for
 * rows no other path takes. The others are in rowblock_rows.cu (short
 * rows), rowblock_block.cu and rowblock_grid.cu (rowblock.cuh lists them).
 */
#include <math.h>
#include <stdint.h>

#include "gpu/kernels.h"
#include "gpu/rowblock.cuh"

#include "gpu/se_cuda.h"

/* One 1024-thread block per row in three passes over x (scale and max, sum
 * of exponentials, output), with float64 sums: rows no other path takes. */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock(const float *x, float *y,
                                                                int64_t cols, double eps,
                                                                se_trace_buf trace)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    __shared__ double red_d[SE_ROW_WARPS];
    __shared__ float red_f[SE_ROW_WARPS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;
    float s, mx;
    se_row_scale(xr, cols, eps, &s, &mx, red_d, red_f);
    float m = s * mx;
    double l = 0.0;
    float unused = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += SE_ROW_THREADS)
        l += (double)expf(s * xr[c] - m);
    se_row_reduce(&l, &unused, red_d, red_f);
    float inv_l = (float)(1.0 / l);
    for (int64_t c = threadIdx.x; c < cols; c += SE_ROW_THREADS)
        yr[c] = expf(s * xr[c] - m) * inv_l;
    if (trace.rec) {
        __syncthreads();
        if (threadIdx.x == 0)
            se_trace_record(&trace, blockIdx.x, t0);
    }
}

/* A long row's path, the same rule for every workload's rowblock:
 * over a cluster of at most SE_RB_MAX_CLUSTER CTAs that hold the row on
 * chip (rowblock_block.cu), or over the CTAs of a cooperative grid (two
 * or more a row, every row at once: rowblock_grid.cu). The grid waits at
 * its exchanges through global memory and re-reads from L2 what its CTAs
 * do not hold (its tail), so a cluster is taken where it runs every row
 * at once, or where the grid would have a tail; the grid where the
 * clusters need waves and it holds every row. On the H200
 * (docs/PERFORMANCE.md, version 12): 64x262144 cluster 41.28 us, grid
 * with a tail 52.72; 8x1048576 grid 27.65, clusters in two waves 38.34.
 * A cluster also leaves most SMs idle where its rows' CTAs are fewer
 * than the SMs (1x1048576 ran on one cluster of 16 CTAs; 3x1000004 on 48
 * of 132 SMs): the grid then spreads them over every SM, unless it would
 * read a tail again, or its CTAs' chunks are so short that the grid's
 * exchanges through global memory cost more than the idle SMs save. On
 * the H200 (docs/PERFORMANCE.md, version 19): 1x1048576 (chunks of 65536)
 * cluster 18.3 us, grid 15.3; 1x524288 (32768) grid 14.9; 1x262144
 * (16384) cluster 8.9; 2x100003 (7696) cluster 6.9 us, grid 14.4. */
se_rb_long se_rb_long_path(int64_t rows, int sms, const se_rb_cluster_cfg *c,
                           const se_rb_grid_cfg *g)
{
    int idle = rows * c->csize < (int64_t)sms && g->parts > 0 && !g->tail &&
               c->chunk >= SE_RB_IDLE_MIN_CHUNK;
    if (c->clusters > 0 && !idle && (g->parts == 0 || g->tail || rows <= c->clusters))
        return SE_RB_LONG_CLUSTER;
    return g->parts > 0 ? SE_RB_LONG_GRID : SE_RB_LONG_NONE;
}

extern "C" se_status se_gpu_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                             int64_t cols, double eps, se_rb_scratch scratch,
                                             se_trace_buf trace, cudaStream_t stream,
                                             se_err *err)
{
    int threads, dev, sms;
    const char *name;
    if (cols <= SE_RB_ROWS_MAX_COLS)
        return se_rb_rows_launch(x, y, rows, cols, eps, trace, stream, err);
    int vec4 = cols % 4 == 0;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    se_rb_fn fn = se_rb_reg_pick(rows, cols, sms, &threads, &name);
    if (fn && cols <= SE_RB_REG_COLS) {
        fn<<<(unsigned)rows, threads, 0, stream>>>(x, y, (int)cols, eps, vec4, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    /* Longer rows: over a cluster of CTAs or the CTAs of a cooperative
     * grid (se_rb_long_path). */
    se_rb_grid_cfg g;
    int frame = ((uintptr_t)x & 15) == ((uintptr_t)y & 15); /* any row length, as float4 */
    se_status st = se_rb_grid_pick(rows, cols, frame, sms, &g, err);
    if (st != SE_OK)
        return st;
    se_rb_cluster_cfg c;
    st = se_rb_cluster_pick(rows, cols, vec4, &c, err);
    if (st != SE_OK)
        return st;
    switch (se_rb_long_path(rows, sms, &c, &g)) {
    case SE_RB_LONG_CLUSTER:
        return se_rb_cluster_launch(x, y, rows, cols, eps, vec4, &c, trace, stream, err);
    case SE_RB_LONG_GRID:
        return se_rb_grid_launch(x, y, rows, cols, eps, &g, scratch, trace, stream, err);
    case SE_RB_LONG_NONE:
        break;
    }
    if (fn) { /* no cluster on this device */
        fn<<<(unsigned)rows, threads, 0, stream>>>(x, y, (int)cols, eps, vec4, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    se_k_rowblock<<<(unsigned)rows, SE_ROW_THREADS, 0, stream>>>(x, y, cols, eps, trace);
    SE_CUDA_LAUNCHED("se_k_rowblock");
    return SE_OK;
}
