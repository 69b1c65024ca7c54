/*
 * paths.h - the one owner of a run directory's names: every file name, its
 * format string, the shape and case ids, and the relative path of each
 * per-case file (docs/BUNDLE.md). Nothing else in the program spells them.
 */
#ifndef SE_BUNDLE_PATHS_H
#define SE_BUNDLE_PATHS_H

#include <stddef.h>
#include <stdint.h>

/* The run's files, relative to the run directory. */
#define SE_RUN_JSON "run.json"
#define SE_ENVIRONMENT_JSON "environment.json"
#define SE_PROTOCOL_JSON "protocol.json"
#define SE_SUMMARY_JSON "summary.json"
#define SE_VALIDATION_JSON "validation.json"
#define SE_RESOURCES_JSON "resources.json"
#define SE_TRACES_JSON "traces.json"
/* The strategies and workload the run measured (bundle/describe.h); a run
 * made before it existed is read with the legacy v1 table. */
#define SE_STRATEGIES_JSON "strategies.json"
#define SE_TRACE_OUTPUTS_CSV "traces/outputs.csv"
#define SE_PROFILE_DIR "profile"
/* The profile folder's files by their own names (what `profile` writes into
 * it before it is published), then relative to the run directory. */
#define SE_PROFILE_JSON_FILE "profile.json"
#define SE_PROFILE_KERNELS_FILE "kernels.csv"
#define SE_PROFILE_NCU_RAW_FILE "ncu_raw.csv"
#define SE_PROFILE_JSON SE_PROFILE_DIR "/" SE_PROFILE_JSON_FILE
#define SE_PROFILE_KERNELS_CSV SE_PROFILE_DIR "/" SE_PROFILE_KERNELS_FILE
#define SE_PROFILE_NCU_RAW_CSV SE_PROFILE_DIR "/" SE_PROFILE_NCU_RAW_FILE
/* The manifest, in `sha256sum -c` format (bundle/manifest.h). */
#define SE_MANIFEST_NAME "MANIFEST.sha256"
/* The PyTorch peers (bundle/peers.h). */
#define SE_PEERS_FILE "peers.json"
/* A selected bundle's pointer to its complete archive (bundle/remote.h). */
#define SE_REMOTE_JSON "remote.json"
/* The Ed25519 signature of MANIFEST.sha256 (bundle/sign.h, docs/SIGNING.md):
 * the one file beside the manifest that it does not list, and that writing
 * or verifying the manifest ignores. */
#define SE_MANIFEST_SIG "MANIFEST.sha256.sig"
/* An evidence site's manifest (docs/SITE.md): a folder with it and without
 * a run manifest is a site, not a run (se_is_site_dir of bundle/verify.h). */
#define SE_SITE_MANIFEST "SITE_MANIFEST.sha256"
/* A site's list of the run files it left out (bundle/site_verify.h). */
#define SE_SITE_LEFT_OUT "LEFT_OUT.sha256"

/* The run's folders, as prefixes of its relative paths. */
#define SE_ARRAYS_PREFIX "arrays/"
#define SE_TRACES_PREFIX "traces/"
#define SE_CHECKS_PREFIX "checks/"
#define SE_SOURCE_PREFIX "source/"

/* The "format" field of each JSON file. */
#define SE_RUN_FORMAT "softmax-evidence-run"
#define SE_ENVIRONMENT_FORMAT "softmax-evidence-environment"
#define SE_VALIDATION_FORMAT "softmax-evidence-validation"
#define SE_RESOURCES_FORMAT "softmax-evidence-resources"
#define SE_PROFILE_FORMAT "softmax-evidence-profile"
#define SE_STRATEGIES_FORMAT "softmax-evidence-strategies"

/* Longest id a shape or case can have ("<rows>x<cols>.<what>"), with NUL. */
#define SE_CASE_ID_SIZE 96

/* "4096x4096": the shape id, the run's own RxC. */
void se_shape_id(int64_t rows, int64_t cols, char *buf, size_t size);

/* "4096x4096.fusion": the case id of `what` (a strategy, control or peer
 * name) on a shape. */
void se_case_id_make(int64_t rows, int64_t cols, const char *what, char *buf, size_t size);

/* "control.barriers": the case id of a run-level control. */
void se_control_id(const char *name, char *buf, size_t size);

/* Splits a case id into its shape and what; returns 0 if it is not of the
 * form <rows>x<cols>.<what> with positive decimal rows and cols. */
int se_case_id_parse(const char *id, int64_t *rows, int64_t *cols, char *what, size_t what_size);

/* Per-case files, relative to the run directory. */
void se_path_samples(const char *case_id, char *buf, size_t size);      /* samples/<id>.csv */
void se_path_trace(const char *case_id, char *buf, size_t size);        /* traces/<id>.csv */
void se_path_trace_timed(const char *case_id, int traced, char *buf,
                         size_t size);                                  /* traces/<id>.(un)traced.csv */
void se_path_array_x(int64_t rows, int64_t cols, char *buf, size_t size); /* arrays/<shape>.x.f32 */
void se_path_array_y(const char *case_id, char *buf, size_t size);       /* arrays/<id>.y.f32 */
void se_path_check_x(int64_t rows, int64_t cols, char *buf, size_t size); /* checks/<shape>.x.f32 */
void se_path_check_y(const char *case_id, char *buf, size_t size);       /* checks/<id>.y.f32 */

/* dir + "/" + rel. */
void se_path_join(const char *dir, const char *rel, char *buf, size_t size);

#endif
