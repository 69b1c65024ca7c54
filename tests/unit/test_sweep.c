/*
 * test_sweep.c - bundle/sweep.h: the groups, goals, G5 pairs and floors.
 * On the committed reference run: its 14 shapes fall into the groups
 * docs/PERFORMANCE.md describes, its unaligned shapes pair as the rule says
 * and each floor is its formula over the run's own controls. On a sweep made
 * here: a goal's threshold itself counts as met, a value just below it does
 * not, an unvalidated strategy is never "ours", G5 picks the nearest aligned
 * neighbour within a factor of 1.25 and flags a ratio above 1.05 only.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/rundata.h"
#include "bundle/sweep.h"

#ifndef SE_REFERENCE_RUN
#define SE_REFERENCE_RUN "runs/reference"
#endif
/* The committed LayerNorm run: a workload of three phases. */
#ifndef SE_LAYERNORM_RUN
#define SE_LAYERNORM_RUN "runs/layernorm/20261207T144848Z"
#endif

static size_t shape_index(const se_sweep *s, const char *id)
{
    for (size_t i = 0; i < s->n_shapes; i++)
        if (strcmp(s->shapes[i].id, id) == 0)
            return i;
    fail_msg("no shape %s", id);
    return 0;
}

static void reference_run(void **state)
{
    (void)state;
    se_rundata rd;
    se_err err = {{0}};
    assert_int_equal(se_rundata_load(SE_REFERENCE_RUN, &rd, &err), SE_OK);
    se_sweep s;
    se_goals g;
    assert_int_equal(se_sweep_read(&rd, &s, &err), SE_OK);
    assert_int_equal(se_goals_compute(&s, &g, &err), SE_OK);
    /* Families 0.52-0.8 MB, 33.6-67.1 MB, 134 MB, 1.07 GB; launch-bound
     * groups of 1, 3 and 5 rows. */
    assert_int_equal(s.n_groups, 7);
    assert_string_equal(s.groups[1].label, "input 33.6 MB to 67.1 MB");
    assert_int_equal(s.groups[1].n, 6);
    assert_int_equal(s.groups[1].n_lengths, 6);
    assert_int_equal(s.groups[4].launch_bound, 1);
    assert_int_equal(s.groups[4].rows, 1);
    assert_int_equal(s.groups[4].n, 2);
    /* Members in order of row length. */
    assert_string_equal(s.shapes[s.groups[1].members[0]].id, "4096x4096");
    assert_string_equal(s.shapes[s.groups[1].members[5]].id, "4x4194304");
    /* G5: 8x1048573 and 4x4194301 pair; 1x1, 1x7, 3x4097, 5x4097 and
     * 2x100003 have no aligned neighbour in their group. */
    assert_int_equal(g.n_pairs, 2);
    assert_int_equal(g.n_unpaired, 5);
    assert_string_equal(s.shapes[g.pairs[0].unaligned].id, "8x1048573");
    assert_string_equal(s.shapes[g.pairs[0].aligned].id, "8x1048576");
    assert_string_equal(s.shapes[g.pairs[1].aligned].id, "4x4194304");
    /* Floors from the controls. */
    size_t i = shape_index(&s, "4096x4096");
    const se_goal_row *r = &g.rows[i];
    double copy = s.shapes[i].copy[SE_WARM], L = s.empty_stream;
    assert_true(copy > 0 && L > 0 && s.grid_barrier > 0);
    assert_int_equal(s.phases, 5);
    assert_true(fabs(r->floor[SE_FLOOR_LAUNCHES] - (copy + 4 * L)) < 1e-9);
    assert_true(fabs(r->floor[SE_FLOOR_FUSION] - (copy + fmax(0, s.coop_noop - L) + 4 * s.grid_barrier)) < 1e-9);
    assert_true(fabs(r->floor[SE_FLOOR_MEGAKERNEL] - (copy + fmax(0, s.shapes[i].mk_init - L))) < 1e-9);
    /* The fraction of copy is the copy's median over the item's, per scope. */
    const se_sweep_item *rb = se_sweep_item_of(&s.shapes[i], "rowblock");
    assert_non_null(rb);
    for (int sc = 0; sc < 2; sc++)
        assert_true(fabs(rb->fraction[sc] - s.shapes[i].copy[sc] / rb->median[sc]) < 1e-12);
    assert_true(isnan(se_sweep_item_of(&s.shapes[i], "torch-eager")->fraction[SE_COLD]));
    se_goals_free(&g);
    se_sweep_free(&s);
    se_rundata_free(&rd);
}

/* A workload of three phases (LayerNorm) is bounded by three launches, or
 * two grid barriers: a launch or a barrier between each two phases. */
static void three_phase_floors(void **state)
{
    (void)state;
    se_rundata rd;
    se_err err = {{0}};
    assert_int_equal(se_rundata_load(SE_LAYERNORM_RUN, &rd, &err), SE_OK);
    se_sweep s;
    se_goals g;
    assert_int_equal(se_sweep_read(&rd, &s, &err), SE_OK);
    assert_int_equal(se_goals_compute(&s, &g, &err), SE_OK);
    assert_int_equal(s.phases, 3);
    size_t i = shape_index(&s, "4096x4096");
    const se_goal_row *r = &g.rows[i];
    double copy = s.shapes[i].copy[SE_WARM], L = s.empty_stream;
    assert_true(copy > 0 && L > 0 && s.grid_barrier > 0);
    assert_true(fabs(r->floor[SE_FLOOR_LAUNCHES] - (copy + 2 * L)) < 1e-9);
    assert_true(fabs(r->floor[SE_FLOOR_FUSION] - (copy + fmax(0, s.coop_noop - L) + 2 * s.grid_barrier)) < 1e-9);
    se_goals_free(&g);
    se_sweep_free(&s);
    se_rundata_free(&rd);
}

/* A sweep of one family made by hand: shape k holds rowblock (validated
 * unless told) and fusion with the given warm and cold fractions. */
typedef struct hand {
    se_sweep s;
    se_shape shapes[4];
    size_t members[4];
} hand;

static void make(hand *h, const int64_t cols[4], const double warm[4], const double cold[4])
{
    memset(h, 0, sizeof *h);
    h->s.shapes = calloc(4, sizeof *h->s.shapes);
    h->s.groups = calloc(1, sizeof *h->s.groups);
    assert_non_null(h->s.shapes);
    assert_non_null(h->s.groups);
    h->s.n_shapes = 4;
    h->s.n_groups = 1;
    h->s.empty_stream = 3000;
    h->s.coop_noop = 3200;
    h->s.grid_barrier = 1000;
    h->s.phases = 5;
    h->s.groups[0].members = h->members;
    h->s.groups[0].n = 4;
    for (int k = 0; k < 4; k++) {
        se_sweep_shape *sh = &h->s.shapes[k];
        h->shapes[k].rows = (1 << 23) / cols[k];
        h->shapes[k].cols = cols[k];
        sh->shape = &h->shapes[k];
        snprintf(sh->id, sizeof sh->id, "%lldx%lld", (long long)h->shapes[k].rows,
                 (long long)cols[k]);
        sh->input = 4.0 * (double)h->shapes[k].rows * (double)cols[k];
        sh->moved = 2 * sh->input;
        sh->copy[SE_WARM] = 20000;
        sh->copy[SE_COLD] = 22000;
        sh->mk_init = 5000;
        h->members[k] = (size_t)k;
        static const char *const names[2] = {"rowblock", "fusion"};
        static const se_strategy st[2] = {SE_S_ROWBLOCK, SE_S_FUSION};
        for (int j = 0; j < 2; j++) {
            se_sweep_item *it = &sh->items[sh->n_items++];
            it->name = names[j];
            it->strategy = st[j];
            it->info = se_strategy_get(st[j]);
            it->validated = 1;
            double w = j ? warm[k] * 0.5 : warm[k], c = j ? cold[k] * 0.5 : cold[k];
            it->fraction[SE_WARM] = w;
            it->fraction[SE_COLD] = c;
            it->median[SE_WARM] = sh->copy[SE_WARM] / w;
            it->median[SE_COLD] = sh->copy[SE_COLD] / c;
        }
    }
}

static void unmake(hand *h)
{
    free(h->s.shapes);
    free(h->s.groups);
}

static void thresholds_and_pairs(void **state)
{
    (void)state;
    /* 4096 and 4097 (a factor 1.0002), 37 with 32 only 1.16 away, 100003
     * with nothing aligned within 1.25 (65536 is not in the group). */
    const int64_t cols[4] = {32, 37, 4096, 4097};
    const double warm[4] = {0.90, 0.8999, 0.95, 0.95}, cold[4] = {0.80, 0.95, 0.7999, 0.95};
    hand h;
    make(&h, cols, warm, cold);
    se_goals g;
    se_err err = {{0}};
    assert_int_equal(se_goals_compute(&h.s, &g, &err), SE_OK);
    /* Each shape moves 67.1 MB: G1 and G4 apply. */
    assert_int_equal(g.rows[0].g[0], SE_GOAL_MET);     /* 0.90 and 0.80 exactly */
    assert_int_equal(g.rows[1].g[0], SE_GOAL_NOT_MET); /* 0.8999 warm */
    assert_int_equal(g.rows[2].g[0], SE_GOAL_NOT_MET); /* 0.7999 flushed */
    assert_int_equal(g.rows[3].g[0], SE_GOAL_MET);
    assert_string_equal(g.rows[0].fastest[SE_WARM]->name, "rowblock");
    assert_int_equal(g.rows[0].g[3], SE_GOAL_MET); /* fusion at 0.45 of copy */
    assert_int_equal(g.rows[0].g[1], SE_GOAL_NA);  /* no peer ran */
    assert_int_equal(g.rows[0].g[2], SE_GOAL_NA);  /* not launch-bound */
    assert_int_equal(g.met[0], 2);
    assert_int_equal(g.of[0], 4);
    /* G5: 37 -> 32 and 4097 -> 4096; fusion's time per element on 37 over
     * 32's is the inverse ratio of its fractions times the elements'. */
    assert_int_equal(g.n_pairs, 2);
    assert_int_equal(g.n_unpaired, 0);
    assert_int_equal(g.pairs[0].unaligned, 1);
    assert_int_equal(g.pairs[0].aligned, 0);
    assert_int_equal(g.pairs[1].unaligned, 3);
    assert_int_equal(g.pairs[1].aligned, 2);
    double e37 = (double)h.shapes[1].rows * 37, e32 = (double)h.shapes[0].rows * 32;
    double want = ((20000 / (0.8999 * 0.5)) / e37) / ((20000 / (0.90 * 0.5)) / e32);
    assert_true(fabs(g.pairs[0].ratio[SE_S_FUSION] - want) < 1e-12);
    assert_true(isnan(g.pairs[0].ratio[SE_S_ROWBLOCK])); /* not tiled */
    assert_int_equal(g.pairs[0].met, want <= SE_GOAL_G5_SLOWER);
    se_goals_free(&g);
    /* An unvalidated rowblock is not ours: fusion is; a slower unaligned
     * fusion is flagged. */
    h.s.shapes[0].items[0].validated = 0;
    h.s.shapes[3].items[1].median[SE_WARM] *= 1.2;
    assert_int_equal(se_goals_compute(&h.s, &g, &err), SE_OK);
    assert_string_equal(g.rows[0].fastest[SE_WARM]->name, "fusion");
    assert_int_equal(g.rows[0].g[0], SE_GOAL_NOT_MET);
    assert_int_equal(g.pairs[1].met, 0);
    assert_true(g.pairs[1].ratio[SE_S_FUSION] > 1.19);
    se_goals_free(&g);
    /* 100003 has no aligned neighbour within a factor of 1.25 of 65536 or
     * 131072 when only 65536 is there. */
    h.shapes[3].cols = 100003;
    h.shapes[2].cols = 65536;
    h.shapes[1].cols = 64;
    assert_int_equal(se_goals_compute(&h.s, &g, &err), SE_OK);
    assert_int_equal(g.n_pairs, 0);
    assert_int_equal(g.n_unpaired, 1);
    se_goals_free(&g);
    unmake(&h);
}

static void launch_bound_gap(void **state)
{
    (void)state;
    const int64_t cols[4] = {1, 7, 1024, 4096};
    const double warm[4] = {0.9, 0.9, 0.9, 0.9}, cold[4] = {0.9, 0.9, 0.9, 0.9};
    hand h;
    make(&h, cols, warm, cold);
    for (int k = 0; k < 4; k++) {
        h.shapes[k].rows = 1;
        h.s.shapes[k].input = 4.0 * (double)cols[k];
        h.s.shapes[k].moved = 8.0 * (double)cols[k];
        h.s.shapes[k].copy[SE_WARM] = 3000;
        h.s.shapes[k].items[0].median[SE_WARM] = 3000 + (k ? 250 : 200); /* 0.2 us is met */
    }
    h.s.groups[0].launch_bound = 1;
    h.s.groups[0].rows = 1;
    se_goals g;
    se_err err = {{0}};
    assert_int_equal(se_goals_compute(&h.s, &g, &err), SE_OK);
    assert_int_equal(g.rows[0].g[2], SE_GOAL_MET);
    assert_int_equal(g.rows[1].g[2], SE_GOAL_NOT_MET);
    assert_true(fabs(g.rows[0].gap_ns - 200) < 1e-9);
    assert_int_equal(g.rows[0].g[0], SE_GOAL_NA); /* moves under 64 MB */
    assert_int_equal(g.of[2], 4);
    assert_int_equal(g.met[2], 1);
    se_goals_free(&g);
    unmake(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_run),
        cmocka_unit_test(three_phase_floors),
        cmocka_unit_test(thresholds_and_pairs),
        cmocka_unit_test(launch_bound_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
