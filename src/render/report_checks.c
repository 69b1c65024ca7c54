/*
 * report_checks.c - the report's sections on what the numbers stand on:
 * the GPU and software, validation, resources and dependency traces (see
 * report.h); the profiler's counters are report_profile.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include "render/report_sections.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

void se_rep_path(char *buf, size_t size, const char *path, const se_rundata *rd)
{
    const char *src = se_json_str(se_json_path(rd->env, "source"), "source_dir", "");
    size_t n = strlen(src);
    if (path[0] != '/') {
        snprintf(buf, size, "%s", path);
    } else if (n > 1 && strncmp(path, src, n) == 0 && path[n] == '/') {
        snprintf(buf, size, "%s", path + n + 1);
    } else if (n > 1 && strcmp(path, src) == 0) {
        snprintf(buf, size, "(the source folder, on the measuring machine)");
    } else {
        const char *base = strrchr(path, '/');
        snprintf(buf, size, ".../%s", base[1] ? base + 1 : "");
    }
}

/* A value of environment.json as the report shows it: an absolute path of
 * the measuring machine relative to its source folder or shortened. */
static void env_value(char *buf, size_t size, const json_t *v, const se_rundata *rd)
{
    if (json_is_string(v) && json_string_value(v)[0] == '/')
        se_rep_path(buf, size, json_string_value(v), rd);
    else
        se_rep_num(buf, size, v);
}

static void flatten(se_doc *d, const char *prefix, const json_t *o, const se_rundata *rd)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v) {
        if (!*prefix && (strcmp(key, "format") == 0 || strcmp(key, "version") == 0))
            continue;
        char name[SE_REP_CELL];
        snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
        if (json_is_object(v)) {
            flatten(d, name, v, rd);
            continue;
        }
        char cells[2][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", name);
        if (json_is_array(v)) {
            size_t i, used = 0;
            json_t *x;
            cells[1][0] = '\0';
            json_array_foreach(v, i, x) {
                char one[SE_REP_CELL];
                env_value(one, sizeof one, x, rd);
                int w = snprintf(cells[1] + used, SE_REP_CELL - used, "%s%s", i ? " " : "", one);
                used += w > 0 ? (size_t)w : 0;
                if (used >= SE_REP_CELL)
                    break;
            }
        } else {
            env_value(cells[1], SE_REP_CELL, v, rd);
        }
        se_rep_row(d, 2, cells);
    }
}

void se_rep_environment(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "GPU and software");
    const json_t *e = rd->env;
    char drv[32], rt[32], dnn[32], dnnc[32], rnd[32];
    se_rep_version(drv, sizeof drv, se_rep_int(e, "software.driver_version"), 0);
    se_rep_version(rt, sizeof rt, se_rep_int(e, "software.runtime_version"), 0);
    se_rep_version(dnn, sizeof dnn, se_rep_int(e, "software.cudnn_version"), 1);
    se_rep_version(dnnc, sizeof dnnc, se_rep_int(e, "software.cudnn_compiled_version"), 1);
    se_rep_version(rnd, sizeof rnd, se_rep_int(e, "software.curand_version"), 2);
    se_doc_para(d, "%s (compute capability %s, %lld SMs, L2 %.0f MiB, peak SM clock %.0f MHz); CUDA driver "
            "%s, runtime %s, nvcc %s (architectures %s), cuDNN %s loaded (%s compiled), cuRAND %s; "
            "%%globaltimer resolution %.0f ns. Every field of " SE_ENVIRONMENT_JSON " follows (paths of "
            "the measuring machine relative to its source folder, or as .../name).",
         se_json_str(se_json_path(e, "gpu"), "name", "?"),
         se_json_str(se_json_path(e, "gpu"), "compute_capability", "?"), se_rep_int(e, "gpu.sm_count"),
         json_number_value(se_json_path(e, "gpu.l2_bytes")) / 1048576.0,
         json_number_value(se_json_path(e, "gpu.peak_sm_clock_mhz")), drv, rt,
         se_json_str(se_json_path(e, "software"), "nvcc_version", "?"),
         se_json_str(se_json_path(e, "software"), "cuda_architectures", "?"), dnn, dnnc, rnd,
         json_number_value(se_json_path(e, "globaltimer.smallest_step_ns")));
    se_doc_table(d, "field|value", NULL);
    flatten(d, "", e, rd);
    se_doc_table_end(d);
}

void se_rep_validation(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "Validation");
    const json_t *t = json_object_get(rd->validation, "tolerance");
    se_doc_para(d, "Every output element is compared with a float64 reference: %s, with atol %g and rtol "
            "%g; %lld invocations per case. Tiny counts elements below fp32's normal range; repeat "
            "identical: both invocations wrote the same bytes; matches tiled: the bytes equal the "
            "other tiled strategies'.",
         se_json_str(t, "rule", "?"), se_json_num(t, "atol"), se_json_num(t, "rtol"),
         se_rep_int(rd->validation, "invocations"));
    se_doc_table(d, "shape|strategy|cooperative blocks|graph nodes|elements|fails|NaN|tiny|max abs "
                   "err|max rel err|vs cudnn max rel|vs cudnn fails|repeat identical|matches tiled|"
                   "pass", NULL);
    size_t k, passed = 0, total = 0;
    json_t *c;
    json_array_foreach(json_object_get(rd->validation, "cases"), k, c) {
        char cells[15][SE_REP_CELL], id[64];
        snprintf(id, sizeof id, "%lldx%lld", se_rep_int(c, "rows"), se_rep_int(c, "cols"));
        snprintf(cells[0], SE_REP_CELL, "%s", id);
        snprintf(cells[1], SE_REP_CELL, "%s", se_json_str(c, "strategy", "?"));
        snprintf(cells[2], SE_REP_CELL, "%lld", se_rep_int(c, "blocks"));
        snprintf(cells[3], SE_REP_CELL, "%lld", se_rep_int(c, "graph_nodes"));
        snprintf(cells[4], SE_REP_CELL, "%lld", se_rep_int(c, "elements"));
        snprintf(cells[5], SE_REP_CELL, "%lld", se_rep_int(c, "fails"));
        snprintf(cells[6], SE_REP_CELL, "%lld", se_rep_int(c, "nan"));
        snprintf(cells[7], SE_REP_CELL, "%lld", se_rep_int(c, "tiny"));
        snprintf(cells[8], SE_REP_CELL, "%.3e", se_json_num(c, "max_abs_err"));
        snprintf(cells[9], SE_REP_CELL, "%.3e", se_json_num(c, "max_rel_err"));
        snprintf(cells[10], SE_REP_CELL, "%.3e", se_json_num(c, "vs_cudnn_max_rel"));
        snprintf(cells[11], SE_REP_CELL, "%lld", se_rep_int(c, "vs_cudnn_fails"));
        snprintf(cells[12], SE_REP_CELL, "%s", se_rep_yes_no(json_object_get(c, "repeat_identical")));
        snprintf(cells[13], SE_REP_CELL, "%s", se_rep_yes_no(json_object_get(c, "matches_tiled")));
        snprintf(cells[14], SE_REP_CELL, "%s", json_is_true(json_object_get(c, "pass")) ? "PASS" : "FAIL");
        passed += json_is_true(json_object_get(c, "pass"));
        total++;
        se_rep_row(d, 15, cells);
    }
    se_doc_table_end(d);
    se_doc_para(d, "%zu of %zu cases pass.", passed, total);
}

void se_rep_resources(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "Resources");
    se_doc_para(d, "Per kernel, from " SE_RESOURCES_JSON " (cudaFuncGetAttributes and the occupancy API).");
    se_doc_table(d, "kernel|used by|block threads|registers|static shared (B)|local (B)|constant "
                   "(B)|max blocks per SM|PTX / binary version", NULL);
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(rd->resources, "kernels"), k, c) {
        char cells[9][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", se_json_str(c, "kernel", "?"));
        snprintf(cells[1], SE_REP_CELL, "%s", se_json_str(c, "used_by", "?"));
        snprintf(cells[2], SE_REP_CELL, "%lld", se_rep_int(c, "block_threads"));
        snprintf(cells[3], SE_REP_CELL, "%lld", se_rep_int(c, "registers"));
        snprintf(cells[4], SE_REP_CELL, "%lld", se_rep_int(c, "shared_static_bytes"));
        snprintf(cells[5], SE_REP_CELL, "%lld", se_rep_int(c, "local_bytes"));
        snprintf(cells[6], SE_REP_CELL, "%lld", se_rep_int(c, "const_bytes"));
        snprintf(cells[7], SE_REP_CELL, "%lld", se_rep_int(c, "max_blocks_per_sm"));
        snprintf(cells[8], SE_REP_CELL, "%lld / %lld", se_rep_int(c, "ptx_version"), se_rep_int(c, "binary_version"));
        se_rep_row(d, 9, cells);
    }
    se_doc_table_end(d);
    se_doc_para(d, "Graph node counts and cooperative grids per shape and strategy (" SE_RESOURCES_JSON " "
            "launches; '-' for an ordinary stream launch).");
    se_doc_table(d, "shape|strategy|launch|graph nodes|cooperative blocks", NULL);
    json_array_foreach(json_object_get(rd->resources, "launches"), k, c) {
        char cells[5][SE_REP_CELL] = {""};
        const char *shape = se_json_str(c, "shape", "?");
        for (size_t i = 0; i < rd->p.n_shapes; i++)
            if (strcmp(rd->p.shapes[i].spec, shape) == 0)
                se_rundata_shape_id(&rd->p.shapes[i], cells[0], SE_REP_CELL);
        if (!cells[0][0])
            snprintf(cells[0], SE_REP_CELL, "%s", shape);
        snprintf(cells[1], SE_REP_CELL, "%s", se_json_str(c, "strategy", "?"));
        snprintf(cells[2], SE_REP_CELL, "%s", se_json_str(c, "launch", "?"));
        long long nodes = se_rep_int(c, "graph_nodes"), blocks = se_rep_int(c, "cooperative_blocks");
        snprintf(cells[3], SE_REP_CELL, "%lld", nodes);
        snprintf(cells[4], SE_REP_CELL, "%lld", blocks);
        if (!nodes)
            snprintf(cells[3], SE_REP_CELL, "-");
        if (!blocks)
            snprintf(cells[4], SE_REP_CELL, "-");
        se_rep_row(d, 5, cells);
    }
    se_doc_table_end(d);
}

void se_rep_traces(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "Dependency traces");
    se_doc_para(d, "One traced invocation per shape and traced strategy, separate from the timed ones "
            "(docs/TRACES.md). Coverage: every expected task exactly once; ordering: every "
            "dependency edge (and, for the phased strategies, every phase barrier) respected. "
            "Overlap: the share of the task time of phases B to E spent before the previous phase "
            "ended anywhere. From " SE_TRACES_JSON ": %s. %%globaltimer resolution: %.0f ns.",
         se_json_str(rd->traces, "note", ""),
         se_json_num(rd->traces, "globaltimer_resolution_ns"));
    se_doc_table(d, "case|check|verdict|tasks expected|records|missing|duplicated|invalid|"
                   "dependency edges|order violations|phase barrier violations|span (us)|SMs used|"
                   "overlap", NULL);
    size_t k, failing = 0;
    json_t *c;
    json_array_foreach(json_object_get(rd->traces, "traces"), k, c) {
        char cells[14][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], SE_REP_CELL, "%s", se_json_str(c, "kind", "?"));
        snprintf(cells[2], SE_REP_CELL, "%s", se_json_str(c, "verdict", "?"));
        snprintf(cells[3], SE_REP_CELL, "%lld", se_rep_int(c, "tasks_expected"));
        snprintf(cells[4], SE_REP_CELL, "%lld", se_rep_int(c, "records"));
        snprintf(cells[5], SE_REP_CELL, "%lld", se_rep_int(c, "missing_count"));
        snprintf(cells[6], SE_REP_CELL, "%lld", se_rep_int(c, "duplicated_count"));
        snprintf(cells[7], SE_REP_CELL, "%lld", se_rep_int(c, "invalid_count"));
        snprintf(cells[8], SE_REP_CELL, "%lld", se_rep_int(c, "dependency_edges_checked"));
        snprintf(cells[9], SE_REP_CELL, "%lld", se_rep_int(c, "order_violations_count"));
        if (json_is_true(json_object_get(c, "phase_barriers_checked")))
            snprintf(cells[10], SE_REP_CELL, "%lld", se_rep_int(c, "phase_barrier_violations_count"));
        else
            snprintf(cells[10], SE_REP_CELL, "not required");
        se_rep_us(cells[11], SE_REP_CELL, (double)se_rep_int(c, "span_ns"));
        snprintf(cells[12], SE_REP_CELL, "%lld", se_rep_int(c, "sm.sms_used"));
        snprintf(cells[13], SE_REP_CELL, "%.3f", json_number_value(se_json_path(c, "overlap.fraction")));
        failing += strcmp(se_json_str(c, "verdict", ""), "pass") != 0;
        se_rep_row(d, 14, cells);
    }
    se_doc_table_end(d);
    size_t n_traces = json_array_size(json_object_get(rd->traces, "traces"));
    se_doc_para(d, "%zu of %zu traces pass their checks.", n_traces - failing, n_traces);
    se_doc_heading(d, 3, "Cost of tracing");
    se_doc_para(d, "Device-time medians of the traced and the untraced instance, interleaved, in the same "
            "run (" SE_TRACES_JSON " tracing_cost).");
    se_doc_table(d, "case|samples|untraced median (us)|traced median (us)|overhead (us)|overhead|"
                   "untraced samples file|traced samples file", NULL);
    double lo = 0, hi = 0;
    json_array_foreach(json_object_get(rd->traces, "tracing_cost"), k, c) {
        char cells[8][SE_REP_CELL];
        double fr = se_json_num(c, "overhead_fraction");
        lo = k == 0 || fr < lo ? fr : lo;
        hi = k == 0 || fr > hi ? fr : hi;
        snprintf(cells[0], SE_REP_CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], SE_REP_CELL, "%lld", se_rep_int(c, "samples"));
        se_rep_us(cells[2], SE_REP_CELL, se_json_num(c, "untraced_median_ns"));
        se_rep_us(cells[3], SE_REP_CELL, se_json_num(c, "traced_median_ns"));
        se_rep_us(cells[4], SE_REP_CELL, se_json_num(c, "overhead_ns"));
        snprintf(cells[5], SE_REP_CELL, "%.1f%%", 100 * fr);
        snprintf(cells[6], SE_REP_CELL, "%s", se_json_str(c, "untraced_samples_file", "?"));
        snprintf(cells[7], SE_REP_CELL, "%s", se_json_str(c, "traced_samples_file", "?"));
        se_rep_row(d, 8, cells);
    }
    se_doc_table_end(d);
    se_doc_para(d, "Tracing costs %.1f%% to %.1f%% of an instance's device time in this run.", 100 * lo,
         100 * hi);
}

