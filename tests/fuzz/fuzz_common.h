/*
 * fuzz_common.h - what the libFuzzer harnesses of tests/fuzz share: a
 * private temporary folder, made once, and writing the input into a file.
 */
#ifndef SE_FUZZ_COMMON_H
#define SE_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* A folder of this process under $TMPDIR (or /tmp), made on first use and
 * removed at exit; NULL if it cannot be made. */
const char *se_fuzz_tmpdir(void);

/* Writes data to path (replacing it); 0 on success. */
int se_fuzz_write(const char *path, const uint8_t *data, size_t size);

/* Copies the tree src to dst (dst must not exist); 0 on success. */
int se_fuzz_copy_tree(const char *src, const char *dst);

/* Where $SE_FUZZ_SEED_OUT names a folder, writes data there as name: the
 * seeds a harness makes itself at start (an archive, a signature), which
 * scripts/fuzz.sh collects by running the harness once with -runs=0. */
void se_fuzz_seed(const char *name, const uint8_t *data, size_t size);

/* The whole of path, malloc'd, into *data and *size; 0 on success. */
int se_fuzz_read(const char *path, uint8_t **data, size_t *size);

#endif
