/*
 * cli.c - command-line parsing (see cli.h). Options come from one table;
 * both "--opt VALUE" and "--opt=VALUE" are accepted.
 */
#include "tool/cli.h"

#include <stdlib.h>
#include <string.h>

#include "model/protocol.h"
#include "model/strategy.h"

enum opt_id { O_SHAPES, O_TILE, O_SEED, O_SCALE, O_EPS, O_STRATEGIES, O_BLOCKS, O_DEVICE,
              O_INVOCATIONS, O_QUIET, O_PROTOCOL, O_RUNS_DIR, O_SAVE_ARRAYS, O_ARRAYS_MAX, O_VALIDATE_ONLY, O_NO_BLOCK,
              O_NO_PEERS, O_PEERS_SCRIPT, O_PEERS_PYTHON, O_RUN_DIR_OUT, O_COUNT };

typedef struct opt_def {
    enum opt_id id;
    const char *name;
    int takes_value;
    const char *help;
} opt_def;

static const opt_def run_opts[] = {
    {O_PROTOCOL, "--protocol", 1, "protocol file (default: protocol/default.json, built in)"},
    {O_RUNS_DIR, "--runs-dir", 1, "folder that receives the run directory (default: runs)"},
    {O_RUN_DIR_OUT, "--run-dir-out", 1, "when a run directory was written (also when a case\n"
                                        "                         failed validation), write its path and a newline\n"
                                        "                         to this file (a temporary file, renamed), for scripts"},
    {O_SAVE_ARRAYS, "--save-arrays", 0, "also save every case's input and output arrays"},
    {O_ARRAYS_MAX, "--arrays-max-bytes", 1, "with --save-arrays: only cases whose input is at\n"
                                            "                         most this many bytes"},
    {O_VALIDATE_ONLY, "--validate-only", 0, "validate and print the table; no timing, no run\n"
                                            "                         directory"},
    {O_SHAPES, "--shapes", 1, "comma-separated RxC list; C may be T, T+k, T-k (tile);\n"
                              "                         this and the options below override the protocol"},
    {O_TILE, "--tile", 1, "columns per tile T (default 4096)"},
    {O_SEED, "--seed", 1, "cuRAND seed of the input (default 20261130)"},
    {O_SCALE, "--scale", 1, "standard deviation of the normal input, 1e-30 to\n                         1e36 (default 16)"},
    {O_EPS, "--eps", 1, "epsilon inside the RMS (default 1e-6)"},
    {O_STRATEGIES, "--strategies", 1, "all, or a comma-separated list of the strategies\n"
                                      "                         below"},
    {O_BLOCKS, "--blocks", 1, "grid of the cooperative kernels (default: as many as can be\n"
                              "                         co-resident, capped by the work)"},
    {O_DEVICE, "--device", 1, "CUDA device ordinal (default 0)"},
    {O_INVOCATIONS, "--invocations", 1, "invocations validated per case (default 2)"},
    {O_QUIET, "--quiet", 0, "no progress on stderr"},
    {O_NO_BLOCK, "--no-blocking-kernel", 0, "time without the blocking kernel (for runs under\n"
                                            "                         compute-sanitizer, which serializes launches;\n"
                                            "                         device times then include host submission)"},
    {O_NO_PEERS, "--no-peers", 0, "do not measure the PyTorch peers (peers.json says skipped)"},
    {O_PEERS_SCRIPT, "--peers-script", 1, "the peers script (default: bench/peers.py of the\n"
                                          "                         source tree)"},
    {O_PEERS_PYTHON, "--peers-python", 1, "the python that runs it, with torch (default python3)"},
};

#define N_RUN_OPTS (sizeof run_opts / sizeof run_opts[0])

/* Prints text from column `indent` (the cursor is there) to at most
 * `width` columns, breaking lines between words. */
static void print_wrapped(FILE *out, const char *text, int indent, int width)
{
    int col = indent;
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > indent && col + 1 + (int)word > width) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        }
        fprintf(out, "%.*s", (int)word, text);
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void se_cli_usage(FILE *out)
{
    fprintf(out,
            "usage: softmax-evidence run [options]\n"
            "       softmax-evidence verify RUN_DIR [--strict] [--trusted-key PUB] [--archive F]\n"
            "       softmax-evidence sign RUN_DIR --key KEY\n"
            "       softmax-evidence archive RUN_DIR -o FILE.tar.gz [--remote-only GLOB]...\n"
            "       softmax-evidence trace RUN_DIR CASE -o FILE.json\n"
            "       softmax-evidence figures RUN_DIR OUT_DIR\n"
            "       softmax-evidence table RUN_DIR\n"
            "       softmax-evidence answer RUN_DIR [RUN_DIR...] [--format text|md]\n"
            "       softmax-evidence site RUN_DIR OUT_DIR\n"
            "       softmax-evidence profile RUN_DIR [--reparse]\n"
            "       softmax-evidence --help | --version\n"
            "\n"
            "run: on a GPU, computes the RMS-scaled softmax with every strategy on every\n"
            "shape of the protocol, validates each output against a float64 CPU reference\n"
            "and cuDNN, times every strategy and control in every scope, and writes a run\n"
            "directory RUNS_DIR/<UTC start>/ with its SHA-256 manifest; a separate traced\n"
            "run of every strategy records each task's SM and start and end times; then\n"
            "bench/peers.py times PyTorch eager, torch.compile and torch.softmax on the same\n"
            "inputs (skipped, saying why, where python, torch or CUDA for torch is missing).\n"
            "verify: with no GPU, re-hashes a run directory against its manifest,\n"
            "recomputes every timing summary from the raw samples and re-checks the\n"
            "validation, every dependency trace and the PyTorch peers; --strict also fails\n"
            "on files listed but not present; --trusted-key PUB also checks that\n"
            "MANIFEST.sha256.sig is an Ed25519 signature of the manifest by that key.\n"
            "sign: verifies a run, then signs its MANIFEST.sha256 with the Ed25519 private\n"
            "key KEY (PEM) into MANIFEST.sha256.sig (docs/SIGNING.md).\n"
            "archive: writes the complete run as a deterministic .tar.gz and leaves the\n"
            "selected bundle (big arrays and traces remote-only, recorded in remote.json);\n"
            "verify --archive F checks them against F (docs/ARCHIVE.md; archive --help).\n"
            "trace: writes one trace of a run (CASE = <rows>x<cols>.<strategy>) as Chrome\n"
            "trace-event JSON for Perfetto, and prints its checks and summary.\n"
            "figures: verifies a run, then draws its figures (SVG and PNG, with gnuplot)\n"
            "and writes report.md, report.html and provenance.json into OUT_DIR.\n"
            "table: verifies a run, then prints its timing table (the one run prints last):\n"
            "strategies, copy and peers per shape, GB/s, fraction of copy, ratio to the best\n"
            "peer.\n"
            "answer: verifies the runs, then states the answer: per shape and mechanism the\n"
            "device-time ratio to stream with its 95%% interval in the first run and its\n"
            "range over all the runs given, and sentences generated from those numbers.\n"
            "site: verifies a run and builds a static evidence site (HTML, CSS, figures,\n"
            "selected run files, SITE_MANIFEST.sha256); verify also accepts a site.\n"
            "profile: on a GPU, runs Nsight Compute over every kernel of every strategy on\n"
            "the run's shapes, saves the counters as CSV in the run directory and updates\n"
            "its manifest; --reparse rebuilds them from the run's saved ncu CSV (no GPU).\n"
            "\n"
            "Exit status: 0 all passed, 1 a validation or verification failed, 2 bad\n"
            "argument, 3 a device or memory limit, 4 a CUDA error, 5 an I/O or host memory\n"
            "error, 6 no CUDA device.\n"
            "\n"
            "options of run:\n");
    for (size_t i = 0; i < N_RUN_OPTS; i++)
        fprintf(out, "  %-14s %s  %s\n", run_opts[i].name, run_opts[i].takes_value ? "V" : " ",
                run_opts[i].help);
    fprintf(out, "\nstrategies (in the order a run takes them):\n");
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        fprintf(out, "  %-18s", info->name);
        print_wrapped(out, info->description, 20, 79);
    }
    fprintf(out, "\ndefault shapes: %s\n", SE_DEFAULT_SHAPES);
}

static const opt_def *find_opt(const char *arg, const char **value)
{
    *value = NULL;
    for (size_t i = 0; i < N_RUN_OPTS; i++) {
        size_t n = strlen(run_opts[i].name);
        if (strncmp(arg, run_opts[i].name, n) != 0)
            continue;
        if (arg[n] == '\0')
            return &run_opts[i];
        if (arg[n] == '=' && run_opts[i].takes_value) {
            *value = arg + n + 1;
            return &run_opts[i];
        }
    }
    return NULL;
}

static se_status set_opt(se_run_opts *o, const opt_def *d, const char *v, const char **shapes,
                         se_err *err)
{
    int64_t i = 0;
    se_status st = SE_OK;
    switch (d->id) {
    case O_SHAPES:
        *shapes = v;
        o->shapes_text = v;
        break;
    case O_TILE: st = se_parse_i64(v, 1, SE_MAX_DIM, "--tile", &o->tile, err); break;
    case O_SEED:
        st = se_parse_i64(v, 0, INT64_MAX, "--seed", &i, err);
        o->seed = (uint64_t)i;
        break;
    case O_SCALE: st = se_parse_f64(v, SE_SCALE_MIN, SE_SCALE_MAX, "--scale", &o->scale, err); break;
    case O_EPS: st = se_parse_f64(v, 0.0, 1.0, "--eps", &o->eps, err); break;
    case O_STRATEGIES: st = se_strategy_parse_list(v, &o->strategies, err); break;
    case O_BLOCKS: st = se_parse_i64(v, 1, 1 << 20, "--blocks", &o->blocks, err); break;
    case O_DEVICE:
        st = se_parse_i64(v, 0, 1023, "--device", &i, err);
        o->device = (int)i;
        break;
    case O_INVOCATIONS:
        st = se_parse_i64(v, 1, 100, "--invocations", &i, err);
        o->invocations = (int)i;
        break;
    case O_QUIET: o->quiet = 1; break;
    case O_PROTOCOL:
        if (!*v)
            return se_fail(err, SE_ERR_USAGE, "--protocol: empty file name");
        o->protocol_path = v;
        break;
    case O_RUNS_DIR:
        if (!*v)
            return se_fail(err, SE_ERR_USAGE, "--runs-dir: empty folder name");
        o->runs_dir = v;
        break;
    case O_RUN_DIR_OUT:
        if (!*v)
            return se_fail(err, SE_ERR_USAGE, "--run-dir-out: empty file name");
        o->run_dir_out = v;
        break;
    case O_SAVE_ARRAYS: o->save_arrays = 1; break;
    case O_ARRAYS_MAX:
        st = se_parse_i64(v, 1, INT64_MAX, "--arrays-max-bytes", &o->arrays_max_bytes, err);
        break;
    case O_VALIDATE_ONLY: o->validate_only = 1; break;
    case O_NO_BLOCK: o->no_blocking_kernel = 1; break;
    case O_NO_PEERS: o->no_peers = 1; break;
    case O_COUNT: break;
    case O_PEERS_SCRIPT:
    case O_PEERS_PYTHON:
        if (!*v)
            return se_fail(err, SE_ERR_USAGE, "%s: empty path", d->name);
        *(d->id == O_PEERS_SCRIPT ? &o->peers_script : &o->peers_python) = v;
        break;
    }
    static const unsigned given[O_COUNT] = {
        [O_SHAPES] = SE_GIVEN_SHAPES, [O_TILE] = SE_GIVEN_TILE, [O_SEED] = SE_GIVEN_SEED,
        [O_SCALE] = SE_GIVEN_SCALE, [O_EPS] = SE_GIVEN_EPS, [O_STRATEGIES] = SE_GIVEN_STRATEGIES,
        [O_INVOCATIONS] = SE_GIVEN_INVOCATIONS, [O_VALIDATE_ONLY] = 0};
    if (st == SE_OK)
        o->given |= given[d->id];
    return st;
}

static se_status parse_run(int argc, char **argv, se_run_opts *o, int *help, se_err *err)
{
    const char *shapes = SE_DEFAULT_SHAPES;
    o->tile = SE_DEFAULT_TILE;
    o->seed = SE_DEFAULT_SEED;
    o->scale = SE_DEFAULT_SCALE;
    o->eps = SE_DEFAULT_EPS;
    o->strategies = (1u << SE_NSTRATEGIES) - 1;
    o->invocations = SE_DEFAULT_INVOCATIONS;
    o->runs_dir = SE_DEFAULT_RUNS_DIR;
    for (int k = 0; k < argc; k++) {
        const char *value;
        if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            *help = 1;
            return SE_OK;
        }
        const opt_def *d = find_opt(argv[k], &value);
        if (!d)
            return se_fail(err, SE_ERR_USAGE, "run: unknown argument '%s' (see --help)", argv[k]);
        if (d->takes_value && !value) {
            if (k + 1 >= argc)
                return se_fail(err, SE_ERR_USAGE, "%s: missing value", d->name);
            value = argv[++k];
        }
        se_status st = set_opt(o, d, value, &shapes, err);
        if (st != SE_OK)
            return st;
    }
    if (o->no_peers && (o->peers_script || o->peers_python))
        return se_fail(err, SE_ERR_USAGE, "--no-peers: cannot be combined with %s",
                       o->peers_script ? "--peers-script" : "--peers-python");
    /* Shapes last: "T" in a shape means the final --tile, wherever it was given. */
    return se_parse_shape_list(shapes, o->tile, &o->shapes, &o->n_shapes, err);
}

/* Commands that take `want` directory arguments and no options. */
static se_status parse_dirs(int argc, char **argv, se_command cmd, int want, const char *usage,
                            se_cli *cli, se_err *err)
{
    cli->cmd = cmd;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    for (int k = 0; k < argc; k++) {
        if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        }
        if (argv[k][0] == '-' || !argv[k][0])
            return se_fail(err, SE_ERR_USAGE, "%s (unknown argument '%s')", usage, argv[k]);
        if (npos == want)
            return se_fail(err, SE_ERR_USAGE, "%s (unexpected argument '%s')", usage, argv[k]);
        pos[npos++] = argv[k];
    }
    if (npos < want)
        return se_fail(err, SE_ERR_USAGE, "%s", usage);
    cli->dirs.dir = pos[0];
    cli->dirs.out_dir = pos[1];
    return SE_OK;
}

static se_status parse_trace(int argc, char **argv, se_cli *cli, se_err *err)
{
    cli->cmd = SE_CMD_TRACE;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    for (int k = 0; k < argc; k++) {
        if (strcmp(argv[k], "-o") == 0 || strcmp(argv[k], "--output") == 0) {
            if (k + 1 >= argc || !*argv[k + 1])
                return se_fail(err, SE_ERR_USAGE, "trace: %s needs a file name", argv[k]);
            cli->trace.output = argv[++k];
        } else if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (argv[k][0] == '-') {
            return se_fail(err, SE_ERR_USAGE, "trace: unknown argument '%s'", argv[k]);
        } else if (npos == 2) {
            return se_fail(err, SE_ERR_USAGE, "trace: unexpected argument '%s'", argv[k]);
        } else {
            pos[npos++] = argv[k];
        }
    }
    if (npos < 2)
        return se_fail(err, SE_ERR_USAGE, "trace: usage: softmax-evidence trace RUN_DIR CASE -o FILE.json");
    if (!cli->trace.output)
        return se_fail(err, SE_ERR_USAGE, "trace: missing -o FILE.json");
    cli->trace.dir = pos[0];
    cli->trace.case_id = pos[1];
    return SE_OK;
}

static se_status parse_answer(int argc, char **argv, se_cli *cli, se_err *err)
{
    cli->cmd = SE_CMD_ANSWER;
    cli->answer.dirs = calloc((size_t)argc + 1, sizeof *cli->answer.dirs);
    if (!cli->answer.dirs)
        return se_fail(err, SE_ERR_NOMEM, "answer: out of memory");
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : k + 1 < argc ? argv[++k] : "";
            if (strcmp(v, "md") == 0)
                cli->answer.markdown = 1;
            else if (strcmp(v, "text") == 0)
                cli->answer.markdown = 0;
            else
                return se_fail(err, SE_ERR_USAGE, "answer: --format: '%s' is not text or md", v);
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (a[0] == '-') {
            return se_fail(err, SE_ERR_USAGE, "answer: unknown argument '%s'", a);
        } else {
            cli->answer.dirs[cli->answer.n_dirs++] = a;
        }
    }
    if (cli->answer.n_dirs == 0)
        return se_fail(err, SE_ERR_USAGE,
                       "answer: usage: softmax-evidence answer RUN_DIR [RUN_DIR...] [--format text|md]");
    return SE_OK;
}

static se_status parse_sign(int argc, char **argv, se_cli *cli, se_err *err)
{
    cli->cmd = SE_CMD_SIGN;
    for (int k = 0; k < argc; k++) {
        if (strcmp(argv[k], "--key") == 0) {
            if (k + 1 >= argc || !*argv[k + 1])
                return se_fail(err, SE_ERR_USAGE, "sign: --key needs a private key file");
            cli->sign.key = argv[++k];
        } else if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (argv[k][0] == '-' || !argv[k][0]) {
            return se_fail(err, SE_ERR_USAGE, "sign: unknown argument '%s'", argv[k]);
        } else if (cli->sign.dir) {
            return se_fail(err, SE_ERR_USAGE, "sign: one run directory, got '%s' and '%s'",
                           cli->sign.dir, argv[k]);
        } else {
            cli->sign.dir = argv[k];
        }
    }
    if (!cli->sign.dir || !cli->sign.key)
        return se_fail(err, SE_ERR_USAGE, "sign: usage: softmax-evidence sign RUN_DIR --key KEY");
    return SE_OK;
}

se_status se_cli_parse(int argc, char **argv, se_cli *cli, se_err *err)
{
    memset(cli, 0, sizeof *cli);
    if (argc < 2)
        return se_fail(err, SE_ERR_USAGE, "missing command; try 'softmax-evidence --help'");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli->cmd = SE_CMD_HELP;
        return SE_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        cli->cmd = SE_CMD_VERSION;
        return SE_OK;
    }
    if (strcmp(cmd, "run") == 0) {
        int help = 0;
        cli->cmd = SE_CMD_RUN;
        se_status st = parse_run(argc - 2, argv + 2, &cli->run, &help, err);
        if (st != SE_OK || help)
            se_cli_free(cli);
        if (help)
            cli->cmd = SE_CMD_HELP;
        return st;
    }
    if (strcmp(cmd, "verify") == 0) {
        cli->cmd = SE_CMD_VERIFY;
        for (int k = 2; k < argc; k++) {
            if (strcmp(argv[k], "--strict") == 0)
                cli->verify.strict = 1;
            else if (strcmp(argv[k], "--trusted-key") == 0 && k + 1 < argc && argv[k + 1][0])
                cli->verify.trusted_key = argv[++k];
            else if (strcmp(argv[k], "--trusted-key") == 0)
                return se_fail(err, SE_ERR_USAGE, "verify: --trusted-key needs a public key file");
            else if (strcmp(argv[k], "--archive") == 0 && k + 1 < argc && argv[k + 1][0])
                cli->verify.archive = argv[++k];
            else if (strcmp(argv[k], "--archive") == 0)
                return se_fail(err, SE_ERR_USAGE, "verify: --archive needs the run's .tar.gz");
            else if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0)
                cli->cmd = SE_CMD_HELP;
            else if (argv[k][0] == '-')
                return se_fail(err, SE_ERR_USAGE, "verify: unknown argument '%s'", argv[k]);
            else if (cli->verify.dir)
                return se_fail(err, SE_ERR_USAGE, "verify: one run directory, got '%s' and '%s'",
                               cli->verify.dir, argv[k]);
            else
                cli->verify.dir = argv[k];
        }
        if (cli->cmd == SE_CMD_VERIFY && !cli->verify.dir)
            return se_fail(err, SE_ERR_USAGE, "verify: missing RUN_DIR");
        return SE_OK;
    }
    if (strcmp(cmd, "trace") == 0)
        return parse_trace(argc - 2, argv + 2, cli, err);
    if (strcmp(cmd, "answer") == 0) {
        se_status st = parse_answer(argc - 2, argv + 2, cli, err);
        if (st != SE_OK)
            se_cli_free(cli);
        return st;
    }
    if (strcmp(cmd, "sign") == 0)
        return parse_sign(argc - 2, argv + 2, cli, err);
    if (strcmp(cmd, "archive") == 0) {
        int help = 0;
        cli->cmd = SE_CMD_ARCHIVE;
        se_status st = se_archive_parse(argc - 2, argv + 2, &cli->archive, &help, err);
        if (help)
            cli->cmd = SE_CMD_ARCHIVE_HELP;
        return st;
    }
    if (strcmp(cmd, "figures") == 0)
        return parse_dirs(argc - 2, argv + 2, SE_CMD_FIGURES, 2,
                          "figures: usage: softmax-evidence figures RUN_DIR OUT_DIR", cli, err);
    if (strcmp(cmd, "site") == 0)
        return parse_dirs(argc - 2, argv + 2, SE_CMD_SITE, 2,
                          "site: usage: softmax-evidence site RUN_DIR OUT_DIR", cli, err);
    if (strcmp(cmd, "table") == 0)
        return parse_dirs(argc - 2, argv + 2, SE_CMD_TABLE, 1,
                          "table: usage: softmax-evidence table RUN_DIR", cli, err);
    if (strcmp(cmd, "profile") == 0) {
        int n = argc - 2;
        if (n > 0 && strcmp(argv[argc - 1], "--reparse") == 0) {
            cli->dirs.reparse = 1;
            n--;
        }
        return parse_dirs(n, argv + 2, SE_CMD_PROFILE, 1,
                          "profile: usage: softmax-evidence profile RUN_DIR [--reparse]", cli, err);
    }
    if (strcmp(cmd, "profile-target") == 0)
        return parse_dirs(argc - 2, argv + 2, SE_CMD_PROFILE_TARGET, 1,
                          "profile-target: internal; usage: profile-target RUN_DIR", cli, err);
    return se_fail(err, SE_ERR_USAGE, "unknown command '%s'; try 'softmax-evidence --help'", cmd);
}

void se_cli_free(se_cli *cli)
{
    free(cli->run.shapes);
    cli->run.shapes = NULL;
    se_archive_cli_free(&cli->archive);
    free(cli->answer.dirs);
    cli->answer.dirs = NULL;
    cli->answer.n_dirs = 0;
    cli->run.n_shapes = 0;
}
