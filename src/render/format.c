/*
 * format.c - the registry of output formats (see format.h).
 */
#include "render/format.h"

#include <stdio.h>
#include <string.h>

static const char *const names[SE_NFORMATS] = {
    [SE_FORMAT_TEXT] = "text",       [SE_FORMAT_MD] = "md",
    [SE_FORMAT_CSV] = "csv",         [SE_FORMAT_JSON] = "json",
    [SE_FORMAT_SUMMARY] = "summary", [SE_FORMAT_NVBENCH] = "nvbench",
    [SE_FORMAT_GBENCH] = "gbench",
};

const char *se_format_name(se_format f)
{
    return (unsigned)f < SE_NFORMATS ? names[f] : "?";
}

void se_format_list(unsigned allowed, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int f = 0; f < SE_NFORMATS && used < size; f++)
        if (allowed & SE_FORMAT_BIT(f)) {
            int w = snprintf(buf + used, size - used, "%s%s", used ? "|" : "", names[f]);
            used += w > 0 ? (size_t)w : 0;
        }
}

se_status se_format_parse(const char *cmd, const char *value, unsigned allowed, se_format *out,
                          se_err *err)
{
    for (int f = 0; f < SE_NFORMATS; f++)
        if ((allowed & SE_FORMAT_BIT(f)) && strcmp(value, names[f]) == 0) {
            *out = (se_format)f;
            return SE_OK;
        }
    char list[128];
    se_format_list(allowed, list, sizeof list);
    return se_fail(err, SE_ERR_USAGE, "%s: --format: '%.80s' is not one of %s", cmd, value, list);
}
