// Batched selection: one work-group per row of a row-major matrix (row r at x + xoff + r * ld),
// every rank of the row answered in one launch that reads the row once. The row's keys stay in
// registers, RITEMS a work-item (item u of work-item l is element u WG + l, so loads coalesce;
// the padding past `cols` is KEY_MAX, above every rank asked for).
//
// A rank t (0-based) is found as the single-array selection finds a median, inside the group:
// 1. a sample of SAMPLE keys (one from each stretch of NPAD / SAMPLE elements, at a hashed
//    offset in it, so periodic rows are sampled fairly), sorted by counting (each key's rank
//    among the others: one barrier, where a bitonic sort takes 21), gives a bracket, the sample
//    keys about three standard deviations of t's sample rank either side of it (Floyd &
//    Rivest's idea);
// 2. the keys below the bracket and in it are counted in registers and summed over the group
//    with no atomics (a local histogram of the top digits of clustered keys serialises on a
//    few counters, which made radix descents here latency- and contention-bound);
// 3. while more than WG keys remain in the interval, a local histogram of their offsets in WG
//    equal steps of it (interval_shift) and the steps' prefix sums shrink it to t's step; the
//    bracket's keys are spread by value, so few share a counter. A target outside the bracket
//    (an unlucky sample) starts this from the side of the bracket that holds it;
// 4. the at most WG keys left are copied to local memory and each work-item ranks one against
//    the others: the one whose rank range holds t (and is the first of its equal keys) writes it.
// Later ranks inside the same range (the two middle ranks of an even row, the two ranks a
// quantile rule interpolates between) are answered from step 4's ranks with no new search.
//
// Rows with NaNs: every launch writes each row's NaN count; with nan_stop, a row that holds any
// is left for the host (its NaN policy decides; under omit it launches those rows again, through
// row_of, with ranks of their own: NaN keys sort last, so ranks below the row's non-NaN count
// never meet them). Results are exact: keys are compared, never values.
//
// Sums over the group (steps 2 and 3) take two barriers: 16 work-items add 16 chunks, then every
// work-item adds the chunks' sums it needs; a tree or a Hillis-Steele scan took eight and
// seventeen, and barriers, not arithmetic, bounded a row.
//
// Options: ELEM_KIND, WG (a power of two: the host makes it cols / order.rows_items, from 32 to
// 256), LOG2_WG, RITEMS (RITEMS WG < 65536: the two counts of step 2 are summed packed in one
// uint). top_k_rows_gather, at the end, serves top_k along rows from the thresholds found here.
#include "order_keys.clh"

#ifndef RITEMS
#define RITEMS 16
#endif
#define NPAD (RITEMS * WG)
#define SAMPLE (NPAD < 64 ? NPAD : 64)
#define STRIDE (NPAD / SAMPLE)
#define NCH (WG < 16 ? WG : 16)
#define CH (WG / NCH)

// part[c] = the sum of red's chunk c of CH counters, for every chunk, then a barrier. A macro,
// not a function: with a function holding this barrier, called from group_sum and from the
// interval loop of select_rows, PoCL 3.1 returned wrong ranks (and a group call hung).
#define CHUNK_SUMS(red, part, l)                                                 \
  do {                                                                           \
    if ((l) < NCH) {                                                             \
      uint sum_ = 0;                                                             \
      for (uint c_ = 0; c_ < CH; ++c_) sum_ += (red)[(l) * CH + c_];             \
      (part)[l] = sum_;                                                          \
    }                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                \
  } while (0)

// The sum of v over the group; every work-item gets it. Two barriers; red (WG) and part (NCH)
// may be used again right after it returns.
inline uint group_sum(__local uint* red, __local uint* part, uint v, uint l) {
  red[l] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  CHUNK_SUMS(red, part, l);
  uint s = 0;
  for (uint c = 0; c < NCH; ++c) s += part[c];
  return s;
}

// The sum of h[0, l) (h of WG counters), for every l at once, given part[c] = the sum of chunk c
// (work-items below NCH have just written it, behind a barrier).
inline uint prefix_before(__local const uint* h, __local const uint* part, uint l) {
  uint s = 0;
  for (uint c = 0; c < l / CH; ++c) s += part[c];
  for (uint b = (l / CH) * CH; b < l; ++b) s += h[b];
  return s;
}

// Group g selects in row row_of[g] (use_row_of) or g, ranks ranks[g rank_stride + j] (0-based,
// j < R), and writes their keys to out[g R + j] and its NaN count to nan_out[g].
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_rows(__global const elem_t* x, ulong xoff, uint cols, ulong ld, __global const uint* row_of,
                 uint use_row_of, __global const uint* ranks, uint rank_stride, uint R, uint nan_stop,
                 __global skey* out, __global uint* nan_out) {
  __local skey raw[SAMPLE], samp[SAMPLE];
  __local skey cand[WG];
  __local uint red[WG], part[NCH];
  __local uint cursor, s_below, s_in;
  __local skey s_lo, s_hi;
  const uint l = get_local_id(0);
  const uint g = get_group_id(0);
  __global const elem_t* row = x + xoff + (use_row_of ? row_of[g] : g) * ld;
  skey k[RITEMS];
  uint nan = 0;
#pragma unroll
  for (uint u = 0; u < RITEMS; ++u) {
    const uint i = u * WG + l;
    k[u] = KEY_MAX;
    if (i < cols) {
      const elem_t v = row[i];
      nan += is_nan_elem(v);
      k[u] = to_key(v);
    }
  }
#if ELEM_KIND <= 1
  nan = group_sum(red, part, nan, l);
#endif
  if (l == 0) nan_out[g] = nan;
  if (nan_stop && nan > 0) return;  // the same for the whole group

  // 1. The sample: element s STRIDE + (a hash of s) for s < SAMPLE, then its sorted order.
#pragma unroll
  for (uint u = 0; u < RITEMS; ++u) {
    const uint i = u * WG + l, s = i / STRIDE;
    if (i % STRIDE == ((s * 2654435761u) >> 13) % STRIDE) raw[s] = k[u];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = l; s < SAMPLE; s += WG) {
    const skey key = raw[s];
    uint rank = 0;
    for (uint c = 0; c < SAMPLE; ++c) {
      const skey d = raw[c];
      rank += d < key || (d == key && c < s);
    }
    samp[rank] = key;
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  __global const uint* rk = ranks + (ulong)g * rank_stride;
  __global skey* o = out + (ulong)g * R;
  // The last search's range of ranks [a_below, a_below + a_in): all one key (a_single), or the
  // keys in cand, of which work-item l < a_in holds cand[l] with my_lt keys below it, my_le at
  // or below it, and my_eqb equal ones before it.
  uint a_below = 0, a_in = 0, a_single = 0;
  skey a_key = 0, my_key = 0;
  uint my_lt = 0, my_le = 0, my_eqb = 1;
  for (uint j = 0; j < R; ++j) {
    const uint t = rk[j];
    if (t < a_below || t - a_below >= a_in) {
      // 1-2. The bracket and its counts.
      const float p = ((float)t + 0.5f) / (float)NPAD;
      const int M = (int)(3.0f * sqrt((float)SAMPLE * p * (1.0f - p))) + 2;
      const int ts = (int)(((ulong)t * SAMPLE) / NPAD);
      skey lo = ts - M <= 0 ? (skey)0 : samp[ts - M];
      skey hi = ts + M + 1 >= SAMPLE ? KEY_MAX : samp[ts + M + 1];
      uint cb = 0, ci = 0;
#pragma unroll
      for (uint u = 0; u < RITEMS; ++u) {
        cb += k[u] < lo;
        ci += k[u] >= lo && k[u] <= hi;
      }
      const uint both = group_sum(red, part, (cb << 16) | ci, l);
      uint below = both >> 16, in = both & 0xffffu;
      if (t < below) {  // below the bracket: some key is below lo, so lo > 0
        hi = lo - 1;
        lo = 0;
        in = below;
        below = 0;
      } else if (t - below >= in) {  // above it: some key is above hi, so hi < KEY_MAX
        lo = hi + 1;
        hi = KEY_MAX;
        below += in;
        in = NPAD - below;
      }
      // 3. Shrink [lo, hi] to t's step while it holds more than WG keys.
      while (in > WG && lo < hi) {
        const uint sh = interval_shift(lo, hi, LOG2_WG);
        red[l] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint u = 0; u < RITEMS; ++u)
          if (k[u] >= lo && k[u] <= hi) atomic_inc(&red[(uint)((k[u] - lo) >> sh)]);
        barrier(CLK_LOCAL_MEM_FENCE);
        CHUNK_SUMS(red, part, l);
        const uint cnt = red[l], before = prefix_before(red, part, l), tt = t - below;
        if (tt >= before && tt - before < cnt) {  // exactly one step holds rank t
          const skey slo = lo + ((skey)l << sh), w = ((skey)1 << sh) - 1;
          s_lo = slo;
          s_hi = hi - slo <= w ? hi : slo + w;
          s_below = below + before;
          s_in = cnt;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        lo = s_lo;  // written again only after this pass's next two barriers
        hi = s_hi;
        below = s_below;
        in = s_in;
      }
      a_below = below;
      a_in = in;
      a_single = lo == hi;
      a_key = lo;
      if (!a_single) {  // 4. At most WG keys: copy them and rank each among the others.
        if (l == 0) cursor = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
        for (uint u = 0; u < RITEMS; ++u)
          if (k[u] >= lo && k[u] <= hi) cand[atomic_inc(&cursor)] = k[u];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < in) {
          my_key = cand[l];
          my_lt = my_le = my_eqb = 0;
          for (uint c = 0; c < in; ++c) {
            const skey d = cand[c];
            my_lt += d < my_key;
            my_le += d <= my_key;
            my_eqb += d == my_key && c < l;
          }
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // cand and red are free for the next search
      }
    }
    const uint tt = t - a_below;
    if (a_single) {
      if (l == 0) o[j] = a_key;
    } else if (l < a_in && my_eqb == 0 && my_lt <= tt && tt < my_le) {
      o[j] = my_key;
    }
  }
}

// top_k along rows, after select_rows found each row's threshold key thr[g] (the k-th largest,
// or smallest, of row g): the keys beyond it (above it when `largest`, below otherwise; NaN keys
// skipped when `skip_nan`) with their columns, in any order, then as many keys equal to it as k
// takes, the lowest columns first, to keys[g k ..) and cols_out[g k ..). The row is read in
// chunks of WG elements in column order; within a chunk each tie's rank among the row's ties
// comes from the chunk's prefix sums (the two-barrier chunk sums of select_rows).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void top_k_rows_gather(__global const elem_t* x, ulong xoff, uint cols, ulong ld, __global const skey* thr,
                       uint largest, uint skip_nan, uint k, __global skey* keys, __global uint* cols_out) {
  __local uint red[WG], part[NCH];
  __local uint cursor;
  const uint l = get_local_id(0);
  const uint g = get_group_id(0);
  __global const elem_t* row = x + xoff + (ulong)g * ld;
  const skey t = thr[g];
  if (l == 0) cursor = 0;  // group_sum's barriers order this before every atomic_inc
  uint nb = 0;
  for (uint i = l; i < cols; i += WG) {
    const skey key = to_key(row[i]);
    nb += !(skip_nan && is_nan_elem(row[i])) && (largest ? key > t : key < t);
  }
  nb = group_sum(red, part, nb, l);
  const uint need = k - nb;  // ties to take
  uint taken = 0;  // ties in the chunks before this one, the same for the whole group
  for (uint c0 = 0; c0 < cols; c0 += WG) {
    const uint i = c0 + l;
    skey key = 0;
    uint beyond = 0, tie = 0;
    if (i < cols) {
      key = to_key(row[i]);
      const int skip = skip_nan && is_nan_elem(row[i]);
      beyond = !skip && (largest ? key > t : key < t);
      tie = !skip && key == t;
    }
    if (beyond) {
      const uint at = atomic_inc(&cursor);
      keys[(ulong)g * k + at] = key;
      cols_out[(ulong)g * k + at] = i;
    }
    red[l] = tie;
    barrier(CLK_LOCAL_MEM_FENCE);
    CHUNK_SUMS(red, part, l);
    const uint rank = taken + prefix_before(red, part, l);
    if (tie && rank < need) {
      keys[(ulong)g * k + nb + rank] = key;
      cols_out[(ulong)g * k + nb + rank] = i;
    }
    uint chunk = 0;
    for (uint c = 0; c < NCH; ++c) chunk += part[c];
    taken += chunk;
    barrier(CLK_LOCAL_MEM_FENCE);  // red and part are written again by the next chunk
  }
}
