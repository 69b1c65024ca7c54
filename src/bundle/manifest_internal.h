/*
 * manifest_internal.h - private to manifest.c, manifest_read.c and
 * manifest_verify.c: the directory walk's and the kept lines' types and the
 * helpers they share. Not part of the bundle's interface (manifest.h is).
 */
#ifndef SE_MANIFEST_INTERNAL_H
#define SE_MANIFEST_INTERNAL_H

#include <stddef.h>

#include "model/se_common.h"

#define MAX_LINE 4096                    /* bytes of a manifest line, newline excluded */

/* One entry found below the directory: its relative path, and whether it is
 * a regular file (anything else is a link, device, fifo or socket). */
typedef struct entry {
    char *path;
    int regular;
    char listed[65]; /* set only for a selected bundle's remote-only file, which is not here:
                        its line is kept from the manifest being rewritten (bundle/remote.h) */
} entry;

typedef struct entry_list {
    entry *v;
    size_t n, cap;
} entry_list;

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

/* 1 when c is in [A-Za-z0-9._/-], the bytes a listed path may hold. */
int manifest_path_char_ok(unsigned char c);

/* Index of the first byte of s[0..n) outside [A-Za-z0-9._/-], or n. */
size_t manifest_first_bad_char(const char *s, size_t n);

/* 1 when p[0..n) is a path a manifest may list: [A-Za-z0-9._/-], relative,
 * not empty, no empty, "." or ".." component; else 0, with the reason in
 * why (why_n bytes; why may be NULL). */
int manifest_path_check(const char *p, size_t n, char *why, size_t why_n);

/* a + "/" + b (or b alone when a is empty), malloc'd; NULL on failure. */
char *manifest_join_path(const char *a, const char *b);

/* The manifest's own name must be a plain file name in dir. */
se_status manifest_check_name(const char *name, se_err *err);

void manifest_entries_free(entry_list *l);

/* qsort's comparison of entries, bytewise by path. */
int manifest_cmp_entry(const void *pa, const void *pb);

/* Walks dir and sorts what it found bytewise. */
se_status manifest_list_dir(const char *dir, const char *name, entry_list *l, se_err *err);

void manifest_lines_free(line_list *l);

/* Reads and parses every line of dir/name. */
se_status manifest_read_manifest(const char *dir, const char *name, line_list *l, se_err *err);

/* Marks every repeat listing of a path malformed (the first one stands) and
 * returns the well-formed lines sorted by path in *sorted, *n_sorted. */
se_status manifest_mark_duplicates(line_list *l, line_rec ***sorted, size_t *n_sorted,
                                  const char *mpath, se_err *err);

/* 1 when path is among the n sorted well-formed lines. */
int manifest_is_listed(line_rec *const *sorted, size_t n, const char *path);

/* Its line among the n sorted well-formed lines, or NULL. */
const line_rec *manifest_find_listed(line_rec *const *sorted, size_t n, const char *path);

#endif
