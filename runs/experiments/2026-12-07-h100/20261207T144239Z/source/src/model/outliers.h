/*
 * outliers.h - where the input's outliers go and how large they are: one
 * definition for the GPU kernel that plants them and for the CPU tests that
 * prove a wrong kernel cannot pass on such inputs.
 *
 * Every row gets SE_OUTLIERS values at hashed positions: two large positive
 * (the max must come from them) and two larger negative (so max |x| is not
 * the max, and they weigh on the RMS). Row 1 gets a spike instead of its
 * first positive outlier: 256 times the scale. Its scaled value s*x exceeds
 * 88, where expf overflows in fp32, on every row long enough for that to be
 * possible at all (s*x <= sqrt(C), so C > 7744), so a kernel that does not
 * subtract the max overflows there. Every other row has none, so one-row
 * shapes and the rows around the spike row are spread out softmaxes whose
 * outputs are checked against the relative tolerance, not only atol (a
 * spike row is nearly one-hot: docs/INPUTS.md).
 */
#ifndef SE_OUTLIERS_H
#define SE_OUTLIERS_H

#include <stdint.h>

#if defined(__CUDACC__)
#define SE_OUT_HD static inline __host__ __device__
#else
#define SE_OUT_HD static inline
#endif

#define SE_OUTLIERS 4

/* splitmix64 */
SE_OUT_HD uint64_t se_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Column of outlier k of row `row`. */
SE_OUT_HD int64_t se_outlier_col(uint64_t seed, int64_t row, int k, int64_t cols)
{
    uint64_t h = se_mix64(seed ^ se_mix64((uint64_t)row * SE_OUTLIERS + (uint64_t)k));
    return (int64_t)(h % (uint64_t)cols);
}

/* Value of outlier k of row `row`, in units of the input's scale. Written
 * in order k = 0..3; a later one wins where positions collide. */
SE_OUT_HD float se_outlier_factor(int64_t row, int k)
{
    switch (k) {
    case 0: return row == 1 ? 256.0f : 14.0f;
    case 1: return 9.0f;
    case 2: return -18.0f;
    default: return -11.0f;
    }
}

#endif
