/*
 * add_checks.c RUN - makes a committed run (made before checks/) into a
 * synthetic bundle that carries them, for tests/bundle/rederive_verify.sh:
 * for every shape and strategy of its protocol, checks/ files by
 * bundle/rederive.h's plan, the input rows regenerated with cuRAND's host
 * generator and each output the float64 reference rounded to float (not
 * the kernels' bytes: the committed runs did not save those), and run.json
 * gets checks_saved: true. The script then re-hashes the manifest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "bundle/paths.h"
#include "bundle/rederive.h"
#include "model/protocol.h"
#include "model/reference.h"
#include "model/strategy.h"

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "add_checks: %s: %s\n", what, why);
    return 1;
}

static int write_values(const char *run, const char *rel, const float *v, size_t n)
{
    char path[4400];
    se_path_join(run, rel, path, sizeof path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, sizeof *v, n, f) != n || fclose(f) != 0)
        return fail(path, "cannot be written");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fail("usage", "add_checks RUN");
    const char *run = argv[1];
    char path[4400];
    se_err err;
    se_protocol p;
    se_path_join(run, "protocol.json", path, sizeof path);
    if (se_protocol_load(path, &p, &err) != SE_OK)
        return fail(path, err.msg);
    se_path_join(run, "checks", path, sizeof path);
    mkdir(path, 0755);
    for (size_t i = 0; i < p.n_shapes; i++) {
        const se_shape *sh = &p.shapes[i];
        se_check_plan plan;
        if (se_check_plan_make(sh->rows, sh->cols, p.seed, &plan, &err) != SE_OK)
            return fail(sh->spec, err.msg);
        float *x = malloc(plan.n_rows * ((size_t)sh->cols + 1) * sizeof *x);
        float *xs = malloc(plan.n_values * sizeof *xs), *y = malloc(plan.n_values * sizeof *y);
        double *ref = malloc((size_t)sh->cols * sizeof *ref);
        if (!x || !xs || !y || !ref)
            return fail(sh->spec, "out of memory");
        size_t k = 0;
        for (size_t r = 0; r < plan.n_rows; r++) {
            float *row = x + r * ((size_t)sh->cols + 1);
            if (se_check_generate_row(p.seed, p.scale, plan.row[r], sh->cols, row, &err) != SE_OK)
                return fail(sh->spec, err.msg);
            se_reference_rms_softmax(row, 1, sh->cols, p.eps, ref);
            if (plan.whole_rows) {
                memcpy(xs + r * (size_t)sh->cols, row, (size_t)sh->cols * sizeof *row);
                for (int64_t c = 0; c < sh->cols; c++)
                    y[k++] = (float)ref[c];
            } else {
                for (; k < plan.n_pos && plan.pos[k] / sh->cols == plan.row[r]; k++)
                    y[k] = (float)ref[plan.pos[k] % sh->cols];
            }
        }
        char rel[200], id[SE_CASE_ID_SIZE];
        if (plan.whole_rows) {
            se_path_check_x(sh->rows, sh->cols, rel, sizeof rel);
            if (write_values(run, rel, xs, plan.n_values))
                return 1;
        }
        for (int s = 0; s < SE_NSTRATEGIES; s++) {
            if (!((p.strategies >> s) & 1u))
                continue;
            se_case_id_make(sh->rows, sh->cols, se_strategy_get((se_strategy)s)->name, id,
                            sizeof id);
            se_path_check_y(id, rel, sizeof rel);
            if (write_values(run, rel, y, plan.n_values))
                return 1;
        }
        free(x);
        free(xs);
        free(y);
        free(ref);
        se_check_plan_free(&plan);
    }
    se_protocol_free(&p);
    se_path_join(run, "run.json", path, sizeof path);
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
    if (!j)
        return fail(path, "cannot be read");
    json_object_set_new(j, "checks_saved", json_true());
    if (json_dump_file(j, path, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0)
        return fail(path, "cannot be written");
    json_decref(j);
    return 0;
}
