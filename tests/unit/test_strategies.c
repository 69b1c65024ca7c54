/*
 * test_strategies.c - the strategy table's two halves agree: every strategy
 * of model/strategy.h has a GPU line in run/strategies.c with an enqueue
 * function, exactly the cooperative ones have a co-residency query, one
 * query per cooperative group, and the help text lists every strategy with
 * its description. No GPU is needed: nothing here calls CUDA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/strategy.h"
#include "run/strategies.h"
#include "tool/cli.h"

static void test_every_strategy_has_an_enqueue_function(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_gpu *gpu = se_strategy_gpu_get((se_strategy)s);
        assert_non_null(gpu);
        if (!gpu->enqueue)
            fail_msg("%s has no enqueue function", se_strategy_get((se_strategy)s)->name);
    }
    assert_null(se_strategy_gpu_get(SE_NSTRATEGIES));
}

static void test_exactly_cooperative_strategies_have_a_coresidency_query(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        int has_query = se_strategy_gpu_get((se_strategy)s)->coop_max_blocks != NULL;
        if (has_query != info->cooperative)
            fail_msg("%s: coop_group %s but %s co-residency query", info->name,
                     info->coop_group ? info->coop_group : "NULL", has_query ? "a" : "no");
    }
}

static void test_strategies_of_one_group_share_its_query_and_first(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        se_strategy first = se_coop_group_first((se_strategy)s);
        if (!info->cooperative) {
            assert_int_equal(first, SE_NSTRATEGIES);
            continue;
        }
        assert_true(first <= (se_strategy)s);
        assert_string_equal(se_strategy_get(first)->coop_group, info->coop_group);
        if (se_strategy_gpu_get(first)->coop_max_blocks !=
            se_strategy_gpu_get((se_strategy)s)->coop_max_blocks)
            fail_msg("%s and %s are in group %s but query different kernels",
                     se_strategy_get(first)->name, info->name, info->coop_group);
        for (int o = 0; o < s; o++) { /* no earlier strategy of the group */
            const se_strategy_info *other = se_strategy_get((se_strategy)o);
            if (other->cooperative && strcmp(other->coop_group, info->coop_group) == 0)
                assert_true(first <= (se_strategy)o);
        }
    }
    assert_int_equal(se_coop_group_first(SE_S_FUSION_GRAPH), SE_S_FUSION);
    assert_int_equal(se_coop_group_first(SE_S_MEGAKERNEL_GRAPH), SE_S_MEGAKERNEL);
    assert_int_equal(se_coop_group_first(SE_S_STREAM), SE_NSTRATEGIES);
}

static void test_group_kernel_names_read_as_before(void **state)
{
    (void)state;
    char buf[64];
    se_coop_group_kernel("fusion", buf, sizeof buf);
    assert_string_equal(buf, "fusion kernel");
    se_coop_group_kernel("megakernel", buf, sizeof buf);
    assert_string_equal(buf, "megakernel");
}

static void test_help_lists_every_strategy_with_its_description(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(se_cli_command_help(f, "run"), 1); /* run --help lists them */
    long len = ftell(f);
    assert_true(len > 0);
    char *text = calloc((size_t)len + 1, 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        char line[64], words[32];
        snprintf(line, sizeof line, "\n  %-18s", info->name);
        snprintf(words, sizeof words, "%.*s", (int)strcspn(info->description, " "),
                 info->description);
        const char *at = strstr(text, line);
        if (!at || strncmp(at + strlen(line), words, strlen(words)) != 0)
            fail_msg("the help does not list %s with its description", info->name);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_strategy_has_an_enqueue_function),
        cmocka_unit_test(test_exactly_cooperative_strategies_have_a_coresidency_query),
        cmocka_unit_test(test_strategies_of_one_group_share_its_query_and_first),
        cmocka_unit_test(test_group_kernel_names_read_as_before),
        cmocka_unit_test(test_help_lists_every_strategy_with_its_description),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
