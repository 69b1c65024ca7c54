/*
 * peers.h - the PyTorch peers of a run as the bundle records them
 * (peers.json, docs/PEERS.md): their names, their case ids and samples
 * files, the entries the run writes, and the checks verify makes. Needs no
 * GPU; peers_run.h measures them.
 */
#ifndef SE_PEERS_H
#define SE_PEERS_H

#include <stddef.h>

#include <jansson.h>

#include "bundle/records.h" /* se_compare_json_set: a peer entry has validation's fields */
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "model/protocol.h"
#include "bundle/paths.h"
#include "model/se_common.h"
#include "model/tolerance.h"

#define SE_PEERS_FORMAT "softmax-evidence-peers"
/* SE_PEERS_FILE: bundle/paths.h */
#define SE_PEERS_SCRIPT_COPY "peers/peers.py"
/* The largest script copy verify reads (bench/peers.py is some 20 kB). */
#define SE_PEERS_SCRIPT_MAX_BYTES ((uint64_t)16 << 20)

/* se_case_id.strategy of a peer case: not a strategy, not the copy. */
#define SE_CASE_PEER (-3)

/* The peer table: the RMS-scaled softmax's six, torch-eager,
 * torch-compile, torch-softmax, then the fastest published softmax
 * kernels: liger-softmax, quack-softmax, flashinfer-softmax; then
 * LayerNorm's three, torch-layernorm-eager, torch-layernorm-compile,
 * liger-layernorm (bench/peers.py's OPERATION_PEERS, model/operation.c's
 * `peers`). A run measures its operation's peers. A version 1 peers.json
 * (runs before the last three softmax peers) lists the softmax's first
 * three per shape; version 2 its six (every softmax run since, unchanged);
 * version 3 names its "operation" and lists that operation's peers (a
 * LayerNorm run). */
#define SE_NPEERS 6      /* the most peers of one operation (the softmax's) */
#define SE_PEERS_ALL 9   /* the table's entries */
#define SE_PEERS_VERSION 3

typedef struct se_peer_info {
    const char *name;     /* "torch-eager" */
    const char *input;    /* "x", or "xp" (the pre-scaled input cuDNN gets) */
    const char *computes; /* one line: what it computes and how */
} se_peer_info;

/* Entry `peer` of the table (0 .. SE_PEERS_ALL - 1), or NULL. */
const se_peer_info *se_peer_get(int peer);

/* An operation's peers: table entries first .. first + count - 1. */
typedef struct se_peer_set {
    int first, count;
} se_peer_set;

/* The peers of the operation named `operation` (model/operation.h's
 * names: "rms-softmax", "layernorm"); count 0 for another name. */
se_peer_set se_peer_set_of(const char *operation);

/* The peers.json version a run of that operation writes: 2 for the
 * softmax (as every softmax run before LayerNorm), 3 for another (with the
 * field "operation"). */
int se_peers_version_of(const char *operation);

/* The peers a peers.json lists per shape: version 1 the softmax's first
 * three, version 2 its six, version 3 those of its field "operation";
 * count 0 for anything else. */
se_peer_set se_peers_set(const json_t *peers);

/* Entries per shape in a peers.json: se_peers_set's count. */
size_t se_peers_per_shape(const json_t *peers);

/* The case of a peer on a shape: id "<rows>x<cols>.<peer>", samples file
 * samples/<id>.csv (se_samples_path), device scope only, strategy
 * SE_CASE_PEER. */
void se_peer_case(const se_shape *s, int peer, se_case_id *c);

/* The device-scope median of the copy control of a shape in summary.json,
 * 0 if absent. */
double se_peers_copy_median(const json_t *summary, int64_t rows, int64_t cols);

/* The summary of a peer entry: its samples summarized (se_summary_peer)
 * against the copy median of its shape in summary. */
se_status se_peer_summary(const se_protocol *p, const json_t *summary, const se_case_id *c,
                          const se_sample_set *device, json_t **out, se_err *err);

/* Why a run has no peer results ("this run has no peers.json ...", or
 * "skipped: <reason>"), or NULL when the peers were measured. peers is the
 * run's peers.json, NULL when it has none. */
const char *se_peers_absent(const json_t *peers, char *buf, size_t size);

/* What verify needs to check peers.json. */
typedef struct se_peers_env {
    const se_protocol *p;
    const json_t *summary;     /* summary.json: the copy medians */
    const json_t *validation;  /* validation.json: the recorded input hashes */
    se_sample_source source;   /* the samples of a peer case */
    void *source_ctx;
    int (*listed)(void *ctx, const char *rel);      /* 1 when the manifest lists rel */
    void (*problem)(void *ctx, const char *message); /* one problem, naming file and field */
    void *ctx;
} se_peers_env;

typedef struct se_peers_counts {
    size_t entries, ok, failed, errors, skipped, recomputed;
} se_peers_counts;

/* Checks peers.json against the protocol, the manifest, the recorded input
 * hashes and the raw samples (every summary recomputed and compared);
 * reports each problem through env->problem and returns their number. */
size_t se_peers_check(const json_t *peers, const se_peers_env *env, se_peers_counts *counts);

#endif
