/*
 * cli.c - command-line parsing (see cli.h). Options come from one table;
 * both "--opt VALUE" and "--opt=VALUE" are accepted. The help texts are
 * cli_help.c's.
 */
#include "tool/cli.h"
#include "bundle/paths.h"
#include "tool/cli_internal.h"

#include <stdlib.h>
#include <string.h>

#include "model/protocol.h"
#include "model/strategy.h"
#include "render/format.h"

const opt_def se_cli_run_opts[] = {
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
    {O_NO_PEERS, "--no-peers", 0, "do not measure the PyTorch peers (" SE_PEERS_FILE " says skipped)"},
    {O_PEERS_SCRIPT, "--peers-script", 1, "the peers script (default: bench/peers.py of the\n"
                                          "                         source tree)"},
    {O_PEERS_PYTHON, "--peers-python", 1, "the python that runs it, with torch (default python3)"},
};

const size_t se_cli_n_run_opts = sizeof se_cli_run_opts / sizeof se_cli_run_opts[0];

static const opt_def *find_opt(const char *arg, const char **value)
{
    *value = NULL;
    for (size_t i = 0; i < se_cli_n_run_opts; i++) {
        size_t n = strlen(se_cli_run_opts[i].name);
        if (strncmp(arg, se_cli_run_opts[i].name, n) != 0)
            continue;
        if (arg[n] == '\0')
            return &se_cli_run_opts[i];
        if (arg[n] == '=' && se_cli_run_opts[i].takes_value) {
            *value = arg + n + 1;
            return &se_cli_run_opts[i];
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
    o->strategies = se_strategy_all_mask(SE_NSTRATEGIES);
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
        if (strcmp(argv[k], "--quiet") == 0) {
            cli->dirs.quiet = 1;
            continue;
        }
        if ((cmd == SE_CMD_SITE || cmd == SE_CMD_FIGURES) && strcmp(argv[k], "--set") == 0) {
            if (k + 1 >= argc || !argv[k + 1][0])
                return se_fail(err, SE_ERR_USAGE, "%s (--set needs a run set file)", usage);
            cli->dirs.set = argv[++k];
            continue;
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
    int dashes = 0; /* after "--" every argument is a run directory */
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        if (dashes) {
            cli->answer.dirs[cli->answer.n_dirs++] = a;
        } else if (strcmp(a, "--") == 0) {
            dashes = 1;
        } else if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0) {
            const char *v = a[8] == '=' ? a + 9 : k + 1 < argc ? argv[++k] : "";
            se_format f;
            se_status st = se_format_parse("answer", v, SE_FORMATS_ANSWER, &f, err);
            if (st != SE_OK)
                return st;
            cli->answer.format = (int)f;
        } else if (strcmp(a, "--set") == 0) {
            if (k + 1 >= argc)
                return se_fail(err, SE_ERR_USAGE, "answer: --set needs a run set file");
            cli->answer.set = argv[++k];
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (a[0] == '-') {
            return se_fail(err, SE_ERR_USAGE, "answer: unknown argument '%s'", a);
        } else {
            cli->answer.dirs[cli->answer.n_dirs++] = a;
        }
    }
    if ((cli->answer.n_dirs == 0) == (cli->answer.set == NULL))
        return se_fail(err, SE_ERR_USAGE,
                       "answer: usage: softmax-evidence answer RUN_DIR [RUN_DIR...] | --set FILE "
                       "[--format text|md|summary|json] (run directories or a run set, not both)");
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

/* The value of option argv[*k] ("--opt V" or "--opt=V"), or NULL when
 * argv[*k] is not `name`. A missing value is an empty string. */
static const char *opt_value(int argc, char **argv, int *k, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*k], name, n) != 0)
        return NULL;
    if (argv[*k][n] == '=')
        return argv[*k] + n + 1;
    if (argv[*k][n] != '\0')
        return NULL;
    return *k + 1 < argc ? argv[++*k] : "";
}

/* --format V among `allowed` (an SE_FORMAT_BIT mask, render/format.h): *fmt is
 * V's se_format. */
static se_status parse_format(const char *cmd, const char *v, unsigned allowed, int *fmt,
                              se_err *err)
{
    se_format f;
    se_status st = se_format_parse(cmd, v, allowed, &f, err);
    if (st == SE_OK)
        *fmt = (int)f;
    return st;
}

static int is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* CMD RUN_DIR [--format F], F among `allowed`: table, goals. */
static se_status parse_dir_format(int argc, char **argv, se_cli *cli, se_command cmd,
                                  const char *name, unsigned allowed, const char *usage,
                                  se_err *err)
{
    cli->cmd = cmd;
    for (int k = 0; k < argc; k++) {
        const char *v = opt_value(argc, argv, &k, "--format");
        if (v) {
            se_status st = parse_format(name, v, allowed, &cli->dirs.format, err);
            if (st != SE_OK)
                return st;
        } else if (cmd == SE_CMD_TABLE && (v = opt_value(argc, argv, &k, "--set"))) {
            if (!v[0])
                return se_fail(err, SE_ERR_USAGE, "%s (--set needs a run set file)", usage);
            cli->dirs.set = v;
        } else if (is_help(argv[k])) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (argv[k][0] == '-' || !argv[k][0]) {
            return se_fail(err, SE_ERR_USAGE, "%s (unknown argument '%s')", usage, argv[k]);
        } else if (cli->dirs.dir) {
            return se_fail(err, SE_ERR_USAGE, "%s (unexpected argument '%s')", usage, argv[k]);
        } else {
            cli->dirs.dir = argv[k];
        }
    }
    if (!cli->dirs.dir)
        return se_fail(err, SE_ERR_USAGE, "%s", usage);
    return SE_OK;
}

static se_status parse_compare(int argc, char **argv, se_cli *cli, se_err *err)
{
    static const char usage[] = "compare: usage: softmax-evidence compare RUN_A RUN_B [RUN...] | "
                                "--a-set FILE --b-set FILE [--floor FILE] [--format "
                                "text|md|csv|json] [--fail-if-slower PCT] [--scope S]; or "
                                "compare --record-floor OUT.json RUN RUN [RUN...] | --a-set FILE";
    se_compare_cli *c = &cli->compare;
    cli->cmd = SE_CMD_COMPARE;
    c->fail_if_slower = -1.0;
    c->scope = "device";
    c->dirs = calloc((size_t)argc + 1, sizeof *c->dirs);
    if (!c->dirs)
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    for (int k = 0; k < argc; k++) {
        const char *v;
        se_status st = SE_OK;
        if ((v = opt_value(argc, argv, &k, "--format")))
            st = parse_format("compare", v, SE_FORMATS_COMPARE, &c->format, err);
        else if ((v = opt_value(argc, argv, &k, "--fail-if-slower")))
            st = se_parse_f64(v, 0.0, 1e6, "compare: --fail-if-slower", &c->fail_if_slower, err);
        else if ((v = opt_value(argc, argv, &k, "--scope"))) {
            if (strcmp(v, "device") && strcmp(v, "device_cold") && strcmp(v, "batch") &&
                strcmp(v, "host"))
                st = se_fail(err, SE_ERR_USAGE, "compare: --scope: '%s' is not device, "
                             "device_cold, batch or host", v);
            c->scope = v;
        } else if ((v = opt_value(argc, argv, &k, "--a-set")))
            c->a_set = v;
        else if ((v = opt_value(argc, argv, &k, "--b-set")))
            c->b_set = v;
        else if ((v = opt_value(argc, argv, &k, "--floor")))
            c->floor = v;
        else if ((v = opt_value(argc, argv, &k, "--record-floor")))
            c->record_floor = v;
        else if (is_help(argv[k])) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (argv[k][0] == '-' || !argv[k][0])
            st = se_fail(err, SE_ERR_USAGE, "%s (unknown argument '%s')", usage, argv[k]);
        else
            c->dirs[c->n_dirs++] = argv[k];
        if (st == SE_OK && v && !v[0])
            st = se_fail(err, SE_ERR_USAGE, "compare: an option's value is empty (--a-set, "
                         "--b-set, --floor and --record-floor need a file name)");
        if (st != SE_OK)
            return st;
    }
    if (c->record_floor) {
        if (c->b_set || c->floor || c->fail_if_slower >= 0.0)
            return se_fail(err, SE_ERR_USAGE, "compare: --record-floor takes runs (or --a-set) "
                           "and --scope only, not --b-set, --floor or --fail-if-slower");
        if (c->a_set ? c->n_dirs != 0 : c->n_dirs < 2)
            return se_fail(err, SE_ERR_USAGE, "%s (--record-floor: two runs or more, or --a-set "
                           "FILE alone)", usage);
        return SE_OK;
    }
    if (c->a_set || c->b_set) {
        if (!c->a_set || !c->b_set || c->n_dirs != 0)
            return se_fail(err, SE_ERR_USAGE, "%s (--a-set and --b-set go together, without "
                           "run directories)", usage);
        return SE_OK;
    }
    if (c->n_dirs < 2)
        return se_fail(err, SE_ERR_USAGE, "%s (two runs or more)", usage);
    return SE_OK;
}

static se_status parse_export(int argc, char **argv, se_cli *cli, se_err *err)
{
    static const char usage[] = "export: usage: softmax-evidence export RUN_DIR "
                                "--format nvbench|gbench -o FILE";
    se_export_cli *x = &cli->export_;
    int have_format = 0;
    cli->cmd = SE_CMD_EXPORT;
    for (int k = 0; k < argc; k++) {
        const char *v;
        if ((v = opt_value(argc, argv, &k, "--format"))) {
            se_format f;
            se_status st = se_format_parse("export", v, SE_FORMATS_EXPORT, &f, err);
            if (st != SE_OK)
                return st;
            x->gbench = f == SE_FORMAT_GBENCH;
            have_format = 1;
        } else if ((v = opt_value(argc, argv, &k, "-o")) ||
                   (v = opt_value(argc, argv, &k, "--output"))) {
            if (!*v)
                return se_fail(err, SE_ERR_USAGE, "export: -o needs a file name");
            x->output = v;
        } else if (is_help(argv[k])) {
            cli->cmd = SE_CMD_HELP;
            return SE_OK;
        } else if (argv[k][0] == '-' || !argv[k][0]) {
            return se_fail(err, SE_ERR_USAGE, "%s (unknown argument '%s')", usage, argv[k]);
        } else if (x->dir) {
            return se_fail(err, SE_ERR_USAGE, "%s (unexpected argument '%s')", usage, argv[k]);
        } else {
            x->dir = argv[k];
        }
    }
    if (!x->dir || !have_format || !x->output)
        return se_fail(err, SE_ERR_USAGE, "%s (missing %s)", usage,
                       !x->dir ? "RUN_DIR" : !have_format ? "--format" : "-o FILE");
    return SE_OK;
}

static se_status parse_command(int argc, char **argv, se_cli *cli, se_err *err);

se_status se_cli_parse(int argc, char **argv, se_cli *cli, se_err *err)
{
    se_status st = parse_command(argc, argv, cli, err);
    if (st != SE_OK) {
        se_cli_free(cli);
        return st;
    }
    if (cli->cmd == SE_CMD_HELP && argc >= 2 && argv[1][0] != '-') {
        /* `CMD --help`, or `help CMD`: that command's help. */
        const char *of = strcmp(argv[1], "help") == 0 ? (argc >= 3 ? argv[2] : NULL) : argv[1];
        if (of && !se_cli_has_doc(of) && of != argv[1])
            return se_fail(err, SE_ERR_USAGE, "help: unknown command '%s'; try "
                           "'softmax-evidence --help'", of);
        cli->help_for = of && se_cli_has_doc(of) ? of : NULL;
        if (of && strcmp(of, "archive") == 0) {
            cli->cmd = SE_CMD_ARCHIVE_HELP; /* its help is archive_cmd.c's */
            cli->help_for = NULL;
        }
    }
    return SE_OK;
}

static se_status parse_command(int argc, char **argv, se_cli *cli, se_err *err)
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
        int dashes = 0; /* after "--" every argument is the run directory */
        for (int k = 2; k < argc; k++) {
            if (!dashes && strcmp(argv[k], "--") == 0)
                dashes = 1;
            else if (dashes && cli->verify.dir)
                return se_fail(err, SE_ERR_USAGE, "verify: one run directory, got '%s' and '%s'",
                               cli->verify.dir, argv[k]);
            else if (dashes)
                cli->verify.dir = argv[k];
            else if (strcmp(argv[k], "--strict") == 0)
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
                          "figures: usage: softmax-evidence figures RUN_DIR OUT_DIR [--set FILE]", cli, err);
    if (strcmp(cmd, "site") == 0)
        return parse_dirs(argc - 2, argv + 2, SE_CMD_SITE, 2,
                          "site: usage: softmax-evidence site RUN_DIR OUT_DIR [--quiet] [--set FILE]", cli, err);
    if (strcmp(cmd, "table") == 0)
        return parse_dir_format(argc - 2, argv + 2, cli, SE_CMD_TABLE, "table", SE_FORMATS_TABLE,
                                "table: usage: softmax-evidence table RUN_DIR "
                                "[--format text|md|csv|json] [--set FILE]", err);
    if (strcmp(cmd, "goals") == 0)
        return parse_dir_format(argc - 2, argv + 2, cli, SE_CMD_GOALS, "goals", SE_FORMATS_GOALS,
                                "goals: usage: softmax-evidence goals RUN_DIR [--format text|md]",
                                err);
    if (strcmp(cmd, "compare") == 0)
        return parse_compare(argc - 2, argv + 2, cli, err);
    if (strcmp(cmd, "export") == 0)
        return parse_export(argc - 2, argv + 2, cli, err);
    if (strcmp(cmd, "profile") == 0) {
        /* --reparse anywhere; the rest as the other RUN_DIR commands. */
        int n = 0;
        for (int k = 2; k < argc; k++) {
            if (strcmp(argv[k], "--reparse") == 0)
                cli->dirs.reparse = 1;
            else
                argv[2 + n++] = argv[k];
        }
        int reparse = cli->dirs.reparse;
        se_status st = parse_dirs(n, argv + 2, SE_CMD_PROFILE, 1,
                                  "profile: usage: softmax-evidence profile RUN_DIR [--reparse] "
                                  "[--quiet]", cli, err);
        cli->dirs.reparse = reparse;
        return st;
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
    free(cli->compare.dirs);
    cli->compare.dirs = NULL;
    cli->compare.n_dirs = 0;
    cli->answer.n_dirs = 0;
    cli->run.n_shapes = 0;
}
