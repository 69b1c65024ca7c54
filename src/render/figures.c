/*
 * figures.c - `softmax-evidence figures RUN_DIR OUT_DIR` (see figures.h):
 * verify the run, check OUT_DIR, build everything in a temporary directory
 * beside OUT_DIR (data, gnuplot scripts, SVG and PNG, the report, the
 * provenance), and only then move it into place, so a failure leaves
 * OUT_DIR as it was.
 */
#define _XOPEN_SOURCE 700
#include "render/figures.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/manifest.h"
#include "bundle/verify.h"
#include "render/buf.h"
#include "render/plot.h"
#include "render/report.h"
#include "bundle/rundata.h"

#ifndef SE_VERSION
#define SE_VERSION "unknown"
#endif

#define PROVENANCE "provenance.json"
#define PROVENANCE_FORMAT "softmax-evidence-figures"
#define FIGURES_MANIFEST "FIGURES_MANIFEST.sha256" /* every file of the output */

typedef struct out_paths {
    char out[PATH_MAX];    /* OUT_DIR without trailing slashes */
} out_paths;

static se_status verify_first(const char *run_dir, FILE *out, se_err *err)
{
    se_status st = se_verify_first(run_dir, "figures", "nothing is drawn from it", err);
    if (st == SE_OK && out)
        fprintf(out, "figures: %s verifies (softmax-evidence verify %s)\n", run_dir, run_dir);
    return st;
}

/* OUT_DIR without trailing slashes, checked to name a directory (its parent
 * and the temporary folder beside it are se_publish_begin's). */
static se_status split_out(const char *out_dir, out_paths *o, se_err *err)
{
    size_t len = strlen(out_dir);
    while (len > 1 && out_dir[len - 1] == '/')
        len--;
    if (len == 0 || len >= sizeof o->out)
        return se_fail(err, SE_ERR_USAGE, "figures: OUT_DIR '%s' is empty or too long", out_dir);
    memcpy(o->out, out_dir, len);
    o->out[len] = '\0';
    const char *slash = strrchr(o->out, '/');
    const char *base = slash ? slash + 1 : o->out;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strlen(base) > NAME_MAX - 24)
        return se_fail(err, SE_ERR_USAGE,
                       "figures: OUT_DIR '%s' must name a directory (not '/', '.' or '..', and a name "
                       "of at most %d bytes)", out_dir, NAME_MAX - 24);
    return SE_OK;
}

/* realpath of path, or of its nearest existing ancestor. */
static int resolve_existing(const char *path, char *resolved)
{
    char cur[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (;;) {
        if (realpath(cur, resolved))
            return 1;
        if (errno != ENOENT)
            return 0;
        char *slash = strrchr(cur, '/');
        if (!slash)
            snprintf(cur, sizeof cur, ".");
        else if (slash == cur)
            cur[1] = '\0';
        else
            *slash = '\0';
    }
}

static int is_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    if (strcmp(outer, "/") == 0)
        return 1;
    return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

static int holds_previous_output(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/" PROVENANCE, dir);
    json_t *j = NULL;
    se_err ignored;
    int ok = se_json_load(path, PROVENANCE, PROVENANCE_FORMAT, 1, NULL, &j, &ignored) == SE_OK;
    json_decref(j);
    return ok;
}

/* The entries of the folder dir other than "." and "..", or -1. */
static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int entries = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            entries++;
    closedir(d);
    return entries;
}

/* What OUT_DIR is now; refuses anything but a new or empty directory or a
 * previous figures output, and a place inside the run. Creates nothing. */
static se_status check_out(const char *run_dir, out_paths *o, se_err *err)
{
    char run_real[PATH_MAX], out_real[PATH_MAX];
    if (!realpath(run_dir, run_real))
        return se_fail(err, SE_ERR_IO, "figures: RUN_DIR %s: %s", run_dir, strerror(errno));
    if (!resolve_existing(o->out, out_real))
        return se_fail(err, SE_ERR_IO, "figures: OUT_DIR %s: %s", o->out, strerror(errno));
    if (is_within(out_real, run_real))
        return se_fail(err, SE_ERR_USAGE,
                       "figures: OUT_DIR %s is inside the run %s; the run's manifest would no longer "
                       "match: give a directory outside it", o->out, run_dir);
    struct stat sb;
    if (lstat(o->out, &sb) != 0) {
        if (errno != ENOENT)
            return se_fail(err, SE_ERR_IO, "figures: OUT_DIR %s: %s", o->out, strerror(errno));
        return SE_OK;
    }
    if (S_ISLNK(sb.st_mode))
        return se_fail(err, SE_ERR_USAGE, "figures: OUT_DIR %s is a symbolic link; give the "
                       "directory itself", o->out);
    if (!S_ISDIR(sb.st_mode))
        return se_fail(err, SE_ERR_USAGE, "figures: OUT_DIR %s exists and is not a directory",
                       o->out);
    if (is_within(run_real, out_real))
        return se_fail(err, SE_ERR_USAGE, "figures: the run %s is inside OUT_DIR %s, which would be "
                       "replaced", run_dir, o->out);
    int entries = dir_entries(o->out);
    if (entries < 0)
        return se_fail(err, SE_ERR_IO, "figures: OUT_DIR %s cannot be read: %s", o->out,
                       strerror(errno));
    if (entries == 0)
        return SE_OK;
    if (!holds_previous_output(o->out))
        return se_fail(err, SE_ERR_USAGE,
                       "figures: OUT_DIR %s is not empty and holds no previous figures output (no "
                       PROVENANCE " of format " PROVENANCE_FORMAT "); give a new or empty directory",
                       o->out);
    /* Replaced whole only if it holds nothing but what the earlier output
     * listed: a file the user added there is never deleted. */
    return se_manifest_own_output(o->out, FIGURES_MANIFEST, "figures", err);
}

/* ---- provenance.json --------------------------------------------------- */

static json_t *file_entry(const char *dir, const char *rel, se_err *err, se_status *st)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    unsigned char d[32];
    char hex[65];
    struct stat sb;
    if (stat(path, &sb) != 0) {
        *st = se_fail(err, SE_ERR_IO, "figures: %s was not written: %s", rel, strerror(errno));
        return NULL;
    }
    if (sb.st_size == 0) {
        *st = se_fail(err, SE_ERR_IO, "figures: %s is empty", rel);
        return NULL;
    }
    *st = se_sha256_file(path, d, err);
    if (*st != SE_OK)
        return NULL;
    se_hex32(d, hex);
    return json_pack("{s:s, s:s, s:I}", "path", rel, "sha256", hex, "bytes", (json_int_t)sb.st_size);
}

static se_status figure_entry(se_rundata *rd, const se_figure *f, const char *dir,
                              const char *gnuplot, json_t **out, se_err *err)
{
    json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:b}", "name", f->name, "title", f->title, "shows",
                          f->shows, "run_id", rd->run_id, "drawn", !f->omitted);
    if (!e)
        return se_fail(err, SE_ERR_NOMEM, "figures: out of memory");
    se_status st = SE_OK;
    if (f->omitted) {
        json_object_set_new(e, "why_not", json_string(f->why_omitted));
        *out = e;
        return SE_OK;
    }
    json_t *runf = json_array(), *data = json_array(), *outs = json_array();
    json_object_set_new(e, "run_files", runf);
    for (size_t i = 0; i < f->run_files.n && st == SE_OK; i++) {
        char hex[65];
        st = se_rundata_hash(rd, f->run_files.v[i], hex, err);
        if (st == SE_OK)
            json_array_append_new(runf, json_pack("{s:s, s:s}", "path", f->run_files.v[i],
                                                  "sha256", hex));
    }
    json_object_set_new(e, "data_files", data);
    for (size_t i = 0; i < f->data_files.n && st == SE_OK; i++) {
        json_t *d = file_entry(dir, f->data_files.v[i], err, &st);
        if (d)
            json_array_append_new(data, d);
    }
    if (st == SE_OK) {
        json_t *s = file_entry(dir, f->script, err, &st);
        if (s)
            json_object_set_new(e, "script", s);
    }
    char command[256];
    snprintf(command, sizeof command, SE_GNUPLOT_ENV " " SE_GNUPLOT_ARGS " %s", f->script);
    json_object_set_new(e, "command", json_string(command));
    json_object_set_new(e, "command_directory", json_string("the figures directory (OUT_DIR)"));
    json_object_set_new(e, "program_version", json_string("softmax-evidence " SE_VERSION));
    json_object_set_new(e, "gnuplot_version", json_string(gnuplot));
    json_object_set_new(e, "outputs", outs);
    static const char *const ext[2] = {"svg", "png"};
    for (int k = 0; k < 2 && st == SE_OK; k++) {
        char rel[96];
        snprintf(rel, sizeof rel, "%s.%s", f->name, ext[k]);
        json_t *o = file_entry(dir, rel, err, &st);
        if (!o)
            break;
        json_object_set_new(o, "format", json_string(ext[k]));
        json_object_set_new(o, "width", json_integer(f->width));
        json_object_set_new(o, "height", json_integer(f->height));
        json_object_set_new(o, "deterministic",
                            json_string(k == 0 ? "yes, for the same run and gnuplot version"
                                               : "not guaranteed: depends on cairo, pango, fonts "
                                                 "and zlib"));
        json_array_append_new(outs, o);
    }
    if (st != SE_OK) {
        json_decref(e);
        return st;
    }
    *out = e;
    return SE_OK;
}

static se_status write_provenance(se_rundata *rd, const se_figure *figs, const char *dir,
                                  const char *run_dir, const char *gnuplot, se_err *err)
{
    json_t *p = json_pack(
        "{s:s, s:i, s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s}, s:{s:[s,s,s,s], s:[s], s:[s], s:s}}",
        "format", PROVENANCE_FORMAT, "version", 1, "run_id", rd->run_id, "run_dir", run_dir,
        "program", "name", "softmax-evidence", "version", SE_VERSION, "command",
        "softmax-evidence figures RUN_DIR OUT_DIR", "gnuplot", "version", gnuplot, "command",
        SE_GNUPLOT_ENV " " SE_GNUPLOT_ARGS " gnuplot/<figure>.gp, run in OUT_DIR",
        "deterministic", "byte_identical_for_the_same_run", "data/*.tsv", "gnuplot/*.gp",
        "report.md", "report.html", "byte_identical_for_the_same_run_and_gnuplot_version", "*.svg",
        "not_guaranteed", "*.png", "note",
        "PNG bytes repeat on one machine but depend on the cairo, pango, font and zlib versions; "
        "provenance.json repeats when the PNGs do and RUN_DIR is given the same way");
    if (!p)
        return se_fail(err, SE_ERR_NOMEM, "figures: out of memory");
    json_t *list = json_array();
    json_object_set_new(p, "figures", list);
    se_status st = SE_OK;
    for (int i = 0; i < SE_NFIGURES && st == SE_OK; i++) {
        json_t *e = NULL;
        st = figure_entry(rd, &figs[i], dir, gnuplot, &e, err);
        if (st == SE_OK)
            json_array_append_new(list, e);
    }
    json_t *report = json_array();
    json_object_set_new(p, "report", report);
    static const char *const reports[2] = {"report.md", "report.html"};
    for (int k = 0; k < 2 && st == SE_OK; k++) {
        json_t *o = file_entry(dir, reports[k], err, &st);
        if (!o)
            break;
        json_object_set_new(o, "deterministic", json_string("yes, for the same run"));
        json_array_append_new(report, o);
    }
    char *text = st == SE_OK ? json_dumps(p, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(p);
    if (st != SE_OK)
        return st;
    if (!text)
        return se_fail(err, SE_ERR_NOMEM, "figures: " PROVENANCE ": serialization failed");
    se_buf b = {0};
    se_buf_add(&b, text);
    se_buf_add(&b, "\n");
    free(text);
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/" PROVENANCE, dir);
    st = se_buf_write_file(&b, path, PROVENANCE, err);
    se_buf_free(&b);
    return st;
}

/* ---- the command -------------------------------------------------------- */

static se_status build(se_rundata *rd, const char *dir, const char *run_dir, const char *gnuplot,
                       se_figure *figs, FILE *out, se_doc *report, se_err *err)
{
    se_status st = se_plot_prepare(rd, dir, figs, err);
    if (st == SE_OK && out)
        fprintf(out, "figures: data and gnuplot scripts written\n");
    for (int i = 0; i < SE_NFIGURES && st == SE_OK; i++) {
        if (figs[i].omitted) {
            if (out)
                fprintf(out, "figures: %s not drawn: %s\n", figs[i].name, figs[i].why_omitted);
            continue;
        }
        if (out)
            fprintf(out, "figures: drawing %s (%s)\n", figs[i].name, figs[i].shows);
        st = se_plot_draw(dir, &figs[i], out, err);
    }
    if (st == SE_OK)
        st = se_report_write(rd, figs, dir, report, err);
    if (st == SE_OK)
        st = write_provenance(rd, figs, dir, run_dir, gnuplot, err);
    return st;
}

static void list_written(FILE *out, const out_paths *o, const se_figure *figs)
{
    fprintf(out, "wrote %s/:\n", o->out);
    for (int i = 0; i < SE_NFIGURES; i++) {
        const se_figure *f = &figs[i];
        if (f->omitted)
            continue;
        fprintf(out, "  %s.svg  %s.png  (%s)\n", f->name, f->name, f->shows);
        fprintf(out, "    from %s", f->script);
        for (size_t k = 0; k < f->data_files.n; k++)
            fprintf(out, ", %s", f->data_files.v[k]);
        fprintf(out, "\n");
    }
    fprintf(out, "  report.md  report.html  " PROVENANCE "\n");
}

se_status se_figures_main(const char *run_dir, const char *out_dir, FILE *out, se_err *err)
{
    return se_figures_make(run_dir, out_dir, out, NULL, err);
}

se_status se_figures_make(const char *run_dir, const char *out_dir, FILE *out, se_doc *report,
                          se_err *err)
{
    out_paths o;
    memset(&o, 0, sizeof o);
    se_status st = split_out(out_dir, &o, err);
    if (st == SE_OK)
        st = verify_first(run_dir, out, err);
    if (st == SE_OK)
        st = check_out(run_dir, &o, err);
    char gnuplot[128] = "";
    if (st == SE_OK)
        st = se_gnuplot_version(gnuplot, sizeof gnuplot, err);
    if (st != SE_OK)
        return st;
    if (out)
        fprintf(out, "figures: %s\n", gnuplot);
    se_rundata rd;
    st = se_rundata_load(run_dir, &rd, err);
    if (st != SE_OK)
        return st;
    /* check_out allowed only a new or empty OUT_DIR or a previous figures
     * output: se_publish replaces it whole, or leaves it as it was. */
    se_publish pb;
    st = se_publish_begin(&pb, o.out, "figures", err);
    se_figure figs[SE_NFIGURES];
    memset(figs, 0, sizeof figs);
    if (st == SE_OK) {
        st = build(&rd, pb.tmp, run_dir, gnuplot, figs, out, report, err);
        if (st == SE_OK)
            st = se_manifest_write(pb.tmp, FIGURES_MANIFEST, err);
        /* Again just before replacing it: a file edited while this ran is kept. */
        struct stat sb;
        if (st == SE_OK && lstat(o.out, &sb) == 0 && dir_entries(o.out) != 0)
            st = se_manifest_own_output(o.out, FIGURES_MANIFEST, "figures", err);
        if (st == SE_OK)
            st = se_publish_commit(&pb, err);
        else
            se_publish_abort(&pb);
    }
    if (st == SE_OK && out)
        list_written(out, &o, figs);
    se_plot_free(figs);
    se_rundata_free(&rd);
    return st;
}
