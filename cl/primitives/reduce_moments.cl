// Count, mean and sum of squared deviations (M2) in one pass: Welford's update within a slot,
// Chan, Golub & LeVeque's pairwise merge between slots (their eq. 2.1b). NaN propagates.
#include "real.clh"

typedef struct {
  real mean;
  real m2;
  ulong n;
} moments_t;

inline moments_t identity(void) {
  moments_t r;
  r.mean = r.m2 = RC(0.0);
  r.n = 0;
  return r;
}

inline moments_t merge(moments_t a, moments_t b) {
  if (b.n == 0) return a;
  if (a.n == 0) return b;
  const ulong n = a.n + b.n;
  const real delta = b.mean - a.mean;
  const real fb = (real)b.n / (real)n;
  moments_t r;
  r.mean = a.mean + delta * fb;
  r.m2 = (a.m2 + b.m2) + delta * delta * ((real)a.n * fb);
  r.n = n;
  return r;
}

// Welford's update, with x - mean_new taken as delta - step, not from the rounded new mean: that
// subtraction lost up to half an ulp of the mean, which is large against the spread when the mean
// is (float data of mean 1000 and sd 0.5: M2 of two values off by 3e-4 relative). This is Chan's
// merge of one element into the state, delta^2 (n - 1) / n.
inline moments_t state_add(moments_t a, real x, ulong i) {
  a.n += 1;
  const real delta = x - a.mean;
  const real step = delta / (real)a.n;
  a.mean += step;
  a.m2 += delta * (delta - step);
  return a;
}

// Eight elements of a slot at once: their mean (the sum times 1/8, exact scaling) and their M2 by
// a second pass over the registers, then Chan's merge. One division per eight elements instead of
// Welford's one per element, which held f64 to 70% of copy bandwidth on the H100.
inline moments_t state_add8(moments_t a, const real* v, ulong i, ulong P) {
  real s = RC(0.0);
#pragma unroll
  for (int u = 0; u < 8; ++u) s += v[u];
  moments_t b;
  b.mean = s * RC(0.125);
  b.m2 = RC(0.0);
#pragma unroll
  for (int u = 0; u < 8; ++u) {
    const real d = v[u] - b.mean;
    b.m2 += d * d;
  }
  b.n = 8;
  return merge(a, b);
}

#define STATE_ADD8 state_add8
#define STATE moments_t
#define ELEMENT(v) (v)
#define ROWS_CUSTOM
#include "reduce_slots.clh"

// The CPUs' form (reduce_slots.clh's reduce_rows), its block loop in vectors: RSIMD slots' means and
// M2 in two registers, each lane state_add8 and merge in the same order, so the same bits. Every
// slot of the block loop has 8 g elements before block g, so merge's counts, its fraction and its
// empty-state branch are the same for all lanes and computed once.
__kernel void reduce_rows(__global const real* x, ulong offset, ulong n, ulong P, real pa, real pb,
                          __global moments_t* out, ulong ld) {
  ROWS_START;
  real M[ROW_SLOTS], Q[ROW_SLOTS];
  const ulong whole = rows_whole_blocks(n, P);
  for (ulong g = 0; g < whole; ++g) {
    __global const real* blk = x + 8 * g * P + s0;
    const real fb = RC(8.0) / (real)(8 * (g + 1));  // merge's b.n / n
    const real fa = (real)(8 * g) * fb;              // and a.n times it
    for (uint j = 0; j + RSIMD <= ROW_SLOTS; j += RSIMD) {
      rsimd v[8];
      rsimd s = (rsimd)RC(0.0);
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        v[u] = vload_rsimd(0, blk + u * P + j);
        s += v[u];
      }
      const rsimd mb = s * RC(0.125);
      rsimd qb = (rsimd)RC(0.0);
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const rsimd d = v[u] - mb;
        qb += d * d;
      }
      if (g == 0) {
        vstore_rsimd(mb, 0, M + j);
        vstore_rsimd(qb, 0, Q + j);
      } else {
        const rsimd ma = vload_rsimd(0, M + j), delta = mb - ma;
        vstore_rsimd(ma + delta * fb, 0, M + j);
        vstore_rsimd((vload_rsimd(0, Q + j) + qb) + delta * delta * fa, 0, Q + j);
      }
    }
  }
  moments_t st[ROW_SLOTS];
  for (uint b = 0; b < ROW_SLOTS; ++b) {
    st[b] = identity();
    if (whole > 0) {
      st[b].mean = M[b];
      st[b].m2 = Q[b];
      st[b].n = 8 * whole;
    }
  }
  out[get_global_id(0)] = rows_finish(st, x, 8 * whole, s0, n, P, pa, pb);
}
