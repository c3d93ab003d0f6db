// FAST-LTS C-steps on all n rows for KC candidate fits at once, and LMS on long data (issue 7,
// robust regression). One C-step: lts_resid writes every candidate's squared residuals; the
// host selects each candidate's h-th smallest t exactly (clstat::order); lts_gram sums, per chunk
// of CH rows, the Gram matrix of [z y] over the rows with r^2 < t, plus the rows with r^2 == t
// below row tau (the ties, taken by lower row until there are h rows), and the counts and sum
// that give the objective by the tie formula sum_{r^2 < t} r^2 + (h - #{r^2 < t}) t; lts_reduce
// adds the chunks in order. Chunks are fixed by CH, not by the device, and each entry is summed
// by one work-item in row order, so the result does not depend on the device's work-group count
// or size.
//
// Options: Q coefficients, KC candidates, WG, TILE rows staged per step, CH rows per group,
// NACC = ceil(KC NX / WG).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#include "robust_common.clh"

#define NX (NTRI + 3)  // the Gram entries, #{r^2 < t}, #{r^2 == t}, sum_{r^2 < t} r^2

// out[k n + i] = the residual of candidate k at row i, squared when SQUARED != 0.
__kernel void lts_resid(__global const double* z, __global const double* y, ulong n, __global const double* beta,
                        uint squared, __global double* out) {
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    double zi[Q];
    for (uint j = 0; j < Q; ++j) zi[j] = z[i * Q + j];
    const double yi = y[i];
    for (uint k = 0; k < KC; ++k) {
      double r = yi;
      for (uint j = 0; j < Q; ++j) r -= zi[j] * beta[k * Q + j];
      out[k * n + i] = squared ? r * r : r;
    }
  }
}

__kernel void lts_gram(__global const double* z, __global const double* y, ulong n, __global const double* r2,
                       __global const double* thr, __global const ulong* tau, __global double* part) {
  __local double tile[TILE * NE];
  __local double wt[KC * TILE];   // 1 when the row is in candidate k's h-subset
  __local double lt[KC * TILE];   // 1 when r^2 < t
  __local double eq[KC * TILE];   // 1 when r^2 == t
  __local double rv[KC * TILE];   // r^2 when r^2 < t
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
      tile[u] = i < end ? (c < Q ? z[i * Q + c] : y[i]) : 0.0;
    }
    for (uint u = l; u < KC * TILE; u += WG) {
      const uint k = u / TILE, tr = u - k * TILE;
      const ulong i = t0 + tr;
      double w = 0.0, a = 0.0, b = 0.0, v = 0.0;
      if (i < end) {
        const double r = r2[k * n + i], t = thr[k];
        if (r < t) {
          w = 1.0;
          a = 1.0;
          v = r;
        } else if (r == t) {
          b = 1.0;
          w = i < tau[k] ? 1.0 : 0.0;
        }
      }
      wt[u] = w;
      lt[u] = a;
      eq[u] = b;
      rv[u] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint a = 0; a < NACC; ++a) {
      const uint pair = l + a * WG;
      if (pair < KC * NX) {
        const uint k = pair / NX, e = pair - k * NX;
        double s = acc[a];
        if (e < NTRI) {
          uint ra, cb;
          tri_entry(e, &ra, &cb);
          s = tile_products(tile, wt + k * TILE, ra, cb, s);
        } else {
          __local const double* src = e == NTRI ? lt : (e == NTRI + 1 ? eq : rv);
          for (uint tr = 0; tr < TILE; ++tr) s += src[k * TILE + tr];
        }
        acc[a] = s;
      }
    }
  }
  for (uint a = 0; a < NACC; ++a) {
    const uint pair = l + a * WG;
    if (pair < KC * NX) part[(ulong)get_group_id(0) * (KC * NX) + pair] = acc[a];
  }
}

__kernel void lts_reduce(__global const double* part, uint groups, __global double* out) {
  const uint pair = get_global_id(0);
  if (pair >= KC * NX) return;
  double s = 0.0;
  for (uint g = 0; g < groups; ++g) s += part[(ulong)g * (KC * NX) + pair];
  out[pair] = s;
}

// LMS on long data: the width of the shortest window of h sorted residuals, per chunk of CH
// window starts; part_w holds each group's.
__kernel void lms_window(__global const double* sorted, ulong n, ulong h, __global double* part_w) {
  __local double bw[WG];
  const uint l = get_local_id(0);
  const ulong begin = (ulong)get_group_id(0) * CH;
  const ulong last = n - h;  // the last window start
  double w = INFINITY;
  for (ulong s = begin + l; s < begin + CH && s <= last; s += WG) w = fmin(w, sorted[s + h - 1] - sorted[s]);
  w = group_min(bw, w, l);
  if (l == 0) part_w[get_group_id(0)] = w;
}
