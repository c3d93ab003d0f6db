// Squared Mahalanobis distances for the C-steps of FAST-MCD (src/robust/mcd.cpp): row i of the
// row-major n x p matrix x (standardised by the host) gives d_i = |L^-1 (x_i - mu)|^2, where
// L L' is the current h-subset's covariance and linv holds L^-1 (lower triangular, row-major).
// One work-item a row; the p x p factor is read by every work-item, from the constant cache.
// Options: MAXP (the largest p, 32). Rounding: the products are summed in column order, so a
// distance does not depend on the device's work-group size.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#ifndef MAXP
#define MAXP 32
#endif

__kernel void mcd_distances(__global const double* x, ulong n, uint p, __constant double* mu,
                            __constant double* linv, __global double* d) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  double z[MAXP];
  for (uint j = 0; j < p; ++j) z[j] = x[i * p + j] - mu[j];
  double s = 0;
  for (uint r = 0; r < p; ++r) {
    double y = 0;
    for (uint c = 0; c <= r; ++c) y = fma(linv[r * p + c], z[c], y);
    s = fma(y, y, s);
  }
  d[i] = s;
}
