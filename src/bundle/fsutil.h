/*
 * fsutil.h - the few file-system operations the bundle, figures, site and
 * profile code share: creating a folder with its parents, removing a tree,
 * copying a file.
 */
#ifndef SE_FSUTIL_H
#define SE_FSUTIL_H

#include <stddef.h>

#include "model/se_common.h"

/* mkdir -p: creates path and its missing parents; names the one that fails. */
se_status se_mkdirs(const char *path, se_err *err);

/* rm -rf without a shell: removes path and everything below it, never
 * following symbolic links. Returns 0 on success. */
int se_remove_tree(const char *path);

/* Copies src to dst, creating dst's parent folders. */
se_status se_copy_file(const char *src, const char *dst, se_err *err);

/* Runs cmd through the shell and copies into buf the first line of its
 * output that contains `want` (any line if want is NULL), without the
 * newline; "" if there is none or the command cannot run. */
void se_command_line(const char *cmd, const char *want, char *buf, size_t size);

#endif
