/*
 * archive_scan.c - reading a run's archive as untrusted input (see
 * archive_internal.h), and verify --archive (archive.h): every entry
 * streamed through libarchive and SHA-256, never unpacked to disk; saved
 * outputs re-checked from the archive's arrays with verify's own re-check.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/archive.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/archive_internal.h"
#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/manifest_internal.h"
#include "bundle/paths.h"
#include "bundle/peers.h"
#include "bundle/remote.h"
#include "bundle/sha256.h"
#include "model/json.h"

#ifdef SE_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>
#include <zlib.h>
#endif

/* ---- the manifest as a table ------------------------------------------- */

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const manifest_file *)a)->path, ((const manifest_file *)b)->path);
}

static se_status keep_file(void *ctx, const se_manifest_line *line, se_err *err)
{
    manifest_table *t = ctx;
    if (!line->path)
        return se_fail(err, SE_ERR_VALIDATION, "%s:%zu: %s", SE_MANIFEST_NAME, line->line_no,
                       line->why);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        manifest_file *v = cap <= SE_MANIFEST_MAX_FILES ? realloc(t->v, cap * sizeof *v) : NULL;
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "%s: out of memory at line %zu", SE_MANIFEST_NAME,
                           line->line_no);
        t->v = v;
        t->cap = cap;
    }
    manifest_file *f = &t->v[t->n];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(line->path)))
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_MANIFEST_NAME);
    memcpy(f->hex, line->hex, sizeof f->hex);
    t->n++;
    return SE_OK;
}

se_status archive_manifest_load(const char *dir, manifest_table *t, se_err *err)
{
    memset(t, 0, sizeof *t);
    se_status st = se_manifest_read(dir, SE_MANIFEST_NAME, keep_file, t, err);
    if (st == SE_OK && t->n > 1) {
        qsort(t->v, t->n, sizeof *t->v, cmp_file);
        for (size_t i = 1; st == SE_OK && i < t->n; i++)
            if (strcmp(t->v[i - 1].path, t->v[i].path) == 0)
                st = se_fail(err, SE_ERR_VALIDATION, "%s: %s is listed twice", SE_MANIFEST_NAME,
                             t->v[i].path);
    }
    if (st != SE_OK)
        archive_manifest_free(t);
    return st;
}

manifest_file *archive_manifest_find(const manifest_table *t, const char *path)
{
    manifest_file key = {(char *)path, "", 0};
    return t->n ? bsearch(&key, t->v, t->n, sizeof key, cmp_file) : NULL;
}

void archive_manifest_free(manifest_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].path);
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* ---- entry order -------------------------------------------------------- */

/* The sort key of a path: arrays/<shape>.x.f32 becomes arrays/<shape>.\1. */
static void order_key(const char *p, char *key, size_t size)
{
    size_t n = strlen(p);
    snprintf(key, size, "%s", p);
    if (strncmp(p, SE_ARRAYS_PREFIX, 7) == 0 && !strchr(p + 7, '/') && n > 7 + 6 &&
        strcmp(p + n - 6, ".x.f32") == 0 && n - 4 < size) {
        key[n - 5] = '\1';
        key[n - 4] = '\0';
    }
}

int archive_path_cmp(const char *a, const char *b)
{
    char ka[4200], kb[4200];
    order_key(a, ka, sizeof ka);
    order_key(b, kb, sizeof kb);
    return strcmp(ka, kb);
}

#ifdef SE_HAVE_LIBARCHIVE

/* ---- streaming an archive ----------------------------------------------- */

/* At most this many problems of an archive are printed; the rest are counted. */
#define SHOWN_PROBLEMS 50

static void scan_problem(archive_scan_report *rep, FILE *out, const char *fmt, const char *a,
                         const char *b)
{
    if (++rep->problems == SHOWN_PROBLEMS + 1 && out)
        fprintf(out, "  archive: more problems follow; only the first %d are shown\n",
                SHOWN_PROBLEMS);
    if (out && rep->problems <= SHOWN_PROBLEMS) {
        char msg[2048], shown[4 * sizeof msg];
        snprintf(msg, sizeof msg, fmt, a, b);
        se_printable(msg, shown, sizeof shown);
        fprintf(out, "  %s\n", shown);
    }
}

/* A path as a manifest may list it (manifest_path_check). */
static int path_ok(const char *p)
{
    return manifest_path_check(p, strlen(p), NULL, 0);
}

const char *archive_why(struct archive *a)
{
    const char *why = archive_error_string(a);
    return why ? why : "the stream ends early, with no reason from libarchive (a gzip stream "
                       "without its trailer, or a truncated tar)";
}

/* Reads the current entry's data (size bytes) through a SHA-256, into keep
 * (size bytes) when keep is not NULL, and into the re-check rc when rc is
 * not NULL (an output streamed against its input; a failure there is a
 * problem of the re-check, reported at its end, and stops feeding it). */
static se_status read_entry(struct archive *a, const char *name, uint64_t size, unsigned char *keep,
                            verify_recheck *rc, se_status *rc_st, se_err *rc_err, char hex[65],
                            se_err *err)
{
    enum { BLOCK = 1 << 16 };
    static unsigned char block[BLOCK];
    se_sha256_stream *s = se_sha256_begin();
    if (!s)
        return se_fail(err, SE_ERR_NOMEM, "out of memory hashing %s", name);
    uint64_t got = 0;
    for (;;) {
        la_ssize_t n = archive_read_data(a, block, BLOCK);
        if (n < 0) {
            se_sha256_free(s);
            return se_fail(err, SE_ERR_IO, "entry %s: %s", name, archive_why(a));
        }
        if (n == 0)
            break;
        if (got + (uint64_t)n > size) {
            se_sha256_free(s);
            return se_fail(err, SE_ERR_VALIDATION, "entry %s: more data than its header's %" PRIu64
                           " bytes", name, size);
        }
        if (keep)
            memcpy(keep + got, block, (size_t)n);
        if (rc && *rc_st == SE_OK)
            *rc_st = verify_recheck_feed(rc, block, (size_t)n, rc_err);
        se_sha256_update(s, block, (size_t)n);
        got += (uint64_t)n;
    }
    if (got != size) {
        se_sha256_free(s);
        return se_fail(err, SE_ERR_IO, "entry %s: %" PRIu64 " of its %" PRIu64 " bytes (truncated)",
                       name, got, size);
    }
    unsigned char d[32];
    se_status st = se_sha256_end(s, d, err);
    if (st == SE_OK)
        se_hex32(d, hex);
    return st;
}

/* ---- the gzip stream, inflated here ----------------------------------- */

/* The archive's bytes as libarchive's tar reader gets them: inflated here
 * (zlib, one gzip member), so that the stream is read to its end: the
 * member's CRC and length checked, and nothing after it. */
typedef struct gz_source {
    int fd;
    z_stream z;
    int z_ready, member_end, file_end;
    uint64_t delivered;         /* inflated bytes given to libarchive */
    size_t last_len;            /* of the last block given */
    unsigned char in[1 << 16], out[1 << 16];
    char why[200];              /* why the stream failed, "" if it did not */
} gz_source;

/* The next inflated block into src->out; 0 at the member's end, -1 on an
 * error (src->why). */
static la_ssize_t gz_inflate(gz_source *src)
{
    if (src->member_end)
        return 0;
    src->z.next_out = src->out;
    src->z.avail_out = sizeof src->out;
    while (src->z.avail_out == sizeof src->out) {
        if (src->z.avail_in == 0 && !src->file_end) {
            ssize_t n = read(src->fd, src->in, sizeof src->in);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                snprintf(src->why, sizeof src->why, "cannot be read: %s", strerror(errno));
                return -1;
            }
            src->file_end = n == 0;
            src->z.next_in = src->in;
            src->z.avail_in = (uInt)n;
        }
        int r = inflate(&src->z, Z_NO_FLUSH);
        if (r == Z_STREAM_END) {
            src->member_end = 1;
            break;
        }
        if (r == Z_BUF_ERROR && src->file_end && src->z.avail_in == 0) {
            snprintf(src->why, sizeof src->why, "the gzip stream ends early (truncated)");
            return -1;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            snprintf(src->why, sizeof src->why, "the gzip stream is corrupt (zlib: %s)",
                     src->z.msg ? src->z.msg : "error");
            return -1;
        }
    }
    size_t n = sizeof src->out - src->z.avail_out;
    src->delivered += n;
    src->last_len = n;
    return (la_ssize_t)n;
}

static la_ssize_t gz_read(struct archive *a, void *ctx, const void **buf)
{
    gz_source *src = ctx;
    la_ssize_t n = gz_inflate(src);
    if (n < 0)
        archive_set_error(a, EIO, "%s", src->why);
    *buf = src->out;
    return n;
}

/* After the tar reader's end: the rest of the inflated stream must be the
 * zeros that pad the end-of-archive blocks, the member must end with its
 * CRC and length right, and no byte may follow it (a second member, or
 * anything else). consumed: the bytes the tar reader took. "" when so,
 * else why not into why. */
static void gz_finish(gz_source *src, uint64_t consumed, char *why, size_t size)
{
    why[0] = '\0';
    uint64_t tail = src->delivered > consumed ? src->delivered - consumed : 0;
    const unsigned char *p = src->out + (tail < src->last_len ? src->last_len - tail : 0);
    for (; p < src->out + src->last_len; p++)
        if (*p) {
            snprintf(why, size, "data after the tar end-of-archive blocks (a second tar stream?)");
            return;
        }
    for (;;) {
        la_ssize_t n = gz_inflate(src);
        if (n < 0) {
            snprintf(why, size, "%s", src->why);
            return;
        }
        if (n == 0)
            break;
        for (la_ssize_t i = 0; i < n; i++)
            if (src->out[i]) {
                snprintf(why, size, "data after the tar end-of-archive blocks (a second tar "
                         "stream?)");
                return;
            }
    }
    unsigned char probe;
    ssize_t more = src->z.avail_in ? 1 : read(src->fd, &probe, 1);
    if (more != 0)
        snprintf(why, size, "bytes after the end of the gzip stream (a second gzip member, or "
                 "trailing data)");
}

/* The protocol shape of rows x cols, or NULL. */
static const se_shape *shape_of(const se_protocol *p, int64_t rows, int64_t cols)
{
    for (size_t i = 0; i < p->n_shapes; i++)
        if (p->shapes[i].rows == rows && p->shapes[i].cols == cols)
            return &p->shapes[i];
    return NULL;
}

/* The record of case id: validation.json's, else a peers.json entry that
 * ran (ok or failed); *file names which. */
static const json_t *record_of(const verify_ctx *v, const char *id, const char **file)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(v->rd.validation, "cases"), i, c) {
        const char *cid = json_string_value(json_object_get(c, "case"));
        if (cid && strcmp(cid, id) == 0) {
            *file = SE_VALIDATION_JSON;
            return c;
        }
    }
    json_array_foreach(json_object_get(v->rd.peers, "peers"), i, c) {
        const char *cid = json_string_value(json_object_get(c, "case"));
        const char *st = json_string_value(json_object_get(c, "status"));
        if (cid && strcmp(cid, id) == 0 && st &&
            (strcmp(st, "ok") == 0 || strcmp(st, "failed") == 0)) {
            *file = SE_PEERS_FILE;
            return c;
        }
    }
    return NULL;
}

/* What an arrays/ entry is: 1 an input (x), 2 an output (y) of a protocol
 * shape, 0 neither (hashed like any file). */
static int array_kind(const verify_ctx *v, const char *rel, const se_shape **sh, char *id,
                      size_t id_size)
{
    if (!v || !v->rd.have_protocol || strncmp(rel, SE_ARRAYS_PREFIX, 7) != 0)
        return 0;
    size_t n = strlen(rel);
    int kind = n > 13 && strcmp(rel + n - 6, ".x.f32") == 0   ? 1
               : n > 13 && strcmp(rel + n - 6, ".y.f32") == 0 ? 2
                                                              : 0;
    if (!kind || n - 13 >= id_size)
        return 0;
    memcpy(id, rel + 7, n - 13);
    id[n - 13] = '\0';
    int64_t rows, cols;
    char what[SE_CASE_ID_SIZE];
    if (kind == 1) {
        char probe[SE_CASE_ID_SIZE + 4];
        snprintf(probe, sizeof probe, "%s.x", id);
        if (!se_case_id_parse(probe, &rows, &cols, what, sizeof what))
            return 0;
    } else if (!se_case_id_parse(id, &rows, &cols, what, sizeof what)) {
        return 0;
    }
    *sh = shape_of(&v->rd.p, rows, cols);
    return *sh ? kind : 0;
}

se_status archive_scan(const char *path, const char *run_id, manifest_table *t,
                       const char *manifest_hex, const char *skip_path, verify_ctx *v, FILE *out,
                       archive_scan_report *rep, se_err *err)
{
    memset(rep, 0, sizeof *rep);
    struct archive *a = archive_read_new();
    if (!a)
        return se_fail(err, SE_ERR_NOMEM, "out of memory for libarchive");
    archive_read_support_format_tar(a);
    se_status st = SE_OK;
    gz_source *src = calloc(1, sizeof *src);
    if (!src) {
        archive_read_free(a);
        return se_fail(err, SE_ERR_NOMEM, "out of memory for libarchive");
    }
    if ((st = se_open_regular(path, path, 0, &src->fd, NULL, err)) != SE_OK) {
        free(src);
        archive_read_free(a);
        return st;
    }
    if (inflateInit2(&src->z, 16 + MAX_WBITS) != Z_OK) {
        close(src->fd);
        free(src);
        archive_read_free(a);
        return se_fail(err, SE_ERR_NOMEM, "out of memory for zlib");
    }
    src->z_ready = 1;
    if (archive_read_open(a, src, NULL, gz_read, NULL) != ARCHIVE_OK) {
        st = se_fail(err, SE_ERR_IO, "%s: %s", path, archive_why(a));
        archive_read_free(a);
        inflateEnd(&src->z);
        close(src->fd);
        free(src);
        return st;
    }
    size_t prefix = strlen(run_id);
    int seen_manifest = 0, seen_sig = 0;
    size_t out_of_order = 0;         /* outputs read before their shape's input */
    char first_out_of_order[SE_CASE_ID_SIZE + 16] = "";
    float *x = NULL;                 /* the current shape's input, kept for its outputs */
    const se_shape *x_shape = NULL;
    char x_rel[SE_CASE_ID_SIZE + 16] = "";
    char x_hex[65] = "";             /* its SHA-256, as read_entry computed it */
    const se_shape *x_refused = NULL; /* the shape whose input was too large to keep */
    struct stat asb;
    uint64_t archive_bytes = stat(path, &asb) == 0 ? (uint64_t)asb.st_size : 0;
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            st = se_fail(err, SE_ERR_IO, "%s: after %zu entries: %s (truncated or corrupt)", path,
                         rep->entries, archive_why(a));
            break;
        }
        rep->entries++;
        const char *name = archive_entry_pathname(e);
        name = name ? name : "";
        char shown[4200];
        se_printable(name, shown, sizeof shown);
        char folder[4200];
        size_t nl = strlen(name);
        if (archive_entry_filetype(e) == AE_IFDIR && nl > 0 && nl < sizeof folder &&
            name[nl - 1] == '/') {
            memcpy(folder, name, nl - 1); /* "rid/arrays/" is checked as "rid/arrays" */
            folder[nl - 1] = '\0';
            name = folder;
        }
        if (strcmp(name, run_id) == 0 && archive_entry_filetype(e) == AE_IFDIR) {
            rep->entries--;
            continue;
        }
        if (strncmp(name, run_id, prefix) != 0 || name[prefix] != '/' || !path_ok(name + prefix + 1)) {
            scan_problem(rep, out, "archive: entry '%.300s': not a path below %s/ that a manifest "
                         "may list (absolute, '..', or other bytes): not read", shown, run_id);
            continue;
        }
        const char *rel = name + prefix + 1;
        if (archive_entry_filetype(e) == AE_IFDIR && !archive_entry_hardlink(e)) {
            rep->entries--; /* a folder entry (tar adds them): nothing to check, never unpacked */
            continue;
        }
        if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e) ||
            archive_entry_symlink(e)) {
            scan_problem(rep, out, "archive: entry %s: not a regular file (a link, folder or "
                         "device)%s: not read", rel, "");
            continue;
        }
        int is_manifest = strcmp(rel, SE_MANIFEST_NAME) == 0;
        int is_sig = strcmp(rel, SE_MANIFEST_SIG) == 0;
        manifest_file *f = archive_manifest_find(t, rel);
        if (f && skip_path && strcmp(rel, skip_path) == 0)
            f = NULL;
        if (!f && !is_manifest && !is_sig) {
            scan_problem(rep, out, "archive: entry %s: not in the run's manifest%s: not read", rel,
                         "");
            continue;
        }
        int *seen = f ? &f->seen : is_manifest ? &seen_manifest : &seen_sig;
        if (*seen) {
            scan_problem(rep, out, "archive: entry %s: a second entry of that path%s", rel, "");
            continue;
        }
        *seen = 1;
        if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0) {
            scan_problem(rep, out, "archive: entry %s: no size in its header: not read", rel, "");
            continue;
        }
        uint64_t size = (uint64_t)archive_entry_size(e);
        const se_shape *sh = NULL;
        char id[SE_CASE_ID_SIZE];
        int kind = f ? array_kind(v, rel, &sh, id, sizeof id) : 0;
        uint64_t want = 0;
        if (kind && verify_array_bytes(v, sh, rel, &want) != SE_OK)
            kind = 0;
        /* Reading back what `archive` just wrote (no run to check against,
         * v NULL), a saved array is only hashed: its bound is the arrays'. */
        int own_array = !v && f && strncmp(rel, SE_ARRAYS_PREFIX, 7) == 0 && size <= SE_ARRAY_MAX_BYTES;
        if (size > SE_ARCHIVE_ENTRY_MAX && !(kind && size == want) && !own_array) {
            char sz[80];
            snprintf(sz, sizeof sz, "%" PRIu64 " bytes, over the %" PRIu64, size,
                     SE_ARCHIVE_ENTRY_MAX);
            scan_problem(rep, out, "archive: entry %s: %s bytes of the largest file verify reads "
                         "(other than a saved array of its shape's size): not read", rel, sz);
            continue;
        }
        if (kind && size != want) {
            char sz[64];
            snprintf(sz, sizeof sz, "%" PRIu64 " bytes, the protocol's shape implies %" PRIu64, size,
                     want);
            scan_problem(rep, out, "archive: entry %s: %s", rel, sz);
            kind = 0;
        }
        /* An input is kept in memory for its outputs, which are streamed
         * against it: only where its bytes could have come from an archive
         * of this size (saved inputs are random floats, which gzip cannot
         * shrink to half), so that a small archive that inflates to
         * gigabytes (a gzip bomb) cannot take their memory. */
        if (kind == 1 && size > SE_ARCHIVE_KEEP_FREE + 2 * archive_bytes) {
            char sz[96];
            snprintf(sz, sizeof sz, "%" PRIu64 " bytes inflated from an archive of %" PRIu64, size,
                     archive_bytes);
            scan_problem(rep, out, "archive: entry %s: %s, more than saved random inputs can "
                         "compress to (a gzip bomb?): hashed, its shape's outputs not recomputed",
                         rel, sz);
            kind = 0;
            free(x);
            x = NULL;
            x_shape = NULL;
            x_refused = sh;
        }
        unsigned char *keep = NULL;
        if (kind == 1 && !(keep = malloc(size ? size : 1))) {
            st = se_fail(err, SE_ERR_NOMEM, "archive: entry %s: out of memory", rel);
            break;
        }
        /* An output: streamed against its shape's input, read before it. */
        const char *file = NULL;
        const json_t *c = kind == 2 ? record_of(v, id, &file) : NULL;
        verify_recheck *rc = NULL;
        se_status rc_st = SE_OK;
        se_err rc_err = {{0}};
        if (kind == 2 && c && x_shape == sh) {
            char key[100];
            snprintf(key, sizeof key, "archive|%s", x_hex);
            if (!(rc = verify_recheck_begin(v, &v->rd.p, sh, x, -1, key, 0, 0))) {
                st = se_fail(err, SE_ERR_NOMEM, "archive: entry %s: out of memory", rel);
                break;
            }
        }
        char hex[65];
        st = read_entry(a, rel, size, keep, rc, &rc_st, &rc_err, hex, err);
        if (st != SE_OK) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            free(keep);
            verify_recheck_free(rc);
            st = se_fail(err, st, "%s: %s (truncated or corrupt)", path, why);
            break;
        }
        const char *expect = f ? f->hex : is_manifest ? manifest_hex : NULL;
        if (expect && strcmp(hex, expect) != 0) {
            scan_problem(rep, out, "archive: entry %s: SHA-256 %s is not the manifest's", rel, hex);
            free(keep);
            verify_recheck_free(rc);
            continue;
        }
        if (expect)
            rep->matched++;
        if (f && v && verify_archived(v, rel))
            rep->remote_checked++;
        if (kind == 1) {
            free(x);
            x = (float *)keep;
            x_shape = sh;
            snprintf(x_rel, sizeof x_rel, "%s", rel);
            snprintf(x_hex, sizeof x_hex, "%s", hex);
            continue;
        }
        if (kind == 2 && !c) {
            scan_problem(rep, out, "archive: entry %s: no record of %s in " SE_VALIDATION_JSON
                         " or " SE_PEERS_FILE, rel, id);
        } else if (kind == 2 && !rc) {
            if (sh != x_refused && out_of_order++ == 0)
                snprintf(first_out_of_order, sizeof first_out_of_order, "%s", rel);
        } else if (kind == 2) {
            char where[300];
            snprintf(where, sizeof where, "%s: %s (from the archive)", file, id);
            size_t before = v->problems;
            if (rc_st != SE_OK) {
                verify_problem(v, "%s: cannot re-check from the saved arrays: %s", where,
                               rc_err.msg);
                verify_recheck_free(rc);
            } else {
                verify_recheck_end(rc, c, where, x_rel, rel, x_hex, hex);
            }
            rep->problems += v->problems - before;
            v->problems = before;
            if (strcmp(file, SE_VALIDATION_JSON) == 0)
                rep->arrays_validation++;
            else
                rep->arrays_peers++;
        }
        free(keep);
    }
    free(x);
    if (st == SE_OK) {
        char why[300];
        gz_finish(src, (uint64_t)archive_filter_bytes(a, 0), why, sizeof why);
        if (why[0])
            scan_problem(rep, out, "archive: %s%s: not what `archive` writes, refused", why, "");
    }
    archive_read_free(a);
    inflateEnd(&src->z);
    close(src->fd);
    free(src);
    if (st != SE_OK)
        return st;
    if (out_of_order) {
        char n[32];
        snprintf(n, sizeof n, "%zu", out_of_order);
        scan_problem(rep, out, "archive: %s saved outputs (the first %s) come before their "
                     "shape's input, as in an archive that `archive` did not write: their hashes "
                     "are checked, their validation is not recomputed", n, first_out_of_order);
    }
    if (!seen_manifest)
        scan_problem(rep, out, "archive: no entry %s/%s: the complete run's manifest is not "
                     "there", run_id, SE_MANIFEST_NAME);
    size_t missing = 0;
    for (size_t i = 0; i < t->n; i++)
        if (!t->v[i].seen && !(skip_path && strcmp(t->v[i].path, skip_path) == 0) &&
            missing++ < 10)
            scan_problem(rep, out, "archive: %s is listed in the manifest but not in the "
                         "archive%s", t->v[i].path, "");
    if (missing > 10) {
        char n[32];
        snprintf(n, sizeof n, "%zu", missing - 10);
        scan_problem(rep, out, "archive: %s more listed files are not in the archive%s", n, "");
    }
    return SE_OK;
}

/* The run is loaded leniently; the local verify that comes first names
 * what did not load. */
static void ignore_problem(void *ctx, const char *message)
{
    (void)ctx, (void)message;
}

se_status se_verify_archive(const char *run, const char *archive, FILE *out, se_err *err)
{
    verify_ctx v;
    memset(&v, 0, sizeof v);
    v.dir = run;
    v.out = out;
    se_status st = se_remote_load(run, &v.remote, &v.have_remote, err);
    if (st != SE_OK)
        return st;
    if (!v.have_remote)
        return se_fail(err, SE_ERR_USAGE, "verify --archive: %s has no %s: it is a complete run, "
                       "with nothing remote-only to check", run, SE_REMOTE_JSON);
    if (out)
        fprintf(out, "verify --archive %s\n", archive);
    size_t problems = 0;
    struct stat sb;
    unsigned char d[32];
    char hex[65] = "";
    if (stat(archive, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        se_remote_free(&v.remote);
        return se_fail(err, SE_ERR_IO, "verify --archive: %s: not a regular file", archive);
    }
    if ((st = se_sha256_file(archive, d, err)) != SE_OK) {
        se_remote_free(&v.remote);
        return st;
    }
    se_hex32(d, hex);
    const char *base = strrchr(archive, '/') ? strrchr(archive, '/') + 1 : archive;
    if ((uint64_t)sb.st_size != v.remote.archive_bytes || strcmp(hex, v.remote.archive_sha256) != 0) {
        problems++;
        if (out)
            fprintf(out, "  archive: %s is %" PRIu64 " bytes with SHA-256 %s; " SE_REMOTE_JSON " records "
                    "%" PRIu64 " bytes and %s\n", base, (uint64_t)sb.st_size, hex,
                    v.remote.archive_bytes, v.remote.archive_sha256);
    } else if (out) {
        char name[1100];
        se_printable(v.remote.archive_name, name, sizeof name);
        fprintf(out, "archive: %" PRIu64 " bytes, SHA-256 %s: as " SE_REMOTE_JSON " records for %s%s\n",
                (uint64_t)sb.st_size, hex, name,
                strcmp(base, v.remote.archive_name) == 0 ? "" : " (the file was renamed)");
    }
    char here[65];
    se_err merr = {{0}};
    if (se_manifest_sha256_without(run, SE_MANIFEST_NAME, SE_REMOTE_JSON, here, &merr) != SE_OK) {
        problems++;
        if (out)
            fprintf(out, "  archive: %s\n", merr.msg);
    } else if (strcmp(here, v.remote.manifest_sha256) != 0) {
        problems++;
        if (out)
            fprintf(out, "  archive: the manifest here, less " SE_REMOTE_JSON "'s line, hashes to %s, not "
                    "to " SE_REMOTE_JSON "'s complete_manifest_sha256 %s: files here changed since the "
                    "archive was made (their entries are named below)\n", here,
                    v.remote.manifest_sha256);
    }
    manifest_table t;
    se_rundata_load_each(run, &v.rd, ignore_problem, NULL);
    st = archive_manifest_load(run, &t, err);
    archive_scan_report rep;
    if (st == SE_OK) {
        st = archive_scan(archive, v.remote.run_id, &t, v.remote.manifest_sha256, SE_REMOTE_JSON,
                          &v, out, &rep, err);
        archive_manifest_free(&t);
    }
    if (st == SE_OK) {
        problems += rep.problems;
        if (rep.remote_checked != v.remote.n_files) {
            problems++;
            if (out)
                fprintf(out, "  archive: %zu of the %zu remote-only files of " SE_REMOTE_JSON " were "
                        "found with their listed SHA-256\n", rep.remote_checked, v.remote.n_files);
        }
        if (out) {
            fprintf(out, "archive: %zu entries, %zu with the manifest's SHA-256; %zu of %zu "
                    "remote-only files checked\n", rep.entries, rep.matched, rep.remote_checked,
                    v.remote.n_files);
            fprintf(out, "archive: %zu validation cases and %zu peer outputs recomputed from the "
                    "archive's arrays\n", rep.arrays_validation, rep.arrays_peers);
            fprintf(out, "verify --archive: %s (%zu problem%s)\n", problems ? "FAILED" : "OK",
                    problems, problems == 1 ? "" : "s");
        }
        if (problems)
            st = se_fail(err, SE_ERR_VALIDATION, "%s does not match %s: %zu problem%s", archive,
                         run, problems, problems == 1 ? "" : "s");
    }
    verify_ref_cache_free(&v);
    se_rundata_free(&v.rd);
    se_remote_free(&v.remote);
    return st;
}

int se_archive_supported(void)
{
    return 1;
}

#else /* no libarchive */

se_status archive_scan(const char *path, const char *run_id, manifest_table *t,
                       const char *manifest_hex, const char *skip_path, verify_ctx *v, FILE *out,
                       archive_scan_report *rep, se_err *err)
{
    (void)run_id, (void)t, (void)manifest_hex, (void)skip_path, (void)v, (void)out, (void)rep;
    return se_fail(err, SE_ERR_USAGE, "%s: this build has no libarchive (install libarchive-dev "
                   "and rebuild)", path);
}

se_status se_verify_archive(const char *run, const char *archive, FILE *out, se_err *err)
{
    (void)run, (void)out;
    return se_fail(err, SE_ERR_USAGE, "verify --archive %s: not built in: this build has no "
                   "libarchive (install libarchive-dev and rebuild)", archive);
}

int se_archive_supported(void)
{
    return 0;
}

#endif
