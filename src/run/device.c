/*
 * device.c - device selection and description (see device.h).
 */
#include "run/device.h"

#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gpu/kernels.h"
#include "gpu/se_cuda.h"
#include "run/strategies.h"

/* Each cooperative group's limit, queried once (for the group's first
 * strategy) and shared by the group's other strategies. */
static se_status coop_limits(se_device_info *info, se_err *err)
{
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        se_strategy first = se_coop_group_first((se_strategy)s);
        if (first == SE_NSTRATEGIES)
            continue;
        if (first != (se_strategy)s) {
            info->coop_max_blocks[s] = info->coop_max_blocks[first];
            continue;
        }
        const se_strategy_gpu *gpu = se_strategy_gpu_get((se_strategy)s);
        if (!gpu->coop_max_blocks)
            return se_fail(err, SE_ERR_USAGE, "strategy %s has cooperative group %s but no "
                           "co-residency query in run/strategies.c",
                           se_strategy_get((se_strategy)s)->name,
                           se_strategy_get((se_strategy)s)->coop_group);
        se_status st = gpu->coop_max_blocks(SE_GPU_OP_RMS_SOFTMAX, &info->coop_max_blocks[s],
                                            err);
        if (st != SE_OK)
            return st;
    }
    return SE_OK;
}

se_status se_device_use_operation(se_device_info *info, int op, se_err *err)
{
    if (op == SE_GPU_OP_RMS_SOFTMAX)
        return SE_OK; /* se_device_open's limits are the softmax's kernels' */
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        se_strategy first = se_coop_group_first((se_strategy)s);
        if (first == SE_NSTRATEGIES)
            continue;
        if (first != (se_strategy)s) {
            info->coop_max_blocks[s] = info->coop_max_blocks[first];
            continue;
        }
        se_status st = se_coop_max_blocks_op((se_strategy)s, op, &info->coop_max_blocks[s], err);
        if (st != SE_OK)
            return st;
    }
    return SE_OK;
}

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
                       "device %d (%s) does not support cooperative launches, which the "
                       "cooperative strategies need", ordinal, info->name);
    /* The occupancy query also proves the kernels were built for this GPU. */
    cudaGetLastError();
    se_status st = coop_limits(info, err);
    if (st == SE_ERR_USAGE)
        return st;
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
