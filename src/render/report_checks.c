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
#include "bundle/views.h"

/* s, or fallback where the run has no such field. */
static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

void se_rep_path(char *buf, size_t size, const char *path, const se_rundata *rd)
{
    const char *src = or_else(se_rundata_views(rd)->env.source_dir, "");
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

/* Every field of environment.json but its format and version, one row each
 * (an array's items on one line). */
static void env_rows(se_doc *d, const se_rundata *rd)
{
    const se_env_view *env = &se_rundata_views(rd)->env;
    for (size_t k = 0; k < env->n_fields; k++) {
        const se_env_field *f = &env->fields[k];
        if (strcmp(f->name, "format") == 0 || strcmp(f->name, "version") == 0)
            continue;
        char cells[2][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", f->name);
        if (f->items) {
            size_t used = 0;
            cells[1][0] = '\0';
            for (size_t i = 0; i < f->n_items; i++) {
                char one[SE_REP_CELL];
                env_value(one, sizeof one, f->items[i], rd);
                int w = snprintf(cells[1] + used, SE_REP_CELL - used, "%s%s", i ? " " : "", one);
                used += w > 0 ? (size_t)w : 0;
                if (used >= SE_REP_CELL)
                    break;
            }
        } else {
            env_value(cells[1], SE_REP_CELL, f->value, rd);
        }
        se_rep_row(d, 2, cells);
    }
}

void se_rep_environment(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "GPU and software");
    const se_env_view *e = &se_rundata_views(rd)->env;
    char drv[32], rt[32], dnn[32], dnnc[32], rnd[32];
    se_rep_version(drv, sizeof drv, e->driver_version, 0);
    se_rep_version(rt, sizeof rt, e->runtime_version, 0);
    se_rep_version(dnn, sizeof dnn, e->cudnn_version, 1);
    se_rep_version(dnnc, sizeof dnnc, e->cudnn_compiled_version, 1);
    se_rep_version(rnd, sizeof rnd, e->curand_version, 2);
    se_doc_para(d, "%s (compute capability %s, %lld SMs, L2 %.0f MiB, peak SM clock %.0f MHz); CUDA driver "
            "%s, runtime %s, nvcc %s (architectures %s), cuDNN %s loaded (%s compiled), cuRAND %s; "
            "%%globaltimer resolution %.0f ns. Every field of " SE_ENVIRONMENT_JSON " follows (paths of "
            "the measuring machine relative to its source folder, or as .../name).",
         or_else(e->gpu_name, "?"), or_else(e->compute_capability, "?"), e->sm_count,
         (double)e->l2_bytes / 1048576.0, e->peak_sm_clock_mhz, drv, rt,
         or_else(e->nvcc_version, "?"), or_else(e->cuda_architectures, "?"), dnn, dnnc, rnd,
         e->timer_step_ns);
    se_doc_table(d, "field|value", NULL);
    env_rows(d, rd);
    se_doc_table_end(d);
}

/* One row of the validation table. */
static void validation_row(se_doc *d, const se_validation_view *c)
{
    char cells[15][SE_REP_CELL];
    snprintf(cells[0], SE_REP_CELL, "%lldx%lld", c->rows, c->cols);
    snprintf(cells[1], SE_REP_CELL, "%s", or_else(c->strategy, "?"));
    snprintf(cells[2], SE_REP_CELL, "%lld", c->blocks);
    snprintf(cells[3], SE_REP_CELL, "%lld", c->graph_nodes);
    snprintf(cells[4], SE_REP_CELL, "%lld", c->elements);
    snprintf(cells[5], SE_REP_CELL, "%lld", c->fails);
    snprintf(cells[6], SE_REP_CELL, "%lld", c->nan);
    snprintf(cells[7], SE_REP_CELL, "%lld", c->tiny);
    snprintf(cells[8], SE_REP_CELL, "%.3e", c->max_abs_err);
    snprintf(cells[9], SE_REP_CELL, "%.3e", c->max_rel_err);
    if (c->has_vs_cudnn) /* null where the workload has no cuDNN reference (LayerNorm) */
        snprintf(cells[10], SE_REP_CELL, "%.3e", c->vs_cudnn_max_rel);
    else
        snprintf(cells[10], SE_REP_CELL, "-");
    snprintf(cells[11], SE_REP_CELL, "%lld", c->vs_cudnn_fails);
    snprintf(cells[12], SE_REP_CELL, "%s", se_rep_yes_no(c->repeat_identical));
    snprintf(cells[13], SE_REP_CELL, "%s", se_rep_yes_no(c->matches_tiled));
    snprintf(cells[14], SE_REP_CELL, "%s", c->pass ? "PASS" : "FAIL");
    se_rep_row(d, 15, cells);
}

void se_rep_validation(se_doc *d, const se_rundata *rd)
{
    const se_run_views *v = se_rundata_views(rd);
    se_doc_heading(d, 2, "Validation");
    se_doc_para(d, "Every output element is compared with a float64 reference: %s, with atol %g and rtol "
            "%g; %lld invocations per case. Tiny counts elements below fp32's normal range; repeat "
            "identical: both invocations wrote the same bytes; matches tiled: the bytes equal the "
            "other tiled strategies'.",
         or_else(v->tolerance_rule, "?"), v->atol, v->rtol, v->invocations);
    se_doc_table(d, "shape|strategy|cooperative blocks|graph nodes|elements|fails|NaN|tiny|max abs "
                   "err|max rel err|vs cudnn max rel|vs cudnn fails|repeat identical|matches tiled|"
                   "pass", NULL);
    size_t passed = 0;
    for (size_t k = 0; k < v->n_validation; k++) {
        validation_row(d, &v->validation[k]);
        passed += v->validation[k].pass;
    }
    se_doc_table_end(d);
    se_doc_para(d, "%zu of %zu cases pass.", passed, v->n_validation);
}

/* The launches table: graph nodes and cooperative grids per case. */
static void launches_table(se_doc *d, const se_rundata *rd)
{
    const se_run_views *v = se_rundata_views(rd);
    se_doc_table(d, "shape|strategy|launch|graph nodes|cooperative blocks", NULL);
    for (size_t k = 0; k < v->n_launches; k++) {
        const se_launch_view *c = &v->launches[k];
        char cells[5][SE_REP_CELL] = {""};
        const char *shape = or_else(c->shape, "?");
        for (size_t i = 0; i < rd->p.n_shapes; i++)
            if (strcmp(rd->p.shapes[i].spec, shape) == 0)
                se_rundata_shape_id(&rd->p.shapes[i], cells[0], SE_REP_CELL);
        if (!cells[0][0])
            snprintf(cells[0], SE_REP_CELL, "%s", shape);
        snprintf(cells[1], SE_REP_CELL, "%s", or_else(c->strategy, "?"));
        snprintf(cells[2], SE_REP_CELL, "%s", or_else(c->launch, "?"));
        snprintf(cells[3], SE_REP_CELL, "%lld", c->graph_nodes);
        snprintf(cells[4], SE_REP_CELL, "%lld", c->cooperative_blocks);
        if (!c->graph_nodes)
            snprintf(cells[3], SE_REP_CELL, "-");
        if (!c->cooperative_blocks)
            snprintf(cells[4], SE_REP_CELL, "-");
        se_rep_row(d, 5, cells);
    }
    se_doc_table_end(d);
}

void se_rep_resources(se_doc *d, const se_rundata *rd)
{
    const se_run_views *v = se_rundata_views(rd);
    se_doc_heading(d, 2, "Resources");
    se_doc_para(d, "Per kernel, from " SE_RESOURCES_JSON " (cudaFuncGetAttributes and the occupancy API).");
    se_doc_table(d, "kernel|used by|block threads|registers|static shared (B)|local (B)|constant "
                   "(B)|max blocks per SM|PTX / binary version", NULL);
    for (size_t k = 0; k < v->n_kernels; k++) {
        const se_kernel_view *c = &v->kernels[k];
        char cells[9][SE_REP_CELL];
        snprintf(cells[0], SE_REP_CELL, "%s", or_else(c->kernel, "?"));
        snprintf(cells[1], SE_REP_CELL, "%s", or_else(c->used_by, "?"));
        snprintf(cells[2], SE_REP_CELL, "%lld", c->block_threads);
        snprintf(cells[3], SE_REP_CELL, "%lld", c->registers);
        snprintf(cells[4], SE_REP_CELL, "%lld", c->shared_static_bytes);
        snprintf(cells[5], SE_REP_CELL, "%lld", c->local_bytes);
        snprintf(cells[6], SE_REP_CELL, "%lld", c->const_bytes);
        snprintf(cells[7], SE_REP_CELL, "%lld", c->max_blocks_per_sm);
        snprintf(cells[8], SE_REP_CELL, "%lld / %lld", c->ptx_version, c->binary_version);
        se_rep_row(d, 9, cells);
    }
    se_doc_table_end(d);
    se_doc_para(d, "Graph node counts and cooperative grids per shape and strategy (" SE_RESOURCES_JSON " "
            "launches; '-' for an ordinary stream launch).");
    launches_table(d, rd);
}

/* One row of the traces table. */
static void trace_row(se_doc *d, const se_trace_view *c)
{
    char cells[14][SE_REP_CELL];
    snprintf(cells[0], SE_REP_CELL, "%s", or_else(c->id, "?"));
    snprintf(cells[1], SE_REP_CELL, "%s", or_else(c->kind, "?"));
    snprintf(cells[2], SE_REP_CELL, "%s", or_else(c->verdict, "?"));
    snprintf(cells[3], SE_REP_CELL, "%lld", c->tasks_expected);
    snprintf(cells[4], SE_REP_CELL, "%lld", c->records);
    snprintf(cells[5], SE_REP_CELL, "%lld", c->missing_count);
    snprintf(cells[6], SE_REP_CELL, "%lld", c->duplicated_count);
    snprintf(cells[7], SE_REP_CELL, "%lld", c->invalid_count);
    snprintf(cells[8], SE_REP_CELL, "%lld", c->dependency_edges_checked);
    snprintf(cells[9], SE_REP_CELL, "%lld", c->order_violations_count);
    if (c->phase_barriers_checked)
        snprintf(cells[10], SE_REP_CELL, "%lld", c->phase_barrier_violations_count);
    else
        snprintf(cells[10], SE_REP_CELL, "not required");
    se_rep_us(cells[11], SE_REP_CELL, (double)c->span_ns);
    snprintf(cells[12], SE_REP_CELL, "%lld", c->sms_used);
    snprintf(cells[13], SE_REP_CELL, "%.3f", c->overlap_fraction);
    se_rep_row(d, 14, cells);
}

/* The cost of tracing: traced against untraced medians per case. */
static void tracing_cost_table(se_doc *d, const se_traces_view *tv)
{
    se_doc_table(d, "case|samples|untraced median (us)|traced median (us)|overhead (us)|overhead|"
                   "untraced samples file|traced samples file", NULL);
    double lo = 0, hi = 0;
    for (size_t k = 0; k < tv->n_cost; k++) {
        const se_tracing_cost_view *c = &tv->cost[k];
        char cells[8][SE_REP_CELL];
        double fr = c->overhead_fraction;
        lo = k == 0 || fr < lo ? fr : lo;
        hi = k == 0 || fr > hi ? fr : hi;
        snprintf(cells[0], SE_REP_CELL, "%s", or_else(c->id, "?"));
        snprintf(cells[1], SE_REP_CELL, "%lld", c->samples);
        se_rep_us(cells[2], SE_REP_CELL, c->untraced_median_ns);
        se_rep_us(cells[3], SE_REP_CELL, c->traced_median_ns);
        se_rep_us(cells[4], SE_REP_CELL, c->overhead_ns);
        snprintf(cells[5], SE_REP_CELL, "%.1f%%", 100 * fr);
        snprintf(cells[6], SE_REP_CELL, "%s", or_else(c->untraced_samples_file, "?"));
        snprintf(cells[7], SE_REP_CELL, "%s", or_else(c->traced_samples_file, "?"));
        se_rep_row(d, 8, cells);
    }
    se_doc_table_end(d);
    se_doc_para(d, "Tracing costs %.1f%% to %.1f%% of an instance's device time in this run.", 100 * lo,
         100 * hi);
}

void se_rep_traces(se_doc *d, const se_rundata *rd)
{
    const se_traces_view *tv = &se_rundata_views(rd)->traces;
    se_doc_heading(d, 2, "Dependency traces");
    se_doc_para(d, "One traced invocation per shape and traced strategy, separate from the timed ones "
            "(docs/TRACES.md). Coverage: every expected task exactly once; ordering: every "
            "dependency edge (and, for the phased strategies, every phase barrier) respected. "
            "Overlap: the share of the task time of phases B to E spent before the previous phase "
            "ended anywhere. From " SE_TRACES_JSON ": %s. %%globaltimer resolution: %.0f ns.",
         or_else(tv->note, ""), tv->timer_resolution_ns);
    se_doc_table(d, "case|check|verdict|tasks expected|records|missing|duplicated|invalid|"
                   "dependency edges|order violations|phase barrier violations|span (us)|SMs used|"
                   "overlap", NULL);
    size_t failing = 0;
    for (size_t k = 0; k < tv->n; k++) {
        trace_row(d, &tv->v[k]);
        failing += strcmp(or_else(tv->v[k].verdict, ""), "pass") != 0;
    }
    se_doc_table_end(d);
    se_doc_para(d, "%zu of %zu traces pass their checks.", tv->n - failing, tv->n);
    se_doc_heading(d, 3, "Cost of tracing");
    se_doc_para(d, "Device-time medians of the traced and the untraced instance, interleaved, in the same "
            "run (" SE_TRACES_JSON " tracing_cost).");
    tracing_cost_table(d, tv);
}
