// Read, write and copy bandwidth of one 1024-thread CTA per SM on k SMs (H200), to test
// whether half the SMs can stream as fast as all of them (docs/PERFORMANCE.md, version 10).
// Build: nvcc -O3 -arch=sm_90 -o sm_bw sm_bw.cu
#include <algorithm>
#include <cstdio>
#include <vector>
#define UNROLL 8
__global__ void __launch_bounds__(1024, 1) rd(const float4 *x, size_t n4, float *sink)
{
    extern __shared__ float pad[]; // one CTA an SM
    float acc = 0.0f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = blockIdx.x * (size_t)blockDim.x + threadIdx.x; base < n4; base += stride * UNROLL) {
        float4 a[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t i = base + k * stride;
            a[k] = i < n4 ? __ldcs(x + i) : make_float4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) acc += a[k].x + a[k].y + a[k].z + a[k].w;
    }
    if (acc == 12345.0f) sink[threadIdx.x] = acc + pad[0];
}
__global__ void __launch_bounds__(1024, 1) wr(float4 *y, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += stride)
        __stcs(y + i, make_float4(1, 2, 3, 4));
}
__global__ void __launch_bounds__(1024, 1) cp(const float4 *x, float4 *y, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = blockIdx.x * (size_t)blockDim.x + threadIdx.x; base < n4; base += stride * UNROLL) {
        float4 a[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t i = base + k * stride;
            a[k] = i < n4 ? __ldcs(x + i) : make_float4(0, 0, 0, 0);
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            size_t i = base + k * stride;
            if (i < n4) __stcs(y + i, a[k]);
        }
    }
}
int main()
{
    const size_t bytes = 64ull << 20, n4 = bytes / 16;
    float4 *x, *y; float *sink;
    cudaMalloc(&x, bytes); cudaMalloc(&y, bytes); cudaMalloc(&sink, 4096);
    cudaMemset(x, 0, bytes);
    int smem = 120 << 10, sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (auto f : {(const void *)rd, (const void *)wr, (const void *)cp})
        cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    void *l2flush; size_t l2b = 256ull << 20; cudaMalloc(&l2flush, l2b);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    printf("64 MiB per kernel, one 1024-thread CTA per SM (120 KiB of shared memory each), L2 flushed before each; median of 15, GB/s of bytes moved (read, written, or both)\n");
    printf("ctas   read_us  read_GBs  write_us write_GBs  copy_us  copy_GBs\n");
    for (int k : {sms, 99, 66, 44, 33, 16}) {
        double med[3];
        for (int which = 0; which < 3; which++) {
            std::vector<float> t;
            for (int r = 0; r < 16; r++) {
                cudaMemset(l2flush, r, l2b);
                cudaEventRecord(a);
                if (which == 0) rd<<<k, 1024, smem>>>(x, n4, sink);
                else if (which == 1) wr<<<k, 1024, smem>>>(y, n4);
                else cp<<<k, 1024, smem>>>(x, y, n4);
                cudaEventRecord(b); cudaEventSynchronize(b);
                float ms; cudaEventElapsedTime(&ms, a, b);
                if (r) t.push_back(ms * 1000.0f);
            }
            std::sort(t.begin(), t.end());
            med[which] = t[t.size() / 2];
        }
        printf("%4d %9.2f %9.0f %9.2f %9.0f %9.2f %9.0f\n", k, med[0], bytes / med[0] / 1e3,
               med[1], bytes / med[1] / 1e3, med[2], 2.0 * bytes / med[2] / 1e3);
    }
    cudaError_t e = cudaGetLastError();
    printf("cuda: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
