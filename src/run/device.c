/*
 * device.c - device selection and description (see device.h).
 */
#include "run/device.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu/kernels.h"
#include "gpu/se_cuda.h"

se_status se_device_open(int ordinal, se_device_info *info, se_err *err)
{
    memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return se_fail(err, SE_ERR_NO_DEVICE,
                       "no CUDA device found (cudaGetDeviceCount: %s, %d devices); a GPU run "
                       "needs an NVIDIA GPU and its driver",
                       e == cudaSuccess ? "no error" : cudaGetErrorString(e), count);
    if (ordinal >= count)
        return se_fail(err, SE_ERR_USAGE, "--device: %d is out of range; this machine has %d "
                       "CUDA device%s (0 to %d)", ordinal, count, count == 1 ? "" : "s",
                       count - 1);
    SE_CUDA_TRY(cudaSetDevice(ordinal));
    struct cudaDeviceProp prop;
    SE_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal));
    info->ordinal = ordinal;
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->sm_count = prop.multiProcessorCount;
    info->coop_launch = prop.cooperativeLaunch;
    SE_CUDA_TRY(cudaDriverGetVersion(&info->driver_version));
    SE_CUDA_TRY(cudaRuntimeGetVersion(&info->runtime_version));
    size_t free_b = 0, total_b = 0;
    SE_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    info->global_bytes = total_b;
    info->free_bytes = free_b;
    if (!info->coop_launch)
        return se_fail(err, SE_ERR_LIMIT,
                       "device %d (%s) does not support cooperative launches, which fusion and "
                       "megakernel need", ordinal, info->name);
    /* The occupancy query also proves the kernels were built for this GPU. */
    cudaGetLastError();
    se_status st = se_gpu_coop_max_blocks(SE_COOP_FUSION, &info->fusion_max_blocks, err);
    if (st == SE_OK)
        st = se_gpu_coop_max_blocks(SE_COOP_MEGAKERNEL, &info->mega_max_blocks, err);
    if (st != SE_OK) {
        char why[sizeof err->msg];
        strcpy(why, err->msg);
        return se_fail(err, SE_ERR_LIMIT,
                       "device %d (%s, compute capability %d.%d) cannot run this build's kernels "
                       "(%s); rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d%d",
                       ordinal, info->name, prop.major, prop.minor, why, prop.major, prop.minor);
    }
    return SE_OK;
}
