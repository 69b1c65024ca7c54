/*
 * phases.cu - the stream strategy (and, captured, the graph strategy): one
 * ordinary kernel launch per phase, A, B, C, D, E. No phase is folded into
 * another, so the baseline pays one launch and one kernel boundary per
 * phase, which is what graphs, fusion and the megakernel try to save.
 *
 * Tile phases (A, C, E) run one block per tile; row phases (B, D) one warp
 * per group of one row, one block per packed group (taskgraph.h). Stream
 * order is the only synchronization between phases.
 *
 * The same kernels serve stream-pdl and graph-pdl (programmatic dependent
 * launch, docs/STRATEGIES.md): B..E are then launched with programmatic
 * stream serialization, so each may be scheduled while the phase before it
 * drains. Every kernel first lets its dependents launch
 * (griddepcontrol.launch_dependents: that only lets the next grid be
 * scheduled, it publishes nothing), then waits (griddepcontrol.wait: until
 * the previous grid has completed and its writes are visible) before it
 * reads or writes anything in global memory and before its trace clock
 * starts. Launched without the attribute, both instructions are no-ops, so
 * stream and graph run the same code with the same arithmetic.
 */
#include "gpu/tile_ops.cuh"

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

/* Programmatic dependent launch (sm_90 and newer; no-ops before). */
static __device__ __forceinline__ void se_pdl_begin(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* Traced runs: the task id of a tile or row task of this problem. */
static __device__ __forceinline__ int64_t se_id(const se_gpu_problem *p, int phase, int64_t grp,
                                                int64_t tile)
{
    se_taskgeom g = se_gpu_geom(p);
    return se_task_id(&g, phase, grp, tile);
}

/* The phases' bodies; tg: the row groups the kernel is compiled for. */
static __device__ __forceinline__ void se_phase_a(const se_gpu_problem *p, int tg)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    int64_t id = blockIdx.x;
    int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    se_tile_a(p, grp, tile, red, SE_NO_CACHE, tg);
    if (p->trace.rec)
        se_trace_tile_end(&p->trace, se_id(p, SE_PHASE_A, grp, tile), t0);
}

/* Phases B and D: a warp per group where a group is a row split over
 * tiles (SE_TILE_WARPS groups a block), a block per group where rows are
 * packed (se_row_blocks). */
static __device__ __forceinline__ void se_phase_row(const se_gpu_problem *p, int phase, int tg)
{
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    if (tg == SE_TG_PACKED) {
        se_packed_row_task(p, blockIdx.x, phase);
        if (p->trace.rec)
            se_trace_tile_end(&p->trace, se_id(p, phase, blockIdx.x, 0), t0);
        return;
    }
    int64_t grp = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    if (grp < p->groups) {
        if (phase == SE_PHASE_B)
            se_row_b(p, grp);
        else
            se_row_d(p, grp);
        if (p->trace.rec && (threadIdx.x & 31) == 0)
            se_trace_record(&p->trace, se_id(p, phase, grp, 0), t0);
    }
}

static __device__ __forceinline__ void se_phase_b(const se_gpu_problem *p, int tg)
{
    se_phase_row(p, SE_PHASE_B, tg);
}

static __device__ __forceinline__ void se_phase_c(const se_gpu_problem *p, int tg)
{
    __shared__ float red[2 * SE_TILE_WARPS];
    int64_t id = blockIdx.x;
    int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    se_tile_c(p, grp, tile, red, SE_NO_CACHE, se_group_sm(p, grp), tg);
    if (p->trace.rec)
        se_trace_tile_end(&p->trace, se_id(p, SE_PHASE_C, grp, tile), t0);
}

static __device__ __forceinline__ void se_phase_d(const se_gpu_problem *p, int tg)
{
    se_phase_row(p, SE_PHASE_D, tg);
}

static __device__ __forceinline__ void se_phase_e(const se_gpu_problem *p, int tg)
{
    int64_t id = blockIdx.x;
    int64_t grp = se_task_grp(p, id), tile = se_task_tile(p, id);
    uint64_t t0 = p->trace.rec ? se_now_ns() : 0;
    se_tile_e(p, grp, tile, SE_NO_CACHE, se_group_sml(p, grp), tg);
    if (p->trace.rec)
        se_trace_tile_end(&p->trace, se_id(p, SE_PHASE_E, grp, tile), t0);
}

/* Each phase's two kernels: se_k_phase_X for groups of one row,
 * se_k_phase_X_packed for packed rows (SE_TG_ROWS, SE_TG_PACKED). */
#define SE_PHASE_KERNELS(x)                                                                     \
    __global__ void __launch_bounds__(SE_TILE_THREADS)                                          \
        se_k_phase_##x(const __grid_constant__ se_gpu_problem p)                                \
    {                                                                                           \
        se_pdl_begin();                                                                         \
        se_phase_##x(&p, SE_TG_ROWS);                                                           \
    }                                                                                           \
    __global__ void __launch_bounds__(SE_TILE_THREADS)                                          \
        se_k_phase_##x##_packed(const __grid_constant__ se_gpu_problem p)                       \
    {                                                                                           \
        se_pdl_begin();                                                                         \
        se_phase_##x(&p, SE_TG_PACKED);                                                         \
    }

SE_PHASE_KERNELS(a)
SE_PHASE_KERNELS(b)
SE_PHASE_KERNELS(c)
SE_PHASE_KERNELS(d)
SE_PHASE_KERNELS(e)

/* The five phases' kernels, in order, for row groups tg; per_row: B and D,
 * launched with se_row_blocks blocks (the others a block a tile). */
typedef struct se_phase_kernel {
    void (*kernel)(se_gpu_problem);
    const char *name;
    int per_row;
} se_phase_kernel;

static const se_phase_kernel se_phase_kernels[2][SE_NPHASES] = {
    {{se_k_phase_a, "se_k_phase_a", 0},
     {se_k_phase_b, "se_k_phase_b", 1},
     {se_k_phase_c, "se_k_phase_c", 0},
     {se_k_phase_d, "se_k_phase_d", 1},
     {se_k_phase_e, "se_k_phase_e", 0}},
    {{se_k_phase_a_packed, "se_k_phase_a_packed", 0},
     {se_k_phase_b_packed, "se_k_phase_b_packed", 1},
     {se_k_phase_c_packed, "se_k_phase_c_packed", 0},
     {se_k_phase_d_packed, "se_k_phase_d_packed", 1},
     {se_k_phase_e_packed, "se_k_phase_e_packed", 0}},
};

/* Blocks of the B and D launches (se_phase_row). */
static unsigned se_row_blocks(const se_gpu_problem *p)
{
    return (unsigned)(p->group > 1 ? p->groups : (p->groups + SE_TILE_WARPS - 1) / SE_TILE_WARPS);
}

/* Launches one phase kernel; with pdl, programmatic stream serialization
 * lets it be scheduled before the kernel ahead of it on the stream ends. */
static cudaError_t launch_phase(void (*kernel)(se_gpu_problem), unsigned blocks, int pdl,
                                const se_gpu_problem *p, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(SE_TILE_THREADS);
    cfg.stream = stream;
    if (pdl) {
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = attr;
        cfg.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&cfg, kernel, *p);
}

extern "C" se_status se_gpu_phases_pdl_enqueue(const se_gpu_problem *p, cudaStream_t stream,
                                               se_err *err)
{
    unsigned tiles = (unsigned)p->tile_tasks;
    unsigned row_blocks = se_row_blocks(p);
    const se_phase_kernel *phase = se_phase_kernels[se_tg_of(p)];
    /* A waits for whatever precedes the invocation in full (no attribute);
     * B..E overlap the end of the phase before them. */
    for (int i = 0; i < SE_NPHASES; i++) {
        cudaError_t e = launch_phase(phase[i].kernel, phase[i].per_row ? row_blocks : tiles, i > 0,
                                     p, stream);
        if (e != cudaSuccess)
            return se_fail(err, SE_ERR_CUDA, "launch of %s with programmatic dependent launch "
                           "failed: %s (%s)", phase[i].name, cudaGetErrorString(e),
                           cudaGetErrorName(e));
    }
    return SE_OK;
}

extern "C" se_status se_gpu_phases_enqueue(const se_gpu_problem *p, cudaStream_t stream,
                                           se_err *err)
{
    /* tile_tasks <= SE_MAX_TASKS < 2^31 - 1, the grid's x limit (checked by
     * se_case_check before any GPU work). */
    unsigned tiles = (unsigned)p->tile_tasks;
    unsigned row_blocks = se_row_blocks(p);
    const se_phase_kernel *phase = se_phase_kernels[se_tg_of(p)];
    for (int i = 0; i < SE_NPHASES; i++) {
        phase[i].kernel<<<phase[i].per_row ? row_blocks : tiles, SE_TILE_THREADS, 0, stream>>>(*p);
        SE_CUDA_LAUNCHED(phase[i].name);
    }
    return SE_OK;
}
