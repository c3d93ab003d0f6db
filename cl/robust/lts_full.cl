// FAST-LTS C-steps on all n rows for KC candidate fits at once, and LMS on long data (issue 7,
// robust regression). One C-step: lts_resid writes every candidate's squared residuals; each
// candidate's h-th smallest t is found exactly, in a bracket around the last step's (lts_bracket)
// or, without one or when it misses, by clstat::order's selection; lts_gram sums, per chunk
// of CH rows, the Gram matrix of [z y] over the rows with r^2 < t, plus the rows with r^2 == t
// below row tau (the ties, taken by lower row until there are h rows), and the counts and sum
// that give the objective by the tie formula sum_{r^2 < t} r^2 + (h - #{r^2 < t}) t; lts_reduce
// adds the chunks in order. Chunks are fixed by CH, not by the device, and each entry is summed
// by one work-item in row order, so the result does not depend on the device's work-group count
// or size.
//
// Options: Q coefficients, KC candidates, WG, TILE rows staged per step, CH rows per group,
// NACC = ceil(NX / WG).
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

// The h-th smallest squared residual near the last C-step's: for each fit k with lo[k] <= hi[k],
// the values below lo[k] and inside [lo[k], hi[k]] are counted into cnt[2 k] and cnt[2 k + 1],
// and those inside copied to cand + k cap (the first cap of them, in no fixed order; the rest are
// counted, not copied). The host ranks the copies when the target is inside (exact: the count
// below says which copy it is) and selects on all rows when it is not. One global atomic per
// copied value (a bracket holds about a thousand) and one per group and fit for the count below.
// Counts are uint: the host brackets only below 2^32 rows. cnt starts at zero.
__kernel void lts_bracket(__global const double* r2, ulong n, __global const double* lo, __global const double* hi,
                          __global uint* cnt, __global double* cand, uint cap) {
  __local uint lb[KC];
  const uint l = get_local_id(0);
  for (uint k = l; k < KC; k += get_local_size(0)) lb[k] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < KC; ++k) {
    const double a = lo[k], b = hi[k];
    if (!(a <= b)) continue;  // the same for every work-item: no bracket for this fit
    __global const double* rk = r2 + k * n;
    uint below = 0;
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
      const double v = rk[i];
      below += v < a;
      if (v >= a && v <= b) {
        const uint at = atomic_inc(&cnt[2 * k + 1]);
        if (at < cap) cand[(ulong)k * cap + at] = v;
      }
    }
    if (below) atomic_add(&lb[k], below);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = l; k < KC; k += get_local_size(0))
    if (lb[k]) atomic_add(&cnt[2 * k], lb[k]);
}

// A work-item owns Gram entries e = l, l + WG, ... (NACC of them) for every candidate, so the two
// staged values of an entry are read once per row for all KC candidates, and which rows count
// for which candidate comes as one bit mask per row. (The first form, a work-item per candidate
// and entry, read three local values per entry, row and candidate, and was bound by local memory
// at a tenth of the H100's fp64 rate.) Each sum still runs over its chunk's rows in order, adding
// w (z_a z_b) as a select of z_a z_b or 0.
__kernel void lts_gram(__global const double* z, __global const double* y, ulong n, __global const double* r2,
                       __global const double* thr, __global const ulong* tau, __global double* part) {
  __local double tile[TILE * NE];
  __local uint wm[TILE];          // bit k: the row is in candidate k's h-subset
  __local uint ltm[TILE];         // bit k: r^2 < t_k
  __local uint eqm[TILE];         // bit k: r^2 == t_k
  __local double rv[KC * TILE];   // r^2 when r^2 < t, else 0
  const uint l = get_local_id(0);
  ulong begin, end;
  chunk_rows(n, &begin, &end);
  double acc[NACC * KC];
  for (uint a = 0; a < NACC * KC; ++a) acc[a] = 0.0;
  for (ulong t0 = begin; t0 < end; t0 += TILE) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint u = l; u < TILE * NE; u += WG) {
      const uint tr = u / NE, c = u - tr * NE;
      const ulong i = t0 + tr;
      tile[u] = i < end ? (c < Q ? z[i * Q + c] : y[i]) : 0.0;
    }
    for (uint tr = l; tr < TILE; tr += WG) {
      const ulong i = t0 + tr;
      uint w = 0, a = 0, b = 0;
      for (uint k = 0; k < KC; ++k) {
        double v = 0.0;
        if (i < end) {
          const double r = r2[k * n + i], t = thr[k];
          if (r < t) {
            w |= 1u << k;
            a |= 1u << k;
            v = r;
          } else if (r == t) {
            b |= 1u << k;
            if (i < tau[k]) w |= 1u << k;
          }
        }
        rv[k * TILE + tr] = v;
      }
      wm[tr] = w;
      ltm[tr] = a;
      eqm[tr] = b;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint a = 0; a < NACC; ++a) {
      const uint e = l + a * WG;
      if (e < NTRI) {
        uint ra, cb;
        tri_entry(e, &ra, &cb);
        for (uint tr = 0; tr < TILE; ++tr) {
          const double pr = tile[tr * NE + ra] * tile[tr * NE + cb];
          const uint m = wm[tr];
#pragma unroll
          for (uint k = 0; k < KC; ++k) acc[a * KC + k] += (m >> k) & 1u ? pr : 0.0;
        }
      } else if (e < NTRI + 2) {
        __local const uint* src = e == NTRI ? ltm : eqm;
        for (uint tr = 0; tr < TILE; ++tr) {
          const uint m = src[tr];
#pragma unroll
          for (uint k = 0; k < KC; ++k) acc[a * KC + k] += (m >> k) & 1u ? 1.0 : 0.0;
        }
      } else if (e == NTRI + 2) {
        for (uint tr = 0; tr < TILE; ++tr) {
#pragma unroll
          for (uint k = 0; k < KC; ++k) acc[a * KC + k] += rv[k * TILE + tr];
        }
      }
    }
  }
  for (uint a = 0; a < NACC; ++a) {
    const uint e = l + a * WG;
    if (e < NX)
      for (uint k = 0; k < KC; ++k) part[(ulong)get_group_id(0) * (KC * NX) + k * NX + e] = acc[a * KC + k];
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
