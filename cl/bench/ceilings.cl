// Micro-kernels that measure a device's own ceilings for clstat-bench: copy bandwidth, FMA rate
// and exp rate. Each arithmetic kernel runs ITERS dependent steps on 4 independent chains per
// work-item, so latency is hidden by other work-items and the unit's throughput is what shows.
#include "real.clh"
#ifndef ITERS
#define ITERS 256
#endif

// One 16-byte vector per work-item and no loop: the simplest copy that reaches DRAM bandwidth.
__kernel void copy_real4(__global const float4* restrict src, __global float4* restrict dst) {
  const size_t i = get_global_id(0);
  dst[i] = src[i];
}

// Sixteen 16-byte vectors per work-item, a grid-stride apart (adjacent work-items read adjacent
// vectors, on a GPU and in PoCL's work-group loops alike), summed; the sum is written only if it
// is impossible (the buffer holds ones), so nothing but reads reaches memory and no read can be
// dropped.
__kernel void read_real4(__global const float4* restrict src, __global float4* restrict dst) {
  const size_t i = get_global_id(0), G = get_global_size(0);
  float4 s = src[i];
#pragma unroll
  for (int k = 1; k < 16; ++k) s += src[i + k * G];
  if (s.x < 0.0f) dst[i] = s;
}

// 4 chains x ITERS x 2 FMA (flops = 16 * ITERS per work-item).
__kernel void fma_rate(__global real* out, real a, real b) {
  real x0 = (real)get_global_id(0), x1 = x0 + RC(1.0), x2 = x0 + RC(2.0), x3 = x0 + RC(3.0);
  for (int i = 0; i < ITERS; ++i) {
    x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);
    x0 = fma(x0, b, a); x1 = fma(x1, b, a); x2 = fma(x2, b, a); x3 = fma(x3, b, a);
  }
  out[get_global_id(0)] = x0 + x1 + x2 + x3;
}

// 4 chains x ITERS exponentials (EXP_FN: exp or native_exp2), kept in range by the negation.
__kernel void exp_rate(__global real* out, real a) {
  real x0 = (real)(get_global_id(0) & 7) * RC(0.01), x1 = x0 + RC(0.1), x2 = x0 + RC(0.2), x3 = x0 + RC(0.3);
  for (int i = 0; i < ITERS; ++i) {
    x0 = EXP_FN(-x0 * a); x1 = EXP_FN(-x1 * a); x2 = EXP_FN(-x2 * a); x3 = EXP_FN(-x3 * a);
  }
  out[get_global_id(0)] = x0 + x1 + x2 + x3;
}

// The same on vectors of 16 floats or 8 doubles a work-item: a CPU compiler such as PoCL's makes
// SIMD code only of explicit vectors here (the loop above stays scalar per work-item), so on a
// CPU this kernel, not the scalar one, shows what the vector units can do (the KDE's simd
// variant reached 26 G exp2/s on 16 cores where the scalar kernel and the host loop gave 26).
#ifdef REAL_DOUBLE
typedef double8 realv;
#define EXP_VW 8
#else
typedef float16 realv;
#define EXP_VW 16
#endif
__kernel void exp_rate_vec(__global real* out, real a) {
  // Eight chains, twice the scalar kernel's: a vector exp's latency is longer than its issue.
  const realv x = (realv)((real)(get_global_id(0) & 7) * RC(0.01));
  realv x0 = x, x1 = x + RC(0.1), x2 = x + RC(0.2), x3 = x + RC(0.3), x4 = x + RC(0.4), x5 = x + RC(0.5),
        x6 = x + RC(0.6), x7 = x + RC(0.7);
  for (int i = 0; i < ITERS / 2; ++i) {
    x0 = EXP_FN(-x0 * a); x1 = EXP_FN(-x1 * a); x2 = EXP_FN(-x2 * a); x3 = EXP_FN(-x3 * a);
    x4 = EXP_FN(-x4 * a); x5 = EXP_FN(-x5 * a); x6 = EXP_FN(-x6 * a); x7 = EXP_FN(-x7 * a);
  }
  const realv s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
  real t = RC(0.0);
  for (int k = 0; k < EXP_VW; ++k) t += ((const real*)&s)[k];
  out[get_global_id(0)] = t;
}
