/*
 * rederive.h - what a reader needs to re-check every case's output on a
 * CPU, within a bounded size (docs/VALIDATION.md, "Re-deriving on a CPU").
 *
 * Per shape a plan, computed from the shape and the input seed alone (so a
 * run and verify agree without storing it):
 * - short rows (cols <= SE_CHECK_SHORT_COLS): whole rows, at most
 *   SE_CHECK_ROW_VALUES values; the run stores those rows of the input
 *   (checks/<shape>.x.f32) and of each strategy's output
 *   (checks/<case>.y.f32);
 * - long rows: up to SE_CHECK_LONG_ROWS rows and SE_CHECK_POS_VALUES
 *   positions in them; the run stores the output at those positions only,
 *   and the input rows are regenerated on the host from the recorded
 *   generator, seed and offsets (cuRAND's host generator, bit-identical to
 *   the device's: tests/gpu, scripts/gpu-check-rederive.sh).
 * verify regenerates every sampled input row, compares the stored input
 * rows with it bit for bit, computes the float64 reference of each row
 * (model/reference.c) and checks each stored output value within the
 * protocol's tolerances.
 */
#ifndef SE_BUNDLE_REDERIVE_H
#define SE_BUNDLE_REDERIVE_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/remote.h"
#include "model/operation.h"
#include "model/protocol.h"
#include "model/se_common.h"

/* How far a stored input value may be from cuRAND's host generator's, as a
 * fraction of the input's scale: the host generator is not the device's to
 * the bit (measured on the H200: docs/VALIDATION.md). */
#define SE_CHECK_INPUT_TOL 1e-2
#define SE_CHECK_SHORT_COLS 4096
#define SE_CHECK_ROW_VALUES 16384 /* 64 KB of float32 per output */
#define SE_CHECK_LONG_ROWS 3
#define SE_CHECK_POS_VALUES 4096  /* 16 KB of float32 per output */
/* The longest row verify regenerates (a float and a double per column):
 * a run folder is untrusted, and its protocol may name rows of 2^31. */
#define SE_CHECK_MAX_ROW_COLS (INT64_C(1) << 27)

typedef struct se_check_plan {
    int64_t rows, cols;
    int whole_rows;    /* 1: short rows, stored whole; 0: positions */
    size_t n_rows;     /* sampled rows, ascending */
    int64_t *row;
    size_t n_pos;      /* positions (whole_rows = 0): row-major order, ascending */
    int64_t *pos;      /* flat element indices row * cols + col */
    size_t n_values;   /* output values stored: n_rows * cols, or n_pos */
} se_check_plan;

/* The plan of a shape. Short rows: row 1 (the spike row), row 0, the last
 * row, then rows j * rows / m for j = 1, 2, ... (m = the number of rows
 * that fit), each once, until m; sorted. Long rows: rows 1, 0 and the last
 * (those that exist, at most SE_CHECK_LONG_ROWS); in each, the columns of
 * its four outliers, column 0, the last column, then j * cols / q for j =
 * 1, 2, ... (q = SE_CHECK_POS_VALUES / rows sampled), each once, until q or
 * the row has no more; sorted. */
se_status se_check_plan_make(int64_t rows, int64_t cols, uint64_t seed, se_check_plan *p,
                             se_err *err);
void se_check_plan_free(se_check_plan *p);

/* The plan's values of a full rows x cols array: the sampled rows one after
 * another (whole rows), or the values at the positions. out holds n_values
 * floats. */
void se_check_extract(const se_check_plan *p, const float *full, float *out);

/* One input row as the run generates it (run/inputs.c): cuRAND's
 * CURAND_RNG_PSEUDO_PHILOX4_32_10, seeded with seed, normal(0, scale),
 * from offset row * cols, then the row's outliers (model/outliers.h) set to
 * (float)scale * factor. out has room for cols + 1 floats. Uses cuRAND's
 * host generator (curandCreateGeneratorHost), no GPU. */
se_status se_check_generate_row(uint64_t seed, double scale, int64_t row, int64_t cols,
                                float *out, se_err *err);

typedef struct se_rederive_counts {
    size_t shapes, cases;     /* shapes and (strategy, shape) cases of the protocol */
    size_t cases_rederived;   /* whose stored output was re-checked */
    size_t cases_remote;      /* whose checks/ files are remote-only (remote.json): not here */
    size_t rows_regenerated;  /* input rows regenerated on the host */
    size_t values_checked;    /* output values checked against the reference */
    size_t values_failed;     /* of them, outside the tolerance */
    size_t problems;
} se_rederive_counts;

typedef void (*se_rederive_problem_fn)(void *ctx, const char *message);

/* Re-derives every (strategy, shape) case of protocol p in the run folder
 * dir from its checks/ files: regenerates the input rows, compares the
 * stored input rows, computes the reference, checks the stored outputs.
 * Each problem (a missing or wrong-sized file, an input row that is not the
 * generator's, an output value outside the tolerance, naming the case, row
 * and column) goes to problem(ctx, message) and is counted. A shape whose
 * checks/ files remote (the run's remote.json, NULL for none) lists as
 * remote-only is not re-derived here: its cases count in cases_remote
 * (a selected bundle may leave them in its archive, docs/ARCHIVE.md; the
 * archive's hashes bind them). Returns an error only when it cannot work
 * at all (memory, the generator). op is the run's workload (NULL: the
 * workload table's first). */
se_status se_rederive_dir(const char *dir, const se_protocol *p, const se_operation *op,
                          const se_remote *remote, se_rederive_counts *counts,
                          se_rederive_problem_fn problem, void *ctx, se_err *err);

#endif
