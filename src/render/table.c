/*
 * table.c - the timing table of a run (see table.h).
 */
#include "render/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/samples.h"
#include "bundle/verify.h"
#include "bundle/peers.h"
#include "bundle/views.h"
#include "model/strategy.h"
#include "model/json.h"
#include "render/answer_text.h"

/* s, or fallback where the run has no such field. */
static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* "5x4097": the run's own RxC of a case or peer entry (the protocol's
 * spelling, e.g. 5xT+1, is not a name the other commands take). */
static const char *shape_of(long long rows, long long cols, char *buf, size_t size)
{
    se_shape_id(rows, cols, buf, size);
    return buf;
}

/* Cases i and i + 1 of the summary are on one shape. */
static int next_same_shape(const se_run_views *v, size_t i)
{
    return i + 1 < v->n_cases && v->cases[i + 1].rows == v->cases[i].rows &&
           v->cases[i + 1].cols == v->cases[i].cols;
}

/* summary.json's derived entry of the shape of case c (bundle/derived.h):
 * every "best peer", "fastest" and "vs_best_peer" the table prints is read
 * from it, never computed here. */
static const se_derived_shape_view *derived_shape(const se_rundata *rd, const se_case_view *c)
{
    return se_views_shape(se_rundata_views(rd), c->rows, c->cols);
}

/* The best peer's name of a derived shape, or NULL. */
static const char *best_name(const se_derived_shape_view *shape)
{
    return shape && shape->best_peer.present ? shape->best_peer.name : NULL;
}

/* "0.897", with "*" where the row is the best peer itself. */
static void vs_text(char *buf, size_t size, int has_vs, double vs,
                    const se_derived_shape_view *shape, const char *what)
{
    const char *best = best_name(shape);
    if (has_vs)
        snprintf(buf, size, "%.3f%s", vs, best && strcmp(best, what) == 0 ? "*" : "");
    else
        snprintf(buf, size, "-");
}

/* One row: d is a device-scope summary (a case's, or a peer's). */
static void print_row(FILE *out, const char *shape, const char *what, const se_scope_view *d,
                      const char *vs_cell)
{
    char ratio[16] = "-", rci[32] = "-", frac[16] = "-", vs[24] = "-", gbps[24] = "-";
    if (d->has_gbps) /* none for megakernel_init: it moves no bytes */
        snprintf(gbps, sizeof gbps, "%.1f", d->gbps);
    if (d->has_ratio) {
        snprintf(ratio, sizeof ratio, "%.3f", d->ratio);
        snprintf(rci, sizeof rci, "[%.3f, %.3f]", d->ratio_ci95[0], d->ratio_ci95[1]);
    }
    if (d->has_fraction)
        snprintf(frac, sizeof frac, "%.3f", d->fraction_of_copy);
    snprintf(vs, sizeof vs, "%s", vs_cell);
    fprintf(out, "%-12s %-17s %12.2f   [%9.2f, %9.2f] %8s %21s %9s %7s %12s\n", shape, what,
            d->median_ns / 1e3, d->ci95_ns[0] / 1e3, d->ci95_ns[1] / 1e3, ratio, rci, gbps, frac,
            vs);
}

/* The peers of the shape of shape_case. */
static void print_peers(FILE *out, const se_rundata *rd, const se_case_view *shape_case,
                        const se_derived_shape_view *dshape)
{
    const se_peers_view *pv = &se_rundata_views(rd)->peers;
    for (size_t i = 0; i < pv->n; i++) {
        const se_peer_view *e = &pv->v[i];
        if (e->rows != shape_case->rows || e->cols != shape_case->cols)
            continue;
        const char *status = or_else(e->status, "?");
        char sbuf[SE_CASE_ID_SIZE];
        const char *shape = shape_of(shape_case->rows, shape_case->cols, sbuf, sizeof sbuf);
        const char *peer = or_else(e->peer, "?");
        const se_derived_peer_view *de = se_views_shape_peer(dshape, peer);
        char vs[32];
        vs_text(vs, sizeof vs, de && de->has_vs, de ? de->vs_best_peer : 0.0, dshape, peer);
        if (strcmp(status, "ok") == 0 || strcmp(status, "failed") == 0) {
            print_row(out, shape, peer, &e->summary, status[0] == 'f' ? "FAILED" : vs);
        } else {
            char shown[400]; /* the run's text, made printable for the terminal */
            int skipped = strcmp(status, "skipped") == 0;
            se_printable_plain(or_else(skipped ? e->reason : e->error, "?"), shown, sizeof shown);
            fprintf(out, "%-12s %-17s %s: %.90s\n", shape, peer, skipped ? "skipped" : "error",
                    shown);
        }
    }
}

static void print_peers_line(FILE *out, const se_rundata *rd)
{
    const se_peers_view *pv = &se_rundata_views(rd)->peers;
    char why[1200];
    if (se_peers_absent(rd->peers, why, sizeof why)) {
        fprintf(out, "peers: %s; vs_best_peer counts cuDNN only\n", why);
        return;
    }
    size_t ok = 0, failed = 0, errors = 0, skipped = 0;
    for (size_t i = 0; i < pv->n; i++) {
        const char *s = or_else(pv->v[i].status, "");
        ok += strcmp(s, "ok") == 0;
        failed += strcmp(s, "failed") == 0;
        skipped += strcmp(s, "skipped") == 0;
        errors += strcmp(s, "ok") != 0 && strcmp(s, "failed") != 0 && strcmp(s, "skipped") != 0;
    }
    char skip_text[48] = "";
    if (skipped)
        snprintf(skip_text, sizeof skip_text, ", %zu skipped", skipped);
    fprintf(out, "peers: torch %s on %s (%s): %zu of %zu (peer, shape) cases passed validation, "
            "%zu failed, %zu errors%s\n", or_else(pv->torch_version, "?"),
            or_else(pv->device_name, "?"), or_else(pv->script, "?"), ok, pv->n, failed, errors,
            skip_text);
}

/* Per shape, last: our fastest (validated) strategy, its fraction of the
 * same-run copy, the best peer and how many times faster ours is. */
static void print_best(FILE *out, const se_rundata *rd)
{
    fprintf(out, "\n%-12s %-17s %12s %8s %-17s %12s %12s\n", "shape", "fastest of ours",
            "median_us", "of_copy", "best peer", "median_us", "vs_best_peer");
    const se_run_views *v = se_rundata_views(rd);
    for (size_t i = 0; i < v->n_cases; i++) {
        const se_case_view *c = &v->cases[i];
        if (next_same_shape(v, i))
            continue;
        const se_derived_shape_view *dshape = derived_shape(rd, c);
        const se_pick_view *mine = dshape && dshape->fastest_ours.present ? &dshape->fastest_ours
                                                                          : NULL;
        const se_best_peer_view *best = dshape && dshape->best_peer.present ? &dshape->best_peer
                                                                            : NULL;
        const char *peer = best ? or_else(best->name, "?") : NULL;
        char frac[16] = "-", pm[24] = "-", vs[24] = "-";
        if (mine && mine->has_fraction)
            snprintf(frac, sizeof frac, "%.3f", mine->fraction_of_copy);
        if (peer) {
            snprintf(pm, sizeof pm, "%.2f", best->median_ns / 1e3);
            if (mine && best->has_vs)
                snprintf(vs, sizeof vs, "%.3f", best->vs_best_peer);
        }
        char sbuf[SE_CASE_ID_SIZE];
        fprintf(out, "%-12s %-17s %12.2f %8s %-17s %12s %12s\n",
                shape_of(c->rows, c->cols, sbuf, sizeof sbuf),
                mine ? or_else(mine->strategy, "?") : "-", mine ? mine->median_ns / 1e3 : 0.0,
                frac, peer ? peer : "-", pm, vs);
    }
}

void se_table_print(FILE *out, const se_rundata *rd)
{
    fprintf(out, "\n%-12s %-17s %12s %25s %8s %21s %9s %7s %12s\n", "shape", "strategy",
            "median_us", "95% CI (us)", "ratio", "ratio 95% CI", "GB/s", "of_copy",
            "vs_best_peer");
    const se_run_views *v = se_rundata_views(rd);
    for (size_t i = 0; i < v->n_cases; i++) {
        const se_case_view *c = &v->cases[i];
        const se_derived_shape_view *dshape = derived_shape(rd, c);
        const char *what = or_else(c->what, "?");
        const se_derived_case_view *dc = se_views_shape_case(dshape, or_else(c->id, ""));
        char vs[32];
        vs_text(vs, sizeof vs, dc && dc->has_vs, dc ? dc->vs_best_peer : 0.0, dshape, what);
        char sbuf[SE_CASE_ID_SIZE];
        print_row(out, shape_of(c->rows, c->cols, sbuf, sizeof sbuf), what,
                  &c->scope[SE_SCOPE_DEVICE], vs);
        if (!next_same_shape(v, i))
            print_peers(out, rd, c, dshape);
    }
    for (size_t i = 0; i < v->n_controls; i++)
        fprintf(out, "%-30s %12.2f us median device time\n", or_else(v->controls[i].id, "?"),
                v->controls[i].scope[SE_SCOPE_DEVICE].median_ns / 1e3);
    const se_grid_barrier_view *b = &v->grid_barrier;
    fprintf(out, "grid barrier: %.3f us each (%s)\n", b->value_ns / 1e3,
            or_else(b->formula, "?"));
    fprintf(out, "ratio: median / median(stream), same shape; vs_best_peer: median(best peer) / "
            "median, device scope, above 1 is faster than the best peer (* marks it): the "
            "fastest of cuDNN and the torch peers that passed validation\n");
    print_peers_line(out, rd);
    print_best(out, rd);
    /* The table closes with the answer (docs/TIMING.md): the tiled
     * mechanisms against stream; everything above is its context. */
    se_answer a;
    se_err aerr = {{0}};
    if (se_answer_of_run(rd, &a, &aerr) == SE_OK) {
        fprintf(out, "\n");
        se_answer_print(out, &a, SE_FORMAT_TEXT, 0);
        se_answer_free(&a);
    } else {
        fprintf(out, "\nthe answer cannot be built from this run: %s\n", aerr.msg);
    }
}

/* One row of the timing table as data: what every format other than text
 * prints (render/format.h); a has_* of 0 prints as null, "-" or empty. */
typedef struct table_row {
    char shape[SE_CASE_ID_SIZE]; /* "" for a run-level control */
    const char *what, *kind, *status;
    int has_median, has_ci, has_ratio, has_gbps, has_fraction, has_vs, is_best_peer;
    double median_ns, ci95_ns[2], ratio, ratio_ci95[2], gbps, fraction_of_copy, vs_best_peer;
} table_row;

/* A row from d, a device-scope summary (not present for a peer that did
 * not run); vs the derived vs_best_peer (has_vs 0: none). */
static table_row row_of(const char *shape, const char *what, const char *kind,
                        const se_scope_view *d, int has_vs, double vs,
                        const se_derived_shape_view *dshape, const char *status)
{
    table_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.shape, sizeof r.shape, "%s", shape);
    r.what = what;
    r.kind = kind;
    r.status = status;
    r.has_median = d->present;
    r.median_ns = d->median_ns;
    r.has_ci = d->has_ci;
    memcpy(r.ci95_ns, d->ci95_ns, sizeof r.ci95_ns);
    r.has_ratio = d->has_ratio;
    r.ratio = d->ratio;
    memcpy(r.ratio_ci95, d->ratio_ci95, sizeof r.ratio_ci95);
    r.has_gbps = d->has_gbps;
    r.gbps = d->gbps;
    r.has_fraction = d->has_fraction;
    r.fraction_of_copy = d->fraction_of_copy;
    r.has_vs = has_vs;
    r.vs_best_peer = vs;
    const char *best = best_name(dshape);
    r.is_best_peer = best && strcmp(best, what) == 0;
    return r;
}

/* The rows of one shape's peers, after its last case c. */
static size_t peer_rows(const se_rundata *rd, const se_case_view *c,
                        const se_derived_shape_view *dshape, const char *shape, table_row *rows)
{
    static const se_scope_view none;
    const se_peers_view *pv = &se_rundata_views(rd)->peers;
    size_t n = 0;
    for (size_t k = 0; k < pv->n; k++) {
        const se_peer_view *e = &pv->v[k];
        if (e->rows != c->rows || e->cols != c->cols)
            continue;
        const char *status = or_else(e->status, "?");
        const char *peer = or_else(e->peer, "?");
        int ran = strcmp(status, "ok") == 0 || strcmp(status, "failed") == 0;
        const se_derived_peer_view *de = se_views_shape_peer(dshape, peer);
        rows[n++] = row_of(shape, peer, "peer", ran ? &e->summary : &none, de && de->has_vs,
                           de ? de->vs_best_peer : 0.0, dshape, status);
    }
    return n;
}

/* The timing table's rows, in the text table's order: per shape its
 * cases, then its peers; then the run-level controls. NULL when out of
 * memory. */
static table_row *table_rows(const se_rundata *rd, size_t *n)
{
    const se_run_views *v = se_rundata_views(rd);
    size_t shapes = 0; /* runs of cases on one shape, each followed by its peers */
    for (size_t i = 0; i < v->n_cases; i++)
        shapes += !next_same_shape(v, i);
    table_row *rows = calloc(v->n_cases + shapes * v->peers.n + v->n_controls + 1, sizeof *rows);
    *n = 0;
    for (size_t i = 0; rows && i < v->n_cases; i++) {
        const se_case_view *c = &v->cases[i];
        const se_derived_shape_view *dshape = derived_shape(rd, c);
        const char *what = or_else(c->what, "?");
        char sbuf[SE_CASE_ID_SIZE];
        shape_of(c->rows, c->cols, sbuf, sizeof sbuf);
        int control = strcmp(what, "copy") == 0 ||
                      se_stable_is_init_control(se_rundata_table(rd), what);
        const se_derived_case_view *dc = se_views_shape_case(dshape, or_else(c->id, ""));
        rows[(*n)++] = row_of(sbuf, what, control ? "control" : "strategy",
                              &c->scope[SE_SCOPE_DEVICE], dc && dc->has_vs,
                              dc ? dc->vs_best_peer : 0.0, dshape, "ok");
        if (!next_same_shape(v, i))
            *n += peer_rows(rd, c, dshape, sbuf, rows + *n);
    }
    for (size_t i = 0; rows && i < v->n_controls; i++)
        rows[(*n)++] = row_of("", or_else(v->controls[i].what, "?"), "control",
                              &v->controls[i].scope[SE_SCOPE_DEVICE], 0, 0.0, NULL, "ok");
    return rows;
}

/* A number cell: "%.*f" of a value scaled, or "-" where has is 0. */
static const char *cell(char *buf, size_t size, int has, double v, double scale, int digits)
{
    if (has)
        snprintf(buf, size, "%.*f", digits, v * scale);
    else
        snprintf(buf, size, "-");
    return buf;
}

/* Why some intervals have zero width: device times come in steps of the
 * GPU timer (environment.json's globaltimer.smallest_step_ns, 32 ns on the
 * H200), so in a short case many samples tie at the median and every
 * bootstrap resample's median is that same value. Counted from the rows. */
static void zero_width_note(FILE *out, const se_rundata *rd, const table_row *rows, size_t n_rows)
{
    size_t n = 0, zero = 0;
    double example = 0;
    for (size_t i = 0; i < n_rows; i++) {
        const table_row *r = &rows[i];
        if (!r->shape[0] || !r->has_ci)
            continue;
        n++;
        if (r->ci95_ns[0] == r->ci95_ns[1])
            example = zero++ ? example : r->ci95_ns[0];
    }
    if (!zero)
        return;
    double step = se_rundata_views(rd)->env.timer_step_ns;
    fprintf(out, "*%zu of these %zu intervals have zero width (e.g. %.2f-%.2f). That is the "
            "timer's resolution, not certainty: device times come in steps of %.0f ns (the "
            "smallest %%globaltimer step, " SE_ENVIRONMENT_JSON "), so in a short case most samples tie "
            "at the median and every bootstrap resample's median is that same value; read such "
            "an interval as the median give or take one step (docs/TIMING.md).*\n\n",
            zero, n, example / 1e3, example / 1e3, step > 0 ? step : 32.0);
}

static void print_md_row(FILE *out, const table_row *r)
{
    if (strcmp(r->kind, "peer") == 0 && strcmp(r->status, "ok") != 0 &&
        strcmp(r->status, "failed") != 0) {
        char shown[200];
        se_printable(r->status, shown, sizeof shown);
        fprintf(out, "| %s | %s | %s | | | | | | |\n", r->shape, r->what, shown);
        return;
    }
    char a[32], b[32], c2[32], d[32], e[32] = "-", f[32], g[32], v[40];
    cell(v, sizeof v, r->has_vs, r->vs_best_peer, 1.0, 3);
    if (r->is_best_peer)
        strcat(v, "*");
    if (r->has_ratio)
        snprintf(e, sizeof e, "%.3f-%.3f", r->ratio_ci95[0], r->ratio_ci95[1]);
    fprintf(out, "| %s | %s | %s | %s-%s | %s | %s | %s | %s | %s |\n", r->shape, r->what,
            cell(a, sizeof a, r->has_median, r->median_ns, 1e-3, 2),
            cell(b, sizeof b, r->has_ci, r->ci95_ns[0], 1e-3, 2),
            cell(c2, sizeof c2, r->has_ci, r->ci95_ns[1], 1e-3, 2),
            cell(d, sizeof d, r->has_ratio, r->ratio, 1.0, 3), e,
            cell(f, sizeof f, r->has_gbps, r->gbps, 1.0, 1),
            cell(g, sizeof g, r->has_fraction, r->fraction_of_copy, 1.0, 3),
            strcmp(r->status, "failed") == 0 ? "FAILED" : v);
}

static void print_md(FILE *out, const se_rundata *rd, const table_row *rows, size_t n)
{
    fprintf(out, "| shape | strategy | median (us) | 95%% interval (us) | ratio to stream | "
            "ratio 95%% interval | GB/s | of copy | vs best peer |\n"
            "|:---|:---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < n; i++)
        if (rows[i].shape[0]) /* the run-level controls follow */
            print_md_row(out, &rows[i]);
    fprintf(out, "\n*Run %s, device time of one instance (L2 warm): median and its bootstrap 95%% "
            "interval; ratio: median over stream's on the same shape; of copy: the same-run "
            "copy's median over this one; vs best peer: the best peer's median over this one "
            "(* marks the best peer itself).*\n\n", rd->run_id);
    zero_width_note(out, rd, rows, n);
    fprintf(out, "Run-level controls (median device time): ");
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].shape[0])
            continue;
        fprintf(out, "%s%s %.2f us", first ? "" : "; ", rows[i].what, rows[i].median_ns / 1e3);
        first = 0;
    }
    fprintf(out, "; grid barrier %.3f us each.\n",
            se_rundata_views(rd)->grid_barrier.value_ns / 1e3);
}

/* A CSV number field: %.17g, or empty. */
static void csv_num(FILE *out, int has, double v)
{
    if (has)
        fprintf(out, ",%.17g", v);
    else
        fputc(',', out);
}

static void print_csv(FILE *out, const table_row *rows, size_t n)
{
    fprintf(out, "shape,what,kind,status,median_ns,median_ci95_lo_ns,median_ci95_hi_ns,"
            "ratio_to_stream,ratio_ci95_lo,ratio_ci95_hi,gbps,fraction_of_copy,vs_best_peer,"
            "is_best_peer\n");
    for (size_t i = 0; i < n; i++) {
        const table_row *r = &rows[i];
        char status[200];
        se_printable(r->status, status, sizeof status);
        for (char *p = status; *p; p++)
            if (*p == ',' || *p == '"')
                *p = ' ';
        fprintf(out, "%s,%s,%s,%s", r->shape, r->what, r->kind, status);
        csv_num(out, r->has_median, r->median_ns);
        csv_num(out, r->has_ci, r->ci95_ns[0]);
        csv_num(out, r->has_ci, r->ci95_ns[1]);
        csv_num(out, r->has_ratio, r->ratio);
        csv_num(out, r->has_ratio, r->ratio_ci95[0]);
        csv_num(out, r->has_ratio, r->ratio_ci95[1]);
        csv_num(out, r->has_gbps, r->gbps);
        csv_num(out, r->has_fraction, r->fraction_of_copy);
        csv_num(out, r->has_vs, r->vs_best_peer);
        fprintf(out, ",%s\n", r->is_best_peer ? "yes" : "no");
    }
}

/* A number, or null where has is 0. */
static json_t *real_or_null(int has, double v)
{
    return has ? json_real(v) : json_null();
}

static json_t *pair_or_null(int has, const double v[2])
{
    return has ? json_pack("[f, f]", v[0], v[1]) : json_null();
}

/* The rows as the json format writes them. */
static json_t *rows_json(const table_row *rows, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        const table_row *r = &rows[i];
        json_array_append_new(arr, json_pack(
            "{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s}", "shape", r->shape,
            "what", r->what, "kind", r->kind, "median_ns", real_or_null(r->has_median, r->median_ns),
            "median_ci95_ns", pair_or_null(r->has_ci, r->ci95_ns), "ratio_to_stream",
            real_or_null(r->has_ratio, r->ratio), "ratio_ci95",
            pair_or_null(r->has_ratio, r->ratio_ci95), "gbps", real_or_null(r->has_gbps, r->gbps),
            "fraction_of_copy", real_or_null(r->has_fraction, r->fraction_of_copy),
            "vs_best_peer", real_or_null(r->has_vs, r->vs_best_peer), "is_best_peer",
            r->is_best_peer, "status", r->status));
    }
    return arr;
}

void se_table_print_format(FILE *out, const se_rundata *rd, se_format format)
{
    if (format == SE_FORMAT_TEXT) {
        se_table_print(out, rd);
        return;
    }
    size_t n = 0;
    table_row *rows = table_rows(rd, &n);
    if (!rows) {
        fprintf(stderr, "table: out of memory\n");
        return;
    }
    if (format == SE_FORMAT_MD) {
        print_md(out, rd, rows, n);
    } else if (format == SE_FORMAT_CSV) {
        print_csv(out, rows, n);
    } else {
        json_t *doc = json_pack("{s:s, s:i, s:s, s:s, s:o}", "format", "softmax-evidence-table",
                                "version", 1, "run_id", rd->run_id, "scope", "device",
                                "rows", rows_json(rows, n));
        json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', out);
        json_decref(doc);
    }
    free(rows);
}

se_status se_table_print_dir(FILE *out, const char *dir, se_err *err)
{
    return se_table_print_dir_format(out, dir, SE_FORMAT_TEXT, err);
}

se_status se_table_print_dir_format(FILE *out, const char *dir, se_format format, se_err *err)
{
    se_rundata rd;
    se_status st = se_rundata_load(dir, &rd, err);
    if (st != SE_OK)
        return st;
    se_table_print_format(out, &rd, format);
    se_rundata_free(&rd);
    return SE_OK;
}

se_status se_table_main(const char *dir, se_format format, FILE *out, se_err *err)
{
    se_status st = se_verify_first(dir, "table", "no table is printed from it", err);
    if (st != SE_OK)
        return st;
    fprintf(stderr, "table: %s verifies (softmax-evidence verify %s)\n", dir, dir);
    return se_table_print_dir_format(out, dir, format, err);
}
