/*
 * strategy.h - the table of strategies: one line per strategy in
 * SE_STRATEGY_TABLE below is its host half (name, mechanism, launch, role,
 * cooperative grid, trace kind, colour, description). The enum, the help
 * text, the lists in error messages, the figures' colours, the report's and
 * the site's strategy tables, the validation rules (tiled identity,
 * cooperative grid) and the co-residency limits are all generated from it.
 * The GPU half (how an invocation is enqueued, which cooperative kernel
 * bounds the grid) is run/strategies.c, one line per strategy too
 * (docs/ADDING-A-STRATEGY.md).
 */
#ifndef SE_STRATEGY_H
#define SE_STRATEGY_H

#include "model/se_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a strategy is in the comparison. */
typedef enum se_role {
    SE_ROLE_TILED,     /* a tiled mechanism under test: bitwise identical to the others */
    SE_ROLE_CONTROL,   /* a control: not tiled, agrees within the tolerances */
    SE_ROLE_REFERENCE  /* a reference library: agrees within the tolerances */
} se_role;

/* How a strategy's dependency trace is checked (bundle/trace.c). */
typedef enum se_trace_kind {
    SE_TRACE_PHASED,  /* A..E tasks; dependencies and grid-wide phase barriers */
    SE_TRACE_TASKS,   /* A..E tasks; dependencies only (rows may pipeline) */
    SE_TRACE_ROWS,    /* one task per row, no dependencies */
    SE_TRACE_NONE     /* cannot be traced (a library's kernels) */
} se_trace_kind;

/*
 * X(ID, name, mechanism, launch, role, coop_group, init_control, trace kind, colour,
 *   description)
 *   ID          the enum constant's suffix: SE_S_<ID>
 *   name        as on the command line, in case ids and in results
 *   mechanism   what is compared: stream, graph, pdl, fusion, megakernel, ...
 *   launch      "stream" or "graph": how one invocation reaches the GPU
 *   role        SE_ROLE_TILED, SE_ROLE_CONTROL or SE_ROLE_REFERENCE
 *   coop_group  NULL, or the cooperative kernel whose co-residency limit
 *               bounds the grid (environment.json's
 *               cooperative_max_blocks_<coop_group>); strategies sharing a
 *               kernel share the group
 *   init_control NULL, or the name of the strategy's initialization timed on its
 *               own as a control on every shape ("megakernel_init": the
 *               megakernel's counter reset and grid barrier); its GPU line
 *               gives the enqueue function. One per run: the first selected
 *               strategy with one owns the case
 *   trace kind  se_trace_kind
 *   colour      in every figure
 *   description one line, for the help text, the report and the site
 * The order is the order of cases in a run and of every table; stream, the
 * baseline, comes first.
 */
#define SE_STRATEGY_TABLE(X)                                                                 \
    X(STREAM, "stream", "stream", "stream", SE_ROLE_TILED, NULL, NULL, SE_TRACE_PHASED,      \
      "#08519c", "an ordinary kernel launch a phase on a stream (five for the softmax, "     \
      "three for LayerNorm): the baseline")                                                   \
    X(GRAPH, "graph", "graph", "graph", SE_ROLE_TILED, NULL, NULL, SE_TRACE_PHASED, "#6baed6",\
      "the same launches, one a phase, captured into a CUDA graph and replayed")            \
    X(STREAM_PDL, "stream-pdl", "pdl", "stream", SE_ROLE_TILED, NULL, NULL, SE_TRACE_PHASED, \
      "#762a83", "the same launches with programmatic dependent launch: each phase may "     \
      "start while the one before it drains, and waits for its results")                     \
    X(GRAPH_PDL, "graph-pdl", "pdl", "graph", SE_ROLE_TILED, NULL, NULL, SE_TRACE_PHASED,    \
      "#de77ae", "the programmatic-dependent launches captured into a graph (programmatic "  \
      "edges) and replayed")                                                                 \
    X(FUSION, "fusion", "fusion", "stream", SE_ROLE_TILED, "fusion", NULL, SE_TRACE_PHASED,  \
      "#a63603", "one cooperative kernel with grid-wide barriers between the phases")        \
    X(FUSION_GRAPH, "fusion-graph", "fusion", "graph", SE_ROLE_TILED, "fusion", NULL,        \
      SE_TRACE_PHASED, "#fd8d3c", "the fused cooperative kernel as a graph node")            \
    SE_TEST_EXTRA_STRATEGY_LINE(X)                                                           \
    X(MEGAKERNEL, "megakernel", "megakernel", "stream", SE_ROLE_TILED, "megakernel",         \
      "megakernel_init", SE_TRACE_TASKS, "#006d2c",                                          \
      "a toy persistent kernel: blocks own units of rows on a static row-major schedule "    \
      "and per-row counters release each row's phases; its counter reset is inside every "   \
      "invocation")                                                                          \
    X(MEGAKERNEL_GRAPH, "megakernel-graph", "megakernel", "graph", SE_ROLE_TILED,            \
      "megakernel", "megakernel_init", SE_TRACE_TASKS, "#74c476",                            \
      "the toy megakernel as a graph node")                                                  \
    X(ROWBLOCK, "rowblock", "rowblock", "stream", SE_ROLE_CONTROL, NULL, NULL, SE_TRACE_ROWS,\
      "#8c8c00", "control, not tiled: each row read once by a thread, a block, a cluster or "\
      "the blocks of a cooperative grid")                                                    \
    X(CUDNN, "cudnn", "cudnn", "stream", SE_ROLE_REFERENCE, NULL, NULL, SE_TRACE_NONE,       \
      "#000000", "reference: cuDNN's softmax on the pre-scaled input")

/* A build for the test that renders committed runs with one strategy more
 * than they were made with (tests/CMakeLists.txt, SE_TEST_EXTRA_STRATEGY):
 * test-extra, a copy of fusion with a cooperative group of its own, in the
 * middle of the table (every later index moves); named so that it cannot
 * collide with a strategy someone adds. Never in a real build. */
#ifdef SE_TEST_EXTRA_STRATEGY
#define SE_TEST_EXTRA_STRATEGY_LINE(X)                                                        \
    X(TEST_EXTRA, "test-extra", "fusion", "stream", SE_ROLE_TILED, "test-extra", NULL,        \
      SE_TRACE_PHASED, "#ff00ff", "test only: a copy of fusion, to prove old runs render unchanged")
#else
#define SE_TEST_EXTRA_STRATEGY_LINE(X)
#endif

typedef enum se_strategy {
#define SE_STRATEGY_ENUM(id, ...) SE_S_##id,
    SE_STRATEGY_TABLE(SE_STRATEGY_ENUM)
#undef SE_STRATEGY_ENUM
    SE_NSTRATEGIES
} se_strategy;

typedef struct se_strategy_info {
    const char *name;        /* as on the command line and in results */
    const char *mechanism;   /* stream, graph, fusion, megakernel, rowblock, cudnn */
    const char *launch;      /* "stream" or "graph" */
    se_role role;
    int tiled;               /* role == SE_ROLE_TILED: bitwise identical outputs */
    int cooperative;         /* coop_group != NULL: launched cooperatively */
    const char *coop_group;  /* the cooperative kernel bounding the grid, or NULL */
    const char *init_control; /* its initialization's control case, or NULL */
    se_trace_kind trace;
    const char *colour;      /* "#rrggbb" */
    const char *description; /* one line */
} se_strategy_info;

/* The most strategies one table may hold: a protocol's selection is a bit
 * mask of an unsigned. A table that would hold more is refused when it is
 * read (bundle/describe.c) or does not compile (strategy.c). */
#define SE_STRATEGY_MAX 32

/*
 * A table of strategies: the one compiled into this binary, the frozen
 * "legacy v1" table of the runs made before runs recorded their own
 * (strategies.json), or the one a run recorded. Everything that renders or
 * verifies a run walks the run's table (se_protocol's `table`), never the
 * compiled one, so a run means the same whatever strategies today's binary
 * has. Indices into a table are its entries' positions; a protocol's
 * strategy mask is over the same positions.
 */
typedef struct se_strategy_table {
    const char *origin;          /* "compiled", "legacy v1" or "strategies.json" */
    int n;                       /* 1..SE_STRATEGY_MAX */
    const se_strategy_info *s;   /* n entries, in run order; the baseline first */
} se_strategy_table;

/* The baseline's index in every table: the first entry (stream), the one
 * every ratio is to. */
#define SE_STRATEGY_BASELINE 0

/* This binary's table (SE_STRATEGY_TABLE): what `run` measures and records. */
const se_strategy_table *se_strategy_compiled(void);

/* The table of every run made before strategies.json existed, frozen as it
 * was then (the same ten strategies, names, colours and descriptions). */
const se_strategy_table *se_strategy_legacy_v1(void);

/* Entry i of t, NULL when out of range. */
const se_strategy_info *se_stable_get(const se_strategy_table *t, int i);

/* Index of a name in t; t->n when unknown. */
int se_stable_find(const se_strategy_table *t, const char *name);

/* Index of the first entry of a mechanism ("megakernel"), or of a role;
 * t->n when there is none. */
int se_stable_first_mechanism(const se_strategy_table *t, const char *mechanism);
int se_stable_first_role(const se_strategy_table *t, se_role role);

/* 1 when `name` is the init_control of an entry of t. */
int se_stable_is_init_control(const se_strategy_table *t, const char *name);

/* The compiled table's entry; se_strategy_get(s) is
 * se_stable_get(se_strategy_compiled(), s). For the run layer and help text
 * only: what renders a run uses the run's table. */
const se_strategy_info *se_strategy_get(se_strategy s);

/* Looks a name up; returns SE_NSTRATEGIES if unknown. */
se_strategy se_strategy_find(const char *name);

/* "stream, graph, ..., cudnn": every name, for help text and errors. */
const char *se_strategy_names(void);

/* "tiled mechanism", "control", "reference". */
const char *se_role_name(se_role r);

/* The mask selecting every strategy of a table of n. */
unsigned se_strategy_all_mask(int n);

/* Parses "all" or a comma-separated list of names into a bit mask (bit i
 * for strategy i); names the unknown entry and lists the valid ones. */
se_status se_strategy_parse_list(const char *text, unsigned *mask, se_err *err);

#ifdef __cplusplus
}
#endif

#endif
