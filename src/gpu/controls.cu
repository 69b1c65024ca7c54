/*
 * controls.cu - the timing harness's own kernels: the launch and barrier
 * controls (an empty kernel, a cooperative no-op, a kernel of N grid
 * barriers), the SM clock probe, and the table of every kernel of the
 * project for the per-kernel resource report.
 */
#include <cooperative_groups.h>

#include "gpu/coop.h"
#include "gpu/kernels.h"
#include "gpu/tile_ops.cuh"

#include "gpu/se_cuda.h"

namespace cg = cooperative_groups;

__global__ void se_k_empty(void)
{
}

__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_coop_noop(void)
{
}

__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_barriers(int n)
{
    cg::grid_group grid = cg::this_grid();
    for (int i = 0; i < n; i++)
        grid.sync();
}

static __device__ __forceinline__ uint64_t se_globaltimer(void)
{
    return se_now_ns();
}

/* One thread counts SM cycles (clock64) against nanoseconds (%globaltimer)
 * over at least `cycles` cycles; out[0] = cycles, out[1] = nanoseconds. */
__global__ void se_k_clock_probe(unsigned long long *out, long long cycles)
{
    if (threadIdx.x != 0)
        return;
    uint64_t t0 = se_globaltimer();
    long long c0 = clock64(), c1;
    do {
        c1 = clock64();
    } while (c1 - c0 < cycles);
    uint64_t t1 = se_globaltimer();
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = (unsigned long long)(t1 - t0);
}

/* Smallest non-zero step of %globaltimer seen in `reads` back-to-back
 * reads by one thread, and the mean step: out[0] = smallest, out[1] = sum
 * of steps, out[2] = number of steps. */
__global__ void se_k_timer_resolution(unsigned long long *out, int reads)
{
    if (threadIdx.x != 0)
        return;
    uint64_t prev = se_globaltimer(), smallest = ~0ull, sum = 0, steps = 0;
    for (int i = 0; i < reads; i++) {
        uint64_t t = se_globaltimer();
        if (t != prev) {
            uint64_t d = t - prev;
            smallest = d < smallest ? d : smallest;
            sum += d;
            steps++;
            prev = t;
        }
    }
    out[0] = smallest;
    out[1] = sum;
    out[2] = steps;
}

/* Holds the stream until the host sets *release (mapped host memory), so
 * that everything enqueued behind it is queued on the GPU before the first
 * timed event runs: device time then excludes host submission latency (as
 * nvbench's blocking kernel does). Gives up after timeout_ns and reports it
 * in *timed_out. */
__global__ void se_k_block_until(const volatile int *release, int *timed_out,
                                 unsigned long long timeout_ns)
{
    if (threadIdx.x != 0)
        return;
    uint64_t t0 = se_globaltimer();
    while (*release == 0) {
        if (se_globaltimer() - t0 > timeout_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(256);
    }
}

extern "C" se_status se_gpu_block_until_enqueue(const int *release, int *timed_out,
                                                unsigned long long timeout_ns,
                                                cudaStream_t stream, se_err *err)
{
    se_k_block_until<<<1, 32, 0, stream>>>(release, timed_out, timeout_ns);
    SE_CUDA_LAUNCHED("se_k_block_until");
    return SE_OK;
}

/* Marks the start of a case in a profile: its grid size is the case's number. */
__global__ void se_k_profile_marker(void)
{
}

extern "C" se_status se_gpu_profile_marker_enqueue(int case_no, cudaStream_t stream, se_err *err)
{
    se_k_profile_marker<<<case_no, 32, 0, stream>>>();
    SE_CUDA_LAUNCHED("se_k_profile_marker");
    return SE_OK;
}

extern "C" se_status se_gpu_empty_enqueue(int blocks, cudaStream_t stream, se_err *err)
{
    se_k_empty<<<blocks, SE_TILE_THREADS, 0, stream>>>();
    SE_CUDA_LAUNCHED("se_k_empty");
    return SE_OK;
}

extern "C" se_status se_gpu_coop_noop_enqueue(int blocks, cudaStream_t stream, se_err *err)
{
    cudaError_t e = cudaLaunchCooperativeKernel((const void *)se_k_coop_noop, dim3(blocks),
                                                dim3(SE_TILE_THREADS), NULL, 0, stream);
    if (e != cudaSuccess)
        return se_fail(err, SE_ERR_CUDA, "cooperative launch of se_k_coop_noop (%d blocks): %s",
                       blocks, cudaGetErrorString(e));
    return SE_OK;
}

extern "C" se_status se_gpu_barriers_enqueue(int blocks, int n, cudaStream_t stream, se_err *err)
{
    void *args[] = {&n};
    cudaError_t e = cudaLaunchCooperativeKernel((const void *)se_k_barriers, dim3(blocks),
                                                dim3(SE_TILE_THREADS), args, 0, stream);
    if (e != cudaSuccess)
        return se_fail(err, SE_ERR_CUDA, "cooperative launch of se_k_barriers (%d blocks): %s",
                       blocks, cudaGetErrorString(e));
    return SE_OK;
}

extern "C" se_status se_gpu_clock_probe_enqueue(unsigned long long *out, long long cycles,
                                                cudaStream_t stream, se_err *err)
{
    se_k_clock_probe<<<1, 32, 0, stream>>>(out, cycles);
    SE_CUDA_LAUNCHED("se_k_clock_probe");
    return SE_OK;
}

extern "C" se_status se_gpu_timer_resolution_enqueue(unsigned long long *out, int reads,
                                                     cudaStream_t stream, se_err *err)
{
    se_k_timer_resolution<<<1, 32, 0, stream>>>(out, reads);
    SE_CUDA_LAUNCHED("se_k_timer_resolution");
    return SE_OK;
}

/* Defined in the other kernel files. */
__global__ void se_k_phase_a(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_b(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_c(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_d(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_phase_e(const __grid_constant__ se_gpu_problem p);
__global__ void se_k_rowblock(const float *x, float *y, int64_t cols, double eps,
                              se_trace_buf trace);
__global__ void se_k_rowblock_reg(const float *x, float *y, int cols, double eps, int vec4,
                                  se_trace_buf trace);
__global__ void se_k_rowblock_cluster(const float *x, float *y, int64_t cols, int chunk,
                                      double eps, int vec4, se_trace_buf trace);
__global__ void se_k_rowblock_stream(const float *x, float *y, int64_t rows, int cols,
                                     double eps, se_trace_buf trace);
__global__ void se_k_rowblock_reg8(const float *x, float *y, int cols, double eps, int vec4,
                                   se_trace_buf trace);
__global__ void se_k_rowblock_reg16(const float *x, float *y, int cols, double eps, int vec4,
                                    se_trace_buf trace);
__global__ void se_k_rowblock_thread(const float *x, float *y, int64_t rows, int cols,
                                     double eps, se_trace_buf trace);
__global__ void se_k_rowblock_grid(const float *x, float *y, int64_t cols, int parts, int chunk,
                                   int smem4, double eps, se_rb_scratch sc, se_trace_buf trace);
__global__ void se_k_prescale(const float *x, float *xs, int64_t cols, double eps);
__global__ void se_k_outliers(float *x, int64_t rows, int64_t cols, uint64_t seed, float scale);

extern "C" size_t se_gpu_kernel_table(const se_kernel_entry **table)
{
    static se_kernel_entry entries[24];
    static size_t n = 0;
    if (n == 0) {
        se_kernel_entry e[] = {
            {"se_k_phase_a", (const void *)se_k_phase_a, SE_TILE_THREADS, "stream, graph"},
            {"se_k_phase_b", (const void *)se_k_phase_b, SE_TILE_THREADS, "stream, graph"},
            {"se_k_phase_c", (const void *)se_k_phase_c, SE_TILE_THREADS, "stream, graph"},
            {"se_k_phase_d", (const void *)se_k_phase_d, SE_TILE_THREADS, "stream, graph"},
            {"se_k_phase_e", (const void *)se_k_phase_e, SE_TILE_THREADS, "stream, graph"},
            {"se_k_fusion", se_fusion_kernel(), SE_TILE_THREADS, "fusion, fusion-graph"},
            {"se_k_megakernel", se_megakernel_kernel(), SE_TILE_THREADS,
             "megakernel, megakernel-graph"},
            {"se_k_megakernel_init", se_megakernel_init_kernel(), SE_TILE_THREADS,
             "control: the megakernel's queue initialization alone"},
            {"se_k_rowblock", (const void *)se_k_rowblock, 1024,
             "rowblock, rows neither the grid nor a cluster takes (three passes)"},
            {"se_k_rowblock_grid", (const void *)se_k_rowblock_grid, 1024,
             "rowblock, 16-byte rows over 32768 columns with two or more co-resident CTAs per "
             "row (cooperative grid: registers, up to the opt-in shared memory, the rest from "
             "L2)"},
            {"se_k_rowblock_cluster", (const void *)se_k_rowblock_cluster, 1024,
             "rowblock, other rows of 32769 to 1048576 columns (a cluster of up to 16 CTAs per "
             "row, registers and up to 128 KiB of shared memory each)"},
            {"se_k_rowblock_reg8", (const void *)se_k_rowblock_reg8, 1024,
             "rowblock, fewer rows than twice the SMs, 9 to 8192 columns"},
            {"se_k_rowblock_reg16", (const void *)se_k_rowblock_reg16, 1024,
             "rowblock, fewer rows than twice the SMs, 8193 to 16384 columns"},
            {"se_k_rowblock_reg", (const void *)se_k_rowblock_reg, 1024,
             "rowblock, many rows, or rows up to 32768 columns"},
            {"se_k_rowblock_stream", (const void *)se_k_rowblock_stream, 1024,
             "rowblock, at least twice as many rows as SMs, 16385 to 32768 columns "
             "(persistent, next row staged in shared memory)"},
            {"se_k_rowblock_thread", (const void *)se_k_rowblock_thread, 256,
             "rowblock, rows of at most 8 columns (one thread per row)"},
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
        n = sizeof e / sizeof e[0];
        for (size_t i = 0; i < n; i++)
            entries[i] = e[i];
    }
    *table = entries;
    return n;
}
