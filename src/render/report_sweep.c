/*
 * report_sweep.c - the report's row-length sections (see report.h): the
 * fraction of copy of every strategy and peer per group of shapes, in
 * order of row length (the table beside fig8), and issue 30's goals per
 * shape with the five-phase bound (render/sweep_doc.c, as `softmax-evidence
 * goals` prints them).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/report_sections.h"

#include "bundle/sweep.h"
#include "render/sweep_doc.h"

void se_rep_sweep(se_doc *d, const se_rundata *rd)
{
    se_doc_heading(d, 2, "Fraction of copy by row length");
    se_sweep s;
    se_goals g = {0};
    se_err err = {{0}};
    if (se_sweep_read(rd, &s, &err) != SE_OK || se_goals_compute(&s, &g, &err) != SE_OK) {
        se_doc_para(d, "The row-length tables cannot be built from this run: %s", err.msg);
        se_sweep_free(&s);
        return;
    }
    size_t drawn = 0;
    for (size_t q = 0; q < s.n_groups; q++)
        drawn += s.groups[q].n_lengths >= SE_SWEEP_MIN_LENGTHS;
    se_doc_para(d, "Each cell is median(copy) / median of the same shape, L2 warm / flushed (scopes "
                   "device and device_cold: the copy control is timed in both, so the flushed "
                   "fraction divides the flushed copy by the flushed median); the PyTorch peers "
                   "are timed L2 warm only. The shapes are grouped: a shape that moves under 1 MB "
                   "is launch-bound and joins the shapes of its row count; the others form "
                   "families by input size (rows x columns x 4 bytes), each the shapes whose input "
                   "is at most %.0f times its smallest's. fig8 draws the %zu of %zu groups with %d "
                   "or more row lengths (docs/FIGURES.md).",
                SE_SWEEP_FAMILY_SPAN, drawn, s.n_groups, SE_SWEEP_MIN_LENGTHS);
    se_sweep_doc_fractions(d, &s, 3);
    se_doc_heading(d, 2, "Goals per shape (issue 30)");
    se_sweep_doc_goals(d, rd, &s, &g);
    se_goals_free(&g);
    se_sweep_free(&s);
}
