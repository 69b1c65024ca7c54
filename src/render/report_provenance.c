/*
 * report_provenance.c - the report's last section: for every timing number,
 * its case, shape, strategy, scope, samples file with its SHA-256 and the
 * SHA-256 of the case's input and output (see report.h).
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
#include "model/strategy.h"

/* s, or fallback where the run has no such field. */
static const char *or_else(const char *s, const char *fallback)
{
    return s ? s : fallback;
}

/* One row: cells 0 to 4 filled by the caller; l2 and n of the scope. */
static void provenance_row(se_doc *d, char cells[][SE_REP_CELL], const char *scope,
                           const char *l2, long long n, const char *file, const char *file_hex,
                           const se_validation_view *val, const char *input_hex)
{
    snprintf(cells[5], SE_REP_CELL, "%s", scope);
    snprintf(cells[6], SE_REP_CELL, "%s", or_else(l2, "?"));
    snprintf(cells[7], SE_REP_CELL, "%lld", n);
    snprintf(cells[8], SE_REP_CELL, "%s", file);
    snprintf(cells[9], SE_REP_CELL, "%s", file_hex);
    if (val) {
        snprintf(cells[10], SE_REP_CELL, "%s", or_else(val->input_sha256, "-"));
        snprintf(cells[11], SE_REP_CELL, "%s", or_else(val->output_sha256, "-"));
    } else if (input_hex) {
        snprintf(cells[10], SE_REP_CELL, "%s", input_hex);
        snprintf(cells[11], SE_REP_CELL, "not recorded (a copy of the input)");
    } else {
        snprintf(cells[10], SE_REP_CELL, "-");
        snprintf(cells[11], SE_REP_CELL, "-");
    }
    se_rep_row(d, 12, cells);
}

/* Cells 1 to 4 of a case: shape, tile, strategy, launch (c may be NULL). */
static void case_cells(char cells[][SE_REP_CELL], const se_case_view *c)
{
    snprintf(cells[1], SE_REP_CELL, "%lldx%lld", c ? c->rows : 0, c ? c->cols : 0);
    snprintf(cells[2], SE_REP_CELL, "%lld", c ? c->tile : 0);
    snprintf(cells[3], SE_REP_CELL, "%s", c ? or_else(c->what, "?") : "?");
    snprintf(cells[4], SE_REP_CELL, "%s", c ? or_else(c->launch, "?") : "?");
}

/* The rows of a case, one per scope it has. */
static se_status case_rows(se_doc *d, se_rundata *rd, const se_case_view *c, se_err *err)
{
    const se_run_views *v = se_rundata_views(rd);
    char cells[12][SE_REP_CELL], hex[65], cid[SE_REP_CELL + 16];
    const char *file = or_else(c->samples_file, "?");
    se_status st = se_rundata_hash(rd, file, hex, err);
    if (st != SE_OK)
        return st;
    snprintf(cells[0], SE_REP_CELL, "%s", or_else(c->id, "?"));
    case_cells(cells, c);
    const se_validation_view *val = se_views_validation(v, cells[0]);
    const char *input = NULL;
    if (!val) {
        se_case_id_make(c->rows, c->cols, se_protocol_strategy(&rd->p, SE_STRATEGY_BASELINE)->name,
                        cid, sizeof cid);
        const se_validation_view *any = se_views_validation(v, cid);
        if (!any)
            any = se_views_validation_on(v, or_else(c->shape, ""));
        input = any ? any->input_sha256 : NULL;
    }
    for (int sc = 0; sc < SE_NSCOPES; sc++)
        if (c->scope[sc].present)
            provenance_row(d, cells, se_rep_scopes[sc], c->scope[sc].l2, c->scope[sc].n, file,
                           hex, val, input);
    return SE_OK;
}

/* The rows of a run-level control (scope device). */
static se_status control_rows(se_doc *d, se_rundata *rd, const se_case_view *c, se_err *err)
{
    char cells[12][SE_REP_CELL], hex[65];
    const char *file = or_else(c->samples_file, "?");
    se_status st = se_rundata_hash(rd, file, hex, err);
    if (st != SE_OK)
        return st;
    snprintf(cells[0], SE_REP_CELL, "%s", or_else(c->id, "?"));
    snprintf(cells[1], SE_REP_CELL, "-");
    snprintf(cells[2], SE_REP_CELL, "-");
    snprintf(cells[3], SE_REP_CELL, "%s", or_else(c->what, "?"));
    snprintf(cells[4], SE_REP_CELL, "%s", strcmp(or_else(c->what, ""), "empty_graph") == 0
                                       ? "graph"
                                       : "stream");
    provenance_row(d, cells, "device", c->scope[SE_SCOPE_DEVICE].l2,
                   c->scope[SE_SCOPE_DEVICE].n, file, hex, NULL, NULL);
    return SE_OK;
}

/* The untraced and traced rows of a tracing-cost entry. */
static se_status cost_rows(se_doc *d, se_rundata *rd, const se_tracing_cost_view *c, se_err *err)
{
    const se_run_views *v = se_rundata_views(rd);
    const char *cid = or_else(c->id, "?");
    const se_case_view *sc = se_views_case(v, cid);
    const se_validation_view *val = se_views_validation(v, cid);
    for (int t = 0; t < 2; t++) {
        char cells[12][SE_REP_CELL], hex[65];
        const char *file = or_else(t ? c->traced_samples_file : c->untraced_samples_file, "?");
        se_status st = se_rundata_hash(rd, file, hex, err);
        if (st != SE_OK)
            return st;
        snprintf(cells[0], SE_REP_CELL, "%s (%s)", cid, t ? "traced" : "untraced");
        case_cells(cells, sc);
        provenance_row(d, cells, t ? "device (traced)" : "device (untraced)", "warm", c->samples,
                       file, hex, val, NULL);
    }
    return SE_OK;
}

se_status se_rep_provenance(se_doc *d, se_rundata *rd, se_err *err)
{
    const se_run_views *v = se_rundata_views(rd);
    se_doc_heading(d, 2, "Provenance of every timing number");
    se_doc_para(d, "Every timing number above comes from one case and scope: its samples file (with the "
            "SHA-256 listed in the run's " SE_MANIFEST_NAME " and recomputed here), the shape and tile, "
            "the strategy and launch, the scope and L2 state, the number of samples, and the "
            "SHA-256 of the case's input and output bytes from " SE_VALIDATION_JSON ". Controls have no "
            "input or output.");
    se_doc_table(d, "case|shape|tile|strategy|launch|scope|L2|samples|samples file|samples file "
                   "SHA-256|input SHA-256|output SHA-256", NULL);
    se_status st = SE_OK;
    for (size_t k = 0; st == SE_OK && k < v->n_cases; k++)
        st = case_rows(d, rd, &v->cases[k], err);
    for (size_t k = 0; st == SE_OK && k < v->n_controls; k++)
        st = control_rows(d, rd, &v->controls[k], err);
    for (size_t k = 0; st == SE_OK && k < v->traces.n_cost; k++)
        st = cost_rows(d, rd, &v->traces.cost[k], err);
    if (st != SE_OK)
        return st;
    se_doc_table_end(d);
    return SE_OK;
}
