/*
 * describe.h - a run's description of itself: strategies.json, the table of
 * strategies the run measured (name, mechanism, launch, role, cooperative
 * group, init control, trace kind, colour, description) and its workload. `run` writes it
 * from the compiled table; every reader of a run (verify, table, answer,
 * figures, report, site, compare) walks the table it holds, so a run renders
 * the same whatever strategies today's binary has. A run made before the
 * file existed is read with the frozen legacy v1 table (model/strategy.h).
 */
#ifndef SE_BUNDLE_DESCRIBE_H
#define SE_BUNDLE_DESCRIBE_H

#include <jansson.h>

#include "model/operation.h"
#include "model/se_common.h"
#include "model/strategy.h"

#define SE_STRATEGIES_VERSION 1

/* A table read from a run's strategies.json (owns its strings). */
typedef struct se_run_strategies {
    se_strategy_table table;
    se_strategy_info entries[SE_STRATEGY_MAX];
    const se_operation *op; /* its workload, an entry of the workload table */
    json_t *json;
} se_run_strategies;

/* strategies.json's document for table t measuring workload op (new
 * reference, NULL when out of memory). */
json_t *se_describe_json(const se_strategy_table *t, const se_operation *op);

/* Reads a strategies.json document (`where` names it in messages): every
 * field present and of its type, names unique and safe in a file name
 * ([a-z0-9_-], at most 40 characters), at most SE_STRATEGY_MAX entries, the
 * first (the baseline) tiled, the workload an entry of the workload table
 * (model/operation.h) with its phases. *out is freed
 * with se_run_strategies_free. Fails with SE_ERR_VALIDATION naming the
 * field. */
se_status se_describe_parse(const json_t *root, const char *where, se_run_strategies **out,
                            se_err *err);

void se_run_strategies_free(se_run_strategies *rs);

/* The table of the run in dir: its strategies.json read into *owned (free
 * it with se_run_strategies_free), or, in a run without one, *owned NULL
 * and the legacy v1 table. */
se_status se_describe_load(const char *dir, se_run_strategies **owned,
                           const se_strategy_table **table, se_err *err);

#endif
