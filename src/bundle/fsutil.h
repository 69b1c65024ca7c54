/*
 * fsutil.h - the few file-system operations the bundle, figures, site and
 * profile code share: creating a folder with its parents, removing a tree,
 * copying a file.
 */
#ifndef SE_FSUTIL_H
#define SE_FSUTIL_H

#include "../se_common.h"

/* mkdir -p: creates path and its missing parents; names the one that fails. */
se_status se_mkdirs(const char *path, se_err *err);

/* rm -rf without a shell: removes path and everything below it, never
 * following symbolic links. Returns 0 on success. */
int se_remove_tree(const char *path);

/* Copies src to dst, creating dst's parent folders. */
se_status se_copy_file(const char *src, const char *dst, se_err *err);

#endif
