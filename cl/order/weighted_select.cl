// Weighted selection: the kernels behind clstat::order::weighted_quantiles (host side in
// src/order/weighted_select.cpp).
//
// Algorithm. A weighted quantile is the smallest key v whose cumulative weight C(v), the summed
// weight of the values <= v, reaches a target T. The host finds it by bracketing:
// 1. The scale s = 78 - ilogb(m), m the largest weight of the first sample: 16 bits of room for
//    larger weights the sample missed. The sample is the host's strided one (weighted_sample) for
//    spread targets, the device's stratified one (weighted_sample1) for one cluster of targets.
//    For small inputs, where the sample holds no positive weight, and where a weight does not fit
//    (step 2), s = 94 - ilogb(max w) from all weights (weight_check reads them once, with how many
//    are negative, NaN or infinite).
// 2. Every weight becomes the integer q = floor(w 2^s), so each q is below 2^95 and a sum of fewer
//    than 2^32 of them is exact in 128 bits (a lo and a hi word). weighted_intervals also counts
//    the weights that are negative, NaN or infinite and those that do not fit (w 2^s >= 2^95: the
//    sample missed a larger weight), and finds the largest weight; the host raises for the first
//    and repeats the pass with s from the true maximum for the second, so s depends on the data
//    only, and the weights are read once in the common case.
//    Integer sums do not depend on the order of the additions: the results are the same for any
//    device, work-group size or number of groups. (Truncation costs each weight less than
//    2^-94 max w; a double's 53 bits make q = m 2^k exactly once w 2^s >= 2^63.)
// 3. weighted_intervals reads (key, q) once and, for up to NB sorted disjoint brackets
//    [lo_b, hi_b] of keys, sums q and counts the values in each of the 2 nb + 1 intervals the
//    brackets cut the key line into (below the first, in bracket 0, between 0 and 1, ...), and
//    appends the values inside bracket b to b's region of the candidate buffers (up to its
//    capacity; the count tells the host whether the copy is complete). The interval sums give
//    C at every bracket edge exactly, so the host knows which interval holds each target even
//    when a bracket from its sample missed it.
// 4. The host sorts the few candidates of the bracket that holds a target. More than HOST_MAX
//    are narrowed by planned passes: the host splits the interval into NB ranges (equal steps of
//    value for floats, of key for integers) and enqueues several passes of 3 over the
//    candidates, each copying every range's; the last group of each finds the range that holds
//    the target and writes the next pass's ranges (plan_split, the host's rule), so the host
//    waits once for them all. (Where the data are not copied, counting passes of 3 over the data
//    narrow the interval, with the host deciding after each.)
// The first brackets: for spread targets the host's, from weighted_sample's strided sample of
// (key, weight); for one cluster of targets on 2^20 values or more the device's, from two samples
// (weighted_sample1 and weighted_sample2), with no host round trip before the first pass.
//
// Options: ELEM_KIND (as order_keys.clh), WG (a power of two), NB (brackets a launch: 1, 2, 4 or
// 8, the fewest that hold the call's: the interval search costs 2 NB compares a value, and the
// sums 2 NB + 1 local columns a work-item), FROM_KEYS (1: the input is candidate keys and their
// q, not values and weights), GITEMS (a work-item's elements a round, loaded together), STAGED
// (1, with NB = 1: the bracket holds few of the values, which gather in a local stage flushed
// every WCHECK rounds instead of by two barriers a round).
// Work-items stride through the data, neighbours reading neighbouring elements, on CPUs too:
// PoCL runs a group's work-items as vector loops. (A CPU form in which each work-item read a
// contiguous block and appended its candidates with a global atomic each took 126 ms for the
// weighted median of 2^24 doubles on 16 Xeon cores, PoCL 5; this form 27 ms.)
// Rounding: none. Every sum is of integers; a weight's only rounding is its truncation in 2.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "last_group.clh"
#include "order_keys.clh"

#ifndef NB
#define NB 8
#endif
#ifndef GITEMS
#define GITEMS 4
#endif
#define NI (2 * NB + 1)
#ifndef STAGED
#define STAGED 0
#endif
#if STAGED && NB != 1
#error "the staged pass takes one bracket"
#endif
#ifndef WSTAGE
#define WSTAGE 512  // the one-bracket pass's stage of candidates (24 bytes each for 64-bit keys)
#endif
#ifndef WCHECK
#define WCHECK 8    // rounds between its flushes
#endif

// The pass's parameters, `meta`: 4 ulongs a bracket for up to META_NB brackets (see
// weighted_intervals), then the scale s (a signed int in a ulong) at META_S, then the plan of the
// passes over candidates that run without the host (weighted_intervals says how): its state, the
// pass's source (offset, count, brackets), the summed q below the source's key range (128 bits),
// the target (128 bits), that range, the passes run, and the count of a range the plan stopped at.
#define META_NB 8
#define META_S (4 * META_NB)
#define PLAN_STATE (META_S + 1)
#define PLAN_OFF (META_S + 2)
#define PLAN_N (META_S + 3)
#define PLAN_NB (META_S + 4)
#define PLAN_BASE (META_S + 5)
#define PLAN_TARGET (META_S + 7)
#define PLAN_LO (META_S + 9)
#define PLAN_HI (META_S + 10)
#define PLAN_ROUND (META_S + 11)
#define PLAN_FOUND (META_S + 12)
#define META_WORDS (META_S + 13)
// After the meta, in 32-bit words (the pass's results, added by atomics: see weighted_intervals):
// per interval of up to NI_MAX, its summed q as four limbs (least significant first) and its
// count; then the NaN values, the bad weights, the weights past 2^95 and the largest weight's
// high word; then the values found in each bracket. One transfer each way holds all of it.
#define NI_MAX (2 * META_NB + 1)
#define SUMS_AT (2 * META_WORDS)
#define SCALARS_AT (SUMS_AT + 5 * NI_MAX)
#define FOUND_AT (SCALARS_AT + 4)
#define STATE_UINTS (FOUND_AT + META_NB)
// Then, from ulong FINAL_AT, the candidates of a plan's final range (HOST_MAX keys, then their
// q): the host reads them with the meta in one transfer (three reads had cost a weighted median
// of 2^27 doubles on an H200 about 0.1 ms; one, about 35 us).
#define FINAL_AT 96
#if STATE_UINTS > 2 * FINAL_AT
#error "the results run into the final candidates"
#endif
// Plan states: the host made this pass (and reads its sums); the plan runs (this pass's source
// and brackets are the plan's, and its last group makes the next); done (the target's candidates,
// at most HOST_MAX, are after the meta, at FINAL_AT, or its range is one key); stopped (the host goes on
// from the plan: a range whose copy overflowed, or a target past the ranges, PLAN_FOUND ~0).
#define PLAN_HOST 0
#define PLAN_RUN 1
#define PLAN_DONE 2
#define PLAN_STOP 3
#define HOST_MAX 4096  // kHost: candidates the host selects among
#define NO_SCALE 0x7fffffff  // s from a sample that held no positive weight: the host decides

// The maximum weight (as the bits of a non-negative double, whose unsigned order is the
// numeric order) and the count of weights that are negative, NaN or infinite, per group.
__kernel void weight_check(__global const double* w, ulong off, ulong n, __global ulong* part) {
  __local ulong mx[WG], bad[WG];
  const uint l = get_local_id(0);
  ulong m = 0, b = 0;
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
    const double v = w[off + i];
    if (!(v >= 0.0) || isinf(v)) ++b;
    else m = max(m, as_ulong(v));
  }
  mx[l] = m;
  bad[l] = b;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) {
      mx[l] = max(mx[l], mx[l + h]);
      bad[l] += bad[l + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    part[2 * get_group_id(0)] = mx[0];
    part[2 * get_group_id(0) + 1] = bad[0];
  }
}

// The one-cluster bracket on the device (the targets within 2% of each other in probability, as
// a median or one quantile of type 7), so that the first pass needs no host round trip and its
// bracket is about sqrt(S2 / WS1) = 32 times narrower than WS1 samples give:
// weighted_sample1 (one group) sorts WS1 (key, weight) pairs from stratified positions and takes
// the keys where the sample's cumulative weight reaches p_lo - d1 and p_hi + d1 of its total,
// d1 = 5 sqrt(p (1 - p) + 1 / WS1) spread + 2 / WS1 with spread = sqrt(sum w^2) / sum w (the
// host's margin for its own sample, at 5 standard deviations: the wider first bracket only costs
// resolution below); weighted_sample2 (many groups) then reads s2 more samples and sums their
// weights, rounded to 1/1024 of the first sample's largest weight (clamped there: an estimate),
// below the first bracket and in 4096 buckets of its key range (interval_shift), and the group
// that finishes last makes the bracket the buckets where the cumulative weight reaches p_lo - d2
// and p_hi + d2 of the total, d2 the same margin at 4 standard deviations for s2 samples. It
// writes the first pass's meta: the bracket, its slots from 0 to `cap`, and s = 78 - ilogb(the
// first sample's largest weight) (NO_SCALE when it held none). A target outside the bracket costs
// the host's exact fallbacks, not a wrong answer: the pass's interval sums show where it lies.
// wb: [0] lo, [1] hi of the first bracket, [2] the largest weight's bits, [3] spread's bits;
// hist (uint): [0] the weight below the first bracket, [1] the total, [2 + b] bucket b.
#define WS1 1024
#define WBINS 4096
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void weighted_sample1(__global const elem_t* x, __global const double* w, ulong off, ulong n, double p_lo,
                      double p_hi, __global ulong* wb, __global uint* hist) {
  __local skey key[WS1];
  __local double wt[WS1];
  __local double r1[WG], r2[WG];
  __local ulong mx[WG];
  __local skey edge[2];
  const uint l = get_local_id(0);
  const ulong stretch = n / WS1;  // (the host takes this path for n >= 2^20 only)
  ulong m = 0;
  for (uint t = l; t < WS1; t += WG) {
    const ulong at = off + sample_at(t, sample_hash(t), stretch);
    const elem_t v = x[at];
    const double wi = w[at];
    const int ok = wi >= 0.0 && !isinf(wi);  // (false for NaN)
    if (ok) m = max(m, as_ulong(wi));
    const int use = ok && !is_nan_elem(v);
    key[t] = use ? to_key(v) : KEY_MAX;
    wt[t] = use ? wi : 0.0;
  }
  mx[l] = m;
  barrier(CLK_LOCAL_MEM_FENCE);
  // Pairs sorted by key, the weight moving with its key.
  BITONIC_SORT_LOCAL(key, WS1, l, {
    const double u = wt[i];
    wt[i] = wt[j];
    wt[j] = u;
  })
  // Each work-item's run of WS1 / WG sorted pairs: its sums, then the runs' prefix in order.
  const uint per = WS1 / WG, a0 = l * per;
  double s1 = 0, s2 = 0;
  for (uint i = a0; i < a0 + per; ++i) {
    s1 += wt[i];
    s2 += wt[i] * wt[i];
  }
  r1[l] = s1;
  r2[l] = s2;
  if (l == 0) {
    edge[0] = 0;
    edge[1] = ELEM_KIND <= 1 ? KEY_MAX - 1 : KEY_MAX;  // (the host's top key: below the NaNs')
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    double acc = 0, q2 = 0;
    ulong big = 0;
    for (uint t = 0; t < WG; ++t) {
      const double v = r1[t];
      r1[t] = acc;
      acc += v;
      q2 += r2[t];
      big = max(big, mx[t]);
    }
    r2[0] = acc;
    r2[1] = acc > 0 ? sqrt(q2) / acc : 0.0;
    mx[0] = big;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const double total = r2[0], spread = r2[1];
  const double d_lo = 5 * sqrt(p_lo * (1 - p_lo) + 1.0 / WS1) * spread + 2.0 / WS1;
  const double d_hi = 5 * sqrt(p_hi * (1 - p_hi) + 1.0 / WS1) * spread + 2.0 / WS1;
  const double t_lo = (p_lo - d_lo) * total, t_hi = (p_hi + d_hi) * total;
  double c = r1[l];
  for (uint i = a0; i < a0 + per; ++i) {
    const double before = c;
    c += wt[i];
    // The first pair whose cumulative weight reaches each threshold (one work-item finds each).
    if (p_lo - d_lo > 0 && before < t_lo && c >= t_lo) edge[0] = key[i];
    if (p_hi + d_hi < 1 && before < t_hi && c >= t_hi) edge[1] = key[i];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    wb[0] = edge[0];
    wb[1] = max(edge[0], edge[1]);
    wb[2] = mx[0];
    wb[3] = as_ulong(spread);
  }
  for (uint b = l; b < WBINS + 2; b += WG) hist[b] = 0;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void weighted_sample2(__global const elem_t* x, __global const double* w, ulong off, ulong n, uint s2, double p_lo,
                      double p_hi, __global const ulong* wb, __global uint* hist, __global uint* done,
                      __global ulong* meta, ulong cap) {
  __local uint rb[WG], rt[WG];
  __local skey edge[2];
  __local int last;
  const uint l = get_local_id(0);
  const skey lo1 = (skey)wb[0], hi1 = (skey)wb[1];
  const double wmax = as_double(wb[2]);
  const uint shift = interval_shift(lo1, hi1, 12);
  const double scale = wmax > 0 ? 1024.0 / wmax : 0.0;
  const ulong stretch = n / s2;
  uint below = 0, tot = 0;
  for (uint t = get_global_id(0); t < s2; t += get_global_size(0)) {
    const ulong at = off + sample_at(t, sample_hash(t ^ 0x9e3779b9u), stretch);
    const elem_t v = x[at];
    const double wi = w[at];
    if (!(wi >= 0.0) || isinf(wi) || is_nan_elem(v)) continue;
    const uint q = (uint)fmin(wi * scale + 0.5, 1024.0);
    const skey k = to_key(v);
    tot += q;
    if (k < lo1) below += q;
    else if (k <= hi1 && q) atomic_add(&hist[2 + (uint)((k - lo1) >> shift)], q);
  }
  rb[l] = below;
  rt[l] = tot;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) {
      rb[l] += rb[l + h];
      rt[l] += rt[l + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    if (rb[0]) atomic_add(&hist[0], rb[0]);
    if (rt[0]) atomic_add(&hist[1], rt[0]);
  }
  if (!finished_last(done, &last)) return;
  // The last group: the buckets that hold the thresholds.
  __global volatile const uint* h = (__global volatile const uint*)hist;
  const uint nbins = lo1 < hi1 ? (uint)min((skey)WBINS, ((hi1 - lo1) >> shift) + 1) : 0;
  const double spread = as_double(wb[3]) * sqrt((double)WS1 / (double)s2);
  const double d_lo = 4 * sqrt(p_lo * (1 - p_lo) + 1.0 / s2) * spread + 2.0 / s2;
  const double d_hi = 4 * sqrt(p_hi * (1 - p_hi) + 1.0 / s2) * spread + 2.0 / s2;
  const double total = (double)h[1];
  bracket_from_buckets(h + 2, nbins, h[0], lo1, hi1, shift, (long)floor((p_lo - d_lo) * total),
                       (long)floor((p_hi + d_hi) * total), rb, edge, l, WG);
  if (l == 0) {
    meta[0] = edge[0];
    meta[1] = edge[1];
    meta[2] = 0;
    meta[3] = cap;
    meta[META_S] = wmax > 0 ? (ulong)(long)(78 - ilogb(wmax)) : (ulong)NO_SCALE;
    meta[PLAN_STATE] = PLAN_HOST;
    *done = 0;
  }
  // The first pass's results start at zero (with no transfer from the host).
  for (uint i = SUMS_AT + l; i < STATE_UINTS; i += WG) ((__global uint*)meta)[i] = 0;
}

// m values spread evenly over [0, n): element (i n) / m for i < m.
__kernel void weighted_sample(__global const elem_t* x, __global const double* w, ulong off, ulong n, uint m,
                              __global skey* key, __global double* weight) {
  const uint i = get_global_id(0);
  if (i >= m) return;
  const ulong j = (ulong)(((double)i * (double)n) / (double)m);
  const ulong at = off + min(j, n - 1);
  key[i] = to_key(x[at]);
  weight[i] = w[at];
}

// 2^e as a double for e in [-1022, 1023], built exactly (ldexp is a library call on some CPUs).
inline double pow2(int e) { return as_double((ulong)(e + 1023) << 52); }

// floor(v) as (lo, hi) words, for v = w 2^s in [0, 2^95) (the caller counts the others and gives
// 0 for them). 2^s is applied as two double factors 2^(s/2) 2^(s - s/2), whose products are exact
// wherever v reaches 1 (an intermediate that underflows belongs to a weight whose v is far below
// 1, where floor gives 0 anyway).
inline ulong2 fixed_weight(double v) {
  if (v < 0x1p63) return (ulong2)((ulong)v, 0);  // truncation is floor for v >= 0
  const ulong bits = as_ulong(v);
  const int e = (int)((bits >> 52) & 0x7ff) - 1075;  // v = m 2^e, e in 11..42
  const ulong m = (bits & 0xfffffffffffffUL) | 0x10000000000000UL;
  return (ulong2)(m << e, m >> (64 - e));
}

#if FROM_KEYS
#define INPUT_ARGS __global const skey* x, __global const ulong2* w
#else
#define INPUT_ARGS __global const elem_t* x, __global const double* w
#endif

// Reads a value and its weight (or a candidate's key and q) into k (its key), q (its fixed-point
// weight) and idx (its interval, 0 .. 2 nb; NI for a NaN value, which is only counted), and counts
// the weights that are bad or do not fit.
#if FROM_KEYS
#define READ_VALUE(xv, wv)         \
  k = (xv);                        \
  q = (wv);                        \
  idx = interval_of(k, lmeta, nb);
#else
#define READ_VALUE(xv, wv)                                             \
  {                                                                    \
    const elem_t v = (xv);                                             \
    const double wi = (wv);                                            \
    if (!(wi >= 0.0) || isinf(wi)) ++bad;                              \
    else wmax = max(wmax, as_ulong(wi));                               \
    if (is_nan_elem(v)) {                                              \
      ++nans;                                                          \
    } else {                                                           \
      k = to_key(v);                                                   \
      const double scaled = (wi * f1) * f2;                            \
      const int fits = scaled < 0x1p95;                                \
      over += !fits;                                                   \
      q = fits ? fixed_weight(scaled) : (ulong2)(0, 0);                \
      idx = interval_of(k, lmeta, nb);                                  \
    }                                                                  \
  }
#endif

inline uint interval_of(skey k, __local const ulong* br, uint nb) {
  uint idx = 0;
  for (uint b = 0; b < nb; ++b) idx += (k >= (skey)br[4 * b]) + (k > (skey)br[4 * b + 1]);
  return idx;
}

// The sums of a group's columns (interval j's at j WG .. j WG + WG - 1) into each interval's
// first, for all intervals at once: one tree of log2 WG levels, every work-item on its share of
// each level's pairs (a tree an interval made 2 NI + 8 barriers a group's end). Integer sums:
// the order of the additions does not matter. Starts and ends on a barrier.
inline void columns_sum(__local ulong* alo, __local ulong* ahi, __local uint* acnt, uint l) {
  for (uint h = WG / 2; h > 0; h >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint t = l; t < NI * h; t += WG) {
      const uint a = (t / h) * WG + (t & (h - 1)), b = a + h;
      const ulong lo = alo[a] + alo[b];
      ahi[a] += ahi[b] + (lo < alo[b]);
      alo[a] = lo;
      acnt[a] += acnt[b];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Adds v at limb i of the 128-bit sum held as four 32-bit limbs d[0..3] (least significant
// first), by 32-bit atomics: a limb that wraps carries one into the next. Every wrap is carried
// once, so the limbs hold the sum of all the additions modulo 2^128 in any order (the sums here
// stay below 2^127: fewer than 2^32 values of q below 2^95).
inline void add_limb(__global uint* d, uint i, uint v) {
  if (v == 0) return;
  const uint old = atomic_add(d + i, v);
  if ((uint)(old + v) >= v) return;
  for (uint k = i + 1; k < 4; ++k)
    if (atomic_inc(d + k) != UINT_MAX) return;
}

// Interval j's summed q and count from the pass's results (st: the meta as 32-bit words).
inline ulong2 sum_of(__global volatile const uint* st, uint j) {
  __global volatile const uint* d = st + SUMS_AT + 5 * j;
  return (ulong2)((ulong)d[0] | ((ulong)d[1] << 32), (ulong)d[2] | ((ulong)d[3] << 32));
}

// Adds q to a work-item's 128-bit sum and count at `at` of its columns (alo, ahi, acnt).
inline void column_add(__local ulong* alo, __local ulong* ahi, __local uint* acnt, uint at, ulong2 q) {
  const ulong t = alo[at] + q.x;
  ahi[at] += q.y + (t < q.x);
  alo[at] = t;
  ++acnt[at];
}

// 128-bit sums as (lo, hi) words.
inline ulong2 add128(ulong2 a, ulong2 b) {
  const ulong lo = a.x + b.x;
  return (ulong2)(lo, a.y + b.y + (lo < a.x));
}
inline int ge128(ulong2 a, ulong2 b) { return a.y > b.y || (a.y == b.y && a.x >= b.x); }

#if ELEM_KIND <= 1
// The value of a key (to_key's inverse; a NaN for the keys past +Inf).
inline double key_value(skey k) {
#if ELEM_KIND == 0
  return (double)as_float((k & 0x80000000u) ? (k ^ 0x80000000u) : ~k);
#else
  return as_double((k & 0x8000000000000000UL) ? (k ^ 0x8000000000000000UL) : ~k);
#endif
}
#endif

// The plan's next brackets: [lo, hi] (lo < hi) as at most META_NB sorted disjoint ranges that
// cover it, written to plan with their slots (each range up to min(found, 2 found / ranges +
// 4096) copies, from slot 0 on); returns how many. The rule of WeightedSelect::split on the host:
// equal steps of value for a floating-point interval across zero whose ends are within 2^10 in
// size, of key otherwise.
inline uint plan_split(skey lo, skey hi, ulong found, __global ulong* plan) {
  skey rlo[META_NB], rhi[META_NB];
  uint k = 0;
#if ELEM_KIND <= 1
  const double a = key_value(lo), b = key_value(hi), w = b - a;
  if (a < 0 && b > 0 && isfinite(w) && max(-a, b) <= 1024 * min(-a, b)) {
    skey from = lo;
    for (uint i = 1; i <= META_NB && from <= hi; ++i) {
      skey to = hi;
      if (i < META_NB) {
        const skey edge = to_key((elem_t)(a + w * i / META_NB));  // the next range's first key
        if (edge <= from || edge > hi) continue;
        to = edge - 1;
      }
      rlo[k] = from;
      rhi[k++] = to;
      from = to + 1;
    }
    if (k < 2) k = 0;
  }
#endif
  if (k == 0) {
    const skey step = (hi - lo) / META_NB + 1;  // ceil((hi - lo + 1) / META_NB) without overflow
    for (skey r = lo;; r += step) {
      const skey e = hi - r < step - 1 ? hi : r + step - 1;
      rlo[k] = r;
      rhi[k++] = e;
      if (e == hi) break;
    }
  }
  const ulong share = min(found, 2 * found / k + 4096);
  for (uint i = 0; i < k; ++i) {
    plan[4 * i] = rlo[i];
    plan[4 * i + 1] = rhi[i];
    plan[4 * i + 2] = i * share;
    plan[4 * i + 3] = share;
  }
  return k;
}

// meta holds 4 ulongs a bracket: lo and hi (keys, inclusive), then the first slot and the
// capacity of its candidate region; after the plan, the pass's results (SUMS_AT on), zero when
// it starts: each group adds its sums of q and counts per interval, its counts of NaN values, of
// weights that are negative, NaN or infinite and of those past 2^95 at this s, and the high word
// of its largest weight (of the values' weights, NaN values included: the host needs only the
// largest's exponent), by 32-bit atomics (exact in any order: add_limb). The values found in
// bracket b are counted at FOUND_AT + b (the copy is complete when that is at most the capacity).
// The candidates' order within a region is unspecified: the host selects by key. With the plan in
// meta running (PLAN_RUN) the pass reads its source, count and brackets from the plan instead of
// off, n and nb, and the last group to finish (counted on `done`, left at zero) takes the plan's
// step (below), copying a final range's candidates to FINAL_AT and zeroing the results for the
// next pass; past the plan's end a pass does nothing. (meta is global memory, its brackets copied
// to local memory: a pass writes the next pass's.)
__kernel void weighted_intervals(INPUT_ARGS, ulong off, ulong n, __global ulong* meta, uint nb,
                                 __global skey* ckey, __global ulong2* cq, __global uint* done) {
  __local ulong lmeta[4 * NB];  // the brackets, read once
  __local uint lsc[4];          // the group's NaN, bad and oversized counts and largest weight's high word
  __local ulong fstart, fcount;
  __local int last;
  const uint l = get_local_id(0);
  __global uint* st = (__global uint*)meta;
  __global uint* ccount = st + FOUND_AT;
  // (Every group reads the state before the last one, which writes the plan, counts itself done.)
  const ulong state = meta[PLAN_STATE];
  if (state == PLAN_DONE || state == PLAN_STOP) return;  // past the plan's end (uniform)
  if (state == PLAN_RUN) {  // a planned pass: its source and brackets from the plan
    off = meta[PLAN_OFF];
    n = meta[PLAN_N];
    nb = (uint)meta[PLAN_NB];
  }
  const int s = (int)(long)meta[META_S];
  const double f1 = pow2(s == NO_SCALE ? 0 : s / 2), f2 = pow2(s == NO_SCALE ? 0 : s - s / 2);
  // A work-item keeps its sums in its own column of local memory (interval j at j WG + l): one
  // update a value. Sums in predicated registers cost every interval's 128-bit add a value and
  // spilled at NB = 8 (weighted median of 2^27 doubles on an H200: the first pass 1.58 -> 1.17
  // ms, the candidates' 0.45 -> 0.20 ms). 43.5 KB at NB = 8 and WG = 128; no other work-item
  // touches the column, so no atomics and no barriers until the sums.
  __local ulong alo[NI * WG], ahi[NI * WG];
  __local uint acnt[NI * WG];
  for (uint j = 0; j < NI; ++j) {
    alo[j * WG + l] = 0;
    ahi[j * WG + l] = 0;
    acnt[j * WG + l] = 0;
  }
  uint nans = 0, bad = 0, over = 0;  // (n < 2^32: the host checks)
  ulong wmax = 0;
  __local uint lcount[NB], lbase[NB];
  if (l < NB) lcount[l] = 0;
  if (l < 4) lsc[l] = 0;
  for (uint i = l; i < 4 * NB; i += WG) lmeta[i] = meta[i];
#if STAGED
  // One narrow bracket (the first pass of a one-cluster target: a few candidates in a thousand):
  // they gather in a local stage flushed every WCHECK rounds by one global atomic, so a round has
  // no barrier; a stage that fills between flushes spills to global slots, an atomic each (slower,
  // not wrong). The first pass of a weighted median of 2^27 doubles on an H200: 1.03 ms with two
  // barriers a round (the form below), 0.83 ms staged. (Its sums in registers instead of the
  // columns: 0.85 ms.)
  __local skey sk[WSTAGE];
  __local ulong2 sq[WSTAGE];
  uint round = 0;
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
#if STAGED
  const ulong cap0 = lmeta[3];
#endif
  for (ulong start = (ulong)get_group_id(0) * (GITEMS * WG); start < n; start += GITEMS * get_global_size(0)) {
#if STAGED
    // Loads first (their latencies overlap), then each element on its own.
#if FROM_KEYS
    skey xs[GITEMS];
    ulong2 ws[GITEMS];
#else
    elem_t xs[GITEMS];
    double ws[GITEMS];
#endif
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      const ulong i = start + u * WG + l;
      if (i < n) {
        xs[u] = x[off + i];
        ws[u] = w[off + i];
      }
    }
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      const ulong i = start + u * WG + l;
      skey k = 0;
      ulong2 q = (ulong2)(0, 0);
      uint idx = NI;
      if (i < n) {
        READ_VALUE(xs[u], ws[u])
      }
      if (idx < NI) column_add(alo, ahi, acnt, idx * WG + l, q);
      if (idx == 1 && cap0 > 0) {
        const uint a = atomic_inc(&lcount[0]);
        if (a < WSTAGE) {
          sk[a] = k;
          sq[a] = q;
        } else {
          const uint slot = atomic_inc(&ccount[0]);
          if (slot < cap0) {
            ckey[lmeta[2] + slot] = k;
            cq[lmeta[2] + slot] = q;
          }
        }
      }
    }
    // The flush (the same decision in every work-item: a group's work-items make the same rounds).
    if (++round % WCHECK == 0 || start + GITEMS * get_global_size(0) >= n) {
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint c = min(lcount[0], (uint)WSTAGE);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (c > 0) {
        if (l == 0) {
          lbase[0] = atomic_add(&ccount[0], c);
          lcount[0] = 0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint b0 = lbase[0];
        for (uint t = l; t < c; t += WG)
          if (b0 + t < cap0) {
            ckey[lmeta[2] + b0 + t] = sk[t];
            cq[lmeta[2] + b0 + t] = sq[t];
          }
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
#else
    // Several brackets (the candidates' passes, where most values are copied): a bracket may
    // hold millions of values, and one global atomic each serialised them (2^27 doubles: 18.6 ms
    // on the H100, 37 times the median). So the group's work-items take local slots, and one
    // atomic a bracket and a round reserves the group's run of global slots. A round reads
    // GITEMS elements a work-item (element start + u WG + l: neighbours read neighbours), all
    // loaded before its two barriers: with one a round, each warp had one load of x and w in
    // flight between barriers (2^27 doubles and weights: 2.59 ms on the H100, 1.62 ms with four
    // a round and four times the groups). Every work-item of a group makes the same number of
    // rounds (the barriers need it).
    skey ks[GITEMS];
    ulong2 qs[GITEMS];
    uint is[GITEMS], ls[GITEMS];
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      const ulong i = start + u * WG + l;
      skey k = 0;
      ulong2 q = (ulong2)(0, 0);
      uint idx = NI;
      if (i < n) {
        READ_VALUE(x[off + i], w[off + i])
      }
      ks[u] = k;
      qs[u] = q;
      is[u] = idx;
    }
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      const uint idx = is[u];
      const int take = idx < NI && (idx & 1u) && lmeta[4 * (idx >> 1) + 3] > 0;
      ls[u] = take ? atomic_inc(&lcount[idx >> 1]) : UINT_MAX;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < nb) {
      const uint c = lcount[l];
      lbase[l] = c ? atomic_add(&ccount[l], c) : 0;
      lcount[l] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      if (ls[u] != UINT_MAX) {
        const uint b = is[u] >> 1;
        const ulong slot = (ulong)lbase[b] + ls[u];
        if (slot < lmeta[4 * b + 3]) {
          ckey[lmeta[4 * b + 2] + slot] = ks[u];
          cq[lmeta[4 * b + 2] + slot] = qs[u];
        }
      }
    }
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u)
      if (is[u] < NI) column_add(alo, ahi, acnt, is[u] * WG + l, qs[u]);
#endif
  }
  // The group's sums into the pass's results: one tree over the columns, then, per interval, a
  // work-item for each limb of its sum (add_limb) and one for its count, each an atomic; the
  // scalars by local atomics first. (A row a group, which the last group to finish then added,
  // cost each candidate pass of a weighted median of 2^27 doubles on an H200 about 90 us, for
  // reading a few MB; with the atomics they take 3 to 40 us.)
  if (nans) atomic_add(&lsc[0], nans);
  if (bad) atomic_add(&lsc[1], bad);
  if (over) atomic_add(&lsc[2], over);
  atomic_max(&lsc[3], (uint)(wmax >> 32));
  columns_sum(alo, ahi, acnt, l);
  for (uint t = l; t < 5 * NI; t += WG) {
    const uint j = t / 5, i = t - 5 * j;
    __global uint* d = st + SUMS_AT + 5 * j;
    if (i == 4) {
      if (acnt[j * WG]) atomic_add(d + 4, acnt[j * WG]);
    } else {
      add_limb(d, i, (uint)((i < 2 ? alo[j * WG] : ahi[j * WG]) >> (32 * (i & 1))));
    }
  }
  if (l < 3 && lsc[l]) atomic_add(st + SCALARS_AT + l, lsc[l]);
  if (l == 3 && lsc[3]) atomic_max(st + SCALARS_AT + 3, lsc[3]);
  if (state != PLAN_RUN) return;  // (uniform)
  if (!finished_last(done, &last)) return;
  // The plan's step, by one work-item on the pass's results: the interval that holds the target,
  // as the host's WeightedSelect::resolve_candidates finds it. The group then zeroes the results
  // for the next pass and copies a final range's candidates after the meta (FINAL_AT).
  __global volatile const uint* vst = (__global volatile const uint*)st;
  if (l == 0) {
    *done = 0;
    fcount = 0;
    const ulong2 target = (ulong2)(meta[PLAN_TARGET], meta[PLAN_TARGET + 1]);
    ulong2 c = add128((ulong2)(meta[PLAN_BASE], meta[PLAN_BASE + 1]), sum_of(vst, 0));
    uint b = 0;
    for (; b < nb; ++b) {
      const ulong2 in = sum_of(vst, 2 * b + 1);
      if (ge128(add128(c, in), target)) break;
      c = add128(add128(c, in), sum_of(vst, 2 * b + 2));
    }
    if (b == nb) {
      meta[PLAN_FOUND] = ~0UL;
      meta[PLAN_STATE] = PLAN_STOP;
    } else {
      const skey lo = (skey)meta[4 * b], hi = (skey)meta[4 * b + 1];
      const ulong start = meta[4 * b + 2], cap = meta[4 * b + 3];
      const ulong found = vst[FOUND_AT + b];
      meta[PLAN_LO] = lo;
      meta[PLAN_HI] = hi;
      meta[PLAN_BASE] = c.x;
      meta[PLAN_BASE + 1] = c.y;
      if (cap == 0 || found > cap) {  // the host copies the range again, alone, from this source
        meta[PLAN_FOUND] = vst[SUMS_AT + 5 * (2 * b + 1) + 4];
        meta[PLAN_STATE] = PLAN_STOP;
      } else {
        meta[PLAN_OFF] = start;
        meta[PLAN_N] = found;
        meta[PLAN_ROUND] += 1;
        if (lo == hi || found <= HOST_MAX) {
          meta[PLAN_STATE] = PLAN_DONE;
          if (lo != hi) {
            fstart = start;
            fcount = found;
          }
        } else {
          meta[PLAN_NB] = plan_split(lo, hi, found, meta);
        }
      }
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  for (uint i = SUMS_AT + l; i < STATE_UINTS; i += WG) st[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong f0 = fstart, fc = fcount;
  __global volatile const skey* vk = (__global volatile const skey*)ckey;
  __global volatile const ulong2* vq = (__global volatile const ulong2*)cq;
  for (ulong i = l; i < fc; i += WG) {
    ((__global skey*)(meta + FINAL_AT))[i] = vk[f0 + i];
    ((__global ulong2*)(meta + FINAL_AT + HOST_MAX * sizeof(skey) / 8))[i] = vq[f0 + i];
  }
}
