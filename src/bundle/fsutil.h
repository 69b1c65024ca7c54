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

/* Creates path as a new file for writing, never through a symbolic link
 * and never over anything that exists (O_CREAT|O_EXCL|O_NOFOLLOW, mode
 * 0644 less the umask). `name` names it in messages ("<name>: cannot be
 * created: File exists"). On success *fd is open (close it). */
se_status se_create_new(const char *path, const char *name, int *fd, se_err *err);

/* The same, as a stdio stream ("wb"; fclose it). */
se_status se_fcreate_new(const char *path, const char *name, FILE **f, se_err *err);

/* Removes the regular file dir/rel in its folder, opened as se_open_below
 * opens folders (each O_DIRECTORY|O_NOFOLLOW below dir), so that no link
 * in rel's folders is followed; refuses
 * (removing nothing) when it is not a regular file. Then removes that
 * folder if it is left empty (never dir itself). */
se_status se_unlink_below(const char *dir, const char *rel, se_err *err);

/* mkdir -p: creates path and its missing parents; names the one that fails. */
se_status se_mkdirs(const char *path, se_err *err);

/* rm -rf without a shell: removes path and everything below it, never
 * following symbolic links. Returns 0 on success. */
int se_remove_tree(const char *path);

/* Copies src to dst, creating dst's parent folders. */
se_status se_copy_file(const char *src, const char *dst, se_err *err);

/* Replaces path with the file fill(f, ctx) writes, so that a reader sees
 * the old file or the whole new one: written to a new temporary file
 * beside it, "<path>.tmp-XXXXXX" (mkstemp: O_EXCL, so never through a link
 * planted there), made mode 0644 and renamed over path, but only over a
 * regular file: a folder, symbolic link, FIFO, device or socket at path is
 * refused before anything is written ("<label> <path>: not a regular
 * file ..."). fill returns 0 when everything was written. On failure the
 * temporary file is removed; messages start with label (e.g. "export:
 * -o"). */
se_status se_write_replace(const char *path, const char *label,
                           int (*fill)(FILE *f, const void *ctx), const void *ctx, se_err *err);

/* SE_OK when path does not exist or is a regular file (a rename may land
 * on it); else the refusal above, naming path after label. */
se_status se_check_replaceable(const char *path, const char *label, se_err *err);

/* Writes doc (JSON, 17 significant digits, then a newline) to path through
 * se_write_replace; messages start with who (e.g. "export: -o"). */
se_status se_write_json_replace(const char *path, const json_t *doc, const char *who,
                                se_err *err);

/* Runs cmd through the shell and copies into buf the first line of its
 * output that contains `want` (any line if want is NULL), without the
 * newline; "" if there is none or the command cannot run. */
void se_command_line(const char *cmd, const char *want, char *buf, size_t size);

/* A command's own temporary folder beside a target: parent/.<base>.incomplete-
 * XXXXXX (mkdtemp, mode 0700), holding the marker SE_OWNTMP_MARKER that the
 * command creates there with O_EXCL: "softmax-evidence temporary", the
 * command, base, this host's name and the command's pid, one a line. Only
 * a folder with such a marker is ever removed by a later run
 * (se_owntmp_sweep): the proof that this program made it. */
#define SE_OWNTMP_MARKER ".softmax-evidence-temporary"

/* Creates the folder (its path in dir, of size bytes) and its marker. */
se_status se_owntmp_make(const char *parent, const char *base, const char *who, char *dir,
                         size_t size, se_err *err);

/* Removes, in parent, the stale temporary folders of `who` for `base` that
 * an earlier run left (killed): only folders named .<base>.incomplete-XXXXXX
 * owned by this user whose marker names who, base, this host and a pid that
 * no longer runs. A stale folder of se_publish_commit that holds the
 * previous output (old/) while target is missing puts it back as target
 * first. Everything else, a user's folder of a similar name included, is
 * left alone. Returns how many were removed. */
size_t se_owntmp_sweep(const char *parent, const char *base, const char *who);

/* Publishing a directory: built in full beside its target, then put in
 * place by renames, so the target is either the old output or the new one,
 * never a mixture; figures, site, export's sidecars and profile all
 * publish through it. */
typedef struct se_publish {
    char target[4200];  /* the directory to publish */
    char wrap[4590];    /* parent/.base.incomplete-XXXXXX (se_owntmp_make) */
    char tmp[4600];     /* wrap/new, to be filled */
    char parent[4200];
    char base[256];
    const char *who;    /* the command, for messages */
} se_publish;

/* Creates target's parent folders, removes the stale temporaries of an
 * earlier run of `who` there (se_owntmp_sweep), and makes the temporary
 * folder: pb->tmp (mode 0755) inside the command's own folder beside
 * target. `who` names the command in messages. */
se_status se_publish_begin(se_publish *pb, const char *target, const char *who, se_err *err);

/* Moves the filled pb->tmp to target. A previous target (a folder, never a
 * link or anything else) is first moved into the command's own folder,
 * restored if anything after that fails, and removed with that folder once
 * the new one is in place. On failure the temporary folder is removed too. */
se_status se_publish_commit(se_publish *pb, se_err *err);

/* Removes the temporary folder (after a failure while filling it). */
void se_publish_abort(se_publish *pb);

#endif
