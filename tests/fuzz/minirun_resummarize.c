/*
 * minirun_resummarize.c RUN RESAMPLES|keep - part of making fuzz_verify's
 * mini run (make_seeds.py): sets the protocol's bootstrap resamples to
 * RESAMPLES and rewrites protocol.json ("keep": protocol.json untouched, as
 * tests/cli/make_slower_run.py needs), then summary.json (se_summary_build and
 * se_derived_add, as a run does) and each peer's summary in peers.json from
 * the run's samples, so that verifying the mini run takes milliseconds, not
 * the reference protocol's seconds of bootstrap. make_seeds.py then writes
 * the manifest. Not a fuzzer; built beside them, and as resummarize_run in
 * every build with tests (tests/CMakeLists.txt) for the doctored runs of
 * the compare and export tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/derived.h"
#include "bundle/fsutil.h"
#include "bundle/paths.h"
#include "bundle/peers.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "model/protocol.h"

static const char *run_dir;

static se_status source(void *ctx, const se_case_id *c, se_sample_set *scopes, int *owned,
                        se_err *err)
{
    (void)ctx;
    char rel[160];
    se_samples_path(c, rel, sizeof rel);
    /* Unchecked: a hostile run's impossible samples get summaries that
     * agree with them (tests/hostile/), which verify must then refuse. */
    FILE *f;
    se_status st = se_fopen_below(run_dir, rel, SE_SAMPLES_MAX_BYTES, &f, NULL, err);
    if (st == SE_OK) {
        st = se_samples_read_unchecked(f, rel, scopes, c->n_scopes, err);
        fclose(f);
    }
    *owned = st == SE_OK;
    return st;
}

static int fail(const char *what, const se_err *err)
{
    fprintf(stderr, "minirun_resummarize: %s: %s\n", what, err ? err->msg : "failed");
    return 1;
}

static json_t *load(const char *name)
{
    char path[4400];
    se_path_join(run_dir, name, path, sizeof path);
    return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

static int save(const char *name, const json_t *j)
{
    char path[4400];
    se_path_join(run_dir, name, path, sizeof path);
    return json_dump_file(j, path, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fail("usage", NULL);
    run_dir = argv[1];
    se_err err;
    se_protocol p;
    char path[4400], *text = NULL;
    se_path_join(run_dir, SE_PROTOCOL_JSON, path, sizeof path);
    if (se_protocol_load(path, &p, &err) != SE_OK)
        return fail(path, &err);
    if (strcmp(argv[2], "keep") != 0) {
        p.bootstrap_resamples = atoi(argv[2]);
        if (se_protocol_write(&p, &text, &err) != SE_OK)
            return fail("protocol", &err);
        FILE *f = fopen(path, "wb");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0)
            return fail(path, NULL);
        free(text);
    }
    json_t *summary = NULL, *validation = load(SE_VALIDATION_JSON), *peers = load(SE_PEERS_FILE);
    if (se_summary_build(&p, source, NULL, &summary, &err) != SE_OK)
        return fail("summary", &err);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(peers, "peers"), i, e) {
        const char *name = json_string_value(json_object_get(e, "peer"));
        const char *status = json_string_value(json_object_get(e, "status"));
        if (!status || (strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0))
            continue; /* an error or a skipped peer has no samples and no summary */
        for (int k = 0; name && k < SE_NPEERS; k++) {
            if (strcmp(se_peer_get(k)->name, name) != 0)
                continue;
            for (size_t s = 0; s < p.n_shapes; s++) {
                se_case_id c;
                se_peer_case(&p.shapes[s], k, &c);
                if (strcmp(c.id, json_string_value(json_object_get(e, "case"))) != 0)
                    continue;
                se_sample_set set[SE_NSCOPES] = {{0}};
                int owned = 0;
                json_t *again = NULL;
                if (source(NULL, &c, set, &owned, &err) != SE_OK ||
                    se_peer_summary(&p, summary, &c, &set[0], &again, &err) != SE_OK)
                    return fail(c.id, &err);
                json_object_set_new(e, "summary", again);
                for (int sc = 0; sc < SE_NSCOPES; sc++)
                    se_sample_set_free(&set[sc]);
            }
        }
    }
    if (se_derived_add(&p, summary, validation, peers, &err) != SE_OK)
        return fail("derived", &err);
    if (save(SE_SUMMARY_JSON, summary) || (peers && save(SE_PEERS_FILE, peers)))
        return fail("writing", NULL);
    json_decref(summary);
    json_decref(validation);
    json_decref(peers);
    se_protocol_free(&p);
    return 0;
}
