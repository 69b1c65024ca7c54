/*
 * site_pages.c - the pages of the static evidence site (see site.h and
 * docs/SITE.md). Every page is one document (render/doc.h) inside the
 * site's frame (navigation, title, footer); the results page is the
 * figures' report document itself. site.c calls se_site_write_pages.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/site_pages.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "bundle/site_verify.h"
#include "bundle/views.h"
#include "model/operation.h"
#include "model/strategy.h"
#include "render/answer_text.h"
#include "render/buf.h"
#include "render/doc.h"

/* A string of the run's views, "" where the run has none. */
static const char *str(const char *s)
{
    return s ? s : "";
}

static const se_run_views *views(const se_site *s)
{
    return se_rundata_views(&s->rd);
}

/* "a", "a and b", "a, b and c". */
static void join_names(char *buf, size_t size, const char *const *names, int n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
                         names[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* ---- the page frame ----------------------------------------------------- */

static const char *pages[][2] = {
    {"index.html", "Overview"},        {"protocol.html", "Protocol"},
    {"results.html", "Full results"},  {"provenance.html", "Figure provenance"},
    {"traces.html", "Traces"},         {"reproduce.html", "Reproduction"},
};
#define N_PAGES (sizeof pages / sizeof pages[0])

/* The level-2 headings of d. */
static int n_sections(const se_doc *d)
{
    int n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += d->blocks[i].kind == SE_DOC_HEADING && d->blocks[i].level == 2;
    return n;
}

/* Writes file: the frame around d, then (when not NULL) the document
 * inner with its relative paths under inner_base, in a report block. */
static se_status page_write(const se_site *s, const char *file, const char *title, const se_doc *d,
                            const se_doc *inner, const char *inner_base, se_err *err)
{
    se_buf b = {0};
    se_buf_add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<title>");
    se_doc_esc_html(&b, title);
    se_buf_add(&b, " - softmax-evidence run ");
    se_doc_esc_html(&b, s->rd.run_id);
    se_buf_add(&b, "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n"
                   /* A self-check the browser tests read: images that failed to load. */
                   "<script>window.addEventListener('load', function () {\n"
                   "  var bad = 0;\n"
                   "  for (var i = 0; i < document.images.length; i++)\n"
                   "    if (!document.images[i].complete || document.images[i].naturalWidth === 0) bad++;\n"
                   "  document.body.setAttribute('data-images', document.images.length);\n"
                   "  document.body.setAttribute('data-broken-images', bad);\n"
                   "});</script>\n</head>\n<body>\n<nav class=\"site\">");
    for (size_t i = 0; i < N_PAGES; i++)
        se_buf_printf(&b, "<a href=\"%s\"%s>%s</a> ", pages[i][0],
                      strcmp(pages[i][0], file) == 0 ? " class=\"here\"" : "", pages[i][1]);
    se_buf_add(&b, "</nav>\n<main>\n");
    /* A page of several sections gets a contents list after its first. */
    if (!inner && n_sections(d) >= 3)
        se_doc_html_with_toc(d, NULL, 3, &b);
    else
        se_doc_html(d, NULL, &b);
    if (inner) {
        se_buf_add(&b, "<div class=\"report\">\n");
        se_doc_html_with_toc(inner, inner_base, 3, &b);
        se_buf_add(&b, "</div>\n");
    }
    se_buf_add(&b, "</main>\n<footer>Run ");
    se_doc_esc_html(&b, s->rd.run_id);
    se_buf_add(&b, " on ");
    se_doc_esc_html(&b, str(views(s)->env.gpu_name));
    se_buf_printf(&b, ". Every file of this site is listed with its SHA-256 in "
                      "<a href=\"%s\">%s</a>.</footer>\n</body>\n</html>\n",
                  SE_SITE_MANIFEST, SE_SITE_MANIFEST);
    char path[SE_SITE_PATH_SIZE * 2];
    se_path_join(s->tmp, file, path, sizeof path);
    se_status st = se_doc_check(d, file, err);
    if (st == SE_OK && inner)
        st = se_doc_check(inner, file, err);
    if (st == SE_OK)
        st = se_buf_write_file(&b, path, file, err);
    se_buf_free(&b);
    return st;
}

/* A page: the document d (its title as first heading) written and freed. */
static se_status page_finish(const se_site *s, const char *file, const char *title, se_doc *d,
                             se_err *err)
{
    se_status st = page_write(s, file, title, d, NULL, NULL, err);
    se_doc_free(d);
    return st;
}

/* 1 if the figures step drew `name` (a figure the run has nothing for,
 * such as fig8 on a protocol of few row lengths, is not drawn). */
static int drawn(const se_site *s, const char *name)
{
    char rel[128], path[SE_SITE_PATH_SIZE * 2];
    snprintf(rel, sizeof rel, "figures/%s.png", name);
    se_path_join(s->tmp, rel, path, sizeof path);
    return access(path, F_OK) == 0;
}

static void figure(se_doc *d, const char *name, const char *caption)
{
    char png[96], svg[96];
    snprintf(png, sizeof png, "figures/%s.png", name);
    snprintf(svg, sizeof svg, "figures/%s.svg", name);
    se_doc_figure(d, png, svg, caption, 0);
    se_doc_text(d, "%s (", caption);
    se_doc_link(d, svg, "SVG");
    se_doc_text(d, ")");
    se_doc_end(d);
}

/* ---- the pages ------------------------------------------------------------ */

/* The run's strategy table, one row per strategy. */
static void strategies_table(se_doc *d, const se_protocol *p)
{
    se_doc_table(d, "strategy|role|mechanism|launch|description", NULL);
    for (int k = 0; k < se_protocol_nstrategies(p); k++) {
        const se_strategy_info *info = se_protocol_strategy(p, k);
        const char *cells[5] = {info->name, se_role_name(info->role), info->mechanism,
                                info->launch, info->description};
        se_doc_row(d, 5, cells);
    }
    se_doc_table_end(d);
}

/* Per shape: each case's device-time median, ratio to stream, fraction of copy. */
static void headline_table(se_doc *d, const se_site *s)
{
    se_doc_table(d, "shape|strategy|launch|device time, median (us)|95% interval (us)|time / "
                    "stream|fraction of copy bandwidth", "lllrrrr");
    const se_run_views *v = views(s);
    for (size_t i = 0; i < v->n_cases; i++) {
        const se_case_view *c = &v->cases[i];
        const se_scope_view *dev = &c->scope[SE_SCOPE_DEVICE];
        char median[32], interval[64], ratio[32] = "-", frac[32] = "-";
        snprintf(median, sizeof median, "%.2f", dev->median_ns / 1e3);
        snprintf(interval, sizeof interval, "%.2f to %.2f", dev->ci95_ns[0] / 1e3,
                 dev->ci95_ns[1] / 1e3);
        if (dev->has_ratio)
            snprintf(ratio, sizeof ratio, "%.3f", dev->ratio);
        if (dev->has_fraction)
            snprintf(frac, sizeof frac, "%.3f", dev->fraction_of_copy);
        char shape[SE_CASE_ID_SIZE]; /* the run's own RxC, not the protocol's 5xT+1 */
        se_shape_id(c->rows, c->cols, shape, sizeof shape);
        const char *cells[7] = {shape, str(c->what), str(c->launch), median, interval, ratio,
                                frac};
        se_doc_row(d, 7, cells);
    }
    se_doc_table_end(d);
}

static se_status write_index(const se_site *s, se_err *err)
{
    static const char title[] =
        "Graphs, programmatic dependent launch, fusion and a megakernel against stream launches";
    se_doc d = {0};
    se_doc_heading(&d, 1, "%s", title);
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "How much do CUDA graphs, programmatic dependent launch, kernel fusion and a "
                    "megakernel save over ordinary stream launches on a tiled, multi-phase GPU "
                    "operation, and what is the proof? "
                    "This site holds the evidence of one run of ");
    se_doc_em(&d, "softmax-evidence");
    /* the run's own workload (strategies.json), its phases from the table */
    const se_operation *op = se_rundata_operation(&s->rd);
    se_doc_text(&d, " on %s %s (", strchr("AEIOU", op->title[0]) ? "an" : "a", op->title);
    se_doc_code(&d, op->brief);
    se_doc_text(&d, " per row, fp32), split into tiles of columns so that every row needs "
                    "cross-block reductions in %d phases:", op->n_phases);
    for (int i = 0; i < op->n_phases && i < SE_OP_MAX_PHASES; i++)
        se_doc_text(&d, " %c per %s: %s%s", op->phases[i].letter,
                    op->phases[i].per_tile ? "tile" : "row", op->phases[i].does,
                    i + 1 < op->n_phases ? ";" : ".");
    se_doc_heading(&d, 2, "The answer");
    se_answer a;
    se_err aerr = {{0}};
    if (se_answer_of_run(&s->rd, &a, &aerr) == SE_OK) {
        if (a.multi)
            se_doc_para(&d, "The answer below rests on %zu runs of the same protocol, this run "
                        "among them (site --set); the rest of the site is this run's.",
                        a.n_runs);
        se_answer_doc(&d, &a, 1);
        se_answer_free(&a);
    } else {
        se_doc_para(&d, "The answer cannot be built from this run: %s", aerr.msg);
    }
    se_doc_heading(&d, 2, "The strategies");
    strategies_table(&d, &s->rd.p);
    se_doc_begin(&d, SE_DOC_NOTE);
    se_doc_strong(&d, "The megakernel is a toy.");
    se_doc_text(&d, " %s.", str(views(s)->run.megakernel));
    const se_protocol *p = &s->rd.p;
    const char *others[SE_STRATEGY_MAX];
    int n_others = 0;
    for (int k = 0; k < se_protocol_nstrategies(p); k++)
        if (!se_protocol_strategy(p, k)->tiled)
            others[n_others++] = se_protocol_strategy(p, k)->name;
    char names[512];
    join_names(names, sizeof names, others, n_others);
    se_doc_para(&d, "Controls measured in the same run: a device-to-device copy of the same bytes "
                    "(the bandwidth ceiling), empty launches on a stream and as a graph node, a "
                    "cooperative no-op launch and the cost of one grid barrier; the strategies of "
                    "the table above that are not tiled (%s) are a control and a reference.",
                names);
    se_doc_heading(&d, 2, "Headline figures");
    figure(&d, "fig2_speedup", "Speedup over the stream baseline, with bootstrap 95% intervals");
    figure(&d, "fig3_bandwidth", "Achieved bandwidth as a fraction of the same-run copy bandwidth");
    figure(&d, "fig1_latency", "Device time per instance, every sample, by shape and strategy");
    if (drawn(s, "fig8_rowlength"))
        figure(&d, "fig8_rowlength", "Fraction of the same-run copy against row length, per group "
                                     "of shapes, L2 warm and flushed");
    se_doc_heading(&d, 2, "Device time, L2 warm");
    headline_table(&d, s);
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "Everything else: ");
    se_doc_link(&d, "results.html", "full results");
    se_doc_text(&d, ", ");
    se_doc_link(&d, "protocol.html", "the protocol");
    se_doc_text(&d, ", ");
    se_doc_link(&d, "provenance.html", "where every number comes from");
    se_doc_text(&d, ", ");
    se_doc_link(&d, "traces.html", "dependency traces");
    se_doc_text(&d, ", ");
    se_doc_link(&d, "reproduce.html", "how to reproduce");
    se_doc_text(&d, ".");
    return page_finish(s, "index.html", title, &d, err);
}

static void scope_item(se_doc *d, const char *scope, const char *what)
{
    se_doc_begin(d, SE_DOC_ITEM);
    se_doc_strong(d, scope);
    se_doc_text(d, ": %s", what);
}

static se_status write_protocol(const se_site *s, se_err *err)
{
    se_doc d = {0};
    se_doc_heading(&d, 1, "Protocol");
    const se_run_view *pr = &views(s)->run;
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "The measurement protocol fixes the workloads (shapes, tile size, input "
                    "distribution and seed), the strategies and controls, the fixed tolerances and "
                    "the measurement scopes with their sample and warm-up counts. This run used "
                    "%s (SHA-256 ", str(pr->protocol_source));
    se_doc_code(&d, str(pr->protocol_sha256));
    se_doc_text(&d, "); the copy in the bundle, ");
    se_doc_link(&d, "run/" SE_PROTOCOL_JSON, "run/" SE_PROTOCOL_JSON);
    se_doc_text(&d, ", has SHA-256 ");
    se_doc_code(&d, str(pr->bundle_copy_sha256));
    se_doc_text(&d, ". Two hashes, because they are of two files: the first is of the protocol "
                    "file as given (the bytes compiled into the binary, or the --protocol "
                    "file), the second of the effective protocol the run wrote into its bundle "
                    "(that file with any command-line overrides applied, written again with its "
                    "keys in a fixed order), so they differ even without overrides. verify checks "
                    "the second against the bundle's copy.");
    se_doc_heading(&d, 2, "Scopes");
    scope_item(&d, "device", "CUDA events around all launches of one instance, L2 warm, behind a "
                             "blocking kernel so host submission is excluded.");
    scope_item(&d, "device_cold", "the same after writing twice the L2 size.");
    scope_item(&d, "batch", "events around back-to-back instances, divided.");
    scope_item(&d, "host", "wall clock from the first launch call to stream synchronize.");
    se_doc_para(&d, "Strategies are interleaved within every round in a recorded order; the SM "
                    "clock is read before every sample and throttled samples are flagged, not "
                    "dropped.");
    se_doc_heading(&d, 2, "The file");
    char *text = json_dumps(s->protocol,
                            JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (!text)
        d.oom = 1;
    else
        se_doc_pre(&d, text);
    free(text);
    return page_finish(s, "protocol.html", "Protocol", &d, err);
}

/* The figures' report document, inside the site's page frame, its paths
 * under figures/. */
static se_status write_results(const se_site *s, const se_doc *report, se_err *err)
{
    se_doc d = {0};
    se_doc_heading(&d, 1, "Full results");
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "The report below is ");
    se_doc_link(&d, "figures/report.html", "figures/report.html");
    se_doc_text(&d, " (also as ");
    se_doc_link(&d, "figures/report.md", "Markdown");
    se_doc_text(&d, "), drawn from the run after it verified.");
    se_doc_end(&d);
    se_status st = page_write(s, "results.html", "Full results", &d, report, "figures/", err);
    se_doc_free(&d);
    return st;
}

static se_status write_provenance(const se_site *s, se_err *err)
{
    se_doc d = {0};
    se_doc_heading(&d, 1, "Figure provenance");
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "Every figure was drawn from verified run files; ");
    se_doc_link(&d, "figures/provenance.json", "figures/provenance.json");
    se_doc_text(&d, " lists, for each, the run files and their SHA-256, the data files and "
                    "script, the command that drew it and the figure's own hash.");
    se_doc_heading(&d, 2, "Configuration mapping");
    se_doc_table(&d, "case|shape|tile|strategy|launch|samples file|input SHA-256|output SHA-256",
                 "llrlllll");
    const se_run_views *v = views(s);
    for (size_t i = 0; i < v->n_validation; i++) {
        const se_validation_view *c = &v->validation[i];
        char rel[256], href[300];
        se_path_samples(str(c->id), rel, sizeof rel);
        snprintf(href, sizeof href, "run/%s", rel);
        const se_strategy_info *k = se_protocol_strategy_named(&s->rd.p, str(c->strategy));
        se_doc_begin(&d, SE_DOC_ROW);
        se_doc_text(&d, "%s", str(c->id));
        se_doc_cell(&d);
        se_doc_text(&d, "%.*s", (int)strcspn(str(c->id), "."), str(c->id)); /* RxC */
        se_doc_cell(&d);
        se_doc_text(&d, "%lld", c->tile);
        se_doc_cell(&d);
        se_doc_text(&d, "%s", str(c->strategy));
        se_doc_cell(&d);
        se_doc_text(&d, "%s", k ? k->launch : "?");
        se_doc_cell(&d);
        se_doc_link(&d, href, rel);
        se_doc_cell(&d);
        se_doc_code(&d, str(c->input_sha256));
        se_doc_cell(&d);
        se_doc_code(&d, str(c->output_sha256));
    }
    se_doc_table_end(&d);
    se_doc_para(&d, "Scopes and L2 state of every number: device (L2 warm), device_cold (L2 "
                    "flushed), batch (warm, steady state), host (warm, wall clock), each with the "
                    "protocol's sample count; the samples file holds every sample with its scope, "
                    "L2 state, round, position in the round and SM clock.");
    return page_finish(s, "provenance.html", "Figure provenance", &d, err);
}

static se_status write_traces(const se_site *s, char exported[][SE_CASE_ID_SIZE], int n_exp,
                              se_err *err)
{
    static const char title[] = "Dependency traces";
    se_doc d = {0};
    se_doc_heading(&d, 1, title);
    const se_protocol *p = &s->rd.p;
    const char *phased[SE_STRATEGY_MAX], *shown[SE_SITE_MAX_TIMELINES];
    int n_phased = 0;
    for (int k = 0; k < se_protocol_nstrategies(p); k++) {
        const se_strategy_info *info = se_protocol_strategy(p, k);
        int seen = 0;
        for (int j = 0; j < n_phased; j++)
            seen |= strcmp(phased[j], info->mechanism) == 0;
        if (info->trace == SE_TRACE_PHASED && !seen)
            phased[n_phased++] = info->mechanism;
    }
    for (int k = 0; k < s->n_timelines; k++)
        shown[k] = se_protocol_strategy(p, s->timelines[k])->name;
    char phased_names[256], shown_names[256];
    join_names(phased_names, sizeof phased_names, phased, n_phased);
    join_names(shown_names, sizeof shown_names, shown, s->n_timelines);
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "A separate traced run of every strategy on every shape recorded, for every "
                    "task (phase, row, tile), its block, SM and ");
    se_doc_code(&d, "%globaltimer");
    se_doc_text(&d, " start and end. The checks prove coverage (every task exactly once) and "
                    "ordering (no task starts before each task it depends on ended; for %s, no "
                    "phase starts before the previous one ended everywhere). Timer resolution: "
                    "%.0f ns; no gap smaller than that means anything.", phased_names,
                views(s)->traces.timer_resolution_ns);
    char caption[400];
    snprintf(caption, sizeof caption, "Timelines of %s on the same shape, by SM, coloured by phase",
             shown_names);
    if (drawn(s, "fig4_timelines"))
        figure(&d, "fig4_timelines", caption);
    else
        se_doc_para(&d, "This run has no shape with a trace of each timeline strategy (a "
                        "protocol with \"traces\": false takes none), so no timelines are drawn "
                        "and none is exported.");
    se_doc_heading(&d, 2, "Perfetto");
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "Open these in ");
    se_doc_code(&d, "ui.perfetto.dev");
    se_doc_text(&d, " or ");
    se_doc_code(&d, "chrome://tracing");
    se_doc_text(&d, " (download, then load the file): a track group per phase, in it a track "
                    "per resident block slot of each SM (so no two tasks on a track overlap), a "
                    "slice per task, and an arrow per dependency edge the checks tested:");
    for (int i = 0; i < n_exp; i++) {
        char href[SE_CASE_ID_SIZE + 32];
        snprintf(href, sizeof href, "traces/%s.perfetto.json", exported[i]);
        se_doc_begin(&d, SE_DOC_ITEM);
        se_doc_download(&d, href, exported[i]);
    }
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "Any other trace of the run: ");
    se_doc_code(&d, "softmax-evidence trace RUN_DIR CASE -o FILE.json");
    se_doc_text(&d, " on the complete bundle.");
    se_doc_heading(&d, 2, "Checks");
    se_doc_table(&d, "case|verdict|tasks|missing|duplicated|edges checked|order violations|barrier "
                     "violations|overlap|span (us)", "llrrrrrrrr");
    const se_traces_view *tv = &views(s)->traces;
    for (size_t i = 0; i < tv->n; i++) {
        const se_trace_view *t = &tv->v[i];
        const long long counts[] = {t->records, t->missing_count, t->duplicated_count,
                                    t->dependency_edges_checked, t->order_violations_count,
                                    t->phase_barrier_violations_count};
        se_doc_begin(&d, SE_DOC_ROW);
        se_doc_text(&d, "%s", str(t->id));
        se_doc_cell(&d);
        se_doc_text(&d, "%s", str(t->verdict));
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            se_doc_cell(&d);
            se_doc_text(&d, "%lld", counts[k]);
        }
        se_doc_cell(&d);
        se_doc_text(&d, "%.3f", t->overlap_fraction);
        se_doc_cell(&d);
        se_doc_text(&d, "%.2f", t->span_ns / 1e3);
    }
    se_doc_table_end(&d);
    return page_finish(s, "traces.html", title, &d, err);
}

static se_status write_reproduce(const se_site *s, size_t kept, size_t left, se_err *err)
{
    se_doc d = {0};
    se_doc_heading(&d, 1, "Reproduction");
    se_doc_heading(&d, 2, "What is here");
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "This site holds %zu files of the raw run (", kept);
    se_doc_link(&d, "run/", "run/");
    se_doc_text(&d, ": sources as compiled, protocol, environment, validation, every timing "
                    "sample, summaries, the traces of one shape, the tracing costs, profiler "
                    "exports if any) and its figures and report. The raw run's own manifest, ");
    se_doc_link(&d, "run/" SE_MANIFEST_NAME, "run/" SE_MANIFEST_NAME);
    se_doc_text(&d, ", lists every file of the complete run; the %zu files this site left out "
                    "(saved arrays, the other traces) are listed with their SHA-256 in ", left);
    se_doc_link(&d, SE_SITE_LEFT_OUT, SE_SITE_LEFT_OUT);
    se_doc_text(&d, ", so a selected file can be told from a missing one. This site is not a "
                    "substitute for the complete bundle when rebuilding figures.");
    se_doc_heading(&d, 2, "Check this site");
    se_doc_pre(&d, "softmax-evidence verify SITE_DIR");
    se_doc_para(&d, "checks every site file against %s, the selected run files against the run's "
                    "manifest (the left-out ones reported as remote-only), recomputes every timing "
                    "summary from the samples and re-checks the validation and the traces that are "
                    "here.", SE_SITE_MANIFEST);
    se_doc_heading(&d, 2, "Rebuild the figures from the complete bundle");
    /* The run records its commit, not a repository address (none is
     * recorded): say where the code is without inventing a URL. */
    const char *commit = str(views(s)->env.git_commit);
    se_doc_para(&d, "The run records the commit it was built from (%s) but no repository "
                    "address: take the code from the softmax-evidence repository you got this "
                    "site or run from, or from the run itself, which embeds the sources it was "
                    "built from (source/, listed with their SHA-256 in " SE_RUN_JSON ").",
                commit[0] ? commit : "not recorded");
    char steps[400];
    snprintf(steps, sizeof steps, "cd softmax-evidence   # a clone of the repository\n"
             "git checkout %.64s\nscripts/build.sh\nbuild/softmax-evidence figures RUN_DIR OUT_DIR",
             commit[0] ? commit : "COMMIT");
    se_doc_pre(&d, steps);
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "where RUN_DIR is the complete run directory %s (this repository commits its "
                    "reference run as ", s->rd.run_id);
    se_doc_code(&d, "runs/reference");
    se_doc_text(&d, "). The command verifies hashes, recomputes the timing summaries and checks "
                    "trace coverage and ordering before it draws anything.");
    se_doc_heading(&d, 2, "Rerun on a GPU");
    se_doc_pre(&d, "scripts/main.sh\n"
                   "build/softmax-evidence verify runs/<UTC start>\n"
                   "build/softmax-evidence profile runs/<UTC start>   # Nsight Compute counters\n"
                   "build/softmax-evidence site runs/<UTC start> site/");
    const se_env_view *env = &views(s)->env;
    se_doc_begin(&d, SE_DOC_PARA);
    se_doc_text(&d, "The run used commit ");
    se_doc_code(&d, str(env->git_commit));
    se_doc_text(&d, "%s, driver %lld, runtime %lld, nvcc %s; the exact command line is in ",
                env->git_dirty ? " (with uncommitted changes)" : "", env->driver_version,
                env->runtime_version, str(env->nvcc_version));
    se_doc_link(&d, "run/" SE_ENVIRONMENT_JSON, "run/" SE_ENVIRONMENT_JSON);
    se_doc_text(&d, ".");
    return page_finish(s, "reproduce.html", "Reproduction", &d, err);
}

static se_status write_css(const se_site *s, se_err *err)
{
    se_buf b = {0};
    se_buf_add(&b, se_doc_css());
    char path[SE_SITE_PATH_SIZE * 2];
    se_path_join(s->tmp, "style.css", path, sizeof path);
    se_status st = se_buf_write_file(&b, path, "style.css", err);
    se_buf_free(&b);
    return st;
}

size_t se_site_n_pages(void)
{
    return N_PAGES;
}

se_status se_site_write_pages(const se_site *s, const se_doc *report,
                              char exported[][SE_CASE_ID_SIZE], size_t kept, size_t left,
                              se_err *err)
{
    se_status st = write_css(s, err);
    if (st == SE_OK)
        st = write_index(s, err);
    if (st == SE_OK)
        st = write_protocol(s, err);
    if (st == SE_OK)
        st = write_results(s, report, err);
    if (st == SE_OK)
        st = write_provenance(s, err);
    if (st == SE_OK)
        st = write_traces(s, exported, s->n_timelines, err);
    if (st == SE_OK)
        st = write_reproduce(s, kept, left, err);
    return st;
}
