/*
 * site_verify.h - checking a static evidence site (docs/SITE.md): the site
 * folder's names, and verify on a site. Lives in the bundle layer because
 * verify dispatches to it; the site's pages are built by render/site.c.
 */
#ifndef SE_BUNDLE_SITE_VERIFY_H
#define SE_BUNDLE_SITE_VERIFY_H

#include <stdio.h>

#include "bundle/paths.h" /* SE_SITE_MANIFEST */
#include "model/se_common.h"

/* SE_SITE_LEFT_OUT: bundle/paths.h */

/* verify on a site: SITE_MANIFEST.sha256 over the site, the selected run
 * files (site/run) against the run's own manifest with the left-out files
 * remote-only, and LEFT_OUT.sha256 against that manifest. */
se_status se_site_verify(const char *site_dir, FILE *out, se_err *err);

#endif
