/*
 * fsutil.h - the few file-system operations the bundle, figures, site and
 * profile code share: creating a folder with its parents, removing a tree,
 * copying a file, replacing a file whole.
 */
#ifndef SE_FSUTIL_H
#define SE_FSUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "model/se_common.h"

/* Opens dir/rel for reading as untrusted input, the way sha256sum, tar and
 * git fsck would: rel must be relative, without "." or ".." components;
 * no component may be a symbolic link (each is opened with O_NOFOLLOW
 * below dir); the file must be a regular file (a FIFO or device is refused
 * without blocking: O_NONBLOCK, then fstat) of at most max_bytes (0: no
 * bound). On success *fd is open (close it) and *size is its size.
 * Messages name rel: "<rel>: cannot be read: ...", "<rel>: not a regular
 * file", "<rel>: N bytes, more than the M ...". */
se_status se_open_below(const char *dir, const char *rel, uint64_t max_bytes, int *fd,
                        uint64_t *size, se_err *err);

/* The same, as a stdio stream (fclose it). */
se_status se_fopen_below(const char *dir, const char *rel, uint64_t max_bytes, FILE **f,
                         uint64_t *size, se_err *err);

/* Reads the whole of dir/rel (opened as se_open_below) into a malloc'd
 * buffer *buf (NUL-terminated, *len bytes before the NUL). */
se_status se_read_below(const char *dir, const char *rel, uint64_t max_bytes, char **buf,
                        size_t *len, se_err *err);

/* Opens path itself (not below a folder) the same way: O_NOFOLLOW,
 * O_NONBLOCK, regular files only, at most max_bytes (0: no bound); `name`
 * names it in messages. */
se_status se_open_regular(const char *path, const char *name, uint64_t max_bytes, int *fd,
                          uint64_t *size, se_err *err);

/* mkdir -p: creates path and its missing parents; names the one that fails. */
se_status se_mkdirs(const char *path, se_err *err);

/* rm -rf without a shell: removes path and everything below it, never
 * following symbolic links. Returns 0 on success. */
int se_remove_tree(const char *path);

/* Copies src to dst, creating dst's parent folders. */
se_status se_copy_file(const char *src, const char *dst, se_err *err);

/* The step of se_write_replace that failed. */
typedef enum se_replace_step {
    SE_REPLACE_NAME,   /* "<path>.tmp-XXXXXX" does not fit in tmp (errno ENAMETOOLONG) */
    SE_REPLACE_CREATE, /* the temporary file cannot be created (mkstemp) */
    SE_REPLACE_WRITE,  /* fdopen, fill, fclose, chmod or rename */
} se_replace_step;

/* Replaces path with the file fill(f, ctx) writes, so that a reader sees
 * the old file or the whole new one: written to a temporary file beside it,
 * "<path>.tmp-XXXXXX" (mkstemp; its name is left in tmp, of tmp_size bytes,
 * which bounds the length of path), then made mode 0644 and renamed over
 * path. fill returns 0 when everything was written. Returns 0, or -1 with
 * errno as the failing call left it and *step naming that step; the
 * temporary file is removed then. Prints nothing: the caller words it. */
int se_write_replace(const char *path, char *tmp, size_t tmp_size,
                     int (*fill)(FILE *f, const void *ctx), const void *ctx,
                     se_replace_step *step);

/* Writes doc (JSON, 17 significant digits, then a newline) to path through
 * se_write_replace; messages start with who (e.g. "export: -o"). */
se_status se_write_json_replace(const char *path, const json_t *doc, const char *who,
                                se_err *err);

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
