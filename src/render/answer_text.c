/*
 * answer_text.c - the answer, formatted (see answer_text.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/answer_text.h"

#include <stdlib.h>
#include <string.h>

#include "bundle/runset.h"
#include "bundle/verify.h"
#include "model/operation.h"
#include "render/answer_summary.h"
#include "render/buf.h"
#include "render/doc.h"

static const se_answer_ratio *cell(const se_answer *a, size_t shape, int m)
{
    return &a->cell[shape * (size_t)a->n_mech + (size_t)m];
}

static const char *mech_name(const se_answer *a, int m)
{
    return se_answer_mech_name(a, m);
}

/* "0.797 (0.790-0.798)" */
static void fmt_ratio(char *buf, size_t size, const se_answer_ratio *r)
{
    if (!r->present)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f (%.3f-%.3f)", r->ratio, r->lo, r->hi);
}

/* "0.789-0.801" over the runs */
static void fmt_runs(char *buf, size_t size, const se_answer_ratio *r)
{
    if (!r->present || r->n_runs == 0)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f-%.3f", r->run_min, r->run_max);
}

/* What the grid shows, one sentence: within one run. */
static void caption_one_run(char *buf, size_t size, const se_answer *a)
{
    snprintf(buf, size, "Device time of each mechanism over stream's on the same shape (L2 warm, "
             "median of the run's samples; below 1 is faster). In brackets: the 95%% bootstrap "
             "interval within run %s (docs/TIMING.md).", a->run_ids[0]);
}

/* What the grid shows over several runs. */
static void caption_runs(char *buf, size_t size, const se_answer *a)
{
    snprintf(buf, size, "Device time of each mechanism over stream's on the same shape (L2 warm; "
             "below 1 is faster): the median over %zu separate runs of each run's ratio of "
             "medians. In brackets: the 95%% interval of one more run's ratio: the two-level "
             "bootstrap's (runs resampled, then samples within each run), widened to the "
             "run-level prediction interval (Student's t with one degree of freedom fewer than "
             "runs, on the runs' log ratios), so it carries the spread between runs and does not "
             "shrink as runs are added; "
             "\"runs\": the lowest and highest ratio of a single run (docs/TIMING.md).",
             a->n_runs);
}

static void caption(char *buf, size_t size, const se_answer *a)
{
    if (a->multi)
        caption_runs(buf, size, a);
    else
        caption_one_run(buf, size, a);
}

/* The measured calibration, one paragraph (several runs): how often a
 * held-out run's ratio fell inside the interval of the others. */
static void calibration_footnote(se_buf *b, const se_answer *a)
{
    if (!a->multi || a->calib_all.checked == 0)
        return;
    char others[128];
    if (a->n_runs == 2)
        snprintf(others, sizeof others, "run (a within-run interval: one run has no spread "
                 "between runs to predict from)");
    else
        snprintf(others, sizeof others, "%zu runs", a->n_runs - 1);
    se_buf_printf(b, "Calibration, measured by leaving one run out: %d of %d held-out ratios "
                  "(%.0f%%) fell inside the 95%% interval computed from the other %s "
                  "(target: at least 90%%); per shape:",
                  a->calib_all.covered, a->calib_all.checked,
                  100.0 * a->calib_all.covered / a->calib_all.checked, others);
    for (size_t i = 0; i < a->n_shapes; i++)
        if (a->calib[i].checked)
            se_buf_printf(b, "%s %s %d/%d", i ? ";" : "", a->shape[i], a->calib[i].covered,
                          a->calib[i].checked);
    se_buf_printf(b, ".\n");
}

static void grid_text(FILE *out, const se_answer *a)
{
    fprintf(out, "%-12s", "shape");
    for (int m = 0; m < a->n_mech; m++)
        fprintf(out, " %-20s", mech_name(a, m));
    fprintf(out, "\n");
    for (size_t i = 0; i < a->n_shapes; i++) {
        fprintf(out, "%-12s", a->shape[i]);
        for (int m = 0; m < a->n_mech; m++) {
            char v[64];
            fmt_ratio(v, sizeof v, cell(a, i, m));
            fprintf(out, " %-20s", v);
        }
        fprintf(out, "\n");
        if (a->multi) {
            fprintf(out, "%-12s", "  runs");
            for (int m = 0; m < a->n_mech; m++) {
                char v[64];
                fmt_runs(v, sizeof v, cell(a, i, m));
                fprintf(out, " %-20s", v);
            }
            fprintf(out, "\n");
        }
    }
}

/* The head-to-head comparisons, one line each, into b. */
static void vs_lines(se_buf *b, const se_answer *a)
{
    for (int k = 0; k < SE_NVS; k++) {
        const char *na, *nb;
        se_answer_vs_names(k, &na, &nb);
        int any = 0;
        for (size_t i = 0; i < a->n_shapes; i++)
            any |= a->vs[i * SE_NVS + (size_t)k].present;
        if (!any)
            continue;
        se_buf_printf(b, "%s over %s (device time, paired by round; 95%% %s interval%s):", na,
                      nb, a->multi ? "run-level" : "within-run",
                      a->multi ? "; runs range" : "");
        for (size_t i = 0; i < a->n_shapes; i++) {
            const se_answer_ratio *r = &a->vs[i * SE_NVS + (size_t)k];
            if (!r->present)
                continue;
            char v[64], runs[64];
            fmt_ratio(v, sizeof v, r);
            fmt_runs(runs, sizeof runs, r);
            se_buf_printf(b, "%s %s %s%s%s", i ? ";" : "", a->shape[i], v,
                          a->multi ? " runs " : "", a->multi ? runs : "");
        }
        se_buf_printf(b, "\n");
    }
}

/* Counts of where a ratio's interval lies against 1. */
typedef struct verdicts {
    int n, faster, slower, level;
    size_t best, worst; /* shapes of the lowest and highest ratio */
    double min, max;
} verdicts;

static verdicts judge(const se_answer *a, int m)
{
    verdicts v;
    memset(&v, 0, sizeof v);
    for (size_t i = 0; i < a->n_shapes; i++) {
        const se_answer_ratio *r = cell(a, i, m);
        if (!r->present)
            continue;
        if (v.n == 0 || r->ratio < v.min) {
            v.min = r->ratio;
            v.best = i;
        }
        if (v.n == 0 || r->ratio > v.max) {
            v.max = r->ratio;
            v.worst = i;
        }
        v.n++;
        if (r->hi < 1.0)
            v.faster++;
        else if (r->lo > 1.0)
            v.slower++;
        else
            v.level++;
    }
    return v;
}

/* "saves 3% to 23%", "costs 9% to 47% more", or a mix. */
static void saving_phrase(char *buf, size_t size, double min, double max)
{
    if (max < 1.0)
        snprintf(buf, size, "saves %.0f%% to %.0f%% of stream's time", (1.0 - max) * 100.0,
                 (1.0 - min) * 100.0);
    else if (min > 1.0)
        snprintf(buf, size, "costs %.0f%% to %.0f%% more than stream", (min - 1.0) * 100.0,
                 (max - 1.0) * 100.0);
    else
        snprintf(buf, size, "from %.0f%% less to %.0f%% more time than stream",
                 (1.0 - min) * 100.0, (max - 1.0) * 100.0);
}

static void mechanism_sentence(se_buf *b, const se_answer *a, int m)
{
    verdicts v = judge(a, m);
    if (v.n == 0)
        return;
    char saving[128];
    saving_phrase(saving, sizeof saving, v.min, v.max);
    const char *name = mech_name(a, m);
    se_buf_printf(b, "%s: %.3f to %.3f of stream's device time (%s); faster than stream on %d of %d "
                "shapes (95%% interval below 1), slower on %d, level on %d; its best is %s "
                "(%.3f), its worst %s (%.3f).",
                name, v.min, v.max, saving, v.faster, v.n, v.slower, v.level, a->shape[v.best],
                v.min, a->shape[v.worst], v.max);
    if (a->mech[m] == se_stable_first_mechanism(a->table, "megakernel") && a->mk_init_max_ns > 0.0)
        se_buf_printf(b, " The megakernel is a toy: it shows what a static schedule with per-row "
                    "counters costs on this workload, not a model-scale megakernel result; its "
                    "initialization (counter reset and grid barrier), %.2f to %.2f us on its "
                    "own, is inside every invocation.",
                    a->mk_init_min_ns / 1e3, a->mk_init_max_ns / 1e3);
    se_buf_printf(b, "\n");
}

static void vs_sentence(se_buf *b, const se_answer *a, int k)
{
    const char *na, *nb;
    se_answer_vs_names(k, &na, &nb);
    int n = 0, faster = 0, slower = 0;
    double min = 0.0, max = 0.0;
    size_t best = 0, worst = 0;
    for (size_t i = 0; i < a->n_shapes; i++) {
        const se_answer_ratio *r = &a->vs[i * SE_NVS + (size_t)k];
        if (!r->present)
            continue;
        if (n == 0 || r->ratio < min)
            min = r->ratio, best = i;
        if (n == 0 || r->ratio > max)
            max = r->ratio, worst = i;
        n++;
        faster += r->hi < 1.0;
        slower += r->lo > 1.0;
    }
    if (n == 0)
        return;
    const se_answer_ratio *rb = &a->vs[best * SE_NVS + (size_t)k];
    const se_answer_ratio *rw = &a->vs[worst * SE_NVS + (size_t)k];
    se_buf_printf(b, "%s against %s: %s is faster on %d of %d shapes and slower on %d (95%% "
                "intervals that exclude 1); the ratio runs from %.3f (%.3f-%.3f) on %s to %.3f "
                "(%.3f-%.3f) on %s.\n",
                na, nb, na, faster, n, slower, min, rb->lo, rb->hi, a->shape[best], max, rw->lo,
                rw->hi, a->shape[worst]);
}

/* One run: what its intervals capture. */
static void one_run_sentence(se_buf *b, const se_answer *a)
{
    se_buf_printf(b, "This answer rests on one run (%s, %s to %s): its intervals capture the "
                  "noise between samples of that run, not between runs (docs/TIMING.md).\n",
                  a->run_ids[0], a->first_start, a->last_end);
}

/* Several runs: how many, over how long, and how far a ratio moved. */
static void runs_sentence(se_buf *b, const se_answer *a)
{
    double spread = 0.0;
    for (size_t i = 0; i < a->n_shapes; i++)
        for (int m = 0; m < a->n_mech; m++) {
            const se_answer_ratio *r = cell(a, i, m);
            if (r->present && r->n_runs > 1 && (r->run_max - r->run_min) / r->ratio > spread)
                spread = (r->run_max - r->run_min) / r->ratio;
        }
    se_buf_printf(b, "This answer rests on %zu separate runs of the same protocol, made over "
                  "%.0f minutes (%s to %s); every ratio, interval, verdict and count above is "
                  "over those runs (an interval of one more run's ratio), and a single run's "
                  "ratio moved by at most %.1f%% of the median ratio.%s\n",
                  a->n_runs, a->span_s / 60.0, a->first_start, a->last_end, spread * 100.0,
                  a->n_runs == 2 ? " With 2 runs the spread between runs rests on one difference "
                                   "per ratio (1 degree of freedom), so a difference of a few "
                                   "percent is level; 5 runs or more (scripts/multirun.sh) narrow "
                                   "the intervals."
                                 : "");
}

/* A workload other than the RMS-scaled softmax (the first entry, whose
 * runs' answers read as they always have): its own section, first. What
 * each mechanism takes away depends on the phase count the run recorded
 * (strategies.json's workload): stream and graph launch one kernel a
 * phase, the PDL forms overlap the boundaries between them, fusion
 * passes a grid barrier at each, the megakernel waits on a per-row
 * counter at each row phase. The ratios below are on those phases. */
static void workload_sentence(se_buf *b, const se_answer *a)
{
    const se_operation *op = a->op, *first = se_operation_default();
    if (!op || op == first)
        return;
    int n = op->n_phases, n0 = first->n_phases, rows = 0, rows0 = 0;
    for (int i = 0; i < n; i++)
        rows += !op->phases[i].per_tile;
    for (int i = 0; i < n0; i++)
        rows0 += !first->phases[i].per_tile;
    se_buf_printf(b, "Workload: %s (%s), a tiled operation of %d phases (", op->title, op->brief, n);
    for (int i = 0; i < n; i++)
        se_buf_printf(b, "%s%c %s: %s", i ? "; " : "", op->phases[i].letter,
                      op->phases[i].per_tile ? "per tile" : "per row", op->phases[i].does);
    se_buf_printf(b, "), where the %s has %d. So stream and graph launch %d kernels a call (the "
                  "%s %d), stream-pdl and graph-pdl overlap %d kernel boundaries (%d), fusion "
                  "passes %d grid barriers (%d) and the megakernel waits on %d per-row "
                  "counter%s (%d): each mechanism below has %s to save than on the %s, and its "
                  "ratios to stream are this workload's, measured on its own phases; the %s's "
                  "answer is its own run's.\n",
                  first->title, n0, n, first->title, n0, n - 1, n0 - 1, n - 1, n0 - 1, rows,
                  rows == 1 ? "" : "s", rows0, n < n0 ? "fewer boundaries" : "as many boundaries",
                  first->title, first->title);
}

char *se_answer_sentences(const se_answer *a)
{
    se_buf b;
    memset(&b, 0, sizeof b);
    workload_sentence(&b, a);
    for (int m = 0; m < a->n_mech; m++)
        mechanism_sentence(&b, a, m);
    for (int k = 0; k < SE_NVS; k++)
        vs_sentence(&b, a, k);
    if (a->multi)
        runs_sentence(&b, a);
    else
        one_run_sentence(&b, a);
    if (!a->op || a->op->has_cudnn)
        se_buf_printf(&b, "rowblock (a non-tiled control), cuDNN and the PyTorch peers are "
                      "context, not part of the answer: the timing table has them.\n");
    else
        se_buf_printf(&b, "rowblock (a non-tiled control) and the PyTorch peers are context, not "
                      "part of the answer: the timing table has them (cuDNN's legacy API has no "
                      "%s).\n", a->op->title);
    if (b.oom) {
        se_buf_free(&b);
        return NULL;
    }
    char *text = b.s ? b.s : calloc(1, 1);
    return text;
}

static const char CONTEXT_CAPTION[] =
    "Context, not the answer: per shape, our fastest validated strategy of any kind (rowblock, "
    "a non-tiled control, included) with its fraction of the same-run copy, and the best peer "
    "(the fastest of cuDNN and the PyTorch peers that passed validation); \"vs best peer\" is "
    "the peer's median over ours, above 1 where ours is faster (run %s).";

static void context_cells(const se_answer *a, size_t i, char cells[6][64])
{
    const se_answer_context *c = &a->context[i];
    snprintf(cells[0], 64, "%s", a->shape[i]);
    snprintf(cells[1], 64, "%s", c->fastest[0] ? c->fastest : "-");
    if (c->fastest[0]) {
        snprintf(cells[2], 64, "%.2f", c->fastest_ns / 1e3);
        snprintf(cells[3], 64, "%.3f", c->fastest_of_copy);
    } else {
        snprintf(cells[2], 64, "-");
        snprintf(cells[3], 64, "-");
    }
    snprintf(cells[4], 64, "%s", c->peer[0] ? c->peer : "-");
    if (c->peer[0] && c->fastest[0])
        snprintf(cells[5], 64, "%.2f us, %.3f", c->peer_ns / 1e3, c->vs_peer);
    else
        snprintf(cells[5], 64, "-");
}

static void context_doc(se_doc *d, const se_answer *a)
{
    se_doc_para(d, CONTEXT_CAPTION, a->run_ids[0]);
    se_doc_table(d, "shape|fastest of ours|median (us)|of copy|best peer|its median, vs best peer",
                 "llrrlr");
    for (size_t i = 0; i < a->n_shapes; i++) {
        char cells[6][64];
        const char *row[6];
        context_cells(a, i, cells);
        for (int k = 0; k < 6; k++)
            row[k] = cells[k];
        se_doc_row(d, 6, row);
    }
    se_doc_table_end(d);
}

static void context_text(FILE *out, const se_answer *a)
{
    fprintf(out, "\n");
    fprintf(out, CONTEXT_CAPTION, a->run_ids[0]);
    fprintf(out, "\n%-12s %-17s %12s %8s %-17s %s\n", "shape", "fastest of ours", "median_us",
            "of_copy", "best peer", "its median, vs best peer");
    for (size_t i = 0; i < a->n_shapes; i++) {
        char cells[6][64];
        context_cells(a, i, cells);
        fprintf(out, "%-12s %-17s %12s %8s %-17s %s\n", cells[0], cells[1], cells[2], cells[3],
                cells[4], cells[5]);
    }
}

/* Calls line(ctx, text) for each line of text. */
static void each_line(const char *text, void (*line)(void *, const char *), void *ctx)
{
    char *copy = text ? strdup(text) : NULL;
    for (char *l = copy, *next; l && *l; l = next) {
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        line(ctx, l);
    }
    free(copy);
}

static void doc_item(void *d, const char *l)
{
    se_doc_item(d, "%s", l);
}

static void doc_para(void *d, const char *l)
{
    se_doc_para(d, "%s", l);
}

void se_answer_doc(se_doc *d, const se_answer *a, int context)
{
    char *text = se_answer_sentences(a);
    each_line(text, doc_item, d);
    free(text);
    char cap[1024];
    caption(cap, sizeof cap, a);
    se_doc_begin(d, SE_DOC_PARA);
    se_doc_em(d, cap);
    se_doc_end(d);
    const char *head[1 + SE_STRATEGY_MAX];
    head[0] = "shape";
    for (int m = 0; m < a->n_mech; m++)
        head[1 + m] = mech_name(a, m);
    char align[2 + SE_STRATEGY_MAX];
    align[0] = 'l';
    memset(align + 1, 'r', (size_t)a->n_mech);
    align[1 + a->n_mech] = '\0';
    se_doc_table_cells(d, 1 + a->n_mech, head, align);
    for (size_t i = 0; i < a->n_shapes; i++) {
        char cells[1 + SE_STRATEGY_MAX][160];
        const char *row[1 + SE_STRATEGY_MAX];
        snprintf(cells[0], sizeof cells[0], "%s", a->shape[i]);
        for (int m = 0; m < a->n_mech; m++) {
            const se_answer_ratio *r = cell(a, i, m);
            char v[64], runs[64];
            fmt_ratio(v, sizeof v, r);
            fmt_runs(runs, sizeof runs, r);
            if (a->multi && r->present)
                snprintf(cells[1 + m], sizeof cells[1 + m], "%s, runs %s", v, runs);
            else
                snprintf(cells[1 + m], sizeof cells[1 + m], "%s", v);
        }
        for (int k = 0; k <= a->n_mech; k++)
            row[k] = cells[k];
        se_doc_row(d, 1 + a->n_mech, row);
    }
    se_doc_table_end(d);
    se_buf vs;
    memset(&vs, 0, sizeof vs);
    vs_lines(&vs, a);
    calibration_footnote(&vs, a);
    each_line(se_buf_str(&vs), doc_para, d);
    se_buf_free(&vs);
    if (context)
        context_doc(d, a);
}

void se_answer_print(FILE *out, const se_answer *a, se_format fmt, int context)
{
    if (fmt == SE_FORMAT_MD) {
        se_doc d;
        memset(&d, 0, sizeof d);
        se_answer_doc(&d, a, context);
        se_buf md;
        memset(&md, 0, sizeof md);
        se_doc_markdown(&d, &md);
        fputs(se_buf_str(&md), out);
        se_buf_free(&md);
        se_doc_free(&d);
        return;
    }
    char *text = se_answer_sentences(a);
    fprintf(out, "THE ANSWER\n");
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        fprintf(out, "  %s\n", line);
    }
    free(text);
    char cap[1024];
    caption(cap, sizeof cap, a);
    fprintf(out, "%s\n", cap);
    grid_text(out, a);
    se_buf vs;
    memset(&vs, 0, sizeof vs);
    vs_lines(&vs, a);
    calibration_footnote(&vs, a);
    fputs(se_buf_str(&vs), out);
    se_buf_free(&vs);
    if (context)
        context_text(out, a);
}

/* Verifies and loads every run; *loaded of them need se_rundata_free. */
static se_status load_verified(const char *const *dirs, size_t n, se_rundata **runs,
                               size_t *loaded, se_err *err)
{
    *loaded = 0;
    *runs = calloc(n ? n : 1, sizeof **runs);
    if (!*runs)
        return se_fail(err, SE_ERR_NOMEM, "answer: out of memory");
    se_status st = SE_OK;
    for (size_t i = 0; i < n && st == SE_OK; i++) {
        st = se_verify_first(dirs[i], "answer", "no answer is built from it", err);
        if (st == SE_OK)
            st = se_rundata_load(dirs[i], &(*runs)[i], err);
        if (st == SE_OK)
            (*loaded)++;
    }
    return st;
}

static void free_loaded(se_rundata *runs, size_t loaded)
{
    for (size_t i = 0; i < loaded; i++)
        se_rundata_free(&runs[i]);
    free(runs);
}

se_status se_answer_main(const char *const *dirs, size_t n_dirs, se_format fmt, FILE *out,
                         se_err *err)
{
    se_rundata *runs = NULL;
    size_t loaded = 0;
    se_status st = load_verified(dirs, n_dirs, &runs, &loaded, err);
    se_answer a;
    if (st == SE_OK)
        st = se_answer_build(runs, n_dirs, &a, err);
    if (st == SE_OK) {
        if (fmt == SE_FORMAT_SUMMARY || fmt == SE_FORMAT_JSON) {
            char *text = se_answer_sentences(&a);
            se_answer_summary_print(out, &a, &runs[0], fmt == SE_FORMAT_JSON, text);
            free(text);
        } else
            se_answer_print(out, &a, fmt, 1);
        se_answer_free(&a);
    }
    free_loaded(runs, loaded);
    return st;
}

static const char *answer_set; /* se_answer_set_runs */

void se_answer_set_runs(const char *set_file)
{
    answer_set = set_file;
}

se_status se_answer_of_run(const se_rundata *rd, se_answer *a, se_err *err)
{
    if (!answer_set)
        return se_answer_build(rd, 1, a, err);
    se_runset set;
    se_status st = se_runset_load(answer_set, &set, err);
    if (st != SE_OK)
        return st;
    se_rundata *runs = NULL;
    size_t loaded = 0;
    st = load_verified((const char *const *)set.dirs, set.n, &runs, &loaded, err);
    int member = 0;
    for (size_t i = 0; st == SE_OK && i < set.n; i++)
        member |= strcmp(runs[i].run_id, rd->run_id) == 0;
    if (st == SE_OK && !member)
        st = se_fail(err, SE_ERR_USAGE, "--set %s: run %s is not one of its runs", answer_set,
                     rd->run_id);
    if (st == SE_OK)
        st = se_answer_build(runs, set.n, a, err);
    if (st == SE_OK) { /* the answer's table points into runs[0]'s protocol */
        a->own_runs = runs;
        a->n_own_runs = loaded;
    } else {
        free_loaded(runs, loaded);
    }
    se_runset_free(&set);
    return st;
}
