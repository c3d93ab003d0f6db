// The full-data passes of MM-regression (src/robust/mm.cpp): one IRWLS step's weighted normal
// equations and the sums of the M-scale equation, with Tukey's bisquare.
//
// mm_gram: every row's residual r_i = y_i - x_i . beta (kept in r for the scale), its weight
//   w_i = (1 - (r_i / (s c))^2)^2 (0 past |r_i| = s c; psi(u) / u of the bisquare), and each
//   group's partial sums of w x x' (the upper triangle, row-major) and w x y. A group walks its
//   contiguous block of rows in tiles of TILE: the tile's rows and weights go to local memory,
//   then each work-item adds the tile's contributions to its entries of the triangle, in row
//   order. x has the intercept's ones as a column and is standardised by the host.
// mm_rho: each group's sum of rho(r_i / s) (the bisquare rho normalised to 1 at |r / s| >= c).
// The host adds the groups' partials in group order, so a device's result does not depend on
// timing; other devices may group the sums differently (rounding: about 1e-16 relative).
// Options: Q (coefficients, <= 32), WG, TILE.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define NTRI (Q * (Q + 1) / 2)

__kernel void mm_gram(__global const double* x, __global const double* y, ulong n, __constant double* beta,
                      double s, double c, __global double* r, __global double* part) {
  __local double tx[TILE * Q], tw[TILE], ty[TILE];
  const uint l = get_local_id(0), g = get_group_id(0), G = get_num_groups(0);
  const ulong per = (n + G - 1) / G, first = min(n, per * g), last = min(n, first + per);
  double acc[(NTRI + Q + WG - 1) / WG];
  for (uint k = 0; k < (NTRI + Q + WG - 1) / WG; ++k) acc[k] = 0;
  for (ulong t0 = first; t0 < last; t0 += TILE) {
    const uint m = (uint)min((ulong)TILE, last - t0);
    for (uint i = l; i < m; i += WG) {
      const ulong row = t0 + i;
      double f = 0;
      for (uint j = 0; j < Q; ++j) {
        const double v = x[row * Q + j];
        tx[i * Q + j] = v;
        f = fma(v, beta[j], f);
      }
      const double res = y[row] - f;
      r[row] = res;
      const double u = res / (s * c);
      const double v = 1 - u * u;
      tw[i] = fabs(u) < 1 ? v * v : 0;
      ty[i] = y[row];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    // Entry e < NTRI is (a, b) of the triangle, e >= NTRI is (X'Wy)_(e - NTRI).
    for (uint k = 0, e = l; e < NTRI + Q; ++k, e += WG) {
      uint a = 0, b = 0;
      if (e < NTRI) {
        uint rest = e;
        while (rest >= Q - a) {
          rest -= Q - a;
          ++a;
        }
        b = a + rest;
      } else {
        a = e - NTRI;
      }
      double sum = acc[k];
      for (uint i = 0; i < m; ++i) sum = fma(tw[i] * tx[i * Q + a], e < NTRI ? tx[i * Q + b] : ty[i], sum);
      acc[k] = sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint k = 0, e = l; e < NTRI + Q; ++k, e += WG) part[(ulong)g * (NTRI + Q) + e] = acc[k];
}

__kernel void mm_rho(__global const double* r, ulong n, double s, double c, __global double* part) {
  __local double red[WG];
  const uint l = get_local_id(0);
  double sum = 0;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    const double u = r[i] / (s * c);
    const double v = 1 - u * u;
    sum += fabs(u) < 1 ? 1 - v * v * v : 1;
  }
  red[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) red[l] += red[l + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) part[get_group_id(0)] = red[0];
}

// r_i = y_i - x_i . beta.
__kernel void mm_resid(__global const double* x, __global const double* y, ulong n, __constant double* beta,
                       __global double* r) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  double f = 0;
  for (uint j = 0; j < Q; ++j) f = fma(x[i * Q + j], beta[j], f);
  r[i] = y[i] - f;
}
