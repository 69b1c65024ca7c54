/*
 * samples.h - the cases a run times, named the same way by the run that
 * writes them and by verify that reads them back, and the raw samples files
 * (CSV, one per case, every sample, lossless: %.17g round-trips a double).
 */
#ifndef SE_SAMPLES_H
#define SE_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/protocol.h"
#include "model/se_common.h"

typedef enum se_scope {
    SE_SCOPE_DEVICE = 0,  /* events around one instance, L2 warm */
    SE_SCOPE_DEVICE_COLD, /* the same after flushing L2 */
    SE_SCOPE_BATCH,       /* events around `batch` instances, divided by batch */
    SE_SCOPE_HOST,        /* wall clock, first launch call to stream synchronize */
    SE_NSCOPES
} se_scope;

const char *se_scope_name(se_scope s);
/* "warm", "flushed" or "warm" (batch and host run after other work, L2 not flushed). */
const char *se_scope_l2(se_scope s);

typedef struct se_sample {
    int64_t seq;    /* order of the sample in the whole run */
    int round;      /* sample index within its scope */
    int position;   /* place in the round's interleaving order */
    double ns;      /* time per instance, nanoseconds */
    double sm_mhz;  /* SM clock read just before the sample */
    int throttled;  /* sm_mhz below the protocol's fraction of the peak clock */
} se_sample;

typedef struct se_sample_set {
    se_sample *v;
    size_t n, cap;
} se_sample_set;

void se_sample_set_free(se_sample_set *s);

/* Appends one sample, growing the set. */
se_status se_sample_set_push(se_sample_set *s, const se_sample *x, se_err *err);

/* Run-level controls: empty_stream, empty_graph, coop_noop, barriers. */
#define SE_NCONTROLS 4

/* The largest samples file read (64 MiB, checked from fstat before
 * reading): a run's are a few kB. */
#define SE_SAMPLES_MAX_BYTES ((uint64_t)64 << 20)

#define SE_SAMPLES_HEADER "seq,round,position,scope,l2,ns,sm_mhz,throttled"

/* Per-shape cases that are not a strategy: the copy of the case's bytes,
 * and a strategy's initialization alone (its table entry's init_control:
 * the megakernel's, when a megakernel strategy is selected). Run-level
 * controls have SE_CASE_COPY too, and no shape. */
#define SE_CASE_COPY (-1)
#define SE_CASE_MK_INIT (-2)
#define SE_MK_INIT_NAME "megakernel_init"

/* The strategy whose init_control every shape times (SE_CASE_MK_INIT, named
 * by its init_control): the first selected strategy of p's table with one
 * (megakernel or megakernel-graph); -1 when none is selected. */
int se_init_control_of(const se_protocol *p);

/* One timed case of a run: a strategy or the copy control on a shape, or a
 * run-level control (shape NULL). */
typedef struct se_case_id {
    char id[96];            /* "32x4096.stream", "32x4096.copy", "control.barriers" */
    const se_shape *shape;  /* NULL for run-level controls */
    const char *what;       /* strategy name, "copy", or control name */
    int strategy;           /* index in the protocol's table, SE_CASE_COPY or SE_CASE_MK_INIT */
    int n_scopes;           /* SE_NSCOPES, or 1 for run-level controls (device only) */
} se_case_id;

/* The timed cases of a protocol, in the run's order: per shape, each
 * selected strategy in the table's order, then "copy"; then the four
 * controls. Returns a new array (free() it). */
se_status se_case_list(const se_protocol *p, se_case_id **out, size_t *n, se_err *err);

/* Relative path of a case's samples file: "samples/<id>.csv". */
void se_samples_path(const se_case_id *c, char *path, size_t size);

/* Writes every scope's samples of a case as CSV. */
se_status se_samples_write(FILE *f, const se_sample_set *scopes, int n_scopes, se_err *err);

/* The longest time per instance a sample may hold: 1e12 ns, 1000 s (the
 * committed runs' longest is under 0.01 s). */
#define SE_SAMPLE_MAX_NS 1e12

/* Reads a samples file back into n_scopes sets (free each with
 * se_sample_set_free); `name` prefixes messages, which give the line. A
 * time that cannot be measured is refused, naming the file, line and
 * field: ns must be finite, above 0 and at most SE_SAMPLE_MAX_NS; sm_mhz
 * finite and not negative. */
se_status se_samples_read(FILE *f, const char *name, se_sample_set *scopes, int n_scopes,
                          se_err *err);

/* se_samples_read without the plausibility of times: only for the tests'
 * tool that doctors a run (tests/fuzz/minirun_resummarize.c), so that the
 * hostile runs it writes have summaries that agree with impossible
 * samples, which verify must then refuse. */
se_status se_samples_read_unchecked(FILE *f, const char *name, se_sample_set *scopes,
                                    int n_scopes, se_err *err);

/* Reads the samples file dir/rel (se_samples_read, messages prefixed with
 * rel); a file that cannot be opened, is not a regular file below dir
 * (se_open_below) or is over SE_SAMPLES_MAX_BYTES is refused, naming rel. */
se_status se_samples_load(const char *dir, const char *rel, se_sample_set *scopes, int n_scopes,
                          se_err *err);

#endif
