/*
 * site_verify.c - verify on a site folder (see site_verify.h): the site's
 * own manifest, its left-out list against the run's manifest, and the
 * selected run files inside it.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/site_verify.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/manifest.h"
#include "bundle/verify.h"

#define PATH_SIZE 4400

/* The lines of one manifest, read with se_manifest_read. */
typedef struct line_vec {
    se_manifest_line *v; /* path strdup'd, NULL for a malformed line */
    size_t n, cap;
} line_vec;

static se_status keep(void *ctx, const se_manifest_line *line, se_err *err)
{
    line_vec *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        se_manifest_line *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "out of memory reading a manifest");
        l->v = v;
        l->cap = cap;
    }
    se_manifest_line *r = &l->v[l->n];
    *r = *line;
    r->path = line->path ? strdup(line->path) : NULL;
    if (line->path && !r->path)
        return se_fail(err, SE_ERR_NOMEM, "out of memory reading a manifest");
    l->n++;
    return SE_OK;
}

static void vec_free(line_vec *l)
{
    for (size_t i = 0; i < l->n; i++)
        free((char *)l->v[i].path);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Every line of LEFT_OUT.sha256 is the run manifest's line of a file the
 * site does not hold, and every such file is listed. */
static size_t check_left_out(const char *site_dir, FILE *out, size_t *n_left)
{
    char run_dir[PATH_SIZE];
    size_t problems = 0;
    *n_left = 0;
    snprintf(run_dir, sizeof run_dir, "%s/run", site_dir);
    line_vec m = {0}, lo = {0};
    if (se_manifest_read(run_dir, SE_MANIFEST_NAME, keep, &m, NULL) != SE_OK ||
        se_manifest_read(site_dir, SE_SITE_LEFT_OUT, keep, &lo, NULL) != SE_OK) {
        if (out)
            fprintf(out, "  %s or run/%s cannot be read\n", SE_SITE_LEFT_OUT, SE_MANIFEST_NAME);
        vec_free(&m);
        vec_free(&lo);
        return 1;
    }
    for (size_t k = 0; k < lo.n; k++)
        if (!lo.v[k].path) {
            problems++;
            if (out)
                fprintf(out, "  %s:%zu: %s\n", SE_SITE_LEFT_OUT, lo.v[k].line_no, lo.v[k].why);
        }
    /* Both files are in manifest order (sorted by path); the run manifest's
     * malformed lines are verify's to report. */
    size_t k = 0;
    while (k < lo.n && !lo.v[k].path)
        k++;
    for (size_t i = 0; i < m.n; i++) {
        const se_manifest_line *line = &m.v[i];
        if (!line->path)
            continue;
        char full[PATH_SIZE * 2];
        snprintf(full, sizeof full, "%s/%s", run_dir, line->path);
        struct stat sb;
        int here = stat(full, &sb) == 0;
        int listed = k < lo.n && strcmp(lo.v[k].path, line->path) == 0 &&
                     strcmp(lo.v[k].hex, line->hex) == 0;
        if (!here && !listed) {
            problems++;
            if (out)
                fprintf(out, "  run/%s: missing from the site and not listed in %s\n", line->path,
                        SE_SITE_LEFT_OUT);
        } else if (here && listed) {
            problems++;
            if (out)
                fprintf(out, "  run/%s: present, yet listed as left out\n", line->path);
        }
        if (listed) {
            (*n_left)++;
            for (k++; k < lo.n && !lo.v[k].path; k++)
                ;
        }
    }
    if (k < lo.n) {
        problems++;
        if (out)
            fprintf(out, "  %s lists a file the run's manifest does not: %s  %s\n",
                    SE_SITE_LEFT_OUT, lo.v[k].hex, lo.v[k].path);
    }
    vec_free(&m);
    vec_free(&lo);
    return problems;
}

se_status se_site_verify(const char *site_dir, FILE *out, se_err *err)
{
    if (out)
        fprintf(out, "verify site %s\n", site_dir);
    se_manifest_report rep;
    se_status st = se_manifest_verify(site_dir, SE_SITE_MANIFEST, out, &rep, err);
    if (st != SE_OK)
        return st;
    if (out)
        fprintf(out, "site files: %zu verified, %zu missing, %zu mismatched, %zu unlisted\n",
                rep.verified, rep.remote_only, rep.mismatched, rep.unlisted);
    size_t site_problems = rep.remote_only + rep.mismatched + rep.unlisted + rep.malformed;
    size_t n_left = 0, left_problems = check_left_out(site_dir, out, &n_left);
    if (out)
        fprintf(out, "left out of the site: %zu raw-run files listed with their hashes in %s%s\n",
                n_left, SE_SITE_LEFT_OUT, left_problems ? " (PROBLEMS above)" : "");
    char run[PATH_SIZE];
    snprintf(run, sizeof run, "%s/run", site_dir);
    se_err rerr = {{0}};
    se_status rst = se_verify_run(run, 0, out, &rerr);
    if (site_problems || left_problems || rst != SE_OK)
        return se_fail(err, SE_ERR_VALIDATION,
                       "site %s does not verify: %zu site file problem%s, %zu left-out list "
                       "problem%s%s%s", site_dir, site_problems, site_problems == 1 ? "" : "s",
                       left_problems, left_problems == 1 ? "" : "s",
                       rst != SE_OK ? "; the selected run files: " : "",
                       rst != SE_OK ? rerr.msg : "");
    if (out)
        fprintf(out, "verify site: OK (the run's files here are local; %zu remote-only)\n", n_left);
    return SE_OK;
}
