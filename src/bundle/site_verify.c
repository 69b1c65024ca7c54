/*
 * site_verify.c - verify on a site folder (see site_verify.h): the site's
 * own manifest, its left-out list against the run's manifest, and the
 * selected run files inside it.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/site_verify.h"

#include <string.h>
#include <sys/stat.h>

#include "bundle/manifest.h"
#include "bundle/verify.h"

#define PATH_SIZE 4400

/* Every line of LEFT_OUT.sha256 is the run manifest's line of a file the
 * site does not hold, and every such file is listed. */
static size_t check_left_out(const char *site_dir, FILE *out, size_t *n_left)
{
    char path[PATH_SIZE], line[4600];
    size_t problems = 0;
    *n_left = 0;
    snprintf(path, sizeof path, "%s/run/%s", site_dir, SE_MANIFEST_NAME);
    FILE *m = fopen(path, "r");
    snprintf(path, sizeof path, "%s/%s", site_dir, SE_SITE_LEFT_OUT);
    FILE *lo = fopen(path, "r");
    if (!m || !lo) {
        if (out)
            fprintf(out, "  %s or run/%s cannot be read\n", SE_SITE_LEFT_OUT, SE_MANIFEST_NAME);
        if (m)
            fclose(m);
        if (lo)
            fclose(lo);
        return 1;
    }
    /* Both files are in manifest order (sorted by path). */
    char lol[4600];
    int have = fgets(lol, sizeof lol, lo) != NULL;
    while (fgets(line, sizeof line, m)) {
        char rel[4600], full[PATH_SIZE * 3];
        snprintf(rel, sizeof rel, "%s", strlen(line) > 66 ? line + 66 : "");
        rel[strcspn(rel, "\n")] = '\0';
        snprintf(full, sizeof full, "%s/run/%s", site_dir, rel);
        struct stat sb;
        int here = stat(full, &sb) == 0;
        int listed = have && strcmp(lol, line) == 0;
        if (!here && !listed) {
            problems++;
            if (out)
                fprintf(out, "  run/%s: missing from the site and not listed in %s\n", rel,
                        SE_SITE_LEFT_OUT);
        } else if (here && listed) {
            problems++;
            if (out)
                fprintf(out, "  run/%s: present, yet listed as left out\n", rel);
        }
        if (listed) {
            (*n_left)++;
            have = fgets(lol, sizeof lol, lo) != NULL;
        }
    }
    if (have) {
        problems++;
        if (out)
            fprintf(out, "  %s lists a file the run's manifest does not: %s", SE_SITE_LEFT_OUT, lol);
    }
    fclose(m);
    fclose(lo);
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
