/*
 * device.h - choosing and describing the CUDA device, and the checks that
 * must pass before any kernel runs (device present, memory, grid limits).
 */
#ifndef SE_DEVICE_H
#define SE_DEVICE_H

#include <stdint.h>

#include "model/se_common.h"
#include "model/strategy.h"

typedef struct se_device_info {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int coop_launch;        /* cooperative launch supported */
    uint64_t global_bytes;
    uint64_t free_bytes;    /* free when the run started */
    /* Per strategy with a cooperative group (model/strategy.h): the
     * co-residency limit of the group's kernel, queried once per group;
     * 0 for the other strategies. */
    int coop_max_blocks[SE_NSTRATEGIES];
    int driver_version, runtime_version;
} se_device_info;

/* Selects device `ordinal` and fills info. SE_ERR_NO_DEVICE when there is no
 * CUDA device (or no driver), naming what the runtime said; SE_ERR_LIMIT
 * when the device cannot run these kernels (compute capability, no
 * cooperative launch). Queries each cooperative group's limit. */
se_status se_device_open(int ordinal, se_device_info *info, se_err *err);

/* Replaces the cooperative limits with those of operation op's kernels
 * (se_op_id; nothing changes for the softmax, whose kernels
 * se_device_open queried): LayerNorm's fusion and megakernel kernels have
 * their own occupancy. */
se_status se_device_use_operation(se_device_info *info, int op, se_err *err);

#endif
