// MSD radix selection on order-preserving keys (issue 7, "radix_select"). Every pass reads the
// candidates once: it histograms the next digit of the keys that share a job's prefix, in local
// memory, and, when COMPACT=1, appends those keys to a smaller candidate array, so later passes
// read only them. The host sums the per-group histograms (select_sum), walks them to find the
// digit of every target rank, and stops when the candidates of each job fit in one work-group,
// which sorts them in local memory (select_finish). Portable OpenCL 1.2: local atomics, barriers,
// and one 32-bit global atomic per group flush for the compaction cursor; no subgroups, no
// int64 or float atomics. Counts are per group (uint) and summed in ulong. top_k's gather and
// the sort baseline's keys are here too; the keys themselves are in order_keys.clh.
//
// For one target or a few close ones, a sampled bracket comes first (Floyd & Rivest's idea):
// select_sample sorts LCAP keys taken at spread positions in one group and keeps the keys
// `margin` samples either side of the targets' sample rank; select_hist with FILTER=1 then reads
// the data once, counts the keys below the bracket and the NaNs and copies the keys inside it
// (a few percent of n). It histograms nothing: local atomics, even on a few percent of the keys,
// cost more than the next pass over the copied keys. With up to four targets the passes after
// it are planned on the device (plan_body): the job is a key interval that shrinks to the
// targets' buckets each pass, and the host waits once, for the answer.
//
// Spread targets (quantiles at 1% and 99%, say) take one bracket per cluster of close targets,
// each from its own samples (slot s of `bracket`), and a bracket pass with NBR > 1: it merges
// the slots' brackets where they overlap, counts for each merged bracket the keys below it and
// the keys up to its top, and copies the keys inside any bracket of more than one key. The host
// then ranks the targets among the copies alone (the keys between the brackets are counted, not
// copied), so 5 or 16 quantiles read the data once, as a median does. On GPUs those passes over
// the copies are planned on the device as well (select_plan_iv_start, select_plan_iv).
//
// Options: ELEM_KIND 0 float, 1 double, 2 int, 3 long; WG; ITEMS loads per thread per step;
// HBINS local histogram counters (jobs << bits <= HBINS); COMPACT; FIRST (also count NaNs and
// find the key range); FILTER (bracket pass: implies COMPACT, no histogram); DEVICE_PLAN (the
// pass reads its job from the device plan); IVJOBS (the jobs are key intervals, `jobs` holding
// {lo, hi} pairs, and a key's digit is its offset in its interval in 2^bits equal steps); NBR
// (with FILTER: the merged brackets the pass counts against, 1 for the single bracket); LCAP
// keys sorted by one group in select_finish and select_sample (a power of two).
#include "last_group.clh"
#include "order_keys.clh"

#ifndef ITEMS
#define ITEMS 8
#endif
#ifndef FILTER
#define FILTER 0
#endif
#ifndef FIRST
#define FIRST 0
#endif
#ifndef COMPACT
#define COMPACT 0
#endif
#ifndef FROM_KEYS
#define FROM_KEYS 0
#endif
#ifndef DEVICE_PLAN
#define DEVICE_PLAN 0
#endif
#ifndef HBINS
#define HBINS 4096
#endif
#ifndef LCAP
#define LCAP 2048
#endif
#ifndef STAGE
#define STAGE 2048
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef NBR
#define NBR 1
#endif
#ifndef IVJOBS
#define IVJOBS 0
#endif
#ifndef SAMPLE_BATCH
#define SAMPLE_BATCH 1
#endif
#define FILTER_CHECK 4
#define NARROW 64  // see the bracket pass of spread targets
// The bracket pass of spread targets searches the brackets from this many. Over 2^27 values on
// an H200, five brackets: 600 us either way for doubles, 417 -> 401 for floats; sixteen: 959 ->
// 723 (doubles) and 738 -> 558 (floats) with the search.
#ifndef BSEARCH_NBR
#define BSEARCH_NBR 5
#endif
#if NBR < 2
#define NBR_P2 2
#elif NBR < 4
#define NBR_P2 4
#elif NBR < 8
#define NBR_P2 8
#elif NBR < 16
#define NBR_P2 16
#elif NBR < 32
#define NBR_P2 32
#else
#define NBR_P2 64
#endif
// A slot of the bracket buffer, in keys: {lo, hi}, then (as uint) the second sample's count
// below and its histogram (select_sample2).
#define SAMPLE_BINS 4096
#define BRACKET_WORDS (2 + (4 * (SAMPLE_BINS + 1) + (KEYBITS / 8) - 1) / (KEYBITS / 8))

// The device plan of spread targets (ulong words; select_plan_iv_start, select_plan_iv): IVP_STATUS (0
// running, 1 ready to finish, 2 done, 4 the host starts over), IVP_NJOBS, IVP_M (keys in the
// source), IVP_SRC (1 the first candidate buffer, 2 the second), IVP_COMPACT (the next pass
// copies the jobs' keys to the other buffer), IVP_NT (targets), IVP_NAN, IVP_TOTAL (the jobs'
// keys); then {lo, hi, count} per job, each target's job and its rank in that job, the targets'
// keys once answered, and their ranks in the whole input (written by the host). As
// kIv* in src/order/radix_select.cpp.
#define IVP_STATUS 0
#define IVP_NJOBS 1
#define IVP_M 2
#define IVP_SRC 3
#define IVP_COMPACT 4
#define IVP_NT 5
#define IVP_NAN 6
#define IVP_TOTAL 7
#define IVP_MAXT 64
#define IVP_MAXB 16
#define IVP_JOBS 8
#define IVP_TJOB (IVP_JOBS + 3 * IVP_MAXT)
#define IVP_TRANK (IVP_TJOB + IVP_MAXT)
#define IVP_OUT (IVP_TRANK + IVP_MAXT)
#define IVP_RANKS (IVP_OUT + IVP_MAXT)

// The digit bits of an interval pass over njobs jobs: 4096 counters in all (as the host's descend).
inline uint iv_bits(uint njobs) {
  uint c = 0;
  while ((1u << c) < njobs) ++c;
  return 12 - c;
}

// Index of the interval [jlo[j], jhi[j]] that holds k (intervals disjoint, sorted), or -1.
inline int find_interval(skey k, uint njobs, __local const skey* jlo, __local const skey* jhi) {
  int lo = 0, hi = (int)njobs - 1;
  if (k < jlo[0]) return -1;
  while (lo < hi) {  // the last interval starting at or below k
    const int mid = (lo + hi + 1) >> 1;
    if (jlo[mid] <= k) lo = mid; else hi = mid - 1;
  }
  return k <= jhi[lo] ? lo : -1;
}

// Index of the job whose prefix the key has (jobs sorted ascending), or -1.
inline int find_job(skey k, uint plen, uint njobs, __local const skey* jp) {
  if (plen == 0) return 0;
  const skey h = k >> (KEYBITS - plen);
  int lo = 0, hi = (int)njobs - 1;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (jp[mid] < h) lo = mid + 1; else hi = mid;
  }
  return jp[lo] == h ? lo : -1;
}

// The shift that maps offsets within [lo, hi] (lo < hi) to at most 4096 buckets.
inline uint plan_shift(skey lo, skey hi) {
  const uint span_bits = KEYBITS - (uint)clz(hi - lo);
  return span_bits > 12 ? span_bits - 12 : 0;
}

// A run of equal bins in one thread's elements is added with one atomic: sorted, constant and
// concentrated inputs would otherwise serialise on one local counter.
#define RUN_FLUSH() do { if (rcnt) atomic_add(&hist[rbin < 0 ? 0 : rbin], rcnt); } while (0)
#define RUN_ADD(b) do { if ((b) == rbin) { ++rcnt; } else { RUN_FLUSH(); rbin = (b); rcnt = 1; } } while (0)

#if FILTER && NBR > 1
// The bracket pass of spread targets: the plen slots' brackets (slot s at bracket + s
// BRACKET_WORDS) sorted by their low ends into lo and hi and merged where they overlap; returns
// how many remain, and with `publish` writes them to minmax ({lo, hi} each, then their number at
// 2 NBR) for the host. One work-item runs it; every group gets the same brackets.
inline uint merge_brackets(__global const skey* bracket, uint plen, __local skey* lo, __local skey* hi,
                           __global skey* minmax, int publish) {
  uint c = 0;
  for (uint s = 0; s < plen; ++s) {
    const skey l = bracket[(ulong)s * BRACKET_WORDS], h = bracket[(ulong)s * BRACKET_WORDS + 1];
    uint i = c++;
    for (; i > 0 && lo[i - 1] > l; --i) {
      lo[i] = lo[i - 1];
      hi[i] = hi[i - 1];
    }
    lo[i] = l;
    hi[i] = h;
  }
  uint mc = 0;
  for (uint i = 0; i < c; ++i) {
    if (mc > 0 && lo[i] <= hi[mc - 1]) {
      hi[mc - 1] = max(hi[mc - 1], hi[i]);
    } else {
      lo[mc] = lo[i];
      hi[mc] = hi[i];
      ++mc;
    }
  }
  if (publish) {
    for (uint i = 0; i < mc; ++i) {
      minmax[2 * i] = lo[i];
      minmax[2 * i + 1] = hi[i];
    }
    minmax[2 * NBR] = (skey)mc;
  }
  return mc;
}
#endif

// One pass. Reads m elements (x + xoff, or keys kin when FROM_KEYS), writes this group's
// histogram row (njobs << bits counters, then the NaN count, then the count below the bracket)
// to partials + group * row, with FIRST the group's smallest and largest key to minmax, with
// COMPACT the matching keys to kout at positions taken from *cursor (those past cap are
// counted, not written). With FILTER, bracket = {lo, hi, shift} from select_sample replaces the
// jobs and the shift argument. With DEVICE_PLAN the pass's job, source and compaction come from
// the plan that plan_body left in `plan` (kin and kout are then the two candidate buffers,
// `bits` only sets the row layout), and the pass does nothing unless the plan is running.
// With FILTER and NBR > 1, `plen` is the number of bracket slots; the row is NBR counts of the
// keys below each merged bracket, NBR counts of the keys inside it (of those more than NARROW
// keys wide), then NARROW counters per bracket: the keys lo, lo + 1, ... of a narrower one; and
// group 0 writes the merged brackets to minmax ({lo, hi} each, then their number).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_hist(__global const elem_t* x, ulong xoff, __global skey* kin, ulong m,
                 uint plen, uint shift, uint bits, uint njobs, __global const skey* jobs,
                 __global uint* partials, uint row, __global skey* kout, __global uint* cursor,
                 __global skey* minmax, uint cap, __global const skey* bracket, skey prefix0,
                 __global const ulong* plan) {
  __local uint hist[HBINS];
  __local skey jp[64];
#if IVJOBS
  __local skey jhi[64];
  __local uint jsh[64];
#endif
#if COMPACT || DEVICE_PLAN
  __local skey stage[STAGE];
  __local uint lcount, lbase;
#endif
#if FIRST
  __local skey lmin[WG], lmax[WG];
  skey pmin = KEY_MAX, pmax = 0;
#endif
#if FIRST || FILTER
  __local uint lnan, lbelow, lin;
  uint pnan = 0, pbelow = 0, pin = 0;
#endif
  uint nb = njobs << bits;  // the row layout
#if FILTER && NBR > 1
  // The slots' brackets sorted by their low ends and merged where they overlap, the same in
  // every group; padded with empty brackets (lo > hi) that count nothing.
  __local skey mlo[NBR], mhi[NBR];
  __local uint mcount;
  if (get_local_id(0) == 0) mcount = merge_brackets(bracket, plen, mlo, mhi, minmax, get_group_id(0) == 0);
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint mc = mcount;
#if NBR >= BSEARCH_NBR
  // The brackets' low ends padded to NBR_P2 (a power of two above NBR) with KEY_MAX (no key but
  // KEY_MAX is at or above it, and g is clamped to mc) for the binary search, and a column of
  // counters a work-item for the g it finds (g at g WG + l: no other work-item touches it).
  __local skey slo[NBR_P2];
  __local uint gcol[(NBR + 1) * WG];
  for (uint b = get_local_id(0); b < NBR_P2; b += WG) slo[b] = b < mc ? mlo[b] : KEY_MAX;
  for (uint b = 0; b <= NBR; ++b) gcol[b * WG + get_local_id(0)] = 0;
#else
  // The brackets' low ends in registers (past the merged ones, KEY_MAX: no key but KEY_MAX is
  // at or above it, and g is clamped to mc).
  skey blo[NBR];
  uint cbelow[NBR];
#pragma unroll
  for (int b = 0; b < NBR; ++b) {
    blo[b] = b < (int)mc ? mlo[b] : KEY_MAX;
    cbelow[b] = 0;
  }
#endif
  const uint dbits = bits;
#elif FILTER
  const skey blo = bracket[0], bhi = bracket[1];
  // A bracket of one key (a median inside a run of ties, constant data): its keys are all that
  // key, so they are counted, not copied (copying every key of constant data took 2.8 ms for
  // 2^27 floats on an H100).
  const int copy_keys = blo != bhi;
  const uint dbits = bits;
#elif DEVICE_PLAN
  // Finished, or waiting for the host: no elements (no early return, which not every
  // implementation takes well before a barrier).
  const int idle = plan[0] != 0;
#if IVJOBS
  // The planned interval passes of spread targets (select_plan_iv): the jobs, their source and
  // whether to compact come from that plan.
  njobs = idle ? 0 : (uint)plan[IVP_NJOBS];
  bits = iv_bits(njobs);
  nb = njobs << bits;
  m = idle ? 0 : plan[IVP_M];
  const uint psrc = (uint)plan[IVP_SRC];
  const int compact_rt = plan[IVP_COMPACT] != 0;
#else
  const skey plo = (skey)plan[1], phi = (skey)plan[2];
  m = idle ? 0 : plan[3];
  const uint psrc = (uint)plan[4];
  const int compact_rt = plan[15] != 0;
  // The digit: the key's offset in the job's interval [plo, phi], in 4096 equal steps, so the
  // interval shrinks 4096-fold around one target however it lies against bit boundaries.
  shift = plan_shift(plo, phi);
#endif
  // Source 0 is the input (compact into kin), 1 is kin (into kout), 2 is kout (into kin).
  __global const skey* kin_rt = psrc == 2 ? kout : kin;
  __global skey* kout_rt = psrc == 1 ? kout : kin;
  const uint dbits = bits;
#define COMPACT_ON compact_rt
#define FROM_KEYS_ON (psrc != 0)
#else
  const uint dbits = bits;
#endif
#if !DEVICE_PLAN
  __global const skey* kin_rt = kin;
  __global skey* kout_rt = kout;
#define COMPACT_ON COMPACT
#define FROM_KEYS_ON FROM_KEYS
#endif
  const uint l = get_local_id(0);
  for (uint b = l; b < nb; b += WG) hist[b] = 0;
#if IVJOBS
  for (uint j = l; j < njobs; j += WG) {
#if DEVICE_PLAN
    jp[j] = (skey)plan[IVP_JOBS + 3 * j];
    jhi[j] = (skey)plan[IVP_JOBS + 3 * j + 1];
#else
    jp[j] = jobs[2 * j];
    jhi[j] = jobs[2 * j + 1];
#endif
    jsh[j] = interval_shift(jp[j], jhi[j], bits);
  }
#elif !(FILTER && NBR > 1)  // (the bracket pass of spread targets: njobs only sets the row)
  for (uint j = l; j < njobs; j += WG) jp[j] = njobs == 1 ? prefix0 : jobs[j];  // one job: no upload
#endif
#if COMPACT || DEVICE_PLAN
  if (l == 0) lcount = 0;
#endif
#if FIRST || FILTER
  if (l == 0) lnan = lbelow = lin = 0;
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  const skey dmask = (((skey)1) << dbits) - 1;
  // Element (u, c) of step s is s * ITEMS * VEC * P + (slot + u * P) * VEC + c: 64-bit only in
  // the step's base, 32-bit within it (ITEMS * VEC * P < 2^32), since NVIDIA emulates 64-bit
  // integer arithmetic. VEC > 1 (the host sets it only for the input, when its offset is a
  // multiple of VEC) loads VEC elements at once: an H100 streams floats one at a time at 2.0 TB/s,
  // issue-bound, and 16-byte loads need a quarter of the load instructions.
  const uint P = get_global_size(0);
  const uint slot = get_global_id(0);
  const ulong span = (ulong)ITEMS * VEC * P;
  const ulong steps = (m + span - 1) / span;
  int rbin = -1;
  uint rcnt = 0;
  for (ulong s = 0; s < steps; ++s) {
    const ulong sbase = s * span;
    const uint rem = (uint)min(m - sbase, span);
    __global const skey* srck = kin_rt + sbase;
    __global const elem_t* srcx = x + xoff + sbase;
    skey k[ITEMS * VEC];
#pragma unroll
    for (int u = 0; u < ITEMS; ++u) {
      const uint i0 = (slot + u * P) * VEC;
      if (FROM_KEYS_ON) {
#pragma unroll
        for (int c = 0; c < VEC; ++c) k[u * VEC + c] = i0 + c < rem ? srck[i0 + c] : 0;
      } else {
        elem_t v[VEC];
#if VEC > 1
        if (i0 + VEC <= rem) {
#if VEC == 4
          const elem4_t w = *(__global const elem4_t*)(srcx + i0);
          v[0] = w.s0;
          v[1] = w.s1;
          v[2] = w.s2;
          v[3] = w.s3;
#else
          const elem2_t w = *(__global const elem2_t*)(srcx + i0);
          v[0] = w.s0;
          v[1] = w.s1;
#endif
        } else
#endif
        {
#pragma unroll
          for (int c = 0; c < VEC; ++c) v[c] = i0 + c < rem ? srcx[i0 + c] : 0;
        }
#pragma unroll
        for (int c = 0; c < VEC; ++c) {
          k[u * VEC + c] = to_key(v[c]);
#if FIRST || FILTER
          pnan += is_nan_elem(v[c]);  // the padding is 0
#endif
        }
      }
    }
#pragma unroll
    for (int e = 0; e < ITEMS * VEC; ++e) {
      if ((slot + (e / VEC) * P) * VEC + e % VEC < rem) {
#if FIRST
        pmin = min(pmin, k[e]);
        pmax = max(pmax, k[e]);
#endif
#if FILTER && NBR > 1
        // g, the brackets starting at or below the key: it is inside bracket g - 1 or above it,
        // and below brackets g and up. Many brackets: a binary search over the lows in local
        // memory, and g counted in the work-item's column; few: one compare a bracket, each
        // counting the keys below its bracket. The few keys inside a bracket are counted with a
        // local atomic.
#if NBR >= BSEARCH_NBR
        uint g = 0;
#pragma unroll
        for (uint h = NBR_P2 / 2; h > 0; h >>= 1)
          if (slo[g + h - 1] <= k[e]) g += h;
        g = min(g, mc);
        ++gcol[g * WG + l];
#else
        uint g = NBR;
#pragma unroll
        for (int b = 0; b < NBR; ++b) {
          const uint lt = k[e] < blo[b];
          cbelow[b] += lt;
          g -= lt;
        }
        g = min(g, mc);
#endif
        const int inside = g > 0 && k[e] <= mhi[g - 1];
        // A bracket of at most NARROW keys (quantiles of data with few distinct values) counts
        // each key's copies and is answered from the counts, without copies or further passes.
        const int narrow = inside && mhi[g - 1] - mlo[g - 1] < NARROW;
        if (inside) atomic_inc(&hist[narrow ? 2 * NBR + (g - 1) * NARROW + (uint)(k[e] - mlo[g - 1]) : NBR + g - 1]);
        const int j = inside && !narrow ? 0 : -1;
#elif FILTER
        pbelow += k[e] < blo;
        const int j = (k[e] >= blo && k[e] <= bhi) ? 0 : -1;
#elif DEVICE_PLAN && !IVJOBS
        const int j = (k[e] >= plo && k[e] <= phi) ? 0 : -1;
#elif IVJOBS
        const int j = find_interval(k[e], njobs, jp, jhi);
#else
        const int j = find_job(k[e], plen, njobs, jp);
#endif
        if (j >= 0) {
#if !FILTER
#if DEVICE_PLAN && !IVJOBS
          RUN_ADD((int)((k[e] - plo) >> shift));
#elif IVJOBS
          RUN_ADD((j << bits) + (int)((k[e] - jp[j]) >> jsh[j]));
#else
          RUN_ADD((j << bits) + (int)((k[e] >> shift) & dmask));
#endif
#endif
#if FILTER && NBR > 1
          {
#elif FILTER
          pin += !copy_keys;
          if (copy_keys) {
#elif COMPACT || DEVICE_PLAN
          if (COMPACT_ON) {
#endif
#if COMPACT || DEVICE_PLAN
            // A slot in the group's stage; a full stage (more than STAGE / 2 matches in one
            // step) spills to a global slot of its own.
            const uint at = atomic_inc(&lcount);
            if (at < STAGE) {
              stage[at] = k[e];
            } else {
              const uint g = atomic_inc(cursor);
              if (g < cap) kout_rt[g] = k[e];
            }
          }
#endif
        }
      }
    }
#if COMPACT || DEVICE_PLAN
    // The stage is flushed when half full (one global atomic per flush); two barriers a check
    // keep the decision uniform across the group. (Without compaction the stage stays empty;
    // the barriers are not put under the runtime flag, which PoCL mishandles.) The bracket pass
    // copies a few percent of its keys, so it checks every FILTER_CHECK steps: the barriers
    // cost its float case a fifth of its time (an H100, 2^27 floats); a stage that fills
    // between checks spills to global slots, which is slower, not wrong.
    if (FILTER && (s + 1) % FILTER_CHECK != 0 && s + 1 != steps) continue;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint c = min(lcount, (uint)STAGE);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (c > STAGE / 2 || (s + 1 == steps && c > 0)) {
      if (l == 0) {
        lbase = atomic_add(cursor, c);
        lcount = 0;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      const uint b0 = lbase;
      for (uint t = l; t < c; t += WG)
        if (b0 + t < cap) kout_rt[b0 + t] = stage[t];
      barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
  }
  RUN_FLUSH();
#if FILTER && NBR > 1
#if NBR >= BSEARCH_NBR
  // The keys below bracket b are those whose g is at most b.
  {
    uint below = 0;
    for (uint b = 0; b < NBR; ++b) {
      below += gcol[b * WG + l];
      if (below) atomic_add(&hist[b], below);
    }
  }
#else
#pragma unroll
  for (int b = 0; b < NBR; ++b)
    if (cbelow[b]) atomic_add(&hist[b], cbelow[b]);
#endif
#endif
#if FIRST
  lmin[l] = pmin;
  lmax[l] = pmax;
#endif
#if FIRST || FILTER
  if (pnan) atomic_add(&lnan, pnan);
  if (pbelow) atomic_add(&lbelow, pbelow);
  if (pin) atomic_add(&lin, pin);
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
#if FIRST || FILTER
  if (l == 0 && lin) atomic_add(cursor, lin);  // the uncopied keys count as written
#endif
#if FIRST
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) {
      lmin[l] = min(lmin[l], lmin[l + h]);
      lmax[l] = max(lmax[l], lmax[l + h]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    minmax[2 * get_group_id(0)] = lmin[0];
    minmax[2 * get_group_id(0) + 1] = lmax[0];
  }
#endif
  __global uint* out = partials + (ulong)get_group_id(0) * row;
  for (uint b = l; b < nb; b += WG) out[b] = hist[b];
  if (l == 0) {
#if FIRST || FILTER
    out[nb] = lnan;
    out[nb + 1] = lbelow;
#else
    out[nb] = 0;
    out[nb + 1] = 0;
#endif
  }
}

// The CPU forms' flush: a work-item's nbuf copied keys, buffered privately, appended to kout at
// the place one atomic takes from *cursor (those past cap are counted, not written, as in
// select_hist).
inline void flush_copies(const skey* buf, uint nbuf, __global skey* kout, __global uint* cursor, uint cap) {
  if (nbuf == 0) return;
  const uint b0 = atomic_add(cursor, nbuf);
  for (uint t = 0; t < nbuf; ++t)
    if (b0 + t < cap) kout[b0 + t] = buf[t];
}

#if FILTER
// The bracket pass shaped for CPU devices: the same arguments, counts, copies and partials rows
// as select_hist with FILTER (one row per work-item; launch work-groups of one work-item), but
// each work-item streams one contiguous block of the input as vectors of BW keys (a 64-byte
// register), counts in vector registers, and only for a vector that holds a key inside a bracket
// looks at its lanes one by one, appending the keys to copy to a private buffer without a branch
// (each key is written, the end advances by whether it is copied), flushed to kout with one
// global atomic per BLK_BUF keys at most. select_hist's shape (work-items interleaved element by
// element, local atomics, barriers every few steps) runs as scalar loops with locked
// instructions on a CPU: 23 ms for the median's bracket pass over 2^23 doubles on 2 cores
// (PoCL 3.1), where one read takes 2.5 ms; the same blocks key by key, 18.8 ms.
#define BLK_CHUNK 256
#define BLK_BUF (4 * BLK_CHUNK)
#define BLK_CAT2(a, b) a##b
#define BLK_CAT(a, b) BLK_CAT2(a, b)
#if KEYBITS == 64
#define BW 8
typedef long8 maskv;
typedef ulong8 keyv;
#define BLK_AS_KEYV as_ulong8
#else
#define BW 16
typedef int16 maskv;
typedef uint16 keyv;
#define BLK_AS_KEYV as_uint16
#endif
#if ELEM_KIND == 0
typedef float16 elemv;
#elif ELEM_KIND == 1
typedef double8 elemv;
#elif ELEM_KIND == 2
typedef int16 elemv;
#else
typedef long8 elemv;
#endif
#define BLK_VLOAD BLK_CAT(vload, BW)
#define BLK_VSTORE BLK_CAT(vstore, BW)

// to_key on BW elements at once; nan gets the lanes' NaN masks (-1 where NaN).
inline keyv to_key_v(elemv v, maskv* nan) {
#if ELEM_KIND <= 1
  const keyv u = BLK_AS_KEYV(v);
  const keyv top = (keyv)(((skey)1) << (KEYBITS - 1));
  const keyv k = select(u | top, ~u, (maskv)(u >= top));
  *nan = isnan(v);
  return select(k, (keyv)KEY_MAX, *nan);
#else
  *nan = (maskv)0;
  return BLK_AS_KEYV(v) ^ (keyv)(((skey)1) << (KEYBITS - 1));
#endif
}

__kernel void select_filter_blocks(__global const elem_t* x, ulong xoff, __global skey* kin, ulong m,
                                   uint plen, uint shift, uint bits, uint njobs, __global const skey* jobs,
                                   __global uint* partials, uint row, __global skey* kout,
                                   __global uint* cursor, __global skey* minmax, uint cap,
                                   __global const skey* bracket, skey prefix0, __global const ulong* plan) {
  const uint gid = get_global_id(0), P = get_global_size(0);
  const ulong per = (m + (ulong)P * BLK_CHUNK - 1) / ((ulong)P * BLK_CHUNK) * BLK_CHUNK;
  const ulong i0 = min((ulong)gid * per, m), i1 = min(i0 + per, m);
  __global const elem_t* src = x + xoff;
  skey buf[BLK_BUF];
  uint nbuf = 0, pnan = 0, pbelow = 0, pin = 0;
  maskv vnan = (maskv)0;
#if NBR > 1
  // The merged brackets (merge_brackets), made in local memory and then copied to registers that
  // every loop below indexes by constants only (unrolled): PoCL 3.1 miscompiled the
  // data-dependent indexing of the insertion sort on small private arrays (NBR = 2 and 3 read
  // garbage in the loop); past the merged ones, empty brackets (KEY_MAX, 0) that hold nothing.
  __local skey lmlo[NBR], lmhi[NBR];
  const uint mc = merge_brackets(bracket, plen, lmlo, lmhi, minmax, gid == 0);
  skey mlo[NBR], mhi[NBR];
  // counts: the row of select_hist (below each bracket, inside each wide one, then the narrow
  // brackets' counts by key); the counts below are kept in vectors until the end.
  uint counts[(2 + NARROW) * NBR];
  for (uint b = 0; b < (2 + NARROW) * NBR; ++b) counts[b] = 0;
  maskv vbelow[NBR], vinside[NBR];
  int wide[NBR];
  const uint copy_keys = 1;
  int any_narrow = 0;
#pragma unroll
  for (uint b = 0; b < NBR; ++b) {
    mlo[b] = b < mc ? lmlo[b] : KEY_MAX;
    mhi[b] = b < mc ? lmhi[b] : 0;
    wide[b] = b < mc && mhi[b] - mlo[b] >= NARROW;
    any_narrow |= b < mc && !wide[b];
    vbelow[b] = vinside[b] = (maskv)0;
  }
  // One key inside some bracket: counted inside it (wide) or by key (narrow), copied if wide.
#define BLK_KEY_INSIDE(k)                                                           \
  _Pragma("unroll") for (uint b = 0; b < NBR; ++b)                                  \
    if ((k) >= mlo[b] && (k) <= mhi[b]) {                                           \
      if (wide[b]) {                                                                \
        ++counts[NBR + b];                                                          \
        buf[nbuf++] = (k);                                                          \
      } else {                                                                      \
        ++counts[2 * NBR + b * NARROW + (uint)((k) - mlo[b])];                      \
      }                                                                             \
    }
#define BLK_KEY(k)                                                                  \
  {                                                                                 \
    _Pragma("unroll") for (uint b = 0; b < NBR; ++b) counts[b] += (k) < mlo[b];     \
    BLK_KEY_INSIDE(k)                                                               \
  }
#else
  const skey blo = bracket[0], bhi = bracket[1];
  const uint copy_keys = blo != bhi;  // a bracket of one key: counted, not copied (select_hist)
  maskv vbelow = (maskv)0, vin = (maskv)0;
#define BLK_KEY_INSIDE(k)                                                           \
  {                                                                                 \
    const uint in = (k) >= blo && (k) <= bhi;                                       \
    pin += in & (1 - copy_keys);                                                    \
    buf[nbuf] = (k);                                                                \
    nbuf += in & copy_keys;                                                         \
  }
#define BLK_KEY(k)                                                                  \
  {                                                                                 \
    pbelow += (k) < blo;                                                            \
    BLK_KEY_INSIDE(k)                                                               \
  }
#endif
  for (ulong c0 = i0; c0 < i1; c0 += BLK_CHUNK) {
    const uint len = (uint)min((ulong)BLK_CHUNK, i1 - c0);
    uint e = 0;
    for (; e + BW <= len; e += BW) {
      maskv isn;
      const keyv k = to_key_v(BLK_VLOAD(0, src + c0 + e), &isn);
      vnan += isn;
#if NBR > 1
      maskv any_in = (maskv)0;
#pragma unroll
      for (uint b = 0; b < NBR; ++b) {
        vbelow[b] += (maskv)(k < (keyv)mlo[b]);
        any_in |= (maskv)(k >= (keyv)mlo[b]) & (maskv)(k <= (keyv)mhi[b]);
      }
#else
      vbelow += (maskv)(k < (keyv)blo);
      const maskv any_in = (maskv)(k >= (keyv)blo) & (maskv)(k <= (keyv)bhi);
      vin += any_in;
#endif
      if (copy_keys && any(any_in)) {
        skey kl[BW];
        BLK_VSTORE(k, 0, kl);
        skey il[BW];
        BLK_VSTORE(BLK_AS_KEYV(any_in), 0, il);
#if NBR > 1
        if (!any_narrow) {
          // Every bracket wide (data with many distinct values): each bracket's keys counted in
          // vectors, and the lanes inside one copied as the single bracket's are, without a
          // branch. (Lane by lane, the branch on each lane missed about once a vector: five
          // quantiles of 2^24 doubles, 2 cores, PoCL 3.1, the pass took 27 ms.)
#pragma unroll
          for (uint b = 0; b < NBR; ++b) vinside[b] += (maskv)(k >= (keyv)mlo[b]) & (maskv)(k <= (keyv)mhi[b]);
          for (uint l = 0; l < BW; ++l) {
            buf[nbuf] = kl[l];
            nbuf += (uint)il[l] & 1u;
          }
        } else {
          // Only the lanes inside a bracket look for theirs (a few percent of the keys).
          for (uint l = 0; l < BW; ++l)
            if (il[l]) BLK_KEY_INSIDE(kl[l])
        }
#else
        // Every lane is written; the end advances past the lanes inside.
        for (uint l = 0; l < BW; ++l) {
          buf[nbuf] = kl[l];
          nbuf += (uint)il[l] & 1u;
        }
#endif
      }
    }
    for (; e < len; ++e) {
      const elem_t v = src[c0 + e];
      const skey k = to_key(v);
      pnan += is_nan_elem(v);
      BLK_KEY(k)
    }
    if (nbuf > BLK_BUF - BLK_CHUNK || c0 + BLK_CHUNK >= i1) {
      flush_copies(buf, nbuf, kout, cursor, cap);
      nbuf = 0;
    }
  }
  if (pin) atomic_add(cursor, pin);  // the uncopied keys count as written, as in select_hist
  // Lane sums of the vector counts (each lane's count is minus its matches).
  skey lanes[BW];
  BLK_VSTORE(BLK_AS_KEYV(vnan), 0, lanes);
  for (uint l = 0; l < BW; ++l) pnan -= (uint)lanes[l];
  __global uint* out = partials + (ulong)gid * row;
#if NBR > 1
#pragma unroll
  for (uint b = 0; b < NBR; ++b) {
    BLK_VSTORE(BLK_AS_KEYV(vbelow[b]), 0, lanes);
    for (uint l = 0; l < BW; ++l) counts[b] -= (uint)lanes[l];
    BLK_VSTORE(BLK_AS_KEYV(vinside[b]), 0, lanes);
    for (uint l = 0; l < BW; ++l) counts[NBR + b] -= (uint)lanes[l];
  }
  for (uint b = 0; b < (2 + NARROW) * NBR; ++b) out[b] = counts[b];
  out[(2 + NARROW) * NBR] = pnan;
  out[(2 + NARROW) * NBR + 1] = 0;
#else
  BLK_VSTORE(BLK_AS_KEYV(vbelow), 0, lanes);
  for (uint l = 0; l < BW; ++l) pbelow -= (uint)lanes[l];
  if (!copy_keys) {
    BLK_VSTORE(BLK_AS_KEYV(vin), 0, lanes);
    uint vcount = 0;
    for (uint l = 0; l < BW; ++l) vcount -= (uint)lanes[l];
    if (vcount) atomic_add(cursor, vcount);  // the tail's are in pin
  }
  out[0] = 0;
  out[1] = pnan;
  out[2] = pbelow;
#endif
}
#endif

#if FROM_KEYS && !FILTER && !DEVICE_PLAN
// A pass over candidate keys shaped for CPU devices: select_hist's arguments, counts, copies and
// row layout (one row per work-item; launch work-groups of one work-item), each work-item
// reading one contiguous block of keys, counting in its own histogram without atomics and
// copying through a private buffer flushed with one global atomic per KB_BUF keys. In
// select_hist's shape (local atomics, barriers every step, 4096 bins cleared and summed per
// group of 2048 keys) the two interval passes over the 1.28 million copies of five quantiles of
// 2^24 doubles took 7.9 and 7.2 ms on 2 cores (PoCL 3.1), 1.6 and 2.1 ms in this one.
#define KB_BUF 1024
__kernel void select_hist_blocks(__global const elem_t* x, ulong xoff, __global skey* kin, ulong m,
                                 uint plen, uint shift, uint bits, uint njobs, __global const skey* jobs,
                                 __global uint* partials, uint row, __global skey* kout,
                                 __global uint* cursor, __global skey* minmax, uint cap,
                                 __global const skey* bracket, skey prefix0, __global const ulong* plan) {
  __local uint hist[HBINS];
  __local skey jp[64];
#if IVJOBS
  __local skey jhi[64];
  __local uint jsh[64];
#endif
  const uint nb = njobs << bits;
  for (uint b = 0; b < nb; ++b) hist[b] = 0;
  for (uint j = 0; j < njobs; ++j) {
#if IVJOBS
    jp[j] = jobs[2 * j];
    jhi[j] = jobs[2 * j + 1];
    jsh[j] = interval_shift(jp[j], jhi[j], bits);
#else
    jp[j] = njobs == 1 ? prefix0 : jobs[j];
#endif
  }
  const uint gid = get_global_id(0), P = get_global_size(0);
  const ulong per = (m + P - 1) / P;
  const ulong i0 = min((ulong)gid * per, m), i1 = min(i0 + per, m);
  const skey dmask = (((skey)1) << bits) - 1;
#if COMPACT
  skey buf[KB_BUF];
  uint nbuf = 0;
#endif
  for (ulong i = i0; i < i1; ++i) {
    const skey k = kin[i];
#if IVJOBS
    // The intervals starting at or below k, counted without a branch: find_interval's binary
    // search missed a branch or two a key (35 cycles a key over five intervals).
    uint g = 0;
    for (uint t = 0; t < njobs; ++t) g += jp[t] <= k;
    const int j = g > 0 && k <= jhi[g - 1] ? (int)g - 1 : -1;
#else
    const int j = find_job(k, plen, njobs, jp);
#endif
    if (j < 0) continue;
#if IVJOBS
    ++hist[((uint)j << bits) + (uint)((k - jp[j]) >> jsh[j])];
#else
    ++hist[((uint)j << bits) + (uint)((k >> shift) & dmask)];
#endif
#if COMPACT
    buf[nbuf++] = k;
    if (nbuf == KB_BUF) {
      flush_copies(buf, nbuf, kout, cursor, cap);
      nbuf = 0;
    }
#endif
  }
#if COMPACT
  flush_copies(buf, nbuf, kout, cursor, cap);
#endif
  __global uint* out = partials + (ulong)gid * row;
  for (uint b = 0; b < nb; ++b) out[b] = hist[b];
  out[nb] = 0;
  out[nb + 1] = 0;
}
#endif

// The device-side plan of a selection of up to four close targets, so a median runs its passes
// without waiting for the host. The job is a key interval [lo, hi] holding every target; each
// DEVICE_PLAN pass histograms the keys' offsets in it (4096 equal buckets) and plan_body
// shrinks the interval to the buckets from the first target's to the last's. plan[]: 0 status
// (0 running, 1 ready to finish, 2 done, 4 the bracket missed a target, 5 no progress: the host
// starts over either way), 1 lo, 2 hi, 3 m (candidates in the source), 4 source (0 input, 1
// first candidate buffer, 2 second), 5 the job's count, 6 targets, 7..10 their ranks in the job,
// 11..14 their keys once done, 15 whether the next pass compacts, 16 NaNs, 17 keys below the
// bracket, 18 keys in it. plan_start_body follows the FILTER pass (ranks r0..r3 of the whole
// input, ascending); plan_body follows a DEVICE_PLAN pass (select_sum totals of 4096 + 2). Both
// run in the last group of the pass's select_sum.
// mode 0: the plan from the FILTER pass (one work-item; no barrier).
inline void plan_start_body(__global volatile const ulong* totals, uint row, __global ulong* plan,
                            __global const skey* bracket, uint nt, ulong r0, ulong r1, ulong r2, ulong r3,
                            ulong cap) {
  const ulong below = totals[row - 1], written = totals[row];
  const ulong rk[4] = {r0, r1, r2, r3};
  plan[16] = totals[row - 2];
  plan[17] = below;
  plan[18] = written;
  if (rk[0] < below || rk[nt - 1] >= below + written || (written > cap && bracket[0] != bracket[1])) {
    plan[0] = 4;  // (a bracket of one key needs no copies: its keys are all that key)
    return;
  }
  plan[1] = bracket[0];
  plan[2] = bracket[1];
  plan[3] = written;
  plan[4] = 1;
  plan[5] = written;
  plan[6] = nt;
  for (uint t = 0; t < nt; ++t) plan[7 + t] = rk[t] - below;
  plan[15] = 0;  // every candidate is in the job: the first planned pass only counts
  if (bracket[0] == bracket[1]) {
    for (uint t = 0; t < nt; ++t) plan[11 + t] = bracket[0];
    plan[0] = 2;
  } else {
    plan[0] = 0;
  }
}

// mode 1: the plan after a DEVICE_PLAN pass, by a group of G work-items (local id l) with local
// scratch part[G], tb[4], tbelow[4]; no return before its barriers.
inline void plan_body(__global volatile const ulong* totals, __global ulong* plan, ulong cap, uint lcap,
                      __local ulong* part, __local uint* tb, __local ulong* tbelow, uint l, uint G) {
  const int active = plan[0] == 0;
  skey lo = (skey)plan[1], hi = (skey)plan[2];
  ulong m = plan[3], count = plan[5];
  uint src = (uint)plan[4];
  const uint nt = active ? (uint)plan[6] : 0;
  ulong rk[4];
  for (uint t = 0; t < 4; ++t) rk[t] = plan[7 + t];
  if (active && plan[15]) {  // the pass copied the job's keys to the other buffer
    src = src == 1 ? 2 : 1;
    m = count;
  }
  const uint shift = active ? plan_shift(lo, hi) : 0;
  const uint nbins = active ? (uint)min((skey)4096, ((hi - lo) >> shift) + 1) : 0;
  const uint per = (nbins + G - 1) / G;
  const uint b0 = min(l * per, nbins), b1 = min(b0 + per, nbins);
  ulong sum = 0;
  for (uint b = b0; b < b1; ++b) sum += totals[b];
  part[l] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {  // exclusive prefix sums of the G parts
    ulong acc = 0;
    for (uint t = 0; t < G; ++t) {
      const ulong v = part[t];
      part[t] = acc;
      acc += v;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong base = part[l];
  for (uint t = 0; t < nt; ++t) {
    if (rk[t] >= base && rk[t] < base + sum) {
      ulong below = base;
      uint b = b0;
      while (below + totals[b] <= rk[t]) below += totals[b++];
      tb[t] = b;
      tbelow[t] = below;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!active || l != 0) return;
  const uint bf = tb[0], bl = tb[nt - 1];
  ulong cnew = 0;
  for (uint b = bf; b <= bl; ++b) cnew += totals[b];
  // Bucket b holds the keys lo + [b << shift, (b + 1) << shift).
  const skey nlo = lo + ((skey)bf << shift);
  const skey off_hi = (((skey)bl + 1) << shift) - 1;
  const skey nhi = off_hi >= hi - lo ? hi : lo + off_hi;
  plan[1] = nlo;
  plan[2] = nhi;
  plan[3] = m;
  plan[4] = src;
  plan[5] = cnew;
  for (uint t = 0; t < nt; ++t) plan[7 + t] = rk[t] - tbelow[0];
  plan[15] = 0;
  if (nlo == nhi) {
    for (uint t = 0; t < nt; ++t) plan[11 + t] = nlo;
    plan[0] = 2;
  } else if (src != 0 && m <= max((ulong)65536, 4 * cnew) && (cnew <= 256 || (cnew <= lcap && cnew == count))) {
    plan[0] = 1;  // few enough to sort (the interval could shrink further below 256 keys)
  } else if (cnew == count && cnew > lcap) {
    plan[0] = 5;  // the targets are too far apart for one interval to shrink
  } else {
    plan[15] = cnew <= cap && (src == 0 || 4 * cnew <= m);
    plan[0] = 0;
  }
}

// The plan of spread targets, after the bracket pass against several brackets (run_filter_multi):
// as the host's select_from_brackets and descend, on the device, so the passes after the bracket
// pass need no wait for the host. select_plan_iv_start makes every target an interval job (its merged
// bracket's keys, which the bracket pass copied) or answers it (a bracket of at most NARROW
// keys, from its counts by key); after each planned interval pass (select_hist with DEVICE_PLAN
// and IVJOBS: a job's keys histogrammed in 2^bits equal steps of its interval), select_plan_iv
// shrinks every job to the steps that hold its targets (refine_intervals); when every job fits
// a group's sort, select_finish_ivplan sorts them. Both are kernels of one group, after the
// pass's select_sum (not its last group, as for close targets: PoCL 3.1 ran the code after the
// last barrier of a second barrier-holding branch there twice). They read what they need into
// local memory with every work-item first: one work-item walking the plan and the counters in
// global memory took 12 to 25 us a step on an H200 (sixteen quantiles).

// The next pass, or the finish, for nj jobs of `total` keys (the largest `largest`) in a source of
// m keys (as the host's descend): one work-item.
inline void iv_decide(__global ulong* plan, uint nj, ulong m, uint src, ulong total, ulong largest, ulong cap,
                      uint lcap) {
  plan[IVP_NJOBS] = nj;
  plan[IVP_M] = m;
  plan[IVP_SRC] = src;
  plan[IVP_TOTAL] = total;
  plan[IVP_COMPACT] = 0;
  if (nj == 0) {
    plan[IVP_STATUS] = 2;
  } else if (largest <= lcap && m <= max((ulong)65536, 4 * total)) {
    plan[IVP_STATUS] = 1;
  } else {
    plan[IVP_COMPACT] = total <= cap && 4 * total <= m;
    plan[IVP_STATUS] = 0;
  }
}


// totals[b] = the sum over groups of partials[g * row + b], in ulong (counts past 2^32); then,
// so that one read brings back everything a pass learnt: totals[row] = the compaction cursor
// (which is reset for the next pass), totals[row + 1 .. row + 2] = the bracket, and with
// `extrema` totals[row + 5], [row + 6] = the smallest and largest key over minmax's groups.
// Groups of SUM_WG work-items: `bins` entries each (a power of two up to SUM_WG), the groups'
// rows dealt round-robin to SUM_WG / bins stripes, so a work-item makes groups / stripes loads,
// not one per group (a single loop over 500 rows is latency-bound: 20 us on an H100).
#define SUM_WG 256
__kernel __attribute__((reqd_work_group_size(SUM_WG, 1, 1)))
void select_sum(__global const uint* partials, uint groups, uint row, uint bins, __global ulong* totals,
                __global uint* cursor, __global const skey* bracket, __global const skey* minmax,
                uint extrema, uint gated, __global ulong* plan, uint then, __global uint* done, uint nt,
                ulong r0, ulong r1, ulong r2, ulong r3, ulong cap, uint lcap) {
  __local ulong part[SUM_WG];
  __local uint tb[4];
  __local ulong tbelow[4];
  __local int last;
  const int skip = gated && plan[0] != 0;  // a device-planned pass that did not run
  const uint l = get_local_id(0);
  const uint lane = l % bins, stripe = l / bins, stripes = SUM_WG / bins;
  const uint b = get_group_id(0) * bins + lane;
  ulong s = 0;
  if (b < row && !skip) {
    // Four loads in flight per work-item: the loop is latency-bound, not bandwidth-bound.
    ulong a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    uint g = stripe;
    for (; g + 3 * stripes < groups; g += 4 * stripes) {
      a0 += partials[(ulong)g * row + b];
      a1 += partials[(ulong)(g + stripes) * row + b];
      a2 += partials[(ulong)(g + 2 * stripes) * row + b];
      a3 += partials[(ulong)(g + 3 * stripes) * row + b];
    }
    for (; g < groups; g += stripes) a0 += partials[(ulong)g * row + b];
    s = (a0 + a1) + (a2 + a3);
  }
  part[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!skip && stripe == 0) {
    for (uint t = 1; t < stripes; ++t) s += part[t * bins + lane];
    if (b < row) {
      totals[b] = s;
    } else if (b == row) {
      totals[row] = *cursor;
      *cursor = 0;
      for (uint i = 0; i < 2; ++i) totals[row + 1 + i] = (ulong)bracket[i];
    } else if (b == row + 1 && extrema) {
      skey v = KEY_MAX;
      for (uint g = 0; g < groups; ++g) v = min(v, minmax[2 * g]);
      totals[row + 5] = (ulong)v;
    } else if (b == row + 2 && extrema) {
      skey v = 0;
      for (uint g = 0; g < groups; ++g) v = max(v, minmax[2 * g + 1]);
      totals[row + 6] = (ulong)v;
    }
  }
  if (then == 0) return;  // a kernel argument: uniform
  // The device plan after this pass, by the group that finishes last (last_group.clh): a
  // median's tail is a dozen small kernels otherwise.
  if (!finished_last(done, &last)) return;
  __global volatile const ulong* vt = (__global volatile const ulong*)totals;
  if (then == 1) {
    if (l == 0) plan_start_body(vt, row, plan, bracket, nt, r0, r1, r2, r3, cap);
  } else {
    plan_body(vt, plan, cap, lcap, part, tb, tbelow, l, SUM_WG);
  }
  if (l == 0) *done = 0;
}

// The bracket of the targets, from two samples. select_sample (one group): S1 keys from
// stratified positions (one per stretch of n / S1, at a hashed offset in it, so sorted or
// periodic layouts are sampled fairly), sorted; the first bracket is the keys `margin` samples
// below the sample rank of r_lo and above that of r_hi (ranks 0-based, of n), widened to the
// whole key range at the ends. It is about 10 / sqrt(S1) of n wide, and the bracket pass pays for
// every key in it twice (its copy, and the passes over the copies), so select_sample2 (many
// groups) then takes a second sample of s2 keys, which nobody sorts: it counts those below the
// first bracket and histograms those inside it in 4096 equal buckets of its key range, and
// sample_end_body makes the bracket the buckets from sample rank r_lo's minus margin2 to
// r_hi's plus margin2: about 10 / sqrt(s2) of n (2% for 2^16). A target outside the bracket
// (probability below 1e-6) costs the plain passes, not a wrong answer. With s2 = 0 the first
// bracket stands. Slot `slot` of bracket (BRACKET_WORDS keys each): [0..1] = {lo, hi}; [2..] (as
// uint) = the count below and the histogram, zeroed by select_sample.
#ifndef S1
#define S1 1024
#endif
// The shift that maps offsets within [lo, hi] to at most SAMPLE_BINS buckets (as plan_shift).
inline uint sample_shift(skey lo, skey hi) { return lo < hi ? plan_shift(lo, hi) : 0; }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_sample(__global const elem_t* x, ulong xoff, ulong n, ulong r_lo, ulong r_hi, uint margin,
                   __global skey* bracket, uint nslots, __global const ulong* spec) {
  __local skey buf[S1];
  const uint slot = get_group_id(0);
  if (nslots > 1) {
    r_lo = spec[4 * slot];
    r_hi = spec[4 * slot + 1];
    margin = (uint)spec[4 * slot + 2];
  }
  bracket += (ulong)slot * BRACKET_WORDS;
  const uint l = get_local_id(0);
  const ulong stretch = n / S1;
  for (uint t = l; t < S1; t += WG)
    buf[t] = to_key(x[xoff + sample_at(t, sample_hash(t), stretch)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  bitonic_sort_local(buf, S1, l);
  if (l == 0) {
    const long ilo = (long)((ulong)S1 * r_lo / n) - (long)margin;
    const long ihi = (long)((ulong)S1 * r_hi / n) + 1 + (long)margin;
    bracket[0] = ilo <= 0 ? (skey)0 : buf[ilo];
    bracket[1] = ihi >= S1 ? KEY_MAX : buf[ihi];
  }
  __global uint* h = (__global uint*)(bracket + 2);
  for (uint b = l; b < SAMPLE_BINS + 1; b += WG) h[b] = 0;
}

// The bracket from the second sample, by one group of G work-items (see select_sample2): the
// buckets that hold sample ranks slo and shi become the bracket; an end whose rank no bucket holds
// (below or past the first bracket's keys) stays the first bracket's.
inline void sample_end_body(__global skey* bracket, __global volatile const uint* h, ulong n, ulong r_lo, ulong r_hi,
                            uint s2, uint margin2, __local uint* part, __local skey* edge, uint l, uint G) {
  const skey lo = bracket[0], hi = bracket[1];
  const uint shift = sample_shift(lo, hi);
  const uint nbins = lo < hi ? (uint)min((skey)SAMPLE_BINS, ((hi - lo) >> shift) + 1) : 0;
  const long slo = (long)((ulong)s2 * r_lo / n) - (long)margin2;
  const long shi = (long)((ulong)s2 * r_hi / n) + 1 + (long)margin2;
  bracket_from_buckets(h + 1, nbins, h[0], lo, hi, shift, slo, shi, part, edge, l, G);
  if (l == 0) {
    bracket[0] = edge[0];
    bracket[1] = edge[1];
  }
}

// The second sample: s2 keys, one or a few per work-item: for each of the nslots brackets, the
// count below it (one local sum, one global atomic per group) and the histogram inside it
// (global atomics: a few thousand in all); then, in the group that finishes last, the brackets
// from them (sample_end_body, see last_group.clh): one launch instead of two, and one read of
// the sample for every slot. With nslots > 1, spec holds {r_lo, r_hi, margin, margin2} per slot,
// and select_sample_end then makes the brackets, a group per slot (one group making sixteen
// took 0.2 ms on an H100: each walks 4096 counters).
#define MAX_SLOTS 16
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_sample2(__global const elem_t* x, ulong xoff, ulong n, uint s2, __global skey* bracket, ulong r_lo,
                    ulong r_hi, uint margin2, __global uint* done, uint nslots, __global const ulong* spec) {
  __local uint lbelow[MAX_SLOTS];
  __local skey slo[MAX_SLOTS], shi[MAX_SLOTS];
  __local uint part[WG];
  __local skey edge[2];
  __local int last;
  __local int wide;  // some slot's first bracket holds more than one key
  const uint l = get_local_id(0);
  if (l == 0) wide = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = l; s < nslots; s += WG) {
    slo[s] = bracket[(ulong)s * BRACKET_WORDS];
    shi[s] = bracket[(ulong)s * BRACKET_WORDS + 1];
    lbelow[s] = 0;
    if (slo[s] < shi[s]) wide = 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong stretch = n / s2;
  uint below[MAX_SLOTS];
#pragma unroll
  for (int s = 0; s < MAX_SLOTS; ++s) below[s] = 0;
  // (A bracket of one key, constant or few-valued data, needs no second sample: no reads.)
  // SAMPLE_BATCH keys are loaded before any is counted: on a CPU, where one work-item runs at a
  // time, their cache misses then overlap (a work-item of a GPU group has others to hide them).
  for (uint t0 = get_global_id(0) * SAMPLE_BATCH; wide && t0 < s2; t0 += get_global_size(0) * SAMPLE_BATCH) {
    skey kb[SAMPLE_BATCH];
#pragma unroll
    for (uint u = 0; u < SAMPLE_BATCH; ++u) {
      const uint t = t0 + u;
      kb[u] = t < s2 ? to_key(x[xoff + sample_at(t, sample_hash(t ^ 0x9e3779b9u), stretch)]) : 0;
    }
    for (uint u = 0; u < SAMPLE_BATCH && t0 + u < s2; ++u) {
    const skey k = kb[u];
#pragma unroll
    for (int s = 0; s < MAX_SLOTS; ++s) {
      if (s < (int)nslots && slo[s] < shi[s]) {
        if (k < slo[s]) {
          ++below[s];
        } else if (k <= shi[s]) {
          __global uint* h = (__global uint*)(bracket + (ulong)s * BRACKET_WORDS + 2);
          atomic_inc(&h[1 + (uint)((k - slo[s]) >> sample_shift(slo[s], shi[s]))]);
        }
      }
    }
    }
  }
#pragma unroll
  for (int s = 0; s < MAX_SLOTS; ++s)
    if (below[s]) atomic_add(&lbelow[s], below[s]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < nslots && lbelow[l]) atomic_add((__global uint*)(bracket + (ulong)l * BRACKET_WORDS + 2), lbelow[l]);
  if (nslots > 1 || !finished_last(done, &last)) return;
  sample_end_body(bracket, (__global volatile const uint*)(bracket + 2), n, r_lo, r_hi, s2, margin2, part, edge, l,
                  WG);
  if (l == 0) *done = 0;
}

// The brackets of several slots from the second sample (select_sample2): group s makes slot s's.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_sample_end(__global skey* bracket, ulong n, uint s2, __global const ulong* spec) {
  __local uint part[WG];
  __local skey edge[2];
  const uint s = get_group_id(0);
  __global skey* b = bracket + (ulong)s * BRACKET_WORDS;
  sample_end_body(b, (__global volatile const uint*)(b + 2), n, spec[4 * s], spec[4 * s + 1], s2,
                  (uint)spec[4 * s + 3], part, edge, get_local_id(0), WG);
}

// Gathers into buf the keys among kin[0, m) in [lo, hi] and sorts them; returns their count (at
// most LCAP). Ends with a barrier.
inline uint gather_sort(__global const skey* kin, uint m, skey lo, skey hi, __local skey* buf,
                        __local uint* cnt, uint l) {
  if (l == 0) *cnt = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = l; i < m; i += WG) {
    const skey k = kin[i];
    if (k >= lo && k <= hi) buf[atomic_inc(cnt)] = k;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint c = *cnt;
  uint N = 1;
  while (N < c) N <<= 1;
  for (uint i = c + l; i < N; i += WG) buf[i] = KEY_MAX;
  barrier(CLK_LOCAL_MEM_FENCE);
  bitonic_sort_local(buf, N, l);
  return c;
}

// One group per job: gathers the job's keys (at most LCAP) from the m candidates, those in the
// key interval [lo, hi], sorts them by bitonic merging in local memory, and writes out[t] = the
// key of rank rank_of[t] for every target t of this job.
inline void finish_body(__global const skey* kin, uint m, skey lo, skey hi, __global const uint* job_of,
                        __global const uint* rank_of, uint ntargets, __global skey* out, __local skey* buf,
                        __local uint* cnt) {
  const uint l = get_local_id(0);
  const uint job = get_group_id(0);
  gather_sort(kin, m, lo, hi, buf, cnt, l);
  for (uint t = l; t < ntargets; t += WG)
    if (job_of[t] == job) out[t] = buf[rank_of[t]];
}

// The final sorts of prefix jobs: job j's keys are those with its plen-bit prefix jobs[j].
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_finish(__global const skey* kin, uint m, uint plen, __global const skey* jobs,
                   __global const uint* job_of, __global const uint* rank_of, uint ntargets,
                   __global skey* out) {
  __local skey buf[LCAP];
  __local uint cnt;
  // The interval [prefix 0..0, prefix 1..1].
  const skey pre = jobs[get_group_id(0)];
  const skey lo = plen == 0 ? (skey)0 : pre << (KEYBITS - plen);
  const skey hi = plen == 0 ? KEY_MAX : lo | (plen == KEYBITS ? (skey)0 : (KEY_MAX >> plen));
  finish_body(kin, m, lo, hi, job_of, rank_of, ntargets, out, buf, &cnt);
}

// The final sorts of interval jobs: job j's keys are those in [iv[2j], iv[2j + 1]].
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_finish_iv(__global const skey* kin, uint m, __global const skey* iv, __global const uint* job_of,
                      __global const uint* rank_of, uint ntargets, __global skey* out) {
  __local skey buf[LCAP];
  __local uint cnt;
  const uint job = get_group_id(0);
  finish_body(kin, m, iv[2 * job], iv[2 * job + 1], job_of, rank_of, ntargets, out, buf, &cnt);
}

// The finish of a device plan in state 1: sorts the job's keys and writes the targets' keys.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_finish_plan(__global const skey* cand0, __global const skey* cand1, __global ulong* plan) {
  __local skey buf[LCAP];
  __local uint cnt;
  const int ready = plan[0] == 1;  // no early return before gather_sort's barriers
  const uint l = get_local_id(0);
  gather_sort(plan[4] == 1 ? cand0 : cand1, ready ? (uint)plan[3] : 0, (skey)plan[1], (skey)plan[2], buf, &cnt, l);
  if (ready && l == 0) {
    for (uint t = 0; t < (uint)plan[6]; ++t) plan[11 + t] = buf[plan[7 + t]];
    plan[0] = 2;
  }
}

// Adds target t, of job interval [lo, hi] holding `count` keys, at rank r in it to the new jobs
// (nlo, nhi, ncnt; nj of them), merging it into the last when it is the same interval.
#define IV_ADD(t, lo, hi, count, r)                                      \
  do {                                                                   \
    if (nj == 0 || nlo[nj - 1] != (ulong)(lo)) {                         \
      nlo[nj] = (ulong)(lo), nhi[nj] = (ulong)(hi), ncnt[nj] = (count);  \
      total += (count), largest = max(largest, (ulong)(count));          \
      ++nj;                                                              \
    }                                                                    \
    plan[IVP_TJOB + (t)] = nj - 1;                                       \
    plan[IVP_TRANK + (t)] = (r);                                         \
  } while (0)

// The new jobs to the plan, and the next step.
#define IV_WRITE_JOBS()                              \
  for (uint j = 0; j < nj; ++j) {                    \
    plan[IVP_JOBS + 3 * j] = nlo[j];                 \
    plan[IVP_JOBS + 3 * j + 1] = nhi[j];             \
    plan[IVP_JOBS + 3 * j + 2] = ncnt[j];            \
  }

// The local scratch of both: per work-item sums, per bracket or job, per target, the new jobs.
#define IVPLAN_LOCALS                                                                              \
  __local ulong w[SUM_WG], jb[IVP_MAXT + 2], olo[IVP_MAXT], ohi[IVP_MAXT], tv[IVP_MAXT],        \
      tr[IVP_MAXT], tc[IVP_MAXT], nlo[IVP_MAXT], nhi[IVP_MAXT], ncnt[IVP_MAXT];                  \
  __local uint tb[IVP_MAXT], tj[IVP_MAXT]

// The start, from the bracket pass's totals (row: NBR below counts, NBR inside counts, NARROW
// counts by key per bracket; then at row - 2 the NaNs, at row the copies) and its merged
// brackets in minmax ({lo, hi} each, their number at 2 NBR). A target outside every bracket, or
// copies past the cap or not the brackets' count, sets status 4. One group of SUM_WG.
__kernel __attribute__((reqd_work_group_size(SUM_WG, 1, 1)))
void select_plan_iv_start(__global const ulong* totals, uint row, __global ulong* plan, __global const skey* minmax,
                          ulong cap, uint lcap) {
  IVPLAN_LOCALS;
  const uint l = get_local_id(0);
  const uint mc = (uint)min((skey)IVP_MAXB, minmax[2 * NBR]);
  const uint nt = (uint)plan[IVP_NT];
  // The brackets' ends (olo, ohi), the targets' ranks (tr), and the narrow brackets' counts,
  // four a work-item (bracket l / 16, keys 4 (l % 16) ...).
  {
    const uint i = l / 16, c0 = 4 * (l % 16);
    ulong s = 0;
    if (i < mc && minmax[2 * i + 1] - minmax[2 * i] < NARROW)
      for (uint c = c0; c < c0 + 4; ++c) s += totals[2 * NBR + i * NARROW + c];
    w[l] = s;
  }
  if (l < mc) olo[l] = (ulong)minmax[2 * l], ohi[l] = (ulong)minmax[2 * l + 1];
  if (l < nt) tr[l] = plan[IVP_RANKS + l];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < mc) {  // below (tv) and inside (jb) each bracket
    ulong s = totals[NBR + l];
    for (uint q = 0; q < 16; ++q) s += w[16 * l + q];
    tv[l] = totals[l];
    jb[l] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Each target's bracket (tb: its index, mc for a miss) and, for a narrow one, its key (tc).
  if (l < nt) {
    const ulong r = tr[l];
    uint i = 0;
    while (i < mc && tv[i] + jb[i] <= r) ++i;
    if (i < mc && r < tv[i]) i = mc;
    tb[l] = i;
    tc[l] = 0;
    if (i < mc && ohi[i] - olo[i] < NARROW) {
      ulong at = tv[i];
      uint key = 0;
      while (at + totals[2 * NBR + i * NARROW + key] <= r) at += totals[2 * NBR + i * NARROW + key++];
      tc[l] = olo[i] + key;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l != 0) return;
  plan[IVP_NAN] = totals[row - 2];
  const ulong written = totals[row];
  ulong copied = 0;
  for (uint i = 0; i < mc; ++i)
    if (ohi[i] - olo[i] >= NARROW) copied += jb[i];
  int miss = mc == 0 || minmax[2 * NBR] > NBR || written > cap || copied != written;
  uint nj = 0;
  ulong total = 0, largest = 0;
  for (uint t = 0; t < nt && !miss; ++t) {
    const uint i = tb[t];
    if (i == mc) {
      miss = 1;
    } else if (ohi[i] - olo[i] < NARROW) {
      plan[IVP_OUT + t] = tc[t];
      plan[IVP_TJOB + t] = IVP_MAXT;  // answered
    } else {
      IV_ADD(t, olo[i], ohi[i], jb[i], tr[t] - tv[i]);
    }
  }
  if (miss) {
    plan[IVP_STATUS] = 4;
    return;
  }
  IV_WRITE_JOBS()
  // The first pass reads every copy (the first candidate buffer).
  iv_decide(plan, nj, written, 1, total, largest, cap, lcap);
}

// After a planned interval pass (totals: njobs << bits counters, the copies at `row`): each
// target's step in its job becomes its new job (a step of one key answers it). One group.
__kernel __attribute__((reqd_work_group_size(SUM_WG, 1, 1)))
void select_plan_iv(__global const ulong* totals, uint row, __global ulong* plan, ulong cap, uint lcap) {
  IVPLAN_LOCALS;
  const uint l = get_local_id(0), G = SUM_WG;
  const int active = plan[IVP_STATUS] == 0;
  const uint nj0 = active ? (uint)plan[IVP_NJOBS] : 0;
  const uint nt = active ? (uint)plan[IVP_NT] : 0;
  const uint bits = iv_bits(nj0);
  const uint nb = nj0 << bits;
  const uint per = (nb + G - 1) / G;  // at most 4096 / SUM_WG = 16
  const uint b0 = min(l * per, nb), b1 = min(b0 + per, nb);
  // The work-item's counters stay in registers for the walks below (a walk through global
  // memory, one dependent load a counter, took most of this kernel's 21 us for sixteen quantiles).
  ulong mine[4096 / SUM_WG];
  ulong sum = 0;
#pragma unroll
  for (uint u = 0; u < 4096 / SUM_WG; ++u) {
    mine[u] = b0 + u < b1 ? totals[b0 + u] : 0;
    sum += mine[u];
  }
  w[l] = sum;
  if (l < nj0) {
    olo[l] = plan[IVP_JOBS + 3 * l];
    ohi[l] = plan[IVP_JOBS + 3 * l + 1];
    ncnt[l] = plan[IVP_JOBS + 3 * l + 2];
  }
  if (l < nt) tj[l] = (uint)plan[IVP_TJOB + l], tr[l] = plan[IVP_TRANK + l];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {  // exclusive prefix sums of the parts and of the old jobs' counts (their bases)
    ulong acc = 0;
    for (uint t = 0; t < G; ++t) {
      const ulong v = w[t];
      w[t] = acc;
      acc += v;
    }
    ulong jacc = 0;
    for (uint j = 0; j < nj0; ++j) {
      jb[j] = jacc;
      jacc += ncnt[j];
    }
    jb[IVP_MAXT] = jacc;     // the old jobs' keys
    jb[IVP_MAXT + 1] = acc;  // the counters' sum: the histogram must hold every one
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  // Target t's rank among all the jobs' keys (in job order, as the counters lie) falls in one
  // work-item's counters: it walks them to the target's counter (tb), the keys below it (tv) and
  // the counter's value (tc).
  const ulong base = w[l];
  for (uint t = 0; t < nt; ++t) {
    const uint j = tj[t];
    if (j >= nj0) continue;  // answered
    const ulong r = jb[j] + tr[t];
    if (r >= base && r < base + sum) {
      ulong below = base, c = 0;
      uint u = 0;
#pragma unroll
      for (uint v = 0; v < 4096 / SUM_WG; ++v) {  // the first counter whose keys pass r
        const int before = below + mine[v] <= r;
        if (u == v && before) below += mine[v], ++u;
        if (u == v && !before) c = mine[v];
      }
      tb[t] = b0 + u;
      tv[t] = below;
      tc[t] = c;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!active || l != 0) return;
  ulong m = plan[IVP_M];
  uint src = (uint)plan[IVP_SRC];
  if (plan[IVP_COMPACT]) {  // the pass copied the jobs' keys to the other buffer
    src = src == 1 ? 2 : 1;
    m = plan[IVP_TOTAL];
    if (totals[row] != m) {
      plan[IVP_STATUS] = 4;
      return;
    }
  }
  if (jb[IVP_MAXT + 1] != jb[IVP_MAXT]) {  // the histogram lost keys
    plan[IVP_STATUS] = 4;
    return;
  }
  uint nj = 0;
  ulong total = 0, largest = 0;
  for (uint t = 0; t < nt; ++t) {
    const uint j = tj[t];
    if (j >= nj0) continue;
    const uint b = tb[t];
    const skey lo0 = (skey)olo[j], hi0 = (skey)ohi[j];
    // Step b - (j << bits) of the job's interval (as interval_shift in select_hist).
    const uint shift = interval_shift(lo0, hi0, bits);
    const skey lo = lo0 + ((skey)(b - (j << bits)) << shift);
    const skey step = (((skey)1) << shift) - 1;
    const skey hi = hi0 - lo <= step ? hi0 : lo + step;
    if (lo == hi) {
      plan[IVP_OUT + t] = (ulong)lo;
      plan[IVP_TJOB + t] = IVP_MAXT;
      continue;
    }
    IV_ADD(t, lo, hi, tc[t], jb[j] + tr[t] - tv[t]);
  }
  IV_WRITE_JOBS()
  iv_decide(plan, nj, m, src, total, largest, cap, lcap);
}
#undef IV_ADD
#undef IV_WRITE_JOBS
#undef IVPLAN_LOCALS

// The finish of the plan of spread targets in state 1 (select_plan_iv): group j sorts job j's keys
// and writes its targets' keys.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_finish_ivplan(__global const skey* cand0, __global const skey* cand1, __global ulong* plan) {
  __local skey buf[LCAP];
  __local uint cnt;
  const uint j = get_group_id(0), l = get_local_id(0);
  const int ready = plan[IVP_STATUS] == 1 && j < (uint)plan[IVP_NJOBS];  // no early return before barriers
  const skey lo = ready ? (skey)plan[IVP_JOBS + 3 * j] : 0, hi = ready ? (skey)plan[IVP_JOBS + 3 * j + 1] : 0;
  gather_sort(plan[IVP_SRC] == 2 ? cand1 : cand0, ready ? (uint)plan[IVP_M] : 0, lo, hi, buf, &cnt, l);
  const uint nt = ready ? (uint)plan[IVP_NT] : 0;
  for (uint t = l; t < nt; t += WG)
    if (plan[IVP_TJOB + t] == j) plan[IVP_OUT + t] = (ulong)buf[plan[IVP_TRANK + t]];
}

// The keys of n elements, for the sort baseline (Boost.Compute sorts them).
__kernel void select_keys(__global const elem_t* x, ulong xoff, ulong n, __global skey* out) {
  const ulong i = get_global_id(0);
  if (i < n) out[i] = to_key(x[xoff + i]);
}

// top_k's gather: the indices of the keys beyond the threshold key t (above it when `largest`,
// below it otherwise; NaN keys skipped when `skip_nan`), with their keys, and the indices of the
// keys equal to t, each list in arbitrary order at positions taken from its cursor (counts[0]
// and counts[1]).
__kernel void select_gather(__global const elem_t* x, ulong xoff, ulong n, skey t, uint largest, uint skip_nan,
                            __global skey* beyond_key, __global ulong* beyond_idx, __global uint* counts,
                            __global ulong* equal_idx) {
  __global uint* beyond_n = counts;
  __global uint* equal_n = counts + 1;
  const ulong i = get_global_id(0);
  if (i >= n) return;
  const skey k = to_key(x[xoff + i]);
  if (skip_nan && k == KEY_MAX) return;
  if (largest ? k > t : k < t) {
    const uint at = atomic_inc(beyond_n);
    beyond_key[at] = k;
    beyond_idx[at] = i;
  } else if (k == t) {
    equal_idx[atomic_inc(equal_n)] = i;
  }
}

// The cutting-plane method's copy of its bracket: the values whose keys lie strictly between
// lo and hi, compacted by tiles of 8 WG elements with one local counter and one global atomic per
// tile (a global atomic per value serialises on one address). The order of the output varies;
// only the set matters (it is then selected exactly). Trip counts are uniform per group, so every
// barrier is reached by the whole group (PoCL).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_copy_values_between(__global const elem_t* x, ulong xoff, ulong n, skey lo, skey hi,
                                __global elem_t* out, __global uint* count) {
  __local uint c, base;
  const uint l = get_local_id(0);
  const ulong tile = 8 * (ulong)WG;
  for (ulong t0 = get_group_id(0) * tile; t0 < n; t0 += get_num_groups(0) * tile) {
    if (l == 0) c = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    elem_t v[8];
    uint slot[8];
    for (uint j = 0; j < 8; ++j) {
      const ulong i = t0 + j * WG + l;
      slot[j] = 0xffffffffu;
      if (i < n) {
        v[j] = x[xoff + i];
        const skey k = to_key(v[j]);
        if (k > lo && k < hi) slot[j] = atomic_inc(&c);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) base = c ? atomic_add(count, c) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < 8; ++j)
      if (slot[j] != 0xffffffffu) out[base + slot[j]] = v[j];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// One step of the cutting-plane method in one read: per group, the sum of max(y - x, 0) (in
// double where the device has it; it only steers the steps) and the counts of x < y and x <= y
// (exact), reduced in a fixed tree; the host adds the groups in order.
#ifdef CLSTAT_FP64
typedef double cut_acc;
#else
typedef float cut_acc;
#endif
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void select_cut_step(__global const elem_t* x, ulong xoff, ulong n, elem_t y, __global cut_acc* sums,
                     __global ulong* counts) {
  __local cut_acc ls[WG];
  __local ulong llt[WG], lle[WG];
  const uint l = get_local_id(0);
  const ulong P = get_global_size(0);
  cut_acc s = 0;
  ulong lt = 0, le = 0;
  for (ulong i = get_global_id(0); i < n; i += P) {
    const elem_t v = x[xoff + i];
    s += (cut_acc)max(y - v, (elem_t)0);
    lt += v < y;
    le += v <= y;
  }
  ls[l] = s;
  llt[l] = lt;
  lle[l] = le;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint h = WG / 2; h > 0; h >>= 1) {
    if (l < h) {
      ls[l] += ls[l + h];
      llt[l] += llt[l + h];
      lle[l] += lle[l + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) {
    sums[get_group_id(0)] = ls[0];
    counts[2 * get_group_id(0)] = llt[0];
    counts[2 * get_group_id(0) + 1] = lle[0];
  }
}
