/*
 * archive.c - `archive RUN -o FILE.tar.gz` (see archive.h): the complete run
 * as a deterministic archive written with libarchive, read back before it is
 * put in place, and the selected bundle: remote.json, the manifest extended
 * by its line, the remote-only files removed only after all of that.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "bundle/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/archive_internal.h"
#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/records.h"
#include "bundle/remote.h"
#include "bundle/remote_lines.h"
#include "bundle/sha256.h"
#include "bundle/verify.h"
#include "model/json.h"

#ifdef SE_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>

/* run.json's run_id and started_utc ("YYYY-MM-DDTHH:MM:SSZ") as seconds. */
static se_status run_identity(const char *run, char *run_id, size_t id_size, int64_t *mtime,
                              se_err *err)
{
    char path[4400];
    se_path_join(run, SE_RUN_JSON, path, sizeof path);
    json_t *j = NULL;
    se_status st = se_json_load(path, SE_RUN_JSON, SE_RUN_FORMAT, 1, NULL, &j, err);
    const char *id = NULL, *start = NULL;
    if (st == SE_OK)
        st = se_json_get_str(j, "run_id", &id, SE_RUN_JSON, err);
    if (st == SE_OK)
        st = se_json_get_str(j, "started_utc", &start, SE_RUN_JSON, err);
    int64_t seconds = 0;
    if (st == SE_OK && se_utc_seconds(start, &seconds) != 0)
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'started_utc': expected "
                     "YYYY-MM-DDTHH:MM:SSZ", SE_RUN_JSON);
    size_t n = st == SE_OK ? strlen(id) : 0;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'A' && id[i] <= 'Z') ||
              (id[i] >= 'a' && id[i] <= 'z') || id[i] == '-' || id[i] == '_'))
            st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'run_id': only [A-Za-z0-9_-] may "
                         "name the archive's folder", SE_RUN_JSON);
    if (st == SE_OK && (n == 0 || n >= id_size))
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'run_id': empty or too long", SE_RUN_JSON);
    if (st == SE_OK) {
        snprintf(run_id, id_size, "%s", id);
        *mtime = seconds;
    }
    json_decref(j);
    return st;
}

/* The entries: every listed file, the manifest and its signature if any. */
typedef struct entry_list {
    const char **v;
    size_t n;
} entry_list;

static int cmp_entry(const void *a, const void *b)
{
    return archive_path_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* Writes one file of the run as entry <run_id>/<rel>, streamed. */
static se_status write_entry(struct archive *a, struct archive_entry *e, const char *run,
                             const char *run_id, const char *rel, int64_t mtime, se_err *err)
{
    int fd;
    uint64_t size = 0;
    se_status st = se_open_below(run, rel, 0, &fd, &size, err);
    if (st != SE_OK)
        return st;
    char name[4400];
    snprintf(name, sizeof name, "%s/%s", run_id, rel);
    archive_entry_clear(e);
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)size);
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    archive_entry_set_mtime(e, (time_t)mtime, 0);
    if (archive_write_header(a, e) != ARCHIVE_OK) {
        close(fd);
        return se_fail(err, SE_ERR_IO, "archive: %s: %s", rel, archive_why(a));
    }
    enum { BLOCK = 1 << 16 };
    static char block[BLOCK];
    uint64_t done = 0;
    while (st == SE_OK) {
        ssize_t n = read(fd, block, BLOCK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            st = se_fail(err, SE_ERR_IO, "archive: %s: %s", rel, strerror(errno));
        else if (n == 0)
            break;
        else if (done + (uint64_t)n > size)
            st = se_fail(err, SE_ERR_IO, "archive: %s grew while it was being archived", rel);
        else if (archive_write_data(a, block, (size_t)n) != n)
            st = se_fail(err, SE_ERR_IO, "archive: %s: %s", rel, archive_why(a));
        else
            done += (uint64_t)n;
    }
    close(fd);
    if (st == SE_OK && done != size)
        st = se_fail(err, SE_ERR_IO, "archive: %s shrank while it was being archived", rel);
    return st;
}

/* Writes the archive to the open descriptor fd. */
static se_status write_archive(int fd, const char *run, const char *run_id, int64_t mtime, int level,
                               const entry_list *l, se_err *err)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();
    se_status st = SE_OK;
    char lvl[4];
    snprintf(lvl, sizeof lvl, "%d", level < 0 || level > 9 ? SE_ARCHIVE_DEFAULT_LEVEL : level);
    if (!a || !e)
        st = se_fail(err, SE_ERR_NOMEM, "out of memory for libarchive");
    /* pax restricted: ustar where it suffices, pax headers only for what
     * ustar cannot hold; gzip without the time or a name in its header. */
    else if (archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
             archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
             archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
             archive_write_set_filter_option(a, "gzip", "compression-level", lvl) != ARCHIVE_OK ||
             archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
             archive_write_open_fd(a, fd) != ARCHIVE_OK)
        st = se_fail(err, SE_ERR_IO, "archive: libarchive: %s", archive_why(a));
    for (size_t i = 0; st == SE_OK && i < l->n; i++)
        st = write_entry(a, e, run, run_id, l->v[i], mtime, err);
    if (a && st == SE_OK && archive_write_close(a) != ARCHIVE_OK)
        st = se_fail(err, SE_ERR_IO, "archive: %s", archive_why(a));
    archive_entry_free(e);
    if (a)
        archive_write_free(a);
    return st;
}

static int matches_any(const char *const *globs, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(globs[i], path, 0) == 0)
            return 1;
    return 0;
}

/* The remote-only selection: listed files matching a remote glob and no
 * keep glob, of at least min_bytes, of a kind that may be remote-only. */
static se_status select_remote(const se_archive_opts *o, const manifest_table *t, se_remote *r,
                               uint64_t *bytes, se_err *err)
{
    r->files = calloc(t->n ? t->n : 1, sizeof *r->files);
    if (!r->files)
        return se_fail(err, SE_ERR_NOMEM, "archive: out of memory");
    *bytes = 0;
    for (size_t i = 0; i < t->n; i++) {
        const char *p = t->v[i].path;
        if (!matches_any(o->remote, o->n_remote, p) || matches_any(o->keep, o->n_keep, p))
            continue;
        if (!se_remote_path_allowed(p)) {
            /* A pattern skips what verify needs; a path named as such is an error. */
            int literal = 0;
            for (size_t k = 0; k < o->n_remote; k++)
                literal |= strcmp(o->remote[k], p) == 0;
            if (o->remote_given && literal)
                return se_fail(err, SE_ERR_USAGE, "archive: --remote-only selects %s, which verify "
                               "needs locally (only arrays/*.f32, checks/*.f32, traces/<case>.csv "
                               "and %s may be remote-only)", p, SE_PROFILE_NCU_RAW_CSV);
            continue;
        }
        char full[4400];
        struct stat sb;
        se_path_join(o->run, p, full, sizeof full);
        if (lstat(full, &sb) != 0 || !S_ISREG(sb.st_mode))
            return se_fail(err, SE_ERR_IO, "archive: %s: not a regular file", p);
        if ((uint64_t)sb.st_size < o->min_bytes)
            continue;
        *bytes += (uint64_t)sb.st_size;
        if (!(r->files[r->n_files] = strdup(p)))
            return se_fail(err, SE_ERR_NOMEM, "archive: out of memory");
        r->n_files++;
    }
    return SE_OK; /* t is sorted bytewise, so r->files is too */
}

/* The manifest with remote.json's line added in order, the other lines
 * byte for byte, written to the new file path (in the private folder). */
static se_status extend_manifest(const char *run, const char *remote_hex, const char *path,
                                 se_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    se_status st = se_read_below(run, SE_MANIFEST_NAME, SE_MANIFEST_MAX_BYTES, &buf, &len, err);
    if (st != SE_OK)
        return st;
    char line[128];
    snprintf(line, sizeof line, "%s  %s\n", remote_hex, SE_REMOTE_JSON);
    size_t at = len;
    for (size_t off = 0; off < len;) {
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t end = nl ? (size_t)(nl - buf) + 1 : len;
        if (end - off > 66 && strncmp(buf + off + 66, SE_REMOTE_JSON "\n", end - off - 66) > 0) {
            at = off;
            break;
        }
        off = end;
    }
    FILE *f = NULL;
    st = se_fcreate_new(path, path, &f, err);
    int ok = f && fwrite(buf, 1, at, f) == at && fputs(line, f) >= 0 &&
             fwrite(buf + at, 1, len - at, f) == len - at;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(buf);
    if (st != SE_OK)
        return st;
    return ok ? SE_OK : se_fail(err, SE_ERR_IO, "%s cannot be written", path);
}

/* Writes "<hex>  <base>\n" as the new file path (FILE.sha256's content). */
static se_status write_sha256_file(const char *path, const char *hex, const char *base,
                                   se_err *err)
{
    FILE *f = NULL;
    se_status st = se_fcreate_new(path, path, &f, err);
    if (st != SE_OK)
        return st;
    int ok = fprintf(f, "%s  %s\n", hex, base) > 0;
    ok = fclose(f) == 0 && ok;
    return ok ? SE_OK : se_fail(err, SE_ERR_IO, "%s cannot be written", path);
}

/* Puts the archive and its .sha256, made in the private folder, in place
 * as FILE and FILE.sha256: links, so never over anything that exists
 * (a name taken since the start fails the command); FILE is taken back
 * when FILE.sha256 fails. */
static se_status put_output(const char *tmp, const char *output, se_err *err)
{
    char side[4400], tside[4920];
    snprintf(side, sizeof side, "%s.sha256", output);
    snprintf(tside, sizeof tside, "%s.sha256", tmp);
    if (link(tmp, output) != 0)
        return se_fail(err, SE_ERR_IO, "archive: %s cannot be created: %s", output,
                       strerror(errno));
    if (link(tside, side) == 0)
        return SE_OK;
    int e = errno;
    struct stat a, b;
    if (lstat(tmp, &a) == 0 && lstat(output, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev)
        unlink(output);
    return se_fail(err, SE_ERR_IO, "archive: %s cannot be created: %s; %s was not put in place",
                   side, strerror(e), output);
}

/* The output must not be inside the run (it would be an unlisted file). */
static int inside(const char *run, const char *output)
{
    char rr[4096], od[4096], dir[4400];
    snprintf(dir, sizeof dir, "%s", output);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    if (!realpath(run, rr) || !realpath(dir, od))
        return 0;
    size_t n = strlen(rr);
    return strncmp(od, rr, n) == 0 && (od[n] == '\0' || od[n] == '/');
}

/* Puts the two new files of the private folder priv in place: remote.json
 * as a new name (link: never over anything), then MANIFEST.sha256 over the
 * run's regular file (never over a link or anything else). On failure the
 * run is as it was. */
static se_status put_in_place(const char *run, const char *priv, se_err *err)
{
    char a[4400], b[4400];
    struct stat sa, sb;
    se_path_join(priv, SE_REMOTE_JSON, a, sizeof a);
    se_path_join(run, SE_REMOTE_JSON, b, sizeof b);
    if (lstat(a, &sa) != 0 || link(a, b) != 0)
        return se_fail(err, SE_ERR_IO, "%s cannot be created: %s", b, strerror(errno));
    char m[4400];
    se_path_join(priv, SE_MANIFEST_NAME, a, sizeof a);
    se_path_join(run, SE_MANIFEST_NAME, m, sizeof m);
    se_status st = SE_OK;
    if (lstat(m, &sb) != 0 || !S_ISREG(sb.st_mode))
        st = se_fail(err, SE_ERR_IO, "%s is no longer a regular file; it is not replaced", m);
    else if (rename(a, m) != 0)
        st = se_fail(err, SE_ERR_IO, "%s cannot be replaced: %s", m, strerror(errno));
    /* Undo remote.json only if it is still the link made above. */
    if (st != SE_OK && lstat(b, &sb) == 0 && sb.st_ino == sa.st_ino && sb.st_dev == sa.st_dev)
        unlink(b);
    return st;
}

/* Marks the selection remote-only: remote.json and the manifest extended
 * by its line are written as new files in a private folder the command
 * creates in the run (mkdtemp), so that nothing planted in the run is
 * written through; put in place (put_in_place); then the files removed,
 * none through a link (se_unlink_below). */
static se_status mark_remote(const se_archive_opts *o, se_remote *r, FILE *out, se_err *err)
{
    char priv[4400], a[4400];
    if (snprintf(priv, sizeof priv, "%s/%s-XXXXXX", o->run, SE_MANIFEST_TMP_PREFIX) >=
            (int)sizeof priv || !mkdtemp(priv))
        return se_fail(err, SE_ERR_IO, "archive: a private folder in %s cannot be created: %s",
                       o->run, strerror(errno));
    se_status st = se_manifest_sha256_without(o->run, SE_MANIFEST_NAME, SE_REMOTE_JSON,
                                              r->manifest_sha256, err);
    if (st == SE_OK) /* the remote-only lines of the complete run's manifest */
        st = se_remote_lines_sha256(o->run, r, r->lines_sha256, err);
    if (st == SE_OK)
        st = se_remote_write(priv, SE_REMOTE_JSON, r, err);
    unsigned char d[32];
    char hex[65];
    se_path_join(priv, SE_REMOTE_JSON, a, sizeof a);
    if (st == SE_OK && (st = se_sha256_file(a, d, err)) == SE_OK) {
        se_hex32(d, hex);
        se_path_join(priv, SE_MANIFEST_NAME, a, sizeof a);
        st = extend_manifest(o->run, hex, a, err);
    }
    if (st == SE_OK)
        st = put_in_place(o->run, priv, err);
    if (se_remove_tree(priv) != 0 && st == SE_OK)
        st = se_fail(err, SE_ERR_IO, "archive: %s cannot be removed: %s", priv, strerror(errno));
    if (st != SE_OK)
        return st;
    /* Only now, with the archive read back and the record in place. */
    for (size_t i = 0; i < r->n_files; i++) {
        se_err uerr = {{0}};
        if (se_unlink_below(o->run, r->files[i], &uerr) != SE_OK)
            return se_fail(err, SE_ERR_IO, "%s/%s (it is in the archive; the run still "
                           "verifies)", o->run, uerr.msg);
    }
    if (out)
        fprintf(out, "remote-only: %zu files now live only in %s (" SE_REMOTE_JSON "); the manifest "
                "lists " SE_REMOTE_JSON " too\n", r->n_files, r->archive_name);
    return SE_OK;
}

se_status se_archive_run(const se_archive_opts *o, FILE *out, se_err *err)
{
    struct stat sb;
    char sig[4400], remote[4400];
    if (stat(o->run, &sb) != 0)
        return se_fail(err, SE_ERR_USAGE, "archive: %s: %s", o->run,
                       errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return se_fail(err, SE_ERR_USAGE, "archive: %s: not a directory", o->run);
    if (lstat(o->output, &sb) == 0)
        return se_fail(err, SE_ERR_USAGE, "archive: -o %s: exists; an archive is never replaced "
                       "(remove it or choose another name)", o->output);
    char side[4400];
    if (snprintf(side, sizeof side, "%s.sha256", o->output) >= (int)sizeof side)
        return se_fail(err, SE_ERR_USAGE, "archive: -o %.200s...: too long", o->output);
    if (lstat(side, &sb) == 0)
        return se_fail(err, SE_ERR_USAGE, "archive: -o %s: %s exists (%s); it is never replaced "
                       "(remove it or choose another name)", o->output, side,
                       S_ISREG(sb.st_mode) ? "a file" : "not a regular file");
    const char *base = strrchr(o->output, '/') ? strrchr(o->output, '/') + 1 : o->output;
    size_t bl = strlen(base);
    if (bl == 0 || bl > 200)
        return se_fail(err, SE_ERR_USAGE, "archive: -o %s: needs a file name of 1 to 200 bytes",
                       o->output);
    for (const char *c = base; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '+' || *c == '-'))
            return se_fail(err, SE_ERR_USAGE, "archive: -o %s: the file name may hold only "
                           "[A-Za-z0-9._+-] (" SE_REMOTE_JSON " records it)", o->output);
    if (inside(o->run, o->output))
        return se_fail(err, SE_ERR_USAGE, "archive: -o %s: inside the run %s; write it elsewhere",
                       o->output, o->run);
    se_path_join(o->run, SE_REMOTE_JSON, remote, sizeof remote);
    if (lstat(remote, &sb) == 0)
        return se_fail(err, SE_ERR_USAGE, "archive: %s has a %s: it is already a selected bundle "
                       "whose complete run is in an archive; archive the complete run",
                       o->run, SE_REMOTE_JSON);
    se_path_join(o->run, SE_MANIFEST_SIG, sig, sizeof sig);
    int signed_run = lstat(sig, &sb) == 0;
    if (signed_run && o->mark)
        return se_fail(err, SE_ERR_USAGE, "archive: %s is signed (%s): marking files remote-only "
                       "rewrites its manifest, which voids the signature; archive it with "
                       "--no-remote-only, or archive before signing", o->run, SE_MANIFEST_SIG);
    se_status st = se_verify_first(o->run, "archive", "nothing is archived", err);
    if (st != SE_OK)
        return st;
    char run_id[64];
    int64_t mtime = 0;
    if ((st = run_identity(o->run, run_id, sizeof run_id, &mtime, err)) != SE_OK)
        return st;
    manifest_table t;
    if ((st = archive_manifest_load(o->run, &t, err)) != SE_OK)
        return st;
    entry_list l = {calloc(t.n + 2, sizeof *l.v), 0};
    if (!l.v) {
        archive_manifest_free(&t);
        return se_fail(err, SE_ERR_NOMEM, "archive: out of memory");
    }
    se_remote r;
    memset(&r, 0, sizeof r);
    char wrap[4600] = "";
    for (size_t i = 0; i < t.n; i++)
        l.v[l.n++] = t.v[i].path;
    l.v[l.n++] = SE_MANIFEST_NAME;
    if (signed_run)
        l.v[l.n++] = SE_MANIFEST_SIG;
    qsort(l.v, l.n, sizeof *l.v, cmp_entry);
    /* The selection first: a refused one leaves nothing behind. */
    uint64_t sel_bytes = 0;
    snprintf(r.run_id, sizeof r.run_id, "%s", run_id);
    if (o->mark && (st = select_remote(o, &t, &r, &sel_bytes, err)) != SE_OK)
        goto done;

    /* Written in the command's own folder beside FILE (a crashed run's is
     * removed by the next: se_owntmp_sweep). */
    char parent[4400], tmp[4900];
    if (base == o->output || base - o->output == 1)
        snprintf(parent, sizeof parent, "%s", base == o->output ? "." : "/");
    else
        snprintf(parent, sizeof parent, "%.*s", (int)(base - o->output - 1), o->output);
    se_owntmp_sweep(parent, base, "archive");
    if ((st = se_owntmp_make(parent, base, "archive", wrap, sizeof wrap, err)) != SE_OK)
        goto done;
    snprintf(tmp, sizeof tmp, "%s/%s", wrap, base);
    int fd;
    if ((st = se_create_new(tmp, tmp, &fd, err)) != SE_OK)
        goto done;
    if (out)
        fprintf(out, "archive: writing %zu files of %s as %s/ into %s\n", l.n, o->run, run_id,
                o->output);
    st = write_archive(fd, o->run, run_id, mtime, o->level, &l, err);
    if (st == SE_OK && (fsync(fd) != 0 || fchmod(fd, 0644) != 0))
        st = se_fail(err, SE_ERR_IO, "archive: %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && st == SE_OK)
        st = se_fail(err, SE_ERR_IO, "archive: %s: %s", tmp, strerror(errno));
    /* Read back before anything is put in place or removed. */
    char manifest_hex[65] = "";
    unsigned char d[32];
    char mpath[4400];
    se_path_join(o->run, SE_MANIFEST_NAME, mpath, sizeof mpath);
    if (st == SE_OK && (st = se_sha256_file(mpath, d, err)) == SE_OK)
        se_hex32(d, manifest_hex);
    archive_scan_report rep;
    if (st == SE_OK)
        st = archive_scan(tmp, run_id, &t, manifest_hex, NULL, NULL, out, &rep, err);
    if (st == SE_OK && (rep.problems || rep.matched != t.n + 1))
        st = se_fail(err, SE_ERR_IO, "archive: reading %s back found %zu problems (%zu of %zu "
                     "entries as listed); nothing was put in place", tmp, rep.problems,
                     rep.matched, t.n + 1);
    char hex[65] = "";
    struct stat ab;
    if (st == SE_OK && (st = se_sha256_file(tmp, d, err)) == SE_OK)
        se_hex32(d, hex);
    if (st == SE_OK && stat(tmp, &ab) != 0)
        st = se_fail(err, SE_ERR_IO, "archive: %s: %s", tmp, strerror(errno));
    char tside[4920];
    snprintf(tside, sizeof tside, "%s.sha256", tmp);
    if (st == SE_OK)
        st = write_sha256_file(tside, hex, base, err);
    if (st == SE_OK)
        st = put_output(tmp, o->output, err);
    if (st == SE_OK && out)
        fprintf(out, "archive: %s: %zu entries, %" PRIu64 " bytes, SHA-256 %s (read back: every "
                "entry as the manifest lists it); %s.sha256 written\n", o->output, rep.entries,
                (uint64_t)ab.st_size, hex, o->output);
    if (st != SE_OK || !o->mark)
        goto done;

    if (r.n_files == 0 && out)
        fprintf(out, "remote-only: nothing selected; the run stays complete\n");
    if (r.n_files > 0) {
        snprintf(r.archive_name, sizeof r.archive_name, "%s", base);
        memcpy(r.archive_sha256, hex, sizeof hex);
        r.archive_bytes = (uint64_t)ab.st_size;
        if (out)
            fprintf(out, "remote-only: %zu files, %" PRIu64 " bytes, selected\n", r.n_files,
                    sel_bytes);
        st = mark_remote(o, &r, out, err);
        if (st == SE_OK) {
            se_err verr = {{0}};
            if (se_verify_run(o->run, 1, NULL, &verr) != SE_OK)
                st = se_fail(err, SE_ERR_VALIDATION, "archive: the selected bundle %s does not "
                             "verify --strict: %s", o->run, verr.msg);
            else if (out)
                fprintf(out, "archive: the selected bundle %s verifies with --strict; verify %s "
                        "--archive %s checks the rest\n", o->run, o->run, o->output);
        }
    }
done:
    if (wrap[0])
        se_remove_tree(wrap);
    se_remote_free(&r);
    free(l.v);
    archive_manifest_free(&t);
    return st;
}

#else /* no libarchive */

se_status se_archive_run(const se_archive_opts *o, FILE *out, se_err *err)
{
    (void)out;
    return se_fail(err, SE_ERR_USAGE, "archive %s: not built in: this build has no libarchive "
                   "(install libarchive-dev and rebuild)", o->run);
}

#endif
