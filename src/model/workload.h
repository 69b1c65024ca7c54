/*
 * workload.h - the RMS-scaled softmax problem: shapes, their parsing and
 * limits, and the memory a case needs, all checked before any GPU work.
 */
#ifndef SE_WORKLOAD_H
#define SE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "model/se_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows and columns are each at most this: cuDNN's tensor dimensions and the
 * kernels' per-row column indices are 32-bit. */
#define SE_MAX_DIM INT32_MAX

/* Most elements one case may have, so that every byte count fits in 64 bits
 * with room to spare (16 bytes per element are counted on the host). */
#define SE_MAX_ELEMENTS (INT64_C(1) << 40)

typedef struct se_shape {
    int64_t rows;
    int64_t cols;
    char spec[48]; /* as written, e.g. "5xT+1" */
} se_shape;

/* Parses a signed integer in [min, max]; `what` names the argument or field
 * in the message. Rejects empty text, trailing characters and overflow. */
se_status se_parse_i64(const char *text, int64_t min, int64_t max, const char *what,
                       int64_t *out, se_err *err);

/* Parses a finite double in [min, max], same rules as se_parse_i64. */
se_status se_parse_f64(const char *text, double min, double max, const char *what,
                       double *out, se_err *err);

/* Parses "RxC" where C may also be "T", "T+k" or "T-k" with T the tile size.
 * Checks 1 <= R, C <= SE_MAX_DIM and R*C <= SE_MAX_ELEMENTS. */
se_status se_parse_shape(const char *text, int64_t tile, se_shape *out, se_err *err);

/* Parses a comma-separated list of shapes into a new array (free() it). */
se_status se_parse_shape_list(const char *text, int64_t tile, se_shape **out, size_t *count,
                              se_err *err);

/* Device bytes one case needs: x, y, the pre-scaled copy for cuDNN, the
 * per-tile partials, the per-row statistics and the megakernel's counters
 * (the partials and statistics of the workload that needs more of them:
 * LayerNorm's float64 partials, 16 bytes a piece). */
uint64_t se_case_device_bytes(const se_shape *s, int64_t tile);

/* Host bytes one case needs for validation: x, the float64 reference, one
 * output copy and the cuDNN output copy. */
uint64_t se_case_host_bytes(const se_shape *s);

/* Checks every limit of one case that is known without a GPU: task count,
 * grid size. */
se_status se_case_check(const se_shape *s, int64_t tile, se_err *err);

#ifdef __cplusplus
}
#endif

#endif
