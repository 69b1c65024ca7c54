/*
 * views_fields.h - private to the views' loaders (views_summary.c,
 * views_records.c, views_traces.c, views_compare.c): where a field is, and
 * the readers of one field, each refusing a malformed value with the file
 * and the field named. Below views.h: it knows no view. Not part of the
 * bundle's interface (views.h is).
 */
#ifndef SE_VIEWS_FIELDS_H
#define SE_VIEWS_FIELDS_H

#include <stddef.h>

#include <jansson.h>

#include "model/se_common.h"

/* Where a field is: its file and the path of the object holding it. */
typedef struct views_at {
    const char *file;
    char path[160]; /* "cases[3].scopes.device", "" for the top */
    se_err *err;
} views_at;

/* The object at key of o ("%s"), or entry i of array key ("%s[%zu]"). */
views_at views_at_key(const views_at *a, const char *key);
views_at views_at_index(const views_at *a, const char *key, size_t i);

/* The readers of o[key]: absent or JSON null reads as not present (*has 0,
 * a NULL string or object, 0 for an integer); a value of another type is
 * refused, naming a's file and path and key. */
se_status views_num(const views_at *a, const json_t *o, const char *key, double *out, int *has);
se_status views_integer(const views_at *a, const json_t *o, const char *key, long long *out);
se_status views_str(const views_at *a, const json_t *o, const char *key, const char **out);
/* 1, 0, or -1 where absent or null. */
se_status views_flag(const views_at *a, const json_t *o, const char *key, int *out);
/* 1 only where o[key] is true: false, absent or null read as 0. */
se_status views_truth(const views_at *a, const json_t *o, const char *key, int *out);
/* [lo, hi]: an array of exactly two numbers. */
se_status views_pair(const views_at *a, const json_t *o, const char *key, double out[2],
                     int *has);
/* o[key] as an object (or absent/null: NULL). */
se_status views_object(const views_at *a, const json_t *o, const char *key, const json_t **out);
/* o[key] as an array, its size in *n (absent/null: NULL, 0). */
se_status views_array(const views_at *a, const json_t *o, const char *key, const json_t **out,
                      size_t *n);

/* A field of a view: its key, and where its value lies in the view
 * (offsetof). */
typedef struct views_slot {
    const char *key;
    size_t off;
} views_slot;

/* Each of the n slots' fields of o read into the view at base, in order, as
 * views_str, views_integer or views_num (without a presence flag) read it;
 * stops at the first refusal. */
se_status views_strs(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                     void *base);
se_status views_integers(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                         void *base);
se_status views_nums(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                     void *base);
#define VIEWS_NSLOTS(s) (sizeof(s) / sizeof((s)[0]))

/* Room for n entries of size each, zeroed (n may be 0), in *(void **)out. */
se_status views_alloc(const views_at *a, size_t n, size_t size, void *out);

#endif
