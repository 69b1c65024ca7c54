/*
 * cli_help.c - the command line's documents (see cli.h): the global usage,
 * each subcommand's `--help`, run's options and strategies, the default
 * shapes and the exit codes, in one table.
 */
#include "tool/cli.h"
#include "bundle/paths.h"
#include "tool/cli_internal.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/embedded.h"
#include "model/protocol.h"
#include "model/strategy.h"

/* Prints text from column `indent` (the cursor is there) to at most
 * `width` columns, breaking lines between words. */
static void print_default_shapes(FILE *out);

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

/* One subcommand's documentation: its usage line, one line for the global
 * help, and the text of `softmax-evidence CMD --help`. */
typedef struct cmd_doc {
    const char *name;
    const char *usage;
    const char *line;
    const char *help;
} cmd_doc;

static const cmd_doc cmd_docs[] = {
    {"run", "run [options]", "on a GPU: validate, time, trace, measure the peers, write a run",
     "On a GPU, computes the RMS-scaled softmax with every strategy on every shape of the\n"
     "protocol, validates each output against a float64 CPU reference and cuDNN, times every\n"
     "strategy and control in every scope, and writes a run directory RUNS_DIR/<UTC start>/\n"
     "with its SHA-256 manifest; a separate traced run of every strategy records each task's\n"
     "SM and start and end times; then bench/peers.py times the peers on the same inputs:\n"
     "PyTorch eager, torch.compile and torch.softmax, and Liger's, Quack's and FlashInfer's\n"
     "softmax where installed (skipped, saying why, where python, torch or CUDA for torch is\n"
     "missing; docs/PEERS.md). Progress ([n/N], time left) goes to stderr when it is a terminal.\n"},
    {"verify", "verify RUN_DIR [--strict] [--trusted-key PUB] [--archive F]",
     "no GPU: re-hash and recompute a run (or check a site)",
     "With no GPU, re-hashes a run directory against its manifest, recomputes every timing\n"
     "summary from the raw samples and re-checks the validation, every dependency trace and\n"
     "the PyTorch peers (docs/BUNDLE.md). A folder with SITE_MANIFEST.sha256 and no run\n"
     "manifest is checked as a site (docs/SITE.md).\n"
     "  --strict           also fail on a file the manifest lists that is not present,\n"
     "                     unless " SE_REMOTE_JSON " says it lives in the run's archive (those\n"
     "                     are counted, not failed: --archive F checks them)\n"
     "  --trusted-key PUB  also check that " SE_MANIFEST_SIG " is an Ed25519 signature of\n"
     "                     the manifest by that public key (docs/SIGNING.md)\n"
     "  --archive F        also check the remote-only files against the archive F\n"
     "                     (docs/ARCHIVE.md)\n"
     "  --                 what follows is the run directory, even if it starts with '-'\n"},
    {"sign", "sign RUN_DIR --key KEY", "verify a run, then sign its manifest",
     "Verifies a run, then signs its " SE_MANIFEST_NAME " with the Ed25519 private key KEY (PEM)\n"
     "into " SE_MANIFEST_SIG " (docs/SIGNING.md).\n"},
    {"archive", "archive RUN_DIR -o FILE.tar.gz [--remote-only GLOB]...",
     "the complete run as a deterministic .tar.gz (docs/ARCHIVE.md)", NULL},
    {"trace", "trace RUN_DIR CASE -o FILE.json", "one trace as Perfetto JSON",
     "Writes one trace of a run as Chrome trace-event JSON for Perfetto, and prints its\n"
     "checks and summary (docs/TRACES.md). CASE is <shape>.<strategy>, the shape as `table`\n"
     "prints it (4096x4096.megakernel) or as the protocol writes it (5xT+1.megakernel); an\n"
     "unknown case lists the run's, and a trace kept only in the run's complete archive\n"
     "(" SE_REMOTE_JSON ") names that archive.\n"
     "  -o, --output FILE  the JSON file to write\n"},
    {"figures", "figures RUN_DIR OUT_DIR [--set FILE]", "figures, report, provenance",
     "Verifies a run, then draws its figures (SVG and PNG, with gnuplot) and writes\n"
     "report.md, report.html and provenance.json into OUT_DIR (docs/FIGURES.md).\n"
     "--set FILE: the report's answer over the runs of a run set (RUN_DIR among them).\n"},
    {"table", "table RUN_DIR [--format text|md|csv|json] [--set FILE]",
     "verify a run, then print its timing table",
     "Verifies a run, then prints its timing table (the one run prints last): strategies,\n"
     "copy and peers per shape with the median device time and its 95% interval, the ratio\n"
     "to stream with its interval, GB/s, fraction of the same-run copy and ratio to the best\n"
     "peer (docs/PEERS.md, docs/CLI.md).\n"
     "  --format text  aligned columns, then the controls, the best-of table and the answer\n"
     "  --set FILE     the answer over the runs of a run set (RUN_DIR among them)\n"
     "  --format md    the same tables in Markdown (the README's are generated with it)\n"
     "  --format csv   the timing table only, one row per (shape, strategy or peer)\n"
     "  --format json  the timing table's rows at full precision\n"},
    {"goals", "goals RUN_DIR [--format text|md]", "verify a run, then its goals per shape (issue 30)",
     "Verifies a run, then prints issue 30's goals per shape (docs/PERFORMANCE.md, \"The\n"
     "sweep's goals\"): bytes moved, our fastest strategy's fraction of the same-run copy L2\n"
     "warm and flushed (G1), against the best peer (G2), its distance to the copy on the\n"
     "launch-bound shapes (G3), the best tiled strategy's fraction of copy (G4), each tiled\n"
     "strategy on a row length that is not a multiple of 4 against its aligned neighbour\n"
     "(G5), a line per goal (met on N of M), and the five-phase bound of the tiled\n"
     "algorithm per shape from the run's own controls.\n"
     "  --format text  plain text, tables in aligned columns (default)\n"
     "  --format md    Markdown (docs/PERFORMANCE.md's goals block is generated with it)\n"},
    {"answer", "answer RUN_DIR [RUN_DIR...] | --set FILE [--format text|md|summary|json]",
     "the answer over several runs",
     "Verifies the runs, then states the answer: per shape and mechanism the device-time\n"
     "ratio to stream with its 95% interval, and sentences generated from those numbers.\n"
     "One run: its within-run intervals. Several runs (or --set FILE, a run set written by\n"
     "scripts/multirun.sh): the median of the per-run ratios, an interval of one more run's\n"
     "ratio (two-level bootstrap widened to a run-level prediction), every verdict from it,\n"
     "the runs' time span and the leave-one-out calibration (docs/TIMING.md). The first\n"
     "run gives the context and the seed.\n"
     "  --format text     sentences, the grid of ratios, the head-to-head lines, the context\n"
     "  --format md       the same in Markdown (the README's details are generated with it)\n"
     "  --format summary  the answer in four plain sentences (the README's first screen)\n"
     "  --format json     every number of the answer, and its sentences, as one JSON object\n"
     "After \"--\" every argument is a run directory, even one that starts with '-'.\n"},
    {"compare", "compare RUN_A RUN_B [RUN...] | --a-set FILE --b-set FILE [--floor FILE] "
     "[--format text|md|csv|json] [--fail-if-slower PCT] [--scope S]; compare --record-floor "
     "OUT.json RUN RUN [RUN...] | --a-set FILE",
     "per case, B's median time over A's with a bootstrap interval and the noise between runs",
     "Verifies every run, prints the environment fields that differ (GPU, driver, commit...),\n"
     "then per case present in both runs the ratio of median times B/A with a bootstrap 95%\n"
     "interval from the raw samples of both, a marker where the interval excludes 1, the\n"
     "case's noise between runs, and a summary line; each further run is compared with RUN_A\n"
     "(docs/COMPARE.md).\n"
     "  --a-set, --b-set F  several runs a side (run sets, bundle/runset.h): the ratio of the\n"
     "                      sides' medians of run medians, a two-level bootstrap interval, and\n"
     "                      each side's spread between its runs as the noise\n"
     "  --floor FILE        the noise between runs of one commit, per case, recorded by\n"
     "                      --record-floor (the larger of it and the sides' own spread counts)\n"
     "  --record-floor OUT  write the noise floor of two or more runs of one commit and exit\n"
     "  --format F          text (default), md, csv or json\n"
     "  --fail-if-slower P  exit 7 when a case got slower by more than P percent AND by more\n"
     "                      than its noise, its 95% interval excluding both (lower bound above\n"
     "                      1 + P/100 and above 1 + noise)\n"
     "  --scope S           device (default, L2 warm), device_cold, batch or host\n"},
    {"export", "export RUN_DIR --format nvbench|gbench -o FILE",
     "a run as nvbench or Google Benchmark JSON",
     "Verifies a run, then writes it in another tool's format (docs/EXPORT.md):\n"
     "  --format nvbench  nvbench's JSON, its summary tags (nv/cold/time/gpu/median...),\n"
     "                    the raw samples as its float32 sidecar files in FILE-bin/, and our\n"
     "                    intervals as extra summaries: nvbench_compare.py reads it\n"
     "  --format gbench   Google Benchmark's JSON, one repetition per sample with the\n"
     "                    median aggregate: its compare.py reads it\n"
     "  -o, --output FILE the JSON file to write (written whole or not at all)\n"},
    {"site", "site RUN_DIR OUT_DIR [--quiet] [--set FILE]", "the static evidence site",
     "Verifies a run and builds a static evidence site (HTML, CSS, figures, selected run\n"
     "files, SITE_MANIFEST.sha256) in OUT_DIR; verify also accepts a site (docs/SITE.md).\n"
     "Where stderr is a terminal it prints [n/N] progress with the time left; --quiet\n"
     "turns that off. --set FILE: the answer over the runs of a run set (RUN_DIR among\n"
     "them), as `answer --set` states it.\n"},
    {"profile", "profile RUN_DIR [--reparse] [--quiet]", "Nsight Compute counters",
     "On a GPU, runs Nsight Compute over every kernel of every strategy on the run's shapes,\n"
     "saves the counters as CSV in the run directory and updates its manifest\n"
     "(docs/PROFILING.md). Progress ([n/N], time left) goes to stderr when it is a terminal.\n"
     "  --reparse  rebuild them from the run's saved ncu CSV (no GPU)\n"
     "  --quiet    no progress\n"},
};
#define N_CMD_DOCS (sizeof cmd_docs / sizeof cmd_docs[0])

static const char exit_codes[] =
    "Exit status, the same in every command (docs/CLI.md): 0 all passed, 1 a validation\n"
    "or verification failed, 2 bad argument, 3 a device or memory limit, 4 a CUDA error,\n"
    "5 an I/O or host memory error (a missing or unreadable file or folder), 6 no CUDA\n"
    "device, 7 compare --fail-if-slower: a case got slower than the gate, 8 a program\n"
    "the command runs is missing (profile: ncu).\n";

static void print_run_options(FILE *out)
{
    fprintf(out, "\noptions of run:\n");
    for (size_t i = 0; i < se_cli_n_run_opts; i++)
        fprintf(out, "  %-14s %s  %s\n", se_cli_run_opts[i].name, se_cli_run_opts[i].takes_value ? "V" : " ",
                se_cli_run_opts[i].help);
    fprintf(out, "\nstrategies (in the order a run takes them):\n");
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        fprintf(out, "  %-18s", info->name);
        print_wrapped(out, info->description, 20, 79);
    }
    print_default_shapes(out);
}

/* The shapes a run takes without --shapes or --protocol: the built-in
 * protocol's (protocol/default.json, embedded at build time), as written. */
void se_cli_default_shapes(char *buf, size_t size)
{
    buf[0] = '\0';
    const se_embedded_file *f = se_embedded_find(SE_DEFAULT_PROTOCOL);
    se_protocol p;
    se_err err;
    if (!f || se_protocol_parse((const char *)f->data, f->len, SE_DEFAULT_PROTOCOL, &p, &err) !=
                  SE_OK) {
        snprintf(buf, size, "(%s is not built into this binary)", SE_DEFAULT_PROTOCOL);
        return;
    }
    size_t used = 0;
    for (size_t i = 0; i < p.n_shapes && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", p.shapes[i].spec);
        used += w > 0 ? (size_t)w : 0;
    }
    se_protocol_free(&p);
}

static void print_default_shapes(FILE *out)
{
    char shapes[2048];
    se_cli_default_shapes(shapes, sizeof shapes);
    fprintf(out, "\ndefault shapes (%s, built in; --shapes or --protocol replace them):\n  ",
            SE_DEFAULT_PROTOCOL);
    print_wrapped(out, shapes, 2, 79);
}

void se_cli_usage(FILE *out)
{
    fprintf(out, "usage: softmax-evidence COMMAND [arguments]   (softmax-evidence COMMAND --help "
                 "for one command's)\n\n");
    for (size_t i = 0; i < N_CMD_DOCS; i++)
        fprintf(out, "  %-9s %s\n", cmd_docs[i].name, cmd_docs[i].line);
    fprintf(out, "  %-9s %s\n\n", "--version", "the program's version");
    fputs(exit_codes, out);
}

static const cmd_doc *find_doc(const char *cmd)
{
    for (size_t i = 0; i < N_CMD_DOCS; i++)
        if (strcmp(cmd, cmd_docs[i].name) == 0)
            return &cmd_docs[i];
    return NULL;
}

int se_cli_command_help(FILE *out, const char *cmd)
{
    for (size_t i = 0; i < N_CMD_DOCS; i++) {
        if (strcmp(cmd, cmd_docs[i].name) != 0 || !cmd_docs[i].help)
            continue;
        fprintf(out, "usage: softmax-evidence %s\n\n%s", cmd_docs[i].usage, cmd_docs[i].help);
        if (strcmp(cmd, "run") == 0)
            print_run_options(out);
        fprintf(out, "\n");
        fputs(exit_codes, out);
        return 1;
    }
    return 0;
}

int se_cli_has_doc(const char *cmd)
{
    return find_doc(cmd) != NULL;
}
