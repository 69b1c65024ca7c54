/*
 * site.c - the static evidence site (see site.h and docs/SITE.md): which of
 * the run's files it keeps (the others listed in LEFT_OUT.sha256), the
 * figures, report and Perfetto traces it carries, and its publication: it
 * is built in a temporary folder and published with se_publish. The pages
 * themselves are site_pages.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/site.h"
#include "render/site_pages.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "bundle/verify.h"
#include "bundle/views.h"
#include "model/strategy.h"
#include "render/doc.h"
#include "render/figures.h"
#include "render/plot.h"
#include "render/trace_export.h"

/* Which raw-run files the site keeps: everything but the arrays and the
 * traces other than the timeline strategies' on the timeline shape (the
 * costs and checks of all traces are kept: traces.json, outputs.csv and
 * the traced/untraced samples). */
static int selected(const se_site *s, const char *path)
{
    if (strncmp(path, SE_ARRAYS_PREFIX, 7) == 0)
        return 0;
    if (strncmp(path, SE_CHECKS_PREFIX, 7) == 0) {
        /* the sampled rows are kept where the run keeps them; where they are
         * remote-only (remote.json; the run verified without them) they are
         * left out, as the arrays */
        char full[SE_SITE_PATH_SIZE * 3];
        snprintf(full, sizeof full, "%s/%s", s->run, path);
        return access(full, F_OK) == 0;
    }
    if (strncmp(path, SE_TRACES_PREFIX, 7) != 0 || strcmp(path, SE_TRACE_OUTPUTS_CSV) == 0)
        return 1;
    for (int k = 0; k < s->n_timelines; k++) {
        char id[SE_CASE_ID_SIZE], rel[256];
        se_case_id_make(s->tl_rows, s->tl_cols, se_protocol_strategy(&s->rd.p, s->timelines[k])->name, id,
                        sizeof id);
        se_path_trace(id, rel, sizeof rel);
        if (strcmp(path, rel) == 0)
            return 1;
    }
    /* The traced and untraced samples of every traced case are kept. */
    const se_traces_view *tv = &se_rundata_views(&s->rd)->traces;
    for (size_t i = 0; i < tv->n; i++) {
        for (int traced = 0; traced < 2; traced++) {
            char rel[256];
            se_path_trace_timed(tv->v[i].id ? tv->v[i].id : "", traced, rel, sizeof rel);
            if (strcmp(path, rel) == 0)
                return 1;
        }
    }
    return 0;
}

/* Copies the selected files and lists the others, with their hashes, in
 * LEFT_OUT.sha256: the run's manifest lines as the one manifest reader
 * read them into s->rd.files, rewritten as "<hash>  <path>". */
static se_status copy_run(const se_site *s, size_t *kept, size_t *left, se_err *err)
{
    char path[SE_SITE_PATH_SIZE], dst[SE_SITE_PATH_SIZE * 3];
    se_path_join(s->tmp, SE_SITE_LEFT_OUT, dst, sizeof dst);
    FILE *lo = NULL;
    se_status st = se_fcreate_new(dst, SE_SITE_LEFT_OUT, &lo, err);
    *kept = *left = 0;
    for (size_t i = 0; st == SE_OK && i < s->rd.n_files; i++) {
        const se_run_file *f = &s->rd.files[i];
        if (!selected(s, f->path)) {
            fprintf(lo, "%s  %s\n", f->listed, f->path);
            (*left)++;
            continue;
        }
        char src[SE_SITE_PATH_SIZE * 3];
        snprintf(src, sizeof src, "%s/%s", s->run, f->path);
        snprintf(dst, sizeof dst, "%s/run/%s", s->tmp, f->path);
        st = se_copy_file(src, dst, err);
        (*kept)++;
    }
    if (lo && fclose(lo) != 0 && st == SE_OK)
        st = se_fail(err, SE_ERR_IO, "%s: cannot be written", SE_SITE_LEFT_OUT);
    if (st == SE_OK) {
        se_path_join(s->run, SE_MANIFEST_NAME, path, sizeof path);
        snprintf(dst, sizeof dst, "%s/run/%s", s->tmp, SE_MANIFEST_NAME);
        st = se_copy_file(path, dst, err);
    }
    return st;
}

/* The Perfetto exports: the timeline strategies' traces of the timeline
 * shape, under traces/. */
static se_status export_traces(const se_site *s, char exported[][SE_CASE_ID_SIZE], FILE *out,
                               se_err *err)
{
    char tdir[SE_SITE_PATH_SIZE * 2];
    se_path_join(s->tmp, "traces", tdir, sizeof tdir);
    se_status st = se_mkdirs(tdir, err);
    for (int k = 0; k < s->n_timelines && st == SE_OK; k++) {
        char jp[SE_SITE_PATH_SIZE * 3];
        se_case_id_make(s->tl_rows, s->tl_cols, se_protocol_strategy(&s->rd.p, s->timelines[k])->name,
                        exported[k], SE_CASE_ID_SIZE);
        snprintf(jp, sizeof jp, "%s/%s.perfetto.json", tdir, exported[k]);
        FILE *quiet = fopen("/dev/null", "w");
        st = se_trace_export(s->run, exported[k], jp, quiet ? quiet : out, err);
        if (quiet)
            fclose(quiet);
    }
    return st;
}

/* Progress: the steps of a site and the share of its time each took on the
 * H200's reference run (the figures most of it), for the time left. */
static int progress_on;
static double progress_t0;

void se_site_set_progress(int on)
{
    progress_on = on;
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress(int step, const char *what)
{
    static const double share[] = {0.30, 0.05, 0.50, 0.10, 0.03, 0.02}; /* verify .. manifest */
    enum { N = sizeof share / sizeof share[0] };
    if (!progress_on)
        return;
    if (step == 0)
        progress_t0 = mono_s();
    double done = 0.0;
    for (int k = 0; k < step; k++)
        done += share[k];
    double el = mono_s() - progress_t0;
    if (step > 0 && done > 0.0)
        fprintf(stderr, "[%d/%d] site: %s (%.0f s elapsed, about %.0f s left)\n", step + 1, N,
                what, el, el * (1.0 - done) / done);
    else
        fprintf(stderr, "[%d/%d] site: %s\n", step + 1, N, what);
}

/* Fills the temporary folder: run files, figures and report, traces,
 * pages, the site's manifest. */
static se_status build(se_site *s, FILE *out, size_t *kept, size_t *left, se_err *err)
{
    progress(1, "copying the selected run files");
    se_status st = copy_run(s, kept, left, err);
    se_doc report = {0};
    char figdir[SE_SITE_PATH_SIZE * 2];
    se_path_join(s->tmp, "figures", figdir, sizeof figdir);
    if (st == SE_OK) {
        progress(2, "figures and report");
        FILE *quiet = fopen("/dev/null", "w");
        st = se_figures_make(s->run, figdir, quiet ? quiet : out, &report, err);
        if (quiet)
            fclose(quiet);
    }
    char exported[SE_SITE_MAX_TIMELINES][SE_CASE_ID_SIZE];
    if (st == SE_OK) {
        progress(3, "Perfetto traces");
        st = export_traces(s, exported, out, err);
    }
    if (st == SE_OK) {
        progress(4, "pages");
        st = se_site_write_pages(s, &report, exported, *kept, *left, err);
    }
    if (st == SE_OK) {
        progress(5, "the site's manifest");
        st = se_manifest_write(s->tmp, SE_SITE_MANIFEST, err);
    }
    se_doc_free(&report);
    return st;
}

se_status se_site_main(const char *run_dir, const char *out_dir, FILE *out, se_err *err)
{
    struct stat sb;
    se_status st = SE_OK;
    /* Before any work: an existing OUT_DIR must be a folder (not a link to
     * one), and is replaced only if it is an earlier site, whole. */
    if (lstat(out_dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
        return se_fail(err, SE_ERR_USAGE, "site: OUT_DIR %s is %s, not a folder; give the folder "
                       "itself (nothing was built)", out_dir,
                       S_ISLNK(sb.st_mode) ? "a symbolic link" : "a file");
    if (lstat(out_dir, &sb) == 0 &&
        (st = se_manifest_own_output(out_dir, SE_SITE_MANIFEST, "site", err)) != SE_OK)
        return st;
    progress(0, "verifying the run");
    st = se_verify_first(run_dir, "site", "no site is built from it", err);
    if (st != SE_OK)
        return st;
    se_site s;
    memset(&s, 0, sizeof s);
    s.run = run_dir;
    st = se_rundata_load(run_dir, &s.rd, err);
    if (st != SE_OK)
        return st;
    char path[SE_SITE_PATH_SIZE];
    se_path_join(run_dir, SE_PROTOCOL_JSON, path, sizeof path);
    st = se_json_load(path, SE_PROTOCOL_JSON, NULL, 0, NULL, &s.protocol, err);
    const se_shape *tl = se_timeline_shape(&s.rd);
    s.n_timelines = se_timeline_strategies(se_rundata_table(&s.rd), s.timelines,
                                           SE_SITE_MAX_TIMELINES);
    /* A run without traces (the sweep protocol's "traces": false) has no
     * timelines and no Perfetto exports; its traces page says so. */
    if (!tl) {
        s.n_timelines = 0;
        snprintf(s.timeline_shape, sizeof s.timeline_shape, "none (no traced shape)");
    } else {
        s.tl_rows = tl->rows;
        s.tl_cols = tl->cols;
        se_shape_id(tl->rows, tl->cols, s.timeline_shape, sizeof s.timeline_shape);
    }
    se_publish pb;
    size_t kept = 0, left = 0;
    if (st == SE_OK)
        st = se_publish_begin(&pb, out_dir, "site", err);
    if (st == SE_OK) {
        s.tmp = pb.tmp;
        st = build(&s, out, &kept, &left, err);
        /* Again just before replacing it: a file edited while this ran is kept. */
        if (st == SE_OK && lstat(out_dir, &sb) == 0)
            st = se_manifest_own_output(out_dir, SE_SITE_MANIFEST, "site", err);
        if (st == SE_OK)
            st = se_publish_commit(&pb, err);
        else
            se_publish_abort(&pb);
    }
    if (st == SE_OK && out)
        fprintf(out, "site: %s: %zu pages, %zu run files kept, %zu left out (listed with their "
                "hashes in %s), figures, report, Perfetto traces of %s; open %s/index.html\n",
                out_dir, se_site_n_pages(), kept, left, SE_SITE_LEFT_OUT, s.timeline_shape, out_dir);
    json_decref(s.protocol);
    se_rundata_free(&s.rd);
    return st;
}
