/*
 * manifest.c - SHA-256 manifests of an evidence bundle in `sha256sum -c`
 * format: hashing (OpenSSL EVP), writing a manifest over a directory
 * atomically, and verifying a directory against one.
 *
 * Writing walks the directory without following symbolic links and refuses
 * anything it could not list faithfully (a link, a device, a path with a
 * character that GNU sha256sum would escape, a line too long to verify).
 * Verifying treats the manifest as untrusted input: every line is parsed
 * strictly and capped in length, listed paths must stay inside the directory,
 * and a listed file counts as present only if the same walk finds it, so a
 * path through a symbolic link is never hashed. The only output is the
 * problem lines documented in manifest.h, on the stream the caller gives.
 */
#define _POSIX_C_SOURCE 200809L

#include "bundle/manifest.h"
#include "bundle/paths.h"

#include "bundle/fsutil.h"

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

#define MAX_LINE 4096                    /* bytes of a manifest line, newline excluded */
#define MAX_PATH_LEN (MAX_LINE - 64 - 2) /* the longest path a line can hold */
#define TMP_PREFIX SE_MANIFEST_TMP_PREFIX

static int path_char_ok(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '/' || c == '-';
}

/* Index of the first byte of s[0..n) outside [A-Za-z0-9._/-], or n. */
static size_t first_bad_char(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!path_char_ok((unsigned char)s[i]))
            return i;
    return n;
}

/* Prints a path found on disk, escaping bytes outside the allowed set as
 * \xHH so that a hostile name cannot forge or break report lines. */
static void print_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (path_char_ok((unsigned char)*s))
            fputc(*s, out);
        else
            fprintf(out, "\\x%02x", (unsigned char)*s);
    }
}

/* a + "/" + b (or b alone when a is empty), malloc'd; NULL on failure. */
static char *join_path(const char *a, const char *b)
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
static se_status check_name(const char *name, se_err *err)
{
    size_t n = strlen(name);
    if (n == 0 || n > 255 || strchr(name, '/') || first_bad_char(name, n) != n ||
        strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return se_fail(err, SE_ERR_USAGE,
                       "manifest name '%s' must be a plain file name of [A-Za-z0-9._-]", name);
    return SE_OK;
}

/* One entry found below the directory: its relative path, and whether it is
 * a regular file (anything else is a link, device, fifo or socket). */
typedef struct entry {
    char *path;
    int regular;
} entry;

typedef struct entry_list {
    entry *v;
    size_t n, cap;
} entry_list;

static void entries_free(entry_list *l)
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
    l->n++;
    return SE_OK;
}

static int cmp_entry(const void *pa, const void *pb)
{
    return strcmp(((const entry *)pa)->path, ((const entry *)pb)->path);
}

/* Adds every non-directory below root/rel to l (relative paths), recursing
 * into directories but never through a symbolic link. At the top level the
 * manifest itself, leftover temporary manifests and, beside a run's
 * manifest, its signature (SE_MANIFEST_SIG) are skipped. */
static se_status walk(const char *root, const char *rel, const char *name, entry_list *l,
                      se_err *err)
{
    char *dirpath = rel[0] ? join_path(root, rel) : join_path("", root);
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
        if (!rel[0] && (strcmp(base, name) == 0 ||
                        strncmp(base, TMP_PREFIX, sizeof TMP_PREFIX - 1) == 0))
            continue;
        if (!rel[0] && strcmp(name, SE_MANIFEST_NAME) == 0 && strcmp(base, SE_MANIFEST_SIG) == 0)
            continue;
        char *relpath = join_path(rel, base);
        char *full = relpath ? join_path(root, relpath) : NULL;
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
            st = walk(root, relpath, name, l, err);
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

/* Walks dir and sorts what it found bytewise. */
static se_status list_dir(const char *dir, const char *name, entry_list *l, se_err *err)
{
    memset(l, 0, sizeof *l);
    se_status st = walk(dir, "", name, l, err);
    if (st != SE_OK) {
        entries_free(l);
        return st;
    }
    if (l->n > 1)
        qsort(l->v, l->n, sizeof *l->v, cmp_entry);
    return SE_OK;
}

/* Writes the manifest lines for l to the open temporary file f. */
static se_status write_lines(const char *dir, const entry_list *l, FILE *f, const char *tmp,
                             se_err *err)
{
    for (size_t i = 0; i < l->n; i++) {
        char *full = join_path(dir, l->v[i].path);
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

se_status se_manifest_write(const char *dir, const char *name, se_err *err)
{
    se_status st = check_name(name, err);
    if (st != SE_OK)
        return st;
    entry_list l;
    st = list_dir(dir, name, &l, err);
    if (st != SE_OK)
        return st;
    for (size_t i = 0; i < l.n; i++) {
        const char *p = l.v[i].path;
        size_t len = strlen(p);
        size_t bad = first_bad_char(p, len);
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
            entries_free(&l);
            return st;
        }
    }

    char *final = join_path(dir, name);
    char *tmp = join_path(dir, TMP_PREFIX "-XXXXXX");
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
    entries_free(&l);
    return st;
}

/* One manifest line kept for verifying: the path and expected digest if it
 * parsed, otherwise why it did not. */
typedef struct line_rec {
    size_t line_no;
    char *path;           /* NULL when a duplicate */
    size_t dup_of;        /* the line it repeats, when a duplicate */
    char hex[65];
} line_rec;

/* The manifest's well-formed lines; of the malformed ones only the first
 * SHOWN_MALFORMED are kept (line and why), the rest are counted. */
#define SHOWN_MALFORMED 20
typedef struct line_list {
    line_rec *v;
    size_t n, cap;
    size_t n_malformed;
    size_t bad_line[SHOWN_MALFORMED];
    char bad_why[SHOWN_MALFORMED][96];
} line_list;

static void lines_free(line_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static void set_why(se_manifest_line *r, const char *why)
{
    snprintf(r->why, sizeof r->why, "%s", why);
}

/* Parses one line of len bytes held in s[0..len] (newline removed, s[len]
 * writable; may hold NUL bytes) into r: either r->path (pointing into s)
 * and r->hex, or r->why. */
static void parse_line(char *s, size_t len, se_manifest_line *r)
{
    if (len < 64 + 2) {
        set_why(r, len == 0 ? "empty line" : "too short for a digest and a path");
        return;
    }
    for (size_t i = 0; i < 64; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            set_why(r, "the first 64 bytes are not lowercase hex digits");
            return;
        }
    }
    if (s[64] != ' ' || (s[65] != ' ' && s[65] != '*')) {
        set_why(r, "expected two spaces or \" *\" after the digest");
        return;
    }
    char *p = s + 66;
    size_t plen = len - 66;
    if (plen == 0) {
        set_why(r, "empty path");
        return;
    }
    size_t bad = first_bad_char(p, plen);
    if (bad != plen) {
        snprintf(r->why, sizeof r->why, "byte 0x%02x in the path is outside [A-Za-z0-9._/-]",
                 (unsigned char)p[bad]);
        return;
    }
    if (p[0] == '/') {
        set_why(r, "absolute path");
        return;
    }
    for (size_t start = 0; start <= plen;) {
        size_t end = start;
        while (end < plen && p[end] != '/')
            end++;
        size_t clen = end - start;
        if (clen == 0) {
            set_why(r, "empty path component");
            return;
        }
        if ((clen == 1 && p[start] == '.') || (clen == 2 && p[start] == '.' && p[start + 1] == '.')) {
            set_why(r, "path component \".\" or \"..\"");
            return;
        }
        start = end + 1;
    }
    p[plen] = '\0';
    r->path = p;
    memcpy(r->hex, s, 64);
    r->hex[64] = '\0';
}

se_status se_manifest_read(const char *dir, const char *name, se_manifest_line_fn fn, void *ctx,
                           se_err *err)
{
    char *mpath = join_path(dir, name);
    if (!mpath)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate the manifest path in %s", dir);
    /* Untrusted: a regular file (no link, FIFO or device), bounded in size;
     * read in blocks, each line copied once into a bounded buffer. */
    int fd;
    se_err oerr = {{0}};
    se_status st = se_open_regular(mpath, mpath, SE_MANIFEST_MAX_BYTES, &fd, NULL, &oerr);
    if (st != SE_OK) {
        const char *why = oerr.msg + strlen(mpath);
        why += strncmp(why, ": ", 2) == 0 ? 2 : 0;
        st = se_fail(err, st, "cannot read manifest %s: %s", mpath, why);
    }
    free(mpath);
    if (st != SE_OK)
        return st;
    enum { BLOCK = 1 << 16 };
    char *buf = malloc(MAX_LINE + 1), *block = malloc(BLOCK);
    if (!buf || !block) {
        free(buf);
        free(block);
        close(fd);
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate a line buffer for %s", name);
    }
    size_t line_no = 0, len = 0;
    int too_long = 0, at_eof = 0;
    while (!at_eof && st == SE_OK) {
        ssize_t got = read(fd, block, BLOCK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            st = se_fail(err, SE_ERR_IO, "cannot read manifest %s: %s", name, strerror(errno));
            break;
        }
        at_eof = got == 0;
        size_t off = 0, n = (size_t)got;
        while (st == SE_OK && (off < n || (at_eof && (len > 0 || too_long)))) {
            const char *nl = off < n ? memchr(block + off, '\n', n - off) : NULL;
            size_t take = nl ? (size_t)(nl - (block + off)) : n - off;
            if (too_long || len + take > MAX_LINE) {
                too_long = 1;
            } else {
                memcpy(buf + len, block + off, take);
                len += take;
            }
            off += take;
            if (!nl && !at_eof)
                break; /* the line continues in the next block */
            if (nl)
                off++;
            se_manifest_line r;
            memset(&r, 0, sizeof r);
            r.line_no = ++line_no;
            if (too_long)
                snprintf(r.why, sizeof r.why, "line longer than %d bytes", MAX_LINE);
            else
                parse_line(buf, len, &r);
            st = fn(ctx, &r, err);
            len = 0;
            too_long = 0;
        }
    }
    free(buf);
    free(block);
    close(fd);
    return st;
}

/* se_manifest_read's callback that keeps every line in a line_list. */
static se_status keep_line(void *ctx, const se_manifest_line *line, se_err *err)
{
    line_list *l = ctx;
    if (!line->path) {
        if (l->n_malformed < SHOWN_MALFORMED) {
            l->bad_line[l->n_malformed] = line->line_no;
            memcpy(l->bad_why[l->n_malformed], line->why, sizeof line->why);
        }
        l->n_malformed++;
        return SE_OK;
    }
    if (l->n >= SE_MANIFEST_MAX_FILES)
        return se_fail(err, SE_ERR_LIMIT, "a manifest may list at most %d files; line %zu is "
                       "one more", SE_MANIFEST_MAX_FILES, line->line_no);
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        line_rec *v = cap <= SIZE_MAX / sizeof *v ? realloc(l->v, cap * sizeof *v) : NULL;
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "cannot allocate line %zu of a manifest",
                           line->line_no);
        l->v = v;
        l->cap = cap;
    }
    line_rec *r = &l->v[l->n];
    memset(r, 0, sizeof *r);
    r->line_no = line->line_no;
    r->path = strdup(line->path);
    if (!r->path)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate line %zu of a manifest",
                       line->line_no);
    memcpy(r->hex, line->hex, sizeof r->hex);
    l->n++;
    return SE_OK;
}

/* Reads and parses every line of dir/name. */
static se_status read_manifest(const char *dir, const char *name, line_list *l, se_err *err)
{
    memset(l, 0, sizeof *l);
    se_status st = se_manifest_read(dir, name, keep_line, l, err);
    if (st != SE_OK)
        lines_free(l);
    return st;
}

static int cmp_line_ptr(const void *pa, const void *pb)
{
    const line_rec *a = *(const line_rec *const *)pa, *b = *(const line_rec *const *)pb;
    int c = strcmp(a->path, b->path);
    if (c)
        return c;
    return (a->line_no > b->line_no) - (a->line_no < b->line_no);
}

/* Marks every repeat listing of a path malformed (the first one stands) and
 * returns the well-formed lines sorted by path in *sorted, *n_sorted. */
static se_status mark_duplicates(line_list *l, line_rec ***sorted, size_t *n_sorted,
                                 const char *mpath, se_err *err)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->v[i].path != NULL;
    line_rec **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "cannot index the lines of %s", mpath);
    n = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].path)
            v[n++] = &l->v[i];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_line_ptr);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && strcmp(v[kept - 1]->path, v[i]->path) == 0) {
            v[i]->dup_of = v[kept - 1]->line_no;
            free(v[i]->path);
            v[i]->path = NULL;
        } else {
            v[kept++] = v[i];
        }
    }
    *sorted = v;
    *n_sorted = kept;
    return SE_OK;
}

static const entry *find_entry(const entry_list *on_disk, const char *path)
{
    entry key = {(char *)path, 0};
    if (on_disk->n == 0)
        return NULL;
    return bsearch(&key, on_disk->v, on_disk->n, sizeof key, cmp_entry);
}

static int is_listed(line_rec *const *sorted, size_t n, const char *path)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(sorted[mid]->path, path);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Checks one well-formed line against the directory, counting and printing
 * the outcome. */
static se_status check_listed(const char *dir, const line_rec *r, const entry_list *on_disk,
                              FILE *out, se_manifest_report *rep)
{
    const entry *e = find_entry(on_disk, r->path);
    if (!e) {
        rep->remote_only++;
        if (out)
            fprintf(out, "remote-only: %s\n", r->path);
        return SE_OK;
    }
    if (!e->regular) {
        rep->mismatched++;
        if (out)
            fprintf(out, "mismatch: %s: expected %s, got a symbolic link or non-regular file\n",
                    r->path, r->hex);
        return SE_OK;
    }
    char *full = join_path(dir, r->path);
    if (!full)
        return SE_ERR_NOMEM;
    unsigned char digest[32];
    se_err herr;
    se_status st = se_sha256_file(full, digest, &herr);
    free(full);
    if (st == SE_ERR_NOMEM)
        return st;
    if (st != SE_OK) {
        rep->mismatched++;
        if (out)
            fprintf(out, "mismatch: %s: expected %s, got unreadable (%s)\n", r->path, r->hex,
                    herr.msg);
        return SE_OK;
    }
    char hex[65];
    se_hex32(digest, hex);
    if (strcmp(hex, r->hex) != 0) {
        rep->mismatched++;
        if (out)
            fprintf(out, "mismatch: %s: expected %s, got %s\n", r->path, r->hex, hex);
    } else {
        rep->verified++;
    }
    return SE_OK;
}

se_status se_manifest_verify(const char *dir, const char *name, FILE *out,
                             se_manifest_report *rep, se_err *err)
{
    memset(rep, 0, sizeof *rep);
    se_status st = check_name(name, err);
    if (st != SE_OK)
        return st;
    char *mpath = join_path(dir, name);
    if (!mpath)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate the manifest path in %s", dir);

    line_list lines;
    entry_list on_disk;
    line_rec **sorted = NULL;
    size_t n_sorted = 0;
    memset(&on_disk, 0, sizeof on_disk);
    st = read_manifest(dir, name, &lines, err);
    if (st != SE_OK) {
        free(mpath);
        return st;
    }
    st = mark_duplicates(&lines, &sorted, &n_sorted, mpath, err);
    if (st == SE_OK)
        st = list_dir(dir, name, &on_disk, err);
    if (st != SE_OK)
        goto done;

    rep->malformed = lines.n_malformed;
    for (size_t i = 0; out && i < lines.n_malformed && i < SHOWN_MALFORMED; i++)
        fprintf(out, "malformed: %s:%zu: %s\n", name, lines.bad_line[i], lines.bad_why[i]);
    if (out && lines.n_malformed > SHOWN_MALFORMED)
        fprintf(out, "malformed: %s: %zu more malformed lines\n", name,
                lines.n_malformed - SHOWN_MALFORMED);
    for (size_t i = 0; i < lines.n; i++) {
        const line_rec *r = &lines.v[i];
        if (!r->path) {
            rep->malformed++;
            if (out)
                fprintf(out, "malformed: %s:%zu: duplicate of line %zu\n", name, r->line_no,
                        r->dup_of);
            continue;
        }
        rep->listed++;
        st = check_listed(dir, r, &on_disk, out, rep);
        if (st != SE_OK) {
            st = se_fail(err, st, "cannot allocate a path below %s", dir);
            goto done;
        }
    }
    for (size_t i = 0; i < on_disk.n; i++) {
        if (is_listed(sorted, n_sorted, on_disk.v[i].path))
            continue;
        rep->unlisted++;
        if (out) {
            fputs("unlisted: ", out);
            print_escaped(out, on_disk.v[i].path);
            fputc('\n', out);
        }
    }

done:
    free(sorted);
    entries_free(&on_disk);
    lines_free(&lines);
    free(mpath);
    return st;
}

se_status se_manifest_own_output(const char *dir, const char *name, const char *who, se_err *err)
{
    se_status st = check_name(name, err);
    if (st != SE_OK)
        return st;
    line_list lines;
    entry_list on_disk;
    line_rec **sorted = NULL;
    size_t n_sorted = 0;
    memset(&on_disk, 0, sizeof on_disk);
    se_err rerr = {{0}};
    if (read_manifest(dir, name, &lines, &rerr) != SE_OK)
        return se_fail(err, SE_ERR_USAGE, "%s: %s exists and is not an output of this command "
                       "(%s cannot be read: %s); nothing was changed: choose another folder",
                       who, dir, name, rerr.msg);
    if (lines.n_malformed)
        st = se_fail(err, SE_ERR_USAGE, "%s: %s/%s has %zu malformed lines, so %s is not taken "
                     "for this command's output; nothing was changed: choose another folder",
                     who, dir, name, lines.n_malformed, dir);
    if (st == SE_OK)
        st = mark_duplicates(&lines, &sorted, &n_sorted, name, err);
    if (st == SE_OK)
        st = list_dir(dir, name, &on_disk, err);
    for (size_t i = 0; st == SE_OK && i < on_disk.n; i++) {
        const entry *e = &on_disk.v[i];
        if (e->regular && is_listed(sorted, n_sorted, e->path))
            continue;
        char shown[4 * 256 + 8];
        size_t o = 0;
        for (const unsigned char *c = (const unsigned char *)e->path; *c && o + 5 < sizeof shown;
             c++)
            o += (size_t)snprintf(shown + o, sizeof shown - o,
                                  path_char_ok(*c) ? "%c" : "\\x%02x", *c);
        st = se_fail(err, SE_ERR_USAGE, "%s: %s holds %s, which is not part of this command's "
                     "earlier output (%s%s); nothing was changed: move it away or choose "
                     "another folder", who, dir, shown, e->regular ? "not listed in " : "not a "
                     "regular file, or not listed in ", name);
    }
    free(sorted);
    entries_free(&on_disk);
    lines_free(&lines);
    return st;
}

typedef struct lists_ctx {
    const char *rel;
    int *listed;
} lists_ctx;

static se_status match_line(void *ctx, const se_manifest_line *line, se_err *err)
{
    (void)err;
    lists_ctx *c = ctx;
    if (line->path && strcmp(line->path, c->rel) == 0)
        *c->listed = 1;
    return SE_OK;
}

se_status se_manifest_lists(const char *dir, const char *name, const char *rel, int *listed,
                            se_err *err)
{
    *listed = 0;
    lists_ctx c = {rel, listed};
    return se_manifest_read(dir, name, match_line, &c, err);
}

int se_manifest_ok(const se_manifest_report *rep, int strict)
{
    return rep->mismatched == 0 && rep->unlisted == 0 && rep->malformed == 0 &&
           (!strict || rep->remote_only == 0);
}
