// Sum over i < j of f(q_ij), for NOUT parameters at once (Andrzejewski, Gramacki & Gramacki 2013,
// sec. 5.3). The upper triangle of the n x n pair matrix is cut into TILE x TILE tiles; work-group
// g takes tile tile0 + g, numbered row by row over the triangle, so a 1-d grid covers it exactly.
// Both blocks of points are read once per tile (rows into registers, columns into local memory),
// diagonal and ragged tiles use the masked path, interior tiles the unmasked one.
//
// Rounding is fixed by TILE and CHUNK only: each row sums CHUNK columns in `real`, folds that into
// a compensated wide accumulator, and rows then tiles merge by the canonical bottom-up tree of
// reduce_tree.clh. Work-item i owns rows ROWS*i .. ROWS*i+ROWS-1 of the tile, so WG and ROWS
// (ROWS * WG == TILE) do not change the result.
#include "pair_common.clh"
#include "reduce_tree.clh"
#include "triangle_tiles.clh"

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pairwise_triangle(__global const real* x, uint n, uint nb, ulong tile0,
                       __constant const real* params, __global STATE* partials, ulong stride) {
  __local real xl[DIM * LJ];
  __local STATE sc[WG];
  const uint l = get_local_id(0);
  const ulong t = tile0 + get_group_id(0);
  ulong q;
  uint c;
  tri_tile(t, nb, &q, &c);
  const uint i0 = (uint)q * TILE + l * ROWS;
  const uint j0 = c * TILE;
  const int diag = (q == c);
  const int masked = diag || (j0 + TILE > n);

  real xi[ROWS][DIM];
  uint first_valid[ROWS];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r) {
    const uint i = i0 + r;
    first_valid[r] = diag ? i + 1 : 0;
#pragma unroll
    for (uint a = 0; a < DIM; ++a) xi[r][a] = i < n ? x[a * n + i] : RC(0.0);
  }
  real pk[NOUT];
#pragma unroll
  for (uint k = 0; k < NOUT; ++k) pk[k] = params[k];
  STATE acc[ROWS][NOUT];
#pragma unroll
  for (uint r = 0; r < ROWS; ++r)
#pragma unroll
    for (uint k = 0; k < NOUT; ++k) acc[r][k] = identity();

  for (uint jc = 0; jc < TILE; jc += LJ) {
    stage_columns(xl, x, n, n, j0 + jc, l);
    for (uint cc = 0; cc < LJ; cc += CHUNK)
      chunk_accumulate(xi, xl, cc, j0 + jc + cc, pk, acc, masked, first_valid, n);
  }

  // This work-item's rows bottom-up, then the work-group's, one output at a time.
  for (uint k = 0; k < NOUT; ++k) {
    STATE v[ROWS];
#pragma unroll
    for (uint r = 0; r < ROWS; ++r) v[r] = acc[r][k];
#pragma unroll
    for (uint s = 1; s < ROWS; s <<= 1)
#pragma unroll
      for (uint r = 0; r + s < ROWS; r += 2 * s) v[r] = merge(v[r], v[r + s]);
    sc[l] = v[0];
    tree_reduce_local(sc, l);
    if (l == 0) partials[k * stride + get_group_id(0)] = sc[0];
  }
}
