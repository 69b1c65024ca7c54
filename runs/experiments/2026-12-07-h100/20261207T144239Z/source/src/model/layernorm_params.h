/*
 * layernorm_params.h - LayerNorm's gamma and beta: pure functions of the
 * column, the same on the host (the float64 reference, verify's streamed
 * re-check and CPU re-derivation) and on the device (the kernels), so that
 * no array of them need be saved, generated from a seed or re-derived:
 * every reader computes gamma[c] and beta[c] from c alone.
 *
 *   h = se_ln_hash(c)               (a 32-bit integer mix of c)
 *   gamma[c] = 0.5 + (h & 0xffff) / 65536           in [0.5, 1.5)
 *   beta[c]  = ((h >> 16) - 32768) / 65536          in [-0.5, 0.5)
 *
 * Each value is a multiple of 2^-16 below 2, exact in float32, so the
 * float32 gamma the GPU multiplies by and the float64 gamma of the
 * reference are the same number. Non-uniform per column (no pattern a
 * wrong column index could match): docs/ADDING-A-WORKLOAD.md.
 */
#ifndef SE_LAYERNORM_PARAMS_H
#define SE_LAYERNORM_PARAMS_H

#include <stdint.h>

#ifdef __CUDACC__
#define SE_LN_FN static __host__ __device__ __forceinline__
#else
#define SE_LN_FN static inline
#endif

/* LayerNorm's eps in every protocol of this repository that names it:
 * PyTorch's default for torch.nn.functional.layer_norm (protocol/layernorm.json
 * states it; a protocol may state another). */
#define SE_LN_EPS 1e-5

/* A 32-bit mix of the column (the finalizer of MurmurHash3). */
SE_LN_FN uint32_t se_ln_hash(int64_t col)
{
    uint32_t h = (uint32_t)col ^ (uint32_t)((uint64_t)col >> 32) * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

SE_LN_FN float se_ln_gamma(int64_t col)
{
    return 0.5f + (float)(se_ln_hash(col) & 0xffffu) * (1.0f / 65536.0f);
}

SE_LN_FN float se_ln_beta(int64_t col)
{
    return ((float)(se_ln_hash(col) >> 16) - 32768.0f) * (1.0f / 65536.0f);
}

#endif
