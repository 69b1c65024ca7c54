/*
 * compare_print.c - the comparison of runs, formatted (see
 * compare_print.h). Every number printed is read from the document
 * se_compare_build made; nothing is computed here.
 */
#include "render/compare_print.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "model/json.h"

/* A run's text made printable (a folder name is the user's, run ids and
 * environment values are the run's: untrusted). */
static const char *shown(const char *s, char *buf, size_t size)
{
    se_printable(s ? s : "?", buf, size);
    return buf;
}

/* A JSON value of the environment as one short printable text. */
static void value_text(const json_t *v, char *buf, size_t size)
{
    char *t = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    se_printable(json_is_string(v) ? json_string_value(v) : t ? t : "null", buf, size);
    free(t);
}

static const char *marker(const json_t *c)
{
    const char *v = se_json_str(c, "verdict", "");
    if (json_is_true(json_object_get(c, "slower_than_gate")))
        return "slower * GATE";
    return strcmp(v, "faster") == 0 ? "faster *" : strcmp(v, "slower") == 0 ? "slower *" : "";
}

/* "2.1% floor", "-" without any estimate of the noise. */
static void noise_text(const json_t *c, char *buf, size_t size)
{
    const char *from = se_json_str(c, "noise_from", "none");
    if (strcmp(from, "none") == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.2f%% %s", se_json_num(c, "noise_pct"), from);
}

/* With several runs a side: "A: 5 runs (id, id, ...)". */
static void print_sides(FILE *out, const json_t *pair)
{
    static const char *const keys[2] = {"a_runs", "b_runs"};
    const json_t *a = json_object_get(pair, keys[0]), *b = json_object_get(pair, keys[1]);
    if (json_array_size(a) <= 1 && json_array_size(b) <= 1)
        return;
    for (int k = 0; k < 2; k++) {
        const json_t *l = k ? b : a;
        fprintf(out, "%s: %zu run%s:", k ? "B" : "A", json_array_size(l),
                json_array_size(l) == 1 ? "" : "s");
        size_t i;
        json_t *e;
        json_array_foreach(l, i, e) {
            char id[80];
            fprintf(out, " %s", shown(json_string_value(e), id, sizeof id));
        }
        fprintf(out, "\n");
    }
}

static void print_env(FILE *out, const json_t *pair, int markdown)
{
    const json_t *env = json_object_get(pair, "environment");
    const json_t *d = json_object_get(env, "differences");
    size_t n = json_array_size(d), i;
    json_int_t total = json_integer_value(json_object_get(env, "fields_compared"));
    if (n == 0) {
        fprintf(out, "environment: the same in the %lld fields compared (GPU model and clocks, "
                "driver, toolkit, build, commit, host, protocol)\n", (long long)total);
        return;
    }
    fprintf(out, "environment: %zu of %lld fields differ (A | B); times from different "
            "environments compare the environments too:\n", n, (long long)total);
    json_t *e;
    json_array_foreach(d, i, e) {
        char a[300], b[300], f[100];
        value_text(json_object_get(e, "a"), a, sizeof a);
        value_text(json_object_get(e, "b"), b, sizeof b);
        fprintf(out, markdown ? "- `%s`: %s | %s\n" : "  %-28s %s | %s\n",
                shown(se_json_str(e, "field", "?"), f, sizeof f), a, b);
    }
}

static void print_summary(FILE *out, const json_t *doc, const json_t *pair, int markdown)
{
    const json_t *s = json_object_get(pair, "summary");
    size_t n = json_array_size(json_object_get(pair, "cases"));
    fprintf(out, "%ssummary: B against A, %s scope: %lld faster, %lld slower, %lld unchanged of "
            "%zu cases (faster or slower: the 95%% interval of B/A excludes 1)",
            markdown ? "\n" : "", se_json_str(doc, "scope", "?"),
            (long long)json_integer_value(json_object_get(s, "faster")),
            (long long)json_integer_value(json_object_get(s, "slower")),
            (long long)json_integer_value(json_object_get(s, "unchanged")), n);
    const json_t *gate = json_object_get(doc, "fail_if_slower_pct");
    if (gate)
        fprintf(out, "; %lld slower by more than %g%% and than the noise (GATE)",
                (long long)json_integer_value(json_object_get(s, "slower_than_gate")),
                json_number_value(gate));
    fprintf(out, "\n");
    static const char *const lists[2] = {"only_in_a", "only_in_b"};
    for (int k = 0; k < 2; k++) {
        const json_t *l = json_object_get(pair, lists[k]);
        if (json_array_size(l) == 0)
            continue;
        fprintf(out, "%sonly in %s (not compared):", markdown ? "\n" : "", k ? "B" : "A");
        size_t i;
        json_t *e;
        json_array_foreach(l, i, e) {
            char b[SE_CASE_ID_SIZE * 2];
            fprintf(out, " %s", shown(json_string_value(e), b, sizeof b));
        }
        fprintf(out, "\n");
    }
}

static void print_text(FILE *out, const json_t *doc, const json_t *pair)
{
    char a[600], b[600], ia[80], ib[80];
    fprintf(out, "compare: A = %s (run %s), B = %s (run %s)\n",
            shown(se_json_str(pair, "a", "?"), a, sizeof a),
            shown(se_json_str(pair, "a_run_id", "?"), ia, sizeof ia),
            shown(se_json_str(pair, "b", "?"), b, sizeof b),
            shown(se_json_str(pair, "b_run_id", "?"), ib, sizeof ib));
    print_sides(out, pair);
    print_env(out, pair, 0);
    fprintf(out, "\n%-30s %12s %12s %8s %19s %8s %-17s %s\n", "case", "A median_us",
            "B median_us", "B/A", "95% CI", "change", "noise", "verdict");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(pair, "cases"), i, c) {
        const json_t *ci = json_object_get(c, "ci95");
        char noise[48];
        noise_text(c, noise, sizeof noise);
        fprintf(out, "%-30s %12.3f %12.3f %8.4f [%7.4f, %7.4f] %+7.2f%% %-17s %s\n",
                se_json_str(c, "case", "?"), se_json_num(c, "a_median_ns") / 1e3,
                se_json_num(c, "b_median_ns") / 1e3, se_json_num(c, "ratio"),
                json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
                se_json_num(c, "change_pct"), noise, marker(c));
    }
    print_summary(out, doc, pair, 0);
}

static void print_md(FILE *out, const json_t *doc, const json_t *pair)
{
    char a[600], b[600], ia[80], ib[80];
    fprintf(out, "## B = `%s` (run %s) against A = `%s` (run %s)\n\n",
            shown(se_json_str(pair, "b", "?"), b, sizeof b),
            shown(se_json_str(pair, "b_run_id", "?"), ib, sizeof ib),
            shown(se_json_str(pair, "a", "?"), a, sizeof a),
            shown(se_json_str(pair, "a_run_id", "?"), ia, sizeof ia));
    print_sides(out, pair);
    print_env(out, pair, 1);
    fprintf(out, "\n| case | A median (us) | B median (us) | B/A | 95%% interval | change | "
            "noise | verdict |\n|:---|---:|---:|---:|---:|---:|---:|:---|\n");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(pair, "cases"), i, c) {
        const json_t *ci = json_object_get(c, "ci95");
        char noise[48];
        noise_text(c, noise, sizeof noise);
        fprintf(out, "| %s | %.3f | %.3f | %.4f | %.4f-%.4f | %+.2f%% | %s | %s |\n",
                se_json_str(c, "case", "?"), se_json_num(c, "a_median_ns") / 1e3,
                se_json_num(c, "b_median_ns") / 1e3, se_json_num(c, "ratio"),
                json_number_value(json_array_get(ci, 0)), json_number_value(json_array_get(ci, 1)),
                se_json_num(c, "change_pct"), noise, marker(c));
    }
    print_summary(out, doc, pair, 1);
}

/* One CSV field, quoted when it holds a comma, quote or line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void print_csv(FILE *out, const json_t *doc, const json_t *pair)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(pair, "cases"), i, c) {
        const json_t *ci = json_object_get(c, "ci95");
        csv_field(out, se_json_str(pair, "a", ""));
        fputc(',', out);
        csv_field(out, se_json_str(pair, "b", ""));
        fprintf(out, ",%s,%s,%s,%.17g,%.17g,%lld,%lld,%.17g,%.17g,%.17g,%.17g,%s,%s,%.17g,%s\n",
                se_json_str(pair, "b_run_id", ""), se_json_str(c, "case", ""),
                se_json_str(doc, "scope", ""), se_json_num(c, "a_median_ns"),
                se_json_num(c, "b_median_ns"),
                (long long)json_integer_value(json_object_get(c, "a_n")),
                (long long)json_integer_value(json_object_get(c, "b_n")),
                se_json_num(c, "ratio"), json_number_value(json_array_get(ci, 0)),
                json_number_value(json_array_get(ci, 1)), se_json_num(c, "change_pct"),
                se_json_str(c, "verdict", ""),
                json_object_get(c, "slower_than_gate")
                    ? (json_is_true(json_object_get(c, "slower_than_gate")) ? "yes" : "no")
                    : "",
                se_json_num(c, "noise_pct"), se_json_str(c, "noise_from", ""));
    }
}

se_status se_compare_main(const char *const *dirs, size_t n, const se_compare_opts *o,
                          se_format format, FILE *out, se_err *err)
{
    json_t *doc = NULL;
    size_t slower = 0;
    se_status st = se_compare_build(dirs, n, o, &doc, &slower, err);
    if (st != SE_OK)
        return st;
    const json_t *pairs = json_object_get(doc, "comparisons");
    size_t i;
    json_t *pair;
    if (format == SE_FORMAT_JSON) {
        json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', out);
    } else if (format == SE_FORMAT_CSV) {
        fprintf(out, "a_run,b_run,b_run_id,case,scope,a_median_ns,b_median_ns,a_n,b_n,ratio,"
                "ci95_lo,ci95_hi,change_pct,verdict,slower_than_gate,noise_pct,noise_from\n");
        json_array_foreach(pairs, i, pair) {
            print_env(stderr, pair, 0);
            print_csv(out, doc, pair);
        }
    } else {
        json_array_foreach(pairs, i, pair) {
            if (i)
                fputc('\n', out);
            (format == SE_FORMAT_MD ? print_md : print_text)(out, doc, pair);
        }
    }
    if (slower) {
        /* The gate's cases, named in the error (the table above marks them GATE). */
        char names[700] = "";
        size_t used = 0, k;
        json_t *c;
        json_array_foreach(pairs, i, pair) {
            json_array_foreach(json_object_get(pair, "cases"), k, c) {
                if (!json_is_true(json_object_get(c, "slower_than_gate")))
                    continue;
                int w = snprintf(names + used, sizeof names - used, "%s%s %+.1f%% (noise "
                                 "%.1f%%)", used ? ", " : "", se_json_str(c, "case", "?"),
                                 se_json_num(c, "change_pct"), se_json_num(c, "noise_pct"));
                if (w < 0 || (size_t)w >= sizeof names - used)
                    break;
                used += (size_t)w;
            }
        }
        st = se_fail(err, SE_ERR_SLOWER, "compare: %zu case%s slower by more than %g%% and "
                     "more than the noise between runs, with the 95%% interval excluding both: "
                     "%s", slower, slower == 1 ? "" : "s", o->fail_if_slower, names);
    }
    json_decref(doc);
    return st;
}
