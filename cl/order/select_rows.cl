// Batched selection: one work-group per row of a row-major matrix (row r at x + xoff + r * ld),
// every rank of the row answered in one launch that reads the row once. The row's keys stay in
// registers, RITEMS a work-item (item u of work-item l is element u WG + l, so loads coalesce;
// the padding past `cols` is KEY_MAX, above every rank asked for). Two kernels, the same
// arguments and results; the host picks by the ranks a row (order.rows_bucket_ranks):
//
// select_rows, for a few ranks (a median, a k-th, top_k's threshold), finds each as the
// single-array selection finds a median, inside the group:
// 1. a sample of SAMPLE keys (one from each stretch of NPAD / SAMPLE elements, at a hashed
//    offset in it, so periodic rows are sampled fairly), sorted by counting (each key's rank
//    among the others: one barrier, where a bitonic sort takes 21), gives a bracket, the sample
//    keys about three standard deviations of t's sample rank either side of it (Floyd &
//    Rivest's idea);
// 2. the keys below the bracket and in it are counted in registers and summed over the group
//    with no atomics (a local histogram of the top digits of clustered keys serialises on a
//    few counters, which made radix descents here latency- and contention-bound);
// 3. SEARCH_RANGE: while more than WG keys remain in the interval, a local histogram of their
//    offsets in WG equal steps of it (interval_shift) and the steps' prefix sums shrink it to
//    t's step; the bracket's keys are spread by value, so few share a counter. A target outside
//    the bracket (an unlucky sample) starts this from the side of the bracket that holds it;
//    the at most WG keys left are copied to local memory and each work-item ranks one against
//    the others: the one whose rank range holds t (and is the first of its equal keys) writes it.
// Later ranks inside the same range (the two middle ranks of an even row, the two ranks a
// quantile rule interpolates between) are answered from those ranks with no new search.
//
// select_rows_buckets, for many ranks, finds all in one pass over the keys: sample selection
// with equality buckets (Ribizel & Anzt, "Parallel selection on GPUs", Parallel Computing 91,
// 2020, sec. 3; the branch-free search tree of Sanders & Winkel's super scalar sample sort,
// ESA 2004, sec. 2):
// 1. SPL - 1 keys sampled from the row (one from each stretch of cols / (SPL - 1) elements, at a
//    hashed offset in it: sample_at), sorted by the local bitonic network (with KEY_MAX to make SPL), are
//    the splitters;
// 2. each key's bucket is 2q - e, q the number of splitters at or below it (a branch-free
//    descent of the splitters in Eytzinger order, its first two levels held in registers: in
//    sorted order a level's nodes shared a few local-memory banks, and doubles took 27% longer
//    on normal rows) and e whether splitter q - 1 equals it; so a key that many elements share (ties)
//    fills an equality bucket of its own, one value, and an open bucket holds only the elements
//    between two samples (about NPAD / SPL). The buckets are counted in a local histogram
//    (one counter a bucket: with four, each work-item adding to copy l % 4, the bench's rows,
//    two thirds of them two values, took 11% longer on the H200, the scan's extra reads
//    costing more than the contention they spared), and the counts' prefix sums place every
//    rank in its bucket;
// 3. a rank in an equality bucket is its splitter; the keys of the open buckets that hold ranks
//    are copied to local memory (CAND a group, the buckets in bucket order while they fit), each
//    ranks itself against its bucket's others and lands at its place, and a rank reads its key
//    from there;
// 4. a rank whose bucket did not fit (an unlucky sample, or order.rows_cand = 0) is searched in
//    that bucket's keys by SEARCH_RANGE.
// Its splitter sort and search cost more than select_rows's bracket for one rank (H200, median
// of 4096 x 4096 floats: 0.131 ms against 0.069), and much less for many (floats, 65536 x 2048,
// five quantiles: 0.86 ms against 1.62; sixteen: 1.61 against 5.87).
//
// Rows with NaNs: every launch writes each row's NaN count; with nan_stop, a row that holds any
// is left for the host (its NaN policy decides; under omit it launches those rows again,
// through row_of, with ranks of their own: NaN keys sort last, so ranks below the row's non-NaN
// count never meet them). Results are exact: keys are compared, never values.
//
// Sums over the group take two barriers: 16 work-items add 16 chunks, then every work-item adds
// the chunks' sums it needs; a tree or a Hillis-Steele scan took eight and seventeen, and
// barriers, not arithmetic, bounded a row.
//
// PoCL 3.1 (CI's CPU driver) miscompiled three shapes here, each giving wrong or unwritten ranks:
// a function that holds a barrier called from two places, a return before later barriers in
// select_rows_buckets, and a loop around its steps; so the sums and the search are macros, and
// a launch answers at most MAXR ranks a row (the host launches again for more).
//
// Options: ELEM_KIND, WG (a power of two: the host makes it cols / order.rows_items, from 32 to
// 256), LOG2_WG, RITEMS (RITEMS WG < 65536: select_rows sums two counts packed in one uint),
// CAND (select_rows_buckets's candidate keys, order.rows_cand x WG; 0 sends every open bucket to
// SEARCH_RANGE), MAXR. top_k_rows_gather, at the end, serves top_k along rows from the
// thresholds found here.
#include "order_keys.clh"

#ifndef RITEMS
#define RITEMS 16
#endif
#ifndef CAND
#define CAND (4 * WG)
#endif
#ifndef MAXR
#define MAXR 64
#endif
#define NPAD (RITEMS * WG)
#define SAMPLE (NPAD < 64 ? NPAD : 64)
#define STRIDE (NPAD / SAMPLE)
// select_rows_buckets's splitters (a power of two, the last KEY_MAX): about one for 16 keys,
// from 16 to 128; the sort's and the search's cost grow with it, the candidates' ranking
// shrinks (open buckets of about NPAD / SPL keys).
#define SPL_RAW (NPAD / 16 < 16 ? 16 : NPAD / 16)
#define SPL (SPL_RAW > 128 ? 128 : SPL_RAW)
#define LOG2_SPL (SPL == 128 ? 7 : SPL == 64 ? 6 : SPL == 32 ? 5 : 4)
#define NBK (2 * SPL)
#define BPT ((NBK + WG - 1) / WG)
#define NCH (WG < 16 ? WG : 16)
#define CH (WG / NCH)
#define NONE 0xffffffffu
#define CAND_ARR (CAND > 0 ? CAND : 1)
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

// Exclusive prefix sums over the NBK buckets of VAL (an expression of b) into dst[b], BPT buckets
// a work-item. Ends with a barrier.
#define SCAN_BUCKETS(VAL, dst)                                                   \
  do {                                                                           \
    uint s_ = 0;                                                                 \
    for (uint i_ = 0; i_ < BPT; ++i_) {                                          \
      const uint b = l * BPT + i_;                                               \
      if (b < NBK) s_ += (VAL);                                                  \
    }                                                                            \
    red[l] = s_;                                                                 \
    barrier(CLK_LOCAL_MEM_FENCE);                                                \
    CHUNK_SUMS(red, part, l);                                                    \
    uint acc_ = prefix_before(red, part, l);                                     \
    for (uint i_ = 0; i_ < BPT; ++i_) {                                          \
      const uint b = l * BPT + i_;                                               \
      if (b < NBK) {                                                             \
        const uint v_ = (VAL);                                                   \
        (dst)[b] = acc_;                                                         \
        acc_ += v_;                                                              \
      }                                                                          \
    }                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                \
  } while (0)

// The row's keys, element u WG + l in k[u] (KEY_MAX past cols); returns the NaNs among them.
inline uint load_row(__global const elem_t* row, uint cols, uint l, skey* k) {
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
  return nan;
}

// Key's bucket among the splitters spl[0, SPL - 1) (sorted): 2q - e, q the number of splitters
// at or below key, e whether spl[q - 1] equals it. q comes from a branch-free descent of tree,
// the same splitters in Eytzinger (breadth-first) order: tree[1] the middle one, tree[2i] and
// tree[2i + 1] the children of tree[i], t1, t2, t3 = tree[1..3] held in registers. A level's
// nodes are adjacent in local memory, so the lanes of a wave that read different nodes of it
// read different banks; in sorted order they lay 2^(LOG2_SPL - d) apart, on a few banks.
inline uint bucket_of(__local const skey* tree, __local const skey* spl, skey t1, skey t2, skey t3, skey key) {
  uint j = 2 + (t1 <= key);
  j = 2 * j + ((j == 2 ? t2 : t3) <= key);
#pragma unroll
  for (uint s = 2; s < LOG2_SPL; ++s) j = 2 * j + (tree[j] <= key);
  const uint q = j - SPL;
  return 2 * q - (q > 0 && spl[q - 1] == key);
}

// SEARCH_RANGE(t): rank t (0-based in the row) among keys in [lo, hi], `below` of the row's keys
// below lo and `in` inside: while more than WG remain, WG equal steps of the interval counted in
// red shrink it to t's step; then the keys left are copied to fb and ranked against each other.
// Leaves a_below, a_in, a_single, a_key and my_* (the answer's state, see ANSWER_RANGE) and uses
// red, part, fb, cursor and s_*. The same for the whole group; a macro for PoCL (above).
#define SEARCH_RANGE(t)                                                                    \
  do {                                                                                     \
    while (in > WG && lo < hi) {                                                           \
      const uint sh = interval_shift(lo, hi, LOG2_WG);                                     \
      red[l] = 0;                                                                          \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      _Pragma("unroll") for (uint u = 0; u < RITEMS; ++u) if (k[u] >= lo && k[u] <= hi)   \
          atomic_inc(&red[(uint)((k[u] - lo) >> sh)]);                                     \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      CHUNK_SUMS(red, part, l);                                                            \
      const uint c_ = red[l], before_ = prefix_before(red, part, l), tt_ = (t) - below;    \
      if (tt_ >= before_ && tt_ - before_ < c_) { /* exactly one step holds rank t */      \
        const skey slo_ = lo + ((skey)l << sh), w_ = ((skey)1 << sh) - 1;                  \
        s_lo = slo_;                                                                       \
        s_hi = hi - slo_ <= w_ ? hi : slo_ + w_;                                           \
        s_below = below + before_;                                                         \
        s_in = c_;                                                                         \
      }                                                                                    \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      lo = s_lo; /* written again only after this pass's next two barriers */             \
      hi = s_hi;                                                                           \
      below = s_below;                                                                     \
      in = s_in;                                                                           \
    }                                                                                      \
    a_below = below;                                                                       \
    a_in = in;                                                                             \
    a_single = lo == hi;                                                                   \
    a_key = lo;                                                                            \
    if (!a_single) { /* at most WG keys: copy them and rank each among the others */       \
      if (l == 0) cursor = 0;                                                              \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      _Pragma("unroll") for (uint u = 0; u < RITEMS; ++u) if (k[u] >= lo && k[u] <= hi)   \
          fb[atomic_inc(&cursor)] = k[u];                                                  \
      barrier(CLK_LOCAL_MEM_FENCE);                                                        \
      if (l < in) {                                                                        \
        my_key = fb[l];                                                                    \
        my_lt = my_le = my_eqb = 0;                                                        \
        for (uint c = 0; c < in; ++c) {                                                    \
          const skey d = fb[c];                                                            \
          my_lt += d < my_key;                                                             \
          my_le += d <= my_key;                                                            \
          my_eqb += d == my_key && c < l;                                                  \
        }                                                                                  \
      }                                                                                    \
      barrier(CLK_LOCAL_MEM_FENCE); /* fb and red are free for the next search */          \
    }                                                                                      \
  } while (0)

// The last search's range of ranks [a_below, a_below + a_in): all one key (a_single), or the
// keys in fb, of which work-item l < a_in holds fb[l] with my_lt keys below it, my_le at or
// below it, and my_eqb equal ones before it. Writes rank t's key to o[j] if it is in that range.
#define SEARCH_STATE                       \
  uint a_below = 0, a_in = 0, a_single = 0; \
  skey a_key = 0, my_key = 0;               \
  uint my_lt = 0, my_le = 0, my_eqb = 1
#define IN_RANGE(t) ((t) >= a_below && (t) - a_below < a_in)
#define ANSWER_RANGE(t, j)                                                    \
  do {                                                                        \
    const uint tt_ = (t) - a_below;                                           \
    if (a_single) {                                                           \
      if (l == 0) o[j] = a_key;                                               \
    } else if (l < a_in && my_eqb == 0 && my_lt <= tt_ && tt_ < my_le) {      \
      o[j] = my_key;                                                          \
    }                                                                         \
  } while (0)

// The locals of SEARCH_RANGE.
#define SEARCH_LOCALS          \
  __local skey fb[WG];         \
  __local uint red[WG], part[NCH]; \
  __local uint cursor, s_below, s_in; \
  __local skey s_lo, s_hi

// The arguments of both selection kernels (the host sets the same ones for either): group g
// selects in row row_of[g] (use_row_of) or g, ranks ranks[g rank_stride + j] (0-based, j < R),
// and writes their keys to out[g R + j] and its NaN count to nan_out[g].
#define SELECT_ROWS_PARAMS                                                                          \
  __global const elem_t *x, ulong xoff, uint cols, ulong ld, __global const uint *row_of, uint use_row_of, \
      __global const uint *ranks, uint rank_stride, uint R, uint nan_stop, __global skey *out,      \
      __global uint *nan_out
// Work-item l of group g, and the row's keys in k (load_row); nan, the NaNs among them.
#define LOAD_GROUP_ROW                                                                 \
  const uint l = get_local_id(0);                                                      \
  const uint g = get_group_id(0);                                                      \
  __global const elem_t* row = x + xoff + (use_row_of ? row_of[g] : g) * ld;           \
  skey k[RITEMS];                                                                      \
  uint nan = load_row(row, cols, l, k)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_rows(SELECT_ROWS_PARAMS) {
  __local skey raw[SAMPLE], samp[SAMPLE];
  SEARCH_LOCALS;
  LOAD_GROUP_ROW;
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
  SEARCH_STATE;
  for (uint j = 0; j < R; ++j) {
    const uint t = rk[j];
    if (!IN_RANGE(t)) {
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
      SEARCH_RANGE(t);
    }
    ANSWER_RANGE(t, j);
  }
}

// select_rows_buckets: the arguments and results of select_rows, R <= MAXR.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_rows_buckets(SELECT_ROWS_PARAMS) {
  __local skey spl[SPL], tree[SPL];
  __local uint cnt[NBK], pre[NBK], slot[NBK], fill[NBK];
  __local uchar kb[NPAD];  // each key's bucket: in registers it took 8 more a work-item (fewer groups at once)
  __local uchar want[NBK];
  __local skey cand[CAND_ARR], placed[CAND_ARR];
  __local uchar cand_b[CAND_ARR];
  __local uint tb[MAXR];
  __local uint s_used, s_pending, s_nan;
  SEARCH_LOCALS;
  LOAD_GROUP_ROW;

  // 1. The splitters: sample s at a hashed offset in stretch s, read again (from cache).
  for (uint s = l; s < SPL - 1; s += WG) spl[s] = to_key(row[sample_at(s, sample_hash(s), cols / (SPL - 1))]);
  if (l == 0) {
    spl[SPL - 1] = KEY_MAX;
    s_used = 0;
    s_pending = 0;
    s_nan = 0;
  }
  for (uint i = l; i < NBK; i += WG) {
    cnt[i] = 0;
    want[i] = 0;
    fill[i] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  BITONIC_SORT_LOCAL(spl, SPL, l, );
  for (uint i = l + 1; i < SPL; i += WG) {  // node i, at depth d, is the sorted splitter below
    const uint d = 31 - clz(i);
    tree[i] = spl[((2 * (i - (1u << d)) + 1) << (LOG2_SPL - 1 - d)) - 1];
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 2. Buckets and their counts.
  if (nan) atomic_add(&s_nan, nan);
  const skey t1 = tree[1], t2 = tree[2], t3 = tree[3];
#pragma unroll
  for (uint u = 0; u < RITEMS; ++u) {
    const uint b = bucket_of(tree, spl, t1, t2, t3, k[u]);
    kb[u * WG + l] = (uchar)b;
    atomic_inc(&cnt[b]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  SCAN_BUCKETS(cnt[b], pre);
  nan = s_nan;
  if (l == 0) nan_out[g] = nan;
  // A row with NaNs under nan_stop is left for the host: no ranks (not a return: PoCL, above).
  const uint nr = nan_stop && nan > 0 ? 0 : R;  // the same for the whole group
  __global const uint* rk = ranks + (ulong)g * rank_stride;
  __global skey* o = out + (ulong)g * R;

  // 3. Each rank's bucket (the last whose prefix is at most the rank); equality buckets answer.
  for (uint j = l; j < nr; j += WG) {
    const uint t = rk[j];
    uint b = 0;
    for (uint s = NBK / 2; s > 0; s >>= 1) b = pre[b + s] <= t ? b + s : b;
    tb[j] = b;
    if (b & 1)
      o[j] = spl[b >> 1];
    else
      want[b] = 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  SCAN_BUCKETS(want[b] ? cnt[b] : 0u, slot);
  for (uint i = 0; i < BPT; ++i) {  // a bucket keeps its slot if it fits
    const uint b = l * BPT + i;
    if (b < NBK) {
      const uint end = slot[b] + cnt[b];
      const int fits = want[b] && end <= CAND;
      slot[b] = fits ? slot[b] : NONE;
      if (fits) atomic_max(&s_used, end);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint used = s_used;
#pragma unroll
  for (uint u = 0; u < RITEMS; ++u) {
    const uint b = kb[u * WG + l], at = slot[b];
    if (at != NONE) {
      const uint i = at + atomic_inc(&fill[b]);
      cand[i] = k[u];
      cand_b[i] = (uchar)b;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = l; i < used; i += WG) {  // each candidate to its place in its bucket
    const skey key = cand[i];
    const uint b = cand_b[i], a = slot[b], e = a + cnt[b];
    uint at = a;
    for (uint c = a; c < e; ++c) {
      const skey d = cand[c];
      at += d < key || (d == key && c < i);
    }
    placed[at] = key;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = l; j < nr; j += WG) {
    const uint b = tb[j];
    if (!(b & 1)) {
      if (slot[b] != NONE)
        o[j] = placed[slot[b] + rk[j] - pre[b]];
      else
        s_pending = 1;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);

  // 4. Ranks whose open bucket did not fit, one search each, from the bucket's keys: those
  // strictly between splitters q - 1 and q (b = 2q).
  if (s_pending) {
    SEARCH_STATE;
    for (uint j = 0; j < nr; ++j) {
      const uint b = tb[j];
      if ((b & 1) || slot[b] != NONE) continue;  // the same for the whole group
      const uint t = rk[j];
      if (!IN_RANGE(t)) {
        const uint q = b >> 1;
        skey lo = q == 0 ? (skey)0 : spl[q - 1] + 1, hi = q == SPL - 1 ? KEY_MAX : spl[q] - 1;
        uint below = pre[b], in = cnt[b];
        SEARCH_RANGE(t);
      }
      ANSWER_RANGE(t, j);
    }
  }
}

// top_k along rows, after select_rows found each row's threshold key thr[g] (the k-th largest,
// or smallest, of row g): the keys beyond it (above it when `largest`, below otherwise; NaN keys
// skipped when `skip_nan`) with their columns, in any order, then as many keys equal to it as k
// takes, the lowest columns first, to keys[g k ..) and cols_out[g k ..). A first pass counts the
// keys beyond and the ties. When k takes every tie (as it does unless the threshold repeats past
// the k-th place), a second pass gives each taken key a slot by one local atomic, in any order:
// the host sorts each row's k. Otherwise the row is read in chunks of WG elements in column order;
// within a chunk each tie's rank among the row's ties comes from the chunk's prefix sums (the
// two-barrier chunk sums of select_rows). Both passes run in every group, the one not needed for
// zero rounds, so no barrier sits in a branch. (H200, 4096 x 4096 floats, k = 8: the chunk loop
// alone took 156 us.)
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
  uint nb = 0, nt = 0;
  for (uint i = l; i < cols; i += WG) {
    const skey key = to_key(row[i]);
    const int skip = skip_nan && is_nan_elem(row[i]);
    nb += !skip && (largest ? key > t : key < t);
    nt += !skip && key == t;
  }
  // Both counts in one sum: cols <= RITEMS WG < 65536.
  const uint both = group_sum(red, part, nb | (nt << 16), l);
  nb = both & 0xffffu;
  const uint need = k - nb;  // ties to take
  const int every_tie = (both >> 16) == need;
  for (uint i = l; every_tie && i < cols; i += WG) {
    const skey key = to_key(row[i]);
    const int skip = skip_nan && is_nan_elem(row[i]);
    if (!skip && (key == t || (largest ? key > t : key < t))) {
      const uint at = atomic_inc(&cursor);
      keys[(ulong)g * k + at] = key;
      cols_out[(ulong)g * k + at] = i;
    }
  }
  uint taken = 0;  // ties in the chunks before this one, the same for the whole group
  for (uint c0 = 0; !every_tie && c0 < cols; c0 += WG) {
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
