// Minimum and maximum with the index of their first occurrence, in one pass.
// NaN policy (as NumPy's min/argmin): a NaN beats every number, so the result is NaN with the
// index of the first NaN. Ties keep the lower index. An empty state has index EMPTY.
#include "real.clh"
#define EMPTY ULONG_MAX

typedef struct {
  real vmin;
  real vmax;
  ulong imin;
  ulong imax;
} extrema_t;

// Does (a, ia) come before (b, ib)? less = 1 orders by <, less = 0 by >.
inline int ext_before(real a, ulong ia, real b, ulong ib, int less) {
  if (ib == EMPTY) return ia != EMPTY;
  if (ia == EMPTY) return 0;
  if (isnan(a)) return !isnan(b) || ia < ib;
  if (isnan(b)) return 0;
  if (a == b) return ia < ib;
  return less ? a < b : a > b;
}

inline extrema_t identity(void) {
  extrema_t r;
  r.vmin = r.vmax = RC(0.0);
  r.imin = r.imax = EMPTY;
  return r;
}

inline extrema_t merge(extrema_t a, extrema_t b) {
  if (ext_before(b.vmin, b.imin, a.vmin, a.imin, 1)) {
    a.vmin = b.vmin;
    a.imin = b.imin;
  }
  if (ext_before(b.vmax, b.imax, a.vmax, a.imax, 0)) {
    a.vmax = b.vmax;
    a.imax = b.imax;
  }
  return a;
}

inline extrema_t state_add(extrema_t a, real x, ulong i) {
  extrema_t b;
  b.vmin = b.vmax = x;
  b.imin = b.imax = i;
  return merge(a, b);
}

// Eight consecutive elements of a slot (i, i + P, ..., i + 7P): their own extrema with plain
// compares and a 3-bit index, then one merge. merge's general rules cost about 40 instructions an
// element, which held f32 to 54% of copy bandwidth on the H100. Within the block the same policy:
// the first NaN wins (nothing replaces a NaN), and ties keep the earlier element, so the result is
// the same however elements are grouped.
inline extrema_t state_add8(extrema_t a, const real* v, ulong i, ulong P) {
  real mn = v[0], mx = v[0];
  uint kmn = 0, kmx = 0;
#pragma unroll
  for (uint u = 1; u < 8; ++u) {
    const real x = v[u];
    const int xnan = isnan(x);
    if (!isnan(mn) && (xnan || x < mn)) mn = x, kmn = u;
    if (!isnan(mx) && (xnan || x > mx)) mx = x, kmx = u;
  }
  extrema_t b;
  b.vmin = mn;
  b.vmax = mx;
  b.imin = i + kmn * P;
  b.imax = i + kmx * P;
  return merge(a, b);
}

#define STATE_ADD8 state_add8
#define ROWS_CUSTOM
#define STATE extrema_t
#define ELEMENT(v) (v)
#include "reduce_slots.clh"

// The CPUs' form (reduce.rows = 1), with reduce_slots.clh's slots a work-item: the work-item walks
// rows of its ROW_SLOTS contiguous slots, keeping each slot's least and greatest value and the row
// they came from in four flat arrays, updated by a compare and a select per element. The loop over
// the slots is then SIMD (with merge()'s branches on empty states and NaNs in the loop, PoCL left
// it scalar: 16% of a 16-core CPU's copy bandwidth for doubles). Within a slot rows come in index
// order, so a strict compare keeps the first of equal values, and a NaN, once held, is never
// replaced: the slot's state is the one state_add gives, and the merge after it, which does not
// depend on the grouping, the one of every other form.
#ifdef REAL_DOUBLE
typedef ulong row_t;  // lanes as wide as the values', so compares and selects stay in one vector
#else
typedef uint row_t;
#endif
// Rows 0 .. whole - 1 of this work-item's slots into mn, mx and the rows rn, rx they came from:
// a slot's value is replaced where TN (TX) holds for the element v (vnan: whether it is a NaN);
// EXTRA runs for every element v, row 0's included.
#define EXT_ROWS(TN, TX, EXTRA)                                  \
  for (uint b = 0; b < ROW_SLOTS; ++b) {                         \
    const real v = x[s0 + b];                                    \
    mn[b] = mx[b] = v;                                           \
    rn[b] = rx[b] = 0;                                           \
    EXTRA                                                        \
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
      EXTRA                                                      \
    }                                                            \
  }
__kernel void reduce_rows(__global const real* x, ulong offset, ulong n, ulong P, real pa, real pb,
                          __global extrema_t* out, ulong ld) {
  const ulong s0 = get_global_id(0) * ROW_SLOTS;
  x += offset + get_global_id(1) * ld;
  out += get_global_id(1) * get_global_size(0);
  extrema_t st = identity();
  // Rows in which every slot of this work-item has its element: r P + s0 + ROW_SLOTS - 1 < n.
  const ulong whole = (s0 + ROW_SLOTS <= P && s0 + ROW_SLOTS <= n) ? (n - s0 - ROW_SLOTS) / P + 1 : 0;
  ulong done = 0;  // rows folded by the SIMD loop
  if (whole > 0) {
    real mn[ROW_SLOTS], mx[ROW_SLOTS];
    row_t rn[ROW_SLOTS], rx[ROW_SLOTS];
    // First without NaN rules: a compare with a NaN is false, so none enters, and the loop is
    // two compares, four selects and the NaN test an element (the rules' extra tests made it 24% of
    // a 16-core CPU's copy bandwidth for doubles). Only if a NaN was seen do the rows go again
    // with the rules.
    int anynan = 0;
    EXT_ROWS(v < mn[b], v > mx[b], anynan |= isnan(v);)
    if (anynan) {
      EXT_ROWS(v < mn[b] || (vnan && !isnan(mn[b])), v > mx[b] || (vnan && !isnan(mx[b])), )
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
