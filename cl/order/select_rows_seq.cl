// Batched selection shaped for CPU devices: the arguments, results and NaN counts of
// select_rows.cl's kernels, but one work-item per row (work-groups of one), which copies the row's
// keys to local memory and selects in them by introselect (introselect.clh: O(cols) a rank on
// average, the ranks sharing partitions, O(cols log cols) at worst).
// Why a second form: select_rows.cl spreads a row over a work-group and meets at a barrier a
// dozen times a rank; PoCL runs such a group as loops between the barriers on one core, with the
// row's keys spilled to memory between them (16 Xeon cores, PoCL 5: the five quantiles of 65536
// rows of 2048 doubles took 985 ms, 1% of the cores' copy bandwidth). A CPU core selects a row of
// 2048 keys from its L1 cache in microseconds.
// Results are the keys of the ranks asked for: exact, and the same as select_rows.cl's.
// Options: ELEM_KIND (order_keys.clh), CAP (the longest row, keys of local memory a group).
#define WG 1  // (order_keys.clh's local sort, unused here, is written for a group)
#include "order_keys.clh"

#define IS_SPACE __local
#define IS_NAME(f) f##_local
#include "introselect.clh"

// Group g (one work-item) selects in row row_of[g] (use_row_of) or g the ranks ranks[g
// rank_stride + j] (0-based, j < R), writes their keys to out[g R + j] and the row's NaN count to
// nan_out[g]; with nan_stop a row with NaNs writes only its count (as select_rows).
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void select_rows(__global const elem_t* x, ulong xoff, uint cols, ulong ld, __global const uint* row_of,
                 uint use_row_of, __global const uint* ranks, uint rank_stride, uint R, uint nan_stop,
                 __global skey* out, __global uint* nan_out) {
  __local skey a[CAP];
  const uint g = get_group_id(0);
  __global const elem_t* row = x + xoff + (use_row_of ? row_of[g] : g) * ld;
  uint nan = 0;
  for (uint i = 0; i < cols; ++i) {
    const elem_t v = row[i];
    nan += is_nan_elem(v);
    a[i] = to_key(v);
  }
  nan_out[g] = nan;
  if (nan_stop && nan > 0) return;
  select_many_local(a, cols, ranks + (ulong)g * rank_stride, R, out + (ulong)g * R);
}

// top_k along rows from the thresholds select_rows found, as select_rows.cl's gather: the keys
// beyond thr[g] (NaN keys skipped when skip_nan) with their columns, then the ties with the
// lowest columns, as many as k takes; one work-item walks its row twice.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void top_k_rows_gather(__global const elem_t* x, ulong xoff, uint cols, ulong ld, __global const skey* thr,
                       uint largest, uint skip_nan, uint k, __global skey* keys, __global uint* cols_out) {
  const uint g = get_group_id(0);
  __global const elem_t* row = x + xoff + (ulong)g * ld;
  const skey t = thr[g];
  uint nb = 0;
  for (uint i = 0; i < cols; ++i) {
    const skey key = to_key(row[i]);
    nb += !(skip_nan && is_nan_elem(row[i])) && (largest ? key > t : key < t);
  }
  const uint need = k - nb;
  uint at = 0, ties = 0;
  __global skey* ko = keys + (ulong)g * k;
  __global uint* co = cols_out + (ulong)g * k;
  for (uint i = 0; i < cols && (at < nb || ties < need); ++i) {
    if (skip_nan && is_nan_elem(row[i])) continue;
    const skey key = to_key(row[i]);
    if (largest ? key > t : key < t) {
      ko[at] = key;
      co[at] = i;
      ++at;
    } else if (key == t && ties < need) {
      ko[nb + ties] = key;
      co[nb + ties] = i;
      ++ties;
    }
  }
}
