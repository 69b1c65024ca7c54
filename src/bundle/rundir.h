/*
 * rundir.h - a run directory's life: created under a temporary name inside
 * the runs folder, filled, given its manifest, and renamed to its UTC start
 * time only when complete. A run that fails or is interrupted (SIGINT,
 * SIGTERM) is removed, so no directory that looks complete is ever
 * incomplete, and no earlier run is touched.
 */
#ifndef SE_RUNDIR_H
#define SE_RUNDIR_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "model/se_common.h"
#include "bundle/samples.h"

typedef struct se_rundir {
    char runs[4096];  /* the runs folder */
    char id[64];      /* UTC start, e.g. 20261130T061500Z */
    char tmp[4200];   /* runs/.incomplete-<id>-<pid> */
    char final[4200]; /* runs/<id> */
    char created[4096]; /* the topmost folder of runs that begin created, or "" */
    int open;
} se_rundir;

/* Creates the runs folder if needed (and se_rundir_abort removes what it
 * created, if still empty: a run refused before any work, with no GPU,
 * leaves no empty folder) and checks that it can be written
 * (naming it if not), picks the id from the current UTC time (adding -2,
 * -3, ... if a run of that second exists) and creates the temporary
 * directory. Installs SIGINT/SIGTERM handlers that only set a flag. */
se_status se_rundir_begin(se_rundir *rd, const char *runs, se_err *err);

/* 1 once SIGINT or SIGTERM arrived; long loops poll it. */
int se_rundir_interrupted(void);

/* Full path of a file inside the run (in its temporary location). */
void se_rundir_path(const se_rundir *rd, const char *rel, char *path, size_t size);

/* Opens rel for writing, creating its parent folders. */
se_status se_rundir_fopen(const se_rundir *rd, const char *rel, FILE **f, se_err *err);

/* Closes a file opened by se_rundir_fopen, reporting write errors. */
se_status se_rundir_fclose(FILE *f, const char *rel, se_err *err);

/* Writes bytes, or a JSON value (2-space indent, keys in insertion order,
 * 17 significant digits), to rel. */
se_status se_rundir_write(const se_rundir *rd, const char *rel, const void *data, size_t len,
                          se_err *err);
se_status se_rundir_write_json(const se_rundir *rd, const char *rel, const json_t *value,
                               se_err *err);

/* Writes a samples file (se_samples_write) of n_scopes sets to rel. */
se_status se_rundir_write_samples(const se_rundir *rd, const char *rel, const se_sample_set *scopes,
                                  int n_scopes, se_err *err);

/* Writes MANIFEST.sha256 and renames the directory to runs/<id>. */
se_status se_rundir_finish(se_rundir *rd, se_err *err);

/* Removes the temporary directory and everything in it. */
void se_rundir_abort(se_rundir *rd);

#endif
