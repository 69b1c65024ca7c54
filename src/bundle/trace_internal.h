/*
 * trace_internal.h - private to trace.c and trace_check.c: what the trace
 * format, its Chrome export and its checks share. Not part of the bundle's interface (trace.h is).
 */
#ifndef SE_TRACE_INTERNAL_H
#define SE_TRACE_INTERNAL_H

#include "model/taskgraph.h"

/* The letters of the phases A..E, in task names and records. */
extern const char se_trace_phase_letter[SE_NPHASES];

/* qsort's comparison of uint64_t values, ascending (trace_check.c). */
int se_trace_cmp_u64(const void *a, const void *b);

#endif
