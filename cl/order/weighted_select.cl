// Weighted selection: the kernels behind clstat::order::weighted_quantiles (host side in
// src/order/weighted_select.cpp).
//
// Algorithm. A weighted quantile is the smallest key v whose cumulative weight C(v), the summed
// weight of the values <= v, reaches a target T. The host finds it by bracketing:
// 1. The scale s = 78 - ilogb(m), m the largest weight of the host's strided sample (below): 16
//    bits of room for larger weights the sample missed. For small inputs, where the sample holds
//    no positive weight, and where a weight does not fit (step 2), s = 94 - ilogb(max w) from all
//    weights (weight_check reads them once, with how many are negative, NaN or infinite).
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
// 4. The host sorts the few candidates of the bracket that holds a target, or splits the
//    interval into NB ranges (equal steps of value for floats, of key for integers) and repeats 3
//    over the candidates, copying every range's in the same pass (or, counting only, over the
//    data).
// weighted_sample gathers a strided sample of (key, weight) for the host's first brackets.
//
// Options: ELEM_KIND (as order_keys.clh), WG (a power of two), NB (brackets a launch: 1, 2, 4 or
// 8, the fewest that hold the call's: the interval search costs 2 NB compares a value, and the
// sums 2 NB + 1 local columns a work-item), FROM_KEYS (1: the input is candidate keys and their
// q, not values and weights), GITEMS (a work-item's elements a round, loaded together).
// Work-items stride through the data, neighbours reading neighbouring elements, on CPUs too:
// PoCL runs a group's work-items as vector loops. (A CPU form in which each work-item read a
// contiguous block and appended its candidates with a global atomic each took 126 ms for the
// weighted median of 2^24 doubles on 16 Xeon cores, PoCL 5; this form 27 ms.)
// Rounding: none. Every sum is of integers; a weight's only rounding is its truncation in 2.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "order_keys.clh"

#ifndef NB
#define NB 8
#endif
#ifndef GITEMS
#define GITEMS 4
#endif
#define NI (2 * NB + 1)

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

// floor(v) as (lo, hi) words, for v = w 2^s in [0, 2^95) (the caller counts the others and gives
// 0 for them). The host passes 2^s as two double factors f1 f2, whose products are exact wherever
// v reaches 1 (an intermediate that underflows belongs to a weight whose v is far below 1, where
// floor gives 0 anyway): ldexp is a library call on some CPUs.
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

// Reads element i of the input into k (its key), q (its fixed-point weight) and idx (its interval,
// 0 .. 2 nb; NI for a NaN value, which is only counted), and counts the weights that are bad or
// do not fit.
#if FROM_KEYS
#define READ_ELEMENT(i)            \
  k = x[off + (i)];                \
  q = w[off + (i)];                \
  idx = interval_of(k, meta, nb);
#else
#define READ_ELEMENT(i)                                                \
  {                                                                    \
    const elem_t v = x[off + (i)];                                     \
    const double wi = w[off + (i)];                                    \
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
      idx = interval_of(k, meta, nb);                                  \
    }                                                                  \
  }
#endif

inline uint interval_of(skey k, __constant ulong* meta, uint nb) {
  uint idx = 0;
  for (uint b = 0; b < nb; ++b) idx += (k >= (skey)meta[4 * b]) + (k > (skey)meta[4 * b + 1]);
  return idx;
}

// meta holds 4 ulongs a bracket: lo and hi (keys, inclusive), then the first slot and the
// capacity of its candidate region. part receives, per group, NI x (sum lo word, sum carry
// word, count), then the NaN count, the weights that are negative, NaN or infinite, those past
// 2^95 at this s, and the largest weight's bits (of the values' weights, NaN values included).
// ccount[b] counts the values found in bracket b (the copy is complete when it is at most the
// capacity). The candidates' order within a region is unspecified: the host selects by key.
__kernel void weighted_intervals(INPUT_ARGS, ulong off, ulong n, double f1, double f2, __constant ulong* meta, uint nb,
                                 __global ulong* part, __global skey* ckey, __global ulong2* cq,
                                 __global uint* ccount) {
  __local ulong r0[WG], r1[WG], r2[WG];
  const uint l = get_local_id(0);
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
  ulong nans = 0, bad = 0, over = 0, wmax = 0;
  // A bracket may hold millions of values (a sampled weighted quantile is uncertain by about
  // sqrt(sum w^2) / sum w): one global atomic each serialised them (2^27 doubles: 18.6 ms on
  // the H100, 37 times the median). So the group's work-items take local slots, and one
  // atomic a bracket and a round reserves the group's run of global slots. A round reads GITEMS
  // elements a work-item (element start + u WG + l: neighbours read neighbours), all loaded
  // before its two barriers: with one a round, each warp had one load of x and w in flight
  // between barriers (2^27 doubles and weights: 2.59 ms on the H100, 1.62 ms with four a round
  // and four times the groups). Every work-item of a group makes the same number of rounds (the
  // barriers need it).
  __local uint lcount[NB], lbase[NB];
  if (l < NB) lcount[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (ulong start = (ulong)get_group_id(0) * (GITEMS * WG); start < n; start += GITEMS * get_global_size(0)) {
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
        READ_ELEMENT(i)
      }
      ks[u] = k;
      qs[u] = q;
      is[u] = idx;
    }
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      const uint idx = is[u];
      const int take = idx < NI && (idx & 1u) && meta[4 * (idx >> 1) + 3] > 0;
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
        if (slot < meta[4 * b + 3]) {
          ckey[meta[4 * b + 2] + slot] = ks[u];
          cq[meta[4 * b + 2] + slot] = qs[u];
        }
      }
    }
#pragma unroll
    for (uint u = 0; u < GITEMS; ++u) {
      const uint at = is[u] * WG + l;
      if (is[u] < NI) {
        const ulong t = alo[at] + qs[u].x;
        ahi[at] += qs[u].y + (t < qs[u].x);
        alo[at] = t;
        ++acnt[at];
      }
    }
  }
  // The group's sums, interval by interval, by a fixed tree (128-bit: the carry of the lo words
  // goes to the hi words).
  __global ulong* out = part + get_group_id(0) * (3 * NI + 4);
  for (uint j = 0; j < NI; ++j) {
    r0[l] = alo[j * WG + l];
    r1[l] = ahi[j * WG + l];
    r2[l] = acnt[j * WG + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = WG / 2; h > 0; h >>= 1) {
      if (l < h) {
        const ulong t = r0[l] + r0[l + h];
        r1[l] += r1[l + h] + (t < r0[l]);
        r0[l] = t;
        r2[l] += r2[l + h];
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
      out[3 * j] = r0[0];
      out[3 * j + 1] = r1[0];
      out[3 * j + 2] = r2[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  r0[l] = nans;
  r1[l] = bad;
  r2[l] = over;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) {
      r0[l] += r0[l + h];
      r1[l] += r1[l + h];
      r2[l] += r2[l + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    out[3 * NI] = r0[0];
    out[3 * NI + 1] = r1[0];
    out[3 * NI + 2] = r2[0];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  r0[l] = wmax;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) r0[l] = max(r0[l], r0[l + h]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[3 * NI + 3] = r0[0];
}
