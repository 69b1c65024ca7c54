/*
 * fsutil.c - shared file-system helpers (see fsutil.h).
 */
#define _XOPEN_SOURCE 700
#define _POSIX_C_SOURCE 200809L
#include "bundle/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* fd must be a regular file of at most max_bytes; closes it otherwise. */
static se_status check_regular(int fd, const char *name, uint64_t max_bytes, uint64_t *size,
                               se_err *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return se_fail(err, SE_ERR_IO, "%s: not a regular file", name);
    }
    if (max_bytes && (uint64_t)sb.st_size > max_bytes) {
        close(fd);
        return se_fail(err, SE_ERR_LIMIT, "%s: %lld bytes, more than the %llu such a file may have",
                       name, (long long)sb.st_size, (unsigned long long)max_bytes);
    }
    if (size)
        *size = (uint64_t)sb.st_size;
    return SE_OK;
}

se_status se_open_regular(const char *path, const char *name, uint64_t max_bytes, int *fd,
                          uint64_t *size, se_err *err)
{
    *fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", name,
                       errno == ELOOP ? "a symbolic link" : strerror(errno));
    se_status st = check_regular(*fd, name, max_bytes, size, err);
    if (st != SE_OK)
        *fd = -1;
    return st;
}

se_status se_open_below(const char *dir, const char *rel, uint64_t max_bytes, int *fd,
                        uint64_t *size, se_err *err)
{
    *fd = -1;
    size_t n = strlen(rel);
    if (n == 0 || rel[0] == '/' || n >= 4096)
        return se_fail(err, SE_ERR_IO, "%.200s: cannot be read: not a relative path", rel);
    int cur = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s: %s", rel, dir, strerror(errno));
    char comp[4096];
    const char *p = rel;
    for (;;) {
        size_t len = strcspn(p, "/");
        int last = p[len] == '\0';
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.')) {
            close(cur);
            return se_fail(err, SE_ERR_IO, "%s: cannot be read: an empty, \".\" or \"..\" "
                           "component", rel);
        }
        memcpy(comp, p, len);
        comp[len] = '\0';
        int flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (last ? O_NONBLOCK : O_DIRECTORY);
        int next = openat(cur, comp, flags);
        int e = errno;
        close(cur);
        if (next < 0)
            return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", rel,
                           e == ELOOP ? "a symbolic link"
                           : e == ENOTDIR ? "a path through a symbolic link or a file"
                                          : strerror(e));
        cur = next;
        if (last)
            break;
        p += len + 1;
    }
    se_status st = check_regular(cur, rel, max_bytes, size, err);
    if (st == SE_OK)
        *fd = cur;
    return st;
}

se_status se_fopen_below(const char *dir, const char *rel, uint64_t max_bytes, FILE **f,
                         uint64_t *size, se_err *err)
{
    int fd;
    *f = NULL;
    se_status st = se_open_below(dir, rel, max_bytes, &fd, size, err);
    if (st != SE_OK)
        return st;
    *f = fdopen(fd, "rb");
    if (!*f) {
        close(fd);
        return se_fail(err, SE_ERR_NOMEM, "%s: cannot be read: %s", rel, strerror(errno));
    }
    return SE_OK;
}

se_status se_read_below(const char *dir, const char *rel, uint64_t max_bytes, char **buf,
                        size_t *len, se_err *err)
{
    int fd;
    uint64_t size = 0;
    *buf = NULL;
    *len = 0;
    se_status st = se_open_below(dir, rel, max_bytes, &fd, &size, err);
    if (st != SE_OK)
        return st;
    if (size >= SIZE_MAX) {
        close(fd);
        return se_fail(err, SE_ERR_LIMIT, "%s: too large", rel);
    }
    char *b = malloc((size_t)size + 1);
    if (!b) {
        close(fd);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, b + got, (size_t)size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != size) {
        free(b);
        return se_fail(err, SE_ERR_IO, "%s: read %zu of %llu bytes", rel, got,
                       (unsigned long long)size);
    }
    b[got] = '\0';
    *buf = b;
    *len = got;
    return SE_OK;
}

se_status se_mkdirs(const char *path, se_err *err)
{
    char buf[8192];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return se_fail(err, SE_ERR_IO, "path too long: %.80s...", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return se_fail(err, SE_ERR_IO, "cannot create folder %s: %s", buf, strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    return SE_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int se_remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

se_status se_copy_file(const char *src, const char *dst, se_err *err)
{
    char dir[8192];
    snprintf(dir, sizeof dir, "%s", dst);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        se_status st = se_mkdirs(dir, err);
        if (st != SE_OK)
            return st;
    }
    FILE *in = fopen(src, "rb");
    if (!in)
        return se_fail(err, SE_ERR_IO, "cannot read %s: %s", src, strerror(errno));
    FILE *out = fopen(dst, "wb");
    if (!out) {
        fclose(in);
        return se_fail(err, SE_ERR_IO, "cannot write %s: %s", dst, strerror(errno));
    }
    char buf[1 << 16];
    size_t n;
    int bad = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        bad |= fwrite(buf, 1, n, out) != n;
    bad |= ferror(in);
    fclose(in);
    bad |= fclose(out) != 0;
    return bad ? se_fail(err, SE_ERR_IO, "copying %s to %s failed", src, dst) : SE_OK;
}

int se_write_replace(const char *path, char *tmp, size_t tmp_size,
                     int (*fill)(FILE *f, const void *ctx), const void *ctx,
                     se_replace_step *step)
{
    if (snprintf(tmp, tmp_size, "%s.tmp-XXXXXX", path) >= (int)tmp_size) {
        *step = SE_REPLACE_NAME;
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *step = SE_REPLACE_CREATE;
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    int ok = f && fill(f, ctx) == 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    else
        close(fd);
    if (ok && chmod(tmp, 0644) == 0 && rename(tmp, path) == 0)
        return 0;
    int e = errno;
    unlink(tmp);
    errno = e;
    *step = SE_REPLACE_WRITE;
    return -1;
}

void se_command_line(const char *cmd, const char *want, char *buf, size_t size)
{
    char line[1024];
    buf[0] = '\0';
    FILE *f = popen(cmd, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (want && !strstr(line, want))
            continue;
        line[strcspn(line, "\n")] = '\0';
        snprintf(buf, size, "%s", line);
        break;
    }
    /* Drain the rest so the command is not killed by a broken pipe. */
    while (fgets(line, sizeof line, f))
        ;
    pclose(f);
}

se_status se_publish_begin(se_publish *pb, const char *target, const char *who, se_err *err)
{
    memset(pb, 0, sizeof *pb);
    pb->who = who;
    size_t n = strlen(target);
    while (n > 1 && target[n - 1] == '/')
        n--;
    if (n == 0 || n >= sizeof pb->target)
        return se_fail(err, SE_ERR_USAGE, "%s: the output path is empty or too long", who);
    memcpy(pb->target, target, n);
    pb->target[n] = '\0';
    const char *slash = strrchr(pb->target, '/');
    const char *base = slash ? slash + 1 : pb->target;
    if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0 || strlen(base) >= sizeof pb->base)
        return se_fail(err, SE_ERR_USAGE, "%s: %s: name the output folder itself", who, target);
    snprintf(pb->base, sizeof pb->base, "%s", base);
    if (!slash)
        snprintf(pb->parent, sizeof pb->parent, ".");
    else if (slash == pb->target)
        snprintf(pb->parent, sizeof pb->parent, "/");
    else
        snprintf(pb->parent, sizeof pb->parent, "%.*s", (int)(slash - pb->target), pb->target);
    se_status st = se_mkdirs(pb->parent, err);
    if (st != SE_OK)
        return st;
    snprintf(pb->tmp, sizeof pb->tmp, "%s/.%s.incomplete-XXXXXX", pb->parent, pb->base);
    if (!mkdtemp(pb->tmp)) {
        int e = errno;
        pb->tmp[0] = '\0';
        return se_fail(err, SE_ERR_IO, "%s: a temporary directory in %s cannot be created: %s", who,
                       pb->parent, strerror(e));
    }
    chmod(pb->tmp, 0755);
    return SE_OK;
}

se_status se_publish_commit(se_publish *pb, se_err *err)
{
    struct stat sb;
    if (lstat(pb->target, &sb) != 0) {
        if (rename(pb->tmp, pb->target) == 0) {
            pb->tmp[0] = '\0';
            return SE_OK;
        }
        int e = errno;
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: renaming the new output to %s failed: %s", pb->who,
                       pb->target, strerror(e));
    }
    char old[sizeof pb->tmp];
    snprintf(old, sizeof old, "%s/.%s.old-XXXXXX", pb->parent, pb->base);
    if (!mkdtemp(old)) {
        int e = errno;
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: %s cannot be created: %s", pb->who, old, strerror(e));
    }
    if (rename(pb->target, old) != 0) {
        int e = errno;
        rmdir(old);
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: moving the previous output %s aside failed: %s",
                       pb->who, pb->target, strerror(e));
    }
    if (rename(pb->tmp, pb->target) != 0) {
        int e = errno;
        int restored = rename(old, pb->target) == 0;
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: renaming the new output to %s failed: %s; %s%s",
                       pb->who, pb->target, strerror(e),
                       restored ? "the previous output was put back" : "the previous output is in ",
                       restored ? "" : old);
    }
    pb->tmp[0] = '\0';
    se_remove_tree(old);
    return SE_OK;
}

void se_publish_abort(se_publish *pb)
{
    if (pb->tmp[0])
        se_remove_tree(pb->tmp);
    pb->tmp[0] = '\0';
}

/* se_write_replace's fill: the document doc, then a newline. */
static int fill_json(FILE *f, const void *doc)
{
    if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0 ||
        fputc('\n', f) == EOF)
        return -1;
    return 0;
}

se_status se_write_json_replace(const char *path, const json_t *doc, const char *who,
                                se_err *err)
{
    char tmp[4400];
    se_replace_step step;
    if (se_write_replace(path, tmp, sizeof tmp, fill_json, doc, &step) == 0)
        return SE_OK;
    if (step == SE_REPLACE_NAME)
        return se_fail(err, SE_ERR_USAGE, "%s %s: path too long", who, path);
    if (step == SE_REPLACE_CREATE)
        return se_fail(err, SE_ERR_IO, "%s %s: a temporary file beside it cannot be "
                       "created: %s", who, path, strerror(errno));
    return se_fail(err, SE_ERR_IO, "%s %s cannot be written: %s", who, path, strerror(errno));
}
