/*
 * run_config.h - what a GPU run takes besides its protocol: the device, the
 * cooperative grid, where to write, what to save, the peers. The command
 * line fills it (tool/); the run layer never sees the command line.
 */
#ifndef SE_RUN_CONFIG_H
#define SE_RUN_CONFIG_H

#include <stdint.h>

typedef struct se_run_config {
    int64_t blocks;             /* grid of the cooperative kernels; 0 = automatic */
    int device;                 /* CUDA device ordinal */
    int invocations;            /* invocations validated per (strategy, shape) */
    int quiet;                  /* no progress on stderr */
    const char *runs_dir;       /* where run directories are made */
    int save_arrays;            /* save inputs and outputs */
    int64_t arrays_max_bytes;   /* save only cases whose input is at most this large (0: no limit) */
    int no_blocking_kernel;     /* for runs under compute-sanitizer */
    int no_peers;               /* do not measure the PyTorch peers */
    const char *peers_script;   /* NULL for the source tree's bench/peers.py */
    const char *peers_python;   /* NULL for python3 */
} se_run_config;

#endif
