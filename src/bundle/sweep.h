/*
 * sweep.h - a run read along its row lengths (docs/PERFORMANCE.md, "The
 * sweep's goals"; docs/FIGURES.md, fig8): every shape's items (strategies
 * and validated PyTorch peers) with their medians and fractions of the
 * same-run copy, L2 warm and flushed; the shapes' groups (input-size
 * families and launch-bound shapes of one row count); and, computed once
 * here for the goals command, the report and the figure, issue 30's goals
 * G1 to G5 per shape and the five-phase bound of the tiled algorithm from
 * the run's own controls. Read from summary.json, validation.json and
 * peers.json through rundata; nothing here is recorded in the run.
 */
#ifndef SE_BUNDLE_SWEEP_H
#define SE_BUNDLE_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "model/se_common.h"
#include "model/strategy.h"

/* Decimal megabytes: the goals' thresholds are of bytes moved (x read once,
 * y written once), and a shape of the sweep's "32 MB" family moves about
 * 67.1e6 bytes, a few bytes under 64 MiB. */
#define SE_SWEEP_MB 1e6
/* A shape that moves less than this is launch-bound: grouped by its row
 * count, not by its size. */
#define SE_SWEEP_LAUNCH_BOUND (1 * SE_SWEEP_MB)
/* A family takes the shapes whose input is at most this many times its
 * smallest member's. */
#define SE_SWEEP_FAMILY_SPAN 4.0
/* A group is drawn (fig8) with at least this many distinct row lengths. */
#define SE_SWEEP_MIN_LENGTHS 4
#define SE_SWEEP_MAX_ITEMS 24

enum { SE_WARM = 0, SE_COLD = 1 }; /* scopes device and device_cold */

typedef struct se_sweep_item {
    const char *name;  /* strategy or peer name, owned by the run's JSON */
    int peer;          /* a PyTorch peer of peers.json (timed L2 warm only) */
    int strategy;      /* index in the run's table (se_sweep's `table`); -1 for a peer */
    const se_strategy_info *info; /* that entry, NULL for a peer */
    int validated;     /* validation.json's pass; a peer's status "ok" */
    double median[2];  /* ns, NAN where the run has none */
    double fraction[2]; /* median(copy) / median, same shape and scope; NAN where none */
} se_sweep_item;

typedef struct se_sweep_shape {
    const se_shape *shape;
    char id[SE_CASE_ID_SIZE];
    double input, moved; /* bytes: 4 and 8 per element */
    double copy[2];      /* the copy control's medians, ns, NAN where none */
    double mk_init;      /* the megakernel's initialization alone, device median, NAN */
    se_sweep_item items[SE_SWEEP_MAX_ITEMS];
    size_t n_items;
    size_t group;
} se_sweep_shape;

typedef struct se_sweep_group {
    int launch_bound;  /* shapes moving < SE_SWEEP_LAUNCH_BOUND, of one row count */
    int64_t rows;      /* launch-bound groups: the row count */
    double lo, hi;     /* smallest and largest input, bytes */
    size_t *members;   /* indexes into shapes, by row length then rows */
    size_t n;
    size_t n_lengths;  /* distinct row lengths */
    char label[160];   /* "input 33.2 MB to 67.1 MB", "launch-bound, 1 row" */
} se_sweep_group;

typedef struct se_sweep {
    const se_strategy_table *table; /* the run's strategies (se_rundata_table) */
    se_sweep_shape *shapes; /* protocol order */
    size_t n_shapes;
    se_sweep_group *groups; /* families by size, then launch-bound groups by rows */
    size_t n_groups;
    const char *names[SE_SWEEP_MAX_ITEMS]; /* every item name: strategies, then peers */
    int name_is_peer[SE_SWEEP_MAX_ITEMS];
    size_t n_names;
    /* Controls (device medians, ns; NAN where the run has none). */
    double empty_stream, coop_noop, grid_barrier;
    int64_t tile; /* the run's tile T (G5 pairs rows of as many tiles) */
    /* The run's workload's phases (se_rundata_operation: 5 for the
     * RMS-scaled softmax, 3 for LayerNorm): the bound charges the phase
     * launches and the grid barriers between them. */
    int phases;
} se_sweep;

/* Reads rd's shapes, items, groups and controls. Free with se_sweep_free
 * (also on failure). */
se_status se_sweep_read(const se_rundata *rd, se_sweep *s, se_err *err);
void se_sweep_free(se_sweep *s);

/* "8 B", "98.3 kB", "134 MB", "2.15 GB": decimal units, three digits. */
void se_sweep_bytes_text(char *buf, size_t size, double bytes);

/* The item `name` of a shape, or NULL. */
const se_sweep_item *se_sweep_item_of(const se_sweep_shape *sh, const char *name);

/* ---- the goals (issue 30) ---------------------------------------------- */

#define SE_GOAL_G1_MOVED (64 * SE_SWEEP_MB)
#define SE_GOAL_G1_WARM 0.90
#define SE_GOAL_G1_COLD 0.80
#define SE_GOAL_G2_MOVED (1 * SE_SWEEP_MB)
#define SE_GOAL_G3_ROWS 8
#define SE_GOAL_G3_GAP_NS 200.0
#define SE_GOAL_G4_MOVED (64 * SE_SWEEP_MB)
#define SE_GOAL_G4_FRACTION 0.40
#define SE_GOAL_G5_SLOWER 1.05
/* G5's aligned neighbour is at most this factor away in row length. */
#define SE_GOAL_G5_NEAR 1.25

enum { SE_GOAL_NA = -1, SE_GOAL_NOT_MET = 0, SE_GOAL_MET = 1 };

/* The floors of the five-phase algorithm (docs/PERFORMANCE.md). */
enum { SE_FLOOR_LAUNCHES, SE_FLOOR_FUSION, SE_FLOOR_MEGAKERNEL, SE_NFLOORS };

typedef struct se_goal_row {
    size_t shape;
    const se_sweep_item *fastest[2]; /* our fastest validated, not a reference, per scope */
    const se_sweep_item *best_peer;  /* the fastest validated peer or cuDNN, L2 warm */
    const se_sweep_item *best_tiled; /* the fastest validated tiled strategy, L2 warm */
    int g[4];                        /* G1..G4: SE_GOAL_* */
    double gap_ns;                   /* ours (warm) minus copy (warm) */
    double floor[SE_NFLOORS];        /* ns, NAN where a control is missing */
} se_goal_row;

typedef struct se_goal_pair {
    size_t unaligned, aligned;           /* shapes */
    double ratio[SE_STRATEGY_MAX];       /* per entry of the run's table: time per element,
                                            unaligned / aligned; NAN: absent */
    int met;                             /* no tiled strategy above SE_GOAL_G5_SLOWER */
} se_goal_pair;

typedef struct se_goals {
    se_goal_row *rows;   /* one per shape, protocol order */
    size_t n_rows;
    se_goal_pair *pairs; /* one per unaligned shape with an aligned neighbour */
    size_t n_pairs;
    size_t n_unpaired;   /* unaligned shapes without one */
    size_t met[5], of[5];/* G1..G5: shapes (G5: pairs) meeting it, of those it applies to */
} se_goals;

/* A tiled strategy's floor (SE_FLOOR_*): by its mechanism. */
int se_goal_floor_of(const se_strategy_info *s);

/* Computes the goals and the floors from s. Free with se_goals_free. */
se_status se_goals_compute(const se_sweep *s, se_goals *g, se_err *err);
void se_goals_free(se_goals *g);

#endif
