/*
 * manifest_verify.c - verifying a directory against its manifest, and
 * whether a folder is a command's own earlier output. Listed paths must stay
 * inside the directory, and a listed file counts as present only if the
 * same walk finds it, so a path through a symbolic link is never hashed. The
 * only output is the problem lines documented in manifest.h, on the stream
 * the caller gives.
 */
#define _POSIX_C_SOURCE 200809L

#include "bundle/manifest.h"
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

/* Prints a path found on disk, escaping bytes outside the allowed set as
 * \xHH so that a hostile name cannot forge or break report lines. */
static void print_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (manifest_path_char_ok((unsigned char)*s))
            fputc(*s, out);
        else
            fprintf(out, "\\x%02x", (unsigned char)*s);
    }
}

static const entry *find_entry(const entry_list *on_disk, const char *path)
{
    entry key = {(char *)path, 0, ""};
    if (on_disk->n == 0)
        return NULL;
    return bsearch(&key, on_disk->v, on_disk->n, sizeof key, manifest_cmp_entry);
}

/* Checks one well-formed line against the directory, counting and printing
 * the outcome. */
static se_status check_listed(const char *dir, const line_rec *r, const entry_list *on_disk,
                              FILE *out, se_manifest_report *rep, se_manifest_archived_fn archived,
                              void *ctx)
{
    const entry *e = find_entry(on_disk, r->path);
    if (!e && archived && archived(ctx, r->path)) {
        rep->archived++;
        return SE_OK;
    }
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
    char *full = manifest_join_path(dir, r->path);
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
    return se_manifest_verify_archived(dir, name, out, rep, NULL, NULL, err);
}

se_status se_manifest_verify_archived(const char *dir, const char *name, FILE *out,
                                      se_manifest_report *rep, se_manifest_archived_fn archived,
                                      void *ctx, se_err *err)
{
    memset(rep, 0, sizeof *rep);
    se_status st = manifest_check_name(name, err);
    if (st != SE_OK)
        return st;
    char *mpath = manifest_join_path(dir, name);
    if (!mpath)
        return se_fail(err, SE_ERR_NOMEM, "cannot allocate the manifest path in %s", dir);

    line_list lines;
    entry_list on_disk;
    line_rec **sorted = NULL;
    size_t n_sorted = 0;
    memset(&on_disk, 0, sizeof on_disk);
    st = manifest_read_manifest(dir, name, &lines, err);
    if (st != SE_OK) {
        free(mpath);
        return st;
    }
    st = manifest_mark_duplicates(&lines, &sorted, &n_sorted, mpath, err);
    if (st == SE_OK)
        st = manifest_list_dir(dir, name, &on_disk, err);
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
        /* The manifest cannot hash itself, nor list its own signature: a line
         * for either is a forgery, not a remote-only file. */
        if (strcmp(r->path, name) == 0 ||
            (strcmp(name, SE_MANIFEST_NAME) == 0 && strcmp(r->path, SE_MANIFEST_SIG) == 0)) {
            rep->malformed++;
            if (out)
                fprintf(out, "malformed: %s:%zu: lists %s, which a manifest never lists\n", name,
                        r->line_no, r->path);
            continue;
        }
        rep->listed++;
        st = check_listed(dir, r, &on_disk, out, rep, archived, ctx);
        if (st != SE_OK) {
            st = se_fail(err, st, "cannot allocate a path below %s", dir);
            goto done;
        }
    }
    for (size_t i = 0; i < on_disk.n; i++) {
        if (manifest_is_listed(sorted, n_sorted, on_disk.v[i].path))
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
    manifest_entries_free(&on_disk);
    manifest_lines_free(&lines);
    free(mpath);
    return st;
}

se_status se_manifest_own_output(const char *dir, const char *name, const char *who, se_err *err)
{
    se_status st = manifest_check_name(name, err);
    if (st != SE_OK)
        return st;
    line_list lines;
    entry_list on_disk;
    line_rec **sorted = NULL;
    size_t n_sorted = 0;
    memset(&on_disk, 0, sizeof on_disk);
    se_err rerr = {{0}};
    if (manifest_read_manifest(dir, name, &lines, &rerr) != SE_OK)
        return se_fail(err, SE_ERR_USAGE, "%s: %s exists and is not an output of this command "
                       "(%s cannot be read: %s); nothing was changed: choose another folder",
                       who, dir, name, rerr.msg);
    if (lines.n_malformed)
        st = se_fail(err, SE_ERR_USAGE, "%s: %s/%s has %zu malformed lines, so %s is not taken "
                     "for this command's output; nothing was changed: choose another folder",
                     who, dir, name, lines.n_malformed, dir);
    if (st == SE_OK)
        st = manifest_mark_duplicates(&lines, &sorted, &n_sorted, name, err);
    if (st == SE_OK)
        st = manifest_list_dir(dir, name, &on_disk, err);
    for (size_t i = 0; st == SE_OK && i < on_disk.n; i++) {
        const entry *e = &on_disk.v[i];
        const line_rec *r = e->regular ? manifest_find_listed(sorted, n_sorted, e->path) : NULL;
        int changed = 0;
        if (r) {
            /* Listed: replaced only if it is still the file this command wrote. */
            char *full = manifest_join_path(dir, e->path);
            unsigned char d[32];
            char hex[65] = "";
            se_err herr;
            if (full && se_sha256_file(full, d, &herr) == SE_OK)
                se_hex32(d, hex);
            free(full);
            if (strcmp(hex, r->hex) == 0)
                continue;
            changed = 1;
        }
        char shown[4 * 256 + 8];
        size_t o = 0;
        for (const unsigned char *c = (const unsigned char *)e->path; *c && o + 5 < sizeof shown;
             c++)
            o += (size_t)snprintf(shown + o, sizeof shown - o,
                                  manifest_path_char_ok(*c) ? "%c" : "\\x%02x", *c);
        if (changed)
            st = se_fail(err, SE_ERR_USAGE, "%s: %s/%s changed since this command wrote it (its "
                         "SHA-256 is not the one %s lists): an edit would be lost; nothing was "
                         "changed: move it away or choose another folder", who, dir, shown, name);
        else
            st = se_fail(err, SE_ERR_USAGE, "%s: %s holds %s, which is not part of this "
                         "command's earlier output (%s%s); nothing was changed: move it away or "
                         "choose another folder", who, dir, shown, e->regular ? "not listed in "
                         : "not a regular file, or not listed in ", name);
    }
    free(sorted);
    manifest_entries_free(&on_disk);
    manifest_lines_free(&lines);
    return st;
}

int se_manifest_ok(const se_manifest_report *rep, int strict)
{
    return rep->mismatched == 0 && rep->unlisted == 0 && rep->malformed == 0 &&
           (!strict || rep->remote_only == 0);
}
