/*
 * json.h - the one JSON loader of the program: every JSON file of a run, a
 * protocol or a peers script is parsed through it (the protocol parser in
 * this layer too, which is why it lives in model/). It refuses what is not a
 * regular file (a FIFO, a device, a directory), files over a size bound,
 * duplicate keys, a parse that takes more memory than a bound near the
 * file's size, and a wrong "format"/"version"; its messages name the file
 * and the field, with bytes from the file made printable.
 */
#ifndef SE_MODEL_JSON_H
#define SE_MODEL_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "model/se_common.h"

/* The largest JSON file read (256 MiB): a run's largest, validation.json,
 * is a few MB. */
#define SE_JSON_MAX_BYTES ((size_t)256 << 20)
/* The deepest nesting of objects and arrays any JSON file we read may have
 * (ours have at most 6 levels); deeper is refused, naming the field. */
#define SE_JSON_MAX_DEPTH 32

/* The memory one parse may take: SE_JSON_MEMORY_FACTOR times the text's
 * bytes, and SE_JSON_MEMORY_SLACK (16 MiB). The committed runs' JSON
 * files of over 10 kB take at most 5.23 times their size (resources.json,
 * counted with malloc_usable_size as the parse counts), a list of small
 * numbers about 20 times: past the bound the parse stops and the file is
 * refused (SE_ERR_LIMIT), naming it. */
#define SE_JSON_MEMORY_FACTOR 8
#define SE_JSON_MEMORY_SLACK ((size_t)16 << 20)

/* Loads path (named `name` in messages, e.g. "validation.json") into *out.
 * When format is not NULL, the top level must be an object whose "format"
 * is that string and whose "version" is an integer in [1, max_version]
 * (*version receives it when version is not NULL). */
se_status se_json_load(const char *path, const char *name, const char *format, int max_version,
                       int *version, json_t **out, se_err *err);

/* The same over bytes in memory. */
se_status se_json_parse(const void *data, size_t len, const char *name, const char *format,
                        int max_version, int *version, json_t **out, se_err *err);

/* Typed getters for untrusted JSON: obj[key] must be present and of the
 * asked type (an integer count written as a string, a real or a boolean is
 * an error, never 0). Failures are SE_ERR_VALIDATION with the message
 * "WHERE: field 'KEY': expected ..., got TYPE", WHERE naming the file (and
 * the record, e.g. "validation.json: 32x4096.stream"). */
se_status se_json_get_int(const json_t *obj, const char *key, json_int_t min, json_int_t max,
                          json_int_t *out, const char *where, se_err *err);
/* A finite number (an integer or a real). */
se_status se_json_get_real(const json_t *obj, const char *key, double *out, const char *where,
                           se_err *err);
se_status se_json_get_bool(const json_t *obj, const char *key, int *out, const char *where,
                           se_err *err);
se_status se_json_get_str(const json_t *obj, const char *key, const char **out,
                          const char *where, se_err *err);

/* "an object", "a string", "a real", ... for messages; "nothing" for NULL. */
const char *se_json_type_name(const json_t *j);

/* Copies s into buf with every byte outside printable ASCII written as
 * \xNN, so text from an untrusted file cannot move the terminal's cursor. */
void se_printable(const char *s, char *buf, size_t size);

/* As se_printable, after dropping terminal colour and cursor sequences
 * (ESC [ parameters, intermediates, final byte): for messages shown as text,
 * such as a peer's error in a run made before bench/peers.py dropped them. */
void se_printable_plain(const char *s, char *buf, size_t size);

#endif
