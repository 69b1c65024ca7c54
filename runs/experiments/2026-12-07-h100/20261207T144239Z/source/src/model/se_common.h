/*
 * se_common.h - status codes and the error record shared by every module.
 *
 * Library code never exits: each fallible function returns an se_status and,
 * on failure, fills an se_err with one human-readable line that names the
 * file, field, argument or CUDA call at fault. Only main() turns a status into
 * an exit code (see se_exit_code).
 */
#ifndef SE_COMMON_H
#define SE_COMMON_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum se_status {
    SE_OK = 0,
    SE_ERR_USAGE,      /* bad argument or value given by the user */
    SE_ERR_LIMIT,      /* valid request that exceeds a device or host limit */
    SE_ERR_NO_DEVICE,  /* no usable CUDA device */
    SE_ERR_CUDA,       /* a CUDA, cuRAND or cuDNN call failed */
    SE_ERR_IO,         /* a file could not be read or written */
    SE_ERR_NOMEM,      /* host allocation failed */
    SE_ERR_VALIDATION, /* a strategy produced a wrong result, or a run does not verify */
    SE_ERR_SLOWER,     /* compare --fail-if-slower: a case got slower than the gate */
    SE_ERR_NO_TOOL     /* a program the command runs is missing (profile: ncu) */
} se_status;

typedef struct se_err {
    char msg[1024];
} se_err;

/* Formats msg into err (if err is non-NULL) and returns status. */
se_status se_fail(se_err *err, se_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Exit code for a status: 0 ok, 1 validation or verification failed, 2
 * usage, 3 limit, 4 CUDA error, 5 I/O or memory, 6 no device, 7 a case
 * slower than compare's --fail-if-slower gate. The same in every
 * subcommand; docs/CLI.md has the table. */
int se_exit_code(se_status status);

/* Human name of a status, e.g. "usage error". */
const char *se_status_name(se_status status);

#ifdef __cplusplus
}
#endif

#endif
