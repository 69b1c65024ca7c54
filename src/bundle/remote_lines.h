/*
 * remote_lines.h - the hash of a manifest's remote-only lines: what verify
 * checks those lines by, as their files are not here to hash. Apart from
 * remote.c so that the remote.json reader and writer need no manifest
 * reader (the manifest module itself reads remote.json).
 */
#ifndef SE_BUNDLE_REMOTE_LINES_H
#define SE_BUNDLE_REMOTE_LINES_H

#include "bundle/remote.h"
#include "model/se_common.h"

/* The SHA-256 of dir's manifest lines ("<hex>  <path>\n") of r's
 * remote-only files, in the manifest's order (malformed lines are
 * skipped: verify names them). */
se_status se_remote_lines_sha256(const char *dir, const se_remote *r, char hex[65], se_err *err);

#endif
