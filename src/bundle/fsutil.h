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

/* Publishing a directory: built in full beside its target, then put in
 * place by renames, so the target is either the old output or the new one,
 * never a mixture; figures, site and profile all publish through it. */
typedef struct se_publish {
    char target[4200];  /* the directory to publish */
    char tmp[4600];     /* parent/.base.incomplete-XXXXXX, to be filled */
    char parent[4200];
    char base[256];
    const char *who;    /* the command, for messages */
} se_publish;

/* Creates target's parent folders and the temporary directory beside
 * target (mode 0755). `who` names the command in messages. */
se_status se_publish_begin(se_publish *pb, const char *target, const char *who, se_err *err);

/* Moves the filled temporary directory to target. A previous target is
 * first moved aside (parent/.base.old-XXXXXX), restored if anything after
 * that fails, and removed once the new one is in place. On failure the
 * temporary directory is removed too. */
se_status se_publish_commit(se_publish *pb, se_err *err);

/* Removes the temporary directory (after a failure while filling it). */
void se_publish_abort(se_publish *pb);

#endif
