/*
 * cluster_xchg.cuh - the pieces of an exchange of partials between the
 * CTAs of a thread-block cluster, as Quack's cluster reduction does it:
 * each warp's partial goes straight into a slot of every peer's shared
 * memory by st.async, completing bytes on the peer's mbarrier; a CTA
 * waits on its own mbarrier, then reads the cluster's partials in one
 * fixed order, so every CTA of the cluster gets the same bits.
 *
 * Used by the softmax's clustered rowblock (rowblock_block.cu) and
 * LayerNorm's (ln_rowblock.cu); each keeps its own slot layout. No block
 * and no cluster barrier per exchange: the one cluster barrier publishes
 * the mbarriers' initialization (se_cl_arrive, then se_cl_ready). Each
 * mbarrier serves one exchange: its phase 0. A CTA writes only to its peers' slots and waits for all its
 * own slots before it goes on, so no CTA's shared memory goes while a
 * peer still writes to it.
 */
#ifndef SE_CLUSTER_XCHG_CUH
#define SE_CLUSTER_XCHG_CUH

static __device__ __forceinline__ unsigned se_smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ unsigned se_cl_size(void)
{
    unsigned n;
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
}

static __device__ __forceinline__ unsigned se_cl_rank(void)
{
    unsigned r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* Thread 0 initializes mbarrier bar (one arrival: its own, with the bytes
 * it expects). */
static __device__ __forceinline__ void se_cl_bar_init1(unsigned long long *bar)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(se_smem_u32(bar)) : "memory");
}

/* Thread 0, after its se_cl_bar_init1 calls: publishes them to the
 * cluster. */
static __device__ __forceinline__ void se_cl_bar_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/* Every thread, after thread 0's se_cl_bar_fence: its relaxed arrival on
 * the cluster barrier that se_cl_ready waits for. */
static __device__ __forceinline__ void se_cl_arrive(void)
{
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}

static __device__ __forceinline__ void se_cl_ready(void)
{
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
}

/* Thread 0: this CTA's mbarrier (shared address bar) expects `bytes`. */
static __device__ __forceinline__ void se_cl_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

/* The shared::cluster address of this CTA's shared address a in CTA rank. */
static __device__ __forceinline__ unsigned se_cl_map(unsigned a, unsigned rank)
{
    unsigned r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank));
    return r;
}

/* Two doubles into a peer's slot (16 bytes, 16-byte aligned). */
static __device__ __forceinline__ void se_cl_send_d2(unsigned rslot, double a, double b,
                                                     unsigned rbar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], {%1, %2}, "
                 "[%3];" ::"r"(rslot),
                 "l"(__double_as_longlong(a)), "l"(__double_as_longlong(b)), "r"(rbar)
                 : "memory");
}

/* Waits until this CTA's mbarrier (shared address bar) completes its
 * phase 0. */
static __device__ __forceinline__ void se_cl_wait(unsigned bar)
{
    unsigned done = 0;
    while (!done)
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(bar)
                     : "memory");
}

#endif
