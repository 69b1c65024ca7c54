/*
 * test_peers.c - unit tests of peers_run.h and peers.h without a GPU.
 *
 * The harness side of the PyTorch peers is driven end to end with the real
 * bench/peers.py: tests/peers/fake_torch stands in for torch (on
 * PYTHONPATH), so the inputs the harness writes, the script's run, the
 * results it reads back, the validation against the float64 reference, the
 * samples files and peers.json are the ones a GPU run makes. Each way of
 * being skipped is tested (--no-peers, no script, no python, no torch), a
 * wrong output becomes a failed peer, a compile error an errored one, and
 * verify's checks of peers.json catch each edit, naming the field.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/rundir.h"
#include "bundle/peers.h"
#include "run/peers_run.h"
#include "model/operation.h"
#include "model/protocol.h"

#ifndef SE_TEST_SOURCE_DIR
#define SE_TEST_SOURCE_DIR "."
#endif

#define SCRIPT SE_TEST_SOURCE_DIR "/bench/peers.py"
#define FAKE_TORCH SE_TEST_SOURCE_DIR "/tests/peers/fake_torch"
#define NO_TORCH SE_TEST_SOURCE_DIR "/tests/peers/no_torch"

static const char protocol_text[] =
    "{\"format\": \"softmax-evidence-protocol\", \"version\": 1, \"name\": \"peers-test\",\n"
    " \"workload\": {\"shapes\": [\"3x7\", \"2x5\"], \"tile\": 4, \"dtype\": \"float32\",\n"
    "  \"input\": {\"generator\": \"curand-philox4_32_10\", \"distribution\": \"normal\", "
    "\"seed\": 7, \"scale\": 16.0, \"outliers\": \"outliers.h\"}, \"eps\": 1e-6},\n"
    " \"strategies\": [\"stream\", \"cudnn\"],\n"
    " \"tolerance\": {\"atol\": 1e-37, \"rtol\": 1e-4},\n"
    " \"validation\": {\"invocations\": 1},\n"
    " \"scopes\": {\"device\": {\"samples\": 6, \"warmup\": 1}, \"device_cold\": {\"samples\": 2, "
    "\"warmup\": 0},\n"
    "  \"batch\": {\"samples\": 2, \"warmup\": 0, \"batch\": 2}, \"host\": {\"samples\": 2, "
    "\"warmup\": 0}},\n"
    " \"controls\": {\"samples\": 2, \"warmup\": 0, \"barriers\": 2},\n"
    " \"analysis\": {\"bootstrap_resamples\": 50, \"bootstrap_seed\": 1, \"order_seed\": 2, "
    "\"throttle_fraction\": 0.9}}\n";

typedef struct fixture {
    se_protocol p;
    char runs[256];
    se_rundir rd;
    se_peers_run *pr;
    json_t *summary, *validation, *peers;
    char problems[8192];
    size_t n_problems;
    const char *unlisted; /* a path the fake manifest does not list */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    se_err err = {{0}};
    if (!f || se_protocol_parse(protocol_text, strlen(protocol_text), "peers-test", &f->p, &err) != SE_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    snprintf(f->runs, sizeof f->runs, "/tmp/se-test-peers-XXXXXX");
    if (!mkdtemp(f->runs) || se_rundir_begin(&f->rd, f->runs, &err) != SE_OK)
        return -1;
    f->summary = json_array();
    f->validation = json_array();
    *state = f;
    unsetenv("FAKE_TORCH_WRONG_SOFTMAX");
    unsetenv("FAKE_TORCH_COMPILE_FAILS");
    unsetenv("FAKE_TORCH_OOM_COLS");
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1); /* no __pycache__ in the source tree */
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    se_peers_end(f->pr);
    se_rundir_abort(&f->rd);
    se_remove_tree(f->runs);
    json_decref(f->summary);
    json_decref(f->validation);
    json_decref(f->peers);
    se_protocol_free(&f->p);
    free(f);
    return 0;
}

static int have_python(void)
{
    return system("command -v python3 >/dev/null 2>&1") == 0;
}

/* Starts the peers with python3 and the repository's script. */
static void begin(fixture *f, const char *python, const char *script, const char *disabled)
{
    se_peers_opts o = {python, script, 0, 1, disabled};
    se_err err = {{0}};
    assert_int_equal(se_peers_begin(&f->pr, &f->p, &o, &err), SE_OK);
}

/* Writes every shape's x (a fixed pseudo-random pattern with an outlier)
 * and xp = s * x, as the run does, and records the hashes validation.json
 * and the copy medians summary.json would hold. */
static void add_shapes(fixture *f)
{
    json_t *cases = json_array(), *vcases = json_array();
    for (size_t i = 0; i < f->p.n_shapes; i++) {
        const se_shape *s = &f->p.shapes[i];
        size_t n = (size_t)(s->rows * s->cols);
        float *x = malloc(n * sizeof *x), *xp = malloc(n * sizeof *xp);
        assert_non_null(x);
        assert_non_null(xp);
        for (size_t k = 0; k < n; k++)
            x[k] = (float)(16.0 * sin(0.7 * (double)k + 1.0 + (double)i));
        x[n / 2] = 60.0f;
        for (int64_t r = 0; r < s->rows; r++) {
            double ss = 0.0;
            for (int64_t c = 0; c < s->cols; c++)
                ss += (double)x[r * s->cols + c] * x[r * s->cols + c];
            float sc = (float)(1.0 / sqrt(ss / (double)s->cols + f->p.eps));
            for (int64_t c = 0; c < s->cols; c++)
                xp[r * s->cols + c] = sc * x[r * s->cols + c];
        }
        unsigned char d[32];
        char hex[65];
        se_sha256_buffer(x, n * sizeof *x, d, NULL);
        se_hex32(d, hex);
        /* xp as the runner gives it: only where the workload has one */
        se_peers_add_shape(f->pr, i, x, se_protocol_operation(&f->p)->prescaled_input ? xp : NULL,
                           d);
        json_array_append_new(vcases, json_pack("{s:I, s:I, s:s}", "rows", (json_int_t)s->rows,
                                                "cols", (json_int_t)s->cols, "input_sha256", hex));
        json_array_append_new(
            cases, json_pack("{s:s, s:I, s:I, s:{s:{s:f}}}", "what", "copy", "rows",
                             (json_int_t)s->rows, "cols", (json_int_t)s->cols, "scopes", "device",
                             "median_ns", 1000.0));
        free(x);
        free(xp);
    }
    json_decref(f->summary);
    json_decref(f->validation);
    f->summary = json_pack("{s:o}", "cases", cases);
    f->validation = json_pack("{s:o}", "cases", vcases);
}

static se_status measure_and_write(fixture *f)
{
    se_err err = {{0}};
    se_status st = se_peers_measure(f->pr, &f->rd, 500, NULL, NULL, &err);
    if (st == SE_OK)
        st = se_peers_json(f->pr, f->summary, &f->peers, &err);
    if (st != SE_OK)
        fail_msg("%s", err.msg);
    return st;
}

/* verify's sample source: the samples files of the run being written. */
static se_status file_source(void *ctx, const se_case_id *c, se_sample_set *sets, int *owned,
                             se_err *err)
{
    fixture *f = ctx;
    char rel[160];
    se_samples_path(c, rel, sizeof rel);
    se_status st = se_samples_load(f->rd.tmp, rel, sets, c->n_scopes, err);
    *owned = st == SE_OK;
    return st;
}

static int listed(void *ctx, const char *rel)
{
    fixture *f = ctx;
    return !f->unlisted || strcmp(rel, f->unlisted) != 0;
}

static void on_problem(void *ctx, const char *msg)
{
    fixture *f = ctx;
    size_t used = strlen(f->problems);
    snprintf(f->problems + used, sizeof f->problems - used, "%s\n", msg);
}

static size_t check(fixture *f, const json_t *peers)
{
    se_peers_env env = {&f->p, f->summary, f->validation, file_source, f, listed, on_problem, f};
    se_peers_counts n;
    f->problems[0] = '\0';
    return se_peers_check(peers, &env, &n);
}

static void assert_problem(fixture *f, const json_t *peers, const char *needle)
{
    size_t n = check(f, peers);
    if (n == 0 || !strstr(f->problems, needle))
        fail_msg("want a problem naming '%s', got %zu: %s", needle, n, f->problems);
}

static json_t *entry(const json_t *peers, size_t i)
{
    return json_array_get(json_object_get(peers, "peers"), i);
}

static void assert_skipped(fixture *f, const char *reason)
{
    const char *status = json_string_value(json_object_get(f->peers, "status"));
    const char *why = json_string_value(json_object_get(f->peers, "reason"));
    assert_non_null(status);
    assert_string_equal(status, "skipped");
    if (!why || !strstr(why, reason))
        fail_msg("reason '%s' does not contain '%s'", why ? why : "(none)", reason);
    assert_int_equal(json_array_size(json_object_get(f->peers, "peers")), 0);
    assert_int_equal(check(f, f->peers), 0);
}

/* A run of the peers with the stand-in torch, and a knob of it set. */
static void fake_run(fixture *f, const char *knob)
{
    setenv("PYTHONPATH", FAKE_TORCH, 1);
    if (knob)
        setenv(knob, "1", 1);
    begin(f, "python3", SCRIPT, NULL);
    add_shapes(f);
    measure_and_write(f);
}

static void test_no_peers_option_skips_saying_so(void **state)
{
    fixture *f = *state;
    begin(f, "python3", SCRIPT, "--no-peers was given");
    add_shapes(f);
    measure_and_write(f);
    assert_skipped(f, "--no-peers was given");
}

static void test_missing_script_skips_saying_so(void **state)
{
    fixture *f = *state;
    begin(f, "python3", "/nonexistent/bench/peers.py", NULL);
    add_shapes(f);
    measure_and_write(f);
    assert_skipped(f, "the peers script /nonexistent/bench/peers.py cannot be read");
}

static void test_missing_python_skips_saying_so(void **state)
{
    fixture *f = *state;
    begin(f, "/nonexistent/python3", SCRIPT, NULL);
    add_shapes(f);
    measure_and_write(f);
    assert_skipped(f, "python '/nonexistent/python3' cannot be run");
}

static void test_no_torch_skips_with_the_scripts_reason(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    setenv("PYTHONPATH", NO_TORCH, 1);
    begin(f, "python3", SCRIPT, NULL);
    add_shapes(f);
    measure_and_write(f);
    assert_skipped(f, "torch cannot be imported");
    assert_int_equal(json_integer_value(json_object_get(f->peers, "script_exit_status")), 3);
}

/* Whether process pid has ended (gone, or a zombie its new parent has not
 * reaped yet). */
static int process_ended(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')'); /* the name may hold spaces */
    return close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X');
}

/* A worker the script started (as torch.compile starts its compile
 * workers) does not outlive the script: the harness ends the script's
 * process group once the script exits. */
static void test_the_scripts_workers_do_not_outlive_it(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    char script[320], pidfile[320];
    snprintf(script, sizeof script, "%s/worker_script.py", f->runs);
    snprintf(pidfile, sizeof pidfile, "%s/worker.pid", f->runs);
    FILE *o = fopen(script, "w");
    assert_non_null(o);
    fprintf(o, "import subprocess, sys\n"
               "w = subprocess.Popen(['sleep', '300'], stdin=subprocess.DEVNULL,\n"
               "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "open('%s', 'w').write(str(w.pid))\n"
               "print('peers.py: a worker left running (test)', file=sys.stderr)\n"
               "sys.exit(3)\n", pidfile);
    assert_int_equal(fclose(o), 0);
    begin(f, "python3", script, NULL);
    add_shapes(f);
    measure_and_write(f);
    assert_skipped(f, "a worker left running (test)");
    FILE *pf = fopen(pidfile, "r");
    assert_non_null(pf);
    long pid = 0;
    assert_int_equal(fscanf(pf, "%ld", &pid), 1);
    fclose(pf);
    assert_true(pid > 1);
    if (!process_ended(pid)) {
        kill((pid_t)pid, SIGKILL);
        fail_msg("the script's worker %ld still runs after the script exited", pid);
    }
}

/* Every (shape, peer) ran, passed and verifies; each edit is caught. */
static void test_fake_torch_run_verifies_and_edits_are_caught(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    fake_run(f, NULL);
    json_t *pj = f->peers;
    assert_string_equal(json_string_value(json_object_get(pj, "status")), "ok");
    assert_string_equal(json_string_value(json_object_get(json_object_get(pj, "environment"),
                                                          "torch_version")), "0.0+fake");
    assert_int_equal(json_array_size(json_object_get(pj, "peers")), 2 * SE_NPEERS);
    for (size_t i = 0; i < 2 * SE_NPEERS; i++) {
        const json_t *e = entry(pj, i);
        if (i % SE_NPEERS == SE_NPEERS - 1) {
            /* flashinfer is not beside the fake torch: skipped, saying why */
            assert_string_equal(json_string_value(json_object_get(e, "peer")), "flashinfer-softmax");
            assert_string_equal(json_string_value(json_object_get(e, "status")), "skipped");
            assert_non_null(strstr(json_string_value(json_object_get(e, "reason")),
                                   "flashinfer.sampling cannot be imported"));
            assert_null(json_object_get(e, "samples_file"));
            continue;
        }
        assert_string_equal(json_string_value(json_object_get(e, "status")), "ok");
        assert_true(json_is_true(json_object_get(e, "pass")));
        assert_int_equal(json_integer_value(json_object_get(json_object_get(e, "summary"), "n")), 6);
        char path[4400];
        se_rundir_path(&f->rd, json_string_value(json_object_get(e, "samples_file")), path,
                       sizeof path);
        assert_int_equal(access(path, R_OK), 0);
    }
    assert_string_equal(json_string_value(json_object_get(entry(pj, 0), "case")), "3x7.torch-eager");
    assert_string_equal(json_string_value(json_object_get(entry(pj, 4), "case")), "3x7.quack-softmax");
    assert_string_equal(json_string_value(json_object_get(entry(pj, 8), "case")), "2x5.torch-softmax");
    assert_string_equal(json_string_value(json_object_get(entry(pj, 9), "case")), "2x5.liger-softmax");
    /* The samples continue the run's sequence numbers. */
    char path[4400];
    se_rundir_path(&f->rd, "samples/3x7.torch-eager.csv", path, sizeof path);
    FILE *in = fopen(path, "r");
    char line[256] = "";
    assert_non_null(fgets(line, sizeof line, in));
    assert_non_null(fgets(line, sizeof line, in));
    fclose(in);
    assert_int_equal(strncmp(line, "500,0,0,device,warm,", 20), 0);
    se_rundir_path(&f->rd, SE_PEERS_SCRIPT_COPY, path, sizeof path);
    assert_int_equal(access(path, R_OK), 0);

    if (check(f, pj) != 0)
        fail_msg("the run's own peers.json does not check: %s", f->problems);

    json_t *t = json_deep_copy(pj);
    json_object_set_new(json_object_get(entry(t, 1), "summary"), "median_ns", json_real(1234.5));
    assert_problem(f, t, "peers.json: field 'peers[1].summary.median_ns' (3x7.torch-compile): saved 1234.5");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(entry(t, 2), "fails", json_integer(3));
    assert_problem(f, t, "field 'peers[2].pass' (3x7.torch-softmax): inconsistent");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(entry(t, 0), "status", json_string("failed"));
    assert_problem(f, t, "field 'peers[0].status' (3x7.torch-eager): 'failed', but pass is true");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(entry(t, SE_NPEERS), "input_sha256", json_string("00"));
    assert_problem(f, t, "field 'peers[6].input_sha256' (2x5.torch-eager)");
    json_decref(t);

    t = json_deep_copy(pj);
    json_array_remove(json_object_get(t, "peers"), 4);
    assert_problem(f, t, "field 'peers': 11 entries, the protocol's 2 shapes imply 12");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(entry(t, 5), "reason", json_string(""));
    assert_problem(f, t, "field 'peers[5].reason' (3x7.flashinfer-softmax): a skipped peer must say why");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(entry(t, 5), "samples_file", json_string("samples/3x7.flashinfer-softmax.csv"));
    assert_problem(f, t, "field 'peers[5].samples_file' (3x7.flashinfer-softmax): a skipped peer has no samples");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(t, "version", json_integer(1)); /* 3 entries a shape, not 6 */
    assert_problem(f, t, "field 'peers': 12 entries, the protocol's 2 shapes imply 6");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(json_object_get(t, "tolerance"), "rtol", json_real(0.5));
    assert_problem(f, t, "peers.json: field 'tolerance': differs from protocol.json");
    json_decref(t);

    t = json_deep_copy(pj);
    json_object_set_new(t, "status", json_string("skipped"));
    assert_problem(f, t, "field 'reason': the peers were skipped and it does not say why");
    json_decref(t);

    f->unlisted = "samples/2x5.torch-compile.csv";
    assert_problem(f, pj, "samples/2x5.torch-compile.csv is not in the manifest");
    f->unlisted = NULL;

    /* An edited samples file: the summary no longer recomputes. */
    se_rundir_path(&f->rd, "samples/3x7.torch-eager.csv", path, sizeof path);
    FILE *out = fopen(path, "a");
    fputs("999,6,0,device,warm,1,0,0\n", out);
    fclose(out);
    assert_problem(f, pj, "field 'peers[0].summary' (3x7.torch-eager): cannot be recomputed");
}

static void test_wrong_output_is_a_failed_peer(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    fake_run(f, "FAKE_TORCH_WRONG_SOFTMAX");
    const json_t *e = entry(f->peers, 2);
    assert_string_equal(json_string_value(json_object_get(e, "case")), "3x7.torch-softmax");
    assert_string_equal(json_string_value(json_object_get(e, "status")), "failed");
    assert_true(json_is_false(json_object_get(e, "pass")));
    assert_true(json_integer_value(json_object_get(e, "fails")) > 0);
    assert_non_null(json_object_get(e, "summary"));
    assert_string_equal(json_string_value(json_object_get(entry(f->peers, 0), "status")), "ok");
    /* Recorded as it is, a failed peer is consistent: verify accepts it. */
    if (check(f, f->peers) != 0)
        fail_msg("%s", f->problems);
}

static void test_compile_error_is_an_errored_peer(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    fake_run(f, "FAKE_TORCH_COMPILE_FAILS");
    const json_t *e = entry(f->peers, 1);
    assert_string_equal(json_string_value(json_object_get(e, "status")), "error");
    const char *why = json_string_value(json_object_get(e, "error"));
    assert_non_null(why);
    assert_non_null(strstr(why, "fake compile failure"));
    assert_null(json_object_get(e, "summary"));
    if (check(f, f->peers) != 0)
        fail_msg("%s", f->problems);
    json_t *t = json_deep_copy(f->peers);
    json_object_set_new(entry(t, 1), "error", json_string(""));
    assert_problem(f, t, "field 'peers[1].error' (3x7.torch-compile): a peer in error must say why");
    json_decref(t);
}

static void test_out_of_memory_for_the_inputs_errors_every_peer_of_the_shape(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    setenv("FAKE_TORCH_OOM_COLS", "5", 1);
    fake_run(f, NULL);
    for (size_t i = SE_NPEERS; i < 2 * SE_NPEERS; i++) {
        const json_t *e = entry(f->peers, i);
        assert_string_equal(json_string_value(json_object_get(e, "status")), "error");
        assert_non_null(strstr(json_string_value(json_object_get(e, "error")), "OutOfMemoryError"));
    }
    assert_string_equal(json_string_value(json_object_get(entry(f->peers, 0), "status")), "ok");
}

/* ---- LayerNorm's peers (peers.json version 3) ---------------------------- */

static const char ln_protocol_text[] =
    "{\"format\": \"softmax-evidence-protocol\", \"version\": 1, \"name\": \"peers-ln-test\",\n"
    " \"workload\": {\"shapes\": [\"3x7\", \"2x5\"], \"tile\": 4, \"dtype\": \"float32\",\n"
    "  \"input\": {\"generator\": \"curand-philox4_32_10\", \"distribution\": \"normal\", "
    "\"seed\": 7, \"scale\": 16.0, \"outliers\": \"outliers.h\"}, \"eps\": 1e-5,\n"
    "  \"operation\": \"layernorm\"},\n"
    " \"strategies\": [\"stream\", \"rowblock\"],\n"
    " \"tolerance\": {\"atol\": 1e-5, \"rtol\": 1e-4},\n"
    " \"validation\": {\"invocations\": 1},\n"
    " \"scopes\": {\"device\": {\"samples\": 6, \"warmup\": 1}, \"device_cold\": {\"samples\": 2, "
    "\"warmup\": 0},\n"
    "  \"batch\": {\"samples\": 2, \"warmup\": 0, \"batch\": 2}, \"host\": {\"samples\": 2, "
    "\"warmup\": 0}},\n"
    " \"controls\": {\"samples\": 2, \"warmup\": 0, \"barriers\": 2},\n"
    " \"analysis\": {\"bootstrap_resamples\": 50, \"bootstrap_seed\": 1, \"order_seed\": 2, "
    "\"throttle_fraction\": 0.9}}\n";

/* The fixture's protocol replaced by LayerNorm's. */
static void use_layernorm(fixture *f)
{
    se_err err = {{0}};
    se_protocol_free(&f->p);
    if (se_protocol_parse(ln_protocol_text, strlen(ln_protocol_text), "peers-ln-test", &f->p,
                          &err) != SE_OK)
        fail_msg("%s", err.msg);
}

/* The table: each operation's peers are model/operation.c's `peers`, in
 * order, at most SE_NPEERS; versions 1 and 2 are the softmax's, 3 names
 * its operation. */
static void test_each_operations_peers_are_its_descriptors(void **state)
{
    (void)state;
    for (size_t i = 0; i < se_operation_count; i++) {
        const se_operation *op = se_operations[i];
        se_peer_set set = se_peer_set_of(op->name);
        assert_true(set.count >= 1 && set.count <= SE_NPEERS);
        assert_true(set.first >= 0 && set.first + set.count <= SE_PEERS_ALL);
        char names[512] = "";
        for (int k = 0; k < set.count; k++) {
            strcat(names, k ? "," : "");
            strcat(names, se_peer_get(set.first + k)->name);
        }
        assert_string_equal(names, op->peers);
    }
    assert_int_equal(se_peer_set_of("frob").count, 0);
    assert_null(se_peer_get(SE_PEERS_ALL));
    assert_int_equal(se_peers_version_of("rms-softmax"), 2);
    assert_int_equal(se_peers_version_of("layernorm"), 3);
    json_t *j = json_pack("{s:i}", "version", 1);
    assert_int_equal(se_peers_per_shape(j), 3);
    json_object_set_new(j, "version", json_integer(2));
    assert_int_equal(se_peers_per_shape(j), SE_NPEERS);
    assert_int_equal(se_peers_set(j).first, 0);
    json_object_set_new(j, "version", json_integer(3));
    assert_int_equal(se_peers_per_shape(j), 0); /* 3 needs its operation */
    json_object_set_new(j, "operation", json_string("layernorm"));
    assert_int_equal(se_peers_per_shape(j), 3);
    assert_string_equal(se_peer_get(se_peers_set(j).first)->name, "torch-layernorm-eager");
    json_decref(j);
}

/* A LayerNorm run: peers-inputs.json names the operation and LayerNorm's
 * peers, and the real script accepts it (it checks the document before it
 * imports torch: here the reason is torch's absence, not the document);
 * peers.json is version 3 naming the operation, and checks. */
static void test_layernorm_inputs_are_the_scripts_and_peers_json_is_version_3(void **state)
{
    fixture *f = *state;
    if (!have_python())
        skip();
    use_layernorm(f);
    setenv("PYTHONPATH", NO_TORCH, 1);
    begin(f, "python3", SCRIPT, NULL);
    add_shapes(f);
    measure_and_write(f);
    /* the script checked LayerNorm's inputs (x alone: it refuses an xp
     * there, before importing torch) and then found no torch */
    assert_skipped(f, "torch cannot be imported");
    assert_int_equal(json_integer_value(json_object_get(f->peers, "version")), 3);
    assert_string_equal(json_string_value(json_object_get(f->peers, "operation")), "layernorm");
}

/* verify's checks of a version 3 peers.json: LayerNorm's three peers a
 * shape (entries in error need no samples), and the operation must be the
 * protocol's. */
static void test_layernorm_peers_json_checks_its_entries_and_operation(void **state)
{
    fixture *f = *state;
    use_layernorm(f);
    begin(f, "python3", SCRIPT, "the test builds peers.json itself");
    add_shapes(f); /* the input hashes validation.json records */
    json_t *list = json_array();
    static const char *const names[] = {"torch-layernorm-eager", "torch-layernorm-compile",
                                        "liger-layernorm"};
    for (size_t i = 0; i < f->p.n_shapes; i++)
        for (int k = 0; k < 3; k++) {
            char id[64];
            snprintf(id, sizeof id, "%s.%s", f->p.shapes[i].spec, names[k]);
            const char *hx = json_string_value(json_object_get(
                json_array_get(json_object_get(f->validation, "cases"), i), "input_sha256"));
            json_array_append_new(
                list, json_pack("{s:s, s:s, s:I, s:I, s:s, s:s, s:s, s:s, s:s}", "case", id,
                                "shape", f->p.shapes[i].spec, "rows",
                                (json_int_t)f->p.shapes[i].rows, "cols",
                                (json_int_t)f->p.shapes[i].cols, "peer", names[k], "input_sha256",
                                hx, "operand_sha256", hx, "status", "error", "error",
                                "out of memory"));
        }
    json_t *pj = json_pack("{s:s, s:i, s:s, s:s, s:{s:f, s:f}, s:o}", "format", SE_PEERS_FORMAT,
                           "version", 3, "operation", "layernorm", "status", "ok", "tolerance",
                           "atol", 1e-5, "rtol", 1e-4, "peers", list);
    if (check(f, pj) != 0)
        fail_msg("a LayerNorm peers.json does not check: %s", f->problems);
    json_t *t = json_deep_copy(pj);
    json_object_set_new(t, "operation", json_string("rms-softmax"));
    assert_problem(f, t, "field 'peers': 6 entries, the protocol's 2 shapes imply 12");
    assert_problem(f, t, "field 'operation': 'rms-softmax', the protocol's workload is 'layernorm'");
    json_decref(t);
    t = json_deep_copy(pj);
    json_object_set_new(t, "version", json_integer(2)); /* the softmax's six */
    assert_problem(f, t, "the protocol's workload is 'layernorm'");
    json_decref(t);
    t = json_deep_copy(pj);
    json_object_set_new(t, "operation", json_string("frob"));
    assert_problem(f, t, "field 'version': expected 1 or 2, or 3 with a known 'operation'");
    json_decref(t);
    json_decref(pj);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_no_peers_option_skips_saying_so),
        T(test_missing_script_skips_saying_so),
        T(test_missing_python_skips_saying_so),
        T(test_no_torch_skips_with_the_scripts_reason),
        T(test_the_scripts_workers_do_not_outlive_it),
        T(test_fake_torch_run_verifies_and_edits_are_caught),
        T(test_wrong_output_is_a_failed_peer),
        T(test_compile_error_is_an_errored_peer),
        T(test_out_of_memory_for_the_inputs_errors_every_peer_of_the_shape),
        T(test_each_operations_peers_are_its_descriptors),
        T(test_layernorm_inputs_are_the_scripts_and_peers_json_is_version_3),
        T(test_layernorm_peers_json_checks_its_entries_and_operation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
