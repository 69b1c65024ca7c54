/*
 * controls.cu - the timing harness's own kernels: the launch and barrier
 * controls (an empty kernel, a cooperative no-op, a kernel of N grid
 * barriers), the SM clock probe, the %globaltimer resolution probe, the
 * kernel that holds a stream until the timed region is queued, and the
 * marker a profile's cases start with. (The copy control is a
 * cudaMemcpyAsync, run/timing.c.)
 */
#include <cooperative_groups.h>

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
