/*
 * probe_common.cuh - what the benchmarks in bench/ (rows_probe.cu,
 * launch_probe.cu) share: a CUDA call checked with the program's name, the
 * input they fill, the --samples option, a median and the largest relative
 * difference from a reference output. Each includes it once; PROBE_PROG
 * names the program in messages.
 */
#ifndef SE_BENCH_PROBE_COMMON_CUH
#define SE_BENCH_PROBE_COMMON_CUH

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PROBE_PROG
#error "define PROBE_PROG, the program's name in messages, before including probe_common.cuh"
#endif

#define CK(call)                                                                            \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, PROBE_PROG ": %s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                    cudaGetErrorString(e_));                                                \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

/* x: a hash of the index, uniform in [-16, 16), with every 4099th element
 * 60 (a spread like the run's normal(0, 16) with outliers). */
__global__ void probe_fill(float *x, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ (uint32_t)(i >> 32) * 40503u;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = i % 4099 == 0 ? 60.0f : ((float)(h >> 8) * 0x1p-24f * 32.0f - 16.0f);
    }
}

/* "--samples N" as the first two arguments (N from 3 to max): sets
 * *samples and *first (the index of the first shape); prints the usage and
 * returns 2 when the arguments are wrong or no shape follows, else 0. */
static int probe_parse_samples(int argc, char **argv, int max, int *samples, int *first)
{
    *first = 1;
    if (argc > 2 && strcmp(argv[1], "--samples") == 0) {
        char *end;
        long n = strtol(argv[2], &end, 10);
        if (*end || n < 3 || n > max) {
            fprintf(stderr, PROBE_PROG ": --samples: expected 3..%d, got '%s'\n", max, argv[2]);
            return 2;
        }
        *samples = (int)n;
        *first = 3;
    }
    if (*first >= argc) {
        fprintf(stderr, "usage: " PROBE_PROG " [--samples N] RxC [RxC ...]\n");
        return 2;
    }
    return 0;
}

static int probe_cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of t[0..n) (sorts t). */
static double probe_median(double *t, int n)
{
    qsort(t, n, sizeof(double), probe_cmp_d);
    return t[n / 2];
}

/* The largest |y - ref| / |ref| over n values; NaN (an element not
 * written) wins. */
static double probe_max_rel(const float *y, const float *ref, int64_t n)
{
    double m = 0;
    for (int64_t k = 0; k < n; k++) {
        double d = fabs((double)y[k] - ref[k]) / (fabs((double)ref[k]) + 1e-30);
        if (!(d <= m))
            m = d;
    }
    return m;
}

/* maxrel as the probes print it: "-" where there is none (< 0). */
static const char *probe_rel_text(double maxrel, char *buf, size_t size)
{
    if (maxrel < 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.2e", maxrel);
    return buf;
}

#endif
