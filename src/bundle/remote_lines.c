/*
 * remote_lines.c - the hash of a manifest's remote-only lines
 * (remote_lines.h).
 */
#include "bundle/remote_lines.h"

#include <string.h>

#include "bundle/manifest.h"
#include "bundle/sha256.h"

static se_status hash_remote_line(void *ctx, const se_manifest_line *line, se_err *err)
{
    void **c = ctx; /* the stream, the remote.json */
    (void)err;
    if (line->path && se_remote_has(c[1], line->path)) {
        se_sha256_update(c[0], line->hex, 64);
        se_sha256_update(c[0], "  ", 2);
        se_sha256_update(c[0], line->path, strlen(line->path));
        se_sha256_update(c[0], "\n", 1);
    }
    return SE_OK;
}

se_status se_remote_lines_sha256(const char *dir, const se_remote *r, char hex[65], se_err *err)
{
    se_sha256_stream *s = se_sha256_begin();
    if (!s)
        return se_fail(err, SE_ERR_NOMEM, "out of memory hashing %s", SE_MANIFEST_NAME);
    void *ctx[2] = {s, (void *)r};
    se_status st = se_manifest_read(dir, SE_MANIFEST_NAME, hash_remote_line, ctx, err);
    unsigned char d[32];
    if (st != SE_OK) {
        se_sha256_free(s);
        return st;
    }
    st = se_sha256_end(s, d, err);
    if (st == SE_OK)
        se_hex32(d, hex);
    return st;
}

