/*
 * archive_cmd.c - the `archive` subcommand (see archive_cmd.h): parsing, and
 * the default selection. By default the saved arrays and the traces' task
 * records of at least 256 KiB are remote-only, except the traces Fig. 4 and
 * the site draw, so that the selected bundle still verifies, draws every
 * figure, builds the site and re-derives its profile (profile --reparse
 * needs profile/ncu_raw.csv).
 */
#define _POSIX_C_SOURCE 200809L
#include "tool/archive_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/archive.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "model/strategy.h"
#include "model/workload.h"
#include "render/plot.h"

void se_archive_usage(FILE *out)
{
    fprintf(out,
            "usage: softmax-evidence archive RUN_DIR -o FILE.tar.gz [--remote-only GLOB]...\n"
            "         [--keep GLOB]... [--remote-min-bytes N] [--no-remote-only] [--level N]\n"
            "\n"
            "Verifies the complete run RUN_DIR, writes it as one deterministic archive\n"
            "FILE.tar.gz (sorted entries under <run_id>/, owner 0, mtime the run's start,\n"
            "gzip without name or time), reads it back, and writes FILE.tar.gz.sha256.\n"
            "Then the selected files become remote-only: RUN_DIR/" SE_REMOTE_JSON " records the\n"
            "archive's name, size and SHA-256 and the files that live only there, the\n"
            "manifest lists " SE_REMOTE_JSON ", and those files are removed from RUN_DIR.\n"
            "`verify RUN_DIR --archive FILE.tar.gz` checks them against the archive.\n"
            "\n"
            "  -o FILE               the archive (never replaced if it exists)\n"
            "  --remote-only GLOB    files to leave remote-only (fnmatch, '*' crosses '/';\n"
            "                        repeatable); only arrays/*.f32, traces/<case>.csv and\n"
            "                        " SE_PROFILE_NCU_RAW_CSV " may be (a pattern skips the rest,\n"
            "                        a path named outright is refused). Default: arrays/*\n"
            "                        and traces/* of at least %d bytes, except the\n"
            "                        traces Fig. 4 and the site draw\n"
            "  --keep GLOB           files that stay local whatever else matches\n"
            "  --remote-min-bytes N  only files of at least N bytes are remote-only\n"
            "                        (default %d without --remote-only, else 0)\n"
            "  --no-remote-only      write the archive only; the run is left as it is\n"
            "  --level N             gzip compression level, 0 (stored, no compression) to 9\n"
            "                        (default %d). The saved arrays are random floats:\n"
            "                        gzip saves about 7%% of them at some 30 MB/s per core,\n"
            "                        so a run with every array (GBs) archives at --level 0\n"
            "                        in seconds (docs/ARCHIVE.md)\n",
            SE_ARCHIVE_DEFAULT_MIN_BYTES, SE_ARCHIVE_DEFAULT_MIN_BYTES, SE_ARCHIVE_DEFAULT_LEVEL);
}

void se_archive_cli_free(se_archive_cli *o)
{
    free(o->remote);
    free(o->keep);
    o->remote = o->keep = NULL;
    o->n_remote = o->n_keep = 0;
}

se_status se_archive_parse(int argc, char **argv, se_archive_cli *o, int *help, se_err *err)
{
    memset(o, 0, sizeof *o);
    o->min_bytes = -1;
    o->level = SE_ARCHIVE_DEFAULT_LEVEL;
    *help = 0;
    o->remote = calloc((size_t)argc + 1, sizeof *o->remote);
    o->keep = calloc((size_t)argc + 1, sizeof *o->keep);
    if (!o->remote || !o->keep) {
        se_archive_cli_free(o);
        return se_fail(err, SE_ERR_NOMEM, "archive: out of memory");
    }
    se_status st = SE_OK;
    for (int k = 0; k < argc && st == SE_OK; k++) {
        const char *a = argv[k];
        int takes = strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                    strcmp(a, "--remote-only") == 0 || strcmp(a, "--keep") == 0 ||
                    strcmp(a, "--remote-min-bytes") == 0 || strcmp(a, "--level") == 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = 1;
            break;
        }
        if (takes && (k + 1 >= argc || !argv[k + 1][0])) {
            st = se_fail(err, SE_ERR_USAGE, "archive: %s needs a value", a);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (o->output)
                st = se_fail(err, SE_ERR_USAGE, "archive: -o given twice");
            o->output = argv[++k];
        } else if (strcmp(a, "--remote-only") == 0) {
            o->remote[o->n_remote++] = argv[++k];
        } else if (strcmp(a, "--keep") == 0) {
            o->keep[o->n_keep++] = argv[++k];
        } else if (strcmp(a, "--remote-min-bytes") == 0) {
            st = se_parse_i64(argv[++k], 0, INT64_MAX, "--remote-min-bytes", &o->min_bytes, err);
        } else if (strcmp(a, "--level") == 0) {
            st = se_parse_i64(argv[++k], 0, 9, "--level", &o->level, err);
        } else if (strcmp(a, "--no-remote-only") == 0) {
            o->no_mark = 1;
        } else if (a[0] == '-' || !a[0]) {
            st = se_fail(err, SE_ERR_USAGE, "archive: unknown argument '%s' (see archive --help)", a);
        } else if (o->dir) {
            st = se_fail(err, SE_ERR_USAGE, "archive: one run directory, got '%s' and '%s'", o->dir, a);
        } else {
            o->dir = a;
        }
    }
    if (st == SE_OK && !*help && (!o->dir || !o->output))
        st = se_fail(err, SE_ERR_USAGE, "archive: usage: softmax-evidence archive RUN_DIR -o "
                     "FILE.tar.gz [--remote-only GLOB]... (see archive --help)");
    if (st == SE_OK && o->no_mark && (o->n_remote || o->n_keep || o->min_bytes >= 0))
        st = se_fail(err, SE_ERR_USAGE, "archive: --no-remote-only cannot be combined with "
                     "--remote-only, --keep or --remote-min-bytes");
    if (st != SE_OK)
        se_archive_cli_free(o);
    return st;
}

se_status se_archive_main(const se_archive_cli *o, FILE *out, se_err *err)
{
    if (!se_archive_supported())
        return se_fail(err, SE_ERR_USAGE, "archive: not built in: this build has no libarchive "
                       "(install libarchive-dev, scripts/deps.sh, and rebuild)");
    static const char *const defaults[] = {SE_ARRAYS_PREFIX "*", SE_TRACES_PREFIX "*"};
    const char **keep = calloc(o->n_keep + SE_STRATEGY_MAX + 1, sizeof *keep);
    char (*tl)[SE_CASE_ID_SIZE + 16] = calloc(SE_STRATEGY_MAX, sizeof *tl);
    if (!keep || !tl) {
        free(keep);
        free(tl);
        return se_fail(err, SE_ERR_NOMEM, "archive: out of memory");
    }
    size_t n_keep = 0;
    for (size_t i = 0; i < o->n_keep; i++)
        keep[n_keep++] = o->keep[i];
    se_archive_opts a = {o->dir,    o->output, !o->no_mark, NULL,          0,
                         o->n_remote > 0, NULL,      0,           0, (int)o->level};
    se_status st = SE_OK;
    if (o->n_remote) {
        a.remote = o->remote;
        a.n_remote = o->n_remote;
        a.min_bytes = o->min_bytes > 0 ? (uint64_t)o->min_bytes : 0;
    } else if (!o->no_mark) {
        a.remote = defaults;
        a.n_remote = sizeof defaults / sizeof defaults[0];
        a.min_bytes = o->min_bytes >= 0 ? (uint64_t)o->min_bytes : SE_ARCHIVE_DEFAULT_MIN_BYTES;
        /* The traces Fig. 4 draws and the site exports stay. */
        se_rundata rd;
        st = se_rundata_load(o->dir, &rd, err);
        if (st == SE_OK) {
            const se_shape *s = se_timeline_shape(&rd);
            const se_strategy_table *t = se_rundata_table(&rd);
            int v[SE_STRATEGY_MAX];
            int n = s ? se_timeline_strategies(t, v, SE_STRATEGY_MAX) : 0;
            for (int k = 0; k < n; k++) {
                char id[SE_CASE_ID_SIZE];
                se_case_id_make(s->rows, s->cols, t->s[v[k]].name, id, sizeof id);
                se_path_trace(id, tl[k], sizeof tl[k]);
                keep[n_keep++] = tl[k];
            }
            se_rundata_free(&rd);
        } else {
            st = se_fail(err, st, "archive: %s", err->msg);
        }
    }
    a.keep = keep;
    a.n_keep = n_keep;
    if (st == SE_OK)
        st = se_archive_run(&a, out, err);
    free(keep);
    free(tl);
    return st;
}
