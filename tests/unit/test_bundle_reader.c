/*
 * test_bundle_reader.c - unit tests of the bundle's shared readers: the one
 * manifest line reader (se_manifest_read: good lines, each kind of
 * malformed line, a callback that stops it, a missing manifest), the case
 * id builders and parser of paths.h, and the one JSON loader se_json_load
 * (a FIFO, a directory and a file over the size bound refused without
 * reading them, duplicate keys, a wrong format or version, bytes from the
 * file made printable in its messages).
 *
 * Each test works in a fresh mkdtemp directory under /tmp, removed after.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"

#define HEX_A "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define HEX_B "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static int setup_dir(void **state)
{
    char *dir = strdup("/tmp/se_reader_XXXXXX");
    if (!dir || !mkdtemp(dir))
        return -1;
    *state = dir;
    return 0;
}

static int teardown_dir(void **state)
{
    se_remove_tree(*state);
    free(*state);
    return 0;
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* What the reader gave: each line's path or "!why", in order. */
typedef struct seen {
    char text[16][128];
    size_t line_no[16];
    int n, stop_after;
} seen;

static se_status record(void *ctx, const se_manifest_line *line, se_err *err)
{
    seen *s = ctx;
    if (s->n < 16) {
        if (line->path)
            snprintf(s->text[s->n], sizeof s->text[0], "%.20s %s", line->hex, line->path);
        else
            snprintf(s->text[s->n], sizeof s->text[0], "!%s", line->why);
        s->line_no[s->n] = line->line_no;
    }
    s->n++;
    if (s->stop_after && s->n == s->stop_after)
        return se_fail(err, SE_ERR_VALIDATION, "stopped at line %zu", line->line_no);
    return SE_OK;
}

static void test_manifest_read_gives_paths_and_hashes_in_file_order(void **state)
{
    write_file(*state, "M", HEX_B "  z/last.csv\n" HEX_A "  a.json\n" HEX_A " *binary.f32\n");
    seen s = {0};
    se_err err = {{0}};
    assert_int_equal(se_manifest_read(*state, "M", record, &s, &err), SE_OK);
    assert_int_equal(s.n, 3);
    assert_string_equal(s.text[0], "e3b0c44298fc1c149afb z/last.csv");
    assert_string_equal(s.text[1], "ba7816bf8f01cfea4141 a.json");
    assert_string_equal(s.text[2], "ba7816bf8f01cfea4141 binary.f32");
    assert_int_equal(s.line_no[2], 3);
}

static void test_manifest_read_names_each_malformed_line(void **state)
{
    write_file(*state, "M",
               "\n"                                 /* 1 empty */
               "abc  short\n"                       /* 2 too short */
               HEX_A "\tx\n"                        /* 3 separator */
               "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD  up\n" /* 4 */
               HEX_A "  /etc/passwd\n"              /* 5 absolute */
               HEX_A "  a/../b\n"                   /* 6 .. */
               HEX_A "  a//b\n"                     /* 7 empty component */
               HEX_A "  a b\n"                      /* 8 space in path */
               HEX_A "  ok\n"                       /* 9 good */
               HEX_A "  no-newline-at-end");        /* 10 good */
    seen s = {0};
    se_err err = {{0}};
    assert_int_equal(se_manifest_read(*state, "M", record, &s, &err), SE_OK);
    assert_int_equal(s.n, 10);
    assert_string_equal(s.text[0], "!empty line");
    assert_string_equal(s.text[1], "!too short for a digest and a path");
    assert_string_equal(s.text[2], "!expected two spaces or \" *\" after the digest");
    assert_string_equal(s.text[3], "!the first 64 bytes are not lowercase hex digits");
    assert_string_equal(s.text[4], "!absolute path");
    assert_string_equal(s.text[5], "!path component \".\" or \"..\"");
    assert_string_equal(s.text[6], "!empty path component");
    assert_string_equal(s.text[7], "!byte 0x20 in the path is outside [A-Za-z0-9._/-]");
    assert_string_equal(s.text[8], "ba7816bf8f01cfea4141 ok");
    assert_string_equal(s.text[9], "ba7816bf8f01cfea4141 no-newline-at-end");
}

static void test_manifest_read_refuses_an_overlong_line(void **state)
{
    char *big = malloc(6000);
    assert_non_null(big);
    memset(big, 'a', 5000);
    strcpy(big + 5000, "\n" HEX_A "  after\n");
    write_file(*state, "M", big);
    free(big);
    seen s = {0};
    se_err err = {{0}};
    assert_int_equal(se_manifest_read(*state, "M", record, &s, &err), SE_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.text[0], "!line longer than 4096 bytes");
    assert_string_equal(s.text[1], "ba7816bf8f01cfea4141 after");
}

static void test_manifest_read_stops_when_the_callback_fails(void **state)
{
    write_file(*state, "M", HEX_A "  a\n" HEX_A "  b\n" HEX_A "  c\n");
    seen s = {0};
    s.stop_after = 2;
    se_err err = {{0}};
    assert_int_equal(se_manifest_read(*state, "M", record, &s, &err), SE_ERR_VALIDATION);
    assert_int_equal(s.n, 2);
    assert_string_equal(err.msg, "stopped at line 2");
}

static void test_manifest_read_names_a_missing_manifest(void **state)
{
    seen s = {0};
    se_err err = {{0}};
    assert_int_equal(se_manifest_read(*state, "NONE.sha256", record, &s, &err), SE_ERR_IO);
    assert_non_null(strstr(err.msg, "NONE.sha256"));
    assert_int_equal(s.n, 0);
}

static void test_case_ids_are_built_and_parsed_back(void **state)
{
    (void)state;
    char id[SE_CASE_ID_SIZE], what[32], path[128];
    int64_t r = 0, c = 0;
    se_case_id_make(4096, 32768, "fusion-graph", id, sizeof id);
    assert_string_equal(id, "4096x32768.fusion-graph");
    assert_true(se_case_id_parse(id, &r, &c, what, sizeof what));
    assert_true(r == 4096 && c == 32768);
    assert_string_equal(what, "fusion-graph");
    se_shape_id(5, 4097, id, sizeof id);
    assert_string_equal(id, "5x4097");
    /* what may itself hold a dot */
    assert_true(se_case_id_parse("1x7.megakernel_init.x", &r, &c, what, sizeof what));
    assert_string_equal(what, "megakernel_init.x");
    se_path_samples("1x7.copy", path, sizeof path);
    assert_string_equal(path, "samples/1x7.copy.csv");
    se_path_trace_timed("1x7.fusion", 0, path, sizeof path);
    assert_string_equal(path, "traces/1x7.fusion.untraced.csv");
    se_path_array_x(1, 7, path, sizeof path);
    assert_string_equal(path, "arrays/1x7.x.f32");
    se_path_array_y("1x7.fusion", path, sizeof path);
    assert_string_equal(path, "arrays/1x7.fusion.y.f32");
}

static void test_case_id_parse_refuses_what_is_not_a_case_id(void **state)
{
    (void)state;
    char what[8];
    int64_t r, c;
    const char *bad[] = {"", "4096", "4096x4096", "4096x4096.", "x5.a", "5x.a", "0x5.a",
                         "5x0.a", "-1x5.a", "5x-1.a", "5 x5.a", "axb.stream",
                         "1234567890123456789x1.a", "control.barriers"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (se_case_id_parse(bad[i], &r, &c, what, sizeof what))
            fail_msg("'%s' parsed as a case id", bad[i]);
    /* what longer than the buffer */
    assert_false(se_case_id_parse("1x1.megakernel-graph", &r, &c, what, sizeof what));
}

static se_status load(const char *dir, const char *name, const char *format, int max_version,
                      int *version, json_t **j, se_err *err)
{
    char path[512];
    se_path_join(dir, name, path, sizeof path);
    return se_json_load(path, name, format, max_version, version, j, err);
}

static void test_json_load_checks_format_and_version(void **state)
{
    write_file(*state, "ok.json", "{\"format\": \"f\", \"version\": 2, \"x\": 1}");
    write_file(*state, "fmt.json", "{\"format\": \"g\", \"version\": 1}");
    write_file(*state, "v3.json", "{\"format\": \"f\", \"version\": 3}");
    write_file(*state, "v0.json", "{\"format\": \"f\", \"version\": 0}");
    write_file(*state, "vs.json", "{\"format\": \"f\", \"version\": \"1\"}");
    write_file(*state, "arr.json", "[1, 2]");
    json_t *j = NULL;
    int version = 0;
    se_err err = {{0}};
    assert_int_equal(load(*state, "ok.json", "f", 2, &version, &j, &err), SE_OK);
    assert_int_equal(version, 2);
    assert_int_equal(json_integer_value(json_object_get(j, "x")), 1);
    json_decref(j);
    assert_int_equal(load(*state, "ok.json", "f", 1, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_null(j);
    assert_string_equal(err.msg, "ok.json: field 'version': expected an integer from 1 to 1");
    assert_int_equal(load(*state, "fmt.json", "f", 1, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_string_equal(err.msg, "fmt.json: field 'format': expected \"f\"");
    assert_int_equal(load(*state, "v3.json", "f", 2, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_int_equal(load(*state, "v0.json", "f", 2, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_int_equal(load(*state, "vs.json", "f", 2, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_int_equal(load(*state, "arr.json", "f", 2, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_string_equal(err.msg, "arr.json: the top level is not a JSON object");
    /* without a format, any JSON value */
    assert_int_equal(load(*state, "arr.json", NULL, 0, NULL, &j, &err), SE_OK);
    json_decref(j);
}

static void test_json_load_refuses_duplicate_keys_at_any_depth(void **state)
{
    write_file(*state, "dup.json", "{\"format\": \"f\", \"version\": 1, \"a\": 1, \"a\": 2}");
    write_file(*state, "deep.json", "{\"format\": \"f\", \"version\": 1, \"c\": [{\"k\": 1, \"k\": 1}]}");
    json_t *j = NULL;
    se_err err = {{0}};
    assert_int_equal(load(*state, "dup.json", "f", 1, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_non_null(strstr(err.msg, "dup.json:"));
    assert_non_null(strstr(err.msg, "duplicate"));
    assert_int_equal(load(*state, "deep.json", NULL, 0, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_null(j);
}

static void test_json_load_refuses_a_fifo_a_directory_and_a_link(void **state)
{
    char path[512];
    json_t *j = NULL;
    se_err err = {{0}};
    snprintf(path, sizeof path, "%s/fifo.json", (char *)*state);
    assert_int_equal(mkfifo(path, 0600), 0);
    /* A FIFO without a writer would block a reader that opened it plainly. */
    assert_int_equal(se_json_load(path, "fifo.json", NULL, 0, NULL, &j, &err), SE_ERR_IO);
    assert_string_equal(err.msg, "fifo.json: not a regular file");
    snprintf(path, sizeof path, "%s/sub.json", (char *)*state);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(se_json_load(path, "sub.json", NULL, 0, NULL, &j, &err), SE_ERR_IO);
    write_file(*state, "real.json", "{}");
    snprintf(path, sizeof path, "%s/link.json", (char *)*state);
    assert_int_equal(symlink("real.json", path), 0);
    assert_int_equal(se_json_load(path, "link.json", NULL, 0, NULL, &j, &err), SE_ERR_IO);
    assert_int_equal(load(*state, "absent.json", NULL, 0, NULL, &j, &err), SE_ERR_IO);
    assert_non_null(strstr(err.msg, "absent.json: cannot be opened"));
}

static void test_json_load_refuses_a_file_over_the_size_bound_unread(void **state)
{
    char path[512];
    snprintf(path, sizeof path, "%s/big.json", (char *)*state);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fclose(f);
    /* sparse: no disk used, and the loader must not read it */
    assert_int_equal(truncate(path, (off_t)SE_JSON_MAX_BYTES + 1), 0);
    json_t *j = NULL;
    se_err err = {{0}};
    assert_int_equal(se_json_load(path, "big.json", NULL, 0, NULL, &j, &err), SE_ERR_LIMIT);
    assert_non_null(strstr(err.msg, "big.json: 268435457 bytes"));
}

static void test_json_load_makes_bytes_of_the_file_printable(void **state)
{
    write_file(*state, "esc.json", "{\"\x1b[2J\": }");
    json_t *j = NULL;
    se_err err = {{0}};
    assert_int_equal(load(*state, "esc.json", NULL, 0, NULL, &j, &err), SE_ERR_VALIDATION);
    assert_null(strchr(err.msg, '\x1b'));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup_dir, teardown_dir)
    const struct CMUnitTest tests[] = {
        T(test_manifest_read_gives_paths_and_hashes_in_file_order),
        T(test_manifest_read_names_each_malformed_line),
        T(test_manifest_read_refuses_an_overlong_line),
        T(test_manifest_read_stops_when_the_callback_fails),
        T(test_manifest_read_names_a_missing_manifest),
        T(test_case_ids_are_built_and_parsed_back),
        T(test_case_id_parse_refuses_what_is_not_a_case_id),
        T(test_json_load_checks_format_and_version),
        T(test_json_load_refuses_duplicate_keys_at_any_depth),
        T(test_json_load_refuses_a_fifo_a_directory_and_a_link),
        T(test_json_load_refuses_a_file_over_the_size_bound_unread),
        T(test_json_load_makes_bytes_of_the_file_printable),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
