/*
 * peers.c - peers.json's entries and verify's checks of them (see peers.h).
 */
#include "bundle/peers.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/sha256.h"
#include "model/json.h"
#include "model/operation.h"

static const se_peer_info peer_table[SE_PEERS_ALL] = {
    {"torch-eager", "x",
     "softmax(x * rsqrt(mean(x^2, -1) + eps), -1) in plain torch ops, eager"},
    {"torch-compile", "x",
     "torch.compile (static shapes, full graph) of the torch-eager function"},
    {"torch-softmax", "xp",
     "torch.softmax(xp, -1) of the pre-scaled input xp = s * x cuDNN gets (no RMS scaling)"},
    {"liger-softmax", "xp",
     "Liger-Kernel's Triton softmax (LigerSoftmaxFunction) of the pre-scaled input xp"},
    {"quack-softmax", "xp",
     "Quack's CuTe DSL softmax (quack.softmax.softmax_fwd) of the pre-scaled input xp"},
    {"flashinfer-softmax", "xp",
     "FlashInfer's softmax (flashinfer.sampling.softmax) of the pre-scaled input xp"},
    {"torch-layernorm-eager", "x",
     "torch.nn.functional.layer_norm(x, (cols,), gamma, beta, eps), eager, gamma and beta the "
     "harness's functions of the column"},
    {"torch-layernorm-compile", "x",
     "torch.compile (static shapes, full graph) of the torch-layernorm-eager function"},
    {"liger-layernorm", "x",
     "Liger-Kernel's Triton LayerNorm (LigerLayerNormFunction) of x with the same gamma and beta"},
};

/* Each operation's peers in the table (model/operation.c's `peers`, in
 * order). */
static const struct {
    const char *operation;
    se_peer_set set;
} operation_peers[] = {
    {"rms-softmax", {0, 6}},
    {"layernorm", {6, 3}},
};

se_peer_set se_peer_set_of(const char *operation)
{
    se_peer_set none = {0, 0};
    for (size_t i = 0; operation && i < sizeof operation_peers / sizeof operation_peers[0]; i++)
        if (strcmp(operation_peers[i].operation, operation) == 0)
            return operation_peers[i].set;
    return none;
}

int se_peers_version_of(const char *operation)
{
    return operation && strcmp(operation, "rms-softmax") == 0 ? 2 : 3;
}

se_peer_set se_peers_set(const json_t *peers)
{
    json_int_t v = json_integer_value(json_object_get(peers, "version"));
    se_peer_set s = {0, 0};
    if (v == 1)
        s.count = 3;
    else if (v == 2)
        s.count = SE_NPEERS;
    else if (v == 3)
        s = se_peer_set_of(json_string_value(json_object_get(peers, "operation")));
    return s;
}

size_t se_peers_per_shape(const json_t *peers)
{
    return (size_t)se_peers_set(peers).count;
}

const se_peer_info *se_peer_get(int peer)
{
    return peer >= 0 && peer < SE_PEERS_ALL ? &peer_table[peer] : NULL;
}

void se_peer_case(const se_shape *s, int peer, se_case_id *c)
{
    memset(c, 0, sizeof *c);
    c->shape = s;
    c->what = peer_table[peer].name;
    c->strategy = SE_CASE_PEER;
    c->n_scopes = 1;
    se_case_id_make(s->rows, s->cols, c->what, c->id, sizeof c->id);
}

static int same_shape(const json_t *o, int64_t rows, int64_t cols)
{
    return json_integer_value(json_object_get(o, "rows")) == rows &&
           json_integer_value(json_object_get(o, "cols")) == cols;
}

double se_peers_copy_median(const json_t *summary, int64_t rows, int64_t cols)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(summary, "cases"), i, c) {
        const char *what = json_string_value(json_object_get(c, "what"));
        if (what && strcmp(what, "copy") == 0 && same_shape(c, rows, cols))
            return json_number_value(json_object_get(
                json_object_get(json_object_get(c, "scopes"), "device"), "median_ns"));
    }
    return 0.0;
}

se_status se_peer_summary(const se_protocol *p, const json_t *summary, const se_case_id *c,
                          const se_sample_set *device, json_t **out, se_err *err)
{
    return se_summary_peer(p, c, device, se_peers_copy_median(summary, c->shape->rows, c->shape->cols),
                           out, err);
}

const char *se_peers_absent(const json_t *peers, char *buf, size_t size)
{
    const char *status = json_string_value(json_object_get(peers, "status"));
    const char *reason = json_string_value(json_object_get(peers, "reason"));
    if (!peers)
        snprintf(buf, size, "this run has no " SE_PEERS_FILE " (it predates the PyTorch peers)");
    else if (!status || strcmp(status, "ok") != 0) {
        /* The reason is the run's text: made printable for the terminal. */
        char shown[1024];
        se_printable(reason ? reason : "no reason recorded", shown, sizeof shown);
        snprintf(buf, size, "skipped: %s", shown);
    }
    else
        return NULL;
    return buf;
}

/* ---- verify ------------------------------------------------------------- */

typedef struct checker {
    const se_peers_env *env;
    size_t problems;
} checker;

static void complain(checker *k, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void complain(checker *k, const char *fmt, ...)
{
    char msg[1200], shown[4 * sizeof msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* The strings quoted come from peers.json: printed as \xNN. */
    se_printable(msg, shown, sizeof shown);
    k->problems++;
    if (k->env->problem)
        k->env->problem(k->env->ctx, shown);
}

static const char *str_of(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* The input hash validation.json records for a shape, or NULL. */
static const char *recorded_input(const json_t *validation, int64_t rows, int64_t cols)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(validation, "cases"), i, c)
        if (same_shape(c, rows, cols))
            return json_string_value(json_object_get(c, "input_sha256"));
    return NULL;
}

/* The summary of a ran peer, recomputed from its samples file. */
static void check_summary(checker *k, size_t i, const json_t *e, const se_case_id *c)
{
    const se_peers_env *env = k->env;
    se_sample_set set;
    int owned = 0;
    se_err err = {{0}};
    json_t *again = NULL;
    se_status st = env->source(env->source_ctx, c, &set, &owned, &err);
    if (st == SE_OK)
        st = se_peer_summary(env->p, env->summary, c, &set, &again, &err);
    if (owned)
        se_sample_set_free(&set);
    if (st != SE_OK) {
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].summary' (%s): cannot be recomputed: %s", i,
                 c->id, err.msg);
        return;
    }
    char path[512] = "", what[256] = "";
    const json_t *saved = json_object_get(e, "summary");
    if (!saved)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].summary' (%s): missing", i, c->id);
    else if (!se_json_equal(saved, again, path, sizeof path, what, sizeof what))
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].summary%s%s' (%s): %s", i, path[0] ? "." : "",
                 path, c->id, what);
    json_decref(again);
}

/* A peer that ran: its validation record and its timing. */
static void check_ran(checker *k, size_t i, const json_t *e, const se_case_id *c,
                      const char *status)
{
    const se_peers_env *env = k->env;
    json_int_t elements = 0, fails = 0, nan = 0, tiny = 0;
    char where[160];
    se_err te = {{0}};
    snprintf(where, sizeof where, SE_PEERS_FILE ": peers[%zu] (%s)", i, c->id);
    int typed;
    if (!(typed = se_json_get_int(e, "elements", 0, INT64_MAX, &elements, where, &te) == SE_OK &&
                  se_json_get_int(e, "fails", 0, INT64_MAX, &fails, where, &te) == SE_OK &&
                  se_json_get_int(e, "nan", 0, INT64_MAX, &nan, where, &te) == SE_OK &&
                  se_json_get_int(e, "tiny", 0, INT64_MAX, &tiny, where, &te) == SE_OK))
        complain(k, "%s", te.msg);
    const json_t *pass = json_object_get(e, "pass");
    if (elements != c->shape->rows * c->shape->cols)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].elements' (%s): %" JSON_INTEGER_FORMAT
                 ", the shape has %" PRId64, i, c->id, elements, c->shape->rows * c->shape->cols);
    int should_pass = typed && fails == 0 && nan == 0 &&
                      elements == c->shape->rows * c->shape->cols;
    if (!json_is_boolean(pass) || json_is_true(pass) != should_pass)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].pass' (%s): inconsistent with elements, fails "
                 "and nan", i, c->id);
    else if (strcmp(status, should_pass ? "ok" : "failed") != 0)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].status' (%s): '%s', but pass is %s", i, c->id,
                 status, should_pass ? "true" : "false");
    if (!se_is_hex64(str_of(e, "output_sha256")))
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].output_sha256' (%s): not a SHA-256", i, c->id);
    char want[160];
    se_samples_path(c, want, sizeof want);
    const char *file = str_of(e, "samples_file");
    if (strcmp(file, want) != 0)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].samples_file' (%s): expected %s, got '%s'", i,
                 c->id, want, file);
    else if (env->listed && !env->listed(env->ctx, file))
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].samples_file' (%s): %s is not in the "
                 "manifest", i, c->id, file);
    check_summary(k, i, e, c);
}

static void check_entry(checker *k, size_t i, const json_t *e, const se_case_id *c,
                        se_peers_counts *counts)
{
    const se_peers_env *env = k->env;
    const char *id = str_of(e, "case");
    if (strcmp(id, c->id) != 0) {
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].case': expected %s, got '%s'", i, c->id, id);
        return;
    }
    if (!same_shape(e, c->shape->rows, c->shape->cols) || strcmp(str_of(e, "peer"), c->what) != 0)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].rows'/'cols'/'peer' (%s): do not match the "
                 "case", i, c->id);
    const char *rec = recorded_input(env->validation, c->shape->rows, c->shape->cols);
    const char *in = str_of(e, "input_sha256");
    if (!rec || strcmp(rec, in) != 0)
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].input_sha256' (%s): '%s' is not the input "
                 "hash " SE_VALIDATION_JSON " records for the shape (%s)", i, c->id, in,
                 rec ? rec : "none");
    if (!se_is_hex64(str_of(e, "operand_sha256")))
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].operand_sha256' (%s): not a SHA-256", i, c->id);
    const char *status = str_of(e, "status");
    counts->entries++;
    if (strcmp(status, "skipped") == 0) {
        counts->skipped++;
        if (!*str_of(e, "reason"))
            complain(k, SE_PEERS_FILE ": field 'peers[%zu].reason' (%s): a skipped peer must say "
                     "why", i, c->id);
        if (json_object_get(e, "samples_file") || json_object_get(e, "summary"))
            complain(k, SE_PEERS_FILE ": field 'peers[%zu].samples_file' (%s): a skipped peer has "
                     "no samples", i, c->id);
    } else if (strcmp(status, "error") == 0) {
        counts->errors++;
        if (!*str_of(e, "error"))
            complain(k, SE_PEERS_FILE ": field 'peers[%zu].error' (%s): a peer in error must say "
                     "why", i, c->id);
        if (json_object_get(e, "samples_file") || json_object_get(e, "summary"))
            complain(k, SE_PEERS_FILE ": field 'peers[%zu].samples_file' (%s): a peer in error has "
                     "no samples", i, c->id);
    } else if (strcmp(status, "ok") == 0 || strcmp(status, "failed") == 0) {
        counts->ok += status[0] == 'o';
        counts->failed += status[0] == 'f';
        counts->recomputed++;
        check_ran(k, i, e, c, status);
    } else {
        complain(k, SE_PEERS_FILE ": field 'peers[%zu].status' (%s): '%s'; expected ok, failed, "
                 "error or skipped", i, c->id, status);
    }
}

size_t se_peers_check(const json_t *j, const se_peers_env *env, se_peers_counts *counts)
{
    checker k = {env, 0};
    memset(counts, 0, sizeof *counts);
    const char *status = str_of(j, "status");
    const json_t *list = json_object_get(j, "peers");
    if (!json_is_array(list)) {
        complain(&k, SE_PEERS_FILE ": field 'peers': expected an array");
        return k.problems;
    }
    if (strcmp(status, "skipped") == 0) {
        if (!*str_of(j, "reason"))
            complain(&k, SE_PEERS_FILE ": field 'reason': the peers were skipped and it does not say "
                     "why");
        if (json_array_size(list) != 0)
            complain(&k, SE_PEERS_FILE ": field 'peers': the peers were skipped, yet %zu entries are "
                     "listed", json_array_size(list));
        return k.problems;
    }
    if (strcmp(status, "ok") != 0) {
        complain(&k, SE_PEERS_FILE ": field 'status': '%s'; expected ok or skipped", status);
        return k.problems;
    }
    const json_t *tol = json_object_get(j, "tolerance");
    if (json_number_value(json_object_get(tol, "atol")) != env->p->tol.atol ||
        json_number_value(json_object_get(tol, "rtol")) != env->p->tol.rtol)
        complain(&k, SE_PEERS_FILE ": field 'tolerance': differs from " SE_PROTOCOL_JSON);
    se_peer_set set = se_peers_set(j);
    size_t per = (size_t)set.count, want = env->p->n_shapes * per;
    if (!per) {
        complain(&k, SE_PEERS_FILE ": field 'version': expected 1 or 2, or 3 with a known "
                 "'operation'");
        return k.problems;
    }
    /* the peers of the run's own operation (version 3 names it; 1 and 2
     * are the softmax's) */
    const char *op = json_integer_value(json_object_get(j, "version")) == 3
                         ? json_string_value(json_object_get(j, "operation"))
                         : "rms-softmax";
    if (strcmp(op, se_protocol_operation(env->p)->name) != 0)
        complain(&k, SE_PEERS_FILE ": field 'operation': '%s', the protocol's workload is '%s'",
                 op, se_protocol_operation(env->p)->name);
    if (json_array_size(list) != want)
        complain(&k, SE_PEERS_FILE ": field 'peers': %zu entries, the protocol's %zu shapes imply %zu",
                 json_array_size(list), env->p->n_shapes, want);
    for (size_t i = 0; i < json_array_size(list) && i < want; i++) {
        se_case_id c;
        se_peer_case(&env->p->shapes[i / per], set.first + (int)(i % per), &c);
        check_entry(&k, i, json_array_get(list, i), &c, counts);
    }
    return k.problems;
}
