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
#include "model/strategy.h"

static void provenance_row(se_doc *d, char cells[][SE_REP_CELL], const char *scope,
                           const json_t *s, const char *file, const char *file_hex,
                           const json_t *val, const char *input_hex)
{
    snprintf(cells[5], SE_REP_CELL, "%s", scope);
    snprintf(cells[6], SE_REP_CELL, "%s", se_json_str(s, "l2", "?"));
    snprintf(cells[7], SE_REP_CELL, "%lld", se_rep_int(s, "n"));
    snprintf(cells[8], SE_REP_CELL, "%s", file);
    snprintf(cells[9], SE_REP_CELL, "%s", file_hex);
    if (val) {
        snprintf(cells[10], SE_REP_CELL, "%s", se_json_str(val, "input_sha256", "-"));
        snprintf(cells[11], SE_REP_CELL, "%s", se_json_str(val, "output_sha256", "-"));
    } else if (input_hex) {
        snprintf(cells[10], SE_REP_CELL, "%s", input_hex);
        snprintf(cells[11], SE_REP_CELL, "not recorded (a copy of the input)");
    } else {
        snprintf(cells[10], SE_REP_CELL, "-");
        snprintf(cells[11], SE_REP_CELL, "-");
    }
    se_rep_row(d, 12, cells);
}

se_status se_rep_provenance(se_doc *d, se_rundata *rd, se_err *err)
{
    se_doc_heading(d, 2, "Provenance of every timing number");
    se_doc_para(d, "Every timing number above comes from one case and scope: its samples file (with the "
            "SHA-256 listed in the run's " SE_MANIFEST_NAME " and recomputed here), the shape and tile, "
            "the strategy and launch, the scope and L2 state, the number of samples, and the "
            "SHA-256 of the case's input and output bytes from " SE_VALIDATION_JSON ". Controls have no "
            "input or output.");
    se_doc_table(d, "case|shape|tile|strategy|launch|scope|L2|samples|samples file|samples file "
                   "SHA-256|input SHA-256|output SHA-256", NULL);
    se_status st = SE_OK;
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(rd->summary, "cases"), k, c) {
        char cells[12][SE_REP_CELL], hex[65], cid[SE_REP_CELL + 16];
        const char *file = se_json_str(c, "samples_file", "?");
        st = se_rundata_hash(rd, file, hex, err);
        if (st != SE_OK)
            return st;
        snprintf(cells[0], SE_REP_CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], SE_REP_CELL, "%lldx%lld", se_rep_int(c, "rows"), se_rep_int(c, "cols"));
        snprintf(cells[2], SE_REP_CELL, "%lld", se_rep_int(c, "tile"));
        snprintf(cells[3], SE_REP_CELL, "%s", se_json_str(c, "what", "?"));
        snprintf(cells[4], SE_REP_CELL, "%s", se_json_str(c, "launch", "?"));
        const json_t *val = se_rundata_validation_case(rd, cells[0]);
        const char *input = NULL;
        if (!val) {
            se_case_id_make(se_rep_int(c, "rows"), se_rep_int(c, "cols"),
                            se_protocol_strategy(&rd->p, SE_STRATEGY_BASELINE)->name, cid, sizeof cid);
            const json_t *any = se_rundata_validation_case(rd, cid);
            if (!any)
                any = se_rundata_find(json_object_get(rd->validation, "cases"), "shape",
                                      se_json_str(c, "shape", ""));
            input = any ? se_json_str(any, "input_sha256", NULL) : NULL;
        }
        for (int sc = 0; sc < SE_NSCOPES; sc++) {
            const json_t *s = se_json_path(json_object_get(c, "scopes"), se_rep_scopes[sc]);
            if (s)
                provenance_row(d, cells, se_rep_scopes[sc], s, file, hex, val, input);
        }
    }
    json_array_foreach(json_object_get(rd->summary, "controls"), k, c) {
        char cells[12][SE_REP_CELL], hex[65];
        const char *file = se_json_str(c, "samples_file", "?");
        st = se_rundata_hash(rd, file, hex, err);
        if (st != SE_OK)
            return st;
        snprintf(cells[0], SE_REP_CELL, "%s", se_json_str(c, "case", "?"));
        snprintf(cells[1], SE_REP_CELL, "-");
        snprintf(cells[2], SE_REP_CELL, "-");
        snprintf(cells[3], SE_REP_CELL, "%s", se_json_str(c, "what", "?"));
        snprintf(cells[4], SE_REP_CELL, "%s", strcmp(se_json_str(c, "what", ""), "empty_graph") == 0
                                           ? "graph"
                                           : "stream");
        provenance_row(d, cells, "device", se_json_path(c, "scopes.device"), file, hex, NULL,
                       NULL);
    }
    json_array_foreach(json_object_get(rd->traces, "tracing_cost"), k, c) {
        const char *cid = se_json_str(c, "case", "?");
        const json_t *sc = se_rundata_summary_case(rd, cid);
        const json_t *val = se_rundata_validation_case(rd, cid);
        for (int t = 0; t < 2; t++) {
            char cells[12][SE_REP_CELL], hex[65];
            const char *file = se_json_str(c, t ? "traced_samples_file" : "untraced_samples_file",
                                           "?");
            st = se_rundata_hash(rd, file, hex, err);
            if (st != SE_OK)
                return st;
            snprintf(cells[0], SE_REP_CELL, "%s (%s)", cid, t ? "traced" : "untraced");
            snprintf(cells[1], SE_REP_CELL, "%lldx%lld", se_rep_int(sc, "rows"), se_rep_int(sc, "cols"));
            snprintf(cells[2], SE_REP_CELL, "%lld", se_rep_int(sc, "tile"));
            snprintf(cells[3], SE_REP_CELL, "%s", se_json_str(sc, "what", "?"));
            snprintf(cells[4], SE_REP_CELL, "%s", se_json_str(sc, "launch", "?"));
            json_t *s = json_pack("{s:s, s:I}", "l2", "warm", "n", se_rep_int(c, "samples"));
            provenance_row(d, cells, t ? "device (traced)" : "device (untraced)", s, file, hex,
                           val, NULL);
            json_decref(s);
        }
    }
    se_doc_table_end(d);
    return SE_OK;
}
