/*
 * inputs_host_device.c [SHAPES...] - the input the run generates on the GPU
 * (run/inputs.c: cuRAND's device generator, then se_k_outliers) is, within
 * SE_CHECK_INPUT_TOL of the scale, what bundle/rederive.h regenerates on the
 * host (cuRAND's host generator, same type, seed, scale and offsets, then
 * the outliers; the two differ in the last bits, measured on the H200), both
 * for the whole array at once and row by row from each row's offset (every
 * row of the rederive plan, and the rows of a whole small shape). This is
 * what lets verify re-derive a case's correctness on a CPU. Exits 77 (a
 * CTest skip) without a CUDA device. Default shapes: those of the default
 * protocol, odd element counts and a 1 GB input among them.
 */
#include <cuda_runtime.h>
#include <curand.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/rederive.h"
#include "model/outliers.h"
#include "model/workload.h"
#include "run/inputs.h"

static int check_shape(int64_t rows, int64_t cols, uint64_t seed, double scale)
{
    size_t n = (size_t)(rows * cols), n_even = n + (n & 1);
    float *d = NULL, *dev = malloc(n_even * sizeof *dev), *host = malloc(n_even * sizeof *host);
    float *row = malloc(((size_t)cols + 1) * sizeof *row);
    se_err err;
    if (!dev || !host || !row || cudaMalloc((void **)&d, n_even * sizeof *d) != cudaSuccess) {
        fprintf(stderr, "%" PRId64 "x%" PRId64 ": out of memory\n", rows, cols);
        return 1;
    }
    if (se_inputs_generate(d, rows, cols, seed, scale, 0, &err) != SE_OK ||
        cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(dev, d, n * sizeof *dev, cudaMemcpyDeviceToHost) != cudaSuccess) {
        fprintf(stderr, "%" PRId64 "x%" PRId64 ": device generation failed: %s\n", rows, cols,
                err.msg);
        return 1;
    }
    cudaFree(d);
    int bad = 0;
    curandGenerator_t g;
    if (curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS ||
        curandSetPseudoRandomGeneratorSeed(g, seed) != CURAND_STATUS_SUCCESS ||
        curandGenerateNormal(g, host, n_even, 0.0f, (float)scale) != CURAND_STATUS_SUCCESS) {
        fprintf(stderr, "cuRAND host generator failed\n");
        return 1;
    }
    curandDestroyGenerator(g);
    for (int64_t r = 0; r < rows; r++)
        for (int k = 0; k < SE_OUTLIERS; k++)
            host[r * cols + se_outlier_col(seed, r, k, cols)] =
                (float)scale * se_outlier_factor(r, k);
    /* cuRAND's host generator is not the device's to the bit: count the
     * values that differ and the largest difference, as a fraction of the
     * scale, which must stay within SE_CHECK_INPUT_TOL (rederive.h). */
    size_t differ = 0;
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double dd = fabs((double)dev[i] - (double)host[i]) / scale;
        differ += dev[i] != host[i];
        worst = dd > worst ? dd : worst;
    }
    printf("%s %" PRId64 "x%" PRId64 ": %zu of %zu values differ from the host generator's, "
           "the largest by %.3g of the scale (allowed %g)\n",
           worst <= SE_CHECK_INPUT_TOL ? "ok" : "FAIL", rows, cols, differ, n, worst,
           SE_CHECK_INPUT_TOL);
    bad = !(worst <= SE_CHECK_INPUT_TOL);
    se_check_plan plan;
    if (se_check_plan_make(rows, cols, seed, &plan, &err) != SE_OK)
        return 1;
    size_t checked = 0;
    for (int64_t r = 0; r < rows && !bad; r++) {
        int in_plan = 0;
        for (size_t i = 0; i < plan.n_rows; i++)
            in_plan |= plan.row[i] == r;
        if (!in_plan && rows * cols > (1 << 22))
            continue; /* large shapes: the plan's rows only */
        if (se_check_generate_row(seed, scale, r, cols, row, &err) != SE_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        checked++;
        for (int64_t c = 0; c < cols && !bad; c++)
            if (!(fabs((double)row[c] - (double)dev[r * cols + c]) / scale <= SE_CHECK_INPUT_TOL)) {
                printf("FAIL %" PRId64 "x%" PRId64 ": row %" PRId64 " regenerated from offset %"
                       PRId64 " differs from the device's at column %" PRId64 "\n", rows, cols,
                       r, r * cols, c);
                bad = 1;
            }
    }
    if (!bad)
        printf("ok %" PRId64 "x%" PRId64 ": %zu rows regenerated from their offsets, within "
               "the tolerance of the device's\n", rows, cols, checked);
    se_check_plan_free(&plan);
    free(dev);
    free(host);
    free(row);
    return bad;
}

int main(int argc, char **argv)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    static const char *const defaults[] = {"1x1", "1x7", "3x4097", "5x4097", "32x4096",
                                           "2x100003", "8x1048573", "4x4194301", "4096x4096",
                                           "256x1048576"};
    int n = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof defaults[0]), fails = 0;
    for (int i = 0; i < n; i++) {
        const char *spec = argc > 1 ? argv[i + 1] : defaults[i];
        int64_t rows = 0, cols = 0;
        if (sscanf(spec, "%" SCNd64 "x%" SCNd64, &rows, &cols) != 2 || rows < 1 || cols < 1) {
            fprintf(stderr, "inputs_host_device: '%s' is not RxC\n", spec);
            return 2;
        }
        fails += check_shape(rows, cols, 20261130, 16.0);
        if (i == 0)
            fails += check_shape(rows + 2, cols + 4096, 7, 1e30); /* another seed and scale */
    }
    printf("%s: %d shape%s differ\n", fails ? "FAIL" : "ok", fails, fails == 1 ? "" : "s");
    return fails ? 1 : 0;
}
