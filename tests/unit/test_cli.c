/*
 * test_cli.c - unit tests of the command line (cli.h: se_cli_parse,
 * se_cli_free) and of the status-to-exit-code mapping (se_exit_code).
 *
 * The command line is the user's only interface: these tests pin the
 * commands, every default of `run`, both option forms, the late binding of
 * "T" in shapes to the final --tile, and that every refused argument comes
 * back as a usage error whose message names the argument and the value, so
 * that a user can tell what to fix without reading the source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/cli.h"
#include "model/se_common.h"
#include "model/strategy.h"
#include "model/protocol.h"

#define MAX_ARGS 32

/* Parses the NULL-terminated arguments after the program name. */
static se_status parse(se_cli *cli, se_err *err, ...)
{
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = "softmax-evidence";
    va_list ap;
    va_start(ap, err);
    for (char *a = va_arg(ap, char *); a; a = va_arg(ap, char *)) {
        assert_true(argc < MAX_ARGS);
        argv[argc++] = a;
    }
    va_end(ap);
    argv[argc] = NULL;
    memset(err->msg, 0, sizeof err->msg);
    return se_cli_parse(argc, argv, cli, err);
}

/* Fails, printing the message, unless err->msg contains needle. */
static void assert_msg_has(const se_err *err, const char *needle)
{
    if (!strstr(err->msg, needle))
        fail_msg("message '%s' does not contain '%s'", err->msg, needle);
}

/* Parses `run OPT VALUE` expecting a usage error that names opt and needle. */
static void expect_run_error(const char *opt, const char *value, const char *needle)
{
    se_cli cli;
    se_err err;
    se_status st = value ? parse(&cli, &err, "run", (char *)opt, (char *)value, (char *)NULL)
                         : parse(&cli, &err, "run", (char *)opt, (char *)NULL);
    if (st != SE_ERR_USAGE)
        fail_msg("%s %s: expected usage error, got status %d ('%s')", opt, value ? value : "",
                 (int)st, err.msg);
    assert_msg_has(&err, opt);
    assert_msg_has(&err, needle);
    assert_null(cli.run.shapes);
}

static void test_no_arguments_is_a_usage_error_pointing_to_help(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    char *argv[] = {"softmax-evidence", NULL};
    assert_int_equal(se_cli_parse(1, argv, &cli, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "missing command");
    assert_msg_has(&err, "--help");
}

static void test_help_and_version_commands_are_recognised(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "--help", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_HELP);
    assert_int_equal(parse(&cli, &err, "-h", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_HELP);
    assert_int_equal(parse(&cli, &err, "help", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_HELP);
    assert_int_equal(parse(&cli, &err, "--version", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_VERSION);
}

static void test_run_help_gives_help_command_and_no_shapes(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--help", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_HELP);
    assert_null(cli.run.shapes);
    assert_int_equal(parse(&cli, &err, "run", "--tile", "8", "-h", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_HELP);
    assert_null(cli.run.shapes);
}

static void test_command_help_names_its_command(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "verify", "x", "--help", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_HELP);
    assert_string_equal(cli.help_for, "verify");
    assert_int_equal(parse(&cli, &err, "help", "compare", (char *)NULL), SE_OK);
    assert_string_equal(cli.help_for, "compare");
    assert_int_equal(parse(&cli, &err, "--help", (char *)NULL), SE_OK);
    assert_null(cli.help_for);
    assert_int_equal(parse(&cli, &err, "help", "frob", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "unknown command 'frob'");
    assert_int_equal(se_cli_command_help(stderr, "frob"), 0);
}

static void test_compare_export_table_options(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "compare", "a", "b", "c", "--format=csv", "--fail-if-slower",
                           "2.5", "--scope", "host", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_COMPARE);
    assert_int_equal(cli.compare.n_dirs, 3);
    assert_string_equal(cli.compare.dirs[2], "c");
    assert_int_equal(cli.compare.format, 2);
    assert_true(cli.compare.fail_if_slower == 2.5);
    assert_string_equal(cli.compare.scope, "host");
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "compare", "a", "b", (char *)NULL), SE_OK);
    assert_true(cli.compare.fail_if_slower < 0);
    assert_string_equal(cli.compare.scope, "device");
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "compare", "a", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "two runs or more");
    assert_int_equal(parse(&cli, &err, "compare", "a", "b", "--fail-if-slower", "x", (char *)NULL),
                     SE_ERR_USAGE);
    assert_msg_has(&err, "--fail-if-slower");
    assert_int_equal(parse(&cli, &err, "compare", "a", "b", "--scope", "warm", (char *)NULL),
                     SE_ERR_USAGE);
    assert_msg_has(&err, "'warm'");
    assert_int_equal(parse(&cli, &err, "export", "r", "--format", "gbench", "-o", "f.json",
                           (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_EXPORT);
    assert_int_equal(cli.export_.gbench, 1);
    assert_string_equal(cli.export_.output, "f.json");
    assert_int_equal(parse(&cli, &err, "export", "r", "-o", "f.json", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "missing --format");
    assert_int_equal(parse(&cli, &err, "table", "r", "--format", "json", (char *)NULL), SE_OK);
    assert_int_equal(cli.dirs.format, 3);
    assert_int_equal(parse(&cli, &err, "table", "r", "--format", "text|md", (char *)NULL),
                     SE_ERR_USAGE);
    assert_int_equal(parse(&cli, &err, "table", "r", "--format", "", (char *)NULL), SE_ERR_USAGE);
}

static void test_run_without_options_uses_documented_defaults(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", (char *)NULL), SE_OK);
    assert_int_equal(cli.cmd, SE_CMD_RUN);
    assert_int_equal(cli.run.tile, 4096);
    assert_true(cli.run.seed == 20261130u);
    assert_true(cli.run.scale == SE_DEFAULT_SCALE);
    assert_true(cli.run.eps == 1e-6);
    assert_int_equal(cli.run.invocations, 2);
    assert_int_equal(cli.run.strategies, se_strategy_all_mask(SE_NSTRATEGIES));
    assert_int_equal(cli.run.blocks, 0);
    assert_int_equal(cli.run.device, 0);
    assert_int_equal(cli.run.quiet, 0);
    assert_int_equal(cli.run.n_shapes, 14);
    const int64_t rows[14] = {32, 4096, 1024, 64, 8, 4, 1, 1, 3, 5, 2, 8, 4, 256};
    const int64_t cols[14] = {4096, 4096, 32768, 262144, 1048576, 4194304, 1, 7, 4097, 4097,
                              100003, 1048573, 4194301, 1048576};
    for (int i = 0; i < 14; i++) {
        assert_int_equal(cli.run.shapes[i].rows, rows[i]);
        assert_int_equal(cli.run.shapes[i].cols, cols[i]);
    }
    assert_string_equal(cli.run.shapes[9].spec, "5xT+1");
    se_cli_free(&cli);
    assert_null(cli.run.shapes);
    assert_int_equal(cli.run.n_shapes, 0);
}

/* Fails unless `run --help` (the text with run's options and defaults)
 * contains needle. */
static void assert_usage_has(const char *needle)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(se_cli_command_help(f, "run"), 1);
    long len = ftell(f);
    assert_true(len > 0);
    char *text = calloc((size_t)len + 1, 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    if (!strstr(text, needle))
        fail_msg("run --help text does not contain '%s'", needle);
    free(text);
}

static void test_help_text_states_the_defaults_run_uses(void **state)
{
    (void)state;
    char buf[64];
    snprintf(buf, sizeof buf, "(default %d)", SE_DEFAULT_TILE);
    assert_usage_has(buf);
    snprintf(buf, sizeof buf, "(default %d)", SE_DEFAULT_SEED);
    assert_usage_has(buf);
    snprintf(buf, sizeof buf, "(default %g)", SE_DEFAULT_SCALE);
    assert_usage_has(buf);
    assert_true(SE_DEFAULT_EPS == 1e-6);
    assert_usage_has("(default 1e-6)");
    snprintf(buf, sizeof buf, "(default %d)", SE_DEFAULT_INVOCATIONS);
    assert_usage_has(buf);
    /* The help lists the built-in protocol's shapes, every one of them
     * (protocol/default.json in the source tree, read here on its own),
     * and the parser's seed is the same list. */
    char shapes[2048], *text = NULL;
    se_cli_default_shapes(shapes, sizeof shapes);
    assert_usage_has("default shapes (protocol/default.json, built in");
    FILE *pf = fopen(SE_TEST_SOURCE_DIR "/protocol/default.json", "r");
    assert_non_null(pf);
    size_t cap = 1 << 16, len = fread(text = malloc(cap), 1, cap, pf);
    fclose(pf);
    se_protocol p;
    se_err err;
    assert_int_equal(se_protocol_parse(text, len, "default.json", &p, &err), SE_OK);
    free(text);
    char want[2048] = "", seed[2048] = "";
    for (size_t i = 0; i < p.n_shapes; i++) {
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? ", " : "",
                 p.shapes[i].spec);
        snprintf(seed + strlen(seed), sizeof seed - strlen(seed), "%s%s", i ? "," : "",
                 p.shapes[i].spec);
    }
    assert_true(p.n_shapes >= 14);
    se_protocol_free(&p);
    assert_string_equal(shapes, want);
    assert_string_equal(SE_DEFAULT_SHAPES, seed);
    for (char *tok = strtok(want, ", "); tok; tok = strtok(NULL, ", "))
        assert_usage_has(tok);
}

static void test_tile_given_after_shapes_still_resolves_t(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--shapes", "5xT+1", "--tile", "1000", (char *)NULL),
                     SE_OK);
    assert_int_equal(cli.run.tile, 1000);
    assert_int_equal(cli.run.n_shapes, 1);
    assert_int_equal(cli.run.shapes[0].rows, 5);
    assert_int_equal(cli.run.shapes[0].cols, 1001);
    se_cli_free(&cli);
}

static void test_equals_and_separate_value_forms_give_same_options(void **state)
{
    (void)state;
    se_cli a, b;
    se_err err;
    assert_int_equal(parse(&a, &err, "run", "--tile=1000", "--seed=7", "--scale=0.5", "--eps=0",
                           "--strategies=cudnn", "--blocks=12", "--device=3",
                           "--invocations=9", "--shapes=2xT-1,3x5", (char *)NULL),
                     SE_OK);
    assert_int_equal(parse(&b, &err, "run", "--tile", "1000", "--seed", "7", "--scale", "0.5",
                           "--eps", "0", "--strategies", "cudnn", "--blocks", "12", "--device",
                           "3", "--invocations", "9", "--shapes", "2xT-1,3x5", (char *)NULL),
                     SE_OK);
    se_cli *both[2] = {&a, &b};
    for (int k = 0; k < 2; k++) {
        const se_run_opts *o = &both[k]->run;
        assert_int_equal(o->tile, 1000);
        assert_true(o->seed == 7u);
        assert_true(o->scale == 0.5);
        assert_true(o->eps == 0.0);
        assert_int_equal(o->strategies, 1u << SE_S_CUDNN);
        assert_int_equal(o->blocks, 12);
        assert_int_equal(o->device, 3);
        assert_int_equal(o->invocations, 9);
        assert_int_equal(o->n_shapes, 2);
        assert_int_equal(o->shapes[0].rows, 2);
        assert_int_equal(o->shapes[0].cols, 999);
        assert_int_equal(o->shapes[1].rows, 3);
        assert_int_equal(o->shapes[1].cols, 5);
    }
    se_cli_free(&a);
    se_cli_free(&b);
}

static void test_quiet_sets_quiet_and_takes_no_value(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--quiet", "--shapes", "1x1", (char *)NULL), SE_OK);
    assert_int_equal(cli.run.quiet, 1);
    assert_int_equal(cli.run.n_shapes, 1);
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "run", "--quiet=1", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "--quiet=1");
}

static void test_strategies_list_sets_exactly_the_named_bits(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--strategies", "stream,fusion", (char *)NULL),
                     SE_OK);
    assert_int_equal(cli.run.strategies, (1u << SE_S_STREAM) | (1u << SE_S_FUSION));
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "run", "--strategies", "all", (char *)NULL), SE_OK);
    assert_int_equal(cli.run.strategies, se_strategy_all_mask(SE_NSTRATEGIES));
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "run", "--strategies", "stream,all", (char *)NULL), SE_OK);
    assert_int_equal(cli.run.strategies, se_strategy_all_mask(SE_NSTRATEGIES));
    se_cli_free(&cli);
}

static void test_tile_zero_is_refused_naming_the_value(void **state)
{
    (void)state;
    expect_run_error("--tile", "0", "0 is out of range");
    expect_run_error("--tile", "0", "between 1 and 2147483647");
}

static void test_negative_tile_is_refused_naming_the_value(void **state)
{
    (void)state;
    expect_run_error("--tile", "-5", "-5 is out of range");
}

static void test_non_numeric_tile_is_refused_naming_the_value(void **state)
{
    (void)state;
    expect_run_error("--tile", "abc", "'abc'");
    expect_run_error("--tile", "12x", "'12x'");
}

static void test_overflowing_tile_is_refused_naming_the_value(void **state)
{
    (void)state;
    expect_run_error("--tile", "99999999999999999999", "99999999999999999999 is out of range");
}

static void test_tile_above_int32_is_refused_with_the_limit(void **state)
{
    (void)state;
    expect_run_error("--tile", "2147483648", "2147483647");
}

static void test_option_without_value_is_refused(void **state)
{
    (void)state;
    expect_run_error("--tile", NULL, "missing value");
    expect_run_error("--shapes", NULL, "missing value");
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--tile=", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "--tile");
    assert_msg_has(&err, "empty value");
}

static void test_negative_seed_is_refused(void **state)
{
    (void)state;
    expect_run_error("--seed", "-1", "-1 is out of range");
}

static void test_nan_scale_is_refused(void **state)
{
    (void)state;
    expect_run_error("--scale", "nan", "nan");
}

static void test_zero_scale_is_refused(void **state)
{
    (void)state;
    expect_run_error("--scale", "0", "0 is out of range");
}

static void test_negative_eps_is_refused(void **state)
{
    (void)state;
    expect_run_error("--eps", "-1", "-1 is out of range");
}

static void test_zero_invocations_is_refused(void **state)
{
    (void)state;
    expect_run_error("--invocations", "0", "0 is out of range");
}

static void test_zero_blocks_is_refused(void **state)
{
    (void)state;
    expect_run_error("--blocks", "0", "0 is out of range");
}

static void test_negative_device_is_refused(void **state)
{
    (void)state;
    expect_run_error("--device", "-1", "-1 is out of range");
}

static void test_unknown_strategy_is_refused_listing_valid_names(void **state)
{
    (void)state;
    expect_run_error("--strategies", "bogus", "'bogus'");
    const char *names[] = {"stream", "graph", "stream-pdl", "graph-pdl", "fusion", "fusion-graph",
                           "megakernel", "megakernel-graph", "rowblock", "cudnn"};
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--strategies", "stream,bogus", (char *)NULL),
                     SE_ERR_USAGE);
    assert_msg_has(&err, "'bogus'");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_msg_has(&err, names[i]);
}

static void test_empty_shapes_list_is_refused(void **state)
{
    (void)state;
    expect_run_error("--shapes", "", "empty");
}

static void test_empty_entry_in_shapes_list_is_refused_with_its_position(void **state)
{
    (void)state;
    expect_run_error("--shapes", "32x4096,,1x1", "empty entry at position 2");
    expect_run_error("--shapes", "32x4096,,1x1", "'32x4096,,1x1'");
}

static void test_run_dir_out_takes_a_file_and_defaults_to_none(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", (char *)NULL), SE_OK);
    assert_null(cli.run.run_dir_out);
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "run", "--run-dir-out", "/tmp/d.txt", (char *)NULL), SE_OK);
    assert_string_equal(cli.run.run_dir_out, "/tmp/d.txt");
    se_cli_free(&cli);
    assert_int_equal(parse(&cli, &err, "run", "--run-dir-out=out file", (char *)NULL), SE_OK);
    assert_string_equal(cli.run.run_dir_out, "out file");
    se_cli_free(&cli);
}

static void test_empty_run_dir_out_is_refused(void **state)
{
    (void)state;
    expect_run_error("--run-dir-out", "", "empty file name");
    expect_run_error("--run-dir-out", NULL, "missing value");
}

static void test_bad_shape_is_refused_naming_it(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--shapes", "1x1,0x5", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "'0x5'");
    assert_msg_has(&err, "rows");
    assert_null(cli.run.shapes);
}

static void test_unknown_option_is_refused_naming_it(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "run", "--frobnicate", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "unknown argument");
    assert_msg_has(&err, "'--frobnicate'");
    assert_int_equal(parse(&cli, &err, "run", "--tiles", "3", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "'--tiles'");
}

static void test_unknown_command_is_refused_naming_it(void **state)
{
    (void)state;
    se_cli cli;
    se_err err;
    assert_int_equal(parse(&cli, &err, "frob", (char *)NULL), SE_ERR_USAGE);
    assert_msg_has(&err, "unknown command");
    assert_msg_has(&err, "'frob'");
}

static void test_exit_codes_follow_the_documented_mapping(void **state)
{
    (void)state;
    assert_int_equal(se_exit_code(SE_OK), 0);
    assert_int_equal(se_exit_code(SE_ERR_VALIDATION), 1);
    assert_int_equal(se_exit_code(SE_ERR_USAGE), 2);
    assert_int_equal(se_exit_code(SE_ERR_LIMIT), 3);
    assert_int_equal(se_exit_code(SE_ERR_NO_DEVICE), 6);
    assert_int_equal(se_exit_code(SE_ERR_CUDA), 4);
    assert_int_equal(se_exit_code(SE_ERR_IO), 5);
    assert_int_equal(se_exit_code(SE_ERR_NOMEM), 5);
    assert_int_equal(se_exit_code(SE_ERR_SLOWER), 7);
    assert_int_equal(se_exit_code(SE_ERR_NO_TOOL), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_arguments_is_a_usage_error_pointing_to_help),
        cmocka_unit_test(test_help_and_version_commands_are_recognised),
        cmocka_unit_test(test_run_help_gives_help_command_and_no_shapes),
        cmocka_unit_test(test_command_help_names_its_command),
        cmocka_unit_test(test_compare_export_table_options),
        cmocka_unit_test(test_run_without_options_uses_documented_defaults),
        cmocka_unit_test(test_help_text_states_the_defaults_run_uses),
        cmocka_unit_test(test_tile_given_after_shapes_still_resolves_t),
        cmocka_unit_test(test_equals_and_separate_value_forms_give_same_options),
        cmocka_unit_test(test_quiet_sets_quiet_and_takes_no_value),
        cmocka_unit_test(test_strategies_list_sets_exactly_the_named_bits),
        cmocka_unit_test(test_tile_zero_is_refused_naming_the_value),
        cmocka_unit_test(test_negative_tile_is_refused_naming_the_value),
        cmocka_unit_test(test_non_numeric_tile_is_refused_naming_the_value),
        cmocka_unit_test(test_overflowing_tile_is_refused_naming_the_value),
        cmocka_unit_test(test_tile_above_int32_is_refused_with_the_limit),
        cmocka_unit_test(test_option_without_value_is_refused),
        cmocka_unit_test(test_negative_seed_is_refused),
        cmocka_unit_test(test_nan_scale_is_refused),
        cmocka_unit_test(test_zero_scale_is_refused),
        cmocka_unit_test(test_negative_eps_is_refused),
        cmocka_unit_test(test_zero_invocations_is_refused),
        cmocka_unit_test(test_zero_blocks_is_refused),
        cmocka_unit_test(test_negative_device_is_refused),
        cmocka_unit_test(test_unknown_strategy_is_refused_listing_valid_names),
        cmocka_unit_test(test_run_dir_out_takes_a_file_and_defaults_to_none),
        cmocka_unit_test(test_empty_run_dir_out_is_refused),
        cmocka_unit_test(test_empty_shapes_list_is_refused),
        cmocka_unit_test(test_empty_entry_in_shapes_list_is_refused_with_its_position),
        cmocka_unit_test(test_bad_shape_is_refused_naming_it),
        cmocka_unit_test(test_unknown_option_is_refused_naming_it),
        cmocka_unit_test(test_unknown_command_is_refused_naming_it),
        cmocka_unit_test(test_exit_codes_follow_the_documented_mapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
