/*
 * taskgraph_host.h - host-side views of the task graph in taskgraph.h:
 * each task's dependencies, a size check, and a simulation of the
 * megakernel's static schedule used to test it without a GPU.
 */
#ifndef SE_TASKGRAPH_HOST_H
#define SE_TASKGRAPH_HOST_H

#include "model/se_common.h"
#include "model/taskgraph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of tasks that task id depends on. */
int64_t se_task_dep_count(const se_taskgeom *g, int64_t id);

/* The k-th dependency (0 <= k < se_task_dep_count) of task id. */
int64_t se_task_dep(const se_taskgeom *g, int64_t id, int64_t k);

/* Checks that a problem's task ids fit in 32 bits (SE_MAX_TASKS: the
 * megakernel's schedule and the trace records); names the shape, the count
 * and the limit. */
se_status se_taskgeom_check(const se_taskgeom *g, se_err *err);

/* Runs the megakernel's static schedule (se_mk_visit_at in taskgraph.h) on the
 * host, over the graph's groups: `blocks` simulated blocks whose shared
 * memory holds k tiles each, each taking its visits as the kernel does (A
 * and the arrival, the wait for B, C and the arrival, the wait for D, E),
 * interleaved in a pseudo-random order drawn from seed, with the kernel's
 * per-group counters. Fails with a message if a task runs before one of
 * its dependencies, runs twice or never, is not in the graph, if a group's
 * counter passes its tiles, or if the blocks deadlock. If
 * order is non-NULL it receives the task ids in completion order
 * (g->total entries). */
se_status se_mk_simulate(const se_taskgeom *g, int k, int blocks, uint64_t seed, int64_t *order,
                         se_err *err);

/* The schedule se_mk_simulate runs: the kernel's, or a broken one that the
 * tests use to show the simulation fails: each unit visited on its own
 * (a block that owns two units of a group waits for itself), or units
 * counted over rows instead of groups (the schedule before packing, on a
 * packed graph: it visits groups and tasks the graph does not have). */
typedef enum se_mk_sim_variant {
    SE_MK_SIM_KERNEL = 0,
    SE_MK_SIM_SEPARATE_VISITS,
    SE_MK_SIM_ROWS,
} se_mk_sim_variant;

se_status se_mk_simulate_variant(const se_taskgeom *g, int k, int blocks, uint64_t seed,
                                 se_mk_sim_variant variant, int64_t *order, se_err *err);

#ifdef __cplusplus
}
#endif

#endif
