/*
 * answer.h - the answer the project exists to give, as numbers: per shape
 * and tiled mechanism, the device-time ratio to stream with its within-run
 * 95% interval (from summary.json), and, over several runs of the same
 * protocol, the range of that ratio between runs. Also the head-to-head
 * comparisons a reader asks next (graph-pdl against graph, the megakernel
 * against graph-pdl), as paired ratios of medians with bootstrap intervals
 * from the raw samples, and the megakernel's initialization alone.
 * Renderers only format it (render/answer_text.c).
 */
#ifndef SE_BUNDLE_ANSWER_H
#define SE_BUNDLE_ANSWER_H

#include <stddef.h>

#include "bundle/rundata.h"
#include "model/se_common.h"
#include "model/strategy.h"

/* One ratio. With one run: that run's ratio of medians and its within-run
 * 95% interval. With several: the median of the per-run ratios and the
 * 95% interval of one more run's ratio (the two-level bootstrap's,
 * se_ratio_two_level, widened to the run-level prediction interval,
 * se_run_prediction; docs/TIMING.md), so a verdict ("faster": hi < 1)
 * carries the spread between runs. Either way, the range of the per-run ratios. */
typedef struct se_answer_ratio {
    int present;            /* 0 where the first run lacks the case */
    double ratio, lo, hi;   /* the ratio and its 95% interval (see above) */
    int n_runs;             /* runs that have it */
    double run_min, run_max;/* the per-run ratio over those runs */
    int held_out, covered;  /* leave one run out: held-out runs checked, and inside */
} se_answer_ratio;

/* Leave one run out (several runs only): for each run h, the interval
 * computed the same way from the other runs, and whether run h's own ratio
 * lies inside it; counted per shape over every ratio of the answer (each
 * mechanism over stream and each head-to-head) and overall. */
typedef struct se_answer_calibration {
    int checked, covered;
} se_answer_calibration;

/* The head-to-head comparisons, per shape. */
enum { SE_VS_PDL_GRAPH, SE_VS_MEGAKERNEL_PDL, SE_NVS };

/* Context, not the answer (from summary.json's derived results of the first
 * run): per shape, our fastest validated strategy of any kind (rowblock, a
 * control, included) and the best peer (cuDNN or a PyTorch peer). */
typedef struct se_answer_context {
    char fastest[40];      /* "" where none */
    double fastest_ns, fastest_of_copy;
    char peer[40];         /* "" where the run has no peer that passed */
    double peer_ns, vs_peer; /* peer's median / ours: above 1, ours is faster */
} se_answer_context;

typedef struct se_answer {
    const struct se_operation *op; /* the first run's workload (se_rundata_operation): a
                                      workload other than the softmax gets its own
                                      section (render/answer_text.c) */
    size_t n_runs;
    char run_ids[8][64];        /* the first few runs' ids, for captions */
    size_t n_shapes;
    char (*shape)[40];          /* the first run's shapes, in protocol order */
    const se_strategy_table *table; /* the first run's strategies (se_rundata_table) */
    int n_mech;
    int mech[SE_STRATEGY_MAX];  /* indices in `table`: tiled strategies other than the
                                   baseline (stream), table order */
    se_answer_ratio *cell;      /* [shape * n_mech + m] */
    se_answer_ratio *vs;        /* [shape * SE_NVS + k]: a / b, paired by round */
    double *mk_init_ns;         /* per shape: the first run's megakernel_init median, or 0 */
    double mk_init_min_ns, mk_init_max_ns;
    se_answer_context *context; /* per shape */
    int multi;                  /* n_runs > 1: ratios and intervals over the runs */
    char first_start[24], last_end[24]; /* earliest started_utc, latest finished_utc */
    double span_s;              /* seconds between them */
    se_answer_calibration *calib; /* per shape (several runs) */
    se_answer_calibration calib_all;
    se_rundata *own_runs;       /* runs loaded for this answer alone (se_answer_of_run over a
                                   set), kept until se_answer_free: `table` and the
                                   strategies' names point into the first one's protocol */
    size_t n_own_runs;
} se_answer;

/* The name of a->mech[m], and of the baseline every ratio is to. */
const char *se_answer_mech_name(const se_answer *a, int m);
const char *se_answer_baseline(const se_answer *a);

/* What SE_VS_* compares: "graph-pdl" over "graph", ... */
void se_answer_vs_names(int k, const char **a, const char **b);

/* Builds the answer from runs[0] (the reference: context, captions, the
 * protocol's bootstrap seed and resamples) and the other runs, which must
 * share its protocol's shapes and strategies (checked: a run of another
 * protocol is refused, naming it). Each run must have been verified. With
 * several runs every ratio and interval is over the runs in the order
 * given (the answer's interval above), seed se_summary_seed(runs[0] protocol,
 * "runs:<a case>/<b case>/device"), and the leave-one-out calibration is
 * measured. */
se_status se_answer_build(const se_rundata *runs, size_t n_runs, se_answer *a, se_err *err);

void se_answer_free(se_answer *a);

#endif
