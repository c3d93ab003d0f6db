// Turns raw rows into the rows kde_eval reads, once per sample and per point rather than once per
// pair: u = A x, with A the inverse Cholesky factor of the bandwidth matrix (or diag(1/h_k) for
// the product kernel) times the Gaussian's exp2 scale. A full bandwidth matrix then costs d
// multiply-adds per pair instead of a d x d solve (Andrzejewski et al. 2013, sec. 3.1: whitening
// by H^{-1/2}; any square root of H^{-1} gives the same u'u, so the Cholesky factor does).
//
// Output rows (stride OUT_STRIDE):
//   ROLE 0 (samples): u_1..u_DIM, [DOT: -|u|^2], [WEIGHTED: w], then zeros up to SSTRIDE (kde_eval's
//                     VEC rows are padded to a whole number of 16-byte vectors)
//   ROLE 1 (points):  u_1..u_DIM (DOT: 2 u_1..2 u_DIM, -|u|^2)
// With DOT the Gaussian exponent of a pair is y'x + a + b = -|u_y - u_x|^2 (the expanded square),
// which costs one multiply-add per dimension instead of a subtract and a multiply-add.
// Rows n..n_pad-1 are padding whose every term is exactly zero (see kde_shapes.clh).
#include "kde_shapes.clh"

#ifndef DOT
#define DOT 0
#endif
#ifndef WEIGHTED
#define WEIGHTED 0
#endif
#if ROLE == 0
#ifndef SSTRIDE
#define SSTRIDE (DIM + DOT + WEIGHTED)
#endif
#define OUT_STRIDE SSTRIDE
#else
#define OUT_STRIDE (DIM + DOT)
#endif

__kernel void kde_prepare(__global const real* in, uint n, uint n_pad, __global const real* A,
                          __global const real* w, __global real* out) {
  const uint i = get_global_id(0);
  if (i >= n_pad) return;
  __global real* o = out + (ulong)i * OUT_STRIDE;
#if ROLE == 0
  for (uint k = DIM + DOT + WEIGHTED; k < OUT_STRIDE; ++k) o[k] = RC(0.0);
#endif
  if (i >= n) {
    for (uint k = 0; k < DIM; ++k) o[k] = DOT ? RC(0.0) : (real)INFINITY;
#if DOT
    o[DIM] = -(real)INFINITY;
#endif
#if WEIGHTED && ROLE == 0
    o[DIM + DOT] = RC(0.0);
#endif
    return;
  }
  __global const real* x = in + (ulong)i * DIM;
  acc_t q = 0;
  for (uint k = 0; k < DIM; ++k) {
    // A is lower triangular (row-major), so u_k needs x_0..x_k only.
    acc_t u = 0;
    for (uint l = 0; l <= k; ++l) u += (acc_t)A[k * DIM + l] * (acc_t)x[l];
    q += u * u;
    o[k] = (ROLE == 1 && DOT) ? (real)(2 * u) : (real)u;
  }
#if DOT
  o[DIM] = (real)(-q);
#endif
#if WEIGHTED && ROLE == 0
  o[DIM + DOT] = w[i];
#endif
}
