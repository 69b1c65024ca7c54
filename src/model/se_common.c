/*
 * se_common.c - the error record and the status-to-exit-code mapping.
 */
#include "model/se_common.h"

#include <stdarg.h>
#include <stdio.h>

se_status se_fail(se_err *err, se_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}

int se_exit_code(se_status status)
{
    switch (status) {
    case SE_OK: return 0;
    case SE_ERR_VALIDATION: return 1;
    case SE_ERR_USAGE: return 2;
    case SE_ERR_LIMIT: return 3;
    case SE_ERR_NO_DEVICE: return 6;
    case SE_ERR_CUDA: return 4;
    case SE_ERR_IO: return 5;
    case SE_ERR_NOMEM: return 5;
    case SE_ERR_SLOWER: return 7;
    case SE_ERR_NO_TOOL: return 8;
    }
    return 5;
}

const char *se_status_name(se_status status)
{
    switch (status) {
    case SE_OK: return "ok";
    case SE_ERR_USAGE: return "usage error";
    case SE_ERR_LIMIT: return "limit exceeded";
    case SE_ERR_NO_DEVICE: return "no CUDA device";
    case SE_ERR_CUDA: return "CUDA error";
    case SE_ERR_IO: return "I/O error";
    case SE_ERR_NOMEM: return "out of host memory";
    case SE_ERR_VALIDATION: return "validation failed";
    case SE_ERR_SLOWER: return "slower than the gate";
    case SE_ERR_NO_TOOL: return "missing tool";
    }
    return "unknown error";
}
