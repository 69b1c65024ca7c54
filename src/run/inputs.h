/*
 * inputs.h - the input matrix: cuRAND normal values times a scale, with
 * outliers planted in every row, all from a recorded seed.
 */
#ifndef SE_INPUTS_H
#define SE_INPUTS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "model/se_common.h"

/* Fills x (rows * cols floats, allocated with room for one more) on stream:
 * cuRAND Philox4_32_10 seeded with seed, normal(0, scale), then the outliers
 * of se_gpu_outliers_enqueue. Same seed, same bytes. */
se_status se_inputs_generate(float *x, int64_t rows, int64_t cols, uint64_t seed, double scale,
                             cudaStream_t stream, se_err *err);

#endif
