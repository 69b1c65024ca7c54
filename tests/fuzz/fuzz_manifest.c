/*
 * fuzz_manifest.c - libFuzzer harness of the manifest reader: the input is
 * MANIFEST.sha256 of a small folder (two files, one of them listed in the
 * seeds), read line by line (se_manifest_read) and verified against the
 * folder (se_manifest_verify). docs/FUZZING.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundle/manifest.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static se_status count_line(void *ctx, const se_manifest_line *line, se_err *err)
{
    (void)err;
    size_t *n = ctx;
    if (line->path && (strlen(line->hex) != 64 || !line->path[0]))
        abort(); /* a well-formed line has a digest and a path */
    (*n)++;
    return SE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[4200];
    const char *tmp = se_fuzz_tmpdir();
    if (!tmp)
        return 0;
    if (!dir[0]) {
        char path[4300];
        snprintf(dir, sizeof dir, "%s/run", tmp);
        mkdir(dir, 0755);
        snprintf(path, sizeof path, "%s/run.json", dir);
        se_fuzz_write(path, (const uint8_t *)"{}\n", 3);
        snprintf(path, sizeof path, "%s/samples", dir);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/samples/a.csv", dir);
        se_fuzz_write(path, (const uint8_t *)"x\n", 2);
    }
    char mpath[4300];
    snprintf(mpath, sizeof mpath, "%s/%s", dir, SE_MANIFEST_NAME);
    if (se_fuzz_write(mpath, data, size) != 0)
        return 0;
    size_t n = 0;
    se_err err;
    se_manifest_read(dir, SE_MANIFEST_NAME, count_line, &n, &err);
    se_manifest_report rep;
    FILE *devnull = fopen("/dev/null", "w");
    se_manifest_verify(dir, SE_MANIFEST_NAME, devnull, &rep, &err);
    if (devnull)
        fclose(devnull);
    return 0;
}
