/*
 * test_protocol.c - unit tests of protocol.h: the repository's default
 * protocol (protocol/default.json) reads to the documented values, writing
 * and reading back is lossless, and every malformed protocol is refused with
 * SE_ERR_USAGE (SE_ERR_IO for an unreadable file) and a message that points
 * at the fault: file:line:column for JSON syntax, the field path otherwise.
 *
 * A run reads its protocol before any GPU work and copies it into the
 * evidence bundle, where verify reads it again, so both the refusals and the
 * round trip are part of what makes a bundle re-checkable. Each malformed
 * input is the default text with exactly one substring replaced.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/operation.h"
#include "model/protocol.h"
#include "model/strategy.h"

/* The text of protocol/default.json, which the malformed inputs edit; its
 * strategy list is the compiled table's, filled in by make_default_text
 * (default.json lists every strategy, repository_default_json_... checks). */
static char *default_text;
static const char default_template[] =
    "{\n"
    "  \"format\": \"softmax-evidence-protocol\",\n"
    "  \"version\": 1,\n"
    "  \"name\": \"default\",\n"
    "  \"workload\": {\n"
    "    \"shapes\": [\"32x4096\", \"4096x4096\", \"1024x32768\", \"64x262144\", \"8x1048576\", "
    "\"4x4194304\", \"1x1\", \"1x7\", \"3x4097\", \"5xT+1\", \"2x100003\", \"8x1048573\", "
    "\"4x4194301\", \"256x1048576\"],\n"
    "    \"tile\": 4096,\n"
    "    \"dtype\": \"float32\",\n"
    "    \"input\": {\"generator\": \"curand-philox4_32_10\", \"distribution\": \"normal\", "
    "\"seed\": 20261130, \"scale\": 16.0, \"outliers\": \"outliers.h\"},\n"
    "    \"eps\": 1e-6\n"
    "  },\n"
    "  \"strategies\": @STRATEGIES@,\n"
    "  \"tolerance\": {\"atol\": 1e-37, \"rtol\": 1e-4},\n"
    "  \"validation\": {\"invocations\": 2},\n"
    "  \"scopes\": {\n"
    "    \"device\":      {\"samples\": 50, \"warmup\": 5},\n"
    "    \"device_cold\": {\"samples\": 30, \"warmup\": 2},\n"
    "    \"batch\":       {\"samples\": 10, \"warmup\": 1, \"batch\": 20},\n"
    "    \"host\":        {\"samples\": 30, \"warmup\": 2}\n"
    "  },\n"
    "  \"controls\": {\"samples\": 50, \"warmup\": 5, \"barriers\": 64},\n"
    "  \"analysis\": {\"bootstrap_resamples\": 2000, \"bootstrap_seed\": 1, \"order_seed\": "
    "20261130, \"throttle_fraction\": 0.9}\n"
    "}\n";

static void assert_msg_has(const se_err *err, const char *needle)
{
    if (!strstr(err->msg, needle))
        fail_msg("message '%s' does not contain '%s'", err->msg, needle);
}

/* A new copy of text with its single occurrence of `from` replaced by `to`. */
static char *replace_once(const char *text, const char *from, const char *to);

/* ["stream", "graph", ...]: the compiled table's names, in table order or
 * reversed, as a JSON array on one line. */
static char *names_json(int reversed)
{
    const se_strategy_table *t = se_strategy_compiled();
    size_t size = 3;
    for (int i = 0; i < t->n; i++)
        size += strlen(t->s[i].name) + 4;
    char *out = malloc(size);
    assert_non_null(out);
    size_t used = (size_t)snprintf(out, size, "[");
    for (int k = 0; k < t->n; k++) {
        int i = reversed ? t->n - 1 - k : k;
        used += (size_t)snprintf(out + used, size - used, "%s\"%s\"", k ? ", " : "",
                                 t->s[i].name);
    }
    snprintf(out + used, size - used, "]");
    return out;
}

static int make_default_text(void **state)
{
    (void)state;
    char *names = names_json(0);
    default_text = replace_once(default_template, "@STRATEGIES@", names);
    free(names);
    return 0;
}

static int free_default_text(void **state)
{
    (void)state;
    free(default_text);
    return 0;
}

static char *replace_once(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("'%s' not found in the default text", from);
    if (strstr(at + 1, from))
        fail_msg("'%s' occurs more than once in the default text", from);
    size_t head = (size_t)(at - text), flen = strlen(from), tlen = strlen(to);
    size_t tail = strlen(at + flen);
    char *out = malloc(head + tlen + tail + 1);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, to, tlen);
    memcpy(out + head + tlen, at + flen, tail + 1);
    return out;
}

/* Parses text as "t.json" expecting success. */
static void parse_ok(const char *text, se_protocol *p)
{
    se_err err = {{0}};
    se_status st = se_protocol_parse(text, strlen(text), "t.json", p, &err);
    if (st != SE_OK)
        fail_msg("refused: %s", err.msg);
}

/* Parses text as "t.json" expecting a usage error whose message holds both
 * needles (the second may be NULL), and an empty protocol left behind. */
static void refused(const char *text, const char *needle, const char *needle2)
{
    se_err err = {{0}};
    se_protocol p;
    assert_int_equal(se_protocol_parse(text, strlen(text), "t.json", &p, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "t.json");
    assert_msg_has(&err, needle);
    if (needle2)
        assert_msg_has(&err, needle2);
    assert_null(p.shapes);
    assert_int_equal(p.n_shapes, 0);
}

/* The default text with `from` replaced by `to` is refused with the needles. */
static void edit_refused(const char *from, const char *to, const char *needle,
                         const char *needle2)
{
    char *text = replace_once(default_text, from, to);
    refused(text, needle, needle2);
    free(text);
}

/* Checks every value of the default protocol. */
static void assert_default_values(const se_protocol *p)
{
    static const struct {
        const char *spec;
        int64_t rows, cols;
    } shapes[] = {{"32x4096", 32, 4096},       {"4096x4096", 4096, 4096},
                  {"1024x32768", 1024, 32768}, {"64x262144", 64, 262144},
                  {"8x1048576", 8, 1048576},   {"4x4194304", 4, 4194304},
                  {"1x1", 1, 1},               {"1x7", 1, 7},
                  {"3x4097", 3, 4097},         {"5xT+1", 5, 4097},
                  {"2x100003", 2, 100003},     {"8x1048573", 8, 1048573},
                  {"4x4194301", 4, 4194301},   {"256x1048576", 256, 1048576}};
    assert_string_equal(p->name, "default");
    assert_int_equal(p->n_shapes, 14);
    for (size_t i = 0; i < 14; i++) {
        assert_string_equal(p->shapes[i].spec, shapes[i].spec);
        assert_int_equal(p->shapes[i].rows, shapes[i].rows);
        assert_int_equal(p->shapes[i].cols, shapes[i].cols);
    }
    assert_int_equal(p->tile, 4096);
    assert_int_equal(p->seed, 20261130);
    assert_true(p->scale == 16.0);
    assert_true(p->eps == 1e-6);
    /* Every strategy of the table, whatever their number. */
    assert_int_equal(p->strategies, se_strategy_all_mask(SE_NSTRATEGIES));
    assert_true(p->tol.atol == 1e-37);
    assert_true(p->tol.rtol == 1e-4);
    assert_int_equal(p->invocations, 2);
    assert_int_equal(p->device.samples, 50);
    assert_int_equal(p->device.warmup, 5);
    assert_int_equal(p->device.batch, 1);
    assert_int_equal(p->device_cold.samples, 30);
    assert_int_equal(p->device_cold.warmup, 2);
    assert_int_equal(p->device_cold.batch, 1);
    assert_int_equal(p->batch.samples, 10);
    assert_int_equal(p->batch.warmup, 1);
    assert_int_equal(p->batch.batch, 20);
    assert_int_equal(p->host.samples, 30);
    assert_int_equal(p->host.warmup, 2);
    assert_int_equal(p->host.batch, 1);
    assert_int_equal(p->controls.samples, 50);
    assert_int_equal(p->controls.warmup, 5);
    assert_int_equal(p->controls.batch, 1);
    assert_int_equal(p->barriers, 64);
    assert_int_equal(p->bootstrap_resamples, 2000);
    assert_int_equal(p->bootstrap_seed, 1);
    assert_int_equal(p->order_seed, 20261130);
    assert_true(p->throttle_fraction == 0.9);
}

/* Field by field, shapes included. */
static void assert_same_protocol(const se_protocol *a, const se_protocol *b)
{
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->n_shapes, b->n_shapes);
    for (size_t i = 0; i < a->n_shapes; i++) {
        assert_string_equal(a->shapes[i].spec, b->shapes[i].spec);
        assert_int_equal(a->shapes[i].rows, b->shapes[i].rows);
        assert_int_equal(a->shapes[i].cols, b->shapes[i].cols);
    }
    assert_int_equal(a->tile, b->tile);
    assert_int_equal(a->seed, b->seed);
    assert_memory_equal(&a->scale, &b->scale, sizeof a->scale);
    assert_memory_equal(&a->eps, &b->eps, sizeof a->eps);
    assert_int_equal(a->strategies, b->strategies);
    assert_memory_equal(&a->tol, &b->tol, sizeof a->tol);
    assert_int_equal(a->invocations, b->invocations);
    assert_memory_equal(&a->device, &b->device, sizeof a->device);
    assert_memory_equal(&a->device_cold, &b->device_cold, sizeof a->device_cold);
    assert_memory_equal(&a->batch, &b->batch, sizeof a->batch);
    assert_memory_equal(&a->host, &b->host, sizeof a->host);
    assert_memory_equal(&a->controls, &b->controls, sizeof a->controls);
    assert_int_equal(a->barriers, b->barriers);
    assert_int_equal(a->bootstrap_resamples, b->bootstrap_resamples);
    assert_int_equal(a->bootstrap_seed, b->bootstrap_seed);
    assert_int_equal(a->order_seed, b->order_seed);
    assert_memory_equal(&a->throttle_fraction, &b->throttle_fraction,
                        sizeof a->throttle_fraction);
}

/* Writes text to path (a file in the test's working directory). */
static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void repository_default_json_parses_to_expected_values(void **state)
{
    (void)state;
#ifdef SE_TEST_SOURCE_DIR
    se_err err = {{0}};
    se_protocol p;
    se_status st = se_protocol_load(SE_TEST_SOURCE_DIR "/protocol/default.json", &p, &err);
    if (st != SE_OK)
        fail_msg("default.json refused: %s", err.msg);
    assert_default_values(&p);
    se_protocol_free(&p);
#else
    print_message("SE_TEST_SOURCE_DIR is not defined: cannot locate protocol/default.json\n");
    skip();
#endif
}

static void default_text_parses_to_expected_values(void **state)
{
    (void)state;
    se_protocol p;
    parse_ok(default_text, &p);
    assert_default_values(&p);
    se_protocol_free(&p);
    assert_null(p.shapes);
}

/* "traces": false is read, written back (and only then written), and
 * anything but a boolean is refused naming the field. */
static void traces_false_round_trips_and_a_non_boolean_is_refused(void **state)
{
    (void)state;
    se_protocol p, q;
    parse_ok(default_text, &p);
    assert_int_equal(p.traces, 1);
    se_err err = {{0}};
    char *t = NULL;
    assert_int_equal(se_protocol_write(&p, &t, &err), SE_OK);
    assert_null(strstr(t, "traces"));
    free(t);
    se_protocol_free(&p);
    char *off = replace_once(default_text, "\"analysis\"", "\"traces\": false, \"analysis\"");
    parse_ok(off, &q);
    assert_int_equal(q.traces, 0);
    assert_int_equal(se_protocol_write(&q, &t, &err), SE_OK);
    assert_non_null(strstr(t, "\"traces\": false"));
    free(t);
    free(off);
    se_protocol_free(&q);
    edit_refused("\"analysis\"", "\"traces\": 0, \"analysis\"", "traces", "true or false");
}

static void load_reads_a_file_and_matches_parse(void **state)
{
    (void)state;
    const char *path = "test_protocol_load.json";
    write_file(path, default_text, strlen(default_text));
    se_err err = {{0}};
    se_protocol a, b;
    se_status st = se_protocol_load(path, &a, &err);
    remove(path);
    if (st != SE_OK)
        fail_msg("refused: %s", err.msg);
    parse_ok(default_text, &b);
    assert_same_protocol(&a, &b);
    se_protocol_free(&a);
    se_protocol_free(&b);
}

static void write_then_parse_is_lossless_and_write_is_stable(void **state)
{
    (void)state;
    se_err err = {{0}};
    se_protocol p, q, r;
    parse_ok(default_text, &p);
    char *t1 = NULL, *t2 = NULL;
    assert_int_equal(se_protocol_write(&p, &t1, &err), SE_OK);
    assert_non_null(t1);
    size_t len = strlen(t1);
    assert_true(len > 2 && t1[len - 1] == '\n' && t1[len - 2] == '}');
    parse_ok(t1, &q);
    assert_same_protocol(&p, &q);
    assert_int_equal(se_protocol_write(&q, &t2, &err), SE_OK);
    assert_string_equal(t1, t2);
    parse_ok(t2, &r);
    assert_same_protocol(&p, &r);
    free(t1);
    free(t2);
    se_protocol_free(&p);
    se_protocol_free(&q);
    se_protocol_free(&r);
}

static void write_keeps_shape_specs_and_orders_keys_and_strategies(void **state)
{
    (void)state;
    se_err err = {{0}};
    se_protocol p;
    char *in_order = names_json(0), *reversed = names_json(1);
    char *text = replace_once(default_text, in_order, reversed);
    free(in_order);
    free(reversed);
    parse_ok(text, &p);
    free(text);
    char *out = NULL;
    assert_int_equal(se_protocol_write(&p, &out, &err), SE_OK);
    assert_non_null(strstr(out, "\"5xT+1\""));
    assert_null(strstr(out, "5x4097"));
    const char *head = "{\n  \"format\": \"softmax-evidence-protocol\",\n  \"version\": 1,\n";
    assert_true(strncmp(out, head, strlen(head)) == 0);
    /* The keys in their fixed order, the strategies in table order among them. */
    static const char *const before[] = {
        "\"format\"", "\"version\"", "\"name\"", "\"workload\"", "\"shapes\"", "\"tile\"",
        "\"dtype\"", "\"input\"", "\"generator\"", "\"distribution\"", "\"seed\"", "\"scale\"",
        "\"outliers\"", "\"eps\"", "\"strategies\""};
    static const char *const after[] = {
        "\"tolerance\"", "\"atol\"", "\"rtol\"", "\"validation\"",
        "\"invocations\"", "\"scopes\"", "\"device\"", "\"device_cold\"", "\"batch\"",
        "\"host\"", "\"controls\"", "\"barriers\"", "\"analysis\"", "\"bootstrap_resamples\"",
        "\"bootstrap_seed\"", "\"order_seed\"", "\"throttle_fraction\""};
    enum { NB = sizeof before / sizeof before[0], NA = sizeof after / sizeof after[0] };
    char quoted[SE_NSTRATEGIES][64];
    const char *order[NB + SE_NSTRATEGIES + NA];
    for (size_t i = 0; i < NB; i++)
        order[i] = before[i];
    for (int i = 0; i < SE_NSTRATEGIES; i++) {
        snprintf(quoted[i], sizeof quoted[i], "\"%s\"", se_strategy_get((se_strategy)i)->name);
        order[NB + (size_t)i] = quoted[i];
    }
    for (size_t i = 0; i < NA; i++)
        order[NB + SE_NSTRATEGIES + i] = after[i];
    const char *at = out;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *next = strstr(at, order[i]);
        if (!next)
            fail_msg("%s missing or out of order in:\n%s", order[i], out);
        at = next + strlen(order[i]);
    }
    free(out);
    se_protocol_free(&p);
}

static void write_refuses_a_protocol_that_would_not_read_back(void **state)
{
    (void)state;
    se_err err = {{0}};
    se_protocol p;
    parse_ok(default_text, &p);
    p.device.samples = 0;
    char sentinel = 0;
    char *out = &sentinel;
    assert_int_equal(se_protocol_write(&p, &out, &err), SE_ERR_USAGE);
    assert_null(out);
    assert_msg_has(&err, "scopes.device.samples");
    p.device.samples = 50;
    p.order_seed = UINT64_MAX;
    assert_int_equal(se_protocol_write(&p, &out, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "analysis.order_seed");
    se_protocol_free(&p);
}

static void integer_accepted_where_a_real_is_expected(void **state)
{
    (void)state;
    se_protocol p;
    char *text = replace_once(default_text, "\"scale\": 16.0", "\"scale\": 16");
    parse_ok(text, &p);
    free(text);
    assert_true(p.scale == 16.0);
    se_protocol_free(&p);
}

static void syntax_error_names_file_line_and_column(void **state)
{
    (void)state;
    /* Missing closing brace: the end of the file is at line 2, column 14. */
    refused("{\n  \"version\": 1", "t.json:2:14: ", "'}' expected");
    /* The default text without its last brace ends on line 23, column 0. */
    char *text = replace_once(default_text, "0.9}\n}\n", "0.9}\n");
    refused(text, "t.json:23:0: ", "'}' expected near end of file");
    free(text);
}

/* fuzz_verify found a protocol.json whose bootstrap took verify minutes:
 * the work is bounded (src/model/protocol.c). */
static void bootstrap_work_over_the_bound_refused(void **state)
{
    (void)state;
    edit_refused("\"bootstrap_resamples\": 2000", "\"bootstrap_resamples\": 1000000",
                 "analysis.bootstrap_resamples", "bootstrap draws, more than the 2e+08");
    edit_refused("\"bootstrap_resamples\": 2000", "\"bootstrap_resamples\": 4000",
                 "analysis.bootstrap_resamples", "use fewer resamples, samples or shapes");
}

static void trailing_comma_is_a_syntax_error(void **state)
{
    (void)state;
    edit_refused("\"barriers\": 64}", "\"barriers\": 64,}", "t.json:21:59: ", "string or '}' expected");
}

static void unknown_top_level_key_refused(void **state)
{
    (void)state;
    edit_refused("\"version\": 1,", "\"version\": 1,\n  \"comment\": \"x\",",
                 "field 'comment': unknown key 'comment'", NULL);
}

static void unknown_nested_key_refused(void **state)
{
    (void)state;
    edit_refused("{\"samples\": 50, \"warmup\": 5},", "{\"sampels\": 50, \"warmup\": 5},",
                 "field 'scopes.device.sampels'", "unknown key 'sampels'");
}

/* workload.operation (model/operation.h): optional, the workload table's
 * first where absent; named, it must be an entry of the table; written
 * back only where it is not the first, so a protocol without it writes as
 * before the table. */
static void operation_is_optional_checked_and_written_only_when_not_the_default(void **state)
{
    (void)state;
    se_protocol p;
    parse_ok(default_text, &p);
    assert_ptr_equal(p.op, se_operation_default());
    assert_ptr_equal(se_protocol_operation(&p), se_operation_default());
    se_protocol_free(&p);

    char *named = replace_once(default_text, "\"eps\": 1e-6\n",
                               "\"eps\": 1e-6,\n    \"operation\": \"rms-softmax\"\n");
    parse_ok(named, &p);
    assert_ptr_equal(p.op, se_operation_find("rms-softmax"));
    char *text = NULL;
    se_err err = {{0}};
    assert_int_equal(se_protocol_write(&p, &text, &err), SE_OK);
    assert_null(strstr(text, "\"operation\""));
    free(text);
    se_protocol_free(&p);
    free(named);

    edit_refused("\"eps\": 1e-6\n", "\"eps\": 1e-6,\n    \"operation\": \"layer-norm\"\n",
                 "field 'workload.operation': 'layer-norm' is not a workload this program measures",
                 "(rms-softmax, layernorm)");
    edit_refused("\"eps\": 1e-6\n", "\"eps\": 1e-6,\n    \"operation\": 3\n",
                 "field 'workload.operation': expected a string", NULL);

    /* A protocol built in code (no parse) computes the table's first. */
    se_protocol zero;
    memset(&zero, 0, sizeof zero);
    assert_ptr_equal(se_protocol_operation(&zero), se_operation_default());
}

static void missing_key_refused(void **state)
{
    (void)state;
    edit_refused(", \"warmup\": 2},\n    \"batch\"", "},\n    \"batch\"",
                 "field 'scopes.device_cold.warmup': missing", NULL);
    edit_refused("\"tolerance\": {\"atol\": 1e-37, \"rtol\": 1e-4},\n", "",
                 "field 'tolerance': missing", NULL);
}

static void tile_as_string_refused(void **state)
{
    (void)state;
    edit_refused("\"tile\": 4096", "\"tile\": \"4096\"",
                 "field 'workload.tile': expected an integer, got string", NULL);
}

static void tile_as_real_refused(void **state)
{
    (void)state;
    edit_refused("\"tile\": 4096", "\"tile\": 4096.5",
                 "field 'workload.tile': must be an integer between 1 and 2147483647, got 4096.5",
                 NULL);
}

static void eps_as_boolean_refused(void **state)
{
    (void)state;
    edit_refused("\"eps\": 1e-6", "\"eps\": true",
                 "field 'workload.eps': expected a number, got boolean", NULL);
}

static void name_as_number_refused(void **state)
{
    (void)state;
    edit_refused("\"name\": \"default\"", "\"name\": 7",
                 "field 'name': expected a string, got number", NULL);
}

static void negative_samples_refused_naming_field_and_value(void **state)
{
    (void)state;
    edit_refused("{\"samples\": 50, \"warmup\": 5},", "{\"samples\": -3, \"warmup\": 5},",
                 "t.json: field 'scopes.device.samples': must be an integer between 1 and 100000, "
                 "got -3",
                 NULL);
}

static void negative_warmup_refused(void **state)
{
    (void)state;
    edit_refused("{\"samples\": 50, \"warmup\": 5},", "{\"samples\": 50, \"warmup\": -1},",
                 "field 'scopes.device.warmup': must be an integer between 0 and 100000, got -1",
                 NULL);
    edit_refused("\"warmup\": 5, \"barriers\"", "\"warmup\": -5, \"barriers\"",
                 "field 'controls.warmup': must be an integer between 0 and 100000, got -5", NULL);
}

static void batch_key_in_device_scope_refused(void **state)
{
    (void)state;
    edit_refused("{\"samples\": 50, \"warmup\": 5},", "{\"samples\": 50, \"warmup\": 5, \"batch\": 2},",
                 "field 'scopes.device.batch': unknown key 'batch'", NULL);
}

static void empty_shape_list_refused(void **state)
{
    (void)state;
    char *from = strstr(default_text, "[\"32x4096\"");
    const char *end = strstr(from, "],");
    char old[256];
    size_t n = (size_t)(end - from) + 1;
    assert_true(n < sizeof old);
    memcpy(old, from, n);
    old[n] = '\0';
    edit_refused(old, "[]", "field 'workload.shapes': the list is empty", NULL);
}

static void bad_shape_refused_naming_its_index(void **state)
{
    (void)state;
    edit_refused("\"1024x32768\"", "\"1024y32768\"", "field 'workload.shapes[2]': shape '1024y32768'",
                 NULL);
    edit_refused("\"1x7\"", "\"0x7\"", "field 'workload.shapes[7]': shape '0x7': rows", NULL);
    edit_refused("\"1x7\"", "7", "field 'workload.shapes[7]': expected a string, got number", NULL);
}

static void duplicate_shape_refused(void **state)
{
    (void)state;
    edit_refused("\"1x7\"", "\"1x1\"", "field 'workload.shapes[7]'", "duplicates workload.shapes[6]");
    /* The same shape written two ways: 5xT+1 is 5x4097 with tile 4096. */
    edit_refused("\"2x100003\"", "\"5x4097\"", "field 'workload.shapes[10]'",
                 "duplicates workload.shapes[9] '5xT+1'");
}

static void unknown_strategy_refused(void **state)
{
    (void)state;
    /* rowblock's index in the list, from the table. */
    char want[96];
    snprintf(want, sizeof want, "field 'strategies[%d]': unknown strategy 'rowblok'",
             se_stable_find(se_strategy_compiled(), "rowblock"));
    edit_refused("\"rowblock\"", "\"rowblok\"", want, "valid: stream, graph");
}

static void duplicate_strategy_refused(void **state)
{
    (void)state;
    char want[96];
    snprintf(want, sizeof want, "field 'strategies[%d]': duplicate strategy 'graph'",
             se_stable_find(se_strategy_compiled(), "rowblock"));
    edit_refused("\"rowblock\"", "\"graph\"", want, NULL);
}

static void wrong_format_string_refused(void **state)
{
    (void)state;
    edit_refused("\"softmax-evidence-protocol\"", "\"softmax-evidence-bundle\"",
                 "field 'format': must be \"softmax-evidence-protocol\"",
                 "got \"softmax-evidence-bundle\"");
}

static void version_2_refused(void **state)
{
    (void)state;
    edit_refused("\"version\": 1", "\"version\": 2", "field 'version': unsupported version 2",
                 NULL);
}

static void duplicate_json_key_refused(void **state)
{
    (void)state;
    edit_refused("\"tile\": 4096,", "\"tile\": 4096,\n    \"tile\": 4096,", "t.json:8:",
                 "duplicate object key");
}

static void rtol_of_one_or_more_refused(void **state)
{
    (void)state;
    edit_refused("\"rtol\": 1e-4", "\"rtol\": 1", "field 'tolerance.rtol': must be a number >= 0 and < 1, got 1",
                 NULL);
    edit_refused("\"atol\": 1e-37", "\"atol\": -1", "field 'tolerance.atol': must be a number >= 0, got -1",
                 NULL);
}

static void missing_file_is_an_io_error_naming_the_path(void **state)
{
    (void)state;
    se_err err = {{0}};
    se_protocol p;
    const char *path = "no-such-dir/no-such-protocol.json";
    assert_int_equal(se_protocol_load(path, &p, &err), SE_ERR_IO);
    assert_msg_has(&err, path);
    assert_msg_has(&err, "No such file");
    assert_null(p.shapes);
}

static void file_over_one_mib_refused_naming_its_size(void **state)
{
    (void)state;
    const char *path = "test_protocol_big.json";
    size_t len = 1024 * 1024 + 1;
    char *big = malloc(len);
    assert_non_null(big);
    memset(big, ' ', len);
    write_file(path, big, len);
    free(big);
    se_err err = {{0}};
    se_protocol p;
    se_status st = se_protocol_load(path, &p, &err);
    remove(path);
    assert_int_equal(st, SE_ERR_USAGE);
    assert_msg_has(&err, path);
    assert_msg_has(&err, "1048577 bytes");
    assert_msg_has(&err, "at most 1048576 bytes");
    assert_null(p.shapes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repository_default_json_parses_to_expected_values),
        cmocka_unit_test(default_text_parses_to_expected_values),
        cmocka_unit_test(load_reads_a_file_and_matches_parse),
        cmocka_unit_test(traces_false_round_trips_and_a_non_boolean_is_refused),
        cmocka_unit_test(write_then_parse_is_lossless_and_write_is_stable),
        cmocka_unit_test(write_keeps_shape_specs_and_orders_keys_and_strategies),
        cmocka_unit_test(write_refuses_a_protocol_that_would_not_read_back),
        cmocka_unit_test(integer_accepted_where_a_real_is_expected),
        cmocka_unit_test(syntax_error_names_file_line_and_column),
        cmocka_unit_test(trailing_comma_is_a_syntax_error),
        cmocka_unit_test(unknown_top_level_key_refused),
        cmocka_unit_test(unknown_nested_key_refused),
        cmocka_unit_test(operation_is_optional_checked_and_written_only_when_not_the_default),
        cmocka_unit_test(missing_key_refused),
        cmocka_unit_test(tile_as_string_refused),
        cmocka_unit_test(tile_as_real_refused),
        cmocka_unit_test(eps_as_boolean_refused),
        cmocka_unit_test(name_as_number_refused),
        cmocka_unit_test(negative_samples_refused_naming_field_and_value),
        cmocka_unit_test(negative_warmup_refused),
        cmocka_unit_test(batch_key_in_device_scope_refused),
        cmocka_unit_test(empty_shape_list_refused),
        cmocka_unit_test(bad_shape_refused_naming_its_index),
        cmocka_unit_test(duplicate_shape_refused),
        cmocka_unit_test(unknown_strategy_refused),
        cmocka_unit_test(duplicate_strategy_refused),
        cmocka_unit_test(wrong_format_string_refused),
        cmocka_unit_test(version_2_refused),
        cmocka_unit_test(duplicate_json_key_refused),
        cmocka_unit_test(rtol_of_one_or_more_refused),
        cmocka_unit_test(bootstrap_work_over_the_bound_refused),
        cmocka_unit_test(missing_file_is_an_io_error_naming_the_path),
        cmocka_unit_test(file_over_one_mib_refused_naming_its_size),
    };
    return cmocka_run_group_tests(tests, make_default_text, free_default_text);
}
