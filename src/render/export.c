/*
 * export.c - a run as nvbench's or Google Benchmark's JSON (see export.h
 * and docs/EXPORT.md). Every number comes from the verified run: the
 * summaries from summary.json, the per-sample values from the samples
 * files; nothing is re-estimated here.
 *
 * nvbench's layout (its json_printer, format version 1.0.0): a root with
 * "meta", "devices" and "benchmarks"; a benchmark has "axes" and "states";
 * a state has tagged "summaries" whose "data" values are strings, and
 * binary sidecar files (float32, one per state) named by a
 * "nv/json/bin:nv/cold/sample_times" summary relative to the JSON file.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/export.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle/fsutil.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "bundle/samples.h"
#include "bundle/verify.h"
#include "bundle/views.h"

#ifndef SE_VERSION
#define SE_VERSION "unknown"
#endif

/* s, or fallback where the run has no such field. */
static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* A summary {tag, name, hint, description, data: [{name: value, type, value}]};
 * *data is its data array (owned by the summary), for nv_data. */
static json_t *nv_summary(const char *tag, const char *name, const char *hint, const char *desc,
                          json_t **data)
{
    *data = json_array();
    return json_pack("{s:s, s:s, s:s, s:s, s:o}", "tag", tag, "name", name, "hint", hint,
                     "description", desc, "data", *data);
}

static void nv_data(json_t *data, const char *name, const char *type, const char *value)
{
    json_array_append_new(data,
                          json_pack("{s:s, s:s, s:s}", "name", name, "type", type, "value", value));
}

static void nv_f64(json_t *summaries, const char *tag, const char *name, const char *hint,
                   const char *desc, double v)
{
    char text[40];
    snprintf(text, sizeof text, "%.17g", v);
    json_t *data, *s = nv_summary(tag, name, hint, desc, &data);
    nv_data(data, "value", "float64", text);
    json_array_append_new(summaries, s);
}

static void nv_i64(json_t *summaries, const char *tag, const char *name, const char *hint,
                   const char *desc, long long v)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", v);
    json_t *data, *s = nv_summary(tag, name, hint, desc, &data);
    nv_data(data, "value", "int64", text);
    json_array_append_new(summaries, s);
}

/* Writes n float32 values (little-endian, as nvbench's sidecar files). */
static se_status write_f32(const char *path, const float *v, size_t n, se_err *err)
{
    FILE *f;
    se_status st = se_fcreate_new(path, path, &f, err); /* in the sidecar's own new folder */
    if (st != SE_OK)
        return st;
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        uint32_t u;
        memcpy(&u, &v[i], sizeof u);
        unsigned char b[4] = {(unsigned char)u, (unsigned char)(u >> 8), (unsigned char)(u >> 16),
                              (unsigned char)(u >> 24)};
        ok = fwrite(b, 1, 4, f) == 4;
    }
    ok = fclose(f) == 0 && ok;
    return ok ? SE_OK : se_fail(err, SE_ERR_IO, "export: %s cannot be written", path);
}

/* The exported entries of a run: summary.json's cases (strategies, copy,
 * megakernel_init, per shape), named by the run's own RxC. */
typedef struct xcase {
    const se_case_view *c;
    char shape[SE_CASE_ID_SIZE];
    char id[SE_CASE_ID_SIZE];
    const char *what;
} xcase;

static se_status list_cases(const se_rundata *rd, xcase **out, size_t *n, se_err *err)
{
    const se_run_views *views = se_rundata_views(rd);
    xcase *v = calloc(views->n_cases + 1, sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "export: out of memory");
    for (size_t i = 0; i < views->n_cases; i++) {
        const se_case_view *c = &views->cases[i];
        v[i].c = c;
        v[i].what = or_else(c->what, "?");
        se_shape_id(c->rows, c->cols, v[i].shape, sizeof v[i].shape);
        se_case_id_make(c->rows, c->cols, v[i].what, v[i].id, sizeof v[i].id);
    }
    *out = v;
    *n = views->n_cases;
    return SE_OK;
}

static se_status load_scopes(const se_rundata *rd, const xcase *c, se_sample_set *sets,
                             se_err *err)
{
    const char *rel = c->c->samples_file;
    if (!rel)
        return se_fail(err, SE_ERR_VALIDATION, "export: %s: case %s has no samples_file",
                       SE_SUMMARY_JSON, c->id);
    return se_rundata_samples(rd, rel, sets, SE_NSCOPES, err);
}

/* The timing summaries of one scope under tag prefix pfx ("nv/cold" or
 * "se/warm"): sample size, GPU time statistics, bandwidth and the mean SM
 * clock. what: how the scope's samples were taken, for the descriptions. */
static void nv_scope_times(json_t *s, const char *pfx, const char *label, const se_scope_view *d,
                           const se_sample_set *set, const char *what)
{
    const double sec = 1e-9;
    double median = d->median_ns, mean = d->mean_ns;
    double q1 = d->p25_ns, q3 = d->p75_ns;
    char tag[96], name[96], desc[320];
#define NV_TAG(suffix, nm, ds)                                                                \
    (snprintf(tag, sizeof tag, "%s/%s", pfx, suffix),                                         \
     snprintf(name, sizeof name, "%s%s", nm, label),                                          \
     snprintf(desc, sizeof desc, "%s (%s)", ds, what))
    NV_TAG("sample_size", "Samples", "Number of isolated executions");
    nv_i64(s, tag, name, "sample_size", desc, d->n);
    NV_TAG("time/gpu/mean", "GPU Time", "Mean device time of one instance");
    nv_f64(s, tag, name, "duration", desc, mean * sec);
    NV_TAG("time/gpu/min", "Min GPU Time", "Shortest device time");
    nv_f64(s, tag, name, "duration", desc, d->min_ns * sec);
    NV_TAG("time/gpu/max", "Max GPU Time", "Longest device time");
    nv_f64(s, tag, name, "duration", desc, d->max_ns * sec);
    NV_TAG("time/gpu/stdev/absolute", "Stdev", "Standard deviation of the device times");
    nv_f64(s, tag, name, "duration", desc, d->stdev_ns * sec);
    NV_TAG("time/gpu/stdev/relative", "Noise", "Relative standard deviation of the device times");
    nv_f64(s, tag, name, "percentage", desc, mean > 0 ? d->stdev_ns / mean : 0);
    NV_TAG("time/gpu/q1", "Q1 GPU Time", "25th percentile of the device times (type 7)");
    nv_f64(s, tag, name, "duration", desc, q1 * sec);
    NV_TAG("time/gpu/median", "Median GPU Time", "Median device time");
    nv_f64(s, tag, name, "duration", desc, median * sec);
    NV_TAG("time/gpu/q3", "Q3 GPU Time", "75th percentile of the device times (type 7)");
    nv_f64(s, tag, name, "duration", desc, q3 * sec);
    NV_TAG("time/gpu/iqr/absolute", "IQR", "Interquartile range of the device times");
    nv_f64(s, tag, name, "duration", desc, (q3 - q1) * sec);
    NV_TAG("time/gpu/iqr/relative", "IQR Noise", "Interquartile range over the median");
    nv_f64(s, tag, name, "percentage", desc, median > 0 ? (q3 - q1) / median : 0);
    if (d->has_gbps) {
        NV_TAG("bw/global/bytes_per_second", "GlobalMem BW",
               "Bytes read and written (8 per element) over the median device time");
        nv_f64(s, tag, name, "byte_rate", desc, d->gbps * 1e9);
    }
    double clock = 0.0;
    for (size_t i = 0; i < set->n; i++)
        clock += set->v[i].sm_mhz;
    if (set->n) {
        NV_TAG("sm_clock_rate/mean", "Clock Rate", "Mean SM clock read before each sample, Hz");
        nv_f64(s, tag, name, "frequency", desc, clock / (double)set->n * 1e6);
    }
#undef NV_TAG
}

/* The nvbench summaries of one case. sets: its samples; bin and freqs: the
 * sidecar files' names relative to the JSON file. nvbench's cold
 * measurement flushes L2 before each sample, so nv/cold/... is our
 * device_cold scope (L2 flushed) and the sample files hold its samples; the
 * L2-warm device scope, which nvbench has no single-instance measurement
 * for, goes under se/warm/..., and the batch scope (back to back, L2 warm) is
 * nvbench's batch measurement. */
static json_t *nv_state_summaries(const xcase *c, const se_sample_set *sets, const char *bin,
                                  const char *freqs)
{
    const se_scope_view *d = &c->c->scope[SE_SCOPE_DEVICE];
    const se_scope_view *fl = &c->c->scope[SE_SCOPE_DEVICE_COLD];
    const se_scope_view *b = &c->c->scope[SE_SCOPE_BATCH];
    const se_scope_view *h = &c->c->scope[SE_SCOPE_HOST];
    const se_sample_set *cold = &sets[SE_SCOPE_DEVICE_COLD];
    json_t *s = json_array();
    const double sec = 1e-9;
    nv_scope_times(s, "nv/cold", "", fl,
                   cold, "softmax-evidence device_cold scope: CUDA events around one instance, "
                   "L2 flushed before each, as nvbench's cold measurement");
    json_t *data;
    json_t *file = nv_summary("nv/json/bin:nv/cold/sample_times", "Samples Times File",
                              "file/sample_times", "Binary file containing the L2-flushed sample "
                              "times as little-endian float32 (seconds)", &data);
    char n[32];
    snprintf(n, sizeof n, "%zu", cold->n);
    nv_data(data, "filename", "string", bin);
    nv_data(data, "size", "int64", n);
    json_array_append_new(s, file);
    json_t *ff = nv_summary("nv/json/freqs-bin:nv/cold/sample_freqs", "Samples Frequencies File",
                            "file/sample_freqs", "Binary file containing the SM clock of each "
                            "L2-flushed sample as little-endian float32 (Hz)", &data);
    nv_data(data, "filename", "string", freqs);
    nv_data(data, "size", "int64", n);
    json_array_append_new(s, ff);
    nv_i64(s, "nv/batch/sample_size", "Samples", "sample_size",
           "Number of batch samples (events around a batch of back-to-back instances, L2 warm)",
           b->n);
    nv_f64(s, "nv/batch/time/gpu/mean", "Batch GPU", "duration",
           "Mean time per instance in a batch of back-to-back instances (L2 warm)",
           b->mean_ns * sec);
    /* Ours, beside nvbench's: the L2-warm single instance (the scope of the
     * answer), its intervals and ratio to stream, and the host scope. */
    nv_scope_times(s, "se/warm", ", L2 warm", d, &sets[SE_SCOPE_DEVICE],
                   "softmax-evidence device scope: CUDA events around one instance, L2 warm "
                   "(not flushed), the scope of the answer");
    nv_f64(s, "se/warm/time/gpu/median/ci95/lower", "Median 95% lo, L2 warm", "duration",
           "softmax-evidence: lower bound of the bootstrap 95% interval of the median device "
           "time, L2 warm", d->ci95_ns[0] * sec);
    nv_f64(s, "se/warm/time/gpu/median/ci95/upper", "Median 95% hi, L2 warm", "duration",
           "softmax-evidence: upper bound of the bootstrap 95% interval of the median device "
           "time, L2 warm", d->ci95_ns[1] * sec);
    if (d->has_ratio) {
        nv_f64(s, "se/warm/time_ratio_to_stream", "vs stream, L2 warm", "ratio",
               "softmax-evidence: median device time over stream's, same shape, L2 warm",
               d->ratio);
        nv_f64(s, "se/warm/time_ratio_to_stream/ci95/lower", "vs stream 95% lo", "ratio",
               "softmax-evidence: lower bound of the ratio's bootstrap 95% interval",
               d->ratio_ci95[0]);
        nv_f64(s, "se/warm/time_ratio_to_stream/ci95/upper", "vs stream 95% hi", "ratio",
               "softmax-evidence: upper bound of the ratio's bootstrap 95% interval",
               d->ratio_ci95[1]);
    }
    nv_f64(s, "se/host/time/cpu/mean", "CPU Time", "duration",
           "softmax-evidence host scope: mean host-observed latency, first launch call to "
           "stream synchronize (L2 warm)", h->mean_ns * sec);
    nv_f64(s, "se/host/time/cpu/stdev/relative", "CPU Noise", "percentage",
           "Relative standard deviation of the host-observed latencies",
           h->mean_ns > 0 ? h->stdev_ns / h->mean_ns : 0);
    return s;
}

static json_t *nv_device(const se_rundata *rd)
{
    const se_env_view *g = &se_rundata_views(rd)->env;
    const char *cc = or_else(g->compute_capability, "0.0");
    int major = 0, minor = 0;
    if (sscanf(cc, "%d.%d", &major, &minor) != 2)
        major = minor = 0;
    return json_pack("{s:i, s:s, s:i, s:i, s:I, s:i, s:I, s:I, s:I, s:I, s:b}", "id", 0, "name",
                     or_else(g->gpu_name, "?"), "sm_version", major * 100 + minor * 10,
                     "ptx_version", major * 100 + minor * 10, "sm_default_clock_rate",
                     (json_int_t)(g->peak_sm_clock_mhz * 1e6), "number_of_sms", (int)g->sm_count,
                     "global_memory_size", (json_int_t)g->global_memory_bytes,
                     "global_memory_bus_peak_clock_rate",
                     (json_int_t)(g->peak_memory_clock_mhz * 1e6), "global_memory_bus_width",
                     (json_int_t)g->memory_bus_bits, "l2_cache_size", (json_int_t)g->l2_bytes,
                     "ecc_state", 0);
}

/* One nvbench benchmark being built: its strategy and the arrays its
 * shapes and states go into (owned by the benchmark's JSON). */
typedef struct nv_bench {
    const char *name;
    json_t *values, *states;
} nv_bench;

/* Builds the nvbench document and fills the two sidecar folders bin_dir
 * and freqs_dir (temporary ones) whose final names, relative to the JSON
 * file, are bin_name and freqs_name. */
static se_status nvbench_doc(const se_rundata *rd, const char *bin_dir, const char *bin_name,
                             const char *freqs_dir, const char *freqs_name, json_t **out,
                             se_err *err)
{
    xcase *cs = NULL;
    size_t n = 0;
    se_status st = list_cases(rd, &cs, &n, err);
    if (st != SE_OK)
        return st;
    json_t *benches = json_array();
    nv_bench *bs = calloc(n + 1, sizeof *bs);
    if (!bs)
        st = se_fail(err, SE_ERR_NOMEM, "export: out of memory");
    size_t n_bs = 0;
    for (size_t i = 0; i < n && st == SE_OK; i++) {
        /* One benchmark per strategy (or copy, megakernel_init), its shapes the axis. */
        nv_bench *bench = NULL;
        for (size_t k = 0; k < n_bs; k++)
            if (strcmp(bs[k].name, cs[i].what) == 0)
                bench = &bs[k];
        if (!bench) {
            bench = &bs[n_bs++];
            bench->name = cs[i].what;
            bench->values = json_array();
            bench->states = json_array();
            json_array_append_new(
                benches, json_pack("{s:s, s:I, s:i, s:f, s:f, s:f, s:f, s:[i], s:[{s:s, s:s, "
                                   "s:s, s:o}], s:o}", "name", cs[i].what,
                                   "index", (json_int_t)json_array_size(benches), "min_samples",
                                   0, "min_time", -1.0, "max_noise", -1.0, "skip_time", -1.0,
                                   "timeout", -1.0, "devices", 0, "axes", "name", "Shape", "type",
                                   "string", "flags", "", "values", bench->values, "states",
                                   bench->states));
        }
        json_array_append_new(bench->values,
                              json_pack("{s:s, s:s, s:s}", "input_string", cs[i].shape,
                                        "description", "rows x columns", "value", cs[i].shape));
        se_sample_set sets[SE_NSCOPES] = {{0}};
        st = load_scopes(rd, &cs[i], sets, err);
        float *t = NULL, *f = NULL;
        const se_sample_set *cold = &sets[SE_SCOPE_DEVICE_COLD];
        if (st == SE_OK) {
            t = malloc((cold->n + 1) * sizeof *t);
            f = malloc((cold->n + 1) * sizeof *f);
            if (!t || !f)
                st = se_fail(err, SE_ERR_NOMEM, "export: out of memory");
        }
        char file[64], path[4700], bin[4400], freqs[4400];
        snprintf(file, sizeof file, "%zu.bin", i);
        if (st == SE_OK) {
            for (size_t j = 0; j < cold->n; j++) {
                t[j] = (float)(cold->v[j].ns * 1e-9);
                f[j] = (float)(cold->v[j].sm_mhz * 1e6);
            }
            snprintf(path, sizeof path, "%s/%s", bin_dir, file);
            st = write_f32(path, t, cold->n, err);
        }
        if (st == SE_OK) {
            snprintf(path, sizeof path, "%s/%s", freqs_dir, file);
            st = write_f32(path, f, cold->n, err);
        }
        if (st == SE_OK) {
            snprintf(bin, sizeof bin, "%s/%s", bin_name, file);
            snprintf(freqs, sizeof freqs, "%s/%s", freqs_name, file);
            char name[SE_CASE_ID_SIZE + 32];
            snprintf(name, sizeof name, "Device=0 Shape=%s", cs[i].shape);
            json_array_append_new(
                bench->states,
                json_pack("{s:s, s:i, s:i, s:[{s:s, s:s, s:s}], s:o, s:b}", "name", name,
                          "device", 0, "type_config_index", 0, "axis_values", "name", "Shape",
                          "type", "string", "value", cs[i].shape, "summaries",
                          nv_state_summaries(&cs[i], sets, bin, freqs), "is_skipped", 0));
        }
        free(t);
        free(f);
        for (int s = 0; s < SE_NSCOPES; s++)
            se_sample_set_free(&sets[s]);
    }
    free(cs);
    free(bs);
    if (st != SE_OK) {
        json_decref(benches);
        return st;
    }
    const se_env_view *env = &se_rundata_views(rd)->env;
    char version[96];
    snprintf(version, sizeof version, "softmax-evidence %s", SE_VERSION);
    *out = json_pack(
        "{s:{s:[s, s], s:{s:{s:i, s:i, s:i, s:s}, s:{s:s, s:s, s:s, s:b}}, s:s}, s:[o], s:o}",
        "meta", "argv", "softmax-evidence export", rd->dir, "version", "json", "major", 1,
        "minor", 0, "patch", 0, "string", "1.0.0", "nvbench", "string", version, "git_sha",
        or_else(env->git_commit, ""), "git_version", rd->run_id, "git_is_dirty",
        env->git_dirty, "softmax_evidence_run", rd->run_id,
        "devices", nv_device(rd), "benchmarks", benches);
    return *out ? SE_OK : se_fail(err, SE_ERR_NOMEM, "export: out of memory");
}

/* Google Benchmark: per case one "iteration" entry per device-scope sample
 * (repetitions), then its median, mean and stddev aggregates, in ns:
 * compare.py prints times as whole numbers of time_unit, so microseconds
 * printed a 16.13 us median as "16". */
static se_status gbench_doc(const se_rundata *rd, json_t **out, se_err *err)
{
    xcase *cs = NULL;
    size_t n = 0;
    se_status st = list_cases(rd, &cs, &n, err);
    if (st != SE_OK)
        return st;
    json_t *benches = json_array();
    for (size_t i = 0; i < n && st == SE_OK; i++) {
        se_sample_set sets[SE_NSCOPES] = {{0}};
        st = load_scopes(rd, &cs[i], sets, err);
        size_t reps = sets[0].n;
        for (size_t j = 0; st == SE_OK && j < reps; j++) {
            double ns = sets[0].v[j].ns;
            json_array_append_new(benches, json_pack(
                "{s:s, s:I, s:i, s:s, s:s, s:I, s:I, s:i, s:i, s:f, s:f, s:s}", "name", cs[i].id,
                "family_index", (json_int_t)i, "per_family_instance_index", 0, "run_name",
                cs[i].id, "run_type", "iteration", "repetitions", (json_int_t)reps,
                "repetition_index", (json_int_t)j, "threads", 1, "iterations", 1, "real_time", ns,
                "cpu_time", ns, "time_unit", "ns"));
        }
        const se_scope_view *d = &cs[i].c->scope[SE_SCOPE_DEVICE];
        static const char *const aggs[3] = {"median", "mean", "stddev"};
        const double agg_ns[3] = {d->median_ns, d->mean_ns, d->stdev_ns};
        for (int a = 0; st == SE_OK && a < 3; a++) {
            char name[SE_CASE_ID_SIZE + 16];
            snprintf(name, sizeof name, "%s_%s", cs[i].id, aggs[a]);
            double ns = agg_ns[a];
            json_array_append_new(benches, json_pack(
                "{s:s, s:I, s:i, s:s, s:s, s:I, s:i, s:s, s:s, s:I, s:f, s:f, s:s}", "name", name,
                "family_index", (json_int_t)i, "per_family_instance_index", 0, "run_name",
                cs[i].id, "run_type", "aggregate", "repetitions", (json_int_t)reps, "threads", 1,
                "aggregate_name", aggs[a], "aggregate_unit", "time", "iterations",
                (json_int_t)reps, "real_time", ns, "cpu_time", ns, "time_unit", "ns"));
        }
        for (int s = 0; s < SE_NSCOPES; s++)
            se_sample_set_free(&sets[s]);
    }
    free(cs);
    if (st != SE_OK) {
        json_decref(benches);
        return st;
    }
    const se_run_views *v = se_rundata_views(rd);
    *out = json_pack("{s:{s:s, s:s, s:s, s:i, s:f, s:b, s:[], s:[], s:s, s:s, s:s, s:s, s:s}, "
                     "s:o}", "context", "date", or_else(v->run.started_utc, ""),
                     "host_name", or_else(v->env.hostname, ""),
                     "executable", "softmax-evidence", "num_cpus", 0, "mhz_per_cpu", 0.0,
                     "cpu_scaling_enabled", 0, "caches", "load_avg", "library_build_type",
                     "release", "softmax_evidence_run", rd->run_id, "gpu",
                     or_else(v->env.gpu_name, "?"), "time",
                     "real_time and cpu_time are both the device time of one instance (CUDA "
                     "events, L2 warm), one repetition per sample", "git_commit",
                     or_else(v->env.git_commit, ""),
                     "benchmarks", benches);
    return *out ? SE_OK : se_fail(err, SE_ERR_NOMEM, "export: out of memory");
}

/* Writes doc to path through a temporary file beside it, renamed over it
 * (only over a regular file). */
static se_status write_json(const json_t *doc, const char *path, se_err *err)
{
    return se_write_json_replace(path, doc, "export: -o", err);
}

/* An existing sidecar folder is replaced only if it holds nothing but the
 * <k>.bin files an export writes: never a folder of someone else's. */
static se_status check_sidecar(const char *path, se_err *err)
{
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT ? SE_OK
                               : se_fail(err, SE_ERR_IO, "export: %s exists and is not a folder "
                                         "this command can replace", path);
    se_status st = SE_OK;
    struct dirent *e;
    while (st == SE_OK && (e = readdir(d))) {
        size_t n = strspn(e->d_name, "0123456789");
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            (n > 0 && strcmp(e->d_name + n, ".bin") == 0))
            continue;
        st = se_fail(err, SE_ERR_USAGE, "export: %s holds %s, which an export does not write: "
                     "it is not replaced (choose another -o)", path, e->d_name);
    }
    closedir(d);
    return st;
}

se_status se_export_main(const char *dir, se_export_format format, const char *path, FILE *out,
                         se_err *err)
{
    se_status st = se_verify_first(dir, "export", "it is not exported", err);
    if (st != SE_OK)
        return st;
    se_rundata rd;
    st = se_rundata_load(dir, &rd, err);
    if (st != SE_OK)
        return st;
    json_t *doc = NULL;
    if (format == SE_EXPORT_GBENCH) {
        st = gbench_doc(&rd, &doc, err);
        if (st == SE_OK)
            st = write_json(doc, path, err);
    } else {
        /* The sidecar folders sit beside the JSON file: FILE-bin/, FILE-freqs-bin/. */
        char bin[4300], freqs[4300];
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        char bin_name[600], freqs_name[600];
        snprintf(bin_name, sizeof bin_name, "%s-bin", base);
        snprintf(freqs_name, sizeof freqs_name, "%s-freqs-bin", base);
        snprintf(bin, sizeof bin, "%s-bin", path);
        snprintf(freqs, sizeof freqs, "%s-freqs-bin", path);
        se_publish pb, pf;
        st = check_sidecar(bin, err);
        if (st == SE_OK)
            st = check_sidecar(freqs, err);
        if (st == SE_OK)
            st = se_publish_begin(&pb, bin, "export", err);
        if (st == SE_OK) {
            st = se_publish_begin(&pf, freqs, "export", err);
            if (st != SE_OK)
                se_publish_abort(&pb);
        }
        if (st == SE_OK) {
            st = nvbench_doc(&rd, pb.tmp, bin_name, pf.tmp, freqs_name, &doc, err);
            if (st == SE_OK)
                st = se_publish_commit(&pb, err);
            else
                se_publish_abort(&pb);
            if (st == SE_OK)
                st = se_publish_commit(&pf, err);
            else
                se_publish_abort(&pf);
        }
        if (st == SE_OK)
            st = write_json(doc, path, err);
    }
    if (st == SE_OK)
        fprintf(out, "export: %s (run %s) written as %s JSON to %s%s\n", dir, rd.run_id,
                format == SE_EXPORT_GBENCH ? "Google Benchmark" : "nvbench", path,
                format == SE_EXPORT_GBENCH ? "" : " with its sample files in -bin/ and -freqs-bin/");
    json_decref(doc);
    se_rundata_free(&rd);
    return st;
}
