/*
 * strategy.c - the strategy table (see strategy.h).
 */
#include "model/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const se_strategy_info table[SE_NSTRATEGIES] = {
#define SE_STRATEGY_INFO(id, name, mech, launch, role, group, init, trace, colour, desc) \
    [SE_S_##id] = {name, mech, launch, role, role == SE_ROLE_TILED, group != NULL, group, init, \
                   trace, colour, desc},
    SE_STRATEGY_TABLE(SE_STRATEGY_INFO)
#undef SE_STRATEGY_INFO
};

_Static_assert(SE_NSTRATEGIES <= SE_STRATEGY_MAX,
               "model/strategy.h: more strategies than a protocol's mask can select");

static const se_strategy_table compiled = {"compiled", SE_NSTRATEGIES, table};

/*
 * The strategies of every run made before runs recorded their own table:
 * frozen here, not generated from SE_STRATEGY_TABLE, so a strategy added to
 * the compiled table (or a description reworded) changes nothing in how those
 * runs render. Each committed run's protocol, summary and validation list
 * exactly these ten (runs/reference and the runs under runs/repeat and runs/perf).
 */
static const se_strategy_info legacy_v1_entries[] = {
    {"stream", "stream", "stream", SE_ROLE_TILED, 1, 0, NULL, NULL, SE_TRACE_PHASED, "#08519c",
     "five ordinary kernel launches (phases A to E) on a stream: the baseline"},
    {"graph", "graph", "graph", SE_ROLE_TILED, 1, 0, NULL, NULL, SE_TRACE_PHASED, "#6baed6",
     "the same five launches captured into a CUDA graph and replayed"},
    {"stream-pdl", "pdl", "stream", SE_ROLE_TILED, 1, 0, NULL, NULL, SE_TRACE_PHASED, "#762a83",
     "the five launches with programmatic dependent launch: each phase may start while the "
     "one before it drains, and waits for its results"},
    {"graph-pdl", "pdl", "graph", SE_ROLE_TILED, 1, 0, NULL, NULL, SE_TRACE_PHASED, "#de77ae",
     "the programmatic-dependent launches captured into a graph (programmatic edges) and "
     "replayed"},
    {"fusion", "fusion", "stream", SE_ROLE_TILED, 1, 1, "fusion", NULL, SE_TRACE_PHASED, "#a63603",
     "one cooperative kernel with grid-wide barriers between the phases"},
    {"fusion-graph", "fusion", "graph", SE_ROLE_TILED, 1, 1, "fusion", NULL, SE_TRACE_PHASED,
     "#fd8d3c", "the fused cooperative kernel as a graph node"},
    {"megakernel", "megakernel", "stream", SE_ROLE_TILED, 1, 1, "megakernel", "megakernel_init",
     SE_TRACE_TASKS, "#006d2c",
     "a toy persistent kernel: blocks own units of rows on a static row-major schedule and "
     "per-row counters release each row's phases; its counter reset is inside every "
     "invocation"},
    {"megakernel-graph", "megakernel", "graph", SE_ROLE_TILED, 1, 1, "megakernel",
     "megakernel_init", SE_TRACE_TASKS, "#74c476", "the toy megakernel as a graph node"},
    {"rowblock", "rowblock", "stream", SE_ROLE_CONTROL, 0, 0, NULL, NULL, SE_TRACE_ROWS, "#8c8c00",
     "control, not tiled: each row read once by a thread, a block, a cluster or the blocks "
     "of a cooperative grid"},
    {"cudnn", "cudnn", "stream", SE_ROLE_REFERENCE, 0, 0, NULL, NULL, SE_TRACE_NONE, "#000000",
     "reference: cuDNN's softmax on the pre-scaled input"},
};

static const se_strategy_table legacy_v1 = {
    "legacy v1", (int)(sizeof legacy_v1_entries / sizeof legacy_v1_entries[0]),
    legacy_v1_entries};

const se_strategy_table *se_strategy_compiled(void)
{
    return &compiled;
}

const se_strategy_table *se_strategy_legacy_v1(void)
{
    return &legacy_v1;
}

const se_strategy_info *se_stable_get(const se_strategy_table *t, int i)
{
    return t && i >= 0 && i < t->n ? &t->s[i] : NULL;
}

int se_stable_find(const se_strategy_table *t, const char *name)
{
    for (int i = 0; name && i < t->n; i++)
        if (strcmp(t->s[i].name, name) == 0)
            return i;
    return t->n;
}

int se_stable_first_mechanism(const se_strategy_table *t, const char *mechanism)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->s[i].mechanism, mechanism) == 0)
            return i;
    return t->n;
}

int se_stable_is_init_control(const se_strategy_table *t, const char *name)
{
    for (int i = 0; name && i < t->n; i++)
        if (t->s[i].init_control && strcmp(t->s[i].init_control, name) == 0)
            return 1;
    return 0;
}

int se_stable_first_role(const se_strategy_table *t, se_role role)
{
    for (int i = 0; i < t->n; i++)
        if (t->s[i].role == role)
            return i;
    return t->n;
}

/* Every name, comma-separated, built from the table. */
#define SE_STRATEGY_NAME(id, name, ...) name ", "
static const char all_names[] = SE_STRATEGY_TABLE(SE_STRATEGY_NAME);
#undef SE_STRATEGY_NAME

const char *se_strategy_names(void)
{
    static char names[sizeof all_names];
    if (!names[0])
        snprintf(names, sizeof names, "%.*s", (int)(sizeof all_names - 3), all_names);
    return names;
}

const char *se_role_name(se_role r)
{
    switch (r) {
    case SE_ROLE_TILED: return "tiled mechanism";
    case SE_ROLE_CONTROL: return "control";
    case SE_ROLE_REFERENCE: return "reference";
    }
    return "?";
}

const se_strategy_info *se_strategy_get(se_strategy s)
{
    return (unsigned)s < SE_NSTRATEGIES ? &table[s] : NULL;
}

se_strategy se_strategy_find(const char *name)
{
    for (int i = 0; i < SE_NSTRATEGIES; i++)
        if (strcmp(table[i].name, name) == 0)
            return (se_strategy)i;
    return SE_NSTRATEGIES;
}

unsigned se_strategy_all_mask(int n)
{
    return n >= 32 ? ~0u : n <= 0 ? 0u : (1u << n) - 1;
}

se_status se_strategy_parse_list(const char *text, unsigned *mask, se_err *err)
{
    *mask = 0;
    if (!text || !*text)
        return se_fail(err, SE_ERR_USAGE, "--strategies: the list is empty");
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    if (!copy)
        return se_fail(err, SE_ERR_NOMEM, "--strategies: out of memory");
    memcpy(copy, text, len + 1);
    se_status st = SE_OK;
    for (char *item = copy, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (strcmp(item, "all") == 0) {
            *mask |= se_strategy_all_mask(SE_NSTRATEGIES);
            continue;
        }
        se_strategy s = se_strategy_find(item);
        if (s == SE_NSTRATEGIES) {
            st = se_fail(err, SE_ERR_USAGE, "--strategies: unknown strategy '%s'; valid: all, %s",
                         item, se_strategy_names());
            break;
        }
        *mask |= 1u << s;
    }
    free(copy);
    return st;
}
