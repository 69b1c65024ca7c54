/*
 * strategy.c - the strategy table (see strategy.h).
 */
#include "model/strategy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const se_strategy_info table[SE_NSTRATEGIES] = {
#define SE_STRATEGY_INFO(id, name, mech, launch, role, group, trace, colour, desc) \
    [SE_S_##id] = {name, mech, launch, role, role == SE_ROLE_TILED, group != NULL, group, trace, colour, desc},
    SE_STRATEGY_TABLE(SE_STRATEGY_INFO)
#undef SE_STRATEGY_INFO
};

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
            st = se_fail(err, SE_ERR_USAGE, "--strategies: unknown strategy '%s'; valid: all, %s",
                         item, se_strategy_names());
            break;
        }
        *mask |= 1u << s;
    }
    free(copy);
    return st;
}
