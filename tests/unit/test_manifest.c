/*
 * test_manifest.c - unit tests of the SHA-256 manifest in bundle/manifest.h:
 * digests of known content, the exact text se_manifest_write produces over a
 * nested directory (and that GNU `sha256sum -c` accepts it), a clean verify,
 * and every tamper verify must catch with the right counter and report line:
 * a flipped byte, a deleted file, a truncated file, a removed manifest line,
 * an added file, a malformed or hostile manifest line, a missing manifest.
 *
 * Each test gets a fresh bundle in a mkdtemp directory under /tmp, removed
 * afterwards.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/manifest.h"

#define SHA_ABC "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define SHA_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_HELLO_NL "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
#define SHA_BACKTICK_BC "89f900390e14d37c405c75244fb086aa35b54c0fb6ec3638c1c21451d4743d11"
#define SHA_AB "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603"

/* The manifest of the standard bundle, sorted bytewise. */
static const char expected_manifest[] = SHA_ABC "  a.txt\n"
                                        SHA_EMPTY "  empty\n"
                                        SHA_HELLO_NL "  sub/b.txt\n"
                                        SHA_ABC "  sub/dir/c.txt\n";

typedef struct fixture {
    char dir[64];
} fixture;

static void path_in(const fixture *fx, const char *rel, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s/%s", fx->dir, rel);
    assert_true(n > 0 && (size_t)n < cap);
}

static void write_file(const fixture *fx, const char *rel, const void *data, size_t n)
{
    char p[512];
    path_in(fx, rel, p, sizeof p);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static void write_text(const fixture *fx, const char *rel, const char *text)
{
    write_file(fx, rel, text, strlen(text));
}

/* Reads a whole file under the bundle into a malloc'd NUL-terminated buffer. */
static char *read_text(const fixture *fx, const char *rel)
{
    char p[512];
    path_in(fx, rel, p, sizeof p);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    size_t cap = 1024, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void make_dir(const fixture *fx, const char *rel)
{
    char p[512];
    path_in(fx, rel, p, sizeof p);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *de;
            while ((de = readdir(d)) != NULL) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                    continue;
                char child[1024];
                snprintf(child, sizeof child, "%s/%s", path, de->d_name);
                remove_tree(child);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* The standard bundle: a.txt "abc", empty "", sub/b.txt "hello\n",
 * sub/dir/c.txt "abc". */
static int setup_bundle(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    strcpy(fx->dir, "/tmp/se-manifest-test-XXXXXX");
    if (!mkdtemp(fx->dir)) {
        free(fx);
        return -1;
    }
    *state = fx;
    write_text(fx, "a.txt", "abc");
    write_text(fx, "empty", "");
    make_dir(fx, "sub");
    make_dir(fx, "sub/dir");
    write_text(fx, "sub/b.txt", "hello\n");
    write_text(fx, "sub/dir/c.txt", "abc");
    return 0;
}

static int teardown_bundle(void **state)
{
    fixture *fx = *state;
    remove_tree(fx->dir);
    free(fx);
    return 0;
}

static void write_manifest(const fixture *fx)
{
    se_err err = {{0}};
    se_status st = se_manifest_write(fx->dir, SE_MANIFEST_NAME, &err);
    if (st != SE_OK)
        fail_msg("se_manifest_write: %s", err.msg);
}

/* Runs verify, returning its report and the lines it printed (malloc'd). */
static char *verify(const fixture *fx, se_manifest_report *rep)
{
    FILE *out = tmpfile();
    assert_non_null(out);
    se_err err = {{0}};
    se_status st = se_manifest_verify(fx->dir, SE_MANIFEST_NAME, out, rep, &err);
    if (st != SE_OK)
        fail_msg("se_manifest_verify: %s", err.msg);
    long len = ftell(out);
    assert_true(len >= 0);
    rewind(out);
    char *text = malloc((size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)len, out), (size_t)len);
    text[len] = '\0';
    fclose(out);
    return text;
}

static void assert_report(const se_manifest_report *rep, size_t listed, size_t verified,
                          size_t remote_only, size_t mismatched, size_t unlisted,
                          size_t malformed)
{
    assert_int_equal(rep->listed, listed);
    assert_int_equal(rep->verified, verified);
    assert_int_equal(rep->remote_only, remote_only);
    assert_int_equal(rep->mismatched, mismatched);
    assert_int_equal(rep->unlisted, unlisted);
    assert_int_equal(rep->malformed, malformed);
}

static void test_sha256_of_abc_and_empty_buffer_match_published_digests(void **state)
{
    (void)state;
    unsigned char d[32];
    char hex[65];
    se_err err = {{0}};
    assert_int_equal(se_sha256_buffer("abc", 3, d, &err), SE_OK);
    se_hex32(d, hex);
    assert_string_equal(hex, SHA_ABC);
    assert_int_equal(se_sha256_buffer(NULL, 0, d, &err), SE_OK);
    se_hex32(d, hex);
    assert_string_equal(hex, SHA_EMPTY);
}

static void test_sha256_of_file_streams_past_one_chunk(void **state)
{
    fixture *fx = *state;
    size_t n = 3u * 1024 * 1024 + 5;
    unsigned char *data = malloc(n);
    assert_non_null(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 131u + (i >> 13));
    write_file(fx, "big.bin", data, n);
    unsigned char from_file[32], from_buffer[32];
    se_err err = {{0}};
    char p[512];
    path_in(fx, "big.bin", p, sizeof p);
    assert_int_equal(se_sha256_file(p, from_file, &err), SE_OK);
    assert_int_equal(se_sha256_buffer(data, n, from_buffer, &err), SE_OK);
    assert_memory_equal(from_file, from_buffer, 32);
    free(data);

    path_in(fx, "a.txt", p, sizeof p);
    char hex[65];
    assert_int_equal(se_sha256_file(p, from_file, &err), SE_OK);
    se_hex32(from_file, hex);
    assert_string_equal(hex, SHA_ABC);
}

static void test_sha256_of_missing_file_is_io_error_naming_it(void **state)
{
    fixture *fx = *state;
    char p[512];
    path_in(fx, "no-such-file", p, sizeof p);
    unsigned char d[32];
    se_err err = {{0}};
    assert_int_equal(se_sha256_file(p, d, &err), SE_ERR_IO);
    assert_non_null(strstr(err.msg, p));
}

static void test_write_lists_nested_files_sorted_with_exact_text(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    char *text = read_text(fx, SE_MANIFEST_NAME);
    assert_string_equal(text, expected_manifest);
    free(text);

    /* Writing again does not list the manifest itself, and leaves no
     * temporary file behind. */
    write_manifest(fx);
    text = read_text(fx, SE_MANIFEST_NAME);
    assert_string_equal(text, expected_manifest);
    free(text);
    DIR *d = opendir(fx->dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        assert_null(strstr(de->d_name, ".tmp-manifest"));
    closedir(d);
}

static void test_written_manifest_passes_gnu_sha256sum_check(void **state)
{
    fixture *fx = *state;
    if (system("command -v sha256sum >/dev/null 2>&1") != 0)
        skip();
    write_manifest(fx);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "cd '%s' && sha256sum -c --quiet " SE_MANIFEST_NAME, fx->dir);
    int rc = system(cmd);
    assert_true(rc != -1 && WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 0);
}

static void test_verify_of_untouched_bundle_passes_with_all_counts(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "");
    assert_report(&rep, 4, 4, 0, 0, 0, 0);
    assert_true(se_manifest_ok(&rep, 0));
    assert_true(se_manifest_ok(&rep, 1));
    free(out);

    /* A NULL stream prints nothing and counts the same. */
    se_err err = {{0}};
    assert_int_equal(se_manifest_verify(fx->dir, SE_MANIFEST_NAME, NULL, &rep, &err), SE_OK);
    assert_report(&rep, 4, 4, 0, 0, 0, 0);
}

static void test_flipped_byte_is_a_mismatch_naming_both_digests(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    write_text(fx, "a.txt", "`bc"); /* 'a' ^ 0x01 */
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "mismatch: a.txt: expected " SHA_ABC ", got " SHA_BACKTICK_BC "\n");
    assert_report(&rep, 4, 3, 0, 1, 0, 0);
    assert_false(se_manifest_ok(&rep, 0));
    free(out);
}

static void test_deleted_file_is_remote_only_ok_unless_strict(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    char p[512];
    path_in(fx, "sub/dir/c.txt", p, sizeof p);
    assert_int_equal(unlink(p), 0);
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "remote-only: sub/dir/c.txt\n");
    assert_report(&rep, 4, 3, 1, 0, 0, 0);
    assert_true(se_manifest_ok(&rep, 0));
    assert_false(se_manifest_ok(&rep, 1));
    free(out);
}

static void test_truncated_file_is_a_mismatch(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    char p[512];
    path_in(fx, "a.txt", p, sizeof p);
    assert_int_equal(truncate(p, 2), 0);
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "mismatch: a.txt: expected " SHA_ABC ", got " SHA_AB "\n");
    assert_report(&rep, 4, 3, 0, 1, 0, 0);
    assert_false(se_manifest_ok(&rep, 0));
    free(out);
}

static void test_removed_manifest_line_leaves_file_unlisted(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    write_text(fx, SE_MANIFEST_NAME, SHA_ABC "  a.txt\n" SHA_EMPTY "  empty\n" SHA_ABC
                                            "  sub/dir/c.txt\n");
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "unlisted: sub/b.txt\n");
    assert_report(&rep, 3, 3, 0, 0, 1, 0);
    assert_false(se_manifest_ok(&rep, 0));
    free(out);
}

static void test_added_file_is_unlisted(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    write_text(fx, "sub/extra.json", "{}");
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "unlisted: sub/extra.json\n");
    assert_report(&rep, 4, 4, 0, 0, 1, 0);
    assert_false(se_manifest_ok(&rep, 0));
    free(out);
}

static void test_malformed_line_is_counted_and_named(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    char *text = read_text(fx, SE_MANIFEST_NAME);
    char *bad = malloc(strlen(text) + 64);
    assert_non_null(bad);
    strcpy(bad, text);
    strcat(bad, "not a digest  oops.txt\n");
    write_text(fx, SE_MANIFEST_NAME, bad);
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":5: "));
    assert_null(strchr(strchr(out, '\n') + 1, '\n')); /* exactly one line */
    assert_report(&rep, 4, 4, 0, 0, 0, 1);
    assert_false(se_manifest_ok(&rep, 0));
    free(out);
    free(bad);
    free(text);
}

static void test_unsafe_or_repeated_manifest_lines_are_malformed(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    char *text = read_text(fx, SE_MANIFEST_NAME);
    size_t cap = strlen(text) + 8192;
    char *m = malloc(cap);
    assert_non_null(m);
    strcpy(m, text);
    strcat(m, SHA_ABC "  /etc/passwd\n");      /* line 5: absolute */
    strcat(m, SHA_ABC "  sub/../a.txt\n");     /* line 6: parent component */
    strcat(m, SHA_ABC "  \n");                 /* line 7: empty path */
    strcat(m, SHA_ABC "  a.txt\n");            /* line 8: duplicate of line 1 */
    strcat(m, SHA_ABC " a.txt\n");             /* line 9: one space */
    strcat(m, "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD  a.txt\n");
    strcat(m, "\n");                           /* line 11: empty line */
    strcat(m, SHA_ABC "  a b.txt\n");          /* line 12: space in the path */
    size_t len = strlen(m);                    /* line 13: 5000 bytes, no newline */
    memcpy(m + len, SHA_ABC "  ", 66);
    memset(m + len + 66, 'x', 5000 - 66);
    write_file(fx, SE_MANIFEST_NAME, m, len + 5000);
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":5: absolute path\n"));
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":6: "));
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":7: "));
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":8: duplicate of line 1\n"));
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":13: line longer than 4096"));
    assert_report(&rep, 4, 4, 0, 0, 0, 9);
    assert_false(se_manifest_ok(&rep, 0));
    free(out);
    free(m);
    free(text);
}

static void test_final_line_without_newline_counts_only_if_complete(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    /* Complete last line without its newline, and the binary marker. */
    write_text(fx, SE_MANIFEST_NAME, SHA_ABC " *a.txt\n" SHA_EMPTY "  empty\n" SHA_HELLO_NL
                                            "  sub/b.txt\n" SHA_ABC "  sub/dir/c.txt");
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "");
    assert_report(&rep, 4, 4, 0, 0, 0, 0);
    free(out);

    /* Cut inside the digest: malformed, and the file it named is unlisted. */
    write_text(fx, SE_MANIFEST_NAME, SHA_ABC "  a.txt\n" SHA_EMPTY "  empty\n" SHA_HELLO_NL
                                            "  sub/b.txt\nba7816bf8f01cf");
    out = verify(fx, &rep);
    assert_non_null(strstr(out, "malformed: " SE_MANIFEST_NAME ":4: "));
    assert_non_null(strstr(out, "unlisted: sub/dir/c.txt\n"));
    assert_report(&rep, 3, 3, 0, 0, 1, 1);
    free(out);
}

static void test_missing_manifest_is_io_error_naming_it(void **state)
{
    fixture *fx = *state;
    se_manifest_report rep;
    se_err err = {{0}};
    assert_int_equal(se_manifest_verify(fx->dir, SE_MANIFEST_NAME, NULL, &rep, &err), SE_ERR_IO);
    char p[512];
    path_in(fx, SE_MANIFEST_NAME, p, sizeof p);
    assert_non_null(strstr(err.msg, p));
}

static void test_write_refuses_symlink_naming_it(void **state)
{
    fixture *fx = *state;
    char p[512];
    path_in(fx, "sub/link", p, sizeof p);
    assert_int_equal(symlink("../a.txt", p), 0);
    se_err err = {{0}};
    assert_int_equal(se_manifest_write(fx->dir, SE_MANIFEST_NAME, &err), SE_ERR_USAGE);
    assert_non_null(strstr(err.msg, "sub/link"));
    path_in(fx, SE_MANIFEST_NAME, p, sizeof p);
    assert_int_equal(access(p, F_OK), -1);
}

static void test_write_refuses_path_with_other_characters_naming_it(void **state)
{
    fixture *fx = *state;
    write_text(fx, "sub/has space.txt", "x");
    se_err err = {{0}};
    assert_int_equal(se_manifest_write(fx->dir, SE_MANIFEST_NAME, &err), SE_ERR_USAGE);
    assert_non_null(strstr(err.msg, "sub/has space.txt"));
}

static void test_listed_file_behind_symlinked_directory_is_not_hashed(void **state)
{
    fixture *fx = *state;
    write_manifest(fx);
    /* Replace sub/dir by a link to a directory holding the same c.txt. */
    char p[512], q[512];
    path_in(fx, "sub/dir", p, sizeof p);
    path_in(fx, "elsewhere", q, sizeof q);
    assert_int_equal(rename(p, q), 0);
    assert_int_equal(symlink("../elsewhere", p), 0);
    se_manifest_report rep;
    char *out = verify(fx, &rep);
    assert_string_equal(out, "remote-only: sub/dir/c.txt\n"
                             "unlisted: elsewhere/c.txt\n"
                             "unlisted: sub/dir\n");
    assert_report(&rep, 4, 3, 1, 0, 2, 0);
    free(out);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup_bundle, teardown_bundle)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_of_abc_and_empty_buffer_match_published_digests),
        T(test_sha256_of_file_streams_past_one_chunk),
        T(test_sha256_of_missing_file_is_io_error_naming_it),
        T(test_write_lists_nested_files_sorted_with_exact_text),
        T(test_written_manifest_passes_gnu_sha256sum_check),
        T(test_verify_of_untouched_bundle_passes_with_all_counts),
        T(test_flipped_byte_is_a_mismatch_naming_both_digests),
        T(test_deleted_file_is_remote_only_ok_unless_strict),
        T(test_truncated_file_is_a_mismatch),
        T(test_removed_manifest_line_leaves_file_unlisted),
        T(test_added_file_is_unlisted),
        T(test_malformed_line_is_counted_and_named),
        T(test_unsafe_or_repeated_manifest_lines_are_malformed),
        T(test_final_line_without_newline_counts_only_if_complete),
        T(test_missing_manifest_is_io_error_naming_it),
        T(test_write_refuses_symlink_naming_it),
        T(test_write_refuses_path_with_other_characters_naming_it),
        T(test_listed_file_behind_symlinked_directory_is_not_hashed),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
