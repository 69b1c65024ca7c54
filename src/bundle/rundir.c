/*
 * rundir.c - run directory lifecycle (see rundir.h).
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include "bundle/rundir.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle/fsutil.h"
#include "bundle/manifest.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

int se_rundir_interrupted(void)
{
    return interrupted != 0;
}

se_status se_rundir_begin(se_rundir *rd, const char *runs, se_err *err)
{
    memset(rd, 0, sizeof *rd);
    if (strlen(runs) >= sizeof rd->runs - 64)
        return se_fail(err, SE_ERR_USAGE, "--runs-dir: path too long");
    snprintf(rd->runs, sizeof rd->runs, "%s", runs);
    /* The topmost missing folder of runs: what se_rundir_abort may remove. */
    char cur[4096];
    snprintf(cur, sizeof cur, "%s", runs);
    struct stat sb;
    while (cur[0] && lstat(cur, &sb) != 0 && errno == ENOENT) {
        snprintf(rd->created, sizeof rd->created, "%s", cur);
        char *slash = strrchr(cur, '/');
        while (slash && slash > cur && slash[-1] == '/')
            slash--;
        if (!slash || slash == cur)
            break;
        *slash = '\0';
    }
    se_status st = se_mkdirs(runs, err);
    if (st != SE_OK)
        return se_fail(err, SE_ERR_IO, "runs folder %s cannot be created: %s", runs, strerror(errno));
    if (stat(runs, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return se_fail(err, SE_ERR_IO, "runs folder %s is not a folder", runs);
    if (access(runs, W_OK | X_OK) != 0)
        return se_fail(err, SE_ERR_IO, "runs folder %s cannot be written: %s", runs, strerror(errno));
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(rd->id, sizeof rd->id, "%s", base);
    for (int k = 2; ; k++) {
        snprintf(rd->final, sizeof rd->final, "%s/%s", runs, rd->id);
        if (access(rd->final, F_OK) != 0)
            break;
        snprintf(rd->id, sizeof rd->id, "%s-%d", base, k);
    }
    snprintf(rd->tmp, sizeof rd->tmp, "%s/.incomplete-%s-%ld", runs, rd->id, (long)getpid());
    if (mkdir(rd->tmp, 0755) != 0) /* its own: mkdir fails on any existing name */
        return se_fail(err, SE_ERR_IO, "cannot create %s: %s", rd->tmp, strerror(errno));
    rd->open = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return SE_OK;
}

void se_rundir_path(const se_rundir *rd, const char *rel, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", rd->tmp, rel);
}

se_status se_rundir_fopen(const se_rundir *rd, const char *rel, FILE **f, se_err *err)
{
    char path[4400];
    se_rundir_path(rd, rel, path, sizeof path);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    se_status st = se_mkdirs(path, err);
    *slash = '/';
    if (st != SE_OK)
        return st;
    *f = fopen(path, "wb");
    if (!*f)
        return se_fail(err, SE_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    return SE_OK;
}

se_status se_rundir_fclose(FILE *f, const char *rel, se_err *err)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return se_fail(err, SE_ERR_IO, "writing %s failed: %s", rel, strerror(errno));
    return SE_OK;
}

se_status se_rundir_write(const se_rundir *rd, const char *rel, const void *data, size_t len,
                          se_err *err)
{
    FILE *f;
    se_status st = se_rundir_fopen(rd, rel, &f, err);
    if (st != SE_OK)
        return st;
    if (len && fwrite(data, 1, len, f) != len) {
        fclose(f);
        return se_fail(err, SE_ERR_IO, "writing %s failed: %s", rel, strerror(errno));
    }
    return se_rundir_fclose(f, rel, err);
}

se_status se_rundir_write_json(const se_rundir *rd, const char *rel, const json_t *value,
                               se_err *err)
{
    char *text = json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (!text)
        return se_fail(err, SE_ERR_NOMEM, "%s: JSON serialization failed", rel);
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (!line) {
        free(text);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    se_status st = se_rundir_write(rd, rel, line, n + 1, err);
    free(line);
    return st;
}

se_status se_rundir_write_samples(const se_rundir *rd, const char *rel, const se_sample_set *scopes,
                                  int n_scopes, se_err *err)
{
    FILE *f;
    se_status st = se_rundir_fopen(rd, rel, &f, err);
    if (st != SE_OK)
        return st;
    st = se_samples_write(f, scopes, n_scopes, err);
    se_status st2 = se_rundir_fclose(f, rel, err);
    return st == SE_OK ? st2 : st;
}

se_status se_rundir_finish(se_rundir *rd, se_err *err)
{
    if (interrupted)
        return se_fail(err, SE_ERR_IO, "interrupted by signal %d", (int)interrupted);
    se_status st = se_manifest_write(rd->tmp, SE_MANIFEST_NAME, err);
    if (st != SE_OK)
        return st;
    if (access(rd->final, F_OK) == 0)
        return se_fail(err, SE_ERR_IO, "%s appeared while the run was being written; the run "
                       "stays in %s", rd->final, rd->tmp);
    if (rename(rd->tmp, rd->final) != 0)
        return se_fail(err, SE_ERR_IO, "renaming %s to %s failed: %s", rd->tmp, rd->final,
                       strerror(errno));
    rd->open = 0;
    return SE_OK;
}

void se_rundir_abort(se_rundir *rd)
{
    if (!rd->open)
        return;
    se_remove_tree(rd->tmp);
    rd->open = 0;
    /* The folders begin created, innermost first, each only while empty. */
    size_t top = strlen(rd->created);
    char cur[sizeof rd->runs];
    snprintf(cur, sizeof cur, "%s", rd->runs);
    while (top && strlen(cur) >= top && rmdir(cur) == 0 && strlen(cur) > top) {
        char *slash = strrchr(cur, '/');
        if (!slash)
            break;
        *slash = '\0';
    }
}
