// Batched selection shaped for CPU devices: the arguments, results and NaN counts of
// select_rows.cl's kernels, but one work-item per row (work-groups of one), which copies the row's
// keys to local memory and selects in them by introselect: partitions around a median of three
// until at most 16 keys remain, then an insertion sort; a range that is still long after
// 2 log2(length) + 4 partitions (inputs built against the pivot rule) is heap-sorted, so a row
// costs O(cols log cols) at worst and about 2 cols key moves a rank on average.
// Several ranks of a row share the work: every pivot's final place and every rank found is a
// fixed point (each key before it is at most its key, each key after it at least), and a rank
// is searched only between the fixed points around it (up to FIXMAX of them are kept), so the
// five quantiles of a row cost about twice its median.
// Why a second form: select_rows.cl spreads a row over a work-group and meets at a barrier a
// dozen times a rank; PoCL runs such a group as loops between the barriers on one core, with the
// row's keys spilled to memory between them (16 Xeon cores, PoCL 5: the five quantiles of 65536
// rows of 2048 doubles took 985 ms, 1% of the cores' copy bandwidth). A CPU core selects a row of
// 2048 keys from its L1 cache in microseconds.
// Results are the keys of the ranks asked for: exact, and the same as select_rows.cl's.
// Options: ELEM_KIND (order_keys.clh), CAP (the longest row, keys of local memory a group).
#include "order_keys.clh"

#define FIXMAX 64

inline void swap_at(__local skey* a, uint i, uint j) {
  const skey t = a[i];
  a[i] = a[j];
  a[j] = t;
}

inline void insertion_sort(__local skey* a, uint lo, uint hi) {
  for (uint i = lo + 1; i <= hi; ++i) {
    const skey v = a[i];
    uint j = i;
    while (j > lo && a[j - 1] > v) {
      a[j] = a[j - 1];
      --j;
    }
    a[j] = v;
  }
}

// The max-heap of a[lo, lo + n) below node r (0-based within the heap).
inline void sift_down(__local skey* a, uint lo, uint r, uint n) {
  for (;;) {
    uint c = 2 * r + 1;
    if (c >= n) return;
    if (c + 1 < n && a[lo + c] < a[lo + c + 1]) ++c;
    if (a[lo + r] >= a[lo + c]) return;
    swap_at(a, lo + r, lo + c);
    r = c;
  }
}

inline void heap_sort(__local skey* a, uint lo, uint hi) {
  const uint n = hi - lo + 1;
  for (uint r = n / 2; r-- > 0;) sift_down(a, lo, r, n);
  for (uint e = n - 1; e > 0; --e) {
    swap_at(a, lo, lo + e);
    sift_down(a, lo, 0, e);
  }
}

// Records position f as fixed (see select_rows below) in the ascending list fx of *nf, while
// there is room; a position recorded twice is kept once.
inline void fix(uint* fx, uint* nf, uint f) {
  const uint m = *nf;
  if (m == FIXMAX) return;
  uint e = m;
  while (e > 0 && fx[e - 1] > f) --e;
  if (e > 0 && fx[e - 1] == f) return;
  for (uint i = m; i > e; --i) fx[i] = fx[i - 1];
  fx[e] = f;
  *nf = m + 1;
}

// Puts at t (lo <= t <= hi) the key that sorting a[lo..hi] would put there, with the keys before
// it at most it and those after it at least it, and records every pivot's final place in fx.
// The partition is Lomuto's without branches (each key is written back and the boundary moves by
// the comparison): a Hoare scan's data-dependent branches mispredict about every other key on
// random rows. A pivot with no key below it gathers its ties next, so runs of equal keys cost
// one pass, not one pass a key.
inline void select_nth(__local skey* a, uint lo, uint hi, uint t, uint* fx, uint* nf) {
  uint budget = 2 * (32 - (uint)clz(hi - lo + 1)) + 4;
  while (hi - lo > 16) {
    if (budget-- == 0) {
      heap_sort(a, lo, hi);
      return;
    }
    // The median of a[lo], a[mid] and a[hi] as the pivot, at hi.
    const uint mid = lo + (hi - lo) / 2;
    if (a[mid] < a[lo]) swap_at(a, lo, mid);
    if (a[hi] < a[lo]) swap_at(a, lo, hi);
    if (a[hi] < a[mid]) swap_at(a, mid, hi);
    swap_at(a, mid, hi);
    const skey p = a[hi];
    uint j = lo;
    for (uint i = lo; i < hi; ++i) {
      const skey v = a[i];
      a[i] = a[j];
      a[j] = v;
      j += v < p;
    }
    swap_at(a, j, hi);  // a[lo, j) < p = a[j] <= a(j, hi]
    if (j == lo) {      // p is the least key: a[lo, e) == p < a[e, hi]
      uint e = lo + 1;
      for (uint i = lo + 1; i <= hi; ++i) {
        const skey v = a[i];
        a[i] = a[e];
        a[e] = v;
        e += v == p;
      }
      fix(fx, nf, e - 1);
      if (t < e) return;
      lo = e;
      continue;
    }
    fix(fx, nf, j);
    if (t == j) return;
    if (t < j) hi = j - 1;
    else lo = j + 1;
  }
  if (lo < hi) insertion_sort(a, lo, hi);
}

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
  __global const uint* rk = ranks + (ulong)g * rank_stride;
  __global skey* o = out + (ulong)g * R;
  // Fixed positions, ascending: the key at each is in its sorted place, with every key before it
  // at most it and every key after it at least it (the ranks found and the pivots' places).
  uint fixed[FIXMAX];
  uint nf = 0;
  for (uint j = 0; j < R; ++j) {
    const uint t = rk[j];
    uint lo = 0, hi = cols - 1, f = 0;
    for (; f < nf && fixed[f] < t; ++f) lo = fixed[f] + 1;
    if (f == nf || fixed[f] != t) {
      if (f < nf) hi = fixed[f] - 1;
      select_nth(a, lo, hi, t, fixed, &nf);
      fix(fixed, &nf, t);
    }
    o[j] = a[t];
  }
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
