/*
 * trace.h - dependency traces: the records a traced run writes (one per
 * task: which task, which block and SM, %globaltimer start and end), their
 * file format, the checks that prove a strategy respected its dependencies,
 * the per-trace summary, and the export to Chrome trace-event JSON.
 */
#ifndef SE_TRACE_H
#define SE_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "model/protocol.h"
#include "model/strategy.h"
#include "model/se_common.h"
#include "model/taskgraph.h"
#include "bundle/samples.h"

#define SE_TRACE_HEADER "task,phase,row,tile,block,sm,start_ns,end_ns"

/* How a trace is checked. */
/* se_trace_kind is the strategy table's (model/strategy.h). */

/* SM ids at or above this are invalid records. */
#define SE_TRACE_MAX_SM 4096

typedef struct se_trace_task {
    int64_t task;
    int block, sm;
    uint64_t start_ns, end_ns;
    char col_phase[4];      /* as read from a file; empty for records built in memory */
    int64_t col_row, col_tile;
} se_trace_task;

typedef struct se_trace {
    se_trace_task *v;
    size_t n;
} se_trace;

/* The largest trace file read (256 MiB, checked from fstat before reading);
 * a run's largest are a few MB. */
#define SE_TRACE_MAX_BYTES ((uint64_t)256 << 20)

/* The most tasks such a file can record, in lines of at least 16 bytes
 * ("0,A,0,0,0,0,0,0\n"): a shape and tile that imply more cannot have a
 * complete trace, and se_trace_check refuses them before allocating. */
#define SE_TRACE_MAX_TASKS ((int64_t)(SE_TRACE_MAX_BYTES / 16))

/* environment.json's sm_count in dir, checked to be an integer from 1 to
 * SE_TRACE_MAX_SM; fails naming the file and field. */
se_status se_trace_env_sm_count(const char *dir, int *sm_count, se_err *err);

/* Counts the records of t on an SM id at or above sm_count (the GPU has no
 * such SM) into *n_bad, printing the first few on out as "  NAME: record on
 * an SM the GPU does not have: ...". */
void se_trace_check_sms(const se_trace *t, int sm_count, const char *name, FILE *out,
                        size_t *n_bad);

/* How strategy s of p's table is traced and checked (se_trace_kind); cuDNN
 * cannot be traced. Returns -1 for a strategy without a trace. */
int se_trace_kind_of(const se_protocol *p, int strategy);

/* 1 when a run of protocol p traces strategy s: the protocol selects it and
 * takes traces ("traces": false leaves them all out), and it can be traced. */
int se_traced(const se_protocol *p, int s);

/* The most (row, tile) pairs, rows x ceil(cols / tile), of a shape that is
 * traced: 2^18. Its trace file stays far below SE_TRACE_MAX_BYTES with any
 * task graph (8388608x1 would write 581 MB, measured on the H200); a larger
 * shape is timed and validated, not traced. Independent of the task graph's
 * version, so a run and a later verify agree on it. */
#define SE_TRACE_MAX_ROW_TILES ((int64_t)1 << 18)

/* 1 when a run of protocol p traces strategy s on shape sh: se_traced, and
 * the shape within SE_TRACE_MAX_ROW_TILES. */
int se_traced_case(const se_protocol *p, int s, const se_shape *sh);

/* 1 when shape sh is too large to trace under protocol p's tile. */
int se_trace_too_large(const se_protocol *p, const se_shape *sh);

/* "A(3,17)", "B(3)", "A(220..329)" and "B(220..329)" for a packed group
 * (its rows, first..last), or "row(3)" for rowblock. */
void se_trace_task_name(const se_taskgeom *g, se_trace_kind kind, int64_t task, char *buf,
                        size_t size);

/* Writes records as CSV, in the order they were recorded. */
se_status se_trace_write(FILE *f, const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                         se_err *err);

/* Reads a trace file; `name` prefixes messages, which give the line. */
se_status se_trace_read(FILE *f, const char *name, se_trace *t, se_err *err);

void se_trace_free(se_trace *t);

/* Checks coverage (every expected task exactly once), ordering (every
 * dependency edge: consumer start >= producer end; for SE_TRACE_PHASED also
 * no task of a phase starts before every task of the previous phase ended)
 * and summarizes (phase spans, tasks per SM, idle time between tasks per
 * SM, and the share of later-phase work done while the previous phase was
 * still running somewhere). Returns the report as JSON; *ok is 1 when
 * nothing is missing, duplicated or out of order. Problems are also listed
 * on out (if not NULL), prefixed with `name`. */
se_status se_trace_check(const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                         const char *name, FILE *out, json_t **report, int *ok, se_err *err);

/* Chrome trace-event JSON (Perfetto, chrome://tracing). One track group
 * (process) per SM, "<title>: SM s"; in it one track (thread) per block
 * slot, "SM s, block slot k". A block's stay on its SM (its records, of one
 * phase in a phased trace, where phases are separate launches or fenced by
 * grid barriers; all of them otherwise) runs from its first start to its
 * last end; per SM, in order of arrival, each block takes the lowest slot
 * free at its start, so an SM has as many slots as it held blocks at once
 * and the slices of a slot never overlap (Perfetto's rule: slices on a
 * track nest or are disjoint). One complete event ("ph":"X") per record
 * named by phase, row and tile, with what the phase computes, block, SM,
 * task and the raw times in its args; ts and dur in microseconds from the trace's first
 * start, exact to the nanosecond when written with JSON_REAL_PRECISION(15).
 * Each dependency edge of the task graph (the ones se_trace_check tests)
 * is a flow arrow: "s" in the producer's slice, "f" (bound to the
 * enclosing slice) in the consumer's, both at their slices' middles. */
se_status se_trace_chrome(const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                          const char *title, json_t **out, se_err *err);

/* What a se_trace_chrome document holds, for the command's summary line:
 * its block-slot tracks (thread_name metadata), SM groups (process_name)
 * and dependency arrows (flow starts, "ph":"s"). */
void se_trace_chrome_counts(const json_t *chrome, size_t *tracks, size_t *groups,
                            size_t *arrows);

#endif

/* The traces of a run directory: every traced (shape, strategy) of the
 * protocol, read from traces/<case>.csv and checked against the task graph
 * of version task_graph (run.json's, se_run_task_graph), with the tracing cost
 * from traces/<case>.untraced.csv and .traced.csv, the traced run's output
 * hash from traces/outputs.csv, and the %globaltimer resolution from
 * environment.json. The run writes traces.json with this; verify recomputes
 * it. *failures counts traces that fail their checks (each is also listed on
 * out). Missing files are errors naming them. */
se_status se_traces_report(const se_protocol *p, const char *dir, int task_graph, FILE *out,
                           json_t **report, size_t *failures, se_err *err);

#define SE_TRACES_FORMAT "softmax-evidence-traces"

/* One traced case of a run directory: its entry of traces.json "traces"
 * and of "tracing_cost"; *ok as se_trace_check. Fails naming a missing or
 * malformed file. */
se_status se_trace_case_report(const se_protocol *p, const char *dir, int task_graph,
                               const se_shape *sh, int strategy, FILE *out, json_t **entry,
                               json_t **cost, int *ok, se_err *err);

/* The "overlap" item that traces.json lists for an entry. */
json_t *se_trace_overlap_item(const json_t *entry);

/* environment.json's %globaltimer smallest step, 0 if absent. */
double se_trace_timer_resolution(const char *dir);
