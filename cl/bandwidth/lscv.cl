// Device kernels of the LSCV bandwidth selectors (Andrzejewski et al. 2013, sec. 5.1-6.3), fp64.
//
// LSCV(H) needs, over the pairs i < j, S4 = sum exp(-q_ij / 4) and S2 = sum exp(-q_ij / 2) with
// q_ij = (X_i - X_j)' H^-1 (X_i - X_j) (see clstat/bandwidth.hpp). After whitening, q_ij is a
// squared Euclidean distance.
//   lscv_rows       per point, z = A x (A lower triangular, H^-1 = A'A) as the row
//                   [z / sqrt 2, -|z|^2 / 4, 0 ...] of stride RS that pair_sums.cl's LSCV term reads.
//   lscv_whiten     z = A (x - mu) for LSCV_h (A = the inverse Cholesky factor of S).
//   lscv_distances  D_ij = |z_i - z_j|^2 for the rows [row0, row0 + rows), packed row by row over
//                   j > i; computed once and reused by every h (the paper's sec. 5.1: LSCV_h's
//                   q_ij(h) = D_ij / h^2 only rescales).
//   lscv_grid       for KB bandwidths h_k per work-group row: sums of e = exp(-D / (4 h_k^2)) and of
//                   e^2 = exp(-D / (2 h_k^2)) over a fixed slice of D per work-group, so both LSCV sums
//                   cost one exp. Partials land at partial[(2k + w) G + g].
//   lscv_finish     adds the G partials of each sum in group order (out += ... with accumulate).
//   lscv_zoom       LSCV_h's bracket refinement on the device (bandwidth/lscv_h.cpp explains it):
//                   from one pass's sums, the best h and its neighbours, then the next pass's h
//                   values and scale factors, so the whole search runs without a host wait.
// Rounding depends on the number of pairs, G and WG only (the host fixes G from the pair count).
// Options: DIM, WG, KB, RS, ZW.
#include "exp_table.clh"

__kernel void lscv_rows(__global const real* x, uint n, __global const real* A, __global real* rows) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  real xi[DIM];
  for (uint k = 0; k < DIM; ++k) xi[k] = x[(ulong)k * n + i];
  __global real* row = rows + (ulong)i * RS;
  real q = RC(0.0);
  for (uint k = 0; k < DIM; ++k) {
    real u = RC(0.0);
    for (uint l = 0; l <= k; ++l) u = fma(A[k * DIM + l], xi[l], u);
    q = fma(u, u, q);
    row[k] = u * RC(0.70710678118654752);
  }
  row[DIM] = q * RC(-0.25);
  for (uint k = DIM + 1; k < RS; ++k) row[k] = RC(0.0);
}

// z_i = A (x_i - mu) for LSCV_h, from the caller's row-major x; z dimension-major.
__kernel void lscv_whiten(__global const real* x, uint n, __global const real* A, __global const real* mu,
                          __global real* z) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  real xi[DIM];
  for (uint k = 0; k < DIM; ++k) xi[k] = x[(ulong)i * DIM + k] - mu[k];
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
void lscv_grid(__global const real* D, ulong P, __global const real* h, uint h_at, uint nh, uint G,
               __global real* partial) {
  __local double tab[32];
  const uint l = get_local_id(0), g = get_group_id(0), k0 = get_group_id(1) * KB;
  exp_table_stage(tab, l, WG);
  barrier(CLK_LOCAL_MEM_FENCE);
  real ck[KB], a4[KB], a2[KB];
  for (uint b = 0; b < KB; ++b) {
    const real hb = k0 + b < nh ? h[h_at + k0 + b] : RC(1.0);
    ck[b] = k0 + b < nh ? -1 / (4 * hb * hb) : RC(0.0);  // exp(-D / (4 h^2))
    a4[b] = RC(0.0);
    a2[b] = RC(0.0);
  }
  for (ulong p = (ulong)g * WG + l; p < P; p += (ulong)G * WG) {
    const real v = D[p];
#pragma unroll
    for (uint b = 0; b < KB; ++b) {
      const real e = exp_table(fmax(ck[b] * v, RC(-707.0)), tab);  // clamped as in pair_sums.cl
      a4[b] += e;
      a2[b] = fma(e, e, a2[b]);
    }
  }
  // All 2 KB sums reduce together: one barrier per tree level instead of 2 KB per level.
  __local real s[2 * KB * WG];
  for (uint b = 0; b < KB; ++b) {
    s[(2 * b) * WG + l] = a4[b];
    s[(2 * b + 1) * WG + l] = a2[b];
  }
  for (uint h = WG / 2; h > 0; h >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < h)
      for (uint v = 0; v < 2 * KB; ++v) s[v * WG + l] += s[v * WG + l + h];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 2 * KB && k0 + l / 2 < nh) partial[(2 * k0 + l) * (ulong)G + g] = s[l * WG];
}

__kernel void lscv_finish(__global const real* partial, uint G, uint count, __global real* out, uint out_at,
                          uint accumulate) {
  const uint i = get_global_id(0);
  if (i >= count) return;
  real s = RC(0.0);
  for (uint g = 0; g < G; ++g) s += partial[(ulong)i * G + g];
  out[out_at + i] = accumulate ? out[out_at + i] + s : s;
}

// One work-group of ZW work-items; it also finishes the pass (as lscv_finish does, adding the G
// partials in group order, onto out when accumulate != 0), which saves a launch per pass.
// The pass evaluated h[at .. at + k_in); its sums go to out[out_at + 2 k] (S4) and
// out[out_at + 2 k + 1] (S2); bracket[0..1] holds the interval the h lie in.
// The objective up to factors common to all h is h^-d (1/n + 2 S4 / n^2 - 2^(d/2+2) S2 / (n (n-1))).
// The best point (the lowest index among equal values) and its neighbours (or the bracket's ends)
// become the new bracket; its k_out interior geometric points go to h[next ..]. The work is spread over the group: one work-item alone spends tens of
// microseconds on the pow calls.
__kernel __attribute__((reqd_work_group_size(ZW, 1, 1)))
void lscv_zoom(__global real* h, __global real* out, uint out_at, __global const real* partial, uint G,
               uint accumulate, uint at, uint k_in, uint next, uint k_out, real n, __global real* bracket) {
  __local real fl[ZW];
  __local uint kl[ZW];
  const uint l = get_local_id(0);
  const real d = (real)DIM;
  const real c2 = pow(RC(2.0), d / 2 + 2) / (n * (n - 1));
  uint best = k_in;
  real fbest = RC(0.0);
  for (uint k = l; k < k_in; k += ZW) {
    real s4 = RC(0.0), s2 = RC(0.0);
    for (uint g = 0; g < G; ++g) s4 += partial[(ulong)(2 * k) * G + g];
    for (uint g = 0; g < G; ++g) s2 += partial[(ulong)(2 * k + 1) * G + g];
    if (accumulate) s4 = out[out_at + 2 * k] + s4, s2 = out[out_at + 2 * k + 1] + s2;
    out[out_at + 2 * k] = s4;
    out[out_at + 2 * k + 1] = s2;
    const real f = pow(h[at + k], -d) * (1 / n + 2 * s4 / (n * n) - c2 * s2);
    if (best == k_in || f < fbest) best = k, fbest = f;
  }
  fl[l] = fbest;
  kl[l] = best;
  for (uint s = ZW / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < s) {
      const uint kb = kl[l + s];
      const real fb = fl[l + s];
      if (kb != k_in && (kl[l] == k_in || fb < fl[l] || (fb == fl[l] && kb < kl[l]))) kl[l] = kb, fl[l] = fb;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  best = kl[0];
  const real lo = best == 0 ? bracket[0] : h[at + best - 1];
  const real hi = best + 1 == k_in ? bracket[1] : h[at + best + 1];
  barrier(CLK_GLOBAL_MEM_FENCE);  // every work-item has read the bracket before it changes
  if (l == 0) bracket[0] = lo, bracket[1] = hi;
  for (uint k = l; k < k_out; k += ZW) {
    const real v = lo * pow(hi / lo, (real)(k + 1) / (real)(k_out + 1));
    h[next + k] = v;
  }
}
