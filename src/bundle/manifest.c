/*
 * manifest.c - SHA-256 manifests of an evidence bundle in `sha256sum -c`
 * format: the directory walk and writing a manifest over a directory
 * atomically. The line reader is in manifest_read.c, verifying a directory
 * against a manifest in manifest_verify.c.
 *
 * Writing walks the directory without following symbolic links and refuses
 * anything it could not list faithfully (a link, a device, a path with a
 * character that GNU sha256sum would escape, a line too long to verify).
 */
#define _POSIX_C_SOURCE 200809L

#include "bundle/manifest.h"
#include "bundle/remote.h"
#include "bundle/paths.h"

#include "bundle/fsutil.h"
#include "bundle/manifest_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_PATH_LEN (MAX_LINE - 64 - 2) /* the longest path a line can hold */
#define TMP_PREFIX SE_MANIFEST_TMP_PREFIX

int manifest_path_char_ok(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '/' || c == '-';
}

/* Index of the first byte of s[0..n) outside [A-Za-z0-9._/-], or n. */
size_t manifest_first_bad_char(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!manifest_path_char_ok((unsigned char)s[i]))
            return i;
    return n;
}

int manifest_path_check(const char *p, size_t n, char *why, size_t why_n)
{
    const char *reason = NULL;
    size_t bad;
    if (n == 0) {
        reason = "empty path";
    } else if ((bad = manifest_first_bad_char(p, n)) != n) {
        if (why)
            snprintf(why, why_n, "byte 0x%02x in the path is outside [A-Za-z0-9._/-]",
                     (unsigned char)p[bad]);
        return 0;
    } else if (p[0] == '/') {
        reason = "absolute path";
    } else {
        for (size_t start = 0; start <= n && !reason;) {
            size_t end = start;
            while (end < n && p[end] != '/')
                end++;
            size_t clen = end - start;
            if (clen == 0)
                reason = "empty path component";
            else if ((clen == 1 && p[start] == '.') ||
                     (clen == 2 && p[start] == '.' && p[start + 1] == '.'))
                reason = "path component \".\" or \"..\"";
            start = end + 1;
        }
    }
    if (reason && why)
        snprintf(why, why_n, "%s", reason);
    return reason == NULL;
}

/* a + "/" + b (or b alone when a is empty), malloc'd; NULL on failure. */
char *manifest_join_path(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (!p)
        return NULL;
    if (la) {
        memcpy(p, a, la);
        p[la] = '/';
        memcpy(p + la + 1, b, lb + 1);
    } else {
        memcpy(p, b, lb + 1);
    }
    return p;
}

/* The manifest's own name must be a plain file name in dir. */
se_status manifest_check_name(const char *name, se_err *err)
{
    size_t n = strlen(name);
    if (n == 0 || n > 255 || strchr(name, '/') || manifest_first_bad_char(name, n) != n ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return se_fail(err, SE_ERR_USAGE,
                       "manifest name '%s' must be a plain file name of [A-Za-z0-9._-]", name);
    return SE_OK;
}

void manifest_entries_free(entry_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Appends an entry, taking ownership of path (freed on failure). */
static se_status entries_push(entry_list *l, char *path, int regular, se_err *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        entry *v = cap <= SIZE_MAX / sizeof *v ? realloc(l->v, cap * sizeof *v) : NULL;
        if (!v) {
            free(path);
            return se_fail(err, SE_ERR_NOMEM, "cannot grow the list of files below the bundle");
        }
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n].path = path;
    l->v[l->n].regular = regular;
    l->v[l->n].listed[0] = '\0';
    l->n++;
    return SE_OK;
}

int manifest_cmp_entry(const void *pa, const void *pb)
{
    return strcmp(((const entry *)pa)->path, ((const entry *)pb)->path);
}

/* Adds every non-directory below root/rel to l (relative paths), recursing
 * into directories but never through a symbolic link. At the top level
 * only the manifest itself, beside a run's manifest its signature
 * (SE_MANIFEST_SIG), and `skip` (a folder the caller made there, or NULL)
 * are skipped: every other name, dot-files and leftover temporaries
 * included, is listed (and so reported as unlisted by verify). */
static se_status walk(const char *root, const char *rel, const char *name, const char *skip,
                      entry_list *l, se_err *err)
{
    char *dirpath = rel[0] ? manifest_join_path(root, rel) : manifest_join_path("", root);
    if (!dirpath)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate a path below %s", root);
    DIR *d = opendir(dirpath);
    if (!d) {
        se_status st = se_fail(err, SE_ERR_IO, "cannot open directory %s: %s", dirpath,
                               strerror(errno));
        free(dirpath);
        return st;
    }
    se_status st = SE_OK;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            if (errno)
                st = se_fail(err, SE_ERR_IO, "cannot read directory %s: %s", dirpath,
                             strerror(errno));
            break;
        }
        const char *base = de->d_name;
        if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
            continue;
        if (!rel[0] && (strcmp(base, name) == 0 || (skip && strcmp(base, skip) == 0)))
            continue;
        if (!rel[0] && strcmp(name, SE_MANIFEST_NAME) == 0 && strcmp(base, SE_MANIFEST_SIG) == 0)
            continue;
        char *relpath = manifest_join_path(rel, base);
        char *full = relpath ? manifest_join_path(root, relpath) : NULL;
        if (!full) {
            free(relpath);
            st = se_fail(err, SE_ERR_NOMEM, "cannot allocate a path below %s", dirpath);
            break;
        }
        struct stat sb;
        if (lstat(full, &sb) != 0) {
            st = se_fail(err, SE_ERR_IO, "cannot stat %s: %s", full, strerror(errno));
            free(relpath);
            free(full);
            break;
        }
        free(full);
        if (S_ISDIR(sb.st_mode)) {
            st = walk(root, relpath, name, NULL, l, err);
            free(relpath);
        } else {
            st = entries_push(l, relpath, S_ISREG(sb.st_mode) ? 1 : 0, err);
        }
        if (st != SE_OK)
            break;
    }
    closedir(d);
    free(dirpath);
    return st;
}

/* Walks dir (skipping the top-level `skip`, if not NULL) and sorts what it
 * found bytewise. */
static se_status list_dir_skipping(const char *dir, const char *name, const char *skip,
                                   entry_list *l, se_err *err)
{
    memset(l, 0, sizeof *l);
    se_status st = walk(dir, "", name, skip, l, err);
    if (st != SE_OK) {
        manifest_entries_free(l);
        return st;
    }
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, manifest_cmp_entry);
    return SE_OK;
}

se_status manifest_list_dir(const char *dir, const char *name, entry_list *l, se_err *err)
{
    return list_dir_skipping(dir, name, NULL, l, err);
}

/* Writes the manifest lines for l to the open temporary file f. */
static se_status write_lines(const char *dir, const entry_list *l, FILE *f, const char *tmp,
                             se_err *err)
{
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].listed[0]) {
            if (fprintf(f, "%s  %s\n", l->v[i].listed, l->v[i].path) < 0)
                return se_fail(err, SE_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
            continue;
        }
        char *full = manifest_join_path(dir, l->v[i].path);
        if (!full)
            return se_fail(err, SE_ERR_NOMEM, "cannot allocate a path below %s", dir);
        unsigned char digest[32];
        se_status st = se_sha256_file(full, digest, err);
        free(full);
        if (st != SE_OK)
            return st;
        char hex[65];
        se_hex32(digest, hex);
        if (fprintf(f, "%s  %s\n", hex, l->v[i].path) < 0)
            return se_fail(err, SE_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    }
    return SE_OK;
}

/* A selected bundle (dir/remote.json) keeps the lines of its remote-only
 * files that are not here when its manifest is rewritten (profile does):
 * they are added to l with their listed hashes, and l sorted again. */
static se_status keep_remote_lines(const char *dir, const char *name, entry_list *l, se_err *err)
{
    if (strcmp(name, SE_MANIFEST_NAME) != 0)
        return SE_OK;
    se_remote r;
    int present = 0;
    se_status st = se_remote_load(dir, &r, &present, err);
    if (st != SE_OK || !present)
        return st;
    line_list old;
    st = manifest_read_manifest(dir, name, &old, err);
    for (size_t i = 0; st == SE_OK && i < old.n; i++) {
        const line_rec *o = &old.v[i];
        entry key = {o->path, 0, ""};
        if (!o->path || !se_remote_has(&r, o->path) ||
            (l->n && bsearch(&key, l->v, l->n, sizeof key, manifest_cmp_entry)))
            continue;
        char *copy = strdup(o->path);
        st = copy ? entries_push(l, copy, 1, err)
                  : se_fail(err, SE_ERR_NOMEM, "cannot keep the line of %s", o->path);
        if (st == SE_OK)
            memcpy(l->v[l->n - 1].listed, o->hex, sizeof o->hex);
    }
    if (st == SE_OK && l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, manifest_cmp_entry);
    if (st == SE_OK && old.n == 0)
        st = se_fail(err, SE_ERR_IO, "%s/%s: a selected bundle (" SE_REMOTE_JSON ") without a readable "
                     "manifest cannot have it rewritten", dir, name);
    manifest_lines_free(&old);
    se_remote_free(&r);
    return st;
}

se_status se_manifest_write(const char *dir, const char *name, se_err *err)
{
    return se_manifest_write_skipping(dir, name, NULL, err);
}

se_status se_manifest_write_skipping(const char *dir, const char *name, const char *skip,
                                     se_err *err)
{
    se_status st = manifest_check_name(name, err);
    if (st != SE_OK)
        return st;
    entry_list l;
    st = list_dir_skipping(dir, name, skip, &l, err);
    if (st != SE_OK)
        return st;
    for (size_t i = 0; i < l.n; i++) {
        const char *p = l.v[i].path;
        size_t len = strlen(p);
        size_t bad = manifest_first_bad_char(p, len);
        if (!l.v[i].regular)
            st = se_fail(err, SE_ERR_USAGE,
                         "%s/%s is a symbolic link or not a regular file; a manifest lists "
                         "regular files only",
                         dir, p);
        else if (bad != len)
            st = se_fail(err, SE_ERR_USAGE,
                         "%s/%s: byte 0x%02x at offset %zu is outside [A-Za-z0-9._/-]; rename it",
                         dir, p, (unsigned char)p[bad], bad);
        else if (len > MAX_PATH_LEN)
            st = se_fail(err, SE_ERR_LIMIT, "%s/%s: path of %zu bytes exceeds the %d a manifest "
                         "line can hold", dir, p, len, MAX_PATH_LEN);
        if (st != SE_OK) {
            manifest_entries_free(&l);
            return st;
        }
    }
    st = keep_remote_lines(dir, name, &l, err);
    if (st != SE_OK) {
        manifest_entries_free(&l);
        return st;
    }

    char *final = manifest_join_path(dir, name);
    char *tmp = manifest_join_path(dir, TMP_PREFIX "-XXXXXX");
    if (!final || !tmp) {
        st = se_fail(err, SE_ERR_NOMEM, "cannot allocate the manifest path in %s", dir);
        goto out;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = se_fail(err, SE_ERR_IO, "cannot create a temporary manifest in %s: %s", dir,
                     strerror(errno));
        goto out;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        st = se_fail(err, SE_ERR_IO, "cannot open %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    st = write_lines(dir, &l, f, tmp, err);
    if (st == SE_OK && fchmod(fd, 0644) != 0)
        st = se_fail(err, SE_ERR_IO, "cannot set the mode of %s: %s", tmp, strerror(errno));
    if (st == SE_OK && (fflush(f) != 0 || fsync(fd) != 0))
        st = se_fail(err, SE_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    if (fclose(f) != 0 && st == SE_OK)
        st = se_fail(err, SE_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
    if (st == SE_OK)
        st = se_check_replaceable(final, "manifest:", err);
    if (st == SE_OK && rename(tmp, final) != 0)
        st = se_fail(err, SE_ERR_IO, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
    if (st != SE_OK) {
        unlink(tmp);
        goto out;
    }
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        if (fsync(dfd) != 0 && errno != EINVAL)
            st = se_fail(err, SE_ERR_IO, "cannot sync directory %s: %s", dir, strerror(errno));
        close(dfd);
    }
out:
    free(final);
    free(tmp);
    manifest_entries_free(&l);
    return st;
}

se_status se_manifest_sha256_without(const char *dir, const char *name, const char *rel,
                                     char hex[65], se_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    se_status st = se_read_below(dir, name, SE_MANIFEST_MAX_BYTES, &buf, &len, err);
    if (st != SE_OK)
        return st;
    /* The one line "<64 hex>  <rel>\n" comes out; nothing else changes. */
    size_t rl = strlen(rel), line = 64 + 2 + rl + 1, cut = len;
    for (size_t off = 0; off + line <= len;) {
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t end = nl ? (size_t)(nl - buf) + 1 : len;
        if (end - off == line && memcmp(buf + off + 64, "  ", 2) == 0 &&
            memcmp(buf + off + 66, rel, rl) == 0 && buf[off + 66 + rl] == '\n') {
            cut = off;
            break;
        }
        off = end;
    }
    se_sha256_stream *s = se_sha256_begin();
    if (!s) {
        free(buf);
        return se_fail(err, SE_ERR_NOMEM, "out of memory hashing %s", name);
    }
    se_sha256_update(s, buf, cut);
    if (cut < len)
        se_sha256_update(s, buf + cut + line, len - cut - line);
    unsigned char d[32];
    st = se_sha256_end(s, d, err);
    if (st == SE_OK)
        se_hex32(d, hex);
    free(buf);
    return st;
}
