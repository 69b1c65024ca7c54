/*
 * test_taskgraph.c - unit tests of the tiled task graphs (the RMS-softmax's
 * five phases and LayerNorm's three): the
 * inline functions of taskgraph.h (geometry, ids, release rules) and
 * taskgraph_host.c (dependencies, size check, queue simulation).
 *
 * The megakernel schedules itself with exactly these functions, and a
 * mistake in them shows up on the GPU only as a rare race or hang. So the
 * tests check the graph exhaustively on small geometries: ids are dense and
 * decode back, every dependency points to an earlier phase of the same row,
 * the release rules enqueue every non-A task exactly once, and the host
 * simulation of the queue protocol runs every task once, after its
 * dependencies, for many interleavings, and does pipeline rows (the property
 * the megakernel exists for).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/taskgraph.h"
#include "model/taskgraph_host.h"

typedef struct geom_case {
    int64_t rows, cols, tile;
} geom_case;

/* Small geometries checked exhaustively: single tile, partial last tile,
 * tile of one column, exact multiple, many rows; and packed row groups:
 * full groups, a short last group, rows of T / 2, rows of one column up
 * to the 256-row cap. */
static const geom_case small_geoms[] = {
    {1, 1, 4096}, {5, 4097, 4096}, {7, 10, 3}, {3, 9, 3}, {2, 5, 1},
    {1, 100, 7}, {64, 1000, 7}, {4, 4096, 4096}, {9, 1, 1},
    {10, 3, 8}, {7, 2, 9}, {5, 1, 4}, {6, 2048, 4096}, {600, 1, 4096}, {300, 7, 4096},
};
#define N_SMALL_GEOMS (sizeof small_geoms / sizeof small_geoms[0])

static se_taskgeom geom_of(const geom_case *c)
{
    return se_taskgeom_make(c->rows, c->cols, c->tile);
}

static void assert_msg_has(const se_err *err, const char *needle)
{
    if (!strstr(err->msg, needle))
        fail_msg("message '%s' does not contain '%s'", err->msg, needle);
}

static void test_geometry_of_3x4097_tile_4096_has_24_tasks(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    assert_int_equal(g.rows, 3);
    assert_int_equal(g.cols, 4097);
    assert_int_equal(g.tile, 4096);
    assert_int_equal(g.tiles_per_row, 2);
    assert_int_equal(g.tile_tasks, 6);
    assert_int_equal(g.total, 3 * 6 + 2 * 3);
}

static void test_geometry_of_1x1_tile_4096_has_5_tasks(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(1, 1, 4096);
    assert_int_equal(g.tiles_per_row, 1);
    assert_int_equal(g.tile_tasks, 1);
    assert_int_equal(g.total, 5);
}

static void test_geometry_of_exact_multiple_has_no_extra_tile(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(4, 8192, 4096);
    assert_int_equal(g.tiles_per_row, 2);
    assert_int_equal(g.tile_tasks, 8);
    assert_int_equal(g.total, 32);
    g = se_taskgeom_make(7, 10, 3);
    assert_int_equal(g.tiles_per_row, 4);
    assert_int_equal(g.total, 3 * 28 + 14);
}

static void test_tile_len_of_partial_last_tile_is_the_remainder(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(3, 4097, 4096);
    assert_int_equal(se_tile_len(&g, 0), 4096);
    assert_int_equal(se_tile_len(&g, 1), 1);
    g = se_taskgeom_make(7, 10, 3);
    assert_int_equal(se_tile_len(&g, 0), 3);
    assert_int_equal(se_tile_len(&g, 2), 3);
    assert_int_equal(se_tile_len(&g, 3), 1);
    g = se_taskgeom_make(1, 8192, 4096);
    assert_int_equal(se_tile_len(&g, 1), 4096);
    g = se_taskgeom_make(1, 1, 4096);
    assert_int_equal(se_tile_len(&g, 0), 1);
}

static void test_tile_lengths_of_a_row_add_up_to_cols(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int64_t sum = 0;
        for (int64_t t = 0; t < g.tiles_per_row; t++) {
            assert_true(se_tile_len(&g, t) >= 1);
            assert_true(se_tile_len(&g, t) <= g.tile);
            sum += se_tile_len(&g, t);
        }
        assert_int_equal(sum, g.cols);
    }
}

static void test_task_ids_are_dense_in_phase_order_and_decode_back(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int64_t expect_id = 0;
        for (int ph = SE_PHASE_A; ph < SE_NPHASES; ph++) {
            int64_t ntiles = se_phase_is_tiled(ph) ? g.tiles_per_row : 1;
            assert_int_equal(se_phase_base(&g, ph), expect_id);
            for (int64_t r = 0; r < g.groups; r++)
                for (int64_t t = 0; t < ntiles; t++) {
                    int64_t id = se_task_id(&g, ph, r, t);
                    assert_int_equal(id, expect_id);
                    int dph;
                    int64_t dr, dt;
                    se_task_decode(&g, id, &dph, &dr, &dt);
                    assert_int_equal(dph, ph);
                    assert_int_equal(dr, r);
                    assert_int_equal(dt, t);
                    expect_id++;
                }
        }
        assert_int_equal(expect_id, g.total);
    }
}

static void test_decoded_phases_never_decrease_with_id(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int prev = SE_PHASE_A;
        for (int64_t id = 0; id < g.total; id++) {
            int ph;
            int64_t r, t;
            se_task_decode(&g, id, &ph, &r, &t);
            assert_true(ph >= prev);
            assert_true(ph <= prev + 1);
            assert_true(r >= 0 && r < g.groups);
            assert_true(t >= 0 && t < g.tiles_per_row);
            assert_int_equal(se_task_id(&g, ph, r, t), id);
            prev = ph;
        }
        assert_int_equal(prev, SE_PHASE_E);
    }
}

static void test_row_tasks_ignore_the_tile_argument(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(5, 4097, 4096);
    assert_int_equal(se_task_id(&g, SE_PHASE_B, 3, 0), se_task_id(&g, SE_PHASE_B, 3, 1));
    assert_int_equal(se_task_id(&g, SE_PHASE_D, 4, 0), se_task_id(&g, SE_PHASE_D, 4, 1));
    assert_int_equal(se_task_id(&g, SE_PHASE_B, 0, 0), 10);
    assert_int_equal(se_task_id(&g, SE_PHASE_C, 0, 0), 15);
    assert_int_equal(se_task_id(&g, SE_PHASE_D, 0, 0), 25);
    assert_int_equal(se_task_id(&g, SE_PHASE_E, 4, 1), 39);
}

static void test_dependencies_are_exactly_those_of_the_graph(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int64_t n = g.tiles_per_row;
        for (int64_t r = 0; r < g.groups; r++) {
            for (int64_t t = 0; t < n; t++) {
                int64_t a = se_task_id(&g, SE_PHASE_A, r, t);
                assert_int_equal(se_task_dep_count(&g, a), 0);
                int64_t c = se_task_id(&g, SE_PHASE_C, r, t);
                assert_int_equal(se_task_dep_count(&g, c), 1);
                assert_int_equal(se_task_dep(&g, c, 0), se_task_id(&g, SE_PHASE_B, r, 0));
                int64_t e = se_task_id(&g, SE_PHASE_E, r, t);
                assert_int_equal(se_task_dep_count(&g, e), 1);
                assert_int_equal(se_task_dep(&g, e, 0), se_task_id(&g, SE_PHASE_D, r, 0));
            }
            int64_t b = se_task_id(&g, SE_PHASE_B, r, 0);
            int64_t d = se_task_id(&g, SE_PHASE_D, r, 0);
            assert_int_equal(se_task_dep_count(&g, b), n);
            assert_int_equal(se_task_dep_count(&g, d), n);
            for (int64_t k = 0; k < n; k++) {
                assert_int_equal(se_task_dep(&g, b, k), se_task_id(&g, SE_PHASE_A, r, k));
                assert_int_equal(se_task_dep(&g, d, k), se_task_id(&g, SE_PHASE_C, r, k));
            }
        }
    }
}

static void test_every_dependency_is_same_group_and_previous_phase(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        for (int64_t id = 0; id < g.total; id++) {
            int ph;
            int64_t r, t;
            se_task_decode(&g, id, &ph, &r, &t);
            int64_t nd = se_task_dep_count(&g, id);
            for (int64_t k = 0; k < nd; k++) {
                int64_t dep = se_task_dep(&g, id, k);
                assert_true(dep >= 0 && dep < id);
                int dph;
                int64_t dr, dt;
                se_task_decode(&g, dep, &dph, &dr, &dt);
                assert_int_equal(dr, r);
                assert_int_equal(dph, ph - 1);
            }
        }
    }
}

static void test_releases_enqueue_every_non_a_task_exactly_once(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int *hits = calloc((size_t)g.total, sizeof *hits);
        assert_non_null(hits);
        /* A counter release fires once, when its counter reaches threshold:
         * count each counted range once per counter, plain ranges once. */
        int64_t *fired = calloc((size_t)(2 * g.groups), sizeof *fired);
        int64_t *counts = calloc((size_t)(2 * g.groups), sizeof *counts);
        assert_non_null(fired);
        assert_non_null(counts);
        for (int64_t id = 0; id < g.total; id++) {
            se_release rel = se_task_release(&g, id);
            int fire = 1;
            if (rel.counter >= 0) {
                assert_true(rel.counter < 2 * g.groups);
                fire = ++counts[rel.counter] == rel.threshold;
                fired[rel.counter] += fire;
            }
            if (fire)
                for (int64_t j = 0; j < rel.count; j++) {
                    assert_true(rel.first + j >= 0 && rel.first + j < g.total);
                    hits[rel.first + j]++;
                }
        }
        for (int64_t c = 0; c < 2 * g.groups; c++) {
            assert_int_equal(counts[c], g.tiles_per_row);
            assert_int_equal(fired[c], 1);
        }
        for (int64_t id = 0; id < g.total; id++)
            assert_int_equal(hits[id], id < g.tile_tasks ? 0 : 1);
        free(hits);
        free(fired);
        free(counts);
    }
}

static void test_a_and_c_release_through_row_counter_b_and_d_release_tiles(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int64_t n = g.tiles_per_row;
        for (int64_t r = 0; r < g.groups; r++) {
            for (int64_t t = 0; t < n; t++) {
                se_release a = se_task_release(&g, se_task_id(&g, SE_PHASE_A, r, t));
                assert_int_equal(a.counter, r);
                assert_int_equal(a.threshold, n);
                assert_int_equal(a.first, se_task_id(&g, SE_PHASE_B, r, 0));
                assert_int_equal(a.count, 1);
                se_release c = se_task_release(&g, se_task_id(&g, SE_PHASE_C, r, t));
                assert_int_equal(c.counter, g.groups + r);
                assert_int_equal(c.threshold, n);
                assert_int_equal(c.first, se_task_id(&g, SE_PHASE_D, r, 0));
                assert_int_equal(c.count, 1);
                se_release e = se_task_release(&g, se_task_id(&g, SE_PHASE_E, r, t));
                assert_int_equal(e.counter, -1);
                assert_int_equal(e.count, 0);
            }
            se_release b = se_task_release(&g, se_task_id(&g, SE_PHASE_B, r, 0));
            assert_int_equal(b.counter, -1);
            assert_int_equal(b.first, se_task_id(&g, SE_PHASE_C, r, 0));
            assert_int_equal(b.count, n);
            se_release d = se_task_release(&g, se_task_id(&g, SE_PHASE_D, r, 0));
            assert_int_equal(d.counter, -1);
            assert_int_equal(d.first, se_task_id(&g, SE_PHASE_E, r, 0));
            assert_int_equal(d.count, n);
        }
    }
}

static void test_check_refuses_too_many_tasks_naming_count_and_tile(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(1000, 1000000, 1);
    assert_int_equal(g.total, INT64_C(3000002000));
    se_err err = {{0}};
    assert_int_equal(se_taskgeom_check(&g, &err), SE_ERR_LIMIT);
    assert_msg_has(&err, "3000002000");
    assert_msg_has(&err, "1000x1000000");
    assert_msg_has(&err, "--tile");
    assert_msg_has(&err, "2146435071");
}

static void test_check_boundary_is_max_tasks(void **state)
{
    (void)state;
    /* One row, tile 1: total = 3n + 2. SE_MAX_TASKS = 2146435071. */
    assert_int_equal(SE_MAX_TASKS, INT64_C(2146435071));
    se_err err = {{0}};
    se_taskgeom under = se_taskgeom_make(1, 715478356, 1);
    assert_int_equal(under.total, INT64_C(2146435070));
    assert_int_equal(se_taskgeom_check(&under, &err), SE_OK);
    se_taskgeom over = se_taskgeom_make(1, 715478357, 1);
    assert_int_equal(over.total, INT64_C(2146435073));
    assert_int_equal(se_taskgeom_check(&over, &err), SE_ERR_LIMIT);
    assert_msg_has(&err, "2146435073");
}

/* Checks that order holds each task once and after all its dependencies. */
static void check_order(const se_taskgeom *g, const int64_t *order)
{
    int64_t *pos = malloc((size_t)g->total * sizeof *pos);
    assert_non_null(pos);
    for (int64_t id = 0; id < g->total; id++)
        pos[id] = -1;
    for (int64_t k = 0; k < g->total; k++) {
        int64_t id = order[k];
        assert_true(id >= 0 && id < g->total);
        if (pos[id] != -1)
            fail_msg("task %lld completed twice", (long long)id);
        pos[id] = k;
    }
    for (int64_t id = 0; id < g->total; id++) {
        int64_t nd = se_task_dep_count(g, id);
        for (int64_t k = 0; k < nd; k++) {
            int64_t dep = se_task_dep(g, id, k);
            if (!(pos[dep] < pos[id]))
                fail_msg("task %lld completed at %lld, before its dependency %lld at %lld",
                         (long long)id, (long long)pos[id], (long long)dep, (long long)pos[dep]);
        }
    }
    free(pos);
}

static void test_simulation_runs_each_task_once_after_its_dependencies(void **state)
{
    (void)state;
    const int blocks[] = {1, 2, 3, 8, 33, 132, 1000};
    const int ks[] = {1, 2, 3, 5};
    int wide_cases = 0, plain_cases = 0; /* both kinds of se_mk_row_units */
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom_of(&small_geoms[i]);
        int64_t *order = malloc((size_t)g.total * sizeof *order);
        assert_non_null(order);
        for (size_t w = 0; w < sizeof blocks / sizeof blocks[0]; w++)
            for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++)
                for (uint64_t seed = 0; seed < 4; seed++) {
                    se_err err = {{0}};
                    for (int64_t k = 0; k < g.total; k++)
                        order[k] = -1;
                    se_status st = se_mk_simulate(&g, ks[kk], blocks[w], seed, order, &err);
                    if (st != SE_OK)
                        fail_msg("%lldx%lld tile %lld, k %d, %d blocks, seed %llu: %s",
                                 (long long)g.rows, (long long)g.cols, (long long)g.tile, ks[kk],
                                 blocks[w], (unsigned long long)seed, err.msg);
                    check_order(&g, order);
                    unsigned n = (unsigned)g.tiles_per_row;
                    if (se_mk_row_units((unsigned)g.groups, n, (unsigned)ks[kk], (unsigned)blocks[w]) <
                        se_mk_units_per_row(n, (unsigned)ks[kk]))
                        wide_cases++;
                    else
                        plain_cases++;
                }
        free(order);
    }
    assert_true(wide_cases > 0);
    assert_true(plain_cases > 0);
}

/* The schedule's arithmetic: units of at most k tiles, as even as they go,
 * never empty; a block's units of one row in one visit; no 32-bit overflow. */
static void test_schedule_cuts_rows_into_even_units_of_at_most_k_tiles(void **state)
{
    (void)state;
    assert_int_equal(se_mk_units_per_row(1, 2), 1);    /* 4096x4096, tile 4096 */
    assert_int_equal(se_mk_units_per_row(1024, 2), 512); /* 4x4194304 */
    assert_int_equal(se_mk_units_per_row(7, 0), 7);    /* no room: a tile a unit */
    /* Fewer rows than blocks, several visits a block otherwise: G / rows
     * units a row. 4x4194304 on 792 blocks, k 2: 198 units a row, not 512;
     * 256x1048576: 3; 8x1048576: 99; 4096 whole rows, 1024x32768 (more rows
     * than blocks) and 8 rows of 2 units (one visit already) unchanged; more
     * than half as many rows as blocks: one unit a row. */
    assert_int_equal(se_mk_row_units(4, 1024, 2, 792), 198);
    assert_int_equal(se_mk_row_units(256, 256, 2, 792), 3);
    assert_int_equal(se_mk_row_units(8, 256, 2, 792), 99);
    assert_int_equal(se_mk_row_units(4096, 1, 2, 792), 1);
    assert_int_equal(se_mk_row_units(1024, 8, 2, 792), 4);
    assert_int_equal(se_mk_row_units(8, 4, 2, 792), 2);
    assert_int_equal(se_mk_row_units(4, 64, 2, 7), 1);
    assert_int_equal(se_mk_row_units(3, 64, 2, 7), 2);
    for (unsigned n = 1; n < 300; n++)
        for (unsigned k = 1; k <= 8; k++) {
            unsigned q = se_mk_units_per_row(n, k), lo = n, hi = 0;
            assert_int_equal(se_mk_unit_start(0, n, q), 0);
            assert_int_equal(se_mk_unit_start(q, n, q), n);
            for (unsigned j = 0; j < q; j++) {
                unsigned len = se_mk_unit_start(j + 1, n, q) - se_mk_unit_start(j, n, q);
                lo = len < lo ? len : lo;
                hi = len > hi ? len : hi;
            }
            if (lo < 1 || hi > k || hi - lo > 1)
                fail_msg("n %u, k %u: units of %u to %u tiles", n, k, lo, hi);
        }
    /* 1 block, rows of 7 tiles, k 2: 4 units a row, one visit of 7 tiles. */
    se_mk_visit v = se_mk_visit_at(0, 12, 4, 7, 1);
    assert_int_equal(v.grp, 0);
    assert_int_equal(v.mine, 7);
    assert_int_equal(v.u_end, 4);
    v = se_mk_visit_at(v.u_end, 12, 4, 7, 1);
    assert_int_equal(v.grp, 1);
    /* 3 blocks, the same rows: block 1 has units 1, 4, 7 and 10. */
    v = se_mk_visit_at(1, 12, 4, 7, 3);
    assert_int_equal(v.grp, 0);
    assert_int_equal(v.mine, 2); /* unit 1: tiles 2, 3 */
    assert_int_equal(v.u_end, 4);
    v = se_mk_visit_at(v.u_end, 12, 4, 7, 3);
    assert_int_equal(v.grp, 1);
    assert_int_equal(v.mine, 3); /* units 0 and 3 of row 1: tiles 0, 1 and 6 */
    assert_int_equal(v.u_end, 10);
    /* Past the last unit: none. */
    v = se_mk_visit_at(12, 12, 4, 7, 3);
    assert_true(v.u >= 12);
    /* A row of 2^31 - 2^21 tiles, k 1: the last unit's bounds in 32 bits. */
    unsigned n = 2145386496u;
    assert_int_equal(se_mk_unit_start(n - 1, n, n), n - 1);
    assert_int_equal(se_mk_unit_start(n, n, n), n);
}

static void test_simulation_with_more_blocks_than_tasks_succeeds(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(1, 1, 4096);
    int64_t order[5];
    se_err err = {{0}};
    assert_int_equal(se_mk_simulate(&g, 1, 50, 1, order, &err), SE_OK);
    check_order(&g, order);
    /* A single row of one tile can only complete in id order. */
    for (int64_t k = 0; k < 5; k++)
        assert_int_equal(order[k], k);
    assert_int_equal(se_mk_simulate(&g, 1, 50, 1, NULL, &err), SE_OK);
}

static void test_simulation_with_one_block_finishes_each_row_before_the_next(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(7, 10, 3); /* 4 tiles a row */
    int64_t *order = malloc((size_t)g.total * sizeof *order);
    assert_non_null(order);
    se_err err = {{0}};
    assert_int_equal(se_mk_simulate(&g, 2, 1, 3, order, &err), SE_OK);
    check_order(&g, order);
    /* Row-major: row r's 3 n + 2 tasks, A, B, C, D, E, before row r + 1's. */
    int64_t per_row = 3 * g.tiles_per_row + 2, k = 0;
    for (int64_t r = 0; r < g.groups; r++)
        for (int64_t j = 0; j < per_row; j++, k++) {
            int phase;
            int64_t row, tile;
            se_task_decode(&g, order[k], &phase, &row, &tile);
            if (row != r)
                fail_msg("task %lld of row %lld completed at %lld, within row %lld",
                         (long long)order[k], (long long)row, (long long)k, (long long)r);
        }
    free(order);
}

/* 1 when rows overlap at different phases: some row's B completes while
 * another row, begun before that row ends, still has A tiles to run. */
static int order_shows_row_pipelining(const se_taskgeom *g, const int64_t *order)
{
    int64_t *pos = malloc((size_t)g->total * sizeof *pos);
    assert_non_null(pos);
    for (int64_t k = 0; k < g->total; k++)
        pos[order[k]] = k;
    int found = 0;
    for (int64_t r = 0; r < g->groups && !found; r++) {
        int64_t b = pos[se_task_id(g, SE_PHASE_B, r, 0)], last_e = -1;
        for (int64_t t = 0; t < g->tiles_per_row; t++)
            if (pos[se_task_id(g, SE_PHASE_E, r, t)] > last_e)
                last_e = pos[se_task_id(g, SE_PHASE_E, r, t)];
        for (int64_t q = 0; q < g->groups && !found; q++) {
            if (q == r)
                continue;
            int64_t first_a = g->total, last_a = -1;
            for (int64_t t = 0; t < g->tiles_per_row; t++) {
                int64_t at = pos[se_task_id(g, SE_PHASE_A, q, t)];
                first_a = at < first_a ? at : first_a;
                last_a = at > last_a ? at : last_a;
            }
            found = b < last_a && first_a < last_e;
        }
    }
    free(pos);
    return found;
}

static void test_simulation_pipelines_rows_for_some_seed(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(8, 40, 10);
    int64_t *order = malloc((size_t)g.total * sizeof *order);
    assert_non_null(order);
    int pipelined = 0;
    for (uint64_t seed = 1; seed <= 64 && !pipelined; seed++) {
        se_err err = {{0}};
        assert_int_equal(se_mk_simulate(&g, 2, 5, seed, order, &err), SE_OK);
        check_order(&g, order);
        pipelined = order_shows_row_pipelining(&g, order);
    }
    assert_true(pipelined);
    free(order);
}

static void test_simulation_with_one_block_does_not_pipeline(void **state)
{
    (void)state;
    /* The negative control for the pipelining detector: one block takes
     * the rows one after another. */
    se_taskgeom g = se_taskgeom_make(8, 40, 10);
    int64_t *order = malloc((size_t)g.total * sizeof *order);
    assert_non_null(order);
    se_err err = {{0}};
    assert_int_equal(se_mk_simulate(&g, 2, 1, 5, order, &err), SE_OK);
    assert_false(order_shows_row_pipelining(&g, order));
    free(order);
}

static void test_simulation_with_zero_blocks_or_tiles_is_refused(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(2, 10, 3);
    se_err err = {{0}};
    assert_int_equal(se_mk_simulate(&g, 1, 0, 1, NULL, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "block");
    assert_msg_has(&err, "got 0");
    assert_int_equal(se_mk_simulate(&g, 1, -3, 1, NULL, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "got -3");
    assert_int_equal(se_mk_simulate(&g, 0, 4, 1, NULL, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "tile");
}

static void test_simulation_of_oversized_geometry_is_refused_before_running(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make(1000, 1000000, 1);
    se_err err = {{0}};
    assert_int_equal(se_mk_simulate(&g, 1, 4, 1, NULL, &err), SE_ERR_LIMIT);
    assert_msg_has(&err, "--tile");
}


/* Tasks per phase of a shape: the A, C and E tiles, the B and D groups. */
static void assert_tasks_per_phase(int64_t rows, int64_t cols, int64_t tile, int64_t group,
                                   int64_t tiles, int64_t row_tasks)
{
    se_taskgeom g = se_taskgeom_make(rows, cols, tile);
    if (g.group != group || g.tile_tasks != tiles || g.groups != row_tasks)
        fail_msg("%lldx%lld tile %lld: %lld rows a group, %lld tiles, %lld row tasks a phase; "
                 "want %lld, %lld, %lld", (long long)rows, (long long)cols, (long long)tile,
                 (long long)g.group, (long long)g.tile_tasks, (long long)g.groups,
                 (long long)group, (long long)tiles, (long long)row_tasks);
    for (int ph = SE_PHASE_A; ph < SE_NPHASES; ph++) {
        int64_t end = ph + 1 < SE_NPHASES ? se_phase_base(&g, ph + 1) : g.total;
        assert_int_equal(end - se_phase_base(&g, ph), se_phase_is_tiled(ph) ? tiles : row_tasks);
    }
    assert_int_equal(g.total, 3 * tiles + 2 * row_tasks);
    assert_int_equal(g.partials, rows * g.tiles_per_row);
}

static void test_short_rows_pack_floor_t_over_c_rows_a_tile(void **state)
{
    (void)state;
    /* 4096 / 37 = 110 rows a group: 909 full groups and one of 10 rows. */
    assert_tasks_per_phase(100000, 37, 4096, 110, 910, 910);
    assert_tasks_per_phase(65536, 64, 4096, 64, 1024, 1024);
    assert_tasks_per_phase(1000, 1000, 4096, 4, 250, 250);
    assert_tasks_per_phase(131072, 32, 4096, 128, 1024, 1024);
    /* At most 256 rows a group: rows of under 16 columns. */
    assert_tasks_per_phase(1000000, 1, 4096, 256, 3907, 3907);
    assert_tasks_per_phase(1000, 15, 4096, 256, 4, 4);
    assert_tasks_per_phase(1000, 16, 4096, 256, 4, 4);
    assert_tasks_per_phase(1000, 17, 4096, 240, 5, 5);
    se_taskgeom g = se_taskgeom_make(100000, 37, 4096);
    assert_int_equal(se_group_row0(&g, 909), 99990);
    assert_int_equal(se_group_rows(&g, 909), 10);
    assert_int_equal(se_group_rows(&g, 0), 110);
    assert_int_equal(se_tile_elems(&g, 0, 0), 4070);
    assert_int_equal(se_tile_elems(&g, 909, 0), 370);
}

static void test_rows_of_half_a_tile_to_a_tile_are_one_tile_each(void **state)
{
    (void)state;
    assert_tasks_per_phase(16, 2048, 4096, 2, 8, 8); /* C = T / 2: two a tile */
    assert_tasks_per_phase(16, 2049, 4096, 1, 16, 16);
    assert_tasks_per_phase(8, 4096, 4096, 1, 8, 8);
    assert_tasks_per_phase(1000, 4000, 4096, 1, 1000, 1000);
}

static void test_long_rows_split_and_small_shapes_keep_their_graph(void **state)
{
    (void)state;
    assert_tasks_per_phase(3, 4097, 4096, 1, 6, 3);
    assert_tasks_per_phase(1, 1, 4096, 1, 1, 1);
    assert_tasks_per_phase(1, 7, 4096, 1, 1, 1); /* one row: a group of one */
    assert_tasks_per_phase(17, 2000001, 4096, 1, 17 * 489, 17);
    assert_tasks_per_phase(2, 100003, 4096, 1, 50, 2);
}

static void test_version_1_graph_is_one_row_a_tile(void **state)
{
    (void)state;
    /* The graph of the runs before packing: what their traces are checked
     * against. */
    se_taskgeom g = se_taskgeom_make_v(100000, 37, 4096, SE_TASKGRAPH_V1);
    assert_int_equal(g.group, 1);
    assert_int_equal(g.tile_tasks, 100000);
    assert_int_equal(g.groups, 100000);
    assert_int_equal(g.total, 500000);
    g = se_taskgeom_make_v(3, 4097, 4096, SE_TASKGRAPH_V1);
    se_taskgeom g2 = se_taskgeom_make(3, 4097, 4096);
    assert_int_equal(g.total, g2.total);
    assert_int_equal(g2.version, SE_TASKGRAPH_VERSION);
}

static void test_tile_threads_a_row_fit_the_group_in_one_pass(void **state)
{
    (void)state;
    static const struct {
        int64_t rows, cols;
        unsigned seg;
    } want[] = {
        {100000, 37, 2}, {65536, 64, 4}, {131072, 32, 2}, {32768, 128, 8}, {16384, 256, 16},
        {8192, 512, 32}, {1000, 1000, 64}, {16, 2048, 128}, {8, 4096, 256}, {3, 4097, 256},
        {1, 1, 256}, {1, 7, 256}, {1, 1000, 256}, {2, 1000, 128}, {1000000, 1, 1},
        {17, 2000001, 256},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        se_taskgeom g = se_taskgeom_make(want[i].rows, want[i].cols, 4096);
        unsigned s = se_tile_seg(&g, 256);
        if (s != want[i].seg)
            fail_msg("%lldx%lld: %u threads a row, want %u", (long long)want[i].rows,
                     (long long)want[i].cols, s, want[i].seg);
        /* every row of a group has its segment */
        assert_true((int64_t)s * g.group <= 256);
    }
}

static void test_tile_slot_holds_any_tiles_float4_cover(void **state)
{
    (void)state;
    for (int64_t t = 1; t < 40; t++)
        for (int64_t first = 0; first < 4; first++) {
            int64_t cover = 4 * ((first + t + 3) / 4);
            assert_true(cover <= se_tile_slot_elems(t));
            assert_int_equal(se_tile_slot_elems(t) % 4, 0);
        }
}

/* Fusion's tile tasks over its blocks (se_fusion_task): every task goes to
 * exactly one block, each block takes se_fusion_tasks_of of them, and where
 * a row has t tiles and t divides the grid, each block with at least t
 * tasks takes every place of a row (rotated), where b + k G gave block b
 * place b mod t only; rotate 0 is b + k G. */
static void test_fusion_tasks_cover_each_once_and_cycle_a_rows_tiles(void **state)
{
    (void)state;
    static const int64_t ns[] = {1, 5, 10, 527, 528, 529, 1056, 4094, 32760, 32761};
    static const int64_t grids[] = {1, 3, 4, 132, 528};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (size_t j = 0; j < sizeof grids / sizeof grids[0]; j++)
            for (int rotate = 0; rotate <= 1; rotate++) {
                int64_t n = ns[i], G = grids[j], total = 0;
                unsigned char *seen = calloc((size_t)n, 1);
                assert_non_null(seen);
                for (int64_t b = 0; b < G; b++) {
                    int64_t mine = se_fusion_tasks_of(n, (uint32_t)b, (uint32_t)G, rotate), places = 0;
                    for (int64_t k = 0; k < mine; k++) {
                        int64_t id = se_fusion_task(k, (uint32_t)b, (uint32_t)G, rotate);
                        if (id < 0 || id >= n || seen[id])
                            fail_msg("n %lld G %lld rotate %d: block %lld's task %lld is %lld",
                                     (long long)n, (long long)G, rotate, (long long)b,
                                     (long long)k, (long long)id);
                        seen[id] = 1;
                        /* fusion's loops walk the places one step at a time */
                        if (k > 0)
                            assert_int_equal(se_fusion_place(k, (uint32_t)b, (uint32_t)G, rotate),
                                             se_fusion_place_next(
                                                 se_fusion_place(k - 1, (uint32_t)b, (uint32_t)G, rotate),
                                                 (uint32_t)G, rotate));
                        if (k + 1 < mine)
                            assert_int_equal(se_fusion_place(k, (uint32_t)b, (uint32_t)G, rotate),
                                             se_fusion_place_prev(
                                                 se_fusion_place(k + 1, (uint32_t)b, (uint32_t)G, rotate),
                                                 (uint32_t)G, rotate));
                        if (!rotate)
                            assert_int_equal(id, b + k * G);
                        places |= (int64_t)1 << (id % 2);
                    }
                    total += mine;
                    /* two tiles a row, G even: both places once a block has two tasks */
                    if (G % 2 == 0 && mine >= 2)
                        assert_int_equal(places, rotate ? 3 : (int64_t)1 << (b % 2));
                }
                assert_int_equal(total, n);
                free(seen);
            }
}

/* Which shapes fusion rotates: rows of few unequal tiles on a grid they
 * divide, with more tasks than blocks; the default protocol's shapes keep
 * the order measured before (docs/PERFORMANCE.md, version 24). */
static void test_fusion_rotates_only_rows_of_few_unequal_tiles(void **state)
{
    (void)state;
    static const struct {
        int64_t rows, cols;
        int want;
    } c[] = {
        {16380, 4097, 1}, {16368, 4100, 1}, {2047, 4097, 1}, {2046, 4100, 1}, {3, 4097, 0},
        {5, 4097, 0},     {4096, 4096, 0},  {1024, 32768, 0}, {8, 1048573, 0}, {4, 4194301, 0},
        {2, 100003, 0},   {32, 4096, 0},    {256, 1048576, 0}, {1000, 8193, 1},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int64_t t = (c[i].cols + 4095) / 4096;
        int got = se_fusion_rotates(c[i].cols, 4096, t, c[i].rows * t, 528);
        if (got != c[i].want)
            fail_msg("%lldx%lld: rotates %d, want %d", (long long)c[i].rows,
                     (long long)c[i].cols, got, c[i].want);
    }
}

/* The shapes of issue 30 and the protocol's, packed and split, on several
 * grids and room for several tiles a block: the schedule completes. */
static void test_simulation_completes_on_packed_and_split_shapes(void **state)
{
    (void)state;
    static const geom_case shapes[] = {
        {100000, 37, 4096}, {65536, 64, 4096}, {1000, 1000, 4096}, {3, 4097, 4096},
        {1, 1, 4096},       {1, 7, 4096},      {8, 4096, 4096},    {2, 100003, 4096},
        {17, 200001, 4096}, {600, 1, 4096},    {16, 2048, 4096},
    };
    const int blocks[] = {1, 7, 132, 792};
    const int ks[] = {1, 2, 13};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        se_taskgeom g = geom_of(&shapes[i]);
        int64_t *order = malloc((size_t)g.total * sizeof *order);
        assert_non_null(order);
        for (size_t w = 0; w < sizeof blocks / sizeof blocks[0]; w++)
            for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++) {
                se_err err = {{0}};
                if (se_mk_simulate(&g, ks[kk], blocks[w], 1 + w + kk, order, &err) != SE_OK)
                    fail_msg("%lldx%lld, k %d, %d blocks: %s", (long long)g.rows,
                             (long long)g.cols, ks[kk], blocks[w], err.msg);
                check_order(&g, order);
            }
        free(order);
    }
}

static void test_broken_schedules_fail_the_simulation(void **state)
{
    (void)state;
    se_err err = {{0}};
    /* Units of one row visited separately: one block with room for one
     * tile owns both tiles of a row of 3x4097 and waits for itself. */
    se_taskgeom split = se_taskgeom_make(3, 4097, 4096);
    assert_int_equal(se_mk_simulate_variant(&split, 1, 1, 1, SE_MK_SIM_KERNEL, NULL, &err), SE_OK);
    assert_int_equal(se_mk_simulate_variant(&split, 1, 1, 1, SE_MK_SIM_SEPARATE_VISITS, NULL, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "deadlock");
    /* The schedule counted over rows, as before packing: on a packed graph
     * it visits groups the graph does not have. */
    se_taskgeom packed = se_taskgeom_make(1000, 1000, 4096);
    assert_int_equal(se_mk_simulate_variant(&packed, 2, 132, 1, SE_MK_SIM_KERNEL, NULL, &err),
                     SE_OK);
    assert_int_equal(se_mk_simulate_variant(&packed, 2, 132, 1, SE_MK_SIM_ROWS, NULL, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "250 groups");
    /* Where rows are not packed, rows are groups: the same schedule. */
    assert_int_equal(se_mk_simulate_variant(&split, 1, 2, 1, SE_MK_SIM_ROWS, NULL, &err), SE_OK);
}

/* ---- LayerNorm's graph of three phases (A, B, C) ------------------------ */

static se_taskgeom geom3_of(const geom_case *c)
{
    return se_taskgeom_make_p(c->rows, c->cols, c->tile, SE_TASKGRAPH_VERSION, 3);
}

/* The softmax's graph through se_taskgeom_make_p with 5 phases is
 * se_taskgeom_make's, field for field. */
static void test_five_phase_graph_through_make_p_is_the_softmaxs(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom a = geom_of(&small_geoms[i]);
        se_taskgeom b = se_taskgeom_make_p(small_geoms[i].rows, small_geoms[i].cols,
                                           small_geoms[i].tile, SE_TASKGRAPH_VERSION, SE_NPHASES);
        assert_int_equal(a.phases, SE_NPHASES);
        assert_memory_equal(&a, &b, sizeof a);
        assert_int_equal(a.total, 3 * a.tile_tasks + 2 * a.groups);
        for (int ph = 0; ph < SE_NPHASES; ph++)
            assert_int_equal(se_phase_base(&a, ph),
                             ((ph + 1) / 2) * a.tile_tasks + (ph / 2) * a.groups);
    }
}

/* 3x4097, tile 4096: two tiles a row, 6 A, 3 B, 6 C = 15 tasks; ids are
 * the prefix A, B, C of the softmax's numbering. */
static void test_three_phase_graph_of_3x4097_has_15_tasks(void **state)
{
    (void)state;
    se_taskgeom g = se_taskgeom_make_p(3, 4097, 4096, SE_TASKGRAPH_VERSION, 3);
    se_taskgeom g5 = se_taskgeom_make(3, 4097, 4096);
    assert_int_equal(g.phases, 3);
    assert_int_equal(g.total, 15);
    assert_int_equal(se_last_phase(&g), SE_PHASE_C);
    for (int ph = SE_PHASE_A; ph <= SE_PHASE_C; ph++)
        assert_int_equal(se_phase_base(&g, ph), se_phase_base(&g5, ph));
    assert_int_equal(se_task_id(&g, SE_PHASE_C, 2, 1), 14);
    int ph;
    int64_t grp, tile;
    se_task_decode(&g, 14, &ph, &grp, &tile);
    assert_int_equal(ph, SE_PHASE_C);
    assert_int_equal(grp, 2);
    assert_int_equal(tile, 1);
    /* 1x1: one A, one B, one C */
    assert_int_equal(se_taskgeom_make_p(1, 1, 4096, SE_TASKGRAPH_VERSION, 3).total, 3);
}

/* Every id decodes back, phases never decrease, dependencies are the
 * graph's (B on the group's A tiles, C on B), and the releases enqueue
 * every B and C task exactly once; C releases nothing. */
static void test_three_phase_graph_ids_dependencies_and_releases(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SMALL_GEOMS; i++) {
        se_taskgeom g = geom3_of(&small_geoms[i]);
        assert_int_equal(g.total, 2 * g.tile_tasks + g.groups);
        int64_t *released = calloc((size_t)g.total, sizeof *released);
        int64_t *ctr = calloc((size_t)(2 * g.groups), sizeof *ctr);
        assert_non_null(released);
        assert_non_null(ctr);
        int last = -1;
        for (int64_t id = 0; id < g.total; id++) {
            int ph;
            int64_t grp, tile;
            se_task_decode(&g, id, &ph, &grp, &tile);
            assert_true(ph >= SE_PHASE_A && ph <= SE_PHASE_C);
            assert_true(ph >= last);
            last = ph;
            assert_int_equal(se_task_id(&g, ph, grp, tile), id);
            int64_t nd = se_task_dep_count(&g, id);
            assert_int_equal(nd, ph == SE_PHASE_A ? 0 : ph == SE_PHASE_B ? g.tiles_per_row : 1);
            for (int64_t k = 0; k < nd; k++) {
                int dph;
                int64_t dgrp, dtile;
                se_task_decode(&g, se_task_dep(&g, id, k), &dph, &dgrp, &dtile);
                assert_int_equal(dph, ph - 1);
                assert_int_equal(dgrp, grp);
            }
            se_release r = se_task_release(&g, id);
            if (ph == SE_PHASE_C) {
                assert_int_equal(r.count, 0);
                assert_int_equal(r.counter, -1);
                continue;
            }
            if (r.counter >= 0) {
                assert_true(r.counter < g.groups); /* one counter a group */
                if (++ctr[r.counter] != r.threshold)
                    continue;
            }
            for (int64_t k = 0; k < r.count; k++)
                released[r.first + k]++;
        }
        for (int64_t id = 0; id < g.total; id++) {
            int ph;
            int64_t grp, tile;
            se_task_decode(&g, id, &ph, &grp, &tile);
            assert_int_equal(released[id], ph == SE_PHASE_A ? 0 : 1);
        }
        free(released);
        free(ctr);
    }
}

/* The megakernel's schedule on the graph of three phases: every task once,
 * after its dependencies, for many grids, shared-memory sizes and
 * interleavings, on packed and split shapes; the check refuses a phase
 * count the graphs do not have. */
static void test_simulation_of_three_phase_graph_runs_each_task_once(void **state)
{
    (void)state;
    static const geom_case shapes[] = {
        {100000, 37, 4096}, {1000, 101, 4096}, {3, 4097, 4096}, {5, 37, 4096},
        {7, 100003, 4096},  {1, 1, 4096},      {1, 7, 4096},    {2, 100003, 4096},
        {600, 1, 4096},     {16, 2048, 4096},  {5, 4097, 4096}, {64, 1000, 7},
    };
    const int blocks[] = {1, 2, 7, 132, 792};
    const int ks[] = {1, 2, 13};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        se_taskgeom g = geom3_of(&shapes[i]);
        int64_t *order = malloc((size_t)g.total * sizeof *order);
        assert_non_null(order);
        for (size_t w = 0; w < sizeof blocks / sizeof blocks[0]; w++)
            for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++)
                for (uint64_t seed = 0; seed < 3; seed++) {
                    se_err err = {{0}};
                    if (se_mk_simulate(&g, ks[kk], blocks[w], seed + 7 * w, order, &err) != SE_OK)
                        fail_msg("3 phases, %lldx%lld, k %d, %d blocks: %s", (long long)g.rows,
                                 (long long)g.cols, ks[kk], blocks[w], err.msg);
                    check_order(&g, order);
                }
        free(order);
    }
    se_err err = {{0}};
    se_taskgeom bad = se_taskgeom_make_p(3, 4097, 4096, SE_TASKGRAPH_VERSION, 4);
    assert_int_equal(se_taskgeom_check(&bad, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "4 phases");
    /* A broken schedule fails on three phases too. */
    se_taskgeom split = geom3_of(&shapes[2]);
    assert_int_equal(se_mk_simulate_variant(&split, 1, 1, 1, SE_MK_SIM_SEPARATE_VISITS, NULL, &err),
                     SE_ERR_VALIDATION);
    assert_msg_has(&err, "deadlock");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_of_3x4097_tile_4096_has_24_tasks),
        cmocka_unit_test(test_five_phase_graph_through_make_p_is_the_softmaxs),
        cmocka_unit_test(test_three_phase_graph_of_3x4097_has_15_tasks),
        cmocka_unit_test(test_three_phase_graph_ids_dependencies_and_releases),
        cmocka_unit_test(test_simulation_of_three_phase_graph_runs_each_task_once),
        cmocka_unit_test(test_geometry_of_1x1_tile_4096_has_5_tasks),
        cmocka_unit_test(test_geometry_of_exact_multiple_has_no_extra_tile),
        cmocka_unit_test(test_tile_len_of_partial_last_tile_is_the_remainder),
        cmocka_unit_test(test_tile_lengths_of_a_row_add_up_to_cols),
        cmocka_unit_test(test_task_ids_are_dense_in_phase_order_and_decode_back),
        cmocka_unit_test(test_decoded_phases_never_decrease_with_id),
        cmocka_unit_test(test_row_tasks_ignore_the_tile_argument),
        cmocka_unit_test(test_dependencies_are_exactly_those_of_the_graph),
        cmocka_unit_test(test_every_dependency_is_same_group_and_previous_phase),
        cmocka_unit_test(test_releases_enqueue_every_non_a_task_exactly_once),
        cmocka_unit_test(test_a_and_c_release_through_row_counter_b_and_d_release_tiles),
        cmocka_unit_test(test_check_refuses_too_many_tasks_naming_count_and_tile),
        cmocka_unit_test(test_check_boundary_is_max_tasks),
        cmocka_unit_test(test_simulation_runs_each_task_once_after_its_dependencies),
        cmocka_unit_test(test_schedule_cuts_rows_into_even_units_of_at_most_k_tiles),
        cmocka_unit_test(test_simulation_with_more_blocks_than_tasks_succeeds),
        cmocka_unit_test(test_simulation_with_one_block_finishes_each_row_before_the_next),
        cmocka_unit_test(test_simulation_pipelines_rows_for_some_seed),
        cmocka_unit_test(test_simulation_with_one_block_does_not_pipeline),
        cmocka_unit_test(test_simulation_with_zero_blocks_or_tiles_is_refused),
        cmocka_unit_test(test_simulation_of_oversized_geometry_is_refused_before_running),
        cmocka_unit_test(test_short_rows_pack_floor_t_over_c_rows_a_tile),
        cmocka_unit_test(test_rows_of_half_a_tile_to_a_tile_are_one_tile_each),
        cmocka_unit_test(test_long_rows_split_and_small_shapes_keep_their_graph),
        cmocka_unit_test(test_version_1_graph_is_one_row_a_tile),
        cmocka_unit_test(test_tile_threads_a_row_fit_the_group_in_one_pass),
        cmocka_unit_test(test_tile_slot_holds_any_tiles_float4_cover),
        cmocka_unit_test(test_fusion_tasks_cover_each_once_and_cycle_a_rows_tiles),
        cmocka_unit_test(test_fusion_rotates_only_rows_of_few_unequal_tiles),
        cmocka_unit_test(test_simulation_completes_on_packed_and_split_shapes),
        cmocka_unit_test(test_broken_schedules_fail_the_simulation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
