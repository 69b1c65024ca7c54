/*
 * kernel_table.cu - every kernel of the project with the block size it is
 * launched with and what uses it: the per-kernel resource report
 * (resources.json) reads its attributes from this table, and
 * tests/source/kernel_table.sh fails when a kernel defined in src/gpu is
 * missing from it.
 */
#include "gpu/coop.h"
#include "gpu/kernels.h"

/* Defined in the kernel files. */
__global__ void se_k_phase_a(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_b(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_c(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_d(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_e(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_a_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_b_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_c_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_d_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_e_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_ln_phase_a(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_ln_phase_b(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_ln_phase_c(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_ln_phase_a_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_ln_phase_b_packed(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_ln_phase_c_packed(const __grid_constant__ se_gpu_problem p);
#define SE_LN_RB_WARP_DECL(name)                                                              \
    __global__ void name(const float *x, float *y, int64_t rows, int cols, double inv_cols,     \
                         double eps, se_trace_buf trace);
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_warp_v1)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_warp_v2)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_warp_v4)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_warp_v8)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_warp_v16)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_warp_v32)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c1)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c2)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c3)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c4)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c5)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c6)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c7)
SE_LN_RB_WARP_DECL(se_k_ln_rowblock_thread_c8)
__global__ void se_k_ln_rowblock_block(const float *x, float *y, int64_t cols, double inv_cols,
                                       double eps, se_trace_buf trace);
__global__ void se_k_ln_rowblock_cluster(const float *x, float *y, int64_t cols, int chunk,
                                         double inv_cols, double eps, int vec4,
                                         se_trace_buf trace);
__global__ void se_k_ln_rowblock_cta8(const float *x, float *y, int64_t cols, int chunk,
                                      double inv_cols, double eps, int vec4, se_trace_buf trace);
__global__ void se_k_ln_rowblock_grid(const float *x, float *y, int64_t cols, int parts,
                                      int chunk, int smem4, double inv_cols, double eps,
                                      se_rb_scratch sc, se_trace_buf trace);
__global__ void se_k_rowblock(const float *x, float *y, int64_t cols, double eps,
                              se_trace_buf trace);
__global__ void se_k_rowblock_reg(const float *x, float *y, int cols, double eps, int vec4,
                                  se_trace_buf trace);
__global__ void se_k_rowblock_cluster(const float *x, float *y, int64_t cols, int chunk,
                                      double eps, int vec4, se_trace_buf trace);
__global__ void se_k_rowblock_reg8(const float *x, float *y, int cols, double eps, int vec4,
                                   se_trace_buf trace);
__global__ void se_k_rowblock_reg16(const float *x, float *y, int cols, double eps, int vec4,
                                    se_trace_buf trace);
/* rowblock_rows.cu's kernels, one signature. */
#define SE_RB_SHORT_DECL(name)                                                                \
    __global__ void name(const float *x, float *y, int64_t rows, int cols, double eps, int vec, \
                         se_trace_buf trace);
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v1)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v1_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v2)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v2_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v4)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v4_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v8)
SE_RB_SHORT_DECL(se_k_rowblock_span_g1v8_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g2v8)
SE_RB_SHORT_DECL(se_k_rowblock_span_g2v8_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g4v8)
SE_RB_SHORT_DECL(se_k_rowblock_span_g4v8_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g8v8)
SE_RB_SHORT_DECL(se_k_rowblock_span_g8v8_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g16v8)
SE_RB_SHORT_DECL(se_k_rowblock_span_g16v8_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g32v8)
SE_RB_SHORT_DECL(se_k_rowblock_span_g32v8_direct)
SE_RB_SHORT_DECL(se_k_rowblock_span_g32v16)
SE_RB_SHORT_DECL(se_k_rowblock_span_g32v16_direct)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g1)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g2)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g4)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g8)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g16)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g8p4)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g16p4)
SE_RB_SHORT_DECL(se_k_rowblock_vec_g32p4)
SE_RB_SHORT_DECL(se_k_rowblock_col1)
SE_RB_SHORT_DECL(se_k_rowblock_lane)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c1)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c2)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c3)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c4)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c5)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c6)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c7)
SE_RB_SHORT_DECL(se_k_rowblock_thread_c8)
__global__ void se_k_rowblock_grid(const float *x, float *y, int64_t cols, int parts, int chunk,
                                   int smem4, double eps, se_rb_scratch sc, se_trace_buf trace);
__global__ void se_k_prescale(const float *x, float *xs, int64_t cols, double eps);
__global__ void se_k_outliers(float *x, int64_t rows, int64_t cols, uint64_t seed, float scale);
__global__ void se_k_empty(void);
__global__ void se_k_coop_noop(void);
__global__ void se_k_barriers(int n);
__global__ void se_k_clock_probe(unsigned long long *out, long long cycles);
__global__ void se_k_block_until(const volatile int *release, int *timed_out,
                                 unsigned long long timeout_ns);

/* The table itself, as long as its entries (no cap to outgrow: a kernel
 * added is a line added). */
static const se_kernel_entry se_kernel_entries[] = {
    {"se_k_phase_a", (const void *)se_k_phase_a, SE_TILE_THREADS,
     "stream, graph: groups of one row"},
    {"se_k_phase_b", (const void *)se_k_phase_b, SE_TILE_THREADS,
     "stream, graph: groups of one row"},
    {"se_k_phase_c", (const void *)se_k_phase_c, SE_TILE_THREADS,
     "stream, graph: groups of one row"},
    {"se_k_phase_d", (const void *)se_k_phase_d, SE_TILE_THREADS,
     "stream, graph: groups of one row"},
    {"se_k_phase_e", (const void *)se_k_phase_e, SE_TILE_THREADS,
     "stream, graph: groups of one row"},
    {"se_k_phase_a_packed", (const void *)se_k_phase_a_packed, SE_TILE_THREADS,
     "stream, graph: packed rows"},
    {"se_k_phase_b_packed", (const void *)se_k_phase_b_packed, SE_TILE_THREADS,
     "stream, graph: packed rows"},
    {"se_k_phase_c_packed", (const void *)se_k_phase_c_packed, SE_TILE_THREADS,
     "stream, graph: packed rows"},
    {"se_k_phase_d_packed", (const void *)se_k_phase_d_packed, SE_TILE_THREADS,
     "stream, graph: packed rows"},
    {"se_k_phase_e_packed", (const void *)se_k_phase_e_packed, SE_TILE_THREADS,
     "stream, graph: packed rows"},
    {"se_k_fusion", se_fusion_kernel(SE_TG_ROWS), SE_TILE_THREADS,
     "fusion, fusion-graph: groups of one row"},
    {"se_k_fusion_packed", se_fusion_kernel(SE_TG_PACKED), SE_TILE_THREADS,
     "fusion, fusion-graph: packed rows"},
    {"se_k_megakernel", se_megakernel_kernel(SE_TG_ROWS), SE_TILE_THREADS,
     "megakernel, megakernel-graph: groups of one row"},
    {"se_k_megakernel_packed", se_megakernel_kernel(SE_TG_PACKED), SE_TILE_THREADS,
     "megakernel, megakernel-graph: packed rows"},
    {"se_k_megakernel_init", se_megakernel_init_kernel(), SE_TILE_THREADS,
     "control: the megakernel's initialization alone"},
    {"se_k_ln_phase_a", (const void *)se_k_ln_phase_a, SE_TILE_THREADS,
     "layernorm: stream, graph: groups of one row"},
    {"se_k_ln_phase_b", (const void *)se_k_ln_phase_b, SE_TILE_THREADS,
     "layernorm: stream, graph: groups of one row"},
    {"se_k_ln_phase_c", (const void *)se_k_ln_phase_c, SE_TILE_THREADS,
     "layernorm: stream, graph: groups of one row"},
    {"se_k_ln_phase_a_packed", (const void *)se_k_ln_phase_a_packed, SE_TILE_THREADS,
     "layernorm: stream, graph: packed rows"},
    {"se_k_ln_phase_b_packed", (const void *)se_k_ln_phase_b_packed, SE_TILE_THREADS,
     "layernorm: stream, graph: packed rows"},
    {"se_k_ln_phase_c_packed", (const void *)se_k_ln_phase_c_packed, SE_TILE_THREADS,
     "layernorm: stream, graph: packed rows"},
    {"se_k_ln_fusion", se_ln_fusion_kernel(SE_TG_ROWS), SE_TILE_THREADS,
     "layernorm: fusion, fusion-graph: groups of one row"},
    {"se_k_ln_fusion_packed", se_ln_fusion_kernel(SE_TG_PACKED), SE_TILE_THREADS,
     "layernorm: fusion, fusion-graph: packed rows"},
    {"se_k_ln_megakernel", se_ln_megakernel_kernel(SE_TG_ROWS), SE_TILE_THREADS,
     "layernorm: megakernel, megakernel-graph: groups of one row"},
    {"se_k_ln_megakernel_packed", se_ln_megakernel_kernel(SE_TG_PACKED), SE_TILE_THREADS,
     "layernorm: megakernel, megakernel-graph: packed rows"},
    {"se_k_ln_rowblock_warp_v1", (const void *)se_k_ln_rowblock_warp_v1, SE_TILE_THREADS,
     "layernorm: rowblock, rows of up to 32 columns (a warp a row, 1 value a lane in registers)"},
    {"se_k_ln_rowblock_warp_v2", (const void *)se_k_ln_rowblock_warp_v2, SE_TILE_THREADS,
     "layernorm: rowblock, rows of 33 to 64 columns (a warp a row, 2 values a lane in registers)"},
    {"se_k_ln_rowblock_warp_v4", (const void *)se_k_ln_rowblock_warp_v4, SE_TILE_THREADS,
     "layernorm: rowblock, rows of 65 to 128 columns (a warp a row, 4 values a lane in registers)"},
    {"se_k_ln_rowblock_warp_v8", (const void *)se_k_ln_rowblock_warp_v8, SE_TILE_THREADS,
     "layernorm: rowblock, rows of 129 to 256 columns (a warp a row, 8 values a lane in registers)"},
    {"se_k_ln_rowblock_warp_v16", (const void *)se_k_ln_rowblock_warp_v16, SE_TILE_THREADS,
     "layernorm: rowblock, at least twice the SMs in rows of 257 to 512 columns (a warp a "
     "row, 16 values a lane in registers)"},
    {"se_k_ln_rowblock_warp_v32", (const void *)se_k_ln_rowblock_warp_v32, SE_TILE_THREADS,
     "layernorm: rowblock, at least twice the SMs in rows of 513 to 1024 columns (a warp a "
     "row, 32 values a lane in registers)"},
    {"se_k_ln_rowblock_thread_c1", (const void *)se_k_ln_rowblock_thread_c1, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 1 column (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c2", (const void *)se_k_ln_rowblock_thread_c2, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 2 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c3", (const void *)se_k_ln_rowblock_thread_c3, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 3 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c4", (const void *)se_k_ln_rowblock_thread_c4, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 4 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c5", (const void *)se_k_ln_rowblock_thread_c5, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 5 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c6", (const void *)se_k_ln_rowblock_thread_c6, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 6 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c7", (const void *)se_k_ln_rowblock_thread_c7, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 7 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_thread_c8", (const void *)se_k_ln_rowblock_thread_c8, SE_TILE_THREADS,
     "layernorm: rowblock, at most 256 rows of 8 columns (a thread a row, the length a constant)"},
    {"se_k_ln_rowblock_cluster", (const void *)se_k_ln_rowblock_cluster, 256,
     "layernorm: rowblock, rows over 1024 columns (a CTA or a cluster of up to 16 a row: "
     "32 values a thread in registers, as many again in shared memory for 16-byte rows)"},
    {"se_k_ln_rowblock_cta8", (const void *)se_k_ln_rowblock_cta8, 1024,
     "layernorm: rowblock, fewer rows than twice the SMs of 257 to 8192 columns (a CTA a "
     "row, 8 values a thread in registers)"},
    {"se_k_ln_rowblock_grid", (const void *)se_k_ln_rowblock_grid, 1024,
     "layernorm: rowblock, rows over 32768 columns where the softmax's rule takes the grid "
     "(se_rb_long_path: cooperative grid, two or more CTAs a row, one exchange)"},
    {"se_k_ln_rowblock_block", (const void *)se_k_ln_rowblock_block, 1024,
     "layernorm: rowblock, rows neither a cluster nor the grid takes (a block a row, three "
     "passes)"},
    {"se_k_rowblock", (const void *)se_k_rowblock, 1024,
     "rowblock, rows neither the grid nor a cluster takes (three passes)"},
    {"se_k_rowblock_grid", (const void *)se_k_rowblock_grid, 1024,
     "rowblock, rows over 32768 columns with two or more co-resident CTAs per row, "
     "where no cluster takes them (cooperative grid: registers, up to the opt-in "
     "shared memory, the rest from L2)"},
    {"se_k_rowblock_cluster", (const void *)se_k_rowblock_cluster, 256,
     "rowblock, rows of 8193 to 1048576 columns where the grid would read a tail "
     "again or the clusters take every row at once (up to 16 CTAs of 256, 512 or 1024 "
     "threads per row, registers and as many columns again in shared memory)"},
    {"se_k_rowblock_reg8", (const void *)se_k_rowblock_reg8, 1024,
     "rowblock, fewer rows than twice the SMs, 9 to 8192 columns"},
    {"se_k_rowblock_reg16", (const void *)se_k_rowblock_reg16, 1024,
     "rowblock, fewer rows than twice the SMs, 8193 to 16384 columns, on a GPU "
     "without clusters"},
    {"se_k_rowblock_reg", (const void *)se_k_rowblock_reg, 1024,
     "rowblock, many rows of up to 8192 columns (32768 on a GPU without clusters)"},
    {"se_k_rowblock_span_g1v1", (const void *)se_k_rowblock_span_g1v1, 256,
     "rowblock, many rows of up to 1 columns, 1 lane a row (float4 spans)"},
    {"se_k_rowblock_span_g1v1_direct", (const void *)se_k_rowblock_span_g1v1_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 1 columns, not a multiple of 4 (1 lane a row, straight from global memory)"},
    {"se_k_rowblock_span_g1v2", (const void *)se_k_rowblock_span_g1v2, 256,
     "rowblock, many rows of up to 2 columns, 1 lane a row (float4 spans)"},
    {"se_k_rowblock_span_g1v2_direct", (const void *)se_k_rowblock_span_g1v2_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 2 columns, not a multiple of 4 (1 lane a row, straight from global memory)"},
    {"se_k_rowblock_span_g1v4", (const void *)se_k_rowblock_span_g1v4, 256,
     "rowblock, many rows of up to 4 columns, 1 lane a row (float4 spans)"},
    {"se_k_rowblock_span_g1v4_direct", (const void *)se_k_rowblock_span_g1v4_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 4 columns, not a multiple of 4 (1 lane a row, straight from global memory)"},
    {"se_k_rowblock_span_g1v8", (const void *)se_k_rowblock_span_g1v8, 256,
     "rowblock, many rows of up to 8 columns, 1 lane a row (float4 spans)"},
    {"se_k_rowblock_span_g1v8_direct", (const void *)se_k_rowblock_span_g1v8_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 8 columns, not a multiple of 4 (1 lane a row, straight from global memory)"},
    {"se_k_rowblock_span_g2v8", (const void *)se_k_rowblock_span_g2v8, 256,
     "rowblock, many rows of up to 16 columns, 2 lanes a row (float4 spans)"},
    {"se_k_rowblock_span_g2v8_direct", (const void *)se_k_rowblock_span_g2v8_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 16 columns, not a multiple of 4 (2 lanes a row, straight from global memory)"},
    {"se_k_rowblock_span_g4v8", (const void *)se_k_rowblock_span_g4v8, 256,
     "rowblock, many rows of up to 32 columns, 4 lanes a row (float4 spans)"},
    {"se_k_rowblock_span_g4v8_direct", (const void *)se_k_rowblock_span_g4v8_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 32 columns, not a multiple of 4 (4 lanes a row, straight from global memory)"},
    {"se_k_rowblock_span_g8v8", (const void *)se_k_rowblock_span_g8v8, 256,
     "rowblock, many rows of up to 64 columns, 8 lanes a row (float4 spans)"},
    {"se_k_rowblock_span_g8v8_direct", (const void *)se_k_rowblock_span_g8v8_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 64 columns, not a multiple of 4 (8 lanes a row, straight from global memory)"},
    {"se_k_rowblock_span_g16v8", (const void *)se_k_rowblock_span_g16v8, 256,
     "rowblock, many rows of up to 128 columns, 16 lanes a row (float4 spans)"},
    {"se_k_rowblock_span_g16v8_direct", (const void *)se_k_rowblock_span_g16v8_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 128 columns, not a multiple of 4 (16 lanes a row, straight from global memory)"},
    {"se_k_rowblock_span_g32v8", (const void *)se_k_rowblock_span_g32v8, 256,
     "rowblock, many rows of up to 256 columns, 32 lanes a row (float4 spans)"},
    {"se_k_rowblock_span_g32v8_direct", (const void *)se_k_rowblock_span_g32v8_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 256 columns, not a multiple of 4 (32 lanes a row, straight from global memory)"},
    {"se_k_rowblock_span_g32v16", (const void *)se_k_rowblock_span_g32v16, 256,
     "rowblock, many rows of up to 512 columns, 32 lanes a row (float4 spans)"},
    {"se_k_rowblock_span_g32v16_direct", (const void *)se_k_rowblock_span_g32v16_direct, 256,
     "rowblock, at most 65536 elements in rows of up to 512 columns, not a multiple of 4 (32 lanes a row, straight from global memory)"},
    {"se_k_rowblock_vec_g1", (const void *)se_k_rowblock_vec_g1, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 4 (float4 straight into registers)"},
    {"se_k_rowblock_vec_g2", (const void *)se_k_rowblock_vec_g2, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 8 (float4 straight into registers)"},
    {"se_k_rowblock_vec_g4", (const void *)se_k_rowblock_vec_g4, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 16 (float4 straight into registers)"},
    {"se_k_rowblock_vec_g8", (const void *)se_k_rowblock_vec_g8, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 32 (float4 straight into registers)"},
    {"se_k_rowblock_vec_g16", (const void *)se_k_rowblock_vec_g16, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 64 (float4 straight into registers)"},
    {"se_k_rowblock_vec_g8p4", (const void *)se_k_rowblock_vec_g8p4, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 128 (8 lanes of 4 float4 a row)"},
    {"se_k_rowblock_vec_g16p4", (const void *)se_k_rowblock_vec_g16p4, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 256 (16 lanes of 4 float4 a row)"},
    {"se_k_rowblock_vec_g32p4", (const void *)se_k_rowblock_vec_g32p4, 256,
     "rowblock, many rows of a multiple of 4 columns, up to 512 (float4 straight into registers)"},
    {"se_k_rowblock_lane", (const void *)se_k_rowblock_lane, 128,
     "rowblock, rows of at most 64 columns that are not a multiple of 4, more than 65536 "
     "elements (a lane a row, 32 rows a warp copied into shared memory by cp.async)"},
    {"se_k_rowblock_col1", (const void *)se_k_rowblock_col1, 256,
     "rowblock, many rows of one column (4 rows a float4)"},
    {"se_k_rowblock_thread_c1", (const void *)se_k_rowblock_thread_c1, 256,
     "rowblock, up to 256 rows of 1 column (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c2", (const void *)se_k_rowblock_thread_c2, 256,
     "rowblock, up to 256 rows of 2 columns (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c3", (const void *)se_k_rowblock_thread_c3, 256,
     "rowblock, up to 256 rows of 3 columns (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c4", (const void *)se_k_rowblock_thread_c4, 256,
     "rowblock, up to 256 rows of 4 columns (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c5", (const void *)se_k_rowblock_thread_c5, 256,
     "rowblock, up to 256 rows of 5 columns (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c6", (const void *)se_k_rowblock_thread_c6, 256,
     "rowblock, up to 256 rows of 6 columns (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c7", (const void *)se_k_rowblock_thread_c7, 256,
     "rowblock, up to 256 rows of 7 columns (a thread a row, length a constant)"},
    {"se_k_rowblock_thread_c8", (const void *)se_k_rowblock_thread_c8, 256,
     "rowblock, up to 256 rows of 8 columns (a thread a row, length a constant)"},
    {"se_k_prescale", (const void *)se_k_prescale, 1024, "cudnn input (untimed)"},
    {"se_k_outliers", (const void *)se_k_outliers, 256, "input generation (untimed)"},
    {"se_k_empty", (const void *)se_k_empty, SE_TILE_THREADS, "control: empty launch"},
    {"se_k_coop_noop", (const void *)se_k_coop_noop, SE_TILE_THREADS,
     "control: cooperative no-op"},
    {"se_k_barriers", (const void *)se_k_barriers, SE_TILE_THREADS,
     "control: grid barrier cost"},
    {"se_k_clock_probe", (const void *)se_k_clock_probe, 32, "SM clock per sample (untimed)"},
    {"se_k_block_until", (const void *)se_k_block_until, 32,
     "holds the stream before a timed region (untimed)"},
};

extern "C" size_t se_gpu_kernel_table(const se_kernel_entry **table)
{
    *table = se_kernel_entries;
    return sizeof se_kernel_entries / sizeof se_kernel_entries[0];
}
