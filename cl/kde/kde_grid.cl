// Sample-wise KDE on a regular grid with bounded radial kernels (issue 6; Lopez-Novoa, Saenz and
// Garcia 2015, S-KDE), as a gather. The samples are sorted into cells (cl/kde/grid_bin.cl): cell
// e_k = floor(s_k / C_k) + R_k along dimension k, with s_k the sample's coordinate in grid steps,
// C_k steps wide, numbered first dimension slowest, stable. Each work-group owns a tile of grid
// points and adds the samples that can reach it:
//  - the bounding box of the support (sec. 3.2, half-widths W_k = c sqrt(H_kk) grid steps) gives
//    the range of cells along each of the first D - 1 dimensions; every combination is a "row";
//  - per row, the part of the support's ellipsoid over that row is bounded along the last
//    dimension (the chop of sec. 3.3 and Appendix A, at the granularity of a cell): with
//    u = A (y - x), A lower triangular, q = |u|^2, the offsets y - x over the tile and the row's
//    cells are boxes in the first D - 1 dimensions, so interval arithmetic bounds u_0..u_{D-2}
//    (hence q_min, their least sum of squares) and the part of u_{D-1} they contribute; then
//    |u_{D-1}| <= sqrt(r^2 - q_min) bounds y_{D-1} - x_{D-1}, and so the cells of the row that
//    can reach the tile, one contiguous run of samples. Rows whose q_min exceeds r^2 are empty.
// The runs of up to ROWS_MAX rows are concatenated and staged WG samples at a time, so stagings are
// full however few samples a run holds. Sums run in the cells' order (no atomics): a point adds
// its nonzero terms in the same order whatever its tile, so slabs do not change a bit.
//
// Options: D (1..6), WG (= the product of T0..T{D-1}), T0..T5 the work-items' layout in a tile,
// PPI points per work-item along the last dimension (the tile is T{D-1} PPI long there; the
// samples' loads and the first D - 1 terms of q are shared by its points), ROWS_MAX rows staged
// together (<= WG), KERN (ids of clstat::Kernel: 0 Gaussian with cut-off, 1 Epanechnikov,
// 2 biweight, 3 triweight, 5 uniform).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#ifndef PPI
#define PPI 2
#endif
#ifndef ROWS_MAX
#define ROWS_MAX WG
#endif
#ifndef T1
#define T1 1
#endif
#ifndef T2
#define T2 1
#endif
#ifndef T3
#define T3 1
#endif
#ifndef T4
#define T4 1
#endif
#ifndef T5
#define T5 1
#endif

#include "local_scan.clh"

__constant uint tile_dim[6] = {T0, T1, T2, T3, T4, T5};

// k(q) for q within the support (the caller checks q <= r2).
inline double grid_shape(double q) {
#if KERN == 0
  return exp(-0.5 * q);
#elif KERN == 1
  return 1.0 - q;
#elif KERN == 2
  const double a = 1.0 - q;
  return a * a;
#elif KERN == 3
  const double a = 1.0 - q;
  return a * a * a;
#elif KERN == 5
  return 1.0;
#else
#error "KERN is not a bounded radial kernel of the grid"
#endif
}

// Points per tile along dimension k.
inline ulong tile_len(int k) { return k == D - 1 ? (ulong)tile_dim[k] * PPI : (ulong)tile_dim[k]; }

// Bounds are widened by this many grid steps (and relatively) so that rounding in the interval
// arithmetic, or in a sample's cell, never drops a sample that reaches the tile.
#define SLACK 1e-6

// The cell along dimension k of coordinate s (grid steps): as grid_bin_keys.
inline long cell_of(double s, double csize, double creach) { return (long)(floor(s / csize) + creach); }

// geo (ulong): count[D], ntile[D], cext[D], creach[D], csize[D]; prm (double): lower[D], step[D],
// A[D*D] (lower triangular: u = A (y - x), q = u'u), W[D] (grid steps). Tiles
// [tile0, tile0 + groups) of the tile grid (first dimension slowest); out holds the points of the
// first-dimension indices [row0, row1), row-major.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void grid_skde(__global const double* xs, __global const uint* off, __global const ulong* geo,
               __global const double* prm, double scale, double r2, ulong tile0, ulong row0, ulong row1,
               __global double* out) {
  __local double ls[WG * D];
  __local uint run_begin[ROWS_MAX], run_len[WG];
  const uint l = get_local_id(0);
  // This group's tile, and this item's point in it.
  ulong t = tile0 + get_group_id(0);
  ulong c[D], idx[D], first[D], last[D];
  for (int k = D - 1; k >= 0; --k) {
    c[k] = t % geo[D + k];
    t /= geo[D + k];
    first[k] = c[k] * tile_len(k);
    last[k] = min(first[k] + tile_len(k), geo[k]) - 1;
  }
  first[0] = max(first[0], row0);  // the slab's part of a tile that straddles its edge
  last[0] = min(last[0], row1 - 1);
  uint tl = l;
  bool valid = true;  // the first D - 1 coordinates; the last is checked per point
  for (int k = D - 1; k >= 0; --k) {
    const uint o = tl % tile_dim[k];
    tl /= tile_dim[k];
    idx[k] = c[k] * tile_len(k) + o;
    if (k < D - 1) valid = valid && idx[k] >= first[k] && idx[k] <= last[k];
  }
  double y[D], am[D * D], yl[PPI];
  for (int k = 0; k < D; ++k) y[k] = prm[k] + (double)idx[k] * prm[D + k];
  for (int p = 0; p < PPI; ++p) yl[p] = prm[D - 1] + (double)(idx[D - 1] + p * tile_dim[D - 1]) * prm[2 * D - 1];
  for (int k = 0; k < D * D; ++k) am[k] = prm[2 * D + k];
  double acc[PPI];
  for (int p = 0; p < PPI; ++p) acc[p] = 0.0;
  // The range of cells along each dimension within the bounding box of the tile's supports.
  long elo[D], ecnt[D];
  ulong rows = 1;
  for (int k = 0; k < D; ++k) {
    const double w = prm[2 * D + D * D + k] + SLACK, cs = (double)geo[4 * D + k], cr = (double)geo[3 * D + k];
    elo[k] = max(0L, cell_of((double)first[k] - w, cs, cr));
    const long ehi = min((long)geo[2 * D + k] - 1, cell_of((double)last[k] + w, cs, cr));
    ecnt[k] = max(0L, ehi - elo[k] + 1);
    if (k < D - 1) rows *= (ulong)ecnt[k];
  }
  if (ecnt[D - 1] == 0) rows = 0;
  const double a_last = am[D * D - 1], reach2 = r2 * (1.0 + SLACK);
  for (ulong rb0 = 0; rb0 < rows; rb0 += ROWS_MAX) {
    const uint nr = (uint)min((ulong)ROWS_MAX, rows - rb0);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint len = 0;
    if (l < nr) {
      // Row rb0 + l: its cells e_k (k < D - 1), and the offsets y_k - x_k over the tile and the
      // cells, in data units.
      ulong rr = rb0 + l, cell = 0;
      long e[D];
      double dlo[D], dhi[D];
      for (int k = D - 2; k >= 0; --k) {
        e[k] = elo[k] + (long)(rr % (ulong)ecnt[k]);
        rr /= (ulong)ecnt[k];
      }
      for (int k = 0; k < D - 1; ++k) {
        const double cs = (double)geo[4 * D + k], cr = (double)geo[3 * D + k], step = prm[D + k];
        const double slo = ((double)e[k] - cr) * cs - SLACK, shi = ((double)e[k] - cr + 1.0) * cs + SLACK;
        dlo[k] = ((double)first[k] - shi) * step;
        dhi[k] = ((double)last[k] - slo) * step;
        cell = cell * geo[2 * D + k] + (ulong)e[k];
      }
      // Interval bounds of u_a (a < D - 1): q_min, and of the first D - 1 terms of u_{D-1}.
      double qmin = 0.0, plo = 0.0, phi = 0.0;
      for (int a = 0; a < D; ++a) {
        double lo = 0.0, hi = 0.0;
        for (int b = 0; b < min(a + 1, D - 1); ++b) {
          const double m = am[a * D + b], u1 = m * dlo[b], u2 = m * dhi[b];
          lo += min(u1, u2);
          hi += max(u1, u2);
        }
        if (a < D - 1) {
          const double near = lo > 0.0 ? lo : (hi < 0.0 ? -hi : 0.0);
          qmin += near * near;
        } else {
          plo = lo;
          phi = hi;
        }
      }
      if (qmin <= reach2) {
        // |plo..phi + a_last (y - x)| <= sqrt(r2 - qmin) along the last dimension.
        const double rem = sqrt(reach2 - qmin) * (1.0 + SLACK);
        const double step = prm[2 * D - 1];
        const double ddlo = (-rem - phi) / a_last, ddhi = (rem - plo) / a_last;  // y - x, data units
        const double yf = prm[D - 1] + (double)first[D - 1] * step, yz = prm[D - 1] + (double)last[D - 1] * step;
        const double slo = (yf - ddhi - prm[D - 1]) / step, shi = (yz - ddlo - prm[D - 1]) / step;
        const double cs = (double)geo[5 * D - 1], cr = (double)geo[4 * D - 1];
        const long clo = max(elo[D - 1], cell_of(slo - SLACK * (1.0 + fabs(slo)), cs, cr));
        const long chi = min(elo[D - 1] + ecnt[D - 1] - 1, cell_of(shi + SLACK * (1.0 + fabs(shi)), cs, cr));
        if (clo <= chi) {
          const ulong base = cell * geo[3 * D - 1];
          run_begin[l] = off[base + (ulong)clo];
          len = off[base + (ulong)chi + 1] - off[base + (ulong)clo];
        }
      }
    }
    // Exclusive prefix sums of the run lengths: where each run starts in the concatenation.
    run_len[l] = len;
    const uint sum = local_exclusive_scan(run_len, l, WG);
    __local const uint* starts = run_len;
    for (uint s0 = 0; s0 < sum; s0 += WG) {
      const uint e = s0 + l;
      if (e < sum) {
        uint lo = 0, hi = nr;  // the run holding e: starts[lo] <= e < starts[lo + 1] (empty runs skipped)
        while (hi - lo > 1) {
          const uint mid = (lo + hi) / 2;
          if (starts[mid] <= e) lo = mid;
          else hi = mid;
        }
        const ulong src = (ulong)run_begin[lo] + (e - starts[lo]);
        for (int k = 0; k < D; ++k) ls[l * D + k] = xs[src * D + k];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint cnt = min((uint)WG, sum - s0);
      for (uint j = 0; j < cnt; ++j) {
        // q = sum_a u_a^2, u = A (y - x): the first D - 1 terms and the first D - 1 products of
        // u_{D-1} are shared by the item's points. A sample whose first terms alone pass the
        // support adds nothing to any of them (the branch is uniform over the items of a row).
        // Products are fused (fma: one fp64 instruction, correctly rounded on every device, so
        // the same bits everywhere; the points' loop went from 8 instructions to 6).
        double dv[D];
        for (int k = 0; k < D - 1; ++k) dv[k] = y[k] - ls[j * D + k];
        double qc = 0.0, part = 0.0;
        for (int a = 0; a < D - 1; ++a) {
          double u = am[a * D] * dv[0];
          for (int bb = 1; bb <= a; ++bb) u = fma(am[a * D + bb], dv[bb], u);
          qc = fma(u, u, qc);
          part = fma(am[(D - 1) * D + a], dv[a], part);
        }
        if (qc <= r2) {
          const double xl = ls[j * D + D - 1];
          for (int p = 0; p < PPI; ++p) {
            const double u = fma(a_last, yl[p] - xl, part);
            const double q = fma(u, u, qc);
            if (q <= r2) acc[p] += grid_shape(q);
          }
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  for (int p = 0; p < PPI; ++p) {
    const ulong lastc = idx[D - 1] + p * tile_dim[D - 1];
    const bool in0 = D > 1 || (lastc >= row0 && lastc < row1);
    if (valid && in0 && lastc < geo[D - 1]) {
      ulong lin = 0;
      for (int k = 0; k < D - 1; ++k) lin = lin * geo[k] + (k == 0 ? idx[0] - row0 : idx[k]);
      lin = lin * geo[D - 1] + (D == 1 ? lastc - row0 : lastc);
      out[lin] = acc[p] * scale;
    }
  }
}
