/*
 * rows_probe.cu - a benchmark of rowblock's short-row kernels
 * (src/gpu/rowblock_rows.cu, included whole so that its file-local kernels
 * can be launched one by one) against the same process's device-to-device
 * copy of the same bytes and cuDNN's softmax, on shapes given on the
 * command line. It prints, per shape and kernel, the median device time of
 * one launch (CUDA events, L2 warm: the same x every launch), its fraction
 * of the copy's median, cuDNN's median over it, and the largest relative
 * difference from rowblock's dispatched kernel over the first 64 MiB of
 * the output (a check that a candidate
 * computes the same function, not a validation: the run validates against
 * float64). Candidates run interleaved, round by round, in a rotating
 * order. Ratios printed are measured in this one process.
 *
 *   rows_probe [--samples N] RxC [RxC ...]
 *
 * Built by CMake as the optional target se_rows_probe (bench/CMakeLists
 * section of CMakeLists.txt). docs/PERFORMANCE.md quotes its output with
 * the card it ran on.
 */
#include "../src/gpu/rowblock_rows.cu"

#include <cudnn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_PROG "rows_probe"
#include "probe_common.cuh"

#define CKDNN(call)                                                                         \
    do {                                                                                    \
        cudnnStatus_t s_ = (call);                                                          \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                                   \
            fprintf(stderr, "rows_probe: %s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                    cudnnGetErrorString(s_));                                               \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

/* The vector kernel (rowblock_rows.cu's se_rb_vec_body) in other shapes of
 * its grid: G lanes a row, P float4 a lane, R rows a group, streaming (CS
 * 1) or plain stores. */
#define PROBE_VEC(name, G, P, R, CS)                                                        \
    __global__ void __launch_bounds__(256) name(const float *x, float *y, int64_t rows,     \
                                                int cols, double eps)                       \
    {                                                                                       \
        se_trace_buf none = {NULL, NULL, 0};                                                \
        se_rb_vec_body(x, y, rows, cols, eps, none, G, P, R, CS);                           \
    }
PROBE_VEC(pv_g2p4r1, 2, 4, 1, 1)
PROBE_VEC(pv_g2p4r2, 2, 4, 2, 1)
PROBE_VEC(pv_g4p4r1, 4, 4, 1, 1)
PROBE_VEC(pv_g4p4r2, 4, 4, 2, 1)
PROBE_VEC(pv_g8p4r1, 8, 4, 1, 1)
PROBE_VEC(pv_g8p4r2, 8, 4, 2, 1)
PROBE_VEC(pv_g16p4r1, 16, 4, 1, 1)
PROBE_VEC(pv_g16p4r2, 16, 4, 2, 1)
PROBE_VEC(pv_g32p4r2, 32, 4, 2, 1)
PROBE_VEC(pv_g8p1r4, 8, 1, 4, 1)
PROBE_VEC(pv_g16p1r4, 16, 1, 4, 1)
PROBE_VEC(pv_g32p1r4, 32, 1, 4, 1)
PROBE_VEC(pv_g32p2r2, 32, 2, 2, 1)
PROBE_VEC(pv_g32p1r4_st, 32, 1, 4, 0)
PROBE_VEC(pv_g8p4r1_st, 8, 4, 1, 0)
PROBE_VEC(pv_g16p4r1_st, 16, 4, 1, 0)

typedef void (*probe_vec_fn)(const float *, float *, int64_t, int, double);
static const struct {
    const char *name;
    probe_vec_fn fn;
    int g, p, r;
} probe_vecs[] = {
    {"vec g2p4r1", pv_g2p4r1, 2, 4, 1},     {"vec g2p4r2", pv_g2p4r2, 2, 4, 2},
    {"vec g4p4r1", pv_g4p4r1, 4, 4, 1},     {"vec g4p4r2", pv_g4p4r2, 4, 4, 2},
    {"vec g8p4r1", pv_g8p4r1, 8, 4, 1},     {"vec g8p4r2", pv_g8p4r2, 8, 4, 2},
    {"vec g16p4r1", pv_g16p4r1, 16, 4, 1},  {"vec g16p4r2", pv_g16p4r2, 16, 4, 2},
    {"vec g32p4r2", pv_g32p4r2, 32, 4, 2},  {"vec g8p1r4", pv_g8p1r4, 8, 1, 4},
    {"vec g16p1r4", pv_g16p1r4, 16, 1, 4},  {"vec g32p1r4", pv_g32p1r4, 32, 1, 4},
    {"vec g32p2r2", pv_g32p2r2, 32, 2, 2},  {"vec g32p1r4 st", pv_g32p1r4_st, 32, 1, 4},
    {"vec g8p4r1 st", pv_g8p4r1_st, 8, 4, 1}, {"vec g16p4r1 st", pv_g16p4r1_st, 16, 4, 1},
};

enum { K_COPY, K_CUDNN, K_ROWBLOCK, K_LANE, K_SPAN, K_VEC };
typedef struct {
    char name[40];
    int kind, vec;
    double *t;
    double med, maxrel;
} cand;

static void launch(const cand *c, const float *x, float *y, int64_t rows, int cols,
                   cudnnHandle_t dnn, cudnnTensorDescriptor_t desc)
{
    se_err err;
    se_trace_buf tr = {NULL, NULL, 0};
    switch (c->kind) {
    case K_COPY:
        CK(cudaMemcpyAsync(y, x, (size_t)rows * cols * sizeof(float), cudaMemcpyDeviceToDevice, 0));
        break;
    case K_CUDNN: {
        const float one = 1.0f, zero = 0.0f;
        CKDNN(cudnnSoftmaxForward(dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
                                  desc, x, &zero, desc, y));
        break;
    }
    case K_ROWBLOCK:
        if (se_rb_rows_launch(x, y, rows, cols, 1e-6, tr, 0, &err) != SE_OK) {
            fprintf(stderr, "rows_probe: rowblock: %s\n", err.msg);
            exit(1);
        }
        break;
    case K_LANE:
        if (rb_lane_launch(x, y, rows, cols, 1e-6, tr, 0, &err) != SE_OK) {
            fprintf(stderr, "rows_probe: lane: %s\n", err.msg);
            exit(1);
        }
        break;
    case K_SPAN: { /* the staged group kernels, launched directly */
        int g;
        const char *name;
        se_rb_span_fn fn = rb_span_pick(cols, 0, &g, &name);
        int R = se_rb_span_rows(cols);
        int64_t blocks = ((rows + R - 1) / R + SE_RB_SPAN_WARPS - 1) / SE_RB_SPAN_WARPS;
        fn<<<(unsigned)blocks, SE_RB_SPAN_THREADS>>>(x, y, rows, cols, 1e-6, 1, tr);
        CK(cudaGetLastError());
        break;
    }
    default: {
        int g = probe_vecs[c->vec].g, r = probe_vecs[c->vec].r;
        int64_t rows_per_block = (int64_t)r * (32 / g) * 8;
        int64_t blocks = (rows + rows_per_block - 1) / rows_per_block;
        probe_vecs[c->vec].fn<<<(unsigned)blocks, 256>>>(x, y, rows, cols, 1e-6);
        CK(cudaGetLastError());
    }
    }
}

int main(int argc, char **argv)
{
    int samples = 30, first;
    if (probe_parse_samples(argc, argv, 10000, &samples, &first))
        return 2;
    int64_t maxn = 0;
    for (int a = first; a < argc; a++) {
        long long r, c;
        char tail;
        if (sscanf(argv[a], "%lldx%lld%c", &r, &c, &tail) != 2 || r < 1 || c < 1 ||
            c > SE_RB_ROWS_MAX_COLS || r * c > (1LL << 31)) {
            fprintf(stderr, "rows_probe: shape '%s': expected RxC, 1 <= C <= %d, R C <= 2^31\n",
                    argv[a], SE_RB_ROWS_MAX_COLS);
            return 2;
        }
        if (r * c > maxn)
            maxn = r * c;
    }
    float *x, *y, *yref;
    CK(cudaMalloc(&x, maxn * sizeof(float)));
    CK(cudaMalloc(&y, maxn * sizeof(float)));
    CK(cudaMalloc(&yref, maxn * sizeof(float)));
    probe_fill<<<1024, 256>>>(x, maxn);
    CK(cudaGetLastError());
    float *hy = (float *)malloc(maxn * sizeof(float)), *hr = (float *)malloc(maxn * sizeof(float));
    cudnnHandle_t dnn;
    cudnnTensorDescriptor_t desc;
    CKDNN(cudnnCreate(&dnn));
    CKDNN(cudnnCreateTensorDescriptor(&desc));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("rows_probe: %s, %d SMs, %d samples a kernel, L2 warm\n", prop.name,
           prop.multiProcessorCount, samples);
    printf("%-14s %-16s %10s %8s %10s %10s\n", "shape", "kernel", "median us", "of copy",
           "cudnn/it", "max rel");
    for (int a = first; a < argc; a++) {
        long long rl, cl;
        sscanf(argv[a], "%lldx%lld", &rl, &cl);
        int64_t rows = rl;
        int cols = (int)cl;
        size_t bytes = (size_t)rows * cols * sizeof(float);
        CKDNN(cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, (int)rows,
                                         cols, 1, 1));
        cand c[32];
        int nc = 0;
        const int kinds[] = {K_COPY, K_CUDNN, K_ROWBLOCK};
        const char *names[] = {"copy", "cudnn", "rowblock"};
        for (int k = 0; k < 3; k++) {
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc].kind = kinds[k];
            snprintf(c[nc].name, sizeof c[nc].name, "%s", names[k]);
            nc++;
        }
        if (cols <= SE_RB_LANE_MAX_COLS) {
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc].kind = K_LANE;
            snprintf(c[nc].name, sizeof c[nc].name, "lane");
            nc++;
        }
        if (cols % 4 != 0) {
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc].kind = K_SPAN;
            snprintf(c[nc].name, sizeof c[nc].name, "span");
            nc++;
        }
        if (cols % 4 == 0)
            for (size_t v = 0; v < sizeof probe_vecs / sizeof probe_vecs[0]; v++) {
                int n4 = cols / 4, cap = probe_vecs[v].g * probe_vecs[v].p;
                if (cap < n4 || cap >= 2 * n4 * (probe_vecs[v].p > 1 ? 1 : 2))
                    continue; /* does not fit, or half its lanes idle */
                memset(&c[nc], 0, sizeof c[nc]);
                c[nc].kind = K_VEC;
                c[nc].vec = (int)v;
                snprintf(c[nc].name, sizeof c[nc].name, "%s", probe_vecs[v].name);
                nc++;
            }
        /* the reference output: rowblock's dispatched kernel */
        launch(&c[2], x, yref, rows, cols, dnn, desc);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hr, yref, bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20),
                      cudaMemcpyDeviceToHost));
        for (int i = 0; i < nc; i++) {
            c[i].t = (double *)malloc(samples * sizeof(double));
            if (c[i].kind == K_COPY || c[i].kind == K_CUDNN) {
                c[i].maxrel = -1;
                continue;
            }
            CK(cudaMemset(y, 0xff, bytes)); /* NaN: an element not written shows */
            launch(&c[i], x, y, rows, cols, dnn, desc);
            CK(cudaDeviceSynchronize());
            size_t check = bytes < ((size_t)64 << 20) ? bytes : ((size_t)64 << 20);
            CK(cudaMemcpy(hy, y, check, cudaMemcpyDeviceToHost));
            c[i].maxrel = probe_max_rel(hy, hr, (int64_t)(check / sizeof(float)));
        }
        for (int w = 0; w < 3; w++)
            for (int i = 0; i < nc; i++)
                launch(&c[i], x, y, rows, cols, dnn, desc);
        for (int s = 0; s < samples; s++)
            for (int k = 0; k < nc; k++) {
                int i = (k + s) % nc;
                CK(cudaEventRecord(e0, 0));
                launch(&c[i], x, y, rows, cols, dnn, desc);
                CK(cudaEventRecord(e1, 0));
                CK(cudaEventSynchronize(e1));
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                c[i].t[s] = ms * 1e3;
            }
        for (int i = 0; i < nc; i++)
            c[i].med = probe_median(c[i].t, samples);
        for (int i = 0; i < nc; i++) {
            char rel[24];
            probe_rel_text(c[i].maxrel, rel, sizeof rel);
            printf("%-14s %-16s %10.2f %8.3f %10.3f %10s\n", argv[a], c[i].name, c[i].med,
                   c[0].med / c[i].med, c[1].med / c[i].med, rel);
            free(c[i].t);
        }
        fflush(stdout);
    }
    return 0;
}
