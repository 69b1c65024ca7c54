/*
 * strategy.h - the table of strategies and controls a run can execute, and
 * parsing of the --strategies list.
 */
#ifndef SE_STRATEGY_H
#define SE_STRATEGY_H

#include "model/se_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum se_strategy {
    SE_S_STREAM = 0,        /* five phase launches on a stream (the baseline) */
    SE_S_GRAPH,             /* the same five launches captured into a graph */
    SE_S_FUSION,            /* cooperative kernel, launched on a stream */
    SE_S_FUSION_GRAPH,      /* cooperative kernel as a graph node */
    SE_S_MEGAKERNEL,        /* persistent ready-task kernel, on a stream */
    SE_S_MEGAKERNEL_GRAPH,  /* persistent ready-task kernel as a graph node */
    SE_S_ROWBLOCK,          /* control: one block per row, not tiled */
    SE_S_CUDNN,             /* reference: cuDNN softmax on the pre-scaled input */
    SE_NSTRATEGIES
} se_strategy;

typedef struct se_strategy_info {
    const char *name;      /* as on the command line and in results */
    const char *mechanism; /* stream, graph, fusion, megakernel, rowblock, cudnn */
    const char *launch;    /* "stream" or "graph" */
    int tiled;             /* 1 for the four tiled strategies: bitwise identical outputs */
    int cooperative;       /* 1 when launched cooperatively (grid size limited) */
} se_strategy_info;

const se_strategy_info *se_strategy_get(se_strategy s);

/* Looks a name up; returns SE_NSTRATEGIES if unknown. */
se_strategy se_strategy_find(const char *name);

/* Parses "all" or a comma-separated list of names into a bit mask (bit i
 * for strategy i); names the unknown entry and lists the valid ones. */
se_status se_strategy_parse_list(const char *text, unsigned *mask, se_err *err);

#ifdef __cplusplus
}
#endif

#endif
