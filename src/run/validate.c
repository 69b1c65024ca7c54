/*
 * validate.c - the validation run (see validate.h).
 */
#include "run/validate.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "gpu/kernels.h"
#include "model/operation.h"
#include "gpu/se_cuda.h"
#include "model/taskgraph.h"
#include "run/cudnn_ref.h"
#include "run/inputs.h"
#include "run/instance.h"
#include "run/strategies.h"

void se_sha256_hex(const unsigned char digest[32], char hex[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static se_status sha256(const void *data, size_t n, unsigned char out[32], se_err *err)
{
    unsigned int len = 0;
    if (!EVP_Digest(data, n, out, &len, EVP_sha256(), NULL) || len != 32)
        return se_fail(err, SE_ERR_IO, "SHA-256 of %zu bytes failed (OpenSSL EVP_Digest)", n);
    return SE_OK;
}

static uint64_t host_phys_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : UINT64_MAX;
}

/* The cooperative grid for a case: the user's --blocks, or every block that
 * can be co-resident, capped by the most that have work in any phase. The
 * limit is that of the strategy's own cooperative group (0 for a strategy
 * that has none: it gets no grid). */
int se_coop_blocks(const se_protocol *p, const se_run_config *o, const se_device_info *d,
                   se_strategy s, const se_shape *shape)
{
    if (o->blocks > 0)
        return (int)o->blocks;
    int limit = (unsigned)s < SE_NSTRATEGIES ? d->coop_max_blocks[s] : 0;
    se_taskgeom g = se_taskgeom_make(shape->rows, shape->cols, p->tile);
    int64_t useful = g.tile_tasks;
    /* row tasks: a warp each, a block each where packed (fusion.cu) */
    int64_t row_blocks = g.group > 1 ? g.groups
                                     : (g.groups + SE_TILE_THREADS / 32 - 1) / (SE_TILE_THREADS / 32);
    if (row_blocks > useful)
        useful = row_blocks;
    return useful < limit ? (int)useful : limit;
}

/* Every check that needs no kernel: limits, device, memory, grid. */
se_status se_validate_preflight(const se_protocol *p, const se_run_config *o, se_device_info *dev, se_err *err)
{
    for (size_t i = 0; i < p->n_shapes; i++) {
        se_status st = se_case_check(&p->shapes[i], p->tile, err);
        if (st != SE_OK)
            return st;
    }
    se_status st = se_device_open(o->device, dev, err);
    if (st == SE_OK)
        st = se_device_use_operation(dev, se_protocol_operation(p)->id, err);
    if (st != SE_OK)
        return st;
    /* Each cooperative group of the selected strategies, in table order. */
    for (int s = 0; s < SE_NSTRATEGIES && o->blocks > 0; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        if (!((p->strategies >> s) & 1u) || !info->cooperative ||
            o->blocks <= dev->coop_max_blocks[s])
            continue;
        char kernel[64];
        se_coop_group_kernel(info->coop_group, kernel, sizeof kernel);
        return se_fail(err, SE_ERR_LIMIT,
                       "--blocks %" PRId64 " is too large for a cooperative launch of the %s: "
                       "at most %d blocks can be co-resident on %s (%d SMs)",
                       o->blocks, kernel, dev->coop_max_blocks[s], dev->name, dev->sm_count);
    }
    for (size_t i = 0; i < p->n_shapes; i++) {
        uint64_t need = se_case_device_bytes(&p->shapes[i], p->tile);
        if (need > dev->free_bytes)
            return se_fail(err, SE_ERR_LIMIT,
                           "shape %s needs %" PRIu64 " bytes of device memory; %s has %" PRIu64
                           " bytes free", p->shapes[i].spec, need, dev->name, dev->free_bytes);
    }
    uint64_t phys = host_phys_bytes();
    for (size_t i = 0; i < p->n_shapes; i++) {
        uint64_t need = se_case_host_bytes(&p->shapes[i]);
        if (need > phys)
            return se_fail(err, SE_ERR_LIMIT,
                           "shape %s needs %" PRIu64 " bytes of host memory for validation; this "
                           "machine has %" PRIu64, p->shapes[i].spec, need, phys);
    }
    return SE_OK;
}

static void host_bufs_free(se_case_host *h)
{
    free(h->x);
    free(h->out);
    free(h->first);
    free(h->cudnn);
    free(h->ref);
    memset(h, 0, sizeof *h);
}

static se_status host_bufs_alloc(se_case_host *h, size_t n, se_err *err)
{
    memset(h, 0, sizeof *h);
    h->x = malloc(n * sizeof(float));
    h->out = malloc(n * sizeof(float));
    h->first = malloc(n * sizeof(float));
    h->cudnn = malloc(n * sizeof(float));
    h->ref = malloc(n * sizeof(double));
    if (!h->x || !h->out || !h->first || !h->cudnn || !h->ref) {
        host_bufs_free(h);
        return se_fail(err, SE_ERR_NOMEM, "host buffers for %zu elements: out of memory", n);
    }
    return SE_OK;
}

/* Poisons y with NaN (all bits set), runs one invocation, copies y back. */
static se_status invoke(se_instance *in, cudaStream_t stream, float *out, se_err *err)
{
    se_case *c = in->inv.c;
    size_t bytes = (size_t)(c->shape.rows * c->shape.cols) * sizeof(float);
    SE_CUDA_TRY(cudaMemsetAsync(c->y, 0xff, bytes, stream));
    se_status st = se_instance_enqueue(in, stream, err);
    if (st != SE_OK)
        return st;
    SE_CUDA_TRY(cudaStreamSynchronize(stream));
    SE_CUDA_TRY(cudaMemcpy(out, c->y, bytes, cudaMemcpyDeviceToHost));
    return SE_OK;
}

/* Keeps the worse of two comparisons (more failures, then larger error),
 * adding their failure counts. */
static void worst_of(se_compare *acc, const se_compare *cur, int first)
{
    if (first) {
        *acc = *cur;
        return;
    }
    int64_t fails = acc->n_fail + cur->n_fail, nans = acc->n_nan + cur->n_nan;
    if (cur->n_fail > acc->n_fail ||
        (cur->n_fail == acc->n_fail && cur->max_rel_err > acc->max_rel_err))
        *acc = *cur;
    acc->n_fail = fails;
    acc->n_nan = nans;
}

static se_status validate_one(const se_protocol *p, const se_run_config *o, const se_device_info *dev, se_case *c,
                              se_strategy s, se_cudnn *cudnn, cudaStream_t stream, se_case_host *h,
                              const unsigned char *tiled_sha, se_validation *v, se_err *err)
{
    size_t n = (size_t)(c->shape.rows * c->shape.cols);
    se_tolerance tol = p->tol;
    se_instance in;
    int blocks = se_coop_blocks(p, o, dev, s, &c->shape);
    se_status st = se_instance_prepare(&in, s, c, blocks, cudnn, stream, err);
    if (st != SE_OK)
        return st;
    v->blocks = in.inv.blocks;
    v->graph_nodes = in.graph_nodes;
    v->invocations = p->invocations;
    v->repeat_identical = 1;
    for (int k = 0; k < p->invocations && st == SE_OK; k++) {
        st = invoke(&in, stream, k == 0 ? h->first : h->out, err);
        if (st != SE_OK)
            break;
        const float *got = k == 0 ? h->first : h->out;
        se_compare cmp;
        se_compare_f32_f64(got, h->ref, (int64_t)n, tol, &cmp);
        worst_of(&v->vs_ref, &cmp, k == 0);
        if (k == 0)
            st = sha256(h->first, n * sizeof(float), v->sha256, err);
        else if (memcmp(h->first, h->out, n * sizeof(float)) != 0)
            v->repeat_identical = 0;
    }
    se_instance_destroy(&in);
    if (st != SE_OK)
        return st;
    if (se_protocol_operation(p)->has_cudnn) {
        se_compare_f32_f32(h->first, h->cudnn, (int64_t)n, tol, &v->vs_cudnn);
    } else {
        /* nothing to agree with: NaN, written as null (validation.json) */
        memset(&v->vs_cudnn, 0, sizeof v->vs_cudnn);
        v->vs_cudnn.max_abs_err = v->vs_cudnn.max_rel_err = NAN;
    }
    v->matches_tiled = se_strategy_get(s)->tiled
                           ? (tiled_sha ? memcmp(tiled_sha, v->sha256, 32) == 0 : 1)
                           : -1;
    v->pass = se_compare_passed(&v->vs_ref) && v->repeat_identical && v->matches_tiled != 0;
    return SE_OK;
}

void se_validation_print_header(FILE *out)
{
    fprintf(out, "%-12s %-17s %6s %5s %11s %11s %6s %8s %12s %6s %6s %-12s %s\n", "shape",
            "strategy", "blocks", "nodes", "max_abs_err", "max_rel_err", "fails", "tiny",
            "vs_cudnn_rel", "repeat", "=tiled", "sha256", "result");
}

static void print_row(FILE *out, const se_validation *v)
{
    char hex[65];
    se_sha256_hex(v->sha256, hex);
    hex[12] = '\0';
    fprintf(out, "%-12s %-17s %6d %5zu %11.3e %11.3e %6" PRId64 " %8" PRId64
            " %12.3e %6s %6s %-12s %s\n",
            v->shape.spec, se_strategy_get(v->strategy)->name, v->blocks, v->graph_nodes,
            v->vs_ref.max_abs_err, v->vs_ref.max_rel_err, v->vs_ref.n_fail, v->vs_ref.n_tiny,
            v->vs_cudnn.max_rel_err, v->repeat_identical ? "same" : "DIFF",
            v->matches_tiled < 0 ? "-" : v->matches_tiled ? "yes" : "NO", hex,
            v->pass ? "PASS" : "FAIL");
    for (int i = 0; i < v->vs_ref.n_mismatches; i++) {
        const se_mismatch *m = &v->vs_ref.mismatches[i];
        fprintf(out, "    mismatch at row %" PRId64 " col %" PRId64 ": got %.9g, reference %.9g\n",
                m->index / v->shape.cols, m->index % v->shape.cols, m->out, m->ref);
    }
    fflush(out);
}

se_status se_case_prepare(const se_protocol *p, const se_shape *shape, se_cudnn *cudnn,
                          cudaStream_t stream, se_case *c, se_case_host *h, se_err *err)
{
    size_t n = (size_t)(shape->rows * shape->cols);
    const se_operation *op = se_protocol_operation(p);
    se_status st = se_case_alloc(c, shape, p->tile, p->eps, op, err);
    if (st != SE_OK)
        return st;
    st = host_bufs_alloc(h, n, err);
    if (st != SE_OK) {
        se_case_free(c);
        return st;
    }
    st = se_inputs_generate(c->x, shape->rows, shape->cols, p->seed, p->scale, stream, err);
    if (st == SE_OK && op->prescaled_input)
        st = se_gpu_prescale_enqueue(c->x, c->xs, shape->rows, shape->cols, p->eps, stream, err);
    if (st == SE_OK) {
        cudaError_t e = cudaStreamSynchronize(stream);
        if (e == cudaSuccess)
            e = cudaMemcpy(h->x, c->x, n * sizeof(float), cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            st = se_fail(err, SE_ERR_CUDA, "shape %s: generating the input failed: %s",
                         shape->spec, cudaGetErrorString(e));
    }
    if (st == SE_OK)
        st = sha256(h->x, n * sizeof(float), h->input_sha256, err);
    if (st == SE_OK && !op->has_cudnn) {
        /* No cuDNN reference for this operation (LayerNorm: cuDNN's legacy
         * API has none): no agreement column (validate_one). */
        op->reference(h->x, shape->rows, shape->cols, p->eps, h->ref);
    } else if (st == SE_OK) {
        op->reference(h->x, shape->rows, shape->cols, p->eps, h->ref);
        /* cuDNN's output is needed for the agreement column of every row. */
        se_instance in;
        st = se_instance_prepare(&in, SE_S_CUDNN, c, 0, cudnn, stream, err);
        if (st == SE_OK) {
            st = invoke(&in, stream, h->cudnn, err);
            se_instance_destroy(&in);
        }
    }
    if (st != SE_OK)
        se_case_release(c, h);
    return st;
}

void se_case_release(se_case *c, se_case_host *h)
{
    host_bufs_free(h);
    se_case_free(c);
}

se_status se_validate_strategies(const se_protocol *p, const se_run_config *o,
                                 const se_device_info *dev, se_case *c, se_case_host *h,
                                 size_t shape_index, se_cudnn *cudnn, cudaStream_t stream,
                                 FILE *out, se_validation *results, size_t *n_results,
                                 se_case_output_fn on_output, void *ctx, se_err *err)
{
    const se_shape *shape = &c->shape;
    const unsigned char *tiled_sha = NULL;
    se_status st = SE_OK;
    for (int s = 0; s < SE_NSTRATEGIES && st == SE_OK; s++) {
        if (!(p->strategies & (1u << s)))
            continue;
        if (!o->quiet)
            fprintf(stderr, "[%zu/%zu] %" PRId64 "x%" PRId64 ": validating %s\n", shape_index + 1,
                    p->n_shapes, shape->rows, shape->cols, se_strategy_get((se_strategy)s)->name);
        se_validation *v = &results[*n_results];
        memset(v, 0, sizeof *v);
        v->strategy = (se_strategy)s;
        v->shape = *shape;
        v->tile = p->tile;
        memcpy(v->input_sha256, h->input_sha256, 32);
        st = validate_one(p, o, dev, c, (se_strategy)s, cudnn, stream, h, tiled_sha, v, err);
        if (st != SE_OK)
            break;
        if (se_strategy_get((se_strategy)s)->tiled && !tiled_sha)
            tiled_sha = v->sha256;
        (*n_results)++;
        if (out)
            print_row(out, v);
        if (on_output)
            st = on_output(ctx, v, h->first, err);
    }
    return st;
}

/* "528 blocks (fusion) / 792 (megakernel)": each cooperative group's
 * limit, in table order. */
static void coop_limits_text(const se_device_info *d, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        if (se_coop_group_first((se_strategy)s) != (se_strategy)s)
            continue;
        int k = snprintf(buf + len, size - len, "%s%d%s (%s)", len ? " / " : "",
                         d->coop_max_blocks[s], len ? "" : " blocks",
                         se_strategy_get((se_strategy)s)->coop_group);
        if (k < 0 || (size_t)k >= size - len)
            break;
        len += (size_t)k;
    }
    if (!len)
        snprintf(buf, size, "none");
}

se_status se_validate_run(const se_protocol *p, const se_run_config *o, FILE *out,
                          se_validation_run *run, se_err *err)
{
    memset(run, 0, sizeof *run);
    se_status st = se_validate_preflight(p, o, &run->device, err);
    if (st != SE_OK)
        return st;
    run->results = calloc(p->n_shapes * SE_NSTRATEGIES, sizeof *run->results);
    if (!run->results)
        return se_fail(err, SE_ERR_NOMEM, "validation results: out of memory");
    cudaStream_t stream = NULL;
    se_cudnn *cudnn = NULL;
    SE_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    st = se_cudnn_create(&cudnn, stream, err);
    if (st == SE_OK) {
        const se_device_info *d = &run->device;
        char limits[256];
        coop_limits_text(d, limits, sizeof limits);
        fprintf(out, "device %d: %s, compute capability %d.%d, %d SMs, cooperative limit %s; "
                "cuDNN %ld\n", d->ordinal, d->name, d->cc_major, d->cc_minor, d->sm_count,
                limits, se_cudnn_version());
        fprintf(out, "tile %" PRId64 ", seed %" PRIu64 ", scale %g, eps %g, tolerance |out-ref| "
                "<= %g + %g*|ref|, %d invocations each\n", p->tile, p->seed, p->scale, p->eps,
                p->tol.atol, p->tol.rtol, p->invocations);
        se_validation_print_header(out);
    }
    for (size_t i = 0; i < p->n_shapes && st == SE_OK; i++) {
        se_case c;
        se_case_host h;
        st = se_case_prepare(p, &p->shapes[i], cudnn, stream, &c, &h, err);
        if (st != SE_OK)
            break;
        st = se_validate_strategies(p, o, &run->device, &c, &h, i, cudnn, stream, out,
                                    run->results, &run->n_results, NULL, NULL, err);
        se_case_release(&c, &h);
    }
    se_cudnn_destroy(cudnn);
    cudaStreamDestroy(stream);
    if (st != SE_OK)
        return st;
    for (size_t i = 0; i < run->n_results; i++)
        run->n_failed += !run->results[i].pass;
    fprintf(out, "validation: %zu of %zu (strategy, shape) cases passed\n",
            run->n_results - run->n_failed, run->n_results);
    if (run->n_failed)
        return se_fail(err, SE_ERR_VALIDATION, "%zu of %zu (strategy, shape) cases failed "
                       "validation", run->n_failed, run->n_results);
    return SE_OK;
}

void se_validation_run_free(se_validation_run *run)
{
    free(run->results);
    run->results = NULL;
    run->n_results = 0;
}
