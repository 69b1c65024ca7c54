/*
 * samples.c - case naming and the raw samples files (see samples.h).
 */
#include "bundle/samples.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/paths.h"
#include "model/strategy.h"

const char *se_scope_name(se_scope s)
{
    static const char *names[SE_NSCOPES] = {"device", "device_cold", "batch", "host"};
    return (unsigned)s < SE_NSCOPES ? names[s] : "unknown";
}

const char *se_scope_l2(se_scope s)
{
    return s == SE_SCOPE_DEVICE_COLD ? "flushed" : "warm";
}

void se_sample_set_free(se_sample_set *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}


static const char *control_names[SE_NCONTROLS] = {"empty_stream", "empty_graph", "coop_noop",
                                                  "barriers"};

int se_init_control_of(const se_protocol *p)
{
    for (int s = 0; s < se_protocol_nstrategies(p); s++)
        if (((p->strategies >> s) & 1u) && se_protocol_strategy(p, s)->init_control)
            return s;
    return -1;
}

se_status se_case_list(const se_protocol *p, se_case_id **out, size_t *n, se_err *err)
{
    const int ns = se_protocol_nstrategies(p);
    const int init = se_init_control_of(p);
    size_t per_shape = 1 + (size_t)(init >= 0);
    for (int s = 0; s < ns; s++)
        per_shape += (p->strategies >> s) & 1u;
    size_t total = p->n_shapes * per_shape + SE_NCONTROLS, k = 0;
    se_case_id *v = calloc(total, sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "case list: out of memory");
    for (size_t i = 0; i < p->n_shapes; i++) {
        const se_shape *sh = &p->shapes[i];
        for (int s = 0; s <= ns + 1; s++) {
            if (s < ns && !((p->strategies >> s) & 1u))
                continue;
            if (s == ns && init < 0)
                continue;
            se_case_id *c = &v[k++];
            c->shape = sh;
            c->strategy = s < ns ? s : s == ns ? SE_CASE_MK_INIT : SE_CASE_COPY;
            c->what = s < ns ? se_protocol_strategy(p, s)->name
                      : s == ns ? se_protocol_strategy(p, init)->init_control : "copy";
            c->n_scopes = SE_NSCOPES;
            se_case_id_make(sh->rows, sh->cols, c->what, c->id, sizeof c->id);
        }
    }
    for (int i = 0; i < SE_NCONTROLS; i++) {
        se_case_id *c = &v[k++];
        c->shape = NULL;
        c->strategy = SE_CASE_COPY;
        c->what = control_names[i];
        c->n_scopes = 1;
        se_control_id(c->what, c->id, sizeof c->id);
    }
    *out = v;
    *n = k;
    return SE_OK;
}

void se_samples_path(const se_case_id *c, char *path, size_t size)
{
    se_path_samples(c->id, path, size);
}

se_status se_samples_write(FILE *f, const se_sample_set *scopes, int n_scopes, se_err *err)
{
    fprintf(f, "%s\n", SE_SAMPLES_HEADER);
    for (int sc = 0; sc < n_scopes; sc++)
        for (size_t i = 0; i < scopes[sc].n; i++) {
            const se_sample *s = &scopes[sc].v[i];
            fprintf(f, "%" PRId64 ",%d,%d,%s,%s,%.17g,%.17g,%d\n", s->seq, s->round, s->position,
                    se_scope_name((se_scope)sc), se_scope_l2((se_scope)sc), s->ns, s->sm_mhz,
                    s->throttled);
        }
    if (ferror(f))
        return se_fail(err, SE_ERR_IO, "writing samples failed");
    return SE_OK;
}

static int parse_i64(const char *t, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(t, &end, 10);
    if (end == t || *end || errno)
        return 0;
    *v = x;
    return 1;
}

static int parse_f64(const char *t, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(t, &end);
    if (end == t || *end || errno)
        return 0;
    *v = x;
    return 1;
}

se_status se_sample_set_push(se_sample_set *s, const se_sample *x, se_err *err)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        se_sample *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "samples: out of memory");
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = *x;
    return SE_OK;
}

/* Parses one CSV row of 8 fields into s and its scope; checked: times a
 * run can measure (se_samples_read). */
static se_status parse_row(char *line, const char *name, long lineno, int n_scopes, int checked,
                           se_sample *s, int *scope, se_err *err)
{
    char *field[8];
    int nf = 0;
    for (char *p = line; nf < 8; nf++) {
        field[nf] = p;
        char *comma = strchr(p, ',');
        if (!comma) {
            nf++;
            break;
        }
        *comma = '\0';
        p = comma + 1;
    }
    if (nf != 8 || strchr(field[7], ','))
        return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: expected 8 comma-separated fields", name,
                       lineno);
    int64_t seq, round, pos, thr;
    *scope = -1;
    for (int sc = 0; sc < n_scopes; sc++)
        if (strcmp(field[3], se_scope_name((se_scope)sc)) == 0)
            *scope = sc;
    if (*scope < 0) {
        char shown[4 * 64 + 8];
        se_printable(field[3], shown, sizeof shown);
        return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: field 'scope': unknown scope '%s'", name,
                       lineno, shown);
    }
    if (strcmp(field[4], se_scope_l2((se_scope)*scope)) != 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: field 'l2': expected '%s' for scope %s",
                       name, lineno, se_scope_l2((se_scope)*scope), field[3]);
    if (!parse_i64(field[0], &seq) || !parse_i64(field[1], &round) || !parse_i64(field[2], &pos) ||
        !parse_f64(field[5], &s->ns) || !parse_f64(field[6], &s->sm_mhz) ||
        !parse_i64(field[7], &thr) || round < 0 || pos < 0 || (thr != 0 && thr != 1))
        return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: a field is not a valid number", name,
                       lineno);
    if (checked && !(isfinite(s->ns) && s->ns > 0.0 && s->ns <= SE_SAMPLE_MAX_NS))
        return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: field 'ns': %.17g is not a time a run "
                       "measures (a finite number of nanoseconds above 0 and at most %g)", name,
                       lineno, s->ns, SE_SAMPLE_MAX_NS);
    if (checked && !(isfinite(s->sm_mhz) && s->sm_mhz >= 0.0))
        return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: field 'sm_mhz': %.17g is not a clock (a "
                       "finite number of MHz, not negative)", name, lineno, s->sm_mhz);
    s->seq = seq;
    s->round = (int)round;
    s->position = (int)pos;
    s->throttled = (int)thr;
    return SE_OK;
}

static se_status read_rows(FILE *f, const char *name, se_sample_set *scopes, int n_scopes,
                           int checked, se_err *err)
{
    char line[512];
    long lineno = 0;
    memset(scopes, 0, (size_t)n_scopes * sizeof *scopes);
    se_status st = SE_OK;
    while (st == SE_OK && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            st = se_fail(err, SE_ERR_VALIDATION, "%s:%ld: line is truncated or too long", name,
                         lineno);
            break;
        }
        line[len - 1] = '\0';
        if (lineno == 1) {
            if (strcmp(line, SE_SAMPLES_HEADER) != 0)
                st = se_fail(err, SE_ERR_VALIDATION, "%s:1: expected the header '%s'", name,
                             SE_SAMPLES_HEADER);
            continue;
        }
        se_sample s;
        int scope = -1;
        st = parse_row(line, name, lineno, n_scopes, checked, &s, &scope, err);
        if (st == SE_OK)
            st = se_sample_set_push(&scopes[scope], &s, err);
    }
    if (st == SE_OK && lineno == 0)
        st = se_fail(err, SE_ERR_VALIDATION, "%s: empty file", name);
    if (st != SE_OK)
        for (int sc = 0; sc < n_scopes; sc++)
            se_sample_set_free(&scopes[sc]);
    return st;
}

se_status se_samples_read(FILE *f, const char *name, se_sample_set *scopes, int n_scopes,
                          se_err *err)
{
    return read_rows(f, name, scopes, n_scopes, 1, err);
}

se_status se_samples_read_unchecked(FILE *f, const char *name, se_sample_set *scopes,
                                    int n_scopes, se_err *err)
{
    return read_rows(f, name, scopes, n_scopes, 0, err);
}

se_status se_samples_load(const char *dir, const char *rel, se_sample_set *scopes, int n_scopes,
                          se_err *err)
{
    FILE *f;
    se_status st = se_fopen_below(dir, rel, SE_SAMPLES_MAX_BYTES, &f, NULL, err);
    if (st != SE_OK)
        return st;
    st = se_samples_read(f, rel, scopes, n_scopes, err);
    fclose(f);
    return st;
}
