// Sample-wise KDE on a regular grid with bounded radial kernels (issue 6; Lopez-Novoa, Saenz and
// Garcia 2015, S-KDE), as a gather: the host bins the samples into the cells of the grid's tiles
// (a stable counting sort) and each work-group owns one tile of WG x PPI grid points, adding the samples
// of the cells within reach of the kernel's support. Reach in cells is r_k = floor(W_k / T_k) + 1
// with W_k the support's bounding-box half-width in grid steps (sec. 3.2: c sqrt(H_kk) / step_k):
// a sample in a cell r_k + 1 or more tiles away along k is more than W_k steps from every point of
// the tile. Cells are numbered in an extended grid padded by r_k on both sides, first dimension
// slowest, so the cells along the last dimension within reach are one contiguous run of samples.
// Sums run in sample order per point (no atomics), so the result is deterministic.
//
// Options: D (1..6), WG (= the product of T0..T{D-1}), T0..T5 the work-items' layout in a tile,
// PPI points per work-item along the last dimension (the tile is T{D-1} PPI long there; the
// samples' loads and the first D - 1 terms of q are shared by its points), ROWS_MAX runs staged
// together (default 512), KERN (ids of
// clstat::Kernel: 0 Gaussian with cut-off, 1 Epanechnikov, 2 biweight, 3 triweight, 5 uniform).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#ifndef PPI
#define PPI 2
#endif
#ifndef ROWS_MAX
#define ROWS_MAX 512
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

// geo (ulong): count[D], ncell[D], ext[D], reach[D]; prm (double): lower[D], step[D], A[D*D]
// (lower triangular: u = A (y - x), q = u'u). Tiles [tile0, tile0 + groups) of the tile grid
// (first dimension slowest); out holds the points of the first-dimension rows
// [row0, row0 + rows), row-major.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void grid_skde(__global const double* xs, __global const ulong* off, __global const ulong* geo,
               __global const double* prm, double scale, double r2, ulong tile0, ulong row0,
               __global double* out) {
  __local double ls[WG * D];
  __local ulong run_begin[ROWS_MAX], run_len[ROWS_MAX + 1];
  const uint l = get_local_id(0);
  // This group's tile and this item's point in it.
  ulong t = tile0 + get_group_id(0);
  ulong c[D], idx[D];
  uint tl = l;
  for (int k = D - 1; k >= 0; --k) {
    c[k] = t % geo[D + k];
    t /= geo[D + k];
  }
  bool valid = true;  // the first D - 1 coordinates; the last is checked per point
  for (int k = D - 1; k >= 0; --k) {
    const uint o = tl % tile_dim[k];
    tl /= tile_dim[k];
    idx[k] = c[k] * (k == D - 1 ? tile_dim[k] * PPI : tile_dim[k]) + o;
    if (k < D - 1) valid = valid && idx[k] < geo[k];
  }
  double y[D], am[D * D], yl[PPI];
  for (int k = 0; k < D; ++k) y[k] = prm[k] + (double)idx[k] * prm[D + k];
  for (int p = 0; p < PPI; ++p) yl[p] = prm[D - 1] + (double)(idx[D - 1] + p * tile_dim[D - 1]) * prm[2 * D - 1];
  for (int k = 0; k < D * D; ++k) am[k] = prm[2 * D + k];
  double acc[PPI];
  for (int p = 0; p < PPI; ++p) acc[p] = 0.0;
  // Rows of neighbouring cells: every combination of the first D - 1 dimensions within reach;
  // along the last dimension the cells within reach hold one contiguous run of samples. The runs
  // of up to ROWS_MAX rows are concatenated, so every staging of WG samples is full however few
  // samples a single run holds (in 3-d a run holds a few samples; staging run by run, with two
  // barriers each, took 6.0 s instead of 4.4 s for the 3-d bench shape on PoCL).
  ulong rows = 1;
  for (int k = 0; k < D - 1; ++k) rows *= 2 * geo[3 * D + k] + 1;
  for (ulong rb0 = 0; rb0 < rows; rb0 += ROWS_MAX) {
    const uint nr = (uint)min((ulong)ROWS_MAX, rows - rb0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = l; i < nr; i += WG) {
      ulong rr = rb0 + i, cell = 0;
      ulong e[D];
      for (int k = D - 2; k >= 0; --k) {
        const ulong span = 2 * geo[3 * D + k] + 1;
        e[k] = c[k] + rr % span;  // extended coordinates: c_k - reach_k + digit + reach_k
        rr /= span;
      }
      e[D - 1] = c[D - 1];
      for (int k = 0; k < D; ++k) cell = cell * geo[2 * D + k] + e[k];
      run_begin[i] = off[cell];
      run_len[i + 1] = off[cell + 2 * geo[4 * D - 1] + 1] - off[cell];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
      run_len[0] = 0;
      for (uint i = 1; i <= nr; ++i) run_len[i] += run_len[i - 1];  // now prefix sums
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong total = run_len[nr];
    for (ulong s0 = 0; s0 < total; s0 += WG) {
      const ulong e = s0 + l;
      if (e < total) {
        uint lo = 0, hi = nr;  // the run holding e: run_len[lo] <= e < run_len[lo + 1]
        while (hi - lo > 1) {
          const uint mid = (lo + hi) / 2;
          if (run_len[mid] <= e) lo = mid;
          else hi = mid;
        }
        const ulong src = run_begin[lo] + (e - run_len[lo]);
        for (int k = 0; k < D; ++k) ls[l * D + k] = xs[src * D + k];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint cnt = (uint)min((ulong)WG, total - s0);
      for (uint j = 0; j < cnt; ++j) {
        // q = sum_a u_a^2, u = A (y - x), A lower triangular: the first D - 1 terms and the
        // first D - 1 products of u_{D-1} are the same for the item's points (same order of
        // operations as one point alone, so the same bits).
        double dv[D];
        for (int k = 0; k < D - 1; ++k) dv[k] = y[k] - ls[j * D + k];
        double qc = 0.0, part = 0.0;
        for (int a = 0; a < D - 1; ++a) {
          double u = 0.0;
          for (int bb = 0; bb <= a; ++bb) u += am[a * D + bb] * dv[bb];
          qc += u * u;
          part += am[(D - 1) * D + a] * dv[a];
        }
        const double xl = ls[j * D + D - 1];
        for (int p = 0; p < PPI; ++p) {
          const double u = part + am[(D - 1) * D + D - 1] * (yl[p] - xl);
          const double q = qc + u * u;
          if (q <= r2) acc[p] += grid_shape(q);
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  for (int p = 0; p < PPI; ++p) {
    const ulong last = idx[D - 1] + p * tile_dim[D - 1];
    if (valid && last < geo[D - 1]) {
      ulong lin = 0;
      for (int k = 0; k < D - 1; ++k) lin = lin * geo[k] + (k == 0 ? idx[0] - row0 : idx[k]);
      lin = lin * geo[D - 1] + (D == 1 ? last - row0 : last);
      out[lin] = acc[p] * scale;
    }
  }
}
