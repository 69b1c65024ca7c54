/*
 * fuzz_common.c - see fuzz_common.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/fsutil.h"

static char tmp_dir[4096];

static void remove_tmp(void)
{
    if (tmp_dir[0])
        se_remove_tree(tmp_dir);
}

const char *se_fuzz_tmpdir(void)
{
    if (tmp_dir[0])
        return tmp_dir;
    const char *base = getenv("TMPDIR");
    snprintf(tmp_dir, sizeof tmp_dir, "%s/se-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp_dir)) {
        tmp_dir[0] = '\0';
        return NULL;
    }
    atexit(remove_tmp);
    return tmp_dir;
}

int se_fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    unlink(path);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    return (fclose(f) != 0 || n != size) ? -1 : 0;
}

int se_fuzz_copy_tree(const char *src, const char *dst)
{
    if (mkdir(dst, 0755) != 0)
        return -1;
    DIR *d = opendir(src);
    if (!d)
        return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char s[4096], t[4096];
        snprintf(s, sizeof s, "%s/%s", src, e->d_name);
        snprintf(t, sizeof t, "%s/%s", dst, e->d_name);
        struct stat sb;
        if (lstat(s, &sb) != 0)
            rc = -1;
        else if (S_ISDIR(sb.st_mode))
            rc = se_fuzz_copy_tree(s, t);
        else
            rc = se_copy_file(s, t, NULL) == SE_OK ? 0 : -1;
    }
    closedir(d);
    return rc;
}

void se_fuzz_seed(const char *name, const uint8_t *data, size_t size)
{
    const char *dir = getenv("SE_FUZZ_SEED_OUT");
    if (!dir || !*dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (se_fuzz_write(path, data, size) != 0)
        fprintf(stderr, "fuzz: cannot write the seed %s\n", path);
}

int se_fuzz_read(const char *path, uint8_t **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    *data = NULL;
    *size = 0;
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *b = malloc(cap);
    while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *g = realloc(b, cap *= 2);
            if (!g) {
                free(b);
                b = NULL;
            }
            b = g;
        }
    }
    fclose(f);
    if (!b)
        return -1;
    *data = b;
    *size = n;
    return 0;
}
