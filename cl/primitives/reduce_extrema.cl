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
// the same however elements are grouped. reduce_rows (the CPUs' form) folds one element at a time:
// there, as SIMD over slots, these data-dependent selects ran 2x slower than the per-element merge
// (PoCL, 2 cores, extrema of 2^25 floats 60 ms against 28 ms).
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
#define ROWS_ADD_SINGLY
#define STATE extrema_t
#define ELEMENT(v) (v)
#include "reduce_slots.clh"
