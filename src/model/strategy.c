/*
 * strategy.c - the strategy table (see strategy.h).
 */
#include "model/strategy.h"

#include <stdlib.h>
#include <string.h>

static const se_strategy_info table[SE_NSTRATEGIES] = {
    [SE_S_STREAM] = {"stream", "stream", "stream", 1, 0},
    [SE_S_GRAPH] = {"graph", "graph", "graph", 1, 0},
    [SE_S_FUSION] = {"fusion", "fusion", "stream", 1, 1},
    [SE_S_FUSION_GRAPH] = {"fusion-graph", "fusion", "graph", 1, 1},
    [SE_S_MEGAKERNEL] = {"megakernel", "megakernel", "stream", 1, 1},
    [SE_S_MEGAKERNEL_GRAPH] = {"megakernel-graph", "megakernel", "graph", 1, 1},
    [SE_S_ROWBLOCK] = {"rowblock", "rowblock", "stream", 0, 0},
    [SE_S_CUDNN] = {"cudnn", "cudnn", "stream", 0, 0},
};

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
            *mask |= (1u << SE_NSTRATEGIES) - 1;
            continue;
        }
        se_strategy s = se_strategy_find(item);
        if (s == SE_NSTRATEGIES) {
            st = se_fail(err, SE_ERR_USAGE,
                         "--strategies: unknown strategy '%s'; valid: all, stream, graph, fusion, "
                         "fusion-graph, megakernel, megakernel-graph, rowblock, cudnn",
                         item);
            break;
        }
        *mask |= 1u << s;
    }
    free(copy);
    return st;
}
