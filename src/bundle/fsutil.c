/*
 * fsutil.c - shared file-system helpers (see fsutil.h).
 */
#define _XOPEN_SOURCE 700
#define _POSIX_C_SOURCE 200809L
#define _GNU_SOURCE /* memrchr */
#include "bundle/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* The reason an openat below a folder failed with errno e. */
static const char *below_why(int e)
{
    return e == ELOOP     ? "a symbolic link"
           : e == ENOTDIR ? "a path through a symbolic link or a file"
                          : strerror(e);
}

/* Opens the first n bytes of rel ('/'-separated components) as folders
 * below dir, each O_DIRECTORY|O_NOFOLLOW, none empty, "." or ".."; n 0:
 * dir itself. Messages: "<rel>: <what>: ...". */
static se_status open_dirs_below(const char *dir, const char *rel, size_t n, const char *what,
                                 int *dfd, se_err *err)
{
    *dfd = -1;
    int cur = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (cur < 0)
        return se_fail(err, SE_ERR_IO, "%s: %s: %s: %s", rel, what, dir, strerror(errno));
    char comp[4096];
    for (size_t at = 0; at < n;) {
        size_t len = strcspn(rel + at, "/");
        if (at + len > n)
            len = n - at;
        const char *p = rel + at;
        if (len == 0 || len >= sizeof comp || (len == 1 && p[0] == '.') ||
            (len == 2 && p[0] == '.' && p[1] == '.')) {
            close(cur);
            return se_fail(err, SE_ERR_IO, "%s: %s: an empty, \".\" or \"..\" component", rel,
                           what);
        }
        memcpy(comp, p, len);
        comp[len] = '\0';
        int next = openat(cur, comp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_DIRECTORY);
        int e = errno;
        close(cur);
        if (next < 0)
            return se_fail(err, SE_ERR_IO, "%s: %s: %s", rel, what, below_why(e));
        cur = next;
        at += len + 1;
    }
    *dfd = cur;
    return SE_OK;
}

/* rel checked to be relative and of a sane length; *leaf its last
 * component, *dir_len the bytes before it (its folders, without the '/'). */
static se_status split_below(const char *rel, const char *what, const char **leaf,
                             size_t *dir_len, se_err *err)
{
    size_t n = strlen(rel);
    if (n == 0 || rel[0] == '/' || n >= 4096)
        return se_fail(err, SE_ERR_IO, "%.200s: %s: not a relative path", rel, what);
    const char *slash = strrchr(rel, '/');
    *leaf = slash ? slash + 1 : rel;
    *dir_len = slash ? (size_t)(slash - rel) : 0;
    if (!**leaf || strcmp(*leaf, ".") == 0 || strcmp(*leaf, "..") == 0)
        return se_fail(err, SE_ERR_IO, "%s: %s: an empty, \".\" or \"..\" component", rel, what);
    return SE_OK;
}

/* rel's folders opened below dir (dfd; close it), its last component leaf,
 * and the bytes of rel before it (dlen). */
typedef struct below {
    const char *leaf;
    size_t dlen;
    int dfd;
} below;

/* split_below, then open_dirs_below for the folders before the leaf. */
static se_status open_parent_below(const char *dir, const char *rel, const char *what, below *b,
                                   se_err *err)
{
    b->dfd = -1;
    se_status st = split_below(rel, what, &b->leaf, &b->dlen, err);
    return st == SE_OK ? open_dirs_below(dir, rel, b->dlen, what, &b->dfd, err) : st;
}

se_status se_open_below(const char *dir, const char *rel, uint64_t max_bytes, int *fd,
                        uint64_t *size, se_err *err)
{
    static const char what[] = "cannot be read";
    *fd = -1;
    below b;
    se_status st = open_parent_below(dir, rel, what, &b, err);
    if (st != SE_OK)
        return st;
    int cur = openat(b.dfd, b.leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    int e = errno;
    close(b.dfd);
    if (cur < 0)
        return se_fail(err, SE_ERR_IO, "%s: %s: %s", rel, what, below_why(e));
    st = check_regular(cur, rel, max_bytes, size, err);
    if (st == SE_OK)
        *fd = cur;
    return st;
}

se_status se_unlink_below(const char *dir, const char *rel, se_err *err)
{
    static const char what[] = "cannot be removed";
    below b;
    se_status st = open_parent_below(dir, rel, what, &b, err);
    if (st != SE_OK)
        return st;
    struct stat sb;
    if (fstatat(b.dfd, b.leaf, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        st = se_fail(err, SE_ERR_IO, "%s: %s: %s", rel, what, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        st = se_fail(err, SE_ERR_IO, "%s: %s: not a regular file", rel, what);
    else if (unlinkat(b.dfd, b.leaf, 0) != 0)
        st = se_fail(err, SE_ERR_IO, "%s: %s: %s", rel, what, strerror(errno));
    close(b.dfd);
    if (st != SE_OK || b.dlen == 0)
        return st;
    /* Its folder, once empty (ENOTEMPTY while it is not), in its own parent. */
    const char *pslash = memrchr(rel, '/', b.dlen);
    size_t plen = pslash ? (size_t)(pslash - rel) : 0;
    char folder[4096];
    snprintf(folder, sizeof folder, "%.*s", (int)(b.dlen - (pslash ? plen + 1 : 0)),
             pslash ? pslash + 1 : rel);
    se_err ignored;
    if (open_dirs_below(dir, rel, plen, what, &b.dfd, &ignored) == SE_OK) {
        unlinkat(b.dfd, folder, AT_REMOVEDIR);
        close(b.dfd);
    }
    return SE_OK;
}

se_status se_create_new(const char *path, const char *name, int *fd, se_err *err)
{
    *fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (*fd < 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot be created: %s", name,
                       errno == EEXIST ? "something of that name exists (a file, folder or "
                                         "link); it is never replaced"
                                       : strerror(errno));
    return SE_OK;
}

se_status se_fcreate_new(const char *path, const char *name, FILE **f, se_err *err)
{
    int fd;
    *f = NULL;
    se_status st = se_create_new(path, name, &fd, err);
    if (st != SE_OK)
        return st;
    *f = fdopen(fd, "wb");
    if (!*f) {
        close(fd);
        unlink(path);
        return se_fail(err, SE_ERR_NOMEM, "%s: cannot be written: %s", name, strerror(errno));
    }
    return SE_OK;
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
    FILE *out;
    se_status st = se_fcreate_new(dst, dst, &out, err);
    if (st != SE_OK) {
        fclose(in);
        return st;
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

se_status se_check_replaceable(const char *path, const char *label, se_err *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? SE_OK
                               : se_fail(err, SE_ERR_IO, "%s %s: %s", label, path, strerror(errno));
    if (S_ISREG(sb.st_mode))
        return SE_OK;
    return se_fail(err, SE_ERR_USAGE, "%s %s: not a regular file (%s); it is never replaced: "
                   "remove it or choose another name", label, path,
                   S_ISDIR(sb.st_mode) ? "a folder" : S_ISLNK(sb.st_mode) ? "a symbolic link"
                   : S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode)
                   ? "a device" : "a socket or other special file");
}

se_status se_write_replace(const char *path, const char *label,
                           int (*fill)(FILE *f, const void *ctx), const void *ctx, se_err *err)
{
    char tmp[4400];
    se_status st = se_check_replaceable(path, label, err);
    if (st != SE_OK)
        return st;
    if (snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof tmp)
        return se_fail(err, SE_ERR_USAGE, "%s %.200s...: path too long", label, path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return se_fail(err, SE_ERR_IO, "%s %s: a temporary file beside it cannot be created: %s",
                       label, path, strerror(errno));
    FILE *f = fdopen(fd, "w");
    int ok = f && fill(f, ctx) == 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    else
        close(fd);
    int e = ok ? 0 : errno;
    if (ok && chmod(tmp, 0644) != 0)
        ok = 0, e = errno;
    /* Checked again just before the rename: the name may have been taken since. */
    if (ok && (st = se_check_replaceable(path, label, err)) != SE_OK) {
        unlink(tmp);
        return st;
    }
    if (ok && rename(tmp, path) == 0)
        return SE_OK;
    if (ok)
        e = errno;
    unlink(tmp);
    return se_fail(err, SE_ERR_IO, "%s %s cannot be written: %s", label, path,
                   e ? strerror(e) : "write error");
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

/* The marker's text for who, base, this host and pid. */
static void owntmp_text(const char *who, const char *base, long pid, char *buf, size_t size)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(buf, size, "softmax-evidence temporary\ncommand %s\ntarget %s\nhost %s\npid %ld\n",
             who, base, host, pid);
}

se_status se_owntmp_make(const char *parent, const char *base, const char *who, char *dir,
                         size_t size, se_err *err)
{
    if (snprintf(dir, size, "%s/.%s.incomplete-XXXXXX", parent, base) >= (int)size) {
        dir[0] = '\0';
        return se_fail(err, SE_ERR_USAGE, "%s: the output path %s/%s is too long", who, parent,
                       base);
    }
    if (!mkdtemp(dir)) {
        int e = errno;
        dir[0] = '\0';
        return se_fail(err, SE_ERR_IO, "%s: a temporary folder in %s cannot be created: %s", who,
                       parent, strerror(e));
    }
    char marker[4800], text[512];
    snprintf(marker, sizeof marker, "%s/%s", dir, SE_OWNTMP_MARKER);
    owntmp_text(who, base, (long)getpid(), text, sizeof text);
    int fd;
    se_status st = se_create_new(marker, marker, &fd, err);
    if (st == SE_OK) {
        size_t n = strlen(text);
        if (write(fd, text, n) != (ssize_t)n)
            st = se_fail(err, SE_ERR_IO, "%s: %s cannot be written: %s", who, marker,
                         strerror(errno));
        close(fd);
    }
    if (st != SE_OK) {
        se_remove_tree(dir);
        dir[0] = '\0';
    }
    return st;
}

/* 1 when parent/name is a stale own temporary folder of who for base. */
static int owntmp_stale(int pfd, const char *name, const char *base, const char *who)
{
    struct stat sb;
    if (fstatat(pfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(sb.st_mode) ||
        sb.st_uid != geteuid())
        return 0;
    int dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    int fd = openat(dfd, SE_OWNTMP_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(dfd);
    if (fd < 0)
        return 0;
    char got[512];
    ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_uid == geteuid()
                    ? read(fd, got, sizeof got - 1) : -1;
    close(fd);
    if (n <= 0)
        return 0;
    got[n] = '\0';
    const char *p = strstr(got, "\npid ");
    char *end;
    long pid = p ? strtol(p + 5, &end, 10) : 0;
    if (pid <= 0 || pid == (long)getpid() || strcmp(end, "\n") != 0)
        return 0;
    char want[512];
    owntmp_text(who, base, pid, want, sizeof want);
    /* Its own marker, and its process is gone (a running one is left alone). */
    return strcmp(got, want) == 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

size_t se_owntmp_sweep(const char *parent, const char *base, const char *who)
{
    char prefix[300];
    size_t removed = 0;
    int pl = snprintf(prefix, sizeof prefix, ".%s.incomplete-", base);
    DIR *d = pl < (int)sizeof prefix ? opendir(parent) : NULL;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, (size_t)pl) != 0 || strlen(e->d_name) != (size_t)pl + 6 ||
            !owntmp_stale(dirfd(d), e->d_name, base, who))
            continue;
        char path[4600], old[4700], target[4600];
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        snprintf(old, sizeof old, "%s/old", path);
        snprintf(target, sizeof target, "%s/%s", parent, base);
        struct stat sb;
        /* Killed between moving the previous output aside and the new one in. */
        if (lstat(old, &sb) == 0 && S_ISDIR(sb.st_mode) && lstat(target, &sb) != 0 &&
            errno == ENOENT && rename(old, target) != 0)
            continue;
        removed += se_remove_tree(path) == 0;
    }
    closedir(d);
    return removed;
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
    se_owntmp_sweep(pb->parent, pb->base, who);
    st = se_owntmp_make(pb->parent, pb->base, who, pb->wrap, sizeof pb->wrap, err);
    if (st != SE_OK)
        return st;
    snprintf(pb->tmp, sizeof pb->tmp, "%s/new", pb->wrap);
    if (mkdir(pb->tmp, 0755) != 0) {
        int e = errno;
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: a temporary folder in %s cannot be created: %s", who,
                       pb->parent, strerror(e));
    }
    chmod(pb->tmp, 0755);
    return SE_OK;
}

se_status se_publish_commit(se_publish *pb, se_err *err)
{
    struct stat sb;
    char old[sizeof pb->wrap + 8];
    snprintf(old, sizeof old, "%s/old", pb->wrap);
    int had_old = lstat(pb->target, &sb) == 0;
    if (had_old && !S_ISDIR(sb.st_mode)) {
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_USAGE, "%s: %s is not a folder (a link or a file); it is "
                       "never replaced", pb->who, pb->target);
    }
    if (had_old && rename(pb->target, old) != 0) {
        int e = errno;
        se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: moving the previous output %s aside failed: %s",
                       pb->who, pb->target, strerror(e));
    }
    if (rename(pb->tmp, pb->target) != 0) {
        int e = errno;
        int restored = !had_old || rename(old, pb->target) == 0;
        if (restored)
            se_publish_abort(pb);
        return se_fail(err, SE_ERR_IO, "%s: renaming the new output to %s failed: %s%s%s",
                       pb->who, pb->target, strerror(e),
                       restored ? "" : "; the previous output is in ", restored ? "" : old);
    }
    pb->tmp[0] = '\0';
    se_publish_abort(pb);
    return SE_OK;
}

void se_publish_abort(se_publish *pb)
{
    if (pb->wrap[0])
        se_remove_tree(pb->wrap);
    pb->wrap[0] = pb->tmp[0] = '\0';
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
    return se_write_replace(path, who, fill_json, doc, err);
}
