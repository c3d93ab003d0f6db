// Fused pair sums of the bandwidth selectors over i < j, fp64 (Andrzejewski et al. 2013, sec. 5.3
// and 6.1-6.3), with one exp per pair whatever the term:
//   TERM 1 (psi_4), 2 (psi_6): one dimension, u = (x_i - x_j) / (g sqrt 2), s = u^2, the sum of
//          He_r(z) e^(-z^2/2) at z^2 = 2 s (Wand & Jones 1995, sec. 3.5):
//          He_4 = 4 s^2 - 12 s + 3, He_6 = 8 s^3 - 60 s^2 + 90 s - 15. The scale 1/(g sqrt 2) is
//          read from scale[scale_at], so a pilot bandwidth computed on the device (pair_finish)
//          feeds the next stage without a trip to the host; scale_at = 0xffffffff takes
//          scale_value instead (a pilot the host knows, without a buffer write).
//   TERM 3 (LSCV): rows prepared by lscv_rows (cl/bandwidth/lscv.cl): y = A x / sqrt 2 and
//          a = -|A x|^2 / 4, so -q_ij / 4 = a_i + a_j + y_i . y_j (the Gram form: DIM multiply-adds
//          instead of DIM subtractions and DIM multiply-adds). Outputs S4 = sum e and
//          S2 = sum e^2 with e = exp(-q_ij / 4) (LSCV's two sums, bandwidth.hpp). The Gram form's
//          rounding is absolute, about 1e-16 (|a_i| + |a_j|) in the exponent, i.e. a relative
//          error of that size in a term: 1e-14 at |A x|^2 = 400. The exponent is clamped at
//          -707 (as the psi terms' below): a term under 1e-307 reads e^-707, against sums that
//          enter LSCV beside 1/n.
//
// Tiles: the upper triangle of the n x n pair matrix in TILE x TILE tiles, tile t = tile0 + group,
// numbered row by row as in pairwise_triangle.cl. Work-item l owns rows l ROWS .. l ROWS + ROWS - 1
// of its tile (in registers); the TILE columns are staged in local memory and read as broadcasts.
// Diagonal and ragged tiles take the masked path.
//
// Rounding depends on TILE and CHUNK only: a row sums CHUNK columns in double, folds them into a
// compensated accumulator, and rows then tiles merge by the canonical bottom-up tree
// (reduce_tree.clh); pair_finish merges the tile partials in a fixed order (FWG fixed).
// Options: TERM, WG, ROWS (TILE = WG * ROWS), CHUNK, FWG; for TERM 3 also DIM and RS (row stride,
// even: rows are read as double2).
#include "compensated.clh"
#include "exp_table.clh"

#define STATE csumd
#define identity csumd_zero
#define merge csumd_merge
#include "reduce_tree.clh"
#include "triangle_tiles.clh"

#define TERM_PSI4 1
#define TERM_PSI6 2
#define TERM_LSCV 3
#define TILE (WG * ROWS)

#if TERM == TERM_LSCV
#define NOUT 2
#define RV (RS / 2)
#if RS % 2 || RS < DIM + 1
#error "RS must be even and at least DIM + 1"
#endif
#else
#define NOUT 1
#endif

#if TERM == TERM_LSCV
// Adds the terms of (private row yi, local row j of xl) to p4, p2.
#define PS_TERMS(jl, OKEXPR)                                                 \
  {                                                                         \
    double2 xrv[RV];                                                        \
    _Pragma("unroll") for (uint v = 0; v < RV; ++v) xrv[v] = xl[(jl) * RV + v]; \
    const double* xr = (const double*)xrv;                                  \
    _Pragma("unroll") for (uint r = 0; r < ROWS; ++r) {                     \
      double e = yi[r][DIM] + xr[DIM];                                      \
      _Pragma("unroll") for (uint k = 0; k < DIM; ++k) e = mad(yi[r][k], xr[k], e); \
      double t = exp_table(fmax(e, -707.0), tab);                            \
      t = (OKEXPR) ? t : 0.0;                                               \
      part[r][0] += t;                                                      \
      part[r][1] = mad(t, t, part[r][1]);                                   \
    }                                                                       \
  }
#else
// exp(-min(s, 707)) by exp_table, with no underflow test (s >= 0 here, so the argument is in
// exp_table's range). A term at s > 707 then reads He(707) e^-707 < 1e-296 instead of its smaller
// true value: an absolute change below 1e-296 per pair, against sums that hold n He_r(0) (3n or
// -15n). One fp64 min replaces a 64-bit compare and select that flushed to zero: the plug-in's two passes at
// n = 32768 took 1.66 ms instead of 2.15 ms on the same H100
// (bench/results/2026-11-22-h100b-nvidia-bandwidth-psi-{clamp,flush}.json in git history, up to a10d6fa).
#define PS_EXP(s) exp_table(-fmin(s, 707.0), tab)
#if TERM == TERM_PSI4
#define PS_HERMITE(s) mad(mad(4.0, s, -12.0), s, 3.0)
#else
#define PS_HERMITE(s) mad(mad(mad(8.0, s, -60.0), s, 90.0), s, -15.0)
#endif
#define PS_TERMS(jl, OKEXPR)                                                 \
  {                                                                         \
    const double xj = xl[jl];                                                \
    _Pragma("unroll") for (uint r = 0; r < ROWS; ++r) {                     \
      const double u = wi[r] - xj;                                          \
      const double s = u * u;                                               \
      const double he = (OKEXPR) ? PS_HERMITE(s) : 0.0;                     \
      part[r][0] = mad(he, PS_EXP(s), part[r][0]);                          \
    }                                                                       \
  }
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pair_sums(__global const double* v, ulong v0, uint n, uint nb, ulong tile0, __global const double* scale,
               uint scale_at, double scale_value, __global csumd* partials, ulong stride) {
  v += v0;
  __local double tab[32];
  __local csumd sc[WG];
  const uint l = get_local_id(0);
  exp_table_stage(tab, l, WG);
  const ulong t = tile0 + get_group_id(0);
  ulong q;
  uint c;
  tri_tile(t, nb, &q, &c);
  const uint i0 = (uint)q * TILE + l * ROWS;
  const uint j0 = c * TILE;
  const int diag = (q == c);
  const int masked = diag || (j0 + TILE > n);

#if TERM == TERM_LSCV
  __local double2 xl[TILE * RV];
  double yi[ROWS][RS];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r) {
    const uint i = i0 + r;
#pragma unroll
    for (uint k = 0; k < RS; ++k) yi[r][k] = i < n ? v[(ulong)i * RS + k] : 0.0;
  }
  __global const double2* v2 = (__global const double2*)v;
  for (uint e = l; e < TILE * RV; e += WG) {
    const uint j = j0 + e / RV;
    xl[e] = j < n ? v2[(ulong)j0 * RV + e] : (double2)(0.0, 0.0);
  }
#else
  __local double xl[TILE];
  const double ig = scale_at == 0xffffffffu ? scale_value : scale[scale_at];
  double wi[ROWS];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r) wi[r] = i0 + r < n ? v[i0 + r] * ig : 0.0;
  for (uint e = l; e < TILE; e += WG) xl[e] = j0 + e < n ? v[j0 + e] * ig : 0.0;
#endif
  barrier(CLK_LOCAL_MEM_FENCE);

  csumd acc[ROWS][NOUT];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r)
#pragma unroll
    for (uint k = 0; k < NOUT; ++k) acc[r][k] = csumd_zero();
  for (uint cc = 0; cc < TILE; cc += CHUNK) {
    double part[ROWS][NOUT];
#pragma unroll
    for (uint r = 0; r < ROWS; ++r)
#pragma unroll
      for (uint k = 0; k < NOUT; ++k) part[r][k] = 0.0;
    if (!masked) {
#pragma unroll 4
      for (uint jj = 0; jj < CHUNK; ++jj) PS_TERMS(cc + jj, 1)
    } else {
      for (uint jj = 0; jj < CHUNK; ++jj) {
        const uint j = j0 + cc + jj;
        PS_TERMS(cc + jj, j < n && (!diag || j > i0 + r))
      }
    }
#pragma unroll
    for (uint r = 0; r < ROWS; ++r)
#pragma unroll
      for (uint k = 0; k < NOUT; ++k) acc[r][k] = csumd_add(acc[r][k], part[r][k]);
  }

  for (uint k = 0; k < NOUT; ++k) {
    csumd w[ROWS];
#pragma unroll
    for (uint r = 0; r < ROWS; ++r) w[r] = acc[r][k];
#pragma unroll
    for (uint s = 1; s < ROWS; s <<= 1)
#pragma unroll
      for (uint r = 0; r + s < ROWS; r += 2 * s) w[r] = csumd_merge(w[r], w[r + s]);
    sc[l] = w[0];
    tree_reduce_local(sc, l);
    if (l == 0) partials[k * stride + t] = sc[0];
  }
}

// Merges the `count` tile partials of each output (output k at partials[k * stride]) in a fixed
// order: work-item l takes partials l, l + FWG, ... in turn, then the work-group's bottom-up tree.
// Writes the sums to out[out_at + k].
// pilot != 0 (TERM 2 only): from S = the psi_6 pass's sum at pilot bandwidth g, the stage-2 pilot
// of psi_4 (Wand & Jones 1995, sec. 3.6; bandwidth/plugin.cpp derives it)
//   g_2 = g (6 n / (15 n - 2 S))^(1/7)
// goes to out[out_at + 1] and 1 / (g_2 sqrt 2) to scale[scale_next] for the psi_4 pass; NaN when
// 15 n - 2 S <= 0 (psi_6 not negative: the plug-in is undefined and the host says so).
__kernel __attribute__((reqd_work_group_size(FWG, 1, 1)))
void pair_finish(__global const csumd* partials, ulong count, ulong stride, __global double* out,
                 uint out_at, uint pilot, double n, double g, __global double* scale, uint scale_next) {
  __local csumd sf[FWG];
  const uint l = get_local_id(0);
  for (uint k = 0; k < NOUT; ++k) {
    csumd a = csumd_zero();
    for (ulong s = l; s < count; s += FWG) a = csumd_merge(a, partials[k * stride + s]);
    barrier(CLK_LOCAL_MEM_FENCE);
    sf[l] = a;
    for (uint s = 1; s < FWG; s <<= 1) {
      barrier(CLK_LOCAL_MEM_FENCE);
      if ((l & (2 * s - 1)) == 0) sf[l] = csumd_merge(sf[l], sf[l + s]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) out[out_at + k] = csumd_value(sf[0]);
  }
  if (pilot && l == 0) {
    const double S = csumd_value(sf[0]);
    const double den = 15.0 * n - 2.0 * S;
    const double g2 = den > 0.0 ? g * pow(6.0 * n / den, 1.0 / 7.0) : NAN;
    out[out_at + 1] = g2;
    scale[scale_next] = 1.0 / (g2 * 1.4142135623730951);
  }
}
