/*
 * site.c - the static evidence site (see site.h and docs/SITE.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/site.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "render/trace_export.h"
#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/verify.h"
#include "render/figures.h"

#define PATH_SIZE 4400

typedef struct site {
    const char *run;   /* the run directory */
    char tmp[PATH_SIZE];
    char timeline_shape[64]; /* rows x cols of the traces kept in full, e.g. 4096x4096 */
    json_t *run_json, *env, *summary, *validation, *traces, *protocol;
} site;

static json_t *load(const char *dir, const char *rel)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return json_load_file(path, 0, NULL);
}

/* HTML-escaped text. */
static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const char *str(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* Which raw-run files the site keeps: everything but the arrays and the
 * traces of shapes other than the timeline shape (their costs and checks
 * are kept: traces.json and the .traced/.untraced samples). */
static int selected(const site *s, const char *path)
{
    if (strncmp(path, "arrays/", 7) == 0)
        return 0;
    if (strncmp(path, "traces/", 7) == 0) {
        const char *name = path + 7;
        if (strcmp(name, "outputs.csv") == 0 || strstr(name, ".traced.csv") ||
            strstr(name, ".untraced.csv"))
            return 1;
        size_t n = strlen(s->timeline_shape);
        return strncmp(name, s->timeline_shape, n) == 0 && name[n] == '.' &&
               (strcmp(name + n, ".fusion.csv") == 0 || strcmp(name + n, ".megakernel.csv") == 0);
    }
    return 1;
}

/* Copies the selected files and lists the others, with their hashes, in
 * LEFT_OUT.sha256 (the run's manifest lines, unchanged). */
static se_status copy_run(site *s, size_t *kept, size_t *left, se_err *err)
{
    char path[PATH_SIZE], dst[PATH_SIZE * 3];
    snprintf(path, sizeof path, "%s/%s", s->run, SE_MANIFEST_NAME);
    FILE *m = fopen(path, "r");
    if (!m)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", path, strerror(errno));
    snprintf(dst, sizeof dst, "%s/%s", s->tmp, SE_SITE_LEFT_OUT);
    FILE *lo = fopen(dst, "w");
    se_status st = lo ? SE_OK : se_fail(err, SE_ERR_IO, "%s: cannot be written", dst);
    char line[4600];
    *kept = *left = 0;
    while (st == SE_OK && fgets(line, sizeof line, m)) {
        if (strlen(line) < 67)
            continue;
        char rel[4600];
        snprintf(rel, sizeof rel, "%s", line + 66);
        rel[strcspn(rel, "\n")] = '\0';
        if (!selected(s, rel)) {
            fputs(line, lo);
            (*left)++;
            continue;
        }
        char src[PATH_SIZE * 3];
        snprintf(src, sizeof src, "%s/%s", s->run, rel);
        snprintf(dst, sizeof dst, "%s/run/%s", s->tmp, rel);
        st = se_copy_file(src, dst, err);
        (*kept)++;
    }
    fclose(m);
    if (lo && fclose(lo) != 0 && st == SE_OK)
        st = se_fail(err, SE_ERR_IO, "%s: cannot be written", SE_SITE_LEFT_OUT);
    if (st == SE_OK) {
        snprintf(path, sizeof path, "%s/%s", s->run, SE_MANIFEST_NAME);
        snprintf(dst, sizeof dst, "%s/run/%s", s->tmp, SE_MANIFEST_NAME);
        st = se_copy_file(path, dst, err);
    }
    return st;
}

static const char *pages[][2] = {
    {"index.html", "Overview"},        {"protocol.html", "Protocol"},
    {"results.html", "Full results"},  {"provenance.html", "Figure provenance"},
    {"traces.html", "Traces"},         {"reproduce.html", "Reproduction"},
};
#define N_PAGES (sizeof pages / sizeof pages[0])

static FILE *page_open(const site *s, const char *file, const char *title, se_err *err)
{
    char path[PATH_SIZE * 2];
    snprintf(path, sizeof path, "%s/%s", s->tmp, file);
    FILE *f = fopen(path, "w");
    if (!f) {
        se_fail(err, SE_ERR_IO, "%s: cannot be written", path);
        return NULL;
    }
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
    esc(f, title);
    fprintf(f, " - softmax-evidence run ");
    esc(f, str(s->run_json, "run_id"));
    fprintf(f, "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n"
               /* A self-check the browser tests read: images that failed to load. */
               "<script>window.addEventListener('load', function () {\n"
               "  var bad = 0;\n"
               "  for (var i = 0; i < document.images.length; i++)\n"
               "    if (!document.images[i].complete || document.images[i].naturalWidth === 0) bad++;\n"
               "  document.body.setAttribute('data-images', document.images.length);\n"
               "  document.body.setAttribute('data-broken-images', bad);\n"
               "});</script>\n</head>\n<body>\n<nav>");
    for (size_t i = 0; i < N_PAGES; i++)
        fprintf(f, "<a href=\"%s\"%s>%s</a> ", pages[i][0],
                strcmp(pages[i][0], file) == 0 ? " class=\"here\"" : "", pages[i][1]);
    fprintf(f, "</nav>\n<main>\n<h1>");
    esc(f, title);
    fprintf(f, "</h1>\n");
    return f;
}

static se_status page_close(FILE *f, const site *s, const char *file, se_err *err)
{
    fprintf(f, "</main>\n<footer>Run ");
    esc(f, str(s->run_json, "run_id"));
    fprintf(f, " on ");
    esc(f, str(json_object_get(s->env, "gpu"), "name"));
    fprintf(f, ". Every file of this site is listed with its SHA-256 in "
               "<a href=\"%s\">%s</a>.</footer>\n</body>\n</html>\n", SE_SITE_MANIFEST, SE_SITE_MANIFEST);
    if (ferror(f) | (fclose(f) != 0))
        return se_fail(err, SE_ERR_IO, "%s: writing failed", file);
    return SE_OK;
}

static void figure(FILE *f, const char *name, const char *caption)
{
    fprintf(f, "<figure><a href=\"figures/%s.svg\"><img src=\"figures/%s.png\" alt=\"", name, name);
    esc(f, caption);
    fprintf(f, "\"></a><figcaption>");
    esc(f, caption);
    fprintf(f, " (<a href=\"figures/%s.svg\">SVG</a>)</figcaption></figure>\n", name);
}

/* Per shape: each strategy's device-time median, ratio to stream, fraction of copy. */
static void headline_table(FILE *f, const site *s)
{
    fprintf(f, "<table>\n<tr><th>shape</th><th>strategy</th><th>launch</th><th>device time, "
               "median (us)</th><th>95%% interval (us)</th><th>time / stream</th><th>fraction of "
               "copy bandwidth</th></tr>\n");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(s->summary, "cases"), i, c) {
        json_t *d = json_object_get(json_object_get(c, "scopes"), "device");
        json_t *ci = json_object_get(d, "median_ci95_ns");
        json_t *r = json_object_get(json_object_get(d, "time_ratio_to_stream"), "ratio");
        json_t *fr = json_object_get(d, "fraction_of_copy");
        fprintf(f, "<tr><td>");
        esc(f, str(c, "shape"));
        fprintf(f, "</td><td>");
        esc(f, str(c, "what"));
        fprintf(f, "</td><td>");
        esc(f, str(c, "launch"));
        fprintf(f, "</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f to %.2f</td>",
                json_number_value(json_object_get(d, "median_ns")) / 1e3,
                json_number_value(json_array_get(ci, 0)) / 1e3,
                json_number_value(json_array_get(ci, 1)) / 1e3);
        if (r)
            fprintf(f, "<td class=\"n\">%.3f</td>", json_number_value(r));
        else
            fprintf(f, "<td class=\"n\">-</td>");
        if (fr)
            fprintf(f, "<td class=\"n\">%.3f</td></tr>\n", json_number_value(fr));
        else
            fprintf(f, "<td class=\"n\">-</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static se_status write_index(const site *s, se_err *err)
{
    FILE *f = page_open(s, "index.html", "Graphs, fusion and a megakernel against stream launches", err);
    if (!f)
        return SE_ERR_IO;
    fprintf(f, "<p>How much do CUDA graphs, kernel fusion and a megakernel save over ordinary "
               "stream launches on a tiled, multi-phase GPU operation, and what is the proof? "
               "This site holds the evidence of one run of <em>softmax-evidence</em> on an "
               "RMS-scaled softmax (<code>y = softmax(x / rms(x))</code> per row, fp32), split "
               "into tiles of columns so that every row needs cross-block reductions in five "
               "phases: A per-tile sums of squares and maxima, B per-row scale and maximum, C "
               "per-tile sums of exponentials, D per-row normalizer, E the output.</p>\n");
    fprintf(f, "<h2>The four strategies</h2>\n<table>\n<tr><th>strategy</th><th>what it is</th></tr>\n"
               "<tr><td>stream (baseline)</td><td>one ordinary kernel launch per phase on a stream; "
               "no graph replay, no fusion; normal compiler optimizations</td></tr>\n"
               "<tr><td>graph</td><td>the same five launches captured into a CUDA graph and "
               "replayed</td></tr>\n"
               "<tr><td>fusion</td><td>one cooperative kernel with a grid-wide barrier between "
               "phases, on a stream and as a graph node</td></tr>\n"
               "<tr><td>megakernel (toy)</td><td>one persistent kernel whose blocks pull ready "
               "tasks from a queue, with per-row dependency counters, on a stream and as a graph "
               "node</td></tr>\n</table>\n");
    fprintf(f, "<p class=\"note\"><strong>The megakernel is a toy.</strong> ");
    esc(f, str(s->run_json, "megakernel"));
    fprintf(f, ".</p>\n<p>Controls measured in the same run: a device-to-device copy of the same "
               "bytes (the bandwidth ceiling), empty launches on a stream and as a graph node, a "
               "cooperative no-op launch and the cost of one grid barrier, a one-block-per-row "
               "softmax (rowblock), and cuDNN's softmax on the pre-scaled input.</p>\n");
    fprintf(f, "<h2>Headline figures</h2>\n");
    figure(f, "fig2_speedup", "Speedup over the stream baseline, with bootstrap 95% intervals");
    figure(f, "fig3_bandwidth", "Achieved bandwidth as a fraction of the same-run copy bandwidth");
    figure(f, "fig1_latency", "Device time per instance, every sample, by shape and strategy");
    fprintf(f, "<h2>Device time, L2 warm</h2>\n");
    headline_table(f, s);
    fprintf(f, "<p>Everything else: <a href=\"results.html\">full results</a>, "
               "<a href=\"protocol.html\">the protocol</a>, <a href=\"provenance.html\">where every "
               "number comes from</a>, <a href=\"traces.html\">dependency traces</a>, "
               "<a href=\"reproduce.html\">how to reproduce</a>.</p>\n");
    return page_close(f, s, "index.html", err);
}

static se_status write_protocol(const site *s, se_err *err)
{
    FILE *f = page_open(s, "protocol.html", "Protocol", err);
    if (!f)
        return SE_ERR_IO;
    json_t *pr = json_object_get(s->run_json, "protocol");
    fprintf(f, "<p>The measurement protocol fixes the workloads (shapes, tile size, input "
               "distribution and seed), the strategies and controls, the fixed tolerances and "
               "the measurement scopes with their sample and warm-up counts. This run used ");
    esc(f, str(pr, "source"));
    fprintf(f, " (SHA-256 <code>");
    esc(f, str(pr, "source_sha256"));
    fprintf(f, "</code>); the copy in the bundle, <a href=\"run/protocol.json\">run/protocol.json</a>, "
               "has SHA-256 <code>");
    esc(f, str(pr, "bundle_copy_sha256"));
    fprintf(f, "</code>.</p>\n<h2>Scopes</h2>\n<ul>\n"
               "<li><strong>device</strong>: CUDA events around all launches of one instance, L2 "
               "warm, behind a blocking kernel so host submission is excluded.</li>\n"
               "<li><strong>device_cold</strong>: the same after writing twice the L2 size.</li>\n"
               "<li><strong>batch</strong>: events around back-to-back instances, divided.</li>\n"
               "<li><strong>host</strong>: wall clock from the first launch call to stream "
               "synchronize.</li>\n</ul>\n<p>Strategies are interleaved within every round in a "
               "recorded order; the SM clock is read before every sample and throttled samples "
               "are flagged, not dropped.</p>\n<h2>The file</h2>\n<pre>");
    char *text = json_dumps(s->protocol, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    esc(f, text);
    free(text);
    fprintf(f, "</pre>\n");
    return page_close(f, s, "protocol.html", err);
}

/* The figures' report, inside the site's page frame. */
static se_status write_results(const site *s, se_err *err)
{
    char path[PATH_SIZE * 2];
    snprintf(path, sizeof path, "%s/figures/report.html", s->tmp);
    FILE *in = fopen(path, "r");
    if (!in)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read", path);
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    rewind(in);
    char *html = malloc((size_t)n + 1);
    size_t got = html ? fread(html, 1, (size_t)n, in) : 0;
    fclose(in);
    if (!html)
        return se_fail(err, SE_ERR_NOMEM, "report.html: out of memory");
    html[got] = '\0';
    char *body = strstr(html, "<body");
    body = body ? strchr(body, '>') : NULL;
    char *end = body ? strstr(body, "</body>") : NULL;
    FILE *f = page_open(s, "results.html", "Full results", err);
    if (!f) {
        free(html);
        return SE_ERR_IO;
    }
    fprintf(f, "<p>The report below is <a href=\"figures/report.html\">figures/report.html</a> "
               "(also as <a href=\"figures/report.md\">Markdown</a>), drawn from the run after "
               "it verified.</p>\n<div class=\"report\">\n");
    if (body && end) {
        *end = '\0';
        /* Figure and data paths in the report are relative to figures/. */
        for (char *p = body + 1; *p;) {
            char *src = strstr(p, "src=\""), *href = strstr(p, "href=\"");
            char *q = src && (!href || src < href) ? src : href;
            if (!q) {
                fputs(p, f);
                break;
            }
            char *val = strchr(q, '"') + 1;
            fwrite(p, 1, (size_t)(val - p), f);
            if (strncmp(val, "http", 4) != 0 && val[0] != '#' && val[0] != '/' &&
                strncmp(val, "../", 3) != 0)
                fputs("figures/", f);
            p = val;
        }
    }
    fprintf(f, "</div>\n");
    free(html);
    return page_close(f, s, "results.html", err);
}

static se_status write_provenance(const site *s, se_err *err)
{
    FILE *f = page_open(s, "provenance.html", "Figure provenance", err);
    if (!f)
        return SE_ERR_IO;
    fprintf(f, "<p>Every figure was drawn from verified run files; "
               "<a href=\"figures/provenance.json\">figures/provenance.json</a> lists, for each, "
               "the run files and their SHA-256, the data files and script, the command that drew "
               "it and the figure's own hash.</p>\n<h2>Configuration mapping</h2>\n<table>\n"
               "<tr><th>case</th><th>shape</th><th>tile</th><th>strategy</th><th>launch</th>"
               "<th>samples file</th><th>input SHA-256</th><th>output SHA-256</th></tr>\n");
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(s->validation, "cases"), i, c) {
        char sfile[200];
        snprintf(sfile, sizeof sfile, "run/samples/%s.csv", str(c, "case"));
        fprintf(f, "<tr><td>");
        esc(f, str(c, "case"));
        fprintf(f, "</td><td>");
        esc(f, str(c, "shape"));
        fprintf(f, "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td>",
                json_integer_value(json_object_get(c, "tile")));
        esc(f, str(c, "strategy"));
        fprintf(f, "</td><td>%s</td><td><a href=\"", json_integer_value(json_object_get(c, "graph_nodes")) ? "graph" : "stream");
        esc(f, sfile);
        fprintf(f, "\">");
        esc(f, sfile + 4);
        fprintf(f, "</a></td><td><code>");
        esc(f, str(c, "input_sha256"));
        fprintf(f, "</code></td><td><code>");
        esc(f, str(c, "output_sha256"));
        fprintf(f, "</code></td></tr>\n");
    }
    fprintf(f, "</table>\n<p>Scopes and L2 state of every number: device (L2 warm), device_cold "
               "(L2 flushed), batch (warm, steady state), host (warm, wall clock), each with the "
               "protocol's sample count; the samples file holds every sample with its scope, L2 "
               "state, round, position in the round and SM clock.</p>\n");
    return page_close(f, s, "provenance.html", err);
}

static se_status write_traces(const site *s, const char *const *exported, size_t n_exp, se_err *err)
{
    FILE *f = page_open(s, "traces.html", "Dependency traces", err);
    if (!f)
        return SE_ERR_IO;
    fprintf(f, "<p>A separate traced run of every strategy on every shape recorded, for every "
               "task (phase, row, tile), its block, SM and <code>%%globaltimer</code> start and "
               "end. The checks prove coverage (every task exactly once) and ordering (no task "
               "starts before each task it depends on ended; for stream, graph and fusion, no "
               "phase starts before the previous one ended everywhere). Timer resolution: %.0f "
               "ns; no gap smaller than that means anything.</p>\n",
            json_number_value(json_object_get(s->traces, "globaltimer_resolution_ns")));
    figure(f, "fig4_timelines", "Fusion and megakernel timelines on the same shape, by SM, coloured by phase");
    fprintf(f, "<h2>Perfetto</h2>\n<p>Open these in <code>ui.perfetto.dev</code> or "
               "<code>chrome://tracing</code> (download, then load the file):</p>\n<ul>\n");
    for (size_t i = 0; i < n_exp; i++)
        fprintf(f, "<li><a href=\"traces/%s.perfetto.json\" download>%s</a></li>\n", exported[i],
                exported[i]);
    fprintf(f, "</ul>\n<p>Any other trace of the run: <code>softmax-evidence trace RUN_DIR CASE "
               "-o FILE.json</code> on the complete bundle.</p>\n<h2>Checks</h2>\n<table>\n"
               "<tr><th>case</th><th>verdict</th><th>tasks</th><th>missing</th><th>duplicated</th>"
               "<th>edges checked</th><th>order violations</th><th>barrier violations</th>"
               "<th>overlap</th><th>span (us)</th></tr>\n");
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(s->traces, "traces"), i, t) {
        fprintf(f, "<tr><td>");
        esc(f, str(t, "case"));
        fprintf(f, "</td><td>");
        esc(f, str(t, "verdict"));
        fprintf(f, "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td class=\"n\">%"
                   JSON_INTEGER_FORMAT "</td><td class=\"n\">%" JSON_INTEGER_FORMAT
                   "</td><td class=\"n\">%" JSON_INTEGER_FORMAT "</td><td class=\"n\">%"
                   JSON_INTEGER_FORMAT "</td><td class=\"n\">%" JSON_INTEGER_FORMAT
                   "</td><td class=\"n\">%.3f</td><td class=\"n\">%.2f</td></tr>\n",
                json_integer_value(json_object_get(t, "records")),
                json_integer_value(json_object_get(t, "missing_count")),
                json_integer_value(json_object_get(t, "duplicated_count")),
                json_integer_value(json_object_get(t, "dependency_edges_checked")),
                json_integer_value(json_object_get(t, "order_violations_count")),
                json_integer_value(json_object_get(t, "phase_barrier_violations_count")),
                json_number_value(json_object_get(json_object_get(t, "overlap"), "fraction")),
                json_integer_value(json_object_get(t, "span_ns")) / 1e3);
    }
    fprintf(f, "</table>\n");
    return page_close(f, s, "traces.html", err);
}

static se_status write_reproduce(const site *s, size_t kept, size_t left, se_err *err)
{
    FILE *f = page_open(s, "reproduce.html", "Reproduction", err);
    if (!f)
        return SE_ERR_IO;
    fprintf(f, "<h2>What is here</h2>\n<p>This site holds %zu files of the raw run "
               "(<a href=\"run/\">run/</a>: sources as compiled, protocol, environment, "
               "validation, every timing sample, summaries, the traces of one shape, the tracing "
               "costs, profiler exports if any) and its figures and report. The raw run's own "
               "manifest, <a href=\"run/MANIFEST.sha256\">run/MANIFEST.sha256</a>, lists every "
               "file of the complete run; the %zu files this site left out (saved arrays, the "
               "other traces) are listed with their SHA-256 in "
               "<a href=\"%s\">%s</a>, so a selected file can be told from a missing one. This "
               "site is not a substitute for the complete bundle when rebuilding figures.</p>\n",
            kept, left, SE_SITE_LEFT_OUT, SE_SITE_LEFT_OUT);
    fprintf(f, "<h2>Check this site</h2>\n<pre>softmax-evidence verify SITE_DIR</pre>\n"
               "<p>checks every site file against %s, the selected run files against the run's "
               "manifest (the left-out ones reported as remote-only), recomputes every timing "
               "summary from the samples and re-checks the validation and the traces that are "
               "here.</p>\n", SE_SITE_MANIFEST);
    fprintf(f, "<h2>Rebuild the figures from the complete bundle</h2>\n<pre>git clone &lt;the "
               "softmax-evidence repository&gt; &amp;&amp; cd softmax-evidence\n"
               "scripts/build.sh\nbuild/softmax-evidence figures RUN_DIR OUT_DIR</pre>\n"
               "<p>where RUN_DIR is the complete run directory ");
    esc(f, str(s->run_json, "run_id"));
    fprintf(f, " (this repository commits its reference run as <code>runs/reference</code>). "
               "The command verifies hashes, recomputes the timing summaries and checks trace "
               "coverage and ordering before it draws anything.</p>\n"
               "<h2>Rerun on a GPU</h2>\n<pre>scripts/main.sh\n"
               "build/softmax-evidence verify runs/&lt;UTC start&gt;\n"
               "build/softmax-evidence profile runs/&lt;UTC start&gt;   # Nsight Compute counters\n"
               "build/softmax-evidence site runs/&lt;UTC start&gt; site/</pre>\n"
               "<p>The run used commit <code>");
    esc(f, str(json_object_get(s->env, "source"), "git_commit"));
    fprintf(f, "</code>%s, driver %" JSON_INTEGER_FORMAT ", runtime %" JSON_INTEGER_FORMAT
               ", nvcc ", json_is_true(json_object_get(json_object_get(s->env, "source"), "git_dirty"))
                              ? " (with uncommitted changes)" : "",
            json_integer_value(json_object_get(json_object_get(s->env, "software"), "driver_version")),
            json_integer_value(json_object_get(json_object_get(s->env, "software"), "runtime_version")));
    esc(f, str(json_object_get(s->env, "software"), "nvcc_version"));
    fprintf(f, "; the exact command line is in <a href=\"run/environment.json\">run/environment.json"
               "</a>.</p>\n");
    return page_close(f, s, "reproduce.html", err);
}

static se_status write_css(const site *s, se_err *err)
{
    char path[PATH_SIZE * 2];
    snprintf(path, sizeof path, "%s/style.css", s->tmp);
    FILE *f = fopen(path, "w");
    if (!f)
        return se_fail(err, SE_ERR_IO, "%s: cannot be written", path);
    fputs("body { font-family: sans-serif; margin: 0; color: #222; line-height: 1.45; }\n"
          "nav { background: #1f2937; padding: 0.6em 1em; }\n"
          "nav a { color: #e5e7eb; margin-right: 1.2em; text-decoration: none; }\n"
          "nav a.here { color: #fff; font-weight: bold; }\n"
          "main { max-width: 1200px; margin: 1em auto; padding: 0 1em; }\n"
          "footer { max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #555; font-size: 0.9em; }\n"
          "table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }\n"
          "th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; }\n"
          "td.n { text-align: right; font-variant-numeric: tabular-nums; }\n"
          "figure { margin: 1.5em 0; } figure img { max-width: 100%; height: auto; border: 1px solid #ddd; }\n"
          "code, pre { font-family: monospace; font-size: 0.9em; }\n"
          "pre { background: #f5f5f5; padding: 0.8em; overflow-x: auto; }\n"
          ".note { background: #fff7e6; border-left: 4px solid #f0a020; padding: 0.6em 1em; }\n",
          f);
    return fclose(f) == 0 ? SE_OK : se_fail(err, SE_ERR_IO, "%s: cannot be written", path);
}

static void pick_timeline_shape(site *s)
{
    size_t i;
    json_t *t;
    int64_t best = -1;
    json_array_foreach(json_object_get(s->traces, "traces"), i, t) {
        const char *id = str(t, "case");
        long long r, c;
        if (sscanf(id, "%lldx%lld", &r, &c) != 2)
            continue;
        if (r == 4096 && c == 4096) {
            snprintf(s->timeline_shape, sizeof s->timeline_shape, "4096x4096");
            return;
        }
        if (r * c > best) {
            best = r * c;
            snprintf(s->timeline_shape, sizeof s->timeline_shape, "%lldx%lld", r, c);
        }
    }
}

se_status se_site_main(const char *run_dir, const char *out_dir, FILE *out, se_err *err)
{
    se_status st = se_verify_run(run_dir, 0, NULL, err);
    if (st != SE_OK) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return se_fail(err, SE_ERR_VALIDATION, "site: the run does not verify, so no site is "
                       "built from it: %s", why);
    }
    struct stat sb;
    char marker[PATH_SIZE];
    snprintf(marker, sizeof marker, "%s/%s", out_dir, SE_SITE_MANIFEST);
    if (stat(out_dir, &sb) == 0 && stat(marker, &sb) != 0)
        return se_fail(err, SE_ERR_USAGE, "site: %s exists and is not a site built by this "
                       "command; choose another folder", out_dir);
    site s;
    memset(&s, 0, sizeof s);
    s.run = run_dir;
    snprintf(s.tmp, sizeof s.tmp, "%s.incomplete-%ld", out_dir, (long)getpid());
    s.run_json = load(run_dir, "run.json");
    s.env = load(run_dir, "environment.json");
    s.summary = load(run_dir, "summary.json");
    s.validation = load(run_dir, "validation.json");
    s.traces = load(run_dir, "traces.json");
    s.protocol = load(run_dir, "protocol.json");
    if (!s.run_json || !s.env || !s.summary || !s.validation || !s.traces || !s.protocol)
        st = se_fail(err, SE_ERR_IO, "site: a JSON file of %s cannot be read", run_dir);
    if (st == SE_OK && mkdir(s.tmp, 0777) != 0)
        st = se_fail(err, SE_ERR_IO, "site: cannot create %s: %s", s.tmp, strerror(errno));
    size_t kept = 0, left = 0;
    pick_timeline_shape(&s);
    if (st == SE_OK)
        st = copy_run(&s, &kept, &left, err);
    char figdir[PATH_SIZE * 2];
    snprintf(figdir, sizeof figdir, "%s/figures", s.tmp);
    if (st == SE_OK) {
        FILE *quiet = fopen("/dev/null", "w");
        st = se_figures_main(run_dir, figdir, quiet ? quiet : out, err);
        if (quiet)
            fclose(quiet);
    }
    char exported[2][96];
    const char *ex[2] = {exported[0], exported[1]};
    snprintf(exported[0], sizeof exported[0], "%s.fusion", s.timeline_shape);
    snprintf(exported[1], sizeof exported[1], "%s.megakernel", s.timeline_shape);
    for (int k = 0; k < 2 && st == SE_OK; k++) {
        char jp[PATH_SIZE * 3], tdir[PATH_SIZE * 2];
        snprintf(tdir, sizeof tdir, "%s/traces", s.tmp);
        st = se_mkdirs(tdir, err);
        snprintf(jp, sizeof jp, "%s/%s.perfetto.json", tdir, exported[k]);
        FILE *quiet = fopen("/dev/null", "w");
        if (st == SE_OK)
            st = se_trace_export(run_dir, exported[k], jp, quiet ? quiet : out, err);
        if (quiet)
            fclose(quiet);
    }
    if (st == SE_OK)
        st = write_css(&s, err);
    if (st == SE_OK)
        st = write_index(&s, err);
    if (st == SE_OK)
        st = write_protocol(&s, err);
    if (st == SE_OK)
        st = write_results(&s, err);
    if (st == SE_OK)
        st = write_provenance(&s, err);
    if (st == SE_OK)
        st = write_traces(&s, ex, 2, err);
    if (st == SE_OK)
        st = write_reproduce(&s, kept, left, err);
    if (st == SE_OK)
        st = se_manifest_write(s.tmp, SE_SITE_MANIFEST, err);
    if (st == SE_OK) {
        char old[PATH_SIZE + 64];
        snprintf(old, sizeof old, "%s.old-%ld", out_dir, (long)getpid());
        int had = stat(out_dir, &sb) == 0;
        if (had && rename(out_dir, old) != 0)
            st = se_fail(err, SE_ERR_IO, "site: %s cannot be replaced: %s", out_dir, strerror(errno));
        if (st == SE_OK && rename(s.tmp, out_dir) != 0)
            st = se_fail(err, SE_ERR_IO, "site: %s cannot be created: %s", out_dir, strerror(errno));
        if (st == SE_OK && had && se_remove_tree(old) != 0)
            st = se_fail(err, SE_ERR_IO, "site: %s cannot be removed", old);
    }
    if (st != SE_OK) {
        if (s.tmp[0] && se_remove_tree(s.tmp) != 0 && out)
            fprintf(out, "site: could not remove %s\n", s.tmp);
    } else if (out) {
        fprintf(out, "site: %s: %zu pages, %zu run files kept, %zu left out (listed with their "
                "hashes in %s), figures, report, Perfetto traces of %s; open %s/index.html\n",
                out_dir, N_PAGES, kept, left, SE_SITE_LEFT_OUT, s.timeline_shape, out_dir);
    }
    json_decref(s.run_json);
    json_decref(s.env);
    json_decref(s.summary);
    json_decref(s.validation);
    json_decref(s.traces);
    json_decref(s.protocol);
    return st;
}
