/*
 * answer_summary.c - the answer in a few sentences, and as JSON (see
 * answer_summary.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/answer_summary.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/answer.h"
#include "bundle/views.h"
#include "render/buf.h"

static const se_answer_ratio *cell_of(const se_answer *a, size_t shape, int m)
{
    return &a->cell[shape * (size_t)a->n_mech + (size_t)m];
}

/* rows * cols of a shape id "RxC"; 0 where it is not of that form. */
static double elements_of(const char *id)
{
    long long r, c;
    char tail;
    if (sscanf(id, "%lldx%lld%c", &r, &c, &tail) != 2 || r <= 0 || c <= 0)
        return 0;
    return (double)r * (double)c;
}

/* " (the smallest shape)" or " (the largest)" where shape i is one. */
static const char *size_note(const se_answer *a, size_t i)
{
    double e = elements_of(a->shape[i]);
    if (e <= 0)
        return "";
    int smallest = 1, largest = 1;
    for (size_t k = 0; k < a->n_shapes; k++) {
        double o = elements_of(a->shape[k]);
        if (o <= 0)
            return "";
        smallest &= o >= e;
        largest &= o <= e;
    }
    return smallest ? " (the smallest)" : largest ? " (the largest)" : "";
}

/* Which mechanisms a sentence is about: the launch mechanisms (no
 * cooperative group: graph, the PDL ones) or the fused ones (fusion, the
 * megakernel). */
static int in_group(const se_answer *a, int m, int fused)
{
    return a->table->s[a->mech[m]].cooperative == fused;
}

/* "graph, stream-pdl, graph-pdl" */
static void name_list(se_buf *b, const se_answer *a, int fused)
{
    int n = 0;
    for (int m = 0; m < a->n_mech; m++) {
        if (!in_group(a, m, fused))
            continue;
        n++;
        se_buf_printf(b, "%s%s", n == 1 ? "" : ", ",
                      se_answer_mech_name(a, m));
    }
}

/* The lowest and highest ratio of a group, with their mechanism and shape,
 * and how many shapes each mechanism of it is faster (interval below 1) on. */
typedef struct group_range {
    int n, best_m, shapes, faster_min, faster_max;
    size_t best_i, worst_i;
    double min, max; /* min over the group; max of the best mechanism */
} group_range;

static group_range group_of(const se_answer *a, int fused)
{
    group_range g;
    memset(&g, 0, sizeof g);
    g.faster_min = -1;
    for (int m = 0; m < a->n_mech; m++) {
        if (!in_group(a, m, fused))
            continue;
        int faster = 0, shapes = 0;
        for (size_t i = 0; i < a->n_shapes; i++) {
            const se_answer_ratio *r = cell_of(a, i, m);
            if (!r->present)
                continue;
            shapes++;
            faster += r->hi < 1.0;
            if (g.n == 0 || r->ratio < g.min) {
                g.min = r->ratio;
                g.best_m = m;
                g.best_i = i;
            }
            g.n++;
        }
        if (shapes > g.shapes)
            g.shapes = shapes;
        if (shapes && (g.faster_min < 0 || faster < g.faster_min))
            g.faster_min = faster;
        if (faster > g.faster_max)
            g.faster_max = faster;
    }
    for (size_t i = 0; i < a->n_shapes && g.n; i++) {
        const se_answer_ratio *r = cell_of(a, i, g.best_m);
        if (r->present && r->ratio >= g.max) {
            g.max = r->ratio;
            g.worst_i = i;
        }
    }
    return g;
}

static void launch_sentence(se_buf *b, const se_answer *a)
{
    group_range g = group_of(a, 0);
    if (g.n == 0)
        return;
    se_buf_add(b, "Graphs and PDL (");
    name_list(b, a, 0);
    if (g.faster_min == g.shapes)
        se_buf_printf(b, ") beat stream launches on all %d shapes", g.shapes);
    else
        se_buf_printf(b, ") beat stream launches on %d to %d of %d shapes",
                      g.faster_min, g.faster_max, g.shapes);
    se_buf_printf(b, ": %s takes %.2f of stream's time on %s%s, %.2f on %s%s. ",
                  se_answer_mech_name(a, g.best_m), g.min, a->shape[g.best_i],
                  size_note(a, g.best_i), g.max, a->shape[g.worst_i], size_note(a, g.worst_i));
}

static void fused_sentence(se_buf *b, const se_answer *a)
{
    group_range g = group_of(a, 1);
    if (g.n == 0)
        return;
    /* The shapes on which some fused mechanism is slower than stream. */
    se_buf slower;
    memset(&slower, 0, sizeof slower);
    int n_slower = 0;
    for (size_t i = 0; i < a->n_shapes; i++) {
        int any = 0;
        for (int m = 0; m < a->n_mech; m++)
            any |= in_group(a, m, 1) && cell_of(a, i, m)->present && cell_of(a, i, m)->lo > 1.0;
        if (any)
            se_buf_printf(&slower, "%s%s", n_slower++ ? ", " : "", a->shape[i]);
    }
    se_buf_add(b, "One fused kernel (");
    name_list(b, a, 1);
    se_buf_printf(b, ") saves up to %.0f%% (%s, %s)", (1.0 - g.min) * 100.0,
                  se_answer_mech_name(a, g.best_m), a->shape[g.best_i]);
    if (n_slower)
        se_buf_printf(b, " but loses to stream on %d of %d shapes (%s). ", n_slower,
                      g.shapes, se_buf_str(&slower));
    else
        se_buf_printf(b, " and loses to stream on none of the %d shapes. ", g.shapes);
    se_buf_free(&slower);
}

static void vs_sentence(se_buf *b, const se_answer *a)
{
    const char *na, *nb;
    se_answer_vs_names(SE_VS_MEGAKERNEL_PDL, &na, &nb);
    int n = 0, faster = 0, slower = 0;
    for (size_t i = 0; i < a->n_shapes; i++) {
        const se_answer_ratio *r = &a->vs[i * SE_NVS + SE_VS_MEGAKERNEL_PDL];
        if (!r->present)
            continue;
        n++;
        faster += r->hi < 1.0;
        slower += r->lo > 1.0;
    }
    if (n == 0)
        return;
    se_buf_printf(b, "The %s (a toy) beats %s on %d of %d shapes and loses on %d. ", na, nb,
                  faster, n, slower);
}

static void basis_sentence(se_buf *b, const se_answer *a, const se_rundata *ref)
{
    const char *gpu = se_rundata_views(ref)->env.gpu_name;
    gpu = gpu ? gpu : "the GPU";
    se_buf_printf(b, "Median device times, L2 warm, on an %s, ", gpu);
    if (a->n_runs == 1) {
        se_buf_printf(b, "one run (%s): its intervals leave out the spread between runs.",
                      a->run_ids[0]);
        return;
    }
    double spread = 0.0;
    for (size_t i = 0; i < a->n_shapes; i++)
        for (int m = 0; m < a->n_mech; m++) {
            const se_answer_ratio *r = cell_of(a, i, m);
            if (r->present && r->n_runs > 1 && (r->run_max - r->run_min) / r->ratio > spread)
                spread = (r->run_max - r->run_min) / r->ratio;
        }
    se_buf_printf(b, "%zu runs (a ratio moved by up to %.0f%% between them); \"beats\": the "
                  "95%% interval of one more run's ratio is below 1%s.", a->n_runs,
                  spread * 100.0, a->n_runs == 2 ? " (wide with 2 runs)" : "");
}

char *se_answer_summary(const se_answer *a, const se_rundata *ref)
{
    se_buf b;
    memset(&b, 0, sizeof b);
    launch_sentence(&b, a);
    fused_sentence(&b, a);
    vs_sentence(&b, a);
    basis_sentence(&b, a, ref);
    se_buf_add(&b, "\n");
    if (b.oom) {
        se_buf_free(&b);
        return NULL;
    }
    return b.s;
}

static json_t *ratio_json(const se_answer_ratio *r)
{
    if (!r->present)
        return json_null();
    return json_pack("{s:f, s:[f,f], s:i, s:[f,f]}", "ratio", r->ratio, "ci95", r->lo, r->hi,
                     "n_runs", r->n_runs, "runs_range", r->run_min, r->run_max);
}

/* The sentences of text (one per line) as a JSON array. */
static json_t *lines_json(const char *text)
{
    json_t *arr = json_array();
    for (const char *l = text; l && *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (n)
            json_array_append_new(arr, json_stringn(l, n));
        l = e ? e + 1 : l + n;
    }
    return arr;
}

void se_answer_json(FILE *out, const se_answer *a, const se_rundata *ref, const char *sentences)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("softmax-evidence-answer"));
    json_object_set_new(root, "version", json_integer(1));
    const char *gpu = se_rundata_views(ref)->env.gpu_name;
    json_object_set_new(root, "gpu", json_string(gpu ? gpu : ""));
    json_t *runs = json_array();
    for (size_t k = 0; k < a->n_runs && k < sizeof a->run_ids / sizeof a->run_ids[0]; k++)
        json_array_append_new(runs, json_string(a->run_ids[k]));
    json_object_set_new(root, "runs", runs);
    json_object_set_new(root, "n_runs", json_integer((json_int_t)a->n_runs));
    json_object_set_new(root, "scope", json_string("device (L2 warm)"));
    json_t *mechs = json_array();
    for (int m = 0; m < a->n_mech; m++)
        json_array_append_new(mechs, json_string(se_answer_mech_name(a, m)));
    json_object_set_new(root, "mechanisms", mechs);
    json_t *shapes = json_array();
    for (size_t i = 0; i < a->n_shapes; i++) {
        json_t *s = json_object();
        json_object_set_new(s, "shape", json_string(a->shape[i]));
        json_t *over = json_object();
        for (int m = 0; m < a->n_mech; m++)
            json_object_set_new(over, se_answer_mech_name(a, m),
                                ratio_json(cell_of(a, i, m)));
        json_object_set_new(s, "ratio_to_stream", over);
        for (int k = 0; k < SE_NVS; k++) {
            const char *na, *nb;
            char key[96];
            se_answer_vs_names(k, &na, &nb);
            snprintf(key, sizeof key, "%s_over_%s", na, nb);
            json_object_set_new(s, key, ratio_json(&a->vs[i * SE_NVS + (size_t)k]));
        }
        json_object_set_new(s, "megakernel_init_ns",
                            a->mk_init_ns[i] > 0 ? json_real(a->mk_init_ns[i]) : json_null());
        const se_answer_context *c = &a->context[i];
        json_object_set_new(s, "context",
                            json_pack("{s:s?, s:f, s:f, s:s?, s:f, s:f}", "fastest_of_ours",
                                      c->fastest[0] ? c->fastest : NULL, "fastest_median_ns",
                                      c->fastest_ns, "fastest_of_copy", c->fastest_of_copy,
                                      "best_peer", c->peer[0] ? c->peer : NULL, "peer_median_ns",
                                      c->peer_ns, "vs_best_peer", c->vs_peer));
        json_array_append_new(shapes, s);
    }
    json_object_set_new(root, "shapes", shapes);
    char *summary = se_answer_summary(a, ref);
    if (summary)
        summary[strcspn(summary, "\n")] = '\0';
    json_object_set_new(root, "summary", json_string(summary ? summary : ""));
    free(summary);
    json_object_set_new(root, "sentences", lines_json(sentences));
    json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    fputc('\n', out);
    json_decref(root);
}

void se_answer_summary_print(FILE *out, const se_answer *a, const se_rundata *ref, int json,
                             const char *sentences)
{
    if (json) {
        se_answer_json(out, a, ref, sentences);
        return;
    }
    char *text = se_answer_summary(a, ref);
    fputs(text ? text : "", out);
    free(text);
}
