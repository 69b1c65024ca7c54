/*
 * test_trace.c - unit tests of the dependency traces (src/bundle/trace.c):
 * the checks that prove a strategy respected its task dependencies, the
 * per-SM summary, the CSV format and the Chrome trace-event export.
 *
 * Every trace here is synthetic and built in memory, with hand-known times:
 *   - phased_trace(): a correct phased schedule (stream/graph/fusion): phase
 *     k's tasks run inside [base_k, base_k + DUR] with base_{k+1} = base_k +
 *     DUR + gap, spread over 5 fake blocks on SMs 1, 3 and 5, recorded in
 *     reverse id order (the checker must not depend on record order);
 *   - pipelined_trace(): a correct megakernel schedule in which row r runs
 *     A..E 30 ns after row r-1, so row 0's B..E run while row 2 is still in
 *     A: valid as SE_TRACE_TASKS, a barrier breach as SE_TRACE_PHASED.
 * Each test then breaks exactly one thing and asserts the exact counts and
 * the named tasks in the JSON report.
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

#include "bundle/trace.h"
#include "model/taskgraph.h"
#include "model/taskgraph_host.h"

#define T0 1000000ull /* first start of the synthetic traces */
#define DUR 100ull    /* window of one phase in phased_trace() */
#define GAP 10ull     /* gap between phases in phased_trace() */

/* ---------------------------------------------------------------- helpers */

static uint64_t phase_start(int ph, uint64_t gap)
{
    return T0 + (uint64_t)ph * (DUR + gap);
}

/* Correct phased schedule: within phase k, the j-th task (by id) runs
 * [base_k + j%3, base_k + DUR - j%2], so task j=0 of each phase opens and
 * closes the phase's span exactly. */
static se_trace phased_trace(const se_taskgeom *g, uint64_t gap)
{
    se_trace t;
    t.n = (size_t)g->total;
    t.v = calloc(t.n, sizeof *t.v);
    assert_non_null(t.v);
    for (int64_t id = 0; id < g->total; id++) {
        int ph;
        int64_t row, tile;
        se_task_decode(g, id, &ph, &row, &tile);
        uint64_t j = (uint64_t)(id - se_phase_base(g, ph));
        se_trace_task *r = &t.v[t.n - 1 - (size_t)id];
        r->task = id;
        r->block = (int)(id % 5);
        r->sm = 1 + 2 * (r->block % 3);
        r->start_ns = phase_start(ph, gap) + j % 3;
        r->end_ns = phase_start(ph, gap) + DUR - j % 2;
    }
    return t;
}

/* Row r starts 30r ns after T0: A [0,100], B [100,120], C [120,220],
 * D [220,240], E [240,340] relative to its start; every dependency edge is
 * met with equality (consumer start == producer end). */
static const uint64_t pipe_off[SE_NPHASES][2] = {
    {0, 100}, {100, 120}, {120, 220}, {220, 240}, {240, 340}};

static se_trace pipelined_trace(const se_taskgeom *g)
{
    se_trace t;
    t.n = (size_t)g->total;
    t.v = calloc(t.n, sizeof *t.v);
    assert_non_null(t.v);
    for (int64_t id = 0; id < g->total; id++) {
        int ph;
        int64_t row, tile;
        se_task_decode(g, id, &ph, &row, &tile);
        se_trace_task *r = &t.v[id];
        r->task = id;
        r->block = (int)row;
        r->sm = (int)row;
        r->start_ns = T0 + 30u * (uint64_t)row + pipe_off[ph][0];
        r->end_ns = T0 + 30u * (uint64_t)row + pipe_off[ph][1];
    }
    return t;
}

/* The record of a task (the first one). */
static se_trace_task *rec(se_trace *t, int64_t id)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].task == id)
            return &t->v[i];
    fail_msg("task %lld has no record", (long long)id);
    return NULL;
}

static void remove_task(se_trace *t, int64_t id)
{
    se_trace_task *r = rec(t, id);
    *r = t->v[t->n - 1];
    t->n--;
}

static void append(se_trace *t, se_trace_task r)
{
    se_trace_task *v = realloc(t->v, (t->n + 1) * sizeof *v);
    assert_non_null(v);
    t->v = v;
    t->v[t->n++] = r;
}

static json_t *check(const se_taskgeom *g, se_trace_kind kind, const se_trace *t, int *ok)
{
    json_t *rep = NULL;
    se_err err = {{0}};
    *ok = -1;
    se_status st = se_trace_check(g, kind, t, "t.csv", NULL, &rep, ok, &err);
    if (st != SE_OK)
        fail_msg("se_trace_check failed: %s", err.msg);
    assert_non_null(rep);
    assert_true(*ok == 0 || *ok == 1);
    return rep;
}

static json_int_t jint(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        fail_msg("report field '%s' is missing or not an integer", key);
    return json_integer_value(v);
}

static double jreal(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("report field '%s' is missing or not a number", key);
    return json_number_value(v);
}

static const char *jstr(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        fail_msg("report field '%s' is missing or not a string", key);
    return json_string_value(v);
}

static json_t *jarr(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_array(v))
        fail_msg("report field '%s' is missing or not an array", key);
    return v;
}

/* Asserts the five problem counts (and that each list has as many entries,
 * all under the report's list limit here) and the verdict. */
static void assert_problems(const json_t *rep, int ok, json_int_t invalid, json_int_t missing,
                            json_int_t dup, json_int_t order, json_int_t barrier)
{
    assert_int_equal(jint(rep, "invalid_count"), invalid);
    assert_int_equal(json_array_size(jarr(rep, "invalid")), (size_t)invalid);
    assert_int_equal(jint(rep, "missing_count"), missing);
    assert_int_equal(json_array_size(jarr(rep, "missing")), (size_t)missing);
    assert_int_equal(jint(rep, "duplicated_count"), dup);
    assert_int_equal(json_array_size(jarr(rep, "duplicated")), (size_t)dup);
    assert_int_equal(jint(rep, "order_violations_count"), order);
    assert_int_equal(json_array_size(jarr(rep, "order_violations")), (size_t)order);
    assert_int_equal(jint(rep, "phase_barrier_violations_count"), barrier);
    assert_int_equal(json_array_size(jarr(rep, "phase_barrier_violations")), (size_t)barrier);
    int want_ok = invalid == 0 && missing == 0 && dup == 0 && order == 0 && barrier == 0;
    assert_int_equal(ok, want_ok);
    assert_string_equal(jstr(rep, "verdict"), want_ok ? "pass" : "fail");
}

static double overlap_fraction(const json_t *rep)
{
    return jreal(json_object_get(rep, "overlap"), "fraction");
}

static int64_t id_of(const se_taskgeom *g, int ph, int64_t row, int64_t tile)
{
    return se_task_id(g, ph, row, tile);
}

static void assert_msg_has(const se_err *err, const char *needle)
{
    if (!strstr(err->msg, needle))
        fail_msg("message '%s' does not contain '%s'", err->msg, needle);
}

/* Sum of task durations of phases B..E: the denominator of overlap. */
static double later_ns(const se_taskgeom *g, const se_trace *t)
{
    double s = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].task >= se_phase_base(g, SE_PHASE_B))
            s += (double)(t->v[i].end_ns - t->v[i].start_ns);
    return s;
}

/* ------------------------------------------------------------------ tests */

static void assert_correct_phased(int64_t rows, int64_t cols, int64_t tile, int64_t total)
{
    se_taskgeom g = se_taskgeom_make(rows, cols, tile);
    assert_int_equal(g.total, total);
    se_trace t = phased_trace(&g, GAP);
    for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_TASKS; kind++) {
        int ok;
        json_t *rep = check(&g, (se_trace_kind)kind, &t, &ok);
        assert_problems(rep, ok, 0, 0, 0, 0, 0);
        assert_int_equal(jint(rep, "tasks_expected"), total);
        assert_int_equal(jint(rep, "records"), total);
        assert_string_equal(jstr(rep, "kind"), kind == SE_TRACE_PHASED ? "phased" : "tasks");
        /* Every edge: B has n, C 1, D n, E 1 per row/tile. */
        assert_int_equal(jint(rep, "dependency_edges_checked"),
                         rows * g.tiles_per_row * 2 + g.tile_tasks * 2);
        assert_true(json_is_true(json_object_get(rep, "phase_barriers_checked")) ==
                    (kind == SE_TRACE_PHASED));
        assert_true(overlap_fraction(rep) == 0.0);
        assert_int_equal(jint(rep, "span_ns"), 4 * (DUR + GAP) + DUR);
        json_t *phases = json_object_get(rep, "phases");
        for (int ph = 0; ph < SE_NPHASES; ph++) {
            char key[2] = {"ABCDE"[ph], '\0'};
            json_t *p = json_object_get(phases, key);
            assert_non_null(p);
            assert_int_equal(jint(p, "tasks"), se_phase_is_tiled(ph) ? g.tile_tasks : rows);
            assert_int_equal(jint(p, "start_ns"), ph * (DUR + GAP));
            assert_int_equal(jint(p, "end_ns"), ph * (DUR + GAP) + DUR);
            assert_int_equal(jint(p, "span_ns"), DUR);
        }
        json_t *sm = json_object_get(rep, "sm");
        assert_int_equal(jint(sm, "sms_used"), 3);
        json_decref(rep);
    }
    se_trace_free(&t);
}

static void test_correct_phased_trace_passes_as_phased_and_tasks_with_no_overlap(void **state)
{
    (void)state;
    assert_correct_phased(3, 4097, 4096, 24);
    assert_correct_phased(8, 40, 10, 112);
}

static void test_missing_task_is_named_and_nothing_else_is_reported(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = phased_trace(&g, GAP);
    remove_task(&t, id_of(&g, SE_PHASE_C, 1, 0));
    for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_TASKS; kind++) {
        int ok;
        json_t *rep = check(&g, (se_trace_kind)kind, &t, &ok);
        assert_problems(rep, ok, 0, 1, 0, 0, 0);
        assert_string_equal(json_string_value(json_array_get(jarr(rep, "missing"), 0)), "C(1,0)");
        assert_int_equal(jint(rep, "tasks_expected"), 24);
        assert_int_equal(jint(rep, "records"), 23);
        json_decref(rep);
    }
    /* The problem is also listed on `out`, prefixed with the trace's name. */
    FILE *out = tmpfile();
    assert_non_null(out);
    json_t *rep = NULL;
    int ok = -1;
    se_err err = {{0}};
    assert_int_equal(se_trace_check(&g, SE_TRACE_TASKS, &t, "t.csv", out, &rep, &ok, &err), SE_OK);
    assert_int_equal(ok, 0);
    rewind(out);
    char buf[4096] = {0};
    size_t got = fread(buf, 1, sizeof buf - 1, out);
    fclose(out);
    assert_true(got > 0);
    assert_non_null(strstr(buf, "t.csv: missing task: \"C(1,0)\""));
    json_decref(rep);
    se_trace_free(&t);
}

static void test_duplicated_task_is_named_once(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = phased_trace(&g, GAP);
    append(&t, *rec(&t, id_of(&g, SE_PHASE_E, 0, 1)));
    for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_TASKS; kind++) {
        int ok;
        json_t *rep = check(&g, (se_trace_kind)kind, &t, &ok);
        assert_problems(rep, ok, 0, 0, 1, 0, 0);
        json_t *d = json_array_get(jarr(rep, "duplicated"), 0);
        assert_string_equal(jstr(d, "task"), "E(0,1)");
        assert_int_equal(jint(d, "times"), 2);
        assert_int_equal(jint(rep, "records"), 25);
        assert_int_equal(jint(rep, "tasks_expected"), 24);
        json_decref(rep);
    }
    se_trace_free(&t);
}

static void test_consumer_starting_5ns_before_producer_end_is_an_order_violation(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = phased_trace(&g, GAP);
    se_trace_task *b2 = rec(&t, id_of(&g, SE_PHASE_B, 2, 0));
    se_trace_task *a21 = rec(&t, id_of(&g, SE_PHASE_A, 2, 1));
    /* A(2,1) runs on past B(2)'s start by 5 ns; A(2,0) ended in time. */
    a21->end_ns = b2->start_ns + 5;
    assert_true(rec(&t, id_of(&g, SE_PHASE_A, 2, 0))->end_ns <= b2->start_ns);
    int ok;
    json_t *rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 1, 0);
    json_t *v = json_array_get(jarr(rep, "order_violations"), 0);
    assert_string_equal(jstr(v, "producer"), "A(2,1)");
    assert_string_equal(jstr(v, "consumer"), "B(2)");
    assert_int_equal(jint(v, "early_by_ns"), 5);
    assert_int_equal(jint(v, "producer_end_ns"), (json_int_t)a21->end_ns);
    assert_int_equal(jint(v, "consumer_start_ns"), (json_int_t)b2->start_ns);
    json_decref(rep);
    /* As PHASED the same edge is reported, and every B task (all started
     * before A(2,1), now the last A, ended) breaks the A->B barrier. */
    rep = check(&g, SE_TRACE_PHASED, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 1, 3);
    assert_string_equal(
        jstr(json_array_get(jarr(rep, "phase_barrier_violations"), 0), "last_of_previous_phase"),
        "A(2,1)");
    json_decref(rep);
    se_trace_free(&t);
}

static void test_phase_barrier_broken_by_1ns_fails_phased_but_passes_tasks(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = phased_trace(&g, GAP);
    uint64_t b_end = phase_start(SE_PHASE_B, GAP) + DUR; /* B(0) and B(2) end there */
    se_trace_task *b2 = rec(&t, id_of(&g, SE_PHASE_B, 2, 0));
    se_trace_task *c20 = rec(&t, id_of(&g, SE_PHASE_C, 2, 0));
    b2->end_ns = b_end - 1;   /* its own row's B ends 1 ns early ... */
    c20->start_ns = b_end - 1; /* ... and C(2,0) starts right then, before B(0) ends */
    assert_int_equal(rec(&t, id_of(&g, SE_PHASE_B, 0, 0))->end_ns, b_end);
    int ok;
    json_t *rep = check(&g, SE_TRACE_PHASED, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 1);
    json_t *v = json_array_get(jarr(rep, "phase_barrier_violations"), 0);
    assert_string_equal(jstr(v, "last_of_previous_phase"), "B(0)");
    assert_string_equal(jstr(v, "task"), "C(2,0)");
    assert_int_equal(jint(v, "early_by_ns"), 1);
    assert_int_equal(jint(v, "end_ns"), (json_int_t)b_end);
    assert_int_equal(jint(v, "start_ns"), (json_int_t)(b_end - 1));
    json_decref(rep);

    rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 0);
    /* Exactly 1 ns of later-phase work ran before the previous phase ended. */
    assert_true(overlap_fraction(rep) == 1.0 / later_ns(&g, &t));
    json_decref(rep);
    se_trace_free(&t);
}

static void test_pipelined_megakernel_passes_as_tasks_with_overlap_and_fails_as_phased(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = pipelined_trace(&g);
    int ok;
    json_t *rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 0);
    /* By hand: overlap B 40 + C 180 + D 40 + E 180 = 440 ns of 1320 ns. */
    assert_true(overlap_fraction(rep) > 0);
    assert_float_equal(overlap_fraction(rep), 440.0 / 1320.0, 1e-12);
    assert_int_equal(jint(rep, "span_ns"), 60 + 340);
    json_t *a = json_object_get(json_object_get(rep, "phases"), "A");
    assert_int_equal(jint(a, "start_ns"), 0);
    assert_int_equal(jint(a, "end_ns"), 160);
    json_decref(rep);

    /* As PHASED: no edge is broken, but rows 0 and 1 of every later phase
     * start before the previous phase ended grid-wide: B 2 + C 4 + D 2 + E 4. */
    rep = check(&g, SE_TRACE_PHASED, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 12);
    json_t *v = json_array_get(jarr(rep, "phase_barrier_violations"), 0);
    assert_string_equal(jstr(v, "task"), "B(0)");
    assert_string_equal(jstr(v, "last_of_previous_phase"), "A(2,0)");
    assert_int_equal(jint(v, "early_by_ns"), 60);
    assert_float_equal(overlap_fraction(rep), 440.0 / 1320.0, 1e-12);
    json_decref(rep);
    se_trace_free(&t);
}

static void test_consumer_start_equal_to_producer_end_is_allowed(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    /* No gap: each phase's first task starts exactly when the previous
     * phase's last task ends, and B(0) starts when A(0,0) ends. */
    se_trace t = phased_trace(&g, 0);
    assert_int_equal(rec(&t, id_of(&g, SE_PHASE_B, 0, 0))->start_ns,
                     rec(&t, id_of(&g, SE_PHASE_A, 0, 0))->end_ns);
    for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_TASKS; kind++) {
        int ok;
        json_t *rep = check(&g, (se_trace_kind)kind, &t, &ok);
        assert_problems(rep, ok, 0, 0, 0, 0, 0);
        assert_true(overlap_fraction(rep) == 0.0);
        json_decref(rep);
    }
    /* One nanosecond earlier is a violation (the boundary is sharp). */
    rec(&t, id_of(&g, SE_PHASE_B, 0, 0))->start_ns -= 1;
    int ok;
    json_t *rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 1, 0);
    json_t *v = json_array_get(jarr(rep, "order_violations"), 0);
    assert_string_equal(jstr(v, "producer"), "A(0,0)");
    assert_string_equal(jstr(v, "consumer"), "B(0)");
    assert_int_equal(jint(v, "early_by_ns"), 1);
    json_decref(rep);
    se_trace_free(&t);

    /* The pipelined schedule meets every edge with equality too. */
    t = pipelined_trace(&g);
    rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 0);
    json_decref(rep);
    se_trace_free(&t);
}

static se_trace rows_trace(int64_t rows)
{
    se_trace t;
    t.n = (size_t)rows;
    t.v = calloc(t.n, sizeof *t.v);
    assert_non_null(t.v);
    for (int64_t r = 0; r < rows; r++) {
        t.v[r].task = rows - 1 - r;
        t.v[r].block = (int)r;
        t.v[r].sm = (int)(r % 2);
        /* Rows are independent: overlapping in any order is fine. */
        t.v[r].start_ns = T0 + 7u * (uint64_t)(r % 3);
        t.v[r].end_ns = T0 + 50 + (uint64_t)r;
    }
    return t;
}

static void test_rowblock_one_record_per_row_passes_missing_and_out_of_range_fail(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(5, 4097, 4096);
    se_trace t = rows_trace(5);
    int ok;
    json_t *rep = check(&g, SE_TRACE_ROWS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 0);
    assert_string_equal(jstr(rep, "kind"), "rows");
    assert_int_equal(jint(rep, "tasks_expected"), 5);
    assert_int_equal(jint(rep, "records"), 5);
    assert_int_equal(jint(rep, "dependency_edges_checked"), 0);
    json_decref(rep);

    /* A missing row is named row(3). */
    se_trace m = rows_trace(5);
    remove_task(&m, 3);
    rep = check(&g, SE_TRACE_ROWS, &m, &ok);
    assert_problems(rep, ok, 0, 1, 0, 0, 0);
    assert_string_equal(json_string_value(json_array_get(jarr(rep, "missing"), 0)), "row(3)");
    json_decref(rep);
    se_trace_free(&m);

    /* Task id R (one past the last row) is invalid, as is -1. */
    se_trace_task extra = t.v[0];
    extra.task = 5;
    append(&t, extra);
    rep = check(&g, SE_TRACE_ROWS, &t, &ok);
    assert_problems(rep, ok, 1, 0, 0, 0, 0);
    assert_int_equal(jint(json_array_get(jarr(rep, "invalid"), 0), "task"), 5);
    json_decref(rep);
    t.v[t.n - 1].task = -1;
    rep = check(&g, SE_TRACE_ROWS, &t, &ok);
    assert_problems(rep, ok, 1, 0, 0, 0, 0);
    assert_int_equal(jint(json_array_get(jarr(rep, "invalid"), 0), "task"), -1);
    json_decref(rep);
    se_trace_free(&t);
}

static void test_end_before_start_is_invalid(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = phased_trace(&g, GAP);
    /* A zero-length task is fine. */
    se_trace_task *e = rec(&t, id_of(&g, SE_PHASE_E, 2, 1));
    e->end_ns = e->start_ns;
    int ok;
    json_t *rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 0);
    json_decref(rep);

    int64_t d1 = id_of(&g, SE_PHASE_D, 1, 0);
    se_trace_task *r = rec(&t, d1);
    r->end_ns = r->start_ns - 1;
    for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_TASKS; kind++) {
        rep = check(&g, (se_trace_kind)kind, &t, &ok);
        /* The invalid record does not count as D(1)'s record, so D(1) is
         * also missing (and its edges are not checked). */
        assert_problems(rep, ok, 1, 1, 0, 0, 0);
        json_t *v = json_array_get(jarr(rep, "invalid"), 0);
        assert_int_equal(jint(v, "task"), d1);
        assert_int_equal(jint(v, "start_ns"), (json_int_t)r->start_ns);
        assert_int_equal(jint(v, "end_ns"), (json_int_t)r->start_ns - 1);
        assert_string_equal(json_string_value(json_array_get(jarr(rep, "missing"), 0)), "D(1)");
        json_decref(rep);
    }
    se_trace_free(&t);
}

/* Reads the lines of f (rewound) into lines; returns the count. */
static size_t csv_fields(FILE *f, char lines[][160], size_t max)
{
    rewind(f);
    size_t n = 0;
    while (n < max && fgets(lines[n], 160, f))
        n++;
    return n;
}

static void assert_round_trip(const se_taskgeom *g, se_trace_kind kind, const se_trace *t)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    se_err err = {{0}};
    assert_int_equal(se_trace_write(f, g, kind, t, &err), SE_OK);
    static char lines[256][160];
    size_t nl = csv_fields(f, lines, 256);
    assert_int_equal(nl, t->n + 1);
    assert_string_equal(lines[0], SE_TRACE_HEADER "\n");
    for (size_t i = 0; i < t->n; i++) {
        char phase[16];
        long long task, row, tile;
        assert_int_equal(sscanf(lines[i + 1], "%lld,%15[^,],%lld,%lld,", &task, phase, &row, &tile),
                         4);
        assert_int_equal(task, t->v[i].task);
        if (kind == SE_TRACE_ROWS) {
            assert_string_equal(phase, "row");
            assert_int_equal(row, t->v[i].task);
            assert_int_equal(tile, 0);
        } else {
            int ph;
            int64_t r, tl;
            se_task_decode(g, t->v[i].task, &ph, &r, &tl);
            char want[2] = {"ABCDE"[ph], '\0'};
            assert_string_equal(phase, want);
            assert_int_equal(row, se_group_row0(g, r)); /* a group's first row */
            assert_int_equal(tile, tl);
        }
    }
    rewind(f);
    se_trace back;
    assert_int_equal(se_trace_read(f, "t.csv", &back, &err), SE_OK);
    fclose(f);
    assert_int_equal(back.n, t->n);
    for (size_t i = 0; i < t->n; i++) {
        assert_int_equal(back.v[i].task, t->v[i].task);
        assert_int_equal(back.v[i].block, t->v[i].block);
        assert_int_equal(back.v[i].sm, t->v[i].sm);
        assert_true(back.v[i].start_ns == t->v[i].start_ns);
        assert_true(back.v[i].end_ns == t->v[i].end_ns);
    }
    se_trace_free(&back);
}

/* Reads text as a trace file; returns the status, the message in err. */
static se_status read_text(const char *text, se_trace *t, se_err *err)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs(text, f);
    rewind(f);
    se_status st = se_trace_read(f, "bad.csv", t, err);
    fclose(f);
    return st;
}

static void test_csv_round_trip_and_refusals_name_the_line(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    se_trace t = phased_trace(&g, GAP);
    /* Full-range times survive the round trip. */
    t.v[0].start_ns = UINT64_MAX - 615;
    t.v[0].end_ns = UINT64_MAX;
    assert_round_trip(&g, SE_TRACE_PHASED, &t);
    assert_round_trip(&g, SE_TRACE_TASKS, &t);
    se_trace_free(&t);
    se_trace r = rows_trace(5);
    assert_round_trip(&g, SE_TRACE_ROWS, &r);
    se_trace_free(&r);

    /* The same through a named file under /tmp. */
    char path[] = "/tmp/test_trace_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w+");
    assert_non_null(f);
    t = pipelined_trace(&g);
    se_err err = {{0}};
    assert_int_equal(se_trace_write(f, &g, SE_TRACE_TASKS, &t, &err), SE_OK);
    fclose(f);
    f = fopen(path, "r");
    assert_non_null(f);
    se_trace back;
    assert_int_equal(se_trace_read(f, path, &back, &err), SE_OK);
    fclose(f);
    assert_int_equal(remove(path), 0);
    assert_int_equal(back.n, t.n);
    for (size_t i = 0; i < t.n; i++) {
        assert_int_equal(back.v[i].task, t.v[i].task);
        assert_int_equal(back.v[i].block, t.v[i].block);
        assert_int_equal(back.v[i].sm, t.v[i].sm);
        assert_true(back.v[i].start_ns == t.v[i].start_ns);
        assert_true(back.v[i].end_ns == t.v[i].end_ns);
    }
    se_trace_free(&back);
    se_trace_free(&t);

    /* Refusals, each naming the file and line. */
    se_trace bad;
    memset(&err, 0, sizeof err);
    assert_int_equal(read_text(SE_TRACE_HEADER "\n"
                                               "0,A,0,0,0,1,100,200\n"
                                               "1,A,0,1,1,3,100,200\n"
                                               "6,B,0,0,1,3,200,2",
                               &bad, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "bad.csv:4:");
    assert_msg_has(&err, "truncated");
    assert_null(bad.v);
    assert_int_equal(bad.n, 0);

    memset(&err, 0, sizeof err);
    assert_int_equal(read_text("task,phase,row,tile,block,sm,start,end\n"
                               "0,A,0,0,0,1,100,200\n",
                               &bad, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "bad.csv:1:");
    assert_msg_has(&err, "header");
    assert_null(bad.v);

    memset(&err, 0, sizeof err);
    assert_int_equal(read_text(SE_TRACE_HEADER "\n"
                                               "0,A,0,0,0,1,100,200\n"
                                               "1,A,0,1,x,3,100,200\n",
                               &bad, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "bad.csv:3:");
    assert_null(bad.v);

    memset(&err, 0, sizeof err);
    assert_int_equal(read_text(SE_TRACE_HEADER "\n"
                                               "0,A,0,0,0,1,100,200\n"
                                               "1,A,0,1,1,3,100,200x\n",
                               &bad, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "bad.csv:3:");
    assert_null(bad.v);

    memset(&err, 0, sizeof err);
    assert_int_equal(read_text("", &bad, &err), SE_ERR_VALIDATION);
    assert_msg_has(&err, "bad.csv");
    assert_msg_has(&err, "empty");
}

/* A track of the export: its group (pid) and slot (tid). */
typedef struct xtrack {
    json_int_t pid, tid;
    double ts, end;
} xtrack;

static void test_chrome_export_gives_each_block_slot_a_track_and_each_edge_an_arrow(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(8, 40, 10);
    se_trace t = phased_trace(&g, GAP);
    json_t *j = NULL;
    se_err err = {{0}};
    assert_int_equal(se_trace_chrome(&g, SE_TRACE_PHASED, &t, "8x40.fusion", &j, &err), SE_OK);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(15));
    assert_non_null(s);
    json_decref(j);
    json_error_t jerr;
    j = json_loads(s, 0, &jerr);
    free(s);
    if (!j)
        fail_msg("Chrome JSON does not parse: %s", jerr.text);
    json_t *ev = jarr(j, "traceEvents");
    size_t nx = 0, nproc = 0, nflow_s = 0, nflow_f = 0, slots_of_sm[8] = {0};
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < t.n; i++)
        t0 = t.v[i].start_ns < t0 ? t.v[i].start_ns : t0;
    xtrack *x = calloc(t.n, sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = jstr(e, "ph");
        if (strcmp(ph, "M") == 0) {
            if (strcmp(jstr(e, "name"), "process_name") == 0) {
                /* One group per SM, named by the case and the SM. */
                char want[32];
                snprintf(want, sizeof want, "8x40.fusion: SM %d", (int)jint(e, "pid") - 1);
                assert_string_equal(jstr(json_object_get(e, "args"), "name"), want);
                nproc++;
            }
            if (strcmp(jstr(e, "name"), "thread_name") == 0 &&
                !strstr(jstr(json_object_get(e, "args"), "name"), "concurrent"))
                slots_of_sm[jint(e, "pid") - 1]++;
            continue;
        }
        if (strcmp(ph, "s") == 0 || strcmp(ph, "f") == 0) {
            nflow_s += ph[0] == 's';
            nflow_f += ph[0] == 'f';
            continue;
        }
        assert_string_equal(ph, "X");
        /* X events follow the records' order. */
        assert_true(nx < t.n);
        const se_trace_task *r = &t.v[nx];
        char want[64];
        se_trace_task_name(&g, SE_TRACE_PHASED, r->task, want, sizeof want);
        assert_string_equal(jstr(e, "name"), want);
        char cat[2] = {want[0], '\0'};
        assert_string_equal(jstr(e, "cat"), cat);
        assert_int_equal(jint(e, "pid"), r->sm + 1);
        json_t *args = json_object_get(e, "args");
        assert_int_equal(jint(args, "block"), r->block);
        assert_int_equal(jint(args, "sm"), r->sm);
        assert_int_equal(jint(args, "task"), r->task);
        double dur = jreal(e, "dur");
        assert_float_equal(dur, (double)(r->end_ns - r->start_ns) / 1000.0, 1e-9);
        assert_float_equal(jreal(e, "ts"), (double)(r->start_ns - t0) / 1000.0, 1e-9);
        x[nx++] = (xtrack){jint(e, "pid"), jint(e, "tid"), jreal(e, "ts"), jreal(e, "ts") + dur};
        /* Its track is named after its SM. */
        int named = 0;
        for (size_t k = 0; k < json_array_size(ev); k++) {
            json_t *m = json_array_get(ev, k);
            if (strcmp(jstr(m, "ph"), "M") == 0 && strcmp(jstr(m, "name"), "thread_name") == 0 &&
                jint(m, "pid") == jint(e, "pid") && jint(m, "tid") == jint(e, "tid")) {
                char sm[32];
                snprintf(sm, sizeof sm, "SM %d, block slot ", r->sm);
                assert_non_null(strstr(jstr(json_object_get(m, "args"), "name"), sm));
                named++;
            }
        }
        assert_int_equal(named, 1);
    }
    assert_int_equal(nx, t.n);
    /* Blocks 0 and 3 run on SM 1, 1 and 4 on SM 3, 2 on SM 5, all at once:
     * an SM has a block slot per block it holds at once, no more. */
    assert_int_equal(nproc, 3);
    assert_int_equal(slots_of_sm[1], 2);
    assert_int_equal(slots_of_sm[3], 2);
    assert_int_equal(slots_of_sm[5], 1);
    /* No two slices of one track overlap, although the tasks of a phase
     * on one SM all run at once in this trace (several tracks per SM). */
    size_t tracks_of_sm1_phase_a = 0;
    for (size_t a = 0; a < nx; a++)
        for (size_t b = a + 1; b < nx; b++)
            if (x[a].pid == x[b].pid && x[a].tid == x[b].tid)
                assert_true(x[a].end <= x[b].ts + 1e-9 || x[b].end <= x[a].ts + 1e-9);
    for (size_t a = 0; a < nx; a++) {
        int first = 1;
        for (size_t b = 0; b < a; b++)
            first &= !(x[b].pid == x[a].pid && x[b].tid == x[a].tid);
        tracks_of_sm1_phase_a += first && x[a].pid == 2;
    }
    assert_true(tracks_of_sm1_phase_a > 1);
    /* One arrow per dependency edge. */
    size_t edges = 0;
    for (int64_t k = 0; k < g.total; k++)
        edges += (size_t)se_task_dep_count(&g, k);
    assert_int_equal(nflow_s, edges);
    assert_int_equal(nflow_f, edges);
    free(x);
    json_decref(j);
    se_trace_free(&t);

    /* Rowblock events are named row(r). */
    se_trace r = rows_trace(3);
    assert_int_equal(se_trace_chrome(&g, SE_TRACE_ROWS, &r, "rows", &j, &err), SE_OK);
    json_t *ev2 = json_object_get(j, "traceEvents");
    size_t nrow = 0;
    for (size_t i = 0; i < json_array_size(ev2); i++) {
        json_t *e = json_array_get(ev2, i);
        if (strcmp(jstr(e, "ph"), "X") != 0)
            continue;
        char want[32];
        snprintf(want, sizeof want, "row(%lld)", (long long)r.v[nrow].task);
        assert_string_equal(jstr(e, "name"), want);
        nrow++;
    }
    assert_int_equal(nrow, 3);
    json_decref(j);
    se_trace_free(&r);
}

static void test_sm_summary_counts_gaps_and_merges_overlapping_tasks(void **state)
{
    (void)state;
    /* SM 1: [100,110] [150,155] [130,140] [120,130] [150,160] -> gaps 10 + 10 = 20
     *       (back-to-back [120,130][130,140] is no gap; [150,155] inside [150,160]).
     * SM 3: [0,30] [12,20] [5,10] [35,40] -> union [0,30] [35,40], gap 5 (a
     *       per-task "previous end" count would give 2 + 15 = 17).
     * Records are out of time order. */
    static const struct {
        int sm;
        uint64_t s, e;
    } iv[] = {{1, 100, 110}, {3, 0, 30},  {1, 150, 155}, {3, 12, 20}, {1, 130, 140},
              {3, 5, 10},    {1, 120, 130}, {3, 35, 40},  {1, 150, 160}};
    size_t n = sizeof iv / sizeof iv[0];
    se_taskgeom g = se_taskgeom_make((int64_t)n, 1, 1);
    se_trace t = {calloc(n, sizeof(se_trace_task)), n};
    assert_non_null(t.v);
    for (size_t i = 0; i < n; i++) {
        t.v[i].task = (int64_t)i;
        t.v[i].block = (int)i;
        t.v[i].sm = iv[i].sm;
        t.v[i].start_ns = T0 + iv[i].s;
        t.v[i].end_ns = T0 + iv[i].e;
    }
    int ok;
    json_t *rep = check(&g, SE_TRACE_ROWS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 0, 0);
    json_t *sm = json_object_get(rep, "sm");
    assert_non_null(sm);
    assert_int_equal(jint(sm, "sms_used"), 2);
    assert_int_equal(jint(sm, "tasks_per_sm_min"), 4);
    assert_int_equal(jint(sm, "tasks_per_sm_max"), 5);
    assert_int_equal(jint(sm, "idle_between_tasks_ns_total"), 25);
    assert_int_equal(jint(sm, "idle_between_tasks_ns_max_sm"), 20);
    assert_int_equal(jint(rep, "span_ns"), 160);
    json_decref(rep);
    se_trace_free(&t);
}

/* Reads CSV text into a trace, expecting success. */
static se_trace read_trace_text(const char *text)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs(text, f);
    rewind(f);
    se_trace t;
    se_err err = {{0}};
    se_status st = se_trace_read(f, "t.csv", &t, &err);
    fclose(f);
    if (st != SE_OK)
        fail_msg("se_trace_read failed: %s", err.msg);
    return t;
}

static void test_file_records_whose_columns_or_sm_disagree_are_invalid(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(1, 7, 4096); /* A(0,0)=0 B(0)=1 C(0,0)=2 D(0)=3 E(0,0)=4 */
    int ok;
    se_trace t = read_trace_text("task,phase,row,tile,block,sm,start_ns,end_ns\n"
                           "0,A,0,0,0,1,10,20\n1,B,0,0,0,1,20,30\n2,C,0,0,0,1,30,40\n"
                           "3,D,0,0,0,1,40,50\n4,E,0,0,0,1,50,60\n");
    json_t *rep = check(&g, SE_TRACE_PHASED, &t, &ok);
    assert_int_equal(ok, 1);
    json_decref(rep);
    se_trace_free(&t);
    /* Task 2 is C(0,0), but the line says phase B. */
    t = read_trace_text("task,phase,row,tile,block,sm,start_ns,end_ns\n"
                  "0,A,0,0,0,1,10,20\n1,B,0,0,0,1,20,30\n2,B,0,0,0,1,30,40\n"
                  "3,D,0,0,0,1,40,50\n4,E,0,0,0,1,50,60\n");
    rep = check(&g, SE_TRACE_PHASED, &t, &ok);
    assert_int_equal(ok, 0);
    assert_int_equal(jint(rep, "invalid_count"), 1);
    json_decref(rep);
    se_trace_free(&t);
    /* An SM id far beyond any GPU's. */
    t = read_trace_text("task,phase,row,tile,block,sm,start_ns,end_ns\n"
                  "0,A,0,0,0,1,10,20\n1,B,0,0,0,1,20,30\n2,C,0,0,0,2000000000,30,40\n"
                  "3,D,0,0,0,1,40,50\n4,E,0,0,0,1,50,60\n");
    rep = check(&g, SE_TRACE_PHASED, &t, &ok);
    assert_int_equal(ok, 0);
    assert_int_equal(jint(rep, "invalid_count"), 1);
    json_decref(rep);
    se_trace_free(&t);
}

static void test_negative_values_in_a_trace_file_are_refused_with_the_line(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    fputs("task,phase,row,tile,block,sm,start_ns,end_ns\n0,row,0,0,0,0,-5,-1\n", f);
    rewind(f);
    se_trace t;
    se_err err = {{0}};
    assert_int_equal(se_trace_read(f, "t.csv", &t, &err), SE_ERR_VALIDATION);
    fclose(f);
    assert_non_null(strstr(err.msg, "t.csv:2: negative values are not valid"));
}

/* A packed graph: 10 rows of 3 columns with tile 8 are 5 groups of 2 rows,
 * 25 tasks. Its tasks are named and written by their rows, and a trace is
 * checked against the graph of the run's version: the graph before packing
 * (50 tasks) is another graph. */
static void test_packed_group_tasks_are_named_by_rows_and_checked_per_group(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(10, 3, 8);
    assert_int_equal(g.group, 2);
    assert_int_equal(g.total, 25);
    char nm[64];
    se_trace_task_name(&g, SE_TRACE_TASKS, se_task_id(&g, SE_PHASE_A, 0, 0), nm, sizeof nm);
    assert_string_equal(nm, "A(0..1)");
    se_trace_task_name(&g, SE_TRACE_TASKS, se_task_id(&g, SE_PHASE_D, 4, 0), nm, sizeof nm);
    assert_string_equal(nm, "D(8..9)");
    se_taskgeom odd = se_taskgeom_make(7, 2, 9); /* groups of 4 rows, the last of 3 */
    se_trace_task_name(&odd, SE_TRACE_TASKS, se_task_id(&odd, SE_PHASE_E, 1, 0), nm, sizeof nm);
    assert_string_equal(nm, "E(4..6)");

    se_trace t = pipelined_trace(&g);
    int ok;
    json_t *rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_int_equal(ok, 1);
    assert_int_equal(jint(rep, "tasks_expected"), 25);
    json_decref(rep);
    assert_round_trip(&g, SE_TRACE_TASKS, &t);

    /* Read back from its file, the row column is each group's first row: a
     * record that gives the group's number instead is invalid. */
    FILE *f = tmpfile();
    assert_non_null(f);
    se_err err = {{0}};
    assert_int_equal(se_trace_write(f, &g, SE_TRACE_TASKS, &t, &err), SE_OK);
    rewind(f);
    se_trace back;
    assert_int_equal(se_trace_read(f, "t.csv", &back, &err), SE_OK);
    fclose(f);
    rep = check(&g, SE_TRACE_TASKS, &back, &ok);
    assert_int_equal(ok, 1);
    json_decref(rep);
    se_trace_task *b3 = rec(&back, se_task_id(&g, SE_PHASE_B, 3, 0));
    assert_int_equal(b3->col_row, 6);
    b3->col_row = 3;
    rep = check(&g, SE_TRACE_TASKS, &back, &ok);
    assert_int_equal(ok, 0);
    assert_int_equal(jint(rep, "invalid_count"), 1);
    json_decref(rep);
    se_trace_free(&back);

    /* The same records against the graph before packing: half its tasks
     * are missing. A trace of that graph against the packed one: ids past
     * the packed graph's 25 are invalid. */
    se_taskgeom v1 = se_taskgeom_make_v(10, 3, 8, SE_TASKGRAPH_V1);
    assert_int_equal(v1.total, 50);
    rep = check(&v1, SE_TRACE_TASKS, &t, &ok);
    assert_int_equal(ok, 0);
    assert_int_equal(jint(rep, "missing_count"), 25);
    json_decref(rep);
    se_trace old = pipelined_trace(&v1);
    rep = check(&v1, SE_TRACE_TASKS, &old, &ok);
    assert_int_equal(ok, 1);
    json_decref(rep);
    rep = check(&g, SE_TRACE_TASKS, &old, &ok);
    assert_int_equal(ok, 0);
    assert_int_equal(jint(rep, "invalid_count"), 25);
    json_decref(rep);
    se_trace_free(&old);
    se_trace_free(&t);
}

static se_shape shape_of(int64_t rows, int64_t cols)
{
    se_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.rows = rows;
    sh.cols = cols;
    return sh;
}

/* A shape of more than 2^18 (row, tile) pairs is timed, not traced: the
 * bound that keeps 8388608x1's trace (581 MB on the H200) out of a run. */
static void test_shapes_past_the_row_tile_bound_are_not_traced(void **state)
{
    (void)state;
    se_protocol p;
    memset(&p, 0, sizeof p);
    p.tile = 4096;
    p.traces = 1;
    p.strategies = ~0u;
    int s = -1;
    for (int k = 0; k < se_protocol_nstrategies(&p) && s < 0; k++)
        if (se_trace_kind_of(&p, k) >= 0)
            s = k;
    assert_true(s >= 0);
    const int64_t shapes_in[][2] = {{262144, 1}, {256, 1048576}, {4096, 4096}, {1, (int64_t)4096 << 18},
                                    {65536, 4096}};
    const int64_t shapes_out[][2] = {{8388608, 1}, {262145, 7}, {1, ((int64_t)4096 << 18) + 1},
                                     {262145, 4096}, {131073, 8192}};
    for (size_t i = 0; i < sizeof shapes_in / sizeof shapes_in[0]; i++) {
        se_shape sh = shape_of(shapes_in[i][0], shapes_in[i][1]);
        assert_false(se_trace_too_large(&p, &sh));
        assert_true(se_traced_case(&p, s, &sh));
    }
    for (size_t i = 0; i < sizeof shapes_out / sizeof shapes_out[0]; i++) {
        se_shape sh = shape_of(shapes_out[i][0], shapes_out[i][1]);
        assert_true(se_trace_too_large(&p, &sh));
        assert_false(se_traced_case(&p, s, &sh));
    }
    se_shape small = shape_of(1, 7);
    p.traces = 0; /* "traces": false leaves every case out */
    assert_false(se_traced_case(&p, s, &small));
}

/* LayerNorm's graph of three phases: a correct phased trace passes with
 * phases A, B, C only (no D or E key), its edges are B's n and C's 1 per
 * row and tile; a C task that starts before its row's B ends is an order
 * violation, and the phased check sees the B -> C barrier broken. */
static void test_three_phase_trace_is_checked_against_its_own_graph(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make_p(3, 4097, 4096, SE_TASKGRAPH_VERSION, 3);
    assert_int_equal(g.total, 15);
    se_trace t = phased_trace(&g, GAP);
    for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_TASKS; kind++) {
        int ok;
        json_t *rep = check(&g, (se_trace_kind)kind, &t, &ok);
        assert_problems(rep, ok, 0, 0, 0, 0, 0);
        assert_int_equal(jint(rep, "tasks_expected"), 15);
        assert_int_equal(jint(rep, "dependency_edges_checked"), 3 * 2 + g.tile_tasks);
        assert_int_equal(jint(rep, "span_ns"), 2 * (DUR + GAP) + DUR);
        json_t *phases = json_object_get(rep, "phases");
        assert_int_equal(json_object_size(phases), 3);
        assert_null(json_object_get(phases, "D"));
        assert_int_equal(jint(json_object_get(phases, "C"), "tasks"), g.tile_tasks);
        json_decref(rep);
    }
    /* a 5-phase graph's extra tasks are not in it */
    se_trace_task r = *rec(&t, 0);
    r.task = 15;
    append(&t, r);
    int ok;
    json_t *rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_int_equal(ok, 0);
    assert_int_equal(jint(rep, "invalid_count"), 1);
    json_decref(rep);
    se_trace_free(&t);
    t = phased_trace(&g, GAP);
    se_trace_task *b1 = rec(&t, id_of(&g, SE_PHASE_B, 1, 0));
    se_trace_task *c10 = rec(&t, id_of(&g, SE_PHASE_C, 1, 0));
    c10->start_ns = b1->end_ns - 7;
    rep = check(&g, SE_TRACE_TASKS, &t, &ok);
    assert_problems(rep, ok, 0, 0, 0, 1, 0);
    json_t *v = json_array_get(jarr(rep, "order_violations"), 0);
    assert_string_equal(jstr(v, "producer"), "B(1)");
    assert_string_equal(jstr(v, "consumer"), "C(1,0)");
    assert_int_equal(jint(v, "early_by_ns"), 7);
    json_decref(rep);
    se_trace_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_phase_trace_is_checked_against_its_own_graph),
        cmocka_unit_test(test_correct_phased_trace_passes_as_phased_and_tasks_with_no_overlap),
        cmocka_unit_test(test_missing_task_is_named_and_nothing_else_is_reported),
        cmocka_unit_test(test_duplicated_task_is_named_once),
        cmocka_unit_test(test_consumer_starting_5ns_before_producer_end_is_an_order_violation),
        cmocka_unit_test(test_phase_barrier_broken_by_1ns_fails_phased_but_passes_tasks),
        cmocka_unit_test(test_pipelined_megakernel_passes_as_tasks_with_overlap_and_fails_as_phased),
        cmocka_unit_test(test_consumer_start_equal_to_producer_end_is_allowed),
        cmocka_unit_test(test_rowblock_one_record_per_row_passes_missing_and_out_of_range_fail),
        cmocka_unit_test(test_end_before_start_is_invalid),
        cmocka_unit_test(test_csv_round_trip_and_refusals_name_the_line),
        cmocka_unit_test(test_packed_group_tasks_are_named_by_rows_and_checked_per_group),
        cmocka_unit_test(test_chrome_export_gives_each_block_slot_a_track_and_each_edge_an_arrow),
        cmocka_unit_test(test_sm_summary_counts_gaps_and_merges_overlapping_tasks),
        cmocka_unit_test(test_file_records_whose_columns_or_sm_disagree_are_invalid),
        cmocka_unit_test(test_negative_values_in_a_trace_file_are_refused_with_the_line),
        cmocka_unit_test(test_shapes_past_the_row_tile_bound_are_not_traced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
