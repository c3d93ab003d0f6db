// Minimum and maximum with the index of their first occurrence, in one pass.
// NaN policy (as NumPy's min/argmin): a NaN beats every number, so the result is NaN with the
// index of the first NaN. Ties keep the lower index. An empty state has index EMPTY, and the
// values +inf (least) and -inf (greatest), so it loses to every element by the same rules (a
// value of +inf at a real index beats it on the index): merge needs no emptiness test.
#include "real.clh"
#define EMPTY ULONG_MAX

typedef struct {
  real vmin;
  real vmax;
  ulong imin;
  ulong imax;
} extrema_t;

inline extrema_t identity(void) {
  extrema_t r;
  r.vmin = INFINITY;
  r.vmax = -INFINITY;
  r.imin = r.imax = EMPTY;
  return r;
}

// Does (b, ib) come before (a, ia)? NaNs first (the first of them), then by value (less: <,
// otherwise >), equal values by index.
inline int ext_takes(real a, ulong ia, real b, ulong ib, int less) {
  const int an = isnan(a);
  if (isnan(b)) return !an || ib < ia;
  return !an && ((less ? b < a : b > a) || (b == a && ib < ia));
}

inline extrema_t merge(extrema_t a, extrema_t b) {
  const int tn = ext_takes(a.vmin, a.imin, b.vmin, b.imin, 1);
  const int tx = ext_takes(a.vmax, a.imax, b.vmax, b.imax, 0);
  a.vmin = tn ? b.vmin : a.vmin;
  a.imin = tn ? b.imin : a.imin;
  a.vmax = tx ? b.vmax : a.vmax;
  a.imax = tx ? b.imax : a.imax;
  return a;
}

// The least value and its first index do not depend on how elements are grouped: the work-group
// trees may merge in any order (reduce_tree.clh).
#define MERGE_ANY_ORDER

inline extrema_t state_add(extrema_t a, real x, ulong i) {
  extrema_t b;
  b.vmin = b.vmax = x;
  b.imin = b.imax = i;
  return merge(a, b);
}

// merge for a state a whose elements all come before b's (a slot's earlier elements, b not
// empty): equal values and NaNs keep a's, so no index compare and no branches. merge's general
// rules here, once per eight elements, held f32 to 78% of the H200's read bandwidth and f64 to
// 87% (first stage alone, 2^27 values: 3450 -> 3760-3820 GB/s f32, 3885 -> 4280 f64, where the
// sum reads at 4250 and 4450). A block's least and greatest by fmin / fmax, with the index found
// after, was no faster for f32 (3385-3464 GB/s), though a state of the values alone reads at the
// sum's rate: what f32 lacked was in finding the indices (state_add8's NaN test, below).
inline extrema_t merge_later(extrema_t a, extrema_t b) {
  const int empty = a.imin == EMPTY;  // (imin and imax are empty together)
  const int tn = empty || (!isnan(a.vmin) && (isnan(b.vmin) || b.vmin < a.vmin));
  const int tx = empty || (!isnan(a.vmax) && (isnan(b.vmax) || b.vmax > a.vmax));
  a.vmin = tn ? b.vmin : a.vmin;
  a.imin = tn ? b.imin : a.imin;
  a.vmax = tx ? b.vmax : a.vmax;
  a.imax = tx ? b.imax : a.imax;
  return a;
}

// Eight consecutive elements of a slot (i, i + P, ..., i + 7P): their own extrema with plain
// compares and a 3-bit index, then merge_later. Strict compares keep the earlier of equal values.
// A NaN never passes a compare, so the block's sum, NaN when one is (or when +inf meets -inf),
// sends the block to a second loop with the NaN rules: the first NaN wins and nothing replaces
// it. So the result is the same however elements are grouped, and a block without NaNs costs a
// compare and two selects an element for each extremum (H200, extrema of 2^27 floats in one
// launch: 148.8 -> 137.7-139.6 us; 3607 -> 3850-3900 GB/s).
inline extrema_t state_add8(extrema_t a, const real* v, ulong i, ulong P) {
  real mn = v[0], mx = v[0], s = v[0];
  uint kmn = 0, kmx = 0;
#pragma unroll
  for (uint u = 1; u < 8; ++u) {
    const real x = v[u];
    s += x;
    if (x < mn) mn = x, kmn = u;
    if (x > mx) mx = x, kmx = u;
  }
  if (isnan(s)) {
    mn = mx = v[0];
    kmn = kmx = 0;
#pragma unroll
    for (uint u = 1; u < 8; ++u) {
      const real x = v[u];
      const int xnan = isnan(x);
      if (!isnan(mn) && (xnan || x < mn)) mn = x, kmn = u;
      if (!isnan(mx) && (xnan || x > mx)) mx = x, kmx = u;
    }
  }
  extrema_t b;
  b.vmin = mn;
  b.vmax = mx;
  b.imin = i + kmn * P;
  b.imax = i + kmx * P;
  return merge_later(a, b);
}

#define STATE_ADD8 state_add8
#define ROWS_CUSTOM
#define STATE extrema_t
#define ELEMENT(v) (v)
#include "reduce_slots.clh"

// The CPUs' form (reduce.rows = 1), with reduce_slots.clh's slots a work-item: the work-item walks
// rows of its ROW_SLOTS contiguous slots, keeping each slot's least and greatest value and the row
// they came from, updated by a compare and a select per element. Within a slot rows come in index
// order, so a strict compare keeps the first of equal values, and a NaN, once held, is never
// replaced: the slot's state is the one state_add gives, and the merge after it, which does not
// depend on the grouping, the one of every other form.
#ifdef REAL_DOUBLE
typedef ulong row_t;  // lanes as wide as the values', so compares and selects stay in one vector
typedef ulong8 rowv;
#define as_rowv as_ulong8
#define vload_rowv vload8
#define vstore_rowv vstore8
#else
typedef uint row_t;
typedef uint16 rowv;
#define as_rowv as_uint16
#define vload_rowv vload16
#define vstore_rowv vstore16
#endif
// Rows 0 .. whole - 1 of this work-item's slots into mn, mx and the rows rn, rx they came from,
// with the NaN rules (taken only when the vector pass below saw a NaN): a slot's value is replaced
// where TN (TX) holds for the element v (vnan: whether it is a NaN).
#define EXT_ROWS(TN, TX)                                         \
  for (uint b = 0; b < ROW_SLOTS; ++b) {                         \
    mn[b] = mx[b] = x[s0 + b];                                   \
    rn[b] = rx[b] = 0;                                           \
  }                                                              \
  for (ulong r = 1; r < whole; ++r) {                            \
    __global const real* row = x + r * P + s0;                   \
    const row_t rr = (row_t)r;                                   \
    for (uint b = 0; b < ROW_SLOTS; ++b) {                       \
      const real v = row[b];                                     \
      const int vnan = isnan(v);                                 \
      const int tn = TN;                                         \
      const int tx = TX;                                         \
      mn[b] = tn ? v : mn[b];                                    \
      rn[b] = tn ? rr : rn[b];                                   \
      mx[b] = tx ? v : mx[b];                                    \
      rx[b] = tx ? rr : rx[b];                                   \
    }                                                            \
  }
// One row r of RSIMD slots from j into the registers a, z (least, greatest), ra, rz (their rows)
// and nan (the NaN lanes seen), without NaN rules: a compare with a NaN is false, so none enters.
#define EXT_LANE_UPDATE(r)                                   \
  {                                                          \
    const rsimd v = vload_rsimd(0, x + (r) * P + s0 + j);    \
    const rowv rr = (rowv)((row_t)(r));                      \
    const rsimd_mask ln = v < a, gx = v > z;                 \
    a = select(a, v, ln);                                    \
    ra = select(ra, rr, as_rowv(ln));                        \
    z = select(z, v, gx);                                    \
    rz = select(rz, rr, as_rowv(gx));                        \
    nan |= isnan(v);                                         \
  }
// Rows [r, r + count) of the work-item's slots into mn, mx, rn, rx, RSIMD slots at a time.
inline rsimd_mask ext_rows_block(__global const real* x, ulong s0, ulong r, uint count, ulong P, real* mn,
                                  real* mx, row_t* rn, row_t* rx) {
  rsimd_mask nan = (rsimd_mask)0;
  for (uint j = 0; j + RSIMD <= ROW_SLOTS; j += RSIMD) {
    rsimd a = vload_rsimd(0, mn + j), z = vload_rsimd(0, mx + j);
    rowv ra = vload_rowv(0, rn + j), rz = vload_rowv(0, rx + j);
    if (count == 8) {
#pragma unroll
      for (uint u = 0; u < 8; ++u) EXT_LANE_UPDATE(r + u)
    } else {
      for (uint u = 0; u < count; ++u) EXT_LANE_UPDATE(r + u)
    }
    vstore_rsimd(a, 0, mn + j);
    vstore_rsimd(z, 0, mx + j);
    vstore_rowv(ra, 0, rn + j);
    vstore_rowv(rz, 0, rx + j);
  }
  return nan;
}

// The rows 0 .. whole - 1 first without NaN rules, in vectors: an element costs two compares, four
// selects and the NaN test, and RSIMD slots' states stay in registers for eight rows at a time. (A
// row at a time over arrays of states, which PoCL left scalar, ran at 41% of a 16-core CPU's copy
// bandwidth for doubles; with the rules' extra tests, 24%.) Returns whether a NaN was seen: then
// the rows go again, with the rules (EXT_ROWS).
inline int ext_rows_vector(__global const real* x, ulong s0, ulong whole, ulong P, real* mn, real* mx,
                           row_t* rn, row_t* rx) {
  rsimd_mask nan = (rsimd_mask)0;
  for (uint j = 0; j + RSIMD <= ROW_SLOTS; j += RSIMD) {
    const rsimd v = vload_rsimd(0, x + s0 + j);
    vstore_rsimd(v, 0, mn + j);
    vstore_rsimd(v, 0, mx + j);
    vstore_rowv((rowv)0, 0, rn + j);
    vstore_rowv((rowv)0, 0, rx + j);
    nan |= isnan(v);
  }
  ulong r = 1;
  for (; r + 8 <= whole; r += 8) nan |= ext_rows_block(x, s0, r, 8, P, mn, mx, rn, rx);
  if (r < whole) nan |= ext_rows_block(x, s0, r, (uint)(whole - r), P, mn, mx, rn, rx);
  return any(nan);
}

__kernel void reduce_rows(__global const real* x, ulong offset, ulong n, ulong P, real pa, real pb,
                          __global extrema_t* out, ulong ld) {
  ROWS_START;
  extrema_t st = identity();
  // Rows in which every slot of this work-item has its element: r P + s0 + ROW_SLOTS - 1 < n.
  const ulong whole = (s0 + ROW_SLOTS <= P && s0 + ROW_SLOTS <= n) ? (n - s0 - ROW_SLOTS) / P + 1 : 0;
  ulong done = 0;  // rows folded by the SIMD loop
  if (whole > 0) {
    real mn[ROW_SLOTS], mx[ROW_SLOTS];
    row_t rn[ROW_SLOTS], rx[ROW_SLOTS];
#if ROW_SLOTS % RSIMD == 0
    const int rules = ext_rows_vector(x, s0, whole, P, mn, mx, rn, rx);
#else
    const int rules = 1;
#endif
    if (rules) {
      EXT_ROWS(v < mn[b] || (vnan && !isnan(mn[b])), v > mx[b] || (vnan && !isnan(mx[b])))
    }
    for (uint b = 0; b < ROW_SLOTS; ++b) {
      extrema_t e;
      e.vmin = mn[b];
      e.vmax = mx[b];
      e.imin = (ulong)rn[b] * P + s0 + b;
      e.imax = (ulong)rx[b] * P + s0 + b;
      st = merge(st, e);
    }
    done = whole;
  }
  // The rest, one element at a time: rows past `whole`, or every row when this work-item's slots
  // run past P or n.
  for (uint b = 0; b < ROW_SLOTS && s0 + b < P; ++b)
    for (ulong i = done * P + s0 + b; i < n; i += P) st = state_add(st, x[i], i);
  out[get_global_id(0)] = st;
}
