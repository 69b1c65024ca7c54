/*
 * cli.h - the command line of softmax-evidence: subcommands and options,
 * parsed from one table with range-checked values, without exiting.
 */
#ifndef SE_CLI_H
#define SE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/se_common.h"
#include "model/workload.h"
#include "tool/archive_cmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The built-in protocol, embedded at build time; its shapes are a run's
 * default (se_cli_default_shapes). SE_DEFAULT_SHAPES only seeds the option
 * parser, which the protocol's shapes replace unless --shapes is given; a
 * test keeps it equal to the protocol's list. */
#define SE_DEFAULT_PROTOCOL "protocol/default.json"
#define SE_DEFAULT_SHAPES \
    "32x4096,4096x4096,1024x32768,64x262144,8x1048576,4x4194304,1x1,1x7,3x4097,5xT+1,2x100003," \
    "8x1048573,4x4194301,256x1048576"
#define SE_DEFAULT_TILE 4096
#define SE_DEFAULT_SEED 20261130
#define SE_DEFAULT_SCALE 16.0
#define SE_DEFAULT_EPS 1e-6
#define SE_DEFAULT_INVOCATIONS 2

typedef enum se_command {
    SE_CMD_HELP,
    SE_CMD_VERSION,
    SE_CMD_RUN,
    SE_CMD_VERIFY,
    SE_CMD_TRACE,
    SE_CMD_FIGURES,
    SE_CMD_SITE,
    SE_CMD_PROFILE,
    SE_CMD_TABLE,
    SE_CMD_ANSWER,
    SE_CMD_PROFILE_TARGET, /* internal: what `profile` runs under Nsight Compute */
    SE_CMD_SIGN,
    SE_CMD_ARCHIVE,     /* tool/archive_cmd.h */
    SE_CMD_ARCHIVE_HELP,
    SE_CMD_COMPARE,
    SE_CMD_EXPORT,
    SE_CMD_GOALS
} se_command;

/* Bits of se_run_opts.given: which workload options the command line set
 * (they override the protocol's values). */
enum {
    SE_GIVEN_SHAPES = 1u << 0,
    SE_GIVEN_TILE = 1u << 1,
    SE_GIVEN_SEED = 1u << 2,
    SE_GIVEN_SCALE = 1u << 3,
    SE_GIVEN_EPS = 1u << 4,
    SE_GIVEN_STRATEGIES = 1u << 5,
    SE_GIVEN_INVOCATIONS = 1u << 6
};

#define SE_DEFAULT_RUNS_DIR "runs"

typedef struct se_run_opts {
    se_shape *shapes;   /* owned; free with se_cli_free */
    size_t n_shapes;
    int64_t tile;       /* columns per tile, >= 1 */
    uint64_t seed;      /* cuRAND seed */
    double scale;       /* input standard deviation */
    double eps;         /* RMS epsilon */
    unsigned strategies;/* bit mask over se_strategy */
    int64_t blocks;     /* grid of the cooperative kernels; 0 = automatic */
    int device;         /* CUDA device ordinal */
    int invocations;    /* invocations validated per (strategy, shape) */
    int quiet;          /* no progress on stderr */
    unsigned given;     /* SE_GIVEN_* bits */
    const char *shapes_text; /* the --shapes value, if given */
    const char *protocol_path; /* --protocol, NULL for the repository's default */
    const char *runs_dir;      /* --runs-dir */
    const char *run_dir_out;   /* --run-dir-out: where to write the run directory's path */
    int save_arrays;           /* --save-arrays */
    int64_t arrays_max_bytes;  /* --arrays-max-bytes: save only cases whose input is at most
                                  this large (0: no limit) */
    int validate_only;         /* --validate-only: no timing, no run directory */
    int no_blocking_kernel;    /* --no-blocking-kernel: for runs under compute-sanitizer */
    int no_peers;              /* --no-peers: do not measure the PyTorch peers */
    const char *peers_script;  /* --peers-script, NULL for the source tree's bench/peers.py */
    const char *peers_python;  /* --peers-python, NULL for python3 */
} se_run_opts;

typedef struct se_trace_opts {
    const char *dir;     /* a run directory */
    const char *case_id; /* e.g. 4096x4096.megakernel */
    const char *output;  /* -o FILE.json */
} se_trace_opts;

/* figures RUN_DIR OUT_DIR; table RUN_DIR; goals RUN_DIR; profile RUN_DIR; profile-target RUN_DIR;
 * site RUN_DIR OUT_DIR. */
typedef struct se_dir_opts {
    const char *dir;
    const char *out_dir;
    int reparse;   /* profile --reparse */
    int format;    /* table and goals --format: se_format (render/format.h) */
    int quiet;     /* --quiet, or stderr is not a terminal: no progress */
    const char *set; /* table, site, figures --set FILE: the answer over a run set */
} se_dir_opts;

/* compare RUN_A RUN_B [RUN...] [--format F] [--fail-if-slower PCT] [--scope S] */
typedef struct se_compare_cli {
    const char **dirs;     /* argv entries; the first is the baseline A */
    size_t n_dirs;
    int format;            /* se_format */
    double fail_if_slower; /* percent, < 0 when not given */
    const char *scope;     /* "device" unless --scope */
    const char *a_set, *b_set; /* --a-set/--b-set: run sets, several runs a side */
    const char *floor;     /* --floor FILE: a recorded noise floor */
    const char *record_floor; /* --record-floor OUT: write the floor of the runs and exit */
} se_compare_cli;

/* export RUN --format nvbench|gbench -o FILE */
typedef struct se_export_cli {
    const char *dir;
    int gbench;            /* 0: nvbench, 1: Google Benchmark */
    const char *output;
} se_export_cli;

typedef struct se_verify_opts {
    const char *dir;  /* a run directory */
    int strict;       /* --strict: remote-only files fail too */
    const char *trusted_key; /* --trusted-key PUB: the manifest's signature must be this key's */
    const char *archive;     /* --archive FILE.tar.gz: the remote-only files checked in it */
} se_verify_opts;

/* sign RUN_DIR --key KEY */
typedef struct se_sign_opts {
    const char *dir;
    const char *key;  /* an Ed25519 private key, PEM */
} se_sign_opts;

/* answer RUN [RUN...] [--format text|md|summary|json] */
typedef struct se_answer_opts {
    const char **dirs;  /* argv entries, the first is the reference run */
    size_t n_dirs;
    int format;         /* se_format (render/format.h): text, md, summary or json */
    const char *set;    /* --set FILE: a run set (bundle/runset.h) instead of dirs */
} se_answer_opts;

typedef struct se_cli {
    se_command cmd;
    se_run_opts run;
    se_verify_opts verify;
    se_trace_opts trace;
    se_dir_opts dirs;
    se_answer_opts answer;
    se_sign_opts sign;
    se_archive_cli archive;
    se_compare_cli compare;
    se_export_cli export_;
    const char *help_for;  /* SE_CMD_HELP: the subcommand whose help was asked, or NULL */
} se_cli;

/* Parses argv. On success cli is filled (free it with se_cli_free); on
 * failure err names the argument and nothing needs freeing. */
se_status se_cli_parse(int argc, char **argv, se_cli *cli, se_err *err);

void se_cli_free(se_cli *cli);

/* The --help text: every command in one line each, the exit codes. */
void se_cli_usage(FILE *out);
/* The built-in protocol's shapes as written, ", " between them. */
void se_cli_default_shapes(char *buf, size_t size);

/* `softmax-evidence CMD --help`: that command's usage, what it does and its
 * options. Returns 0 if CMD is not a command. */
int se_cli_command_help(FILE *out, const char *cmd);

#ifdef __cplusplus
}
#endif

#endif
