/*
 * embedded.c - lookup in the table that cmake/embed.cmake generates.
 */
#include "bundle/embedded.h"

#include <string.h>

const se_embedded_file *se_embedded_find(const char *path)
{
    for (size_t i = 0; i < se_embedded_count; i++)
        if (strcmp(se_embedded_files[i].path, path) == 0)
            return &se_embedded_files[i];
    return NULL;
}
