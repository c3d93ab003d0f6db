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
//   TERM 4 (Hermite products, for the multivariate plug-in, bandwidth/plugin_matrix.cpp): rows
//          y = x / g of sphered data (stride RS), u = y_i - y_j, s = |u|^2, w = e^(-s/2). Output
//          k (of NHERM) is sum w prod_a He_{c_a}(u_a), c = HC[k DIM ..], the multi-index's
//          counts (at most KMAX each): for G = g^2 I the Gaussian's mixed partial derivative
//          factorises over the coordinates, D^c phi_G(x) = phi_G(x) prod_a (-1/g)^{c_a} He_{c_a}(x_a / g)
//          (Chacon & Duong 2010, sec. 3; checked against ks::kfe to 6e-16). With RAD = 1 an output
//          before them is sum w h3(s), h3(s) = s^3 - (3d + 12) s^2 + (3d^2 + 18d + 24) s - d(d+2)(d+4):
//          the Laplacian cubed, (vec I)'^3 D^6 phi (ks's eta_6, its Qr with deriv.order 6), from
//          the radial form of the Laplacian, 4 s h'' + (2d - 4s) h' + (s - d) h, applied three times.
//
// Tiles: the upper triangle of the n x n pair matrix in TILE x TILE tiles, tile t = tile0 + group,
// numbered row by row as in pairwise_triangle.cl. Work-item l owns rows l ROWS .. l ROWS + ROWS - 1
// of its tile (in registers); the TILE columns are staged in local memory and read as broadcasts.
// Diagonal and ragged tiles take the masked path.
//
// Rounding depends on TILE and CHUNK only: a row sums CHUNK columns in double, folds them into a
// compensated accumulator, and rows then tiles merge by the canonical bottom-up tree
// (reduce_tree.clh); pair_finish merges the tile partials in a fixed order (FWG fixed).
// Options: TERM, WG, ROWS (TILE = WG * ROWS), CHUNK, FWG; for TERMs 3 and 4 also DIM and RS (row
// stride, even: rows are read as double2); for TERM 4 NHERM, KMAX, HC (NHERM * DIM counts, comma
// separated) and RAD.
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
#define TERM_HERMITE 4
#define TILE (WG * ROWS)
#define ROWS_IN_LOCAL (TERM == TERM_LSCV || TERM == TERM_HERMITE)

#if TERM == TERM_LSCV
#define NOUT 2
#define RV (RS / 2)
#if RS % 2 || RS < DIM + 1
#error "RS must be even and at least DIM + 1"
#endif
#elif TERM == TERM_HERMITE
#define NOUT (RAD + NHERM)
#define RV (RS / 2)
#if RS % 2 || RS < DIM
#error "RS must be even and at least DIM"
#endif
#if NHERM > 0
__constant uchar hc[NHERM * DIM] = {HC};
#endif
#else
#define NOUT 1
#endif

#if ROWS_IN_LOCAL
// Local row jl of xl as xr[0 .. RS).
#define PS_ROW(jl)                                                          \
  double2 xrv[RV];                                                          \
  _Pragma("unroll") for (uint v = 0; v < RV; ++v) xrv[v] = xl[(jl) * RV + v]; \
  const double* xr = (const double*)xrv;
#endif

#if TERM == TERM_LSCV
// Adds the terms of (private row yi, local row j of xl) to p4, p2.
#define PS_TERMS(jl, OKEXPR)                                                 \
  {                                                                         \
    PS_ROW(jl)                                                              \
    _Pragma("unroll") for (uint r = 0; r < ROWS; ++r) {                     \
      double e = yi[r][DIM] + xr[DIM];                                      \
      _Pragma("unroll") for (uint k = 0; k < DIM; ++k) e = mad(yi[r][k], xr[k], e); \
      double t = exp_table(fmax(e, -707.0), tab);                            \
      t = (OKEXPR) ? t : 0.0;                                               \
      part[r][0] += t;                                                      \
      part[r][1] = mad(t, t, part[r][1]);                                   \
    }                                                                       \
  }
#elif TERM == TERM_HERMITE
// exp(-min(s, 707)) as below: a pair 37.6 pilot bandwidths apart or more reads e^-707 in place of
// its smaller weight, an absolute change below 1e-300 against sums that hold n He(0) terms.
#define PS_EXP(s) exp_table(-fmin(s, 707.0), tab)
// Adds w h3(s) and w prod_a He_{c_a}(u_a) of one pair to out[0 .. NOUT).
inline void hermite_terms(const double* u, double s, double w, double* out) {
#if RAD
  const double dd = DIM;
  out[0] = mad(w, mad(mad(s - (3.0 * dd + 12.0), s, (3.0 * dd + 18.0) * dd + 24.0), s, -dd * (dd + 2.0) * (dd + 4.0)),
               out[0]);
#endif
#if NHERM > 0
  double he[DIM][KMAX + 1];
#pragma unroll
  for (uint k = 0; k < DIM; ++k) {
    he[k][0] = 1.0;
#if KMAX > 0
    he[k][1] = u[k];
#pragma unroll
    for (uint m = 1; m < KMAX; ++m) he[k][m + 1] = mad(u[k], he[k][m], -(double)m * he[k][m - 1]);
#endif
  }
#pragma unroll
  for (uint o = 0; o < NHERM; ++o) {
    double p = w;
#pragma unroll
    for (uint k = 0; k < DIM; ++k) p *= he[k][hc[o * DIM + k]];
    out[RAD + o] += p;
  }
#endif
}
#define PS_TERMS(jl, OKEXPR)                                                 \
  {                                                                         \
    PS_ROW(jl)                                                              \
    _Pragma("unroll") for (uint r = 0; r < ROWS; ++r) {                     \
      double u[DIM];                                                        \
      double s = 0.0;                                                       \
      _Pragma("unroll") for (uint k = 0; k < DIM; ++k) {                    \
        u[k] = yi[r][k] - xr[k];                                            \
        s = mad(u[k], u[k], s);                                             \
      }                                                                     \
      const double w = (OKEXPR) ? PS_EXP(0.5 * s) : 0.0;                    \
      hermite_terms(u, s, w, part[r]);                                      \
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

#if ROWS_IN_LOCAL
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
