/*
 * protocol.h - the measurement protocol: one JSON file (read with jansson)
 * that fixes the workloads, the strategies and controls, the tolerances,
 * the measurement scopes with their sample and warm-up counts, and the
 * analysis settings. docs/PROTOCOL.md describes every field.
 *
 * A run copies the protocol it used into its bundle (as written by
 * se_protocol_write, which se_protocol_parse reads back to the same struct)
 * and records its hash; verify reads that copy.
 */
#ifndef SE_PROTOCOL_H
#define SE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "model/se_common.h"
#include "model/strategy.h"
#include "model/tolerance.h"
#include "model/workload.h"

/* The input's scale (standard deviation), as the protocol and --scale accept
 * it: every finite fp32 input is in range (docs/INPUTS.md). At the top the
 * largest planted outlier, 256 times the scale, stays below FLT_MAX and sums
 * of squares overflow fp32 on every shape; at the bottom every square
 * underflows and eps decides the scale. */
#define SE_SCALE_MIN 1e-30
#define SE_SCALE_MAX 1e36

#ifdef __cplusplus
extern "C" {
#endif

#define SE_PROTOCOL_FORMAT "softmax-evidence-protocol"
#define SE_PROTOCOL_VERSION 1

/* One measurement scope: `samples` timed samples after `warmup` untimed
 * instances; `batch` instances per sample (batch scope only, else 1). */
typedef struct se_scope_cfg {
    int samples;
    int warmup;
    int batch;
} se_scope_cfg;

typedef struct se_protocol {
    char name[64];

    /* workload */
    se_shape *shapes;       /* owned */
    size_t n_shapes;
    int64_t tile;
    uint64_t seed;
    double scale;
    double eps;
    const struct se_operation *op; /* workload.operation (model/operation.h): what is
                                      computed; the table's first where the file has none */

    unsigned strategies;    /* bit mask over `table`'s entries */
    const se_strategy_table *table; /* the strategies the names resolve in: the
                                       compiled table for `run`, the run's own
                                       for a run read back (se_protocol_table) */
    se_tolerance tol;
    int invocations;        /* validated invocations per (strategy, shape) */

    /* scopes */
    se_scope_cfg device;      /* events around one instance, L2 warm */
    se_scope_cfg device_cold; /* the same after an L2 flush */
    se_scope_cfg batch;       /* events around `batch` back-to-back instances */
    se_scope_cfg host;        /* wall clock from the first launch call to stream sync */

    /* controls */
    se_scope_cfg controls;  /* samples and warm-up of each control */
    int barriers;           /* grid barriers in the barrier-cost kernel */

    /* analysis */
    int bootstrap_resamples;
    uint64_t bootstrap_seed;
    uint64_t order_seed;      /* seed of the recorded interleaving order */
    double throttle_fraction; /* a sample whose SM clock is below this fraction of
                                 the device's peak is flagged throttled */

    int traces;               /* take the dependency traces (default); "traces": false
                                 leaves them out, e.g. for repeats of a run */
} se_protocol;

/* Parses protocol text. `name` (a file name) prefixes every message:
 * "NAME:LINE:COLUMN: ..." for JSON syntax errors, "NAME: field 'a.b.c': ..."
 * for an unknown key, a wrong type, a value out of range (negative counts
 * among them) or an empty shape list. On failure nothing needs freeing. */
se_status se_protocol_parse(const char *text, size_t len, const char *name, se_protocol *p,
                            se_err *err);

/* se_protocol_parse, resolving the strategy names in `table` (a run's own,
 * bundle/describe.h) rather than in the compiled table; `table` must outlive
 * p. A name the table lacks is an error listing the table's names. */
se_status se_protocol_parse_table(const char *text, size_t len, const char *name,
                                  const se_strategy_table *table, se_protocol *p, se_err *err);

/* p's strategy table: the one it was parsed with (the compiled table for a
 * protocol that was never parsed). */
const se_strategy_table *se_protocol_table(const se_protocol *p);

/* Entry s of p's table (NULL out of range), its size, a name's index in
 * it (se_protocol_nstrategies(p) when unknown). */
const se_strategy_info *se_protocol_strategy(const se_protocol *p, int s);
int se_protocol_nstrategies(const se_protocol *p);
int se_protocol_find_strategy(const se_protocol *p, const char *name);
/* The entry of p's table named `name`, NULL when it has none (or name is NULL). */
const se_strategy_info *se_protocol_strategy_named(const se_protocol *p, const char *name);

/* Re-expresses p's strategy selection over table `to` (the compiled table,
 * for a command that runs a recorded run's strategies on the GPU: profile),
 * by name; a selected strategy `to` lacks fails (SE_ERR_USAGE), naming it.
 * On failure p is unchanged. */
se_status se_protocol_retable(se_protocol *p, const se_strategy_table *to, se_err *err);

/* Reads and parses a file. */
se_status se_protocol_load(const char *path, se_protocol *p, se_err *err);

/* Serializes p as protocol JSON (keys in a fixed order, 2-space indent,
 * trailing newline) into a new string (free() it). */
se_status se_protocol_write(const se_protocol *p, char **text, se_err *err);

/* The protocol's operation: workload.operation's entry of the workload
 * table, the table's first where it has none (a protocol built in code). */
const struct se_operation *se_protocol_operation(const se_protocol *p);

void se_protocol_free(se_protocol *p);

#ifdef __cplusplus
}
#endif

#endif
