/*
 * table.c - the timing table of a run (see table.h).
 */
#include "render/table.h"

#include <inttypes.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/samples.h"
#include "bundle/verify.h"
#include "bundle/peers.h"
#include "model/strategy.h"
#include "model/json.h"
#include "render/answer_text.h"

/* "5x4097": the run's own RxC of a case or peer entry (the protocol's
 * spelling, e.g. 5xT+1, is not a name the other commands take). */
static const char *shape_of(const json_t *o, char *buf, size_t size)
{
    se_shape_id(json_integer_value(json_object_get(o, "rows")),
                json_integer_value(json_object_get(o, "cols")), buf, size);
    return buf;
}

static int same_shape(const json_t *o, const json_t *other)
{
    return json_equal(json_object_get(o, "rows"), json_object_get(other, "rows")) &&
           json_equal(json_object_get(o, "cols"), json_object_get(other, "cols"));
}

/* summary.json's derived entry of the shape of case c (bundle/derived.h):
 * every "best peer", "fastest" and "vs_best_peer" the table prints is read
 * from it, never computed here. */
static const json_t *derived_shape(const se_rundata *rd, const json_t *c)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(se_rundata_derived(rd), "shapes"), i, e)
        if (same_shape(e, c))
            return e;
    return NULL;
}

/* The derived entry named `name` under key `list` ("cases" by "case",
 * "peers" by "peer") of a derived shape. */
static const json_t *derived_entry(const json_t *shape, const char *list, const char *key,
                                   const char *name)
{
    return se_rundata_find(json_object_get(shape, list), key, name);
}

/* "0.897", with "*" where the row is the best peer itself. */
static void vs_text(char *buf, size_t size, const json_t *entry, const json_t *shape,
                    const char *what)
{
    const json_t *v = json_object_get(entry, "vs_best_peer");
    const char *best = se_json_str(json_object_get(shape, "best_peer"), "name", NULL);
    if (json_is_number(v))
        snprintf(buf, size, "%.3f%s", json_number_value(v),
                 best && strcmp(best, what) == 0 ? "*" : "");
    else
        snprintf(buf, size, "-");
}

/* One row: d is a device-scope summary (a case's, or a peer's). */
static void print_row(FILE *out, const char *shape, const char *what, const json_t *d,
                      const char *vs_cell)
{
    const json_t *ci = json_object_get(d, "median_ci95_ns");
    const json_t *r = json_object_get(d, "time_ratio_to_stream");
    const json_t *f = json_object_get(d, "fraction_of_copy");
    double median = se_json_num(d, "median_ns");
    char ratio[16] = "-", rci[32] = "-", frac[16] = "-", vs[24] = "-", gbps[24] = "-";
    if (json_object_get(d, "gbps")) /* none for megakernel_init: it moves no bytes */
        snprintf(gbps, sizeof gbps, "%.1f", se_json_num(d, "gbps"));
    if (r) {
        const json_t *rc = json_object_get(r, "ci95");
        snprintf(ratio, sizeof ratio, "%.3f", se_json_num(r, "ratio"));
        snprintf(rci, sizeof rci, "[%.3f, %.3f]", json_number_value(json_array_get(rc, 0)),
                 json_number_value(json_array_get(rc, 1)));
    }
    if (f)
        snprintf(frac, sizeof frac, "%.3f", json_number_value(f));
    snprintf(vs, sizeof vs, "%s", vs_cell);
    fprintf(out, "%-12s %-17s %12.2f   [%9.2f, %9.2f] %8s %21s %9s %7s %12s\n", shape, what,
            median / 1e3, json_number_value(json_array_get(ci, 0)) / 1e3,
            json_number_value(json_array_get(ci, 1)) / 1e3, ratio, rci, gbps, frac, vs);
}

/* The peers of the shape of shape_case. */
static void print_peers(FILE *out, const se_rundata *rd, const json_t *shape_case,
                        const json_t *dshape)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(rd->peers, "peers"), i, e) {
        if (!same_shape(e, shape_case))
            continue;
        const char *status = se_json_str(e, "status", "?");
        char sbuf[SE_CASE_ID_SIZE];
        const char *shape = shape_of(shape_case, sbuf, sizeof sbuf);
        const char *peer = se_json_str(e, "peer", "?");
        char vs[32];
        vs_text(vs, sizeof vs, derived_entry(dshape, "peers", "peer", peer), dshape, peer);
        if (strcmp(status, "ok") == 0 || strcmp(status, "failed") == 0) {
            print_row(out, shape, peer, json_object_get(e, "summary"),
                      status[0] == 'f' ? "FAILED" : vs);
        } else {
            char shown[400]; /* the run's text, made printable for the terminal */
            int skipped = strcmp(status, "skipped") == 0;
            se_printable_plain(se_json_str(e, skipped ? "reason" : "error", "?"), shown, sizeof shown);
            fprintf(out, "%-12s %-17s %s: %.90s\n", shape, peer, skipped ? "skipped" : "error",
                    shown);
        }
    }
}

static void print_peers_line(FILE *out, const se_rundata *rd)
{
    const json_t *pj = rd->peers;
    char why[1200];
    if (se_peers_absent(pj, why, sizeof why)) {
        fprintf(out, "peers: %s; vs_best_peer counts cuDNN only\n", why);
        return;
    }
    size_t i, ok = 0, failed = 0, errors = 0, skipped = 0;
    json_t *e;
    json_array_foreach(json_object_get(pj, "peers"), i, e) {
        const char *s = se_json_str(e, "status", "");
        ok += strcmp(s, "ok") == 0;
        failed += strcmp(s, "failed") == 0;
        skipped += strcmp(s, "skipped") == 0;
        errors += strcmp(s, "ok") != 0 && strcmp(s, "failed") != 0 && strcmp(s, "skipped") != 0;
    }
    const json_t *env = json_object_get(pj, "environment");
    char skip_text[48] = "";
    if (skipped)
        snprintf(skip_text, sizeof skip_text, ", %zu skipped", skipped);
    fprintf(out, "peers: torch %s on %s (%s): %zu of %zu (peer, shape) cases passed validation, "
            "%zu failed, %zu errors%s\n", se_json_str(env, "torch_version", "?"),
            se_json_str(env, "device_name", "?"), se_json_str(pj, "script", "?"), ok,
            json_array_size(json_object_get(pj, "peers")), failed, errors, skip_text);
}

/* Per shape, last: our fastest (validated) strategy, its fraction of the
 * same-run copy, the best peer and how many times faster ours is. */
static void print_best(FILE *out, const se_rundata *rd)
{
    fprintf(out, "\n%-12s %-17s %12s %8s %-17s %12s %12s\n", "shape", "fastest of ours",
            "median_us", "of_copy", "best peer", "median_us", "vs_best_peer");
    const json_t *cases = json_object_get(rd->summary, "cases");
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        const json_t *next = json_array_get(cases, i + 1);
        if (next && same_shape(next, c))
            continue;
        const json_t *dshape = derived_shape(rd, c);
        const json_t *mine = json_object_get(dshape, "fastest_ours");
        const json_t *best = json_object_get(dshape, "best_peer");
        const char *peer = json_is_object(best) ? se_json_str(best, "name", "?") : NULL;
        if (!json_is_object(mine))
            mine = NULL;
        char frac[16] = "-", pm[24] = "-", vs[24] = "-";
        if (mine && json_is_number(json_object_get(mine, "fraction_of_copy")))
            snprintf(frac, sizeof frac, "%.3f", se_json_num(mine, "fraction_of_copy"));
        if (peer) {
            snprintf(pm, sizeof pm, "%.2f", se_json_num(best, "median_ns") / 1e3);
            if (mine && json_is_number(json_object_get(best, "vs_best_peer")))
                snprintf(vs, sizeof vs, "%.3f", se_json_num(best, "vs_best_peer"));
        }
        char sbuf[SE_CASE_ID_SIZE];
        fprintf(out, "%-12s %-17s %12.2f %8s %-17s %12s %12s\n", shape_of(c, sbuf, sizeof sbuf),
                mine ? se_json_str(mine, "strategy", "?") : "-",
                mine ? se_json_num(mine, "median_ns") / 1e3 : 0.0, frac, peer ? peer : "-", pm,
                vs);
    }
}

void se_table_print(FILE *out, const se_rundata *rd)
{
    fprintf(out, "\n%-12s %-17s %12s %25s %8s %21s %9s %7s %12s\n", "shape", "strategy",
            "median_us", "95% CI (us)", "ratio", "ratio 95% CI", "GB/s", "of_copy",
            "vs_best_peer");
    const json_t *cases = json_object_get(rd->summary, "cases");
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        const json_t *dshape = derived_shape(rd, c);
        const char *what = se_json_str(c, "what", "?");
        char vs[32];
        vs_text(vs, sizeof vs, derived_entry(dshape, "cases", "case", se_json_str(c, "case", "")),
                dshape, what);
        char sbuf[SE_CASE_ID_SIZE];
        print_row(out, shape_of(c, sbuf, sizeof sbuf), what, se_json_path(c, "scopes.device"), vs);
        const json_t *next = json_array_get(cases, i + 1);
        if (!next || !same_shape(next, c))
            print_peers(out, rd, c, dshape);
    }
    json_array_foreach(json_object_get(rd->summary, "controls"), i, c) {
        fprintf(out, "%-30s %12.2f us median device time\n", se_json_str(c, "case", "?"),
                se_json_num(se_json_path(c, "scopes.device"), "median_ns") / 1e3);
    }
    const json_t *b = se_json_path(rd->summary, "derived.grid_barrier_ns");
    fprintf(out, "grid barrier: %.3f us each (%s)\n", se_json_num(b, "value") / 1e3,
            se_json_str(b, "formula", "?"));
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
 * prints (render/format.h). d is a device-scope summary, NULL for a peer
 * that did not run; entry the derived entry holding vs_best_peer. */
static json_t *row_json(const char *shape, const char *what, const char *kind, const json_t *d,
                        const json_t *entry, const json_t *dshape, const char *status)
{
    json_t *r = json_pack("{s:s, s:s, s:s}", "shape", shape, "what", what, "kind", kind);
    const json_t *ci = json_object_get(d, "median_ci95_ns");
    const json_t *rt = json_object_get(d, "time_ratio_to_stream");
    json_object_set_new(r, "median_ns", d ? json_real(se_json_num(d, "median_ns")) : json_null());
    json_object_set_new(r, "median_ci95_ns", ci ? json_deep_copy(ci) : json_null());
    json_object_set_new(r, "ratio_to_stream", rt ? json_real(se_json_num(rt, "ratio")) : json_null());
    json_object_set_new(r, "ratio_ci95", rt ? json_deep_copy(json_object_get(rt, "ci95")) : json_null());
    json_object_set_new(r, "gbps", json_object_get(d, "gbps") ? json_real(se_json_num(d, "gbps"))
                                                               : json_null());
    json_t *f = json_object_get(d, "fraction_of_copy");
    json_object_set_new(r, "fraction_of_copy", f ? json_deep_copy(f) : json_null());
    json_t *vs = json_object_get(entry, "vs_best_peer");
    json_object_set_new(r, "vs_best_peer", json_is_number(vs) ? json_deep_copy(vs) : json_null());
    const char *best = se_json_str(json_object_get(dshape, "best_peer"), "name", NULL);
    json_object_set_new(r, "is_best_peer", json_boolean(best && strcmp(best, what) == 0));
    json_object_set_new(r, "status", json_string(status));
    return r;
}

/* The timing table's rows, in the text table's order: per shape its
 * cases, then its peers; then the run-level controls. */
static json_t *table_rows(const se_rundata *rd)
{
    json_t *rows = json_array();
    const json_t *cases = json_object_get(rd->summary, "cases");
    size_t i, k;
    json_t *c, *e;
    json_array_foreach(cases, i, c) {
        const json_t *dshape = derived_shape(rd, c);
        const char *what = se_json_str(c, "what", "?");
        char sbuf[SE_CASE_ID_SIZE];
        shape_of(c, sbuf, sizeof sbuf);
        int control = strcmp(what, "copy") == 0 ||
                      se_stable_is_init_control(se_rundata_table(rd), what);
        json_array_append_new(rows, row_json(sbuf, what, control ? "control" : "strategy",
                                             se_json_path(c, "scopes.device"),
                                             derived_entry(dshape, "cases", "case",
                                                           se_json_str(c, "case", "")),
                                             dshape, "ok"));
        const json_t *next = json_array_get(cases, i + 1);
        if (next && same_shape(next, c))
            continue;
        json_array_foreach(json_object_get(rd->peers, "peers"), k, e) {
            if (!same_shape(e, c))
                continue;
            const char *status = se_json_str(e, "status", "?");
            const char *peer = se_json_str(e, "peer", "?");
            int ran = strcmp(status, "ok") == 0 || strcmp(status, "failed") == 0;
            json_array_append_new(rows, row_json(sbuf, peer, "peer",
                                                 ran ? json_object_get(e, "summary") : NULL,
                                                 derived_entry(dshape, "peers", "peer", peer),
                                                 dshape, status));
        }
    }
    json_array_foreach(json_object_get(rd->summary, "controls"), i, c)
        json_array_append_new(rows, row_json("", se_json_str(c, "what", "?"), "control",
                                             se_json_path(c, "scopes.device"), NULL, NULL, "ok"));
    return rows;
}

/* A number cell: "%.*f" of a JSON number scaled, or "-". */
static const char *cell(char *buf, size_t size, const json_t *v, double scale, int digits)
{
    if (json_is_number(v))
        snprintf(buf, size, "%.*f", digits, json_number_value(v) * scale);
    else
        snprintf(buf, size, "-");
    return buf;
}

/* Why some intervals have zero width: device times come in steps of the
 * GPU timer (environment.json's globaltimer.smallest_step_ns, 32 ns on the
 * H200), so in a short case many samples tie at the median and every
 * bootstrap resample's median is that same value. Counted from the rows. */
static void zero_width_note(FILE *out, const se_rundata *rd, const json_t *rows)
{
    size_t i, n = 0, zero = 0;
    double example = 0;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const json_t *ci = json_object_get(r, "median_ci95_ns");
        if (strcmp(se_json_str(r, "shape", ""), "") == 0 || !json_is_array(ci))
            continue;
        n++;
        if (json_number_value(json_array_get(ci, 0)) == json_number_value(json_array_get(ci, 1))) {
            example = zero++ ? example : json_number_value(json_array_get(ci, 0));
        }
    }
    if (!zero)
        return;
    double step = json_number_value(se_json_path(rd->env, "globaltimer.smallest_step_ns"));
    fprintf(out, "*%zu of these %zu intervals have zero width (e.g. %.2f-%.2f). That is the "
            "timer's resolution, not certainty: device times come in steps of %.0f ns (the "
            "smallest %%globaltimer step, " SE_ENVIRONMENT_JSON "), so in a short case most samples tie "
            "at the median and every bootstrap resample's median is that same value; read such "
            "an interval as the median give or take one step (docs/TIMING.md).*\n\n",
            zero, n, example / 1e3, example / 1e3, step > 0 ? step : 32.0);
}

static void print_md(FILE *out, const se_rundata *rd, const json_t *rows)
{
    fprintf(out, "| shape | strategy | median (us) | 95%% interval (us) | ratio to stream | "
            "ratio 95%% interval | GB/s | of copy | vs best peer |\n"
            "|:---|:---|---:|---:|---:|---:|---:|---:|---:|\n");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        const char *kind = se_json_str(r, "kind", "");
        if (strcmp(se_json_str(r, "shape", ""), "") == 0)
            continue; /* the run-level controls follow */
        char a[32], b[32], c2[32], d[32], e[32], f[32], g[32], v[40];
        const json_t *ci = json_object_get(r, "median_ci95_ns");
        const json_t *rc = json_object_get(r, "ratio_ci95");
        const char *status = se_json_str(r, "status", "ok");
        if (strcmp(kind, "peer") == 0 && strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0) {
            char shown[200];
            se_printable(status, shown, sizeof shown);
            fprintf(out, "| %s | %s | %s | | | | | | |\n", se_json_str(r, "shape", ""),
                    se_json_str(r, "what", ""), shown);
            continue;
        }
        cell(v, sizeof v, json_object_get(r, "vs_best_peer"), 1.0, 3);
        if (json_is_true(json_object_get(r, "is_best_peer")))
            strcat(v, "*");
        fprintf(out, "| %s | %s | %s | %s-%s | %s | %s | %s | %s | %s |\n",
                se_json_str(r, "shape", ""), se_json_str(r, "what", ""),
                cell(a, sizeof a, json_object_get(r, "median_ns"), 1e-3, 2),
                cell(b, sizeof b, json_array_get(ci, 0), 1e-3, 2),
                cell(c2, sizeof c2, json_array_get(ci, 1), 1e-3, 2),
                cell(d, sizeof d, json_object_get(r, "ratio_to_stream"), 1.0, 3),
                json_is_array(rc) ? (snprintf(e, sizeof e, "%.3f-%.3f",
                                              json_number_value(json_array_get(rc, 0)),
                                              json_number_value(json_array_get(rc, 1))), e)
                                  : "-",
                cell(f, sizeof f, json_object_get(r, "gbps"), 1.0, 1),
                cell(g, sizeof g, json_object_get(r, "fraction_of_copy"), 1.0, 3),
                strcmp(status, "failed") == 0 ? "FAILED" : v);
    }
    fprintf(out, "\n*Run %s, device time of one instance (L2 warm): median and its bootstrap 95%% "
            "interval; ratio: median over stream's on the same shape; of copy: the same-run "
            "copy's median over this one; vs best peer: the best peer's median over this one "
            "(* marks the best peer itself).*\n\n", rd->run_id);
    zero_width_note(out, rd, rows);
    fprintf(out, "Run-level controls (median device time): ");
    int first = 1;
    json_array_foreach(rows, i, r) {
        if (strcmp(se_json_str(r, "shape", "x"), "") != 0)
            continue;
        fprintf(out, "%s%s %.2f us", first ? "" : "; ", se_json_str(r, "what", "?"),
                se_json_num(r, "median_ns") / 1e3);
        first = 0;
    }
    const json_t *b = se_json_path(rd->summary, "derived.grid_barrier_ns");
    fprintf(out, "; grid barrier %.3f us each.\n", se_json_num(b, "value") / 1e3);
}

/* A CSV number field: %.17g, or empty. */
static void csv_num(FILE *out, const json_t *v)
{
    if (json_is_number(v))
        fprintf(out, ",%.17g", json_number_value(v));
    else
        fputc(',', out);
}

static void print_csv(FILE *out, const json_t *rows)
{
    fprintf(out, "shape,what,kind,status,median_ns,median_ci95_lo_ns,median_ci95_hi_ns,"
            "ratio_to_stream,ratio_ci95_lo,ratio_ci95_hi,gbps,fraction_of_copy,vs_best_peer,"
            "is_best_peer\n");
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) {
        char status[200];
        se_printable(se_json_str(r, "status", ""), status, sizeof status);
        for (char *p = status; *p; p++)
            if (*p == ',' || *p == '"')
                *p = ' ';
        fprintf(out, "%s,%s,%s,%s", se_json_str(r, "shape", ""), se_json_str(r, "what", ""),
                se_json_str(r, "kind", ""), status);
        csv_num(out, json_object_get(r, "median_ns"));
        csv_num(out, json_array_get(json_object_get(r, "median_ci95_ns"), 0));
        csv_num(out, json_array_get(json_object_get(r, "median_ci95_ns"), 1));
        csv_num(out, json_object_get(r, "ratio_to_stream"));
        csv_num(out, json_array_get(json_object_get(r, "ratio_ci95"), 0));
        csv_num(out, json_array_get(json_object_get(r, "ratio_ci95"), 1));
        csv_num(out, json_object_get(r, "gbps"));
        csv_num(out, json_object_get(r, "fraction_of_copy"));
        csv_num(out, json_object_get(r, "vs_best_peer"));
        fprintf(out, ",%s\n", json_is_true(json_object_get(r, "is_best_peer")) ? "yes" : "no");
    }
}

void se_table_print_format(FILE *out, const se_rundata *rd, se_format format)
{
    if (format == SE_FORMAT_TEXT) {
        se_table_print(out, rd);
        return;
    }
    json_t *rows = table_rows(rd);
    if (format == SE_FORMAT_MD) {
        print_md(out, rd, rows);
    } else if (format == SE_FORMAT_CSV) {
        print_csv(out, rows);
    } else {
        json_t *doc = json_pack("{s:s, s:i, s:s, s:s, s:O}", "format", "softmax-evidence-table",
                                "version", 1, "run_id", rd->run_id, "scope", "device",
                                "rows", rows);
        json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', out);
        json_decref(doc);
    }
    json_decref(rows);
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
