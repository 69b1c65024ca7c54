/*
 * ln_phases.cu - LayerNorm forward's stream and graph strategies (and,
 * launched with programmatic dependent launch, stream-pdl and graph-pdl):
 * one ordinary kernel launch per phase, A, B, C (ln_ops.cuh), as
 * phases.cu does for the softmax's five.
 *
 * Tile phases (A, C) run one block per tile; the row phase B one warp per
 * group of one row, one block per packed group. Each kernel first lets its
 * dependents launch and waits for the grid before it (griddepcontrol,
 * no-ops when launched without the attribute), as phases.cu's do, so the
 * four strategies run the same code with the same arithmetic.
 */
#include "gpu/ln_ops.cuh"

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

/* Programmatic dependent launch (sm_90 and newer; no-ops before). */
static __device__ __forceinline__ void se_ln_pdl_begin(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

static __device__ __forceinline__ int64_t se_ln_id(const se_gpu_problem *p, int phase,
                                                   int64_t grp, int64_t tile)
{
    se_taskgeom g = se_ln_geom(p);
    return se_task_id(&g, phase, grp, tile);
}

static __device__ __forceinline__ void se_ln_phase_a(const se_gpu_problem *p, int tg)
{
    __shared__ double red[2 * SE_TILE_WARPS];
    int64_t id = blockIdx.x;
    int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    se_ln_tile_a(p, grp, tile, red, SE_NO_CACHE, tg);
    if (p->trace.rec)
        se_trace_tile_end(&p->trace, se_ln_id(p, SE_PHASE_A, grp, tile), t0);
}

/* Phase B: a warp per group of one row (SE_TILE_WARPS a block), a block
 * per packed group. */
static __device__ __forceinline__ void se_ln_phase_b(const se_gpu_problem *p, int tg)
{
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    if (tg == SE_TG_PACKED) {
        se_ln_packed_row_task(p, blockIdx.x);
        if (p->trace.rec)
            se_trace_tile_end(&p->trace, se_ln_id(p, SE_PHASE_B, blockIdx.x, 0), t0);
        return;
    }
    int64_t grp = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    if (grp < p->groups) {
        se_ln_row_b(p, grp);
        if (p->trace.rec && (threadIdx.x & 31) == 0)
            se_trace_record(&p->trace, se_ln_id(p, SE_PHASE_B, grp, 0), t0);
    }
}

static __device__ __forceinline__ void se_ln_phase_c(const se_gpu_problem *p, int tg)
{
    int64_t id = blockIdx.x;
    int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    se_ln_tile_c(p, grp, tile, SE_NO_CACHE, tg);
    if (p->trace.rec)
        se_trace_tile_end(&p->trace, se_ln_id(p, SE_PHASE_C, grp, tile), t0);
}

#define SE_LN_PHASE_KERNELS(x)                                                                  \
    __global__ void __launch_bounds__(SE_TILE_THREADS)                                          \
        se_k_ln_phase_##x(const __grid_constant__ se_gpu_problem p)                             \
    {                                                                                           \
        se_ln_pdl_begin();                                                                      \
        se_ln_phase_##x(&p, SE_TG_ROWS);                                                        \
    }                                                                                           \
    __global__ void __launch_bounds__(SE_TILE_THREADS)                                          \
        se_k_ln_phase_##x##_packed(const __grid_constant__ se_gpu_problem p)                    \
    {                                                                                           \
        se_ln_pdl_begin();                                                                      \
        se_ln_phase_##x(&p, SE_TG_PACKED);                                                      \
    }

SE_LN_PHASE_KERNELS(a)
SE_LN_PHASE_KERNELS(b)
SE_LN_PHASE_KERNELS(c)

typedef struct se_ln_phase_kernel {
    void (*kernel)(se_gpu_problem);
    const char *name;
    int per_row;
} se_ln_phase_kernel;

static const se_ln_phase_kernel se_ln_phase_kernels[2][SE_LN_PHASES] = {
    {{se_k_ln_phase_a, "se_k_ln_phase_a", 0},
     {se_k_ln_phase_b, "se_k_ln_phase_b", 1},
     {se_k_ln_phase_c, "se_k_ln_phase_c", 0}},
    {{se_k_ln_phase_a_packed, "se_k_ln_phase_a_packed", 0},
     {se_k_ln_phase_b_packed, "se_k_ln_phase_b_packed", 1},
     {se_k_ln_phase_c_packed, "se_k_ln_phase_c_packed", 0}},
};

extern "C" se_status se_gpu_ln_phases_enqueue(const se_gpu_problem *p, int pdl,
                                              cudaStream_t stream, se_err *err)
{
    /* tile_tasks <= SE_MAX_TASKS < 2^31 - 1 (se_case_check) */
    unsigned tiles = (unsigned)p->tile_tasks;
    unsigned row_blocks = (unsigned)(p->group > 1 ? p->groups
                                                  : (p->groups + SE_TILE_WARPS - 1) / SE_TILE_WARPS);
    const se_ln_phase_kernel *phase = se_ln_phase_kernels[se_tg_of(p)];
    for (int i = 0; i < SE_LN_PHASES; i++) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr[1];
        cfg.gridDim = dim3(phase[i].per_row ? row_blocks : tiles);
        cfg.blockDim = dim3(SE_TILE_THREADS);
        cfg.stream = stream;
        /* A waits for whatever precedes it in full; B and C overlap the
         * end of the phase before them where pdl is set. */
        if (pdl && i > 0) {
            attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[0].val.programmaticStreamSerializationAllowed = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
        }
        cudaError_t e = cudaLaunchKernelEx(&cfg, phase[i].kernel, *p);
        if (e != cudaSuccess)
            return se_fail(err, SE_ERR_CUDA, "launch of %s%s failed: %s (%s)", phase[i].name,
                           pdl && i > 0 ? " with programmatic dependent launch" : "",
                           cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return SE_OK;
}
