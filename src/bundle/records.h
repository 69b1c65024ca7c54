/*
 * records.h - the writers of a run's records: run.json, environment.json,
 * resources.json and validation.json (docs/BUNDLE.md), each built from a
 * plain struct the run fills, so that the bundle layer alone knows their
 * keys, their order and their number types. The run measures; these say
 * how it is recorded.
 */
#ifndef SE_BUNDLE_RECORDS_H
#define SE_BUNDLE_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "model/tolerance.h"
#include "model/workload.h"

/* run.json's entry of one embedded source file. */
typedef struct se_source_file {
    char path[512];   /* "source/<path>", relative to the run */
    char sha256[65];
    size_t bytes;
} se_source_file;

typedef struct se_run_info {
    const char *run_id, *started_utc, *finished_utc;
    const char *protocol_source;        /* where the protocol came from */
    const char *protocol_source_sha256; /* of that file */
    const char *protocol_copy_sha256;   /* of the bundle's protocol.json */
    int arrays_saved;
    /* Whether run.json records arrays_max_bytes (the runs before it did not),
     * and the --arrays-max-bytes cap: 0 is no cap (every case's arrays,
     * written null); with arrays not saved it is written null too. */
    int record_arrays_max_bytes;
    int64_t arrays_max_bytes;
    const se_source_file *sources;
    size_t n_sources;
    int blocking_kernel;
    /* The task graph the tiled kernels ran (SE_TASKGRAPH_VERSION,
     * model/taskgraph.h); 0 leaves the key out, as the runs before packing
     * wrote run.json. */
    int task_graph;
    int checks_saved; /* checks/ written (bundle/rederive.h): run.json says so; 0 leaves the key out */
} se_run_info;

/* "YYYY-MM-DDTHH:MM:SSZ" (run.json's started_utc and finished_utc) as
 * seconds since 1970-01-01 UTC (proleptic Gregorian). Returns 0, or -1
 * where the text is not of that form. */
int se_utc_seconds(const char *text, int64_t *seconds);

/* run.json: the run's identity and times, the protocol's origin and
 * hashes, whether arrays were saved (and up to which input size), the
 * sources, the interleaving rule, the toy statement and the task graph's
 * version. */
json_t *se_run_json(const se_run_info *r);

/* The task graph's version a run recorded in run.json ("task_graph"): 1
 * where the key is absent (the runs before packing), else an integer from
 * 1 to SE_TASKGRAPH_VERSION; anything else fails naming run.json and the
 * field. */
se_status se_run_task_graph(const json_t *run, int *version, se_err *err);

/* A cooperative kernel's co-residency limit, written to environment.json as
 * gpu.cooperative_max_blocks_<group>, in the order given. */
typedef struct se_coop_limit {
    const char *group;  /* the strategy table's coop_group: "fusion", "megakernel" */
    int max_blocks;
} se_coop_limit;

typedef struct se_environment_info {
    struct {
        const char *name, *uuid;
        int ordinal;
        const char *compute_capability;  /* "9.0" */
        int sm_count;
        int64_t global_memory_bytes;
        int l2_bytes;
        double peak_sm_clock_mhz, peak_memory_clock_mhz;
        int memory_bus_bits;
        const se_coop_limit *coop;
        size_t n_coop;
    } gpu;
    double globaltimer_smallest_step_ns, globaltimer_mean_step_ns;
    struct {
        int driver_version, runtime_version;
        const char *nvcc_version, *cuda_architectures, *cuda_flags, *build_type;
        int64_t cudnn_version, cudnn_compiled_version;
        int curand_version;
    } software;
    struct {
        const char *hostname, *os, *release, *machine;
    } host;
    /* Where the run ran (environment.json's "placement", written only when
     * recorded is set; the runs before it have none): Slurm's job, array
     * job and array task ids (SLURM_JOB_ID, SLURM_ARRAY_JOB_ID,
     * SLURM_ARRAY_TASK_ID as Slurm set them; NULL, written null, where
     * unset), the host name, CUDA_VISIBLE_DEVICES (NULL: unset) and the
     * --device ordinal among the devices it leaves visible. */
    struct {
        int recorded;
        const char *slurm_job_id, *slurm_array_job_id, *slurm_array_task_id;
        const char *hostname, *cuda_visible_devices;
        int device_ordinal;
    } placement;
    struct {
        const char *git_commit, *git_commit_from;
        int git_dirty;  /* 1, 0, or -1: not known (written "unknown") */
        const char *source_dir;
    } source;
    int argc;
    char *const *argv;
} se_environment_info;

/* environment.json. */
json_t *se_environment_json(const se_environment_info *e);

/* resources.json's entry of one kernel, as cudaFuncGetAttributes and the
 * occupancy calculator give it. */
typedef struct se_kernel_resources {
    const char *kernel, *used_by;
    int block_threads, registers;
    int64_t shared_static_bytes, local_bytes, const_bytes;
    int max_threads_per_block, ptx_version, binary_version, max_blocks_per_sm;
} se_kernel_resources;

/* resources.json's entry of one (shape, strategy) launch. */
typedef struct se_launch_resources {
    const char *shape, *strategy, *launch;
    int graph_nodes, cooperative_blocks;
} se_launch_resources;

/* resources.json. */
json_t *se_resources_json(const se_kernel_resources *k, size_t n_kernels,
                          const se_launch_resources *l, size_t n_launches);

/* One (shape, strategy) of validation.json. */
typedef struct se_validation_record {
    const se_shape *shape;
    int64_t tile;
    const char *strategy;
    int blocks;                 /* cooperative grid, 0 for others */
    size_t graph_nodes;
    int invocations;
    const se_compare *vs_ref;   /* against the float64 reference */
    const se_compare *vs_cudnn; /* against cuDNN's output */
    int repeat_identical;
    int matches_tiled;          /* -1: not tiled (written null) */
    const unsigned char *input_sha256, *output_sha256; /* 32 bytes each */
    int pass;
} se_validation_record;

/* validation.json: the tolerances, the invocations and every record. */
json_t *se_validation_json(const se_tolerance *tol, int invocations,
                           const se_validation_record *v, size_t n);

/* Sets a comparison's fields of a validation record (validation.json's
 * and peers.json's): elements, fails, nan, tiny, max_abs_err, max_rel_err. */
void se_compare_json_set(json_t *o, const se_compare *c);

#endif
