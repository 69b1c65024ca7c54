/*
 * archive_cmd.h - the `archive` subcommand's command line (docs/ARCHIVE.md):
 * its options, and the default selection of what stays local, which needs
 * the figures' choice of timeline traces (render/plot.h).
 */
#ifndef SE_ARCHIVE_CMD_H
#define SE_ARCHIVE_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/se_common.h"

/* Files of at least this many bytes under arrays/ and traces/ are
 * remote-only by default. */
#define SE_ARCHIVE_DEFAULT_MIN_BYTES 262144

typedef struct se_archive_cli {
    const char *dir;       /* RUN */
    const char *output;    /* -o FILE.tar.gz */
    const char **remote;   /* --remote-only GLOB..., owned array */
    size_t n_remote;
    const char **keep;     /* --keep GLOB..., owned array */
    size_t n_keep;
    int64_t min_bytes;     /* --remote-min-bytes N, -1: not given */
    int no_mark;           /* --no-remote-only */
    int64_t level;         /* --level N: gzip level 0 to 9 */
} se_archive_cli;

/* Parses archive's arguments (after the word "archive"); *help is set for
 * --help. Messages name the argument. Free o with se_archive_cli_free. */
se_status se_archive_parse(int argc, char **argv, se_archive_cli *o, int *help, se_err *err);

void se_archive_cli_free(se_archive_cli *o);

/* archive's help text. */
void se_archive_usage(FILE *out);

/* Runs the command: the defaults filled in, then se_archive_run. */
se_status se_archive_main(const se_archive_cli *o, FILE *out, se_err *err);

#endif
