/*
 * taskgraph_host.h - host-side views of the task graph in taskgraph.h:
 * each task's dependencies, a size check, and a simulation of the
 * megakernel's queue protocol used to test it without a GPU.
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

/* Checks that a problem's task graph fits the megakernel's int32 queue and
 * the phase kernels' grid; names the shape, the count and the limit. */
se_status se_taskgeom_check(const se_taskgeom *g, se_err *err);

/* Runs the megakernel's queue protocol on the host with `workers` simulated
 * blocks interleaved in a pseudo-random order drawn from seed: pop a slot,
 * wait until it is filled, run the task, bump the row counter, push the
 * released tasks. Fails with a message if a task runs before one of its
 * dependencies completed, runs twice or never, or if the workers deadlock.
 * If order is non-NULL it receives the task ids in completion order
 * (g->total entries). */
se_status se_taskgraph_simulate(const se_taskgeom *g, int workers, uint64_t seed,
                                int64_t *order, se_err *err);

#ifdef __cplusplus
}
#endif

#endif
