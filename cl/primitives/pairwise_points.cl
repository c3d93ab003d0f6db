// out[k * m + i] = sum over j of f_k(q(y_i, x_j)): every target point against every sample, the
// skeleton of KDE evaluation. A work-item owns ROWS targets in registers; the samples stream
// through local memory LJ at a time. Each target sums CHUNK samples in `real`, then folds into a
// compensated wide accumulator in sample order, so WG and ROWS do not change the result.
// Points are dimension-major: y[a * m + i], x[a * n + j].
#include "pair_common.clh"

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pairwise_points(__global const real* y, uint m, __global const real* x, uint n,
                     __constant const real* params, __global real* out, ulong out_offset) {
  __local real xl[DIM * LJ];
  const uint l = get_local_id(0);
  const uint i0 = get_group_id(0) * (WG * ROWS) + l * ROWS;

  real yi[ROWS][DIM];
  uint first_valid[ROWS];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r) {
    first_valid[r] = 0;
#pragma unroll
    for (uint a = 0; a < DIM; ++a) yi[r][a] = i0 + r < m ? y[a * m + i0 + r] : RC(0.0);
  }
  real pk[NOUT];
#pragma unroll
  for (uint k = 0; k < NOUT; ++k) pk[k] = params[k];
  STATE acc[ROWS][NOUT];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r)
#pragma unroll
    for (uint k = 0; k < NOUT; ++k) acc[r][k] = identity();

  for (uint jb = 0; jb < n; jb += LJ) {
    stage_columns(xl, x, n, n, jb, l);
    for (uint cc = 0; cc < LJ && jb + cc < n; cc += CHUNK)
      chunk_accumulate(yi, xl, cc, jb + cc, pk, acc, jb + cc + CHUNK > n, first_valid, n);
  }
#pragma unroll
  for (uint r = 0; r < ROWS; ++r) {
    if (i0 + r < m) {
#pragma unroll
      for (uint k = 0; k < NOUT; ++k) out[out_offset + (ulong)k * m + i0 + r] = (real)acc_value(acc[r][k]);
    }
  }
}
