/*
 * peers_run.h - measuring the PyTorch peers in a run (docs/PEERS.md): each
 * shape's input x and pre-scaled input xp are written to a scratch folder
 * outside the run, bench/peers.py times torch eager, torch.compile and
 * torch.softmax on them, and each peer's output is validated here against
 * the float64 reference with the protocol's tolerances. The samples go to
 * the run's samples/ folder, the entries to peers.json.
 *
 * The peers never fail a run: no script, no python, no torch, no CUDA for
 * torch or a script that fails make them "skipped" with the reason; a peer
 * that fails (out of memory, a compile error) or whose output fails
 * validation is recorded as such. Only writing the run or memory can fail.
 * No GPU is used here: the script is a separate process.
 */
#ifndef SE_PEERS_RUN_H
#define SE_PEERS_RUN_H

#include <stdint.h>

#include <jansson.h>

#include "bundle/rundir.h"
#include "model/protocol.h"
#include "model/se_common.h"

typedef struct se_peers_opts {
    const char *python;   /* the interpreter, run through PATH: "python3" */
    const char *script;   /* bench/peers.py */
    int device;           /* CUDA ordinal passed to the script */
    int quiet;            /* no progress */
    const char *disabled; /* non-NULL: skip the peers, for this reason */
} se_peers_opts;

typedef struct se_peers_run se_peers_run;

/* Called with each peer output that was validated (to save arrays). */
typedef se_status (*se_peer_output_fn)(void *ctx, const se_shape *s, const char *peer,
                                       const float *y, se_err *err);

/* Starts the peers: checks the script can be read and creates the scratch
 * folder ($TMPDIR or /tmp), or records why they are skipped. Fails only
 * for lack of memory. */
se_status se_peers_begin(se_peers_run **out, const se_protocol *p, const se_peers_opts *o,
                         se_err *err);

/* 1 while the peers are still to be measured (not skipped). */
int se_peers_active(const se_peers_run *pr);

/* Writes the inputs of shape p->shapes[shape_index] for the script: x and
 * xp (rows * cols floats each); x_sha256 is the run's recorded hash of x.
 * A failure to write makes the peers skipped, saying why. */
void se_peers_add_shape(se_peers_run *pr, size_t shape_index, const float *x, const float *xp,
                        const unsigned char x_sha256[32]);

/* Runs the script (its progress on stderr), validates every output, writes
 * each ran peer's samples file and a copy of the script into the run, and
 * passes each output to save (if not NULL). first_seq numbers the samples
 * after the run's own. SIGINT or SIGTERM during the script stops it and
 * fails with SE_ERR_IO. */
se_status se_peers_measure(se_peers_run *pr, const se_rundir *rd, int64_t first_seq,
                           se_peer_output_fn save, void *ctx, se_err *err);

/* peers.json, once summary.json is built (it gives the copy medians). */
se_status se_peers_json(const se_peers_run *pr, const json_t *summary, json_t **out,
                        se_err *err);

/* Removes the scratch folder and frees everything (NULL is allowed). */
void se_peers_end(se_peers_run *pr);

#endif
