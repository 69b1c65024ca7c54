/*
 * profile.c - Nsight Compute over every kernel of every strategy (see
 * profile.h and docs/PROFILING.md).
 *
 * `profile` verifies the run, then runs `ncu` on this same program's
 * `profile-target` with a fixed metric set, --clock-control none (the
 * card's clocks are left alone) and --profile-from-start off; the target
 * opens the profiler only around each case's instance, after a marker
 * kernel whose grid size is the case's number, so every profiled kernel can
 * be attributed to its (shape, strategy) from ncu's CSV alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_profiler_api.h>
#include <jansson.h>

#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "bundle/verify.h"
#include "run/run_config.h"
#include "gpu/kernels.h"
#include "model/protocol.h"
#include "gpu/se_cuda.h"
#include "model/strategy.h"
#include "model/operation.h"
#include "run/cudnn_ref.h"
#include "run/device.h"
#include "run/instance.h"
#include "run/strategies.h"
#include "run/validate.h"

/* The fixed metric set, and the column each gets in profile/kernels.csv. */
static const struct {
    const char *metric;
    const char *column;
} metrics[] = {
    {"gpu__time_duration.sum", "duration_ns"},
    {"dram__bytes_read.sum", "dram_read_bytes"},
    {"dram__bytes_write.sum", "dram_write_bytes"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram_throughput_pct"},
    {"lts__t_sector_hit_rate.pct", "l2_hit_rate_pct"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct"},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "sm_throughput_pct"},
    {"launch__registers_per_thread", "registers"},
    {"launch__shared_mem_per_block_static", "shared_static_bytes"},
    {"launch__shared_mem_per_block_dynamic", "shared_dynamic_bytes"},
    {"launch__grid_size", "grid"},
    {"launch__block_size", "block"},
};
#define N_METRICS (sizeof metrics / sizeof metrics[0])

static const char *limitations =
    "Nsight Compute replays each kernel in isolation and serializes kernels, so its durations "
    "are not the run's timings (use " SE_SUMMARY_JSON " for those); a graph's kernel nodes and a "
    "cooperative kernel are profiled one kernel at a time; clocks were left as found "
    "(--clock-control none); cuDNN's kernels are profiled but their internal choice of kernels "
    "is cuDNN's; input generation and pre-scaling are not profiled.";

/* The cases of the run, numbered from 1 in the order the target runs them. */
typedef struct pcase {
    const se_shape *shape;
    se_strategy strategy;
} pcase;

static size_t list_cases(const se_protocol *p, pcase *out)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_shapes; i++)
        for (int s = 0; s < SE_NSTRATEGIES; s++)
            if ((p->strategies >> s) & 1u) {
                if (out) {
                    out[n].shape = &p->shapes[i];
                    out[n].strategy = (se_strategy)s;
                }
                n++;
            }
    return n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "[n/N] shape strategy (elapsed, about ... left)" on stderr, where the
 * parent `profile` asked for it (SE_PROFILE_PROGRESS_ENV: its stderr is a
 * terminal and --quiet was not given; ncu passes our stderr through). */
static void target_progress(int n, int total, const se_shape *sh, se_strategy s, double t0)
{
    if (!getenv(SE_PROFILE_PROGRESS_ENV))
        return;
    double el = now_s() - t0;
    if (n > 1)
        fprintf(stderr, "[%d/%d] %" PRId64 "x%" PRId64 " %s (%.0f s elapsed, about %.0f s left)\n",
                n, total, sh->rows, sh->cols, se_strategy_get(s)->name, el,
                el / (n - 1) * (total - n + 1));
    else
        fprintf(stderr, "[%d/%d] %" PRId64 "x%" PRId64 " %s\n", n, total, sh->rows, sh->cols,
                se_strategy_get(s)->name);
}

se_status se_profile_target(const char *run_dir, se_err *err)
{
    se_rundata rd;
    se_status st = se_rundata_load(run_dir, &rd, err);
    /* The run's strategies, by name, as this binary's: it runs them. */
    if (st == SE_OK && (st = se_protocol_retable(&rd.p, se_strategy_compiled(), err)) != SE_OK)
        se_rundata_free(&rd);
    if (st != SE_OK)
        return st;
    const se_protocol *pp = &rd.p;
    se_run_config o;
    memset(&o, 0, sizeof o);
    o.quiet = 1;
    se_device_info dev;
    cudaStream_t stream = NULL;
    se_cudnn *cudnn = NULL;
    /* A strategy of the run that this binary cannot run on its workload. */
    for (int s = 0; st == SE_OK && s < SE_NSTRATEGIES; s++)
        if ((pp->strategies >> s) & 1u)
            st = se_strategy_check_operation(run_dir, (se_strategy)s, se_protocol_operation(pp),
                                             err);
    if (st == SE_OK)
        st = se_device_open(0, &dev, err);
    if (st == SE_OK)
        st = se_device_use_operation(&dev, se_protocol_operation(pp)->id, err);
    if (st == SE_OK && cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
        st = se_fail(err, SE_ERR_CUDA, "cudaStreamCreate failed");
    if (st == SE_OK)
        st = se_cudnn_create(&cudnn, stream, err);
    int case_no = 0, total = 0;
    double t0 = now_s();
    for (int s = 0; s < SE_NSTRATEGIES; s++)
        total += (int)((pp->strategies >> s) & 1u) * (int)pp->n_shapes;
    for (size_t i = 0; i < pp->n_shapes && st == SE_OK; i++) {
        se_case c;
        se_case_host h;
        st = se_case_prepare(pp, &pp->shapes[i], cudnn, stream, &c, &h, err);
        for (int s = 0; s < SE_NSTRATEGIES && st == SE_OK; s++) {
            if (!((pp->strategies >> s) & 1u))
                continue;
            case_no++;
            target_progress(case_no, total, &pp->shapes[i], (se_strategy)s, t0);
            se_instance in;
            int blocks = se_coop_blocks(pp, &o, &dev, (se_strategy)s, &c.shape);
            st = se_instance_prepare(&in, (se_strategy)s, &c, blocks, cudnn, stream, err);
            if (st != SE_OK)
                break;
            if (cudaStreamSynchronize(stream) != cudaSuccess || cudaProfilerStart() != cudaSuccess)
                st = se_fail(err, SE_ERR_CUDA, "starting the profiler failed");
            if (st == SE_OK)
                st = se_gpu_profile_marker_enqueue(case_no, stream, err);
            if (st == SE_OK)
                st = se_instance_enqueue(&in, stream, err);
            if (st == SE_OK && (cudaStreamSynchronize(stream) != cudaSuccess ||
                                cudaProfilerStop() != cudaSuccess))
                st = se_fail(err, SE_ERR_CUDA, "case %d: %s", case_no,
                             cudaGetErrorString(cudaGetLastError()));
            se_instance_destroy(&in);
        }
        if (c.x)
            se_case_release(&c, &h);
    }
    se_cudnn_destroy(cudnn);
    if (stream)
        cudaStreamDestroy(stream);
    se_rundata_free(&rd);
    return st;
}

/* Splits one CSV line of quoted fields in place; returns the count. */
static int csv_fields(char *line, char **f, int max)
{
    int n = 0;
    char *p = line;
    while (*p && n < max) {
        if (*p == '"') {
            char *start = ++p, *w = p;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                *w++ = *p++;
            }
            if (*p == '"')
                p++;
            *w = '\0';
            f[n++] = start;
        } else {
            f[n++] = p;
            while (*p && *p != ',')
                p++;
        }
        if (*p == ',')
            *p++ = '\0';
        else
            break;
    }
    return n;
}

/* A number as ncu prints it (thousands separators dropped). */
static double ncu_number(const char *s)
{
    char buf[64];
    size_t k = 0;
    for (; *s && k + 1 < sizeof buf; s++)
        if (*s != ',')
            buf[k++] = *s;
    buf[k] = '\0';
    return k ? strtod(buf, NULL) : 0.0;
}

#define MAX_FIELDS 4096

/* Parses ncu's raw CSV into profile/kernels.csv and per-case totals. */
static se_status parse_ncu(const char *raw_path, FILE *kernels, const pcase *cases,
                           size_t n_cases, json_t *totals, json_t *missing, size_t *n_rows,
                           se_err *err)
{
    FILE *f = fopen(raw_path, "r");
    if (!f)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", raw_path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int col_kernel = -1, col[N_METRICS], header = 0;
    long cur = 0;
    double dur[4096] = {0}, rd[4096] = {0}, wr[4096] = {0};
    int nk[4096] = {0};
    *n_rows = 0;
    fprintf(kernels, "case,shape,strategy,kernel");
    for (size_t m = 0; m < N_METRICS; m++)
        fprintf(kernels, ",%s", metrics[m].column);
    fputc('\n', kernels);
    while (getline(&line, &cap, f) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '"')
            continue; /* ==PROF== messages and blank lines */
        char *fld[MAX_FIELDS];
        int nf = csv_fields(line, fld, MAX_FIELDS);
        if (!header) {
            for (size_t m = 0; m < N_METRICS; m++)
                col[m] = -1;
            for (int k = 0; k < nf; k++) {
                if (strcmp(fld[k], "Kernel Name") == 0)
                    col_kernel = k;
                for (size_t m = 0; m < N_METRICS; m++)
                    if (strcmp(fld[k], metrics[m].metric) == 0)
                        col[m] = k;
            }
            header = 1;
            if (col_kernel < 0) {
                fclose(f);
                free(line);
                return se_fail(err, SE_ERR_IO, "%s: no 'Kernel Name' column in ncu's CSV", raw_path);
            }
            /* A metric this ncu does not report is listed, not fatal; the
             * duration and the grid size (for the markers) are required. */
            for (size_t m = 0; m < N_METRICS; m++)
                if (col[m] < 0)
                    json_array_append_new(missing, json_string(metrics[m].metric));
            if (col[0] < 0 || col[10] < 0) {
                fclose(f);
                free(line);
                return se_fail(err, SE_ERR_IO, "%s: ncu's CSV has no column %s", raw_path,
                               col[0] < 0 ? metrics[0].metric : metrics[10].metric);
            }
            continue;
        }
        if (nf <= col_kernel || col[0] >= nf || !fld[col[0]][0] ||
            !strchr("0123456789", fld[col[0]][0]))
            continue; /* the units row */
        const char *kname = fld[col_kernel];
        if (strstr(kname, "se_k_profile_marker")) {
            /* The marker's grid is its case number: checked before the cast
             * (a NaN or 1e300 in a hostile CSV is outside any case). */
            double g = ncu_number(fld[col[10]]);
            cur = g >= 1.0 && g < 4096.0 ? (long)g : 0;
            continue;
        }
        if (cur < 1 || (size_t)cur > n_cases || cur >= 4096)
            continue; /* not inside a case */
        const pcase *pc = &cases[cur - 1];
        fprintf(kernels, "%ld,%s,%s,\"%s\"", cur, pc->shape->spec,
                se_strategy_get(pc->strategy)->name, kname);
        for (size_t m = 0; m < N_METRICS; m++) {
            if (col[m] >= 0 && col[m] < nf)
                fprintf(kernels, ",%.17g", ncu_number(fld[col[m]]));
            else
                fputc(',', kernels);
        }
        fputc('\n', kernels);
        dur[cur] += ncu_number(fld[col[0]]);
        rd[cur] += col[1] >= 0 && col[1] < nf ? ncu_number(fld[col[1]]) : 0.0;
        wr[cur] += col[2] >= 0 && col[2] < nf ? ncu_number(fld[col[2]]) : 0.0;
        nk[cur]++;
        (*n_rows)++;
    }
    free(line);
    fclose(f);
    for (size_t i = 1; i <= n_cases && i < 4096; i++) {
        const pcase *pc = &cases[i - 1];
        double counted = 8.0 * (double)pc->shape->rows * (double)pc->shape->cols;
        json_array_append_new(
            totals, json_pack("{s:i, s:s, s:s, s:i, s:f, s:f, s:f, s:f, s:f}", "case", (int)i,
                              "shape", pc->shape->spec, "strategy",
                              se_strategy_get(pc->strategy)->name, "kernels", nk[i],
                              "duration_ns_sum", dur[i], "dram_read_bytes", rd[i],
                              "dram_write_bytes", wr[i], "bytes_counted", counted,
                              "dram_bytes_over_counted", counted > 0 ? (rd[i] + wr[i]) / counted : 0.0));
    }
    return SE_OK;
}


static se_status write_text(const char *path, const char *text, se_err *err)
{
    FILE *f;
    se_status st = se_fcreate_new(path, path, &f, err); /* in the command's own new folder */
    if (st != SE_OK)
        return st;
    int ok = fputs(text, f) != EOF;
    if (fclose(f) != 0 || !ok)
        return se_fail(err, SE_ERR_IO, "%s: cannot be written", path);
    return SE_OK;
}

/* Puts the filled pb->tmp in place as RUN/profile and rewrites the run's
 * manifest, all or nothing. The previous profile/ is first moved aside
 * inside the run, in a folder it creates (mkdtemp, SE_MANIFEST_TMP_PREFIX)
 * and that the rewrite skips by name, so it walks the run as it will be. se_publish_commit
 * then renames the new folder in, and se_manifest_write writes the new
 * manifest to a temporary file renamed over MANIFEST.sha256, so the
 * manifest is the old one or the new one, never a mixture. If either step
 * fails, the new profile/ is removed and the old one put back: the run is
 * again the one that verified. Only after the manifest is in place is the
 * old profile/ removed. */
static se_status publish_profile(const char *run_dir, se_publish *pb, se_err *err)
{
    char aside[4500] = "";
    struct stat sb;
    if (lstat(pb->target, &sb) == 0) {
        snprintf(aside, sizeof aside, "%s/%s-profile-old-XXXXXX", run_dir, SE_MANIFEST_TMP_PREFIX);
        if (!mkdtemp(aside)) {
            se_publish_abort(pb);
            return se_fail(err, SE_ERR_IO, "profile: %s cannot be created: %s", aside,
                           strerror(errno));
        }
        if (rename(pb->target, aside) != 0) {
            se_publish_abort(pb);
            return se_fail(err, SE_ERR_IO, "profile: moving the previous %s aside failed: %s",
                           pb->target, strerror(errno));
        }
    }
    se_status st = se_publish_commit(pb, err);
    if (st == SE_OK) {
        const char *skip = aside[0] ? strrchr(aside, '/') + 1 : NULL;
        st = se_manifest_write_skipping(run_dir, SE_MANIFEST_NAME, skip, err);
        if (st != SE_OK)
            se_remove_tree(pb->target);
    }
    if (aside[0]) {
        if (st != SE_OK && rename(aside, pb->target) != 0) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err ? err->msg : "");
            st = se_fail(err, st, "%.700s; the previous profile could not be put back: it is in %s",
                         why, aside);
        } else if (st == SE_OK && se_remove_tree(aside) != 0)
            st = se_fail(err, SE_ERR_IO, "%s: cannot be removed", aside);
    }
    return st;
}

/* From ncu's raw CSV (already in pb->tmp as ncu_raw.csv, or copied there):
 * kernels.csv and profile.json in pb->tmp, then published as RUN/profile
 * with the manifest rewritten (publish_profile). */
static se_status import_raw(const char *run_dir, const pcase *cases, size_t n_cases,
                            se_publish *pb, const char *raw, const char *version,
                            const char *cmd, FILE *out, se_err *err)
{
    char kpath[4700], jpath[4700];
    snprintf(kpath, sizeof kpath, "%s/" SE_PROFILE_KERNELS_FILE, pb->tmp);
    snprintf(jpath, sizeof jpath, "%s/" SE_PROFILE_JSON_FILE, pb->tmp);
    char mlist[2048] = "";
    for (size_t m = 0; m < N_METRICS; m++)
        snprintf(mlist + strlen(mlist), sizeof mlist - strlen(mlist), "%s%s", m ? "," : "",
                 metrics[m].metric);
    json_t *totals = json_array(), *missing = json_array();
    size_t rows = 0;
    se_status st = SE_OK;
    FILE *k = NULL;
    st = se_fcreate_new(kpath, kpath, &k, err);
    if (st == SE_OK) {
        st = parse_ncu(raw, k, cases, n_cases, totals, missing, &rows, err);
        if (fclose(k) != 0 && st == SE_OK)
            st = se_fail(err, SE_ERR_IO, "%s: cannot be written", kpath);
    }
    if (st == SE_OK && rows == 0)
        st = se_fail(err, SE_ERR_CUDA, "profile: ncu profiled no kernel of the run's cases (see %s)", raw);
    if (st == SE_OK) {
        json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:s, s:o, s:I, s:s, s:o}", "format",
                              SE_PROFILE_FORMAT, "version", 1, "ncu_version", version,
                              "command", cmd, "metrics", mlist, "metrics_not_reported", missing,
                              "kernels_profiled", (json_int_t)rows, "limitations", limitations,
                              "cases", totals);
        missing = totals = NULL;
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        json_decref(j);
        st = text ? write_text(jpath, text, err) : se_fail(err, SE_ERR_NOMEM, SE_PROFILE_JSON_FILE);
        free(text);
    }
    json_decref(totals);
    json_decref(missing);
    if (st == SE_OK)
        st = publish_profile(run_dir, pb, err);
    if (st == SE_OK && out) {
        fprintf(out, "profile: %zu kernels profiled (metrics this ncu did not report are listed "
                "in " SE_PROFILE_JSON_FILE ")\n", rows);
        fprintf(out, "profile: wrote %s/{" SE_PROFILE_NCU_RAW_FILE "," SE_PROFILE_KERNELS_FILE "," SE_PROFILE_JSON_FILE "} and rewrote %s/%s\n",
                pb->target, run_dir, SE_MANIFEST_NAME);
    }
    return st;
}

/* Verifies the run, then loads it (se_rundata_load) and lists its cases. */
static se_status open_run(const char *run_dir, const char *what, se_rundata *rd, pcase **cases,
                          size_t *n_cases, se_err *err)
{
    /* Never re-manifest a run that does not verify. */
    char consequence[64];
    snprintf(consequence, sizeof consequence, "it is not %s", what);
    se_status st = se_verify_first(run_dir, "profile", consequence, err);
    if (st != SE_OK)
        return st;
    st = se_rundata_load(run_dir, rd, err);
    if (st != SE_OK)
        return st;
    /* The run's strategies, by name, as this binary's (it ran or runs them). */
    st = se_protocol_retable(&rd->p, se_strategy_compiled(), err);
    if (st != SE_OK) {
        se_rundata_free(rd);
        return st;
    }
    *n_cases = list_cases(&rd->p, NULL);
    *cases = calloc(*n_cases + 1, sizeof **cases);
    if (!*cases) {
        se_rundata_free(rd);
        return se_fail(err, SE_ERR_NOMEM, "profile: the list of cases");
    }
    list_cases(&rd->p, *cases);
    return SE_OK;
}

se_status se_profile_main(const char *run_dir, const char *self, FILE *out, se_err *err)
{
    se_rundata rd;
    pcase *cases = NULL;
    size_t n_cases = 0;
    se_status st = open_run(run_dir, "profiled", &rd, &cases, &n_cases, err);
    if (st != SE_OK)
        return st;
    const char *ncu = access("/usr/local/cuda/bin/ncu", X_OK) == 0 ? "/usr/local/cuda/bin/ncu" : "ncu";
    char version[256];
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", ncu);
    se_command_line(cmd, "ersion", version, sizeof version);
    int devices = 0;
    cudaError_t ce = cudaSuccess;
    char exe[4096];
    ssize_t len = 0;
    if (!version[0])
        st = se_fail(err, SE_ERR_NO_TOOL, "profile: Nsight Compute (ncu) was not found in "
                     "/usr/local/cuda/bin or on PATH; it comes with the CUDA toolkit (exit 8: a "
                     "missing tool, not a missing GPU)");
    /* A GPU must be visible here (not only to ncu's child): without one the
     * run is left as it is, with the reason. */
    if (st == SE_OK && ((ce = cudaGetDeviceCount(&devices)) != cudaSuccess || devices == 0))
        st = se_fail(err, SE_ERR_NO_DEVICE, "profile: no CUDA device found (cudaGetDeviceCount: "
                     "%s, %d devices); the counters need the GPU; %s is left as it is",
                     ce == cudaSuccess ? "no error" : cudaGetErrorString(ce), devices, run_dir);
    /* ncu must run this binary by its real path (/proc/self/exe would be
     * ncu itself by then). */
    if (st == SE_OK && (len = readlink(self, exe, sizeof exe - 1)) <= 0)
        st = se_fail(err, SE_ERR_IO, "profile: cannot resolve %s: %s", self, strerror(errno));
    se_publish pb;
    char final_dir[4400], raw[4700];
    snprintf(final_dir, sizeof final_dir, "%s/" SE_PROFILE_DIR, run_dir);
    if (st == SE_OK) {
        exe[len] = '\0';
        st = se_publish_begin(&pb, final_dir, "profile", err);
    }
    if (st != SE_OK) {
        free(cases);
        se_rundata_free(&rd);
        return st;
    }
    snprintf(raw, sizeof raw, "%s/" SE_PROFILE_NCU_RAW_FILE, pb.tmp);
    char mlist[2048] = "";
    for (size_t m = 0; m < N_METRICS; m++)
        snprintf(mlist + strlen(mlist), sizeof mlist - strlen(mlist), "%s%s", m ? "," : "",
                 metrics[m].metric);
    snprintf(cmd, sizeof cmd,
             "%s --clock-control none --profile-from-start off --metrics %s --csv --page raw "
             "--log-file '%s' '%s' profile-target '%s'",
             ncu, mlist, raw, exe, run_dir);
    if (out)
        fprintf(out, "profile: %s\nprofile: %zu cases under %s\n", cmd, n_cases, version);
    int rc = system(cmd);
    if (rc != 0)
        st = se_fail(err, SE_ERR_CUDA, "profile: ncu exited with status %d (its log: %s)", rc, raw);
    if (st == SE_OK)
        st = import_raw(run_dir, cases, n_cases, &pb, raw, version, cmd, out, err);
    if (st != SE_OK && out && pb.tmp[0]) {
        /* Show what ncu wrote before it is removed with the temporary folder. */
        char show[4800];
        snprintf(show, sizeof show, "grep -m 2 -v '^==' '%s' | cut -c 1-400", raw);
        fprintf(out, "profile: the start of ncu's output:\n");
        fflush(out);
        if (system(show) != 0)
            fprintf(out, "profile: (ncu wrote no CSV)\n");
    }
    if (st != SE_OK)
        se_publish_abort(&pb);
    free(cases);
    se_rundata_free(&rd);
    return st;
}

se_status se_profile_reparse(const char *run_dir, FILE *out, se_err *err)
{
    se_rundata rd;
    pcase *cases = NULL;
    size_t n_cases = 0;
    se_status st = open_run(run_dir, "touched", &rd, &cases, &n_cases, err);
    if (st != SE_OK)
        return st;
    char raw[4700], saved[4600];
    snprintf(saved, sizeof saved, "%s/" SE_PROFILE_NCU_RAW_CSV, run_dir);
    /* rd.profile is profile/profile.json, read through se_json_load. */
    const char *version = json_string_value(json_object_get(rd.profile, "ncu_version"));
    const char *cmd = json_string_value(json_object_get(rd.profile, "command"));
    if (!version || !cmd || access(saved, R_OK) != 0) {
        free(cases);
        se_rundata_free(&rd);
        return se_fail(err, SE_ERR_IO, "profile --reparse: %s has no " SE_PROFILE_JSON " with "
                       "the ncu version and command, or no " SE_PROFILE_NCU_RAW_CSV, run_dir);
    }
    se_publish pb;
    char final_dir[4400];
    snprintf(final_dir, sizeof final_dir, "%s/" SE_PROFILE_DIR, run_dir);
    st = se_publish_begin(&pb, final_dir, "profile", err);
    if (st == SE_OK) {
        snprintf(raw, sizeof raw, "%s/" SE_PROFILE_NCU_RAW_FILE, pb.tmp);
        st = se_copy_file(saved, raw, err);
        if (st == SE_OK)
            st = import_raw(run_dir, cases, n_cases, &pb, raw, version, cmd, out, err);
        if (st != SE_OK)
            se_publish_abort(&pb);
    }
    free(cases);
    se_rundata_free(&rd);
    return st;
}
