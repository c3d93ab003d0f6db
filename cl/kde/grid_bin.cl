// Binning the samples of a grid estimate into cells on the device (issue 6: "bin the samples into
// grid-aligned cells (a counting sort on the device)"). The sort must be stable, because the grid
// kernel adds a point's terms in the samples' order and that order must not depend on timing: a
// scatter by atomic counters would place the samples of a cell in arrival order. So the cells are
// sorted by a least-significant-digit radix sort of (cell, sample index) with 4-bit digits, each
// pass stable: a work-group ranks its tile of keys by a scan over (digit, work-item) in local
// memory, and the tiles' digit counts are scanned in digit-major order across the groups.
// Afterwards every cell's first sample is found by binary search, and the samples are gathered
// into cell order.
//
// Options: D (the dimension, 1..6).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define BIN_WG 256
#define BIN_PER 8                       // keys per work-item in the radix passes
#define BIN_TILE (BIN_WG * BIN_PER)     // keys per work-group
#define SCAN_PER 8                      // values per work-item in the scans
#define SCAN_TILE (BIN_WG * SCAN_PER)

#include "local_scan.clh"

// h[digit * BIN_WG + l] = the count of the 4-bit digit (at `shift`) among work-item l's keys of
// this group's tile; returns after a barrier.
inline void tile_digit_counts(__global const uint* key, uint n, uint shift, __local uint* h) {
  const uint l = get_local_id(0), base = get_group_id(0) * BIN_TILE + l * BIN_PER;
  uint c[16];
  for (int b = 0; b < 16; ++b) c[b] = 0;
  for (uint j = 0; j < BIN_PER; ++j)
    if (base + j < n) ++c[(key[base + j] >> shift) & 15u];
  for (int b = 0; b < 16; ++b) h[b * BIN_WG + l] = c[b];
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Each sample's cell: e_k = floor(((x_k - lower_k) / step_k) / csize_k) + creach_k, dropped
// (key = cells) when some e_k falls outside [0, cext_k): such a sample is beyond the reach of
// every grid point. The grid kernel maps its bounds to cells by the same expression.
// prm: lower[D], step[D]; cgeo: csize[D], creach[D], cext[D].
__kernel void grid_bin_keys(__global const double* x, uint n, __global const double* prm, __global const ulong* cgeo,
                            uint cells, __global uint* key, __global uint* val) {
  const uint i = get_global_id(0);
  if (i >= n) return;
  ulong c = 0;
  bool in = true;
  for (int k = 0; k < D; ++k) {
    const double s = floor(((x[(ulong)i * D + k] - prm[k]) / prm[D + k]) / (double)cgeo[k]) + (double)cgeo[D + k];
    in = in && s >= 0.0 && s < (double)cgeo[2 * D + k];
    if (in) c = c * cgeo[2 * D + k] + (ulong)s;
  }
  key[i] = in ? (uint)c : cells;
  val[i] = i;
}

// One radix pass, first half: the counts of each 4-bit digit in each tile, digit-major
// (gcount[digit * groups + group]) so that their exclusive scan is each tile's start per digit.
__kernel __attribute__((reqd_work_group_size(BIN_WG, 1, 1)))
void grid_radix_count(__global const uint* key, uint n, uint shift, __global uint* gcount) {
  __local uint h[16 * BIN_WG];
  const uint l = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
  tile_digit_counts(key, n, shift, h);
  for (uint w = BIN_WG / 2; w > 0; w >>= 1) {  // 16 tree sums over the work-items
    if (l < w)
      for (int b = 0; b < 16; ++b) h[b * BIN_WG + l] += h[b * BIN_WG + l + w];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l < 16) gcount[l * groups + g] = h[l * BIN_WG];
}

// Second half: each key goes to its tile's start for its digit (gstart, the scanned gcount), plus
// the keys of that digit in earlier work-items of the tile, plus those earlier in its own
// work-item: the order within a digit is kept.
__kernel __attribute__((reqd_work_group_size(BIN_WG, 1, 1)))
void grid_radix_scatter(__global const uint* key, __global const uint* val, uint n, uint shift,
                        __global const uint* gstart, __global uint* key_out, __global uint* val_out) {
  __local uint h[16 * BIN_WG];
  __local uint part[BIN_WG];
  const uint l = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
  tile_digit_counts(key, n, shift, h);
  const uint base = g * BIN_TILE + l * BIN_PER;
  // Exclusive scan of h (digit-major): each work-item scans 16 consecutive entries, then the
  // work-items' totals are scanned.
  uint run = 0;
  for (int t = 0; t < 16; ++t) run += h[l * 16 + t];
  part[l] = run;
  local_exclusive_scan(part, l, BIN_WG);
  run = part[l];
  for (int t = 0; t < 16; ++t) {
    const uint v = h[l * 16 + t];
    h[l * 16 + t] = run;
    run += v;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint at[16];
  for (int b = 0; b < 16; ++b) at[b] = gstart[b * groups + g] + (h[b * BIN_WG + l] - h[b * BIN_WG]);
  for (uint j = 0; j < BIN_PER; ++j) {
    const uint i = base + j;
    if (i < n) {
      const uint k = key[i];
      const uint b = (k >> shift) & 15u;
      const uint p = at[b]++;
      key_out[p] = k;
      val_out[p] = val[i];
    }
  }
}

// Exclusive scan of m values: tiles of SCAN_TILE (out and the tile totals), the totals by one
// work-group (also writing the grand total to out[m]), and the tiles' starts added back.
__kernel __attribute__((reqd_work_group_size(BIN_WG, 1, 1)))
void grid_scan_tiles(__global const uint* in, uint m, __global uint* out, __global uint* tile_total) {
  __local uint s[BIN_WG];
  const uint l = get_local_id(0);
  const uint base = get_group_id(0) * SCAN_TILE + l * SCAN_PER;
  uint v[SCAN_PER], run = 0;
  for (uint j = 0; j < SCAN_PER; ++j) {
    v[j] = base + j < m ? in[base + j] : 0;
    run += v[j];
  }
  s[l] = run;
  const uint total = local_exclusive_scan(s, l, BIN_WG);
  run = s[l];
  for (uint j = 0; j < SCAN_PER; ++j) {
    if (base + j < m) out[base + j] = run;
    run += v[j];
  }
  if (l == 0) tile_total[get_group_id(0)] = total;
}

__kernel __attribute__((reqd_work_group_size(BIN_WG, 1, 1)))
void grid_scan_totals(__global uint* tile_total, uint tiles, __global uint* out, uint m) {
  __local uint s[BIN_WG];
  const uint l = get_local_id(0);
  const uint per = (tiles + BIN_WG - 1) / BIN_WG, b0 = min(tiles, l * per), b1 = min(tiles, b0 + per);
  uint run = 0;
  for (uint b = b0; b < b1; ++b) run += tile_total[b];
  s[l] = run;
  const uint total = local_exclusive_scan(s, l, BIN_WG);
  run = s[l];
  for (uint b = b0; b < b1; ++b) {
    const uint v = tile_total[b];
    tile_total[b] = run;
    run += v;
  }
  if (l == 0) out[m] = total;
}

__kernel void grid_scan_add(__global uint* out, uint m, __global const uint* tile_total) {
  const uint i = get_global_id(0);
  if (i < m) out[i] += tile_total[i / SCAN_TILE];
}

// off[c] = the first sorted position whose key is >= c, for c = 0..cells (off[cells] = the
// number of samples kept).
__kernel void grid_cell_offsets(__global const uint* key, uint n, uint cells, __global uint* off) {
  const uint c = get_global_id(0);
  if (c > cells) return;
  uint lo = 0, hi = n;
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2;
    if (key[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  off[c] = lo;
}

// The kept samples in cell order.
__kernel void grid_gather(__global const double* x, __global const uint* val, __global const uint* off, uint cells,
                          __global double* xs) {
  const uint p = get_global_id(0);
  if (p >= off[cells]) return;
  const ulong i = val[p];
  for (int k = 0; k < D; ++k) xs[(ulong)p * D + k] = x[i * D + k];
}
