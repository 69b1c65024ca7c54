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
#include "bundle/views.h"
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

/* s, or fallback where the document has no such field. */
static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

static const char *marker(const se_compare_case_view *c)
{
    const char *v = or_else(c->verdict, "");
    if (c->slower_than_gate == 1)
        return "slower * GATE";
    return strcmp(v, "faster") == 0 ? "faster *" : strcmp(v, "slower") == 0 ? "slower *" : "";
}

/* "2.1% floor", "-" without any estimate of the noise. */
static void noise_text(const se_compare_case_view *c, char *buf, size_t size)
{
    const char *from = or_else(c->noise_from, "none");
    if (strcmp(from, "none") == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.2f%% %s", c->noise_pct, from);
}

/* With several runs a side: "A: 5 runs (id, id, ...)". */
static void print_sides(FILE *out, const se_compare_pair_view *pair)
{
    if (pair->n_a_runs <= 1 && pair->n_b_runs <= 1)
        return;
    for (int k = 0; k < 2; k++) {
        const char *const *l = k ? pair->b_runs : pair->a_runs;
        size_t n = k ? pair->n_b_runs : pair->n_a_runs;
        fprintf(out, "%s: %zu run%s:", k ? "B" : "A", n, n == 1 ? "" : "s");
        for (size_t i = 0; i < n; i++) {
            char id[80];
            fprintf(out, " %s", shown(l[i], id, sizeof id));
        }
        fprintf(out, "\n");
    }
}

static void print_env(FILE *out, const se_compare_pair_view *pair, int markdown)
{
    size_t n = pair->n_diffs;
    long long total = pair->fields_compared;
    if (n == 0) {
        fprintf(out, "environment: the same in the %lld fields compared (GPU model and clocks, "
                "driver, toolkit, build, commit, host, protocol)\n", total);
        return;
    }
    fprintf(out, "environment: %zu of %lld fields differ (A | B); times from different "
            "environments compare the environments too:\n", n, total);
    for (size_t i = 0; i < n; i++) {
        char a[300], b[300], f[100];
        value_text(pair->diffs[i].a, a, sizeof a);
        value_text(pair->diffs[i].b, b, sizeof b);
        fprintf(out, markdown ? "- `%s`: %s | %s\n" : "  %-28s %s | %s\n",
                shown(or_else(pair->diffs[i].field, "?"), f, sizeof f), a, b);
    }
}

static void print_summary(FILE *out, const se_compare_view *doc,
                          const se_compare_pair_view *pair, int markdown)
{
    fprintf(out, "%ssummary: B against A, %s scope: %lld faster, %lld slower, %lld unchanged of "
            "%zu cases (faster or slower: the 95%% interval of B/A excludes 1)",
            markdown ? "\n" : "", or_else(doc->scope, "?"), pair->faster, pair->slower,
            pair->unchanged, pair->n_cases);
    if (doc->has_gate)
        fprintf(out, "; %lld slower by more than %g%% and than the noise (GATE)",
                pair->slower_than_gate, doc->fail_if_slower_pct);
    fprintf(out, "\n");
    for (int k = 0; k < 2; k++) {
        const char *const *l = k ? pair->only_in_b : pair->only_in_a;
        size_t n = k ? pair->n_only_in_b : pair->n_only_in_a;
        if (n == 0)
            continue;
        fprintf(out, "%sonly in %s (not compared):", markdown ? "\n" : "", k ? "B" : "A");
        for (size_t i = 0; i < n; i++) {
            char b[SE_CASE_ID_SIZE * 2];
            fprintf(out, " %s", shown(l[i], b, sizeof b));
        }
        fprintf(out, "\n");
    }
}

static void print_text(FILE *out, const se_compare_view *doc, const se_compare_pair_view *pair)
{
    char a[600], b[600], ia[80], ib[80];
    fprintf(out, "compare: A = %s (run %s), B = %s (run %s)\n",
            shown(or_else(pair->a, "?"), a, sizeof a),
            shown(or_else(pair->a_run_id, "?"), ia, sizeof ia),
            shown(or_else(pair->b, "?"), b, sizeof b),
            shown(or_else(pair->b_run_id, "?"), ib, sizeof ib));
    print_sides(out, pair);
    print_env(out, pair, 0);
    fprintf(out, "\n%-30s %12s %12s %8s %19s %8s %-17s %s\n", "case", "A median_us",
            "B median_us", "B/A", "95% CI", "change", "noise", "verdict");
    for (size_t i = 0; i < pair->n_cases; i++) {
        const se_compare_case_view *c = &pair->cases[i];
        char noise[48];
        noise_text(c, noise, sizeof noise);
        fprintf(out, "%-30s %12.3f %12.3f %8.4f [%7.4f, %7.4f] %+7.2f%% %-17s %s\n",
                or_else(c->id, "?"), c->a_median_ns / 1e3, c->b_median_ns / 1e3, c->ratio,
                c->ci95[0], c->ci95[1], c->change_pct, noise, marker(c));
    }
    print_summary(out, doc, pair, 0);
}

static void print_md(FILE *out, const se_compare_view *doc, const se_compare_pair_view *pair)
{
    char a[600], b[600], ia[80], ib[80];
    fprintf(out, "## B = `%s` (run %s) against A = `%s` (run %s)\n\n",
            shown(or_else(pair->b, "?"), b, sizeof b),
            shown(or_else(pair->b_run_id, "?"), ib, sizeof ib),
            shown(or_else(pair->a, "?"), a, sizeof a),
            shown(or_else(pair->a_run_id, "?"), ia, sizeof ia));
    print_sides(out, pair);
    print_env(out, pair, 1);
    fprintf(out, "\n| case | A median (us) | B median (us) | B/A | 95%% interval | change | "
            "noise | verdict |\n|:---|---:|---:|---:|---:|---:|---:|:---|\n");
    for (size_t i = 0; i < pair->n_cases; i++) {
        const se_compare_case_view *c = &pair->cases[i];
        char noise[48];
        noise_text(c, noise, sizeof noise);
        fprintf(out, "| %s | %.3f | %.3f | %.4f | %.4f-%.4f | %+.2f%% | %s | %s |\n",
                or_else(c->id, "?"), c->a_median_ns / 1e3, c->b_median_ns / 1e3, c->ratio,
                c->ci95[0], c->ci95[1], c->change_pct, noise, marker(c));
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

static void print_csv(FILE *out, const se_compare_view *doc, const se_compare_pair_view *pair)
{
    for (size_t i = 0; i < pair->n_cases; i++) {
        const se_compare_case_view *c = &pair->cases[i];
        csv_field(out, or_else(pair->a, ""));
        fputc(',', out);
        csv_field(out, or_else(pair->b, ""));
        fprintf(out, ",%s,%s,%s,%.17g,%.17g,%lld,%lld,%.17g,%.17g,%.17g,%.17g,%s,%s,%.17g,%s\n",
                or_else(pair->b_run_id, ""), or_else(c->id, ""), or_else(doc->scope, ""),
                c->a_median_ns, c->b_median_ns, c->a_n, c->b_n, c->ratio, c->ci95[0],
                c->ci95[1], c->change_pct, or_else(c->verdict, ""),
                c->slower_than_gate < 0 ? "" : c->slower_than_gate ? "yes" : "no", c->noise_pct,
                or_else(c->noise_from, ""));
    }
}

/* The gate's cases, named for the error (the table marks them GATE). */
static void gate_names(const se_compare_view *v, char *names, size_t size)
{
    size_t used = 0;
    names[0] = '\0';
    for (size_t i = 0; i < v->n_pairs; i++) {
        for (size_t k = 0; k < v->pairs[i].n_cases; k++) {
            const se_compare_case_view *c = &v->pairs[i].cases[k];
            if (c->slower_than_gate != 1)
                continue;
            int w = snprintf(names + used, size - used, "%s%s %+.1f%% (noise %.1f%%)",
                             used ? ", " : "", or_else(c->id, "?"), c->change_pct, c->noise_pct);
            if (w < 0 || (size_t)w >= size - used)
                break; /* this pair's next cases do not fit; a later pair's may */
            used += (size_t)w;
        }
    }
}

se_status se_compare_main(const char *const *dirs, size_t n, const se_compare_opts *o,
                          se_format format, FILE *out, se_err *err)
{
    json_t *doc = NULL;
    size_t slower = 0;
    se_compare_view *v = NULL;
    se_status st = se_compare_build(dirs, n, o, &doc, &slower, err);
    if (st == SE_OK)
        st = se_compare_view_load(doc, &v, err);
    if (st != SE_OK) {
        json_decref(doc);
        return st;
    }
    if (format == SE_FORMAT_JSON) {
        json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        fputc('\n', out);
    } else if (format == SE_FORMAT_CSV) {
        fprintf(out, "a_run,b_run,b_run_id,case,scope,a_median_ns,b_median_ns,a_n,b_n,ratio,"
                "ci95_lo,ci95_hi,change_pct,verdict,slower_than_gate,noise_pct,noise_from\n");
        for (size_t i = 0; i < v->n_pairs; i++) {
            print_env(stderr, &v->pairs[i], 0);
            print_csv(out, v, &v->pairs[i]);
        }
    } else {
        for (size_t i = 0; i < v->n_pairs; i++) {
            if (i)
                fputc('\n', out);
            (format == SE_FORMAT_MD ? print_md : print_text)(out, v, &v->pairs[i]);
        }
    }
    if (slower) {
        char names[700];
        gate_names(v, names, sizeof names);
        st = se_fail(err, SE_ERR_SLOWER, "compare: %zu case%s slower by more than %g%% and "
                     "more than the noise between runs, with the 95%% interval excluding both: "
                     "%s", slower, slower == 1 ? "" : "s", o->fail_if_slower, names);
    }
    se_compare_view_free(v);
    json_decref(doc);
    return st;
}
