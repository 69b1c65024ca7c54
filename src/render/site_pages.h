/*
 * site_pages.h - what site.c and the site's pages (site_pages.c) share:
 * the site being built, and the one call that writes its pages. Not for
 * callers of site.h.
 */
#ifndef SE_RENDER_SITE_PAGES_H
#define SE_RENDER_SITE_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "model/se_common.h"
#include "model/strategy.h"
#include "render/doc.h"

#define SE_SITE_PATH_SIZE 4400
#define SE_SITE_MAX_TIMELINES 8

typedef struct se_site {
    const char *run;  /* the run directory */
    const char *tmp;  /* the folder being filled */
    se_rundata rd;
    json_t *protocol;
    char timeline_shape[SE_CASE_ID_SIZE]; /* the shape whose traces are kept in full */
    int64_t tl_rows, tl_cols;
    int timelines[SE_SITE_MAX_TIMELINES];  /* the strategies fig4 shows (run's table) */
    int n_timelines;
} se_site;

/* Writes style.css and every page into s->tmp: the overview, protocol,
 * full results (the figures' report document), figure provenance, traces
 * (exported[k] is the case id of the Perfetto export of s->timelines[k])
 * and reproduction (kept and left: the run files copied and left out). */
se_status se_site_write_pages(const se_site *s, const se_doc *report,
                              char exported[][SE_CASE_ID_SIZE], size_t kept, size_t left,
                              se_err *err);

/* The number of pages se_site_write_pages writes. */
size_t se_site_n_pages(void);

#endif
