/*
 * main.c - the softmax-evidence command: dispatches a subcommand and turns
 * its status into the exit code. The only place that exits.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/archive.h"
#include "bundle/embedded.h"
#include "bundle/fsutil.h"
#include "render/trace_export.h"
#include "bundle/manifest.h"
#include "bundle/sign.h"
#include "bundle/site_verify.h"
#include "bundle/verify.h"
#include "tool/cli.h"
#include "tool/overrides.h"
#include "bundle/runset.h"
#include "render/answer_text.h"
#include "render/compare_print.h"
#include "render/export.h"
#include "render/figures.h"
#include "render/table.h"
#include "run/profile.h"
#include "render/site.h"
#include "render/sweep_doc.h"
#include "model/operation.h"
#include "model/protocol.h"
#include "run/runner.h"
#include "run/strategies.h"
#include "run/validate.h"

#ifndef SE_VERSION
#define SE_VERSION "unknown"
#endif


/* The effective protocol: --protocol FILE or the built-in default, with the
 * command line's overrides. Everything here happens before any GPU work. */
static se_status load_protocol(const se_run_opts *o, se_protocol *p, se_protocol_source *src,
                               char *name, size_t name_size, se_err *err)
{
    se_status st;
    if (o->protocol_path) {
        snprintf(name, name_size, "%s", o->protocol_path);
        st = se_protocol_load(o->protocol_path, p, err);
        if (st == SE_OK)
            st = se_sha256_file(o->protocol_path, src->sha256, err);
    } else {
        const se_embedded_file *f = se_embedded_find(SE_DEFAULT_PROTOCOL);
        snprintf(name, name_size, "%s (built in)", SE_DEFAULT_PROTOCOL);
        if (!f)
            return se_fail(err, SE_ERR_IO, "%s is not built into this binary", SE_DEFAULT_PROTOCOL);
        st = se_protocol_parse((const char *)f->data, f->len, SE_DEFAULT_PROTOCOL, p, err);
        if (st == SE_OK)
            st = se_sha256_buffer(f->data, f->len, src->sha256, err);
    }
    src->name = name;
    if (st == SE_OK)
        st = se_protocol_apply_overrides(p, o, err);
    /* A workload in the table whose kernels are not written yet: verify
     * reads its runs, but no run can measure it (model/operation.h). */
    if (st == SE_OK && !se_protocol_operation(p)->on_gpu)
        st = se_fail(err, SE_ERR_USAGE,
                     "%s: field 'workload.operation': '%s' has no GPU kernels in this binary yet "
                     "(docs/ADDING-A-WORKLOAD.md); a run can measure only the RMS-scaled softmax",
                     name, se_protocol_operation(p)->name);
    /* cuDNN's legacy API has a softmax and no layer norm: an operation
     * without a cuDNN reference cannot list strategy cudnn. */
    if (st == SE_OK && !se_protocol_operation(p)->has_cudnn)
        for (int s = 0; s < se_protocol_nstrategies(p); s++)
            if (((p->strategies >> s) & 1u) &&
                strcmp(se_protocol_strategy(p, s)->name, "cudnn") == 0) {
                st = se_fail(err, SE_ERR_USAGE,
                             "%s: strategy 'cudnn' cannot run workload '%s': cuDNN's legacy API "
                             "has no %s (take 'cudnn' out of the protocol's strategies)",
                             name, se_protocol_operation(p)->name,
                             se_protocol_operation(p)->title);
                break;
            }
    /* Every selected strategy runs the workload: one whose GPU line does not
     * list the operation (no kernels for it) is refused, naming both. */
    for (int s = 0; st == SE_OK && s < se_protocol_nstrategies(p); s++)
        if ((p->strategies >> s) & 1u)
            st = se_strategy_check_operation(name, (se_strategy)s, se_protocol_operation(p), err);
    if (st != SE_OK)
        se_protocol_free(p);
    return st;
}

/* The run layer's configuration from the command line's options. */
static se_run_config run_config(const se_run_opts *o)
{
    se_run_config c = {
        .blocks = o->blocks,
        .device = o->device,
        .invocations = o->invocations,
        .quiet = o->quiet,
        .runs_dir = o->runs_dir,
        .save_arrays = o->save_arrays,
        .arrays_max_bytes = o->arrays_max_bytes,
        .no_blocking_kernel = o->no_blocking_kernel,
        .no_peers = o->no_peers,
        .peers_script = o->peers_script,
        .peers_python = o->peers_python,
    };
    return c;
}

/* se_write_replace's fill: the run directory dir, then a newline. */
static int fill_run_dir(FILE *f, const void *dir)
{
    return fprintf(f, "%s\n", (const char *)dir) > 0 ? 0 : -1;
}

/* --run-dir-out: writes "<dir>\n" to path through a temporary file beside
 * it, renamed over it, so a script reads the whole path or none. */
static se_status write_run_dir_out(const char *path, const char *dir, se_err *err)
{
    return se_write_replace(path, "--run-dir-out", fill_run_dir, dir, err);
}

static se_status cmd_run(const se_run_opts *o, int argc, char **argv, se_err *err)
{
    se_run_config cfg = run_config(o);
    se_protocol p;
    se_protocol_source src;
    char name[4200];
    se_status st = load_protocol(o, &p, &src, name, sizeof name, err);
    if (st == SE_OK) {
        if (o->validate_only) {
            se_validation_run run;
            st = se_validate_run(&p, &cfg, stdout, &run, err);
            se_validation_run_free(&run);
        } else {
            se_run_outcome done;
            st = se_run_main(&p, &cfg, &src, argc, argv, stdout, &done, err);
            if (done.dir[0]) {
                se_err terr = {{0}};
                if (se_table_print_dir(stdout, done.dir, &terr) != SE_OK)
                    fprintf(stderr, "warning: the timing table cannot be printed from %s: %s\n",
                            done.dir, terr.msg);
                printf("validation: %zu of %zu (strategy, shape) cases passed\n",
                       done.cases - done.failed, done.cases);
                printf("run directory: %s\n", done.dir);
                se_err werr = {{0}};
                if (o->run_dir_out && write_run_dir_out(o->run_dir_out, done.dir, &werr) != SE_OK) {
                    /* A run that failed keeps its own status; the message says both. */
                    if (st == SE_OK)
                        st = se_fail(err, SE_ERR_IO, "%s", werr.msg);
                    else
                        fprintf(stderr, "softmax-evidence: %s\n", werr.msg);
                }
            }
        }
        se_protocol_free(&p);
    }
    return st;
}

/* verify on a run directory, or on a site folder: docs/BUNDLE.md and
 * docs/SITE.md. A folder with a run manifest is a run, whatever else it
 * holds (a planted site manifest changes nothing); only a folder without
 * one and with a site manifest is a site, and a site is never checked
 * "strictly" in silence: --strict there is refused. */
static se_status cmd_verify(const se_verify_opts *o, se_err *err)
{
    int is_site = se_is_site_dir(o->dir);
    if (is_site && o->trusted_key)
        return se_fail(err, SE_ERR_USAGE, "verify: --trusted-key checks a run directory, and %s "
                       "holds a site", o->dir);
    if (is_site) {
        if (o->strict)
            return se_fail(err, SE_ERR_USAGE, "verify: %s is a site (it holds %s and no %s); "
                           "--strict applies to a run (the site's run/ keeps only some files): "
                           "run verify without it", o->dir, SE_SITE_MANIFEST, SE_MANIFEST_NAME);
        return se_site_verify(o->dir, stdout, err);
    }
    se_status st = se_verify_run(o->dir, o->strict, stdout, err);
    if (o->archive && (st == SE_OK || st == SE_ERR_VALIDATION)) {
        /* The remote-only files, from the archive (docs/ARCHIVE.md). */
        se_err aerr = {{0}};
        se_status ast = se_verify_archive(o->dir, o->archive, stdout, &aerr);
        if (ast != SE_OK && (st == SE_OK || ast != SE_ERR_VALIDATION))
            st = se_fail(err, ast, "%s", aerr.msg);
    }
    if (o->trusted_key && (st == SE_OK || st == SE_ERR_VALIDATION)) {
        se_err serr = {{0}};
        se_status sig = se_signature_check_run(o->dir, o->trusted_key, stdout, &serr);
        if (sig != SE_OK && (st == SE_OK || sig != SE_ERR_VALIDATION))
            st = se_fail(err, sig, "%s", serr.msg);
    }
    return st;
}

int main(int argc, char **argv)
{
    /* Line-buffered stdout: through a pipe, a command's details (stdout)
     * and its error (stderr) keep the order they were written in. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    se_cli cli;
    se_err err = {{0}};
    se_status st = se_cli_parse(argc, argv, &cli, &err);
    if (st != SE_OK) {
        fprintf(stderr, "softmax-evidence: %s\n", err.msg);
        return se_exit_code(st);
    }
    switch (cli.cmd) {
    case SE_CMD_HELP:
        if (!cli.help_for || !se_cli_command_help(stdout, cli.help_for))
            se_cli_usage(stdout);
        break;
    case SE_CMD_VERSION:
        printf("softmax-evidence %s\n", SE_VERSION);
        break;
    case SE_CMD_RUN:
        /* Progress only where someone watches it, as nvbench does. */
        if (!isatty(STDERR_FILENO))
            cli.run.quiet = 1;
        st = cmd_run(&cli.run, argc, argv, &err);
        break;
    case SE_CMD_FIGURES:
        se_answer_set_runs(cli.dirs.set);
        st = se_figures_main(cli.dirs.dir, cli.dirs.out_dir, stdout, &err);
        break;
    case SE_CMD_SITE:
        se_answer_set_runs(cli.dirs.set);
        se_site_set_progress(!cli.dirs.quiet && isatty(STDERR_FILENO));
        st = se_site_main(cli.dirs.dir, cli.dirs.out_dir, stdout, &err);
        break;
    case SE_CMD_ANSWER:
        if (cli.answer.set) {
            se_runset set;
            st = se_runset_load(cli.answer.set, &set, &err);
            if (st == SE_OK) {
                st = se_answer_main((const char *const *)set.dirs, set.n,
                                    (se_format)cli.answer.format, stdout,
                                    &err);
                se_runset_free(&set);
            }
        } else {
            st = se_answer_main(cli.answer.dirs, cli.answer.n_dirs,
                                (se_format)cli.answer.format, stdout, &err);
        }
        break;
    case SE_CMD_TABLE:
        se_answer_set_runs(cli.dirs.set);
        st = se_table_main(cli.dirs.dir, (se_format)cli.dirs.format, stdout, &err);
        break;
    case SE_CMD_GOALS:
        st = se_goals_main(cli.dirs.dir, cli.dirs.format == SE_FORMAT_MD, stdout, &err);
        break;
    case SE_CMD_COMPARE: {
        se_compare_opts o = {cli.compare.scope, cli.compare.fail_if_slower, cli.compare.a_set,
                             cli.compare.b_set, cli.compare.floor};
        if (cli.compare.record_floor) {
            size_t cases = 0;
            st = se_compare_record_floor(cli.compare.dirs, cli.compare.n_dirs, cli.compare.a_set,
                                         cli.compare.scope, cli.compare.record_floor, &cases,
                                         &err);
            if (st == SE_OK)
                printf("compare: noise floor of %zu cases (%s scope) written to %s\n", cases,
                       cli.compare.scope, cli.compare.record_floor);
        } else {
            st = se_compare_main(cli.compare.dirs, cli.compare.n_dirs, &o,
                                 (se_format)cli.compare.format, stdout, &err);
        }
        break;
    }
    case SE_CMD_EXPORT:
        st = se_export_main(cli.export_.dir, cli.export_.gbench ? SE_EXPORT_GBENCH : SE_EXPORT_NVBENCH,
                            cli.export_.output, stdout, &err);
        break;
    case SE_CMD_PROFILE:
        if (!cli.dirs.reparse && !cli.dirs.quiet && isatty(STDERR_FILENO))
            setenv(SE_PROFILE_PROGRESS_ENV, "1", 1);
        st = cli.dirs.reparse ? se_profile_reparse(cli.dirs.dir, stdout, &err)
                              : se_profile_main(cli.dirs.dir, "/proc/self/exe", stdout, &err);
        break;
    case SE_CMD_PROFILE_TARGET:
        st = se_profile_target(cli.dirs.dir, &err);
        break;
    case SE_CMD_TRACE:
        st = se_trace_export(cli.trace.dir, cli.trace.case_id, cli.trace.output, stdout, &err);
        break;
    case SE_CMD_VERIFY:
        st = cmd_verify(&cli.verify, &err);
        break;
    case SE_CMD_SIGN:
        st = se_sign_run(cli.sign.dir, cli.sign.key, stdout, &err);
        break;
    case SE_CMD_ARCHIVE:
        st = se_archive_main(&cli.archive, stdout, &err);
        break;
    case SE_CMD_ARCHIVE_HELP:
        se_archive_usage(stdout);
        break;
    }
    if (st != SE_OK)
        fprintf(stderr, "softmax-evidence: %s: %s\n", se_status_name(st), err.msg);
    se_cli_free(&cli);
    return se_exit_code(st);
}
