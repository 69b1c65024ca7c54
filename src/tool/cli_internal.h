/*
 * cli_internal.h - what the parser (cli.c) and the help (cli_help.c) of the
 * command line share: run's option table, and the subcommands' documents.
 */
#ifndef SE_CLI_INTERNAL_H
#define SE_CLI_INTERNAL_H

#include <stddef.h>

enum opt_id { O_SHAPES, O_TILE, O_SEED, O_SCALE, O_EPS, O_STRATEGIES, O_BLOCKS, O_DEVICE,
              O_INVOCATIONS, O_QUIET, O_PROTOCOL, O_RUNS_DIR, O_SAVE_ARRAYS, O_ARRAYS_MAX, O_VALIDATE_ONLY, O_NO_BLOCK,
              O_NO_PEERS, O_PEERS_SCRIPT, O_PEERS_PYTHON, O_RUN_DIR_OUT, O_COUNT };

typedef struct opt_def {
    enum opt_id id;
    const char *name;
    int takes_value;
    const char *help;
} opt_def;

/* run's options, in the order its help lists them (cli.c). */
extern const opt_def se_cli_run_opts[];
extern const size_t se_cli_n_run_opts;

/* 1 when cmd is a subcommand with its own document (cli_help.c). */
int se_cli_has_doc(const char *cmd);

#endif
