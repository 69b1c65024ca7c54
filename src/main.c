/*
 * main.c - the softmax-evidence command: dispatches a subcommand and turns
 * its status into the exit code. The only place that exits.
 */
#include <stdio.h>
#include <string.h>

#include "bundle/embedded.h"
#include "bundle/export.h"
#include "bundle/manifest.h"
#include "bundle/verify.h"
#include "cli.h"
#include "overrides.h"
#include "report/figures.h"
#include "report/table.h"
#include "run/profile.h"
#include "site/site.h"
#include "protocol.h"
#include "run/runner.h"
#include "run/validate.h"

#ifndef SE_VERSION
#define SE_VERSION "unknown"
#endif

#define SE_DEFAULT_PROTOCOL "protocol/default.json"

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
    if (st != SE_OK)
        se_protocol_free(p);
    return st;
}

static se_status cmd_run(const se_run_opts *o, int argc, char **argv, se_err *err)
{
    se_protocol p;
    se_protocol_source src;
    char name[4200];
    se_status st = load_protocol(o, &p, &src, name, sizeof name, err);
    if (st == SE_OK) {
        if (o->validate_only) {
            se_validation_run run;
            st = se_validate_run(&p, o, stdout, &run, err);
            se_validation_run_free(&run);
        } else {
            st = se_run_main(&p, o, &src, argc, argv, stdout, err);
        }
        se_protocol_free(&p);
    }
    return st;
}

int main(int argc, char **argv)
{
    se_cli cli;
    se_err err = {{0}};
    se_status st = se_cli_parse(argc, argv, &cli, &err);
    if (st != SE_OK) {
        fprintf(stderr, "softmax-evidence: %s\n", err.msg);
        return se_exit_code(st);
    }
    switch (cli.cmd) {
    case SE_CMD_HELP:
        se_cli_usage(stdout);
        break;
    case SE_CMD_VERSION:
        printf("softmax-evidence %s\n", SE_VERSION);
        break;
    case SE_CMD_RUN:
        st = cmd_run(&cli.run, argc, argv, &err);
        break;
    case SE_CMD_FIGURES:
        st = se_figures_main(cli.dirs.dir, cli.dirs.out_dir, stdout, &err);
        break;
    case SE_CMD_SITE:
        st = se_site_main(cli.dirs.dir, cli.dirs.out_dir, stdout, &err);
        break;
    case SE_CMD_TABLE:
        st = se_table_main(cli.dirs.dir, stdout, &err);
        break;
    case SE_CMD_PROFILE:
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
        st = se_verify_run(cli.verify.dir, cli.verify.strict, stdout, &err);
        break;
    }
    if (st != SE_OK)
        fprintf(stderr, "softmax-evidence: %s: %s\n", se_status_name(st), err.msg);
    se_cli_free(&cli);
    return se_exit_code(st);
}
