/*
 * main.c - the softmax-evidence command: dispatches a subcommand and turns
 * its status into the exit code. The only place that exits.
 */
#include <stdio.h>

#include "cli.h"
#include "run/validate.h"

#ifndef SE_VERSION
#define SE_VERSION "unknown"
#endif

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
    case SE_CMD_RUN: {
        se_validation_run run;
        st = se_validate_run(&cli.run, stdout, &run, &err);
        se_validation_run_free(&run);
        break;
    }
    }
    se_cli_free(&cli);
    if (st != SE_OK)
        fprintf(stderr, "softmax-evidence: %s: %s\n", se_status_name(st), err.msg);
    return se_exit_code(st);
}
