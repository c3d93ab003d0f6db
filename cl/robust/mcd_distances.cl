// The full-data C-steps of FAST-MCD (Rousseeuw & Van Driessen 1999, section 3; src/robust/mcd.cpp)
// on the standardised n x p matrix x (row-major). One C-step:
// 1. mcd_distances: d_i = |L^-1 (x_i - mu)|^2, L L' the current h-subset's covariance, linv = L^-1
//    (lower triangular, row-major); one work-item a row, the factor read from the constant cache.
//    The products are summed in column order, so d does not depend on the work-group size.
// 2. The host selects the h-th smallest distance t exactly (clstat::order).
// 3. mcd_sums: per chunk of CH rows, over the rows of the next h-subset (d < t, and the rows with
//    d == t below row tau: ties go to lower rows, as robustbase's order() does), the sums of
//    x - c and of (x - c)(x - c)' (upper triangle) for a shift c (the current mean: the new mean
//    is close to it, so the shifted sums lose nothing to cancellation), #{d < t}, #{d == t}, and
//    how many rows' membership differs from the current subset's mask `cur`; it writes the new
//    mask to `next`. The host adds the chunks in order. Chunks are fixed by CH and each entry is
//    summed by one work-item in row order, so the sums do not depend on the device's work-group
//    count or size. Called with t = a cut-off and tau = n it sums the rows with d <= t (the
//    reweighting step).
// Options: MAXP (mcd_distances: the largest p, 32); for mcd_sums Q = p - 1 (robust_common.clh's
// NE = p columns, NTRI upper-triangle entries), WG, TILE rows staged per step, CH, NACC = ceil(NX / WG).
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

#ifdef Q
#pragma OPENCL FP_CONTRACT OFF
#include "robust_common.clh"

#define NX (NE + NTRI + 3)  // the sums of x - c, of the products, #{d < t}, #{d == t}, #{changed}

__kernel void mcd_sums(__global const double* x, ulong n, __global const double* d, double t, ulong tau,
                       __constant double* shift, __global const uchar* cur, __global uchar* next,
                       __global double* part) {
  __local double tile[TILE * NE];
  __local double wt[TILE], lt[TILE], eq[TILE], ch[TILE];
  const uint l = get_local_id(0);
  ulong begin, end;
  chunk_rows(n, &begin, &end);
  double acc[NACC];
  for (uint a = 0; a < NACC; ++a) acc[a] = 0.0;
  for (ulong t0 = begin; t0 < end; t0 += TILE) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint u = l; u < TILE * NE; u += WG) {
      const uint tr = u / NE, c = u - tr * NE;
      const ulong i = t0 + tr;
      tile[u] = i < end ? x[i * NE + c] - shift[c] : 0.0;
    }
    for (uint tr = l; tr < TILE; tr += WG) {
      const ulong i = t0 + tr;
      double w = 0.0, a = 0.0, b = 0.0, c = 0.0;
      if (i < end) {
        const double di = d[i];
        if (di < t) {
          w = 1.0;
          a = 1.0;
        } else if (di == t) {
          b = 1.0;
          w = i < tau ? 1.0 : 0.0;
        }
        const uchar in = w != 0.0;
        c = in != cur[i] ? 1.0 : 0.0;
        next[i] = in;
      }
      wt[tr] = w;
      lt[tr] = a;
      eq[tr] = b;
      ch[tr] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint a = 0; a < NACC; ++a) {
      const uint e = l + a * WG;
      if (e < NX) {
        double s = acc[a];
        if (e < NE) {
          for (uint tr = 0; tr < TILE; ++tr) s += wt[tr] * tile[tr * NE + e];
        } else if (e < NE + NTRI) {
          uint ra, cb;
          tri_entry(e - NE, &ra, &cb);
          s = tile_products(tile, wt, ra, cb, s);
        } else {
          __local const double* src = e == NE + NTRI ? lt : (e == NE + NTRI + 1 ? eq : ch);
          for (uint tr = 0; tr < TILE; ++tr) s += src[tr];
        }
        acc[a] = s;
      }
    }
  }
  for (uint a = 0; a < NACC; ++a) {
    const uint e = l + a * WG;
    if (e < NX) part[(ulong)get_group_id(0) * NX + e] = acc[a];
  }
}
#endif
