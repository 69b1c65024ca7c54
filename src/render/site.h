/*
 * site.h - `softmax-evidence site RUN_DIR OUT_DIR`: a static evidence site
 * (plain HTML and CSS, works from file:// and any static server, no external
 * requests) with selected files of the run, its own SITE_MANIFEST.sha256,
 * and the list of every raw-run file it left out, with hashes
 * (docs/SITE.md).
 */
#ifndef SE_SITE_H
#define SE_SITE_H

#include <stdio.h>

#include "bundle/site_verify.h"
#include "model/se_common.h"


/* Verifies the run, draws its figures, builds the site in a temporary
 * folder and renames it to out_dir. */
/* With on, se_site_main prints "[n/N] step (s elapsed, about s left)" lines
 * on stderr as it goes (the command line turns it on where stderr is a
 * terminal and --quiet is not given, as for run and profile). */
void se_site_set_progress(int on);

se_status se_site_main(const char *run_dir, const char *out_dir, FILE *out, se_err *err);

#endif
