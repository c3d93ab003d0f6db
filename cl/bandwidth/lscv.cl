// Device kernels of the LSCV bandwidth selectors (Andrzejewski et al. 2013, sec. 5.1-6.3), fp64.
//
// LSCV(H) needs, over the pairs i < j, S4 = sum exp(-q_ij / 4) and S2 = sum exp(-q_ij / 2) with
// q_ij = (X_i - X_j)' H^-1 (X_i - X_j) (see clstat/bandwidth.hpp). After whitening, q_ij is a
// squared Euclidean distance.
//   lscv_whiten     z = A x per point (A lower triangular, H^-1 = A'A), dimension-major in and out.
//   lscv_distances  D_ij = |z_i - z_j|^2 for the rows [row0, row0 + rows), packed row by row over
//                   j > i; computed once and reused by every h (the paper's sec. 5.1: LSCV_h's
//                   q_ij(h) = D_ij / h^2 only rescales).
//   lscv_grid       for KB scale factors c_k per work-group row: sums of e = exp(-c_k D) and of
//                   e^2 = exp(-2 c_k D) over a fixed slice of D per work-group, so both LSCV sums
//                   cost one exp. Partials land at partial[(2k + w) G + g].
//   lscv_finish     adds the G partials of each sum in group order (out += ... with accumulate).
// Rounding depends on the number of pairs, G and WG only (the host fixes G from the pair count).
// Options: DIM, WG, KB.
#include "real.clh"

__kernel void lscv_whiten(__global const real* x, uint n, __global const real* A, __global real* z) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  real xi[DIM];
  for (uint k = 0; k < DIM; ++k) xi[k] = x[(ulong)k * n + i];
  for (uint k = 0; k < DIM; ++k) {
    real u = RC(0.0);
    for (uint l = 0; l <= k; ++l) u = fma(A[k * DIM + l], xi[l], u);
    z[(ulong)k * n + i] = u;
  }
}

__kernel void lscv_distances(__global const real* z, uint n, ulong row0, uint rows, ulong base,
                             __global real* D) {
  const uint j = get_global_id(0);
  const uint r = get_global_id(1);
  const ulong i = row0 + r;
  if (r >= rows || j <= i || j >= n) return;
  real q = RC(0.0);
  for (uint k = 0; k < DIM; ++k) {
    const real t = z[(ulong)k * n + i] - z[(ulong)k * n + j];
    q = fma(t, t, q);
  }
  // Row i starts at i n - i (i + 1) / 2 in the packed upper triangle.
  D[i * n - i * (i + 1) / 2 + (j - i - 1) - base] = q;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void lscv_grid(__global const real* D, ulong P, __global const real* c, uint nh, uint G,
               __global real* partial) {
  const uint l = get_local_id(0), g = get_group_id(0), k0 = get_group_id(1) * KB;
  real ck[KB], a4[KB], a2[KB];
  for (uint b = 0; b < KB; ++b) {
    ck[b] = k0 + b < nh ? -c[k0 + b] : RC(0.0);
    a4[b] = RC(0.0);
    a2[b] = RC(0.0);
  }
  for (ulong p = (ulong)g * WG + l; p < P; p += (ulong)G * WG) {
    const real v = D[p];
#pragma unroll
    for (uint b = 0; b < KB; ++b) {
      const real e = exp(ck[b] * v);
      a4[b] += e;
      a2[b] = fma(e, e, a2[b]);
    }
  }
  __local real s[WG];
  for (uint b = 0; b < KB; ++b)
    for (uint w = 0; w < 2; ++w) {
      barrier(CLK_LOCAL_MEM_FENCE);
      s[l] = w ? a2[b] : a4[b];
      for (uint h = WG / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < h) s[l] += s[l + h];
      }
      if (l == 0 && k0 + b < nh) partial[(2 * (k0 + b) + w) * (ulong)G + g] = s[0];
    }
}

__kernel void lscv_finish(__global const real* partial, uint G, uint count, __global real* out, uint accumulate) {
  const uint i = get_global_id(0);
  if (i >= count) return;
  real s = RC(0.0);
  for (uint g = 0; g < G; ++g) s += partial[(ulong)i * G + g];
  out[i] = accumulate ? out[i] + s : s;
}
