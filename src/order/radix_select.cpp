// The host side of the radix selection: pass planning, histogram walks and the finish.
// Each pass's plan (which jobs, how many digit bits, whether to compact) depends on the previous
// pass's histogram, so the host reads one small block per pass (select_sum gathers the
// histogram, the compaction count, the bracket and the key range into it).
#include "order/radix_select.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "build/program_cache.hpp"
#include "runtime/lease.hpp"
#include "runtime/launch.hpp"

namespace clstat::order::detail {

namespace {

constexpr unsigned kHBins = 4096;     // local histogram counters (HBINS in the kernel)
// The selection's scratch: per-group digit counts, their totals, per-group extrema, the jobs of
// the final sorts and their cursor, the two candidate buffers (part 0 and 1), the final sorts'
// job indices, ranks and outputs, the sampled brackets, the pass plan, the last-group counter
// and the brackets' ranks and margins.
enum class RadixScratch { partials, totals, minmax, jobs, cursor, candidates, job_index, job_rank, job_out, bracket, plan, done, spec, ivplan };
constexpr unsigned kPlanWords = 19;   // see select_plan
constexpr int kPlannedMax = 12;      // planned passes before the host gives up on the plan
constexpr unsigned kExtra = 7;        // totals past the histogram row (see select_sum)
constexpr std::size_t kSample2Groups = 64;  // select_sample2's groups (a few keys per work-item)
// Its groups for spread targets' larger sample: one key per work-item at 2^20 (its scattered
// reads are latency-bound: 2^18 keys took 62 us on an H100 with 64 groups).
constexpr std::size_t kSample2GroupsMulti = 4096;
constexpr const char* kOp = "clstat::order::select";
constexpr unsigned kNarrow = 64;  // NARROW in the kernel: brackets of fewer keys are counted by key
// The plan of spread targets (IVP_* in the kernel): status, then per target its key at kIvOut
// and its rank of the whole input at kIvRanks (the host's); kIvWords in all.
constexpr std::size_t kIvMaxT = 64, kIvNt = 5, kIvNan = 6, kIvJobs = 8;
constexpr std::size_t kIvOut = kIvJobs + 3 * kIvMaxT + 2 * kIvMaxT, kIvRanks = kIvOut + kIvMaxT, kIvWords = kIvRanks + kIvMaxT;
static_assert(kIvMaxT == kMaxJobs, "a batch's targets fit the plan");

// The per-group extrema of a pass of G groups; the bracket pass of spread targets leaves its
// merged brackets there.
template <class Key>
std::size_t minmax_bytes_of(std::size_t G, std::size_t max_brackets) {
  return std::max<std::size_t>(2 * G, 2 * max_brackets + 1) * sizeof(Key);
}


}  // namespace

template <class T>
std::shared_ptr<::clstat::detail::BuiltProgram> RadixSelect<T>::program(Kind kind, bool compact, bool from_keys, unsigned nbr) {
  std::string o = build::base_options(*ctx_, std::is_same_v<T, double>, kOp);
  o += " -DELEM_KIND=" + std::to_string(elem_kind<T>());
  o += std::string(" -DFIRST=") + (kind == Kind::first ? "1" : "0") + " -DFILTER=" +
       (kind == Kind::filter ? "1" : "0") + " -DCOMPACT=" + (compact ? "1" : "0") + " -DFROM_KEYS=" +
       (from_keys ? "1" : "0") + " -DDEVICE_PLAN=" + (kind == Kind::planned || kind == Kind::planned_iv ? "1" : "0") +
       " -DIVJOBS=" + (kind == Kind::interval || kind == Kind::planned_iv ? "1" : "0") +
       " -DNBR=" + std::to_string(nbr);
  // Compaction stages 2048 keys in local memory beside the 16 KB histogram.
  // The bracket pass histograms nothing: without the 16 KB of counters, more groups fit a unit.
  const bool wide = kind == Kind::filter && !from_keys;
  o += " -DVEC=" + std::to_string(wide ? filter_vec_ : 1);
  o += " -DS1=" + std::to_string(s1_) + " -DITEMS=" + std::to_string(wide ? filter_items_ : items_) + " -DSTAGE=2048 -DHBINS=" + std::to_string(kind == Kind::filter ? (nbr > 1 ? (2 + kNarrow) * nbr : 1) : kHBins) +
       " -DLCAP=" + std::to_string(lcap_) + " -DSAMPLE_BATCH=" + std::to_string(sample_batch_);
  std::size_t chosen = 0;
  auto prog = build::program_for_wg(*ctx_, "order/radix_select", o, "select_hist", wg_, chosen);
  // All variants then use the size the most demanding one accepted (the finish and sample
  // kernels are built with the same WG).
  wg_ = chosen;
  return prog;
}

template <class T>
RadixSelect<T>::RadixSelect(const Queue& q, const Buffer<T>& x, std::size_t offset, std::uint64_t n)
    : q_(q), ctx_(q.context().impl()), x_(x.raw().impl()->buffer), offset_(offset), n_(n) {
  const DeviceInfo& info = ctx_->info();
  const bool gpu = info.type == DeviceType::gpu;
  // Polling the event costs a CPU core, which on a CPU device is a compute unit.
  spin_ = gpu;
  const auto& t = ctx_->tuning;
  wg_ = std::min<std::size_t>(::clstat::detail::tuned(t, "order.wg", 256), info.max_work_group_size);
  // Four loads a step: the bracket pass of 2^27 keys on an H100 took 268 us (floats) and 375 us
  // (doubles) with 4, 337 and 517 with 8, 443 and 631 with 16.
  // (PoCL, 2 cores: 8 is 4% faster than 4.)
  items_ = ::clstat::detail::tuned(t, "order.items", gpu ? 4 : 8);
  std::size_t lc = 1;
  while (lc * 2 <= 4096 && lc * 2 * sizeof(Key) <= info.local_mem_bytes / 2) lc *= 2;
  lcap_ = lc;
  const std::uint64_t cap_alloc = info.max_alloc_bytes / sizeof(Key);
  cap_ = std::min<std::uint64_t>({std::max<std::uint64_t>(n / 8, 1u << 16), 1ull << 26, cap_alloc});
  groups_ = std::max<std::size_t>(1, info.compute_units) *
            ::clstat::detail::tuned(t, "order.groups_per_cu", gpu ? 4 : 1);
  // The second sample narrows the bracket about eight-fold for 2^16 scattered reads (see
  // select_sample). Measured, median of 2^22 floats on PoCL 3.1, 2 cores: 10.3 ms with it,
  // 25.9 ms without (and 12.6 ms with the single sorted sample of 4096 keys it replaces).
  sample2_ = ::clstat::detail::tuned(t, "order.sample2", 65536);
  // Spread targets take a larger second sample (enqueue_sample): sixteen times on GPUs, four on
  // CPUs, whose scattered reads cost them far more. Five quantiles of 2^24 doubles, PoCL 5 on
  // 16 Xeon cores, twice each: 19.9 and 20.5 ms with sixteen, 17.9 and 17.1 with four, 19.0 and
  // 18.7 with one (the median, one target, keeps 65536: 5.0 ms, 6.0 with 16384).
  sample2_multi_ = ::clstat::detail::tuned(t, "order.sample2_multi", gpu ? 16 : 4);
  // Passes enqueued behind the device plan before the host looks: a pass the plan no longer
  // needs still costs its launches, a pass it needs and lacks a look. The median and k-th of
  // 2^27 values (normal, uniform, a two-component mixture; float, double, int64) on an H100
  // took 10 to 30 us less with 2 than with 3, and 0.1 ms more with 1 (most plans need two).
  planned_passes_ = ::clstat::detail::tuned(t, "order.planned_passes", 2);
  // Spread targets' passes planned on the device (run_filter_multi), where a look costs a GPU a
  // round trip; a CPU's host looks are cheap and its interval passes take the block shape
  // (select_hist_blocks): 2^23 doubles on 2 cores (PoCL 3.1), five and sixteen quantiles took
  // 23-25 and 56-58 ms with the host's passes, 28 and 73-74 planned.
  plan_spread_ = ::clstat::detail::tuned(t, "order.plan_spread", gpu ? 1 : 0) != 0;
  s1_ = std::min<std::size_t>(1024, lcap_);
  // The bracket pass only streams and copies a few percent: more groups hide its barriers. The
  // k-th (n/10) of 2^27 values on an H100, kernel time, 8 groups a CU against 12: int64 0.507
  // -> 0.468 ms (uniform) and 0.513 -> 0.471 (normal); doubles 0.471 -> 0.495 and the median of
  // doubles 0.503 -> 0.535, so 12 for 64-bit integers only.
  const std::size_t filter_gpc = std::is_integral_v<T> && sizeof(T) == 8 ? 12 : 8;
  filter_groups_ = std::max<std::size_t>(1, info.compute_units) *
                   ::clstat::detail::tuned(t, "order.filter_groups_per_cu", gpu ? filter_gpc : 1);
  // Wide loads in the bracket pass, where the input's offset allows them (buffers themselves are
  // aligned far beyond 16 bytes). The pass over 2^27 floats on an H100 took 288 us with element
  // loads (issue-bound, 1.9 TB/s), 222 us with float4 loads four a step and 204 us two a step;
  // doubles gained nothing (371 us with elements, 392 with double2).
  const std::size_t lb = ::clstat::detail::tuned(t, "order.filter_load_bytes", gpu && sizeof(T) == 4 ? 16 : sizeof(T));
  filter_vec_ = std::min<std::size_t>(4, std::max<std::size_t>(1, lb / sizeof(T)));
  if (offset_ % filter_vec_ != 0) filter_vec_ = 1;
  filter_items_ = ::clstat::detail::tuned(t, "order.filter_items", gpu && filter_vec_ > 1 ? 2 : items_);
  // CPUs: the bracket pass as one contiguous block per work-item (select_filter_blocks). Median
  // of 2^23 doubles, PoCL 3.1, 2 cores: the pass took 23.3 ms in select_hist's shape.
  // CPUs: the second sample's loads in batches whose cache misses overlap, in two groups per
  // core (select_sample2; GPUs take kSample2Groups or kSample2GroupsMulti). PoCL 3.1, 2 cores,
  // 2^23 doubles: the sample of a median took 1.7 ms, of five quantiles 14.5, with the GPUs'.
  sample_batch_ = gpu ? 1 : 16;
  sample2_groups_ = gpu ? 0 : 2 * std::max<std::size_t>(1, info.compute_units);
  filter_blocks_ = ::clstat::detail::tuned(t, "order.filter_blocks_per_cu", gpu ? 0 : 4) *
                   std::max<std::size_t>(1, info.compute_units);
}

template <class T>
void RadixSelect<T>::wait(cl::Event& e) {
  // A median waits three or four times: GPUs poll (wait_event).
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] { ::clstat::detail::wait_event(::clstat::detail::queue_of(q_), e, spin_); });
}

template <class T>
void RadixSelect<T>::prepare(const std::vector<std::uint64_t>& hint) {
  if (hint.empty() || hint.size() > kMaxJobs || n_ < (1u << 20) || n_ < lcap_) {
    run_first();
    return;
  }
  std::vector<std::uint64_t> sorted = hint;
  std::sort(sorted.begin(), sorted.end());
  // Clusters of targets within 2% of n of their first: one sampled bracket each.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> clusters;
  for (auto r : sorted) {
    if (clusters.empty() || r - clusters.back().first > n_ / 50) clusters.push_back({r, r});
    clusters.back().second = r;
  }
  if (clusters.size() == 1 && hint.size() <= 4) {
    run_planned(sorted);
  } else if (clusters.size() == 1) {
    run_filter(hint);
  } else if (clusters.size() <= kMaxBrackets) {
    run_filter_multi(clusters, sorted);
  } else {
    run_first();
  }
}

template <class T>
void RadixSelect<T>::run_first() {
  Job all{0, n_, {}, {}};
  first_ = run_pass(Kind::first, false, x_, n_, 0, std::min<unsigned>(12, 8 * sizeof(Key)), {all}, false, nullptr);
  nan_ = first_.nan;
  first_done_ = true;
}

template <class T>
void RadixSelect<T>::run_filter(const std::vector<std::uint64_t>& hint) {
  enqueue_sample({{*std::min_element(hint.begin(), hint.end()), *std::max_element(hint.begin(), hint.end())}});
  Job all{0, n_, {}, {}};
  cl::Buffer dest = ::clstat::detail::scratch(q_, RadixScratch::candidates, cap_ * sizeof(Key));
  filter_ = run_pass(Kind::filter, false, x_, n_, 0, 0, {all}, true, &dest);
  nan_ = filter_.nan;
  filtered_ = true;
}

template <class T>
void RadixSelect<T>::run_filter_multi(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& clusters,
                                      const std::vector<std::uint64_t>& sorted_hint) {
  const auto K = static_cast<unsigned>(clusters.size());
  // NBR: exactly K (a program variant per K): up to four brackets cost a compare each per key,
  // more a binary search (BSEARCH_NBR in the kernel).
  const unsigned nbr = K;
  // Each bracket holds about 10 sqrt(p (1 - p) / s2) of n: sixteen spread quantiles copy about
  // 6% of the data where s2 is 2^20 (n >= 2^24), within the one-bracket cap of n / 8. Where even
  // n / 16 samples leave them past 3/4 of it (sixteen spread quantiles of fewer than about 2^23
  // keys: 27% of n at 2^20), the cap grows to hold them, up to n / 2: the passes after this one
  // then read the copies instead of all the data.
  const double need = enqueue_sample(clusters) / 0.75;
  if (need > static_cast<double>(cap_))
    cap_ = std::min<std::uint64_t>({static_cast<std::uint64_t>(std::ceil(need)), n_ / 2, 1ull << 26,
                                    ctx_->info().max_alloc_bytes / sizeof(Key)});
  multi_ = Brackets{};
  cl::Buffer dest = ::clstat::detail::scratch(q_, RadixScratch::candidates, cap_ * sizeof(Key));
  // The row: nbr counts of the keys below each merged bracket, nbr of the keys inside it, then
  // kNarrow per bracket, the counts of each key of a bracket of at most kNarrow keys.
  const std::vector<Job> row((2 + kNarrow) * nbr, Job{0, 0, {}, {}});
  std::size_t G = 0;
  if (plan_spread_) {
    // Everything up to the answer is enqueued at once, as run_planned does for close targets:
    // select_plan_iv_start makes the plan after the bracket pass, select_plan_iv its next step
    // after each planned interval pass, and the host waits once, for the keys.
    ivplan_.assign(kIvWords, 0);
    ivplan_[kIvNt] = sorted_hint.size();
    std::copy(sorted_hint.begin(), sorted_hint.end(), ivplan_.begin() + kIvRanks);
    cl::Buffer planb = ::clstat::detail::scratch(q_, RadixScratch::ivplan, kIvWords * sizeof(cl_ulong));
    cl::Buffer cand1 = candidates(1);
    ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
      // Non-blocking: ivplan_ is read back over it after the passes, and waited for.
      ::clstat::detail::queue_of(q_).enqueueWriteBuffer(planb, CL_FALSE, 0, kIvWords * sizeof(cl_ulong), ivplan_.data());
    });
    enqueue_pass(Kind::filter, false, x_, n_, K, 0, row, true, &dest, G, 3, {}, nbr);
    const Job all{0, n_, {}, {}};
    ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
      auto prog = program(Kind::planned_iv, false, true);
      for (std::size_t round = 0; round * planned_passes_ < kPlannedMax; ++round) {
        for (std::size_t i = 0; i < planned_passes_; ++i)
          enqueue_pass(Kind::planned_iv, true, dest, 0, 0, 12, {all}, false, &cand1, G, 4);
        cl::Kernel f = build::kernel(*prog, "select_finish_ivplan", q_.index());
        f.setArg(0, dest);
        f.setArg(1, cand1);
        f.setArg(2, planb);
        ::clstat::detail::launch(q_, f, cl::NDRange(sorted_hint.size() * wg_), cl::NDRange(wg_), {}, kOp, false);
        cl::Event done;
        ::clstat::detail::queue_of(q_).enqueueReadBuffer(planb, CL_FALSE, 0, kIvWords * sizeof(cl_ulong), ivplan_.data(),
                                                         nullptr, &done);
        wait(done);
        if (ivplan_[0] != 0) break;  // answered, or the host starts over
      }
    });
    if (ivplan_[0] == 1 || ivplan_[0] == 2) {
      ivplan_ranks_ = sorted_hint;
      nan_ = ivplan_[kIvNan];
    } else {
      // A target outside the brackets (probability below 1e-6), or a plan that needs more passes
      // than kPlannedMax: the plain passes, from the first.
      ivplan_.clear();
      run_first();
    }
    return;
  }
  enqueue_pass(Kind::filter, false, x_, n_, K, 0, row, true, &dest, G, 0, {}, nbr);
  std::vector<Key> merged(2 * nbr + 1);
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
    // Non-blocking: read_pass's wait, behind it on the queue, covers it.
    ::clstat::detail::queue_of(q_).enqueueReadBuffer(
        ::clstat::detail::scratch(q_, RadixScratch::minmax, minmax_bytes_of<Key>(G, kMaxBrackets)), CL_FALSE, 0,
        merged.size() * sizeof(Key), merged.data());
  });
  const Pass p = read_pass(Kind::filter, static_cast<unsigned>(row.size()), 0, kNoCheck);
  nan_ = p.nan;
  const auto mc = static_cast<std::size_t>(merged[2 * nbr]);
  if (mc == 0 || mc > K) throw std::logic_error(std::string(kOp) + ": the bracket pass merged " +
                                                 std::to_string(mc) + " of " + std::to_string(K) + " brackets");
  for (std::size_t i = 0; i < mc; ++i) {
    const Key lo = merged[2 * i], hi = merged[2 * i + 1];
    std::uint64_t inside = p.totals[nbr + i];
    std::vector<std::uint64_t> counts;
    if (hi - lo < kNarrow) {
      const auto* c = p.totals.data() + 2 * nbr + i * kNarrow;
      counts.assign(c, c + static_cast<std::size_t>(hi - lo) + 1);
      for (auto v : counts) inside += v;
    }
    multi_.lo.push_back(lo);
    multi_.hi.push_back(hi);
    multi_.below.push_back(p.totals[i]);
    multi_.upto.push_back(p.totals[i] + inside);
    multi_.counts.push_back(std::move(counts));
  }
  multi_.written = p.written;
  multi_.done = true;
}

// Answers sorted ranks from the brackets of run_filter_multi when each lies in one: a narrow
// bracket (at most kNarrow keys) from its counts by key, the others by interval passes over
// their copies (the keys between the brackets were counted, not copied). Returns false
// otherwise (the caller takes the plain passes).
template <class T>
bool RadixSelect<T>::select_from_brackets(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out) {
  const Brackets& b = multi_;
  if (!b.done || b.written > cap_) return false;
  const std::size_t nb = b.lo.size();
  std::vector<std::uint64_t> before(nb + 1, 0);  // copied keys in the brackets below each
  for (std::size_t i = 0; i < nb; ++i) before[i + 1] = before[i] + (b.counts[i].empty() ? b.upto[i] - b.below[i] : 0);
  if (before[nb] != b.written)
    throw std::logic_error(std::string(kOp) + ": the bracket pass copied " + std::to_string(b.written) +
                           " keys, its counts say " + std::to_string(before[nb]));
  // One interval job per bracket that holds targets: its keys' ranks among the copies start
  // at the copies below it.
  std::vector<Job> jobs;
  std::vector<std::size_t> sub;  // the targets ranked among the copies
  for (std::size_t t = 0; t < ranks.size(); ++t) {
    const std::uint64_t r = ranks[t];
    std::size_t i = 0;
    while (i < nb && b.upto[i] <= r) ++i;
    if (i == nb || r < b.below[i]) return false;  // between brackets or past them: a miss
    if (!b.counts[i].empty()) {  // a narrow bracket: its keys' counts answer
      std::uint64_t at = b.below[i];
      std::size_t key = 0;
      while (at + b.counts[i][key] <= r) at += b.counts[i][key++];
      out[t] = b.lo[i] + static_cast<Key>(key);
      continue;
    }
    if (jobs.empty() || jobs.back().prefix != b.lo[i]) {
      jobs.push_back(Job{b.lo[i], b.upto[i] - b.below[i], {}, {}, b.hi[i]});
    }
    jobs.back().targets.push_back(sub.size());
    jobs.back().rank.push_back(r - b.below[i]);
    sub.push_back(t);
  }
  if (sub.empty()) return true;
  std::vector<Key> got(sub.size());
  Descent d;
  d.jobs = std::move(jobs);
  d.intervals = true;
  d.src = candidates(0);
  d.from_keys = true;
  d.m = b.written;
  d.cand = 1;
  descend(std::move(d), sub.size(), got);
  for (std::size_t j = 0; j < sub.size(); ++j) out[sub[j]] = got[j];
  return true;
}

template <class T>
double RadixSelect<T>::enqueue_sample(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& slots) {
  const auto K = static_cast<cl_uint>(slots.size());
  // A target's sample rank is binomial: 5 standard deviations either side (plus two for the
  // rounding) miss it with probability below 1e-6, and a miss only costs the plain passes.
  std::vector<double> ps;
  for (const auto& [r_lo, r_hi] : slots)
    ps.push_back(std::min(std::max((r_lo + r_hi) / 2.0 / static_cast<double>(n_), 1.0 / s1_), 1 - 1.0 / s1_));
  auto margin_of = [](double p, double s) {
    return static_cast<cl_ulong>(std::ceil(5 * std::sqrt(s * p * (1 - p)))) + 2;
  };
  // Spread targets take a larger second sample (sample2_multi_: sixteen times on a GPU, brackets
  // a quarter as wide, so sixteen quantiles copy about 6% of the data, not a quarter, and one
  // pass over the copies of a bracket leaves few enough keys to sort). Where the slots' brackets
  // would still hold more than 3/4 of the copy cap (cap_, n / 8), the sample doubles until they
  // fit, up to n / 16: past the cap the copies are cut and the selection falls back to passes
  // over all the data. Sixteen spread quantiles at a CPU's four times hold about 13.5% of the
  // data: of 2^24 doubles on 2 cores (PoCL 3.1) they took 500 to 620 ms, 125 to 155 at sixteen
  // times; five quantiles (2.5%) and a GPU's sixteen (6.7%) keep their sample.
  std::uint64_t s2w = K > 1 ? sample2_multi_ * sample2_ : sample2_;
  auto held = [&](std::uint64_t s) {
    double f = 0;
    for (double p : ps) f += 2.0 * static_cast<double>(margin_of(p, static_cast<double>(s))) / static_cast<double>(s);
    return f * static_cast<double>(n_);
  };
  if (K > 1 && s2w > 0)  // (order.sample2 = 0: no second sample, nothing to double)
    while (2 * s2w <= n_ / 16 && held(s2w) > 0.75 * static_cast<double>(cap_)) s2w *= 2;
  const auto s2 = static_cast<cl_uint>(std::min<std::uint64_t>(s2w, n_ / 16));
  spec_host_.clear();
  for (std::size_t k = 0; k < slots.size(); ++k)
    spec_host_.insert(spec_host_.end(), {slots[k].first, slots[k].second, margin_of(ps[k], static_cast<double>(s1_)),
                                         margin_of(ps[k], s2)});
  const cl::Buffer bracket = ::clstat::detail::scratch(q_, RadixScratch::bracket, K * kBracketBytes);
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
    auto prog = program(Kind::filter, true, false);
    const std::size_t qi = q_.index();
    // One slot: the kernels take its ranks as arguments (no upload); several: from `spec`.
    cl::Buffer spec = bracket;
    if (K > 1) {
      spec = ::clstat::detail::scratch(q_, RadixScratch::spec, spec_host_.size() * sizeof(cl_ulong));
      // Non-blocking: spec_host_ outlives the selection's waits.
      ::clstat::detail::queue_of(q_).enqueueWriteBuffer(spec, CL_FALSE, 0, spec_host_.size() * sizeof(cl_ulong),
                                                        spec_host_.data());
    }
    cl::Kernel k = build::kernel(*prog, "select_sample", qi);
    k.setArg(0, x_);
    k.setArg(1, static_cast<cl_ulong>(offset_));
    k.setArg(2, static_cast<cl_ulong>(n_));
    k.setArg(3, static_cast<cl_ulong>(spec_host_[0]));
    k.setArg(4, static_cast<cl_ulong>(spec_host_[1]));
    k.setArg(5, static_cast<cl_uint>(spec_host_[2]));
    k.setArg(6, bracket);
    k.setArg(7, K);
    k.setArg(8, spec);
    ::clstat::detail::launch(q_, k, cl::NDRange(K * wg_), cl::NDRange(wg_), {}, kOp, false);
    if (s2 == 0) return;
    cl::Kernel k2 = build::kernel(*prog, "select_sample2", qi);
    k2.setArg(0, x_);
    k2.setArg(1, static_cast<cl_ulong>(offset_));
    k2.setArg(2, static_cast<cl_ulong>(n_));
    k2.setArg(3, s2);
    k2.setArg(4, bracket);
    k2.setArg(5, static_cast<cl_ulong>(spec_host_[0]));
    k2.setArg(6, static_cast<cl_ulong>(spec_host_[1]));
    k2.setArg(7, static_cast<cl_uint>(spec_host_[3]));
    k2.setArg(8, ::clstat::detail::scratch_zeroed(q_, RadixScratch::done, sizeof(cl_uint)));
    k2.setArg(9, K);
    k2.setArg(10, spec);
    const std::size_t groups2 = sample2_groups_ ? sample2_groups_ : K > 1 ? kSample2GroupsMulti : kSample2Groups;
    const std::size_t g2 = std::max<std::size_t>(1, std::min<std::size_t>(groups2, s2 / wg_));
    ::clstat::detail::launch(q_, k2, cl::NDRange(g2 * wg_), cl::NDRange(wg_), {}, kOp, false);
    if (K == 1) return;
    cl::Kernel k3 = build::kernel(*prog, "select_sample_end", qi);
    k3.setArg(0, bracket);
    k3.setArg(1, static_cast<cl_ulong>(n_));
    k3.setArg(2, s2);
    k3.setArg(3, spec);
    ::clstat::detail::launch(q_, k3, cl::NDRange(K * wg_), cl::NDRange(wg_), {}, kOp, false);
  });
  return held(s2 > 0 ? s2 : s1_);  // without a second sample, the first sample's brackets
}

template <class T>
void RadixSelect<T>::run_planned(const std::vector<std::uint64_t>& hint) {
  // Everything up to the answer is enqueued at once; the host waits once, at the end (again
  // only for inputs that need more than planned_passes_ passes after the bracket).
  enqueue_sample({{hint.front(), hint.back()}});
  Job all{0, n_, {}, {}};
  const std::size_t qi = q_.index();
  cl::Buffer cand0 = ::clstat::detail::scratch(q_, RadixScratch::candidates, cap_ * sizeof(Key));
  cl::Buffer cand1 = ::clstat::detail::scratch(q_, RadixScratch::candidates, cap_ * sizeof(Key), 1);
  cl::Buffer planb = ::clstat::detail::scratch(q_, RadixScratch::plan, kPlanWords * sizeof(cl_ulong));
  std::size_t G = 0;
  enqueue_pass(Kind::filter, false, x_, n_, 0, 0, {all}, true, &cand0, G, 1, hint);
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
    auto prog = program(Kind::planned, false, false);
    plan_.assign(kPlanWords, 0);
    for (std::size_t round = 0; round * planned_passes_ < kPlannedMax; ++round) {
      for (std::size_t i = 0; i < planned_passes_; ++i) enqueue_pass(Kind::planned, true, cand0, 0, 0, 12, {all}, false, &cand1, G, 2);
      cl::Kernel f = build::kernel(*prog, "select_finish_plan", qi);
      f.setArg(0, cand0);
      f.setArg(1, cand1);
      f.setArg(2, planb);
      ::clstat::detail::launch(q_, f, cl::NDRange(wg_), cl::NDRange(wg_), {}, kOp, false);
      cl::Event done;
      ::clstat::detail::queue_of(q_).enqueueReadBuffer(planb, CL_FALSE, 0, kPlanWords * sizeof(cl_ulong),
                                                       plan_.data(), nullptr, &done);
      wait(done);
      if (plan_[0] != 0) break;  // done, or the host starts over
    }
  });
  plan_ranks_ = hint;
  nan_ = plan_[16];
}

// Answers sorted ranks from the device plan when they are the ranks it was made for and it
// reached them. Returns false otherwise (the caller takes the plain passes).
template <class T>
bool RadixSelect<T>::answer_from_plan(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out) {
  if (!ivplan_.empty() && ranks == ivplan_ranks_) {
    for (std::size_t t = 0; t < ranks.size(); ++t) out[t] = static_cast<Key>(ivplan_[kIvOut + t]);
    return true;
  }
  if (plan_.empty() || ranks != plan_ranks_ || plan_[0] != 2) return false;
  for (std::size_t t = 0; t < ranks.size(); ++t) out[t] = static_cast<Key>(plan_[11 + t]);
  return true;
}

template <class T>
void RadixSelect<T>::enqueue_pass(Kind kind, bool from_keys, const cl::Buffer& src, std::uint64_t m, unsigned plen,
                                  unsigned bits, const std::vector<Job>& jobs, bool compact, const cl::Buffer* dest,
                                  std::size_t& G, unsigned plan, const std::vector<std::uint64_t>& hint,
                                  unsigned nbr) {
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
    auto prog = program(kind, compact, from_keys, nbr);
    const std::size_t qi = q_.index();
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    const bool wide = kind == Kind::filter && !from_keys;
    const std::size_t per_group = wg_ * (wide ? filter_items_ * filter_vec_ : items_);
    // A planned pass does not know its size: it gets every group (idle ones return at once).
    const std::uint64_t size = kind == Kind::planned || kind == Kind::planned_iv ? n_ : m;
    const std::size_t groups = kind == Kind::filter ? filter_groups_ : groups_;
    const bool blocks = wide && filter_blocks_ > 0;
    // CPUs: the passes over copied keys as contiguous blocks too (select_hist_blocks), at least
    // 2048 keys a block.
    const bool key_blocks = from_keys && (kind == Kind::plain || kind == Kind::interval) && filter_blocks_ > 0;
    G = static_cast<std::size_t>(
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(groups, (size + per_group - 1) / per_group)));
    if (blocks) G = filter_blocks_;
    if (key_blocks) G = static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(filter_blocks_, (m + 2047) / 2048)));
    const unsigned nb = static_cast<unsigned>(jobs.size()) << bits;
    const unsigned row = nb + 2;
    cl::Buffer partials = ::clstat::detail::scratch(q_, RadixScratch::partials, G * row * sizeof(cl_uint));
    cl::Buffer totals = ::clstat::detail::scratch(q_, RadixScratch::totals, (row + kExtra) * sizeof(cl_ulong));
    cl::Buffer minmax = ::clstat::detail::scratch(q_, RadixScratch::minmax, minmax_bytes_of<Key>(G, kMaxBrackets));
    cl::Buffer jobsb = ::clstat::detail::scratch(q_, RadixScratch::jobs, 2 * kMaxJobs * sizeof(Key));
    // Zero when made; select_sum re-zeroes it after every pass (a write per call cost a transfer).
    cl::Buffer cursor = ::clstat::detail::scratch_zeroed(q_, RadixScratch::cursor, sizeof(cl_uint));
    cl::Buffer bracket = ::clstat::detail::scratch(q_, RadixScratch::bracket, kBracketBytes);
    // Plans 3 and 4 are the plan of spread targets' (its own buffer).
    cl::Buffer planb = plan >= 3 ? ::clstat::detail::scratch(q_, RadixScratch::ivplan, kIvWords * sizeof(cl_ulong))
                                 : ::clstat::detail::scratch(q_, RadixScratch::plan, kPlanWords * sizeof(cl_ulong));
    if (kind == Kind::interval) {
      jobs_host_.clear();
      for (const Job& j : jobs) jobs_host_.insert(jobs_host_.end(), {j.prefix, j.hi});
      cq.enqueueWriteBuffer(jobsb, CL_FALSE, 0, jobs_host_.size() * sizeof(Key), jobs_host_.data());
    } else if (jobs.size() > 1 && kind != Kind::filter) {
      jobs_host_.resize(jobs.size());
      for (std::size_t j = 0; j < jobs.size(); ++j) jobs_host_[j] = jobs[j].prefix;
      // Non-blocking: jobs_host_ outlives the wait at the end of this pass.
      cq.enqueueWriteBuffer(jobsb, CL_FALSE, 0, jobs.size() * sizeof(Key), jobs_host_.data());
    }
    cl::Kernel k = build::kernel(*prog, blocks ? "select_filter_blocks" : key_blocks ? "select_hist_blocks" : "select_hist", qi);
    k.setArg(0, x_);
    k.setArg(1, static_cast<cl_ulong>(offset_));
    k.setArg(2, from_keys ? src : x_);
    k.setArg(3, static_cast<cl_ulong>(m));
    k.setArg(4, static_cast<cl_uint>(plen));
    k.setArg(5, static_cast<cl_uint>(8 * sizeof(Key) - plen - bits));
    k.setArg(6, static_cast<cl_uint>(bits));
    k.setArg(7, static_cast<cl_uint>(jobs.size()));
    k.setArg(8, jobsb);
    k.setArg(9, partials);
    k.setArg(10, static_cast<cl_uint>(row));
    k.setArg(11, dest ? *dest : partials);
    k.setArg(12, cursor);
    k.setArg(13, minmax);
    k.setArg(14, static_cast<cl_uint>(cap_));
    k.setArg(15, bracket);
    k.setArg(16, jobs.front().prefix);
    k.setArg(17, planb);
    if (blocks || key_blocks)
      ::clstat::detail::launch(q_, k, cl::NDRange(G), cl::NDRange(1), {}, kOp, false);
    else
      ::clstat::detail::launch(q_, k, cl::NDRange(G * wg_), cl::NDRange(wg_), {}, kOp, false);

    cl::Kernel s = build::kernel(*prog, "select_sum", qi);
    s.setArg(0, partials);
    s.setArg(1, static_cast<cl_uint>(G));
    s.setArg(2, static_cast<cl_uint>(row));
    // select_sum: 256 work-items per `bins` of the row's entries and the three after it, the
    // rest of the 256 summing the groups' rows in stripes.
    const unsigned entries = row + 3;
    cl_uint bins = 1;
    while (bins < 32 && bins < entries) bins <<= 1;
    s.setArg(3, bins);
    s.setArg(4, totals);
    s.setArg(5, cursor);
    s.setArg(6, bracket);
    s.setArg(7, minmax);
    s.setArg(8, static_cast<cl_uint>(kind == Kind::first ? 1 : 0));
    s.setArg(9, static_cast<cl_uint>(kind == Kind::planned || kind == Kind::planned_iv ? 1 : 0));
    s.setArg(10, planb);
    s.setArg(11, static_cast<cl_uint>(plan >= 3 ? 0 : plan));
    s.setArg(12, ::clstat::detail::scratch_zeroed(q_, RadixScratch::done, sizeof(cl_uint)));
    s.setArg(13, static_cast<cl_uint>(hint.size()));
    for (int t = 0; t < 4; ++t)
      s.setArg(14 + t, static_cast<cl_ulong>(hint.empty() ? 0 : hint[std::min<std::size_t>(t, hint.size() - 1)]));
    s.setArg(18, static_cast<cl_ulong>(cap_));
    s.setArg(19, static_cast<cl_uint>(lcap_));
    ::clstat::detail::launch(q_, s, cl::NDRange((entries + bins - 1) / bins * 256), cl::NDRange(256), {}, kOp, false);
    if (plan >= 3) {  // the plan of spread targets: its start, or its next step
      cl::Kernel pk = build::kernel(*prog, plan == 3 ? "select_plan_iv_start" : "select_plan_iv", qi);
      cl_uint a = 0;
      pk.setArg(a++, totals);
      pk.setArg(a++, static_cast<cl_uint>(row));
      pk.setArg(a++, planb);
      if (plan == 3) pk.setArg(a++, minmax);
      pk.setArg(a++, static_cast<cl_ulong>(cap_));
      pk.setArg(a++, static_cast<cl_uint>(lcap_));
      ::clstat::detail::launch(q_, pk, cl::NDRange(256), cl::NDRange(256), {}, kOp, false);
    }
  });
}

template <class T>
typename RadixSelect<T>::Pass RadixSelect<T>::run_pass(Kind kind, bool from_keys, const cl::Buffer& src,
                                                        std::uint64_t m, unsigned plen, unsigned bits,
                                                        const std::vector<Job>& jobs, bool compact,
                                                        const cl::Buffer* dest) {
  std::size_t G = 0;
  enqueue_pass(kind, from_keys, src, m, plen, bits, jobs, compact, dest, G);
  std::uint64_t total = 0;
  for (const Job& j : jobs) total += j.count;
  return read_pass(kind, static_cast<unsigned>(jobs.size()) << bits, bits,
                   compact && kind != Kind::filter ? total : kNoCheck);
}

template <class T>
typename RadixSelect<T>::Pass RadixSelect<T>::read_pass(Kind kind, unsigned nb, unsigned bits, std::uint64_t expect) {
  return ::clstat::detail::cl_guard(kOp, *ctx_, [&]() -> Pass {
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    const unsigned row = nb + 2;
    std::vector<cl_ulong> t(row + kExtra);
    cl::Event done;
    cq.enqueueReadBuffer(::clstat::detail::scratch(q_, RadixScratch::totals, (row + kExtra) * sizeof(cl_ulong)), CL_FALSE, 0,
                         t.size() * sizeof(cl_ulong), t.data(), nullptr, &done);
    wait(done);
    Pass p;
    p.bits = bits;
    p.totals.assign(t.begin(), t.begin() + nb);
    p.nan = t[nb];
    p.below = t[nb + 1];
    p.written = t[row];
    for (int i = 0; i < 2; ++i) p.bracket[i] = static_cast<Key>(t[row + 1 + i]);
    if (kind == Kind::first) {
      kmin_ = static_cast<Key>(t[row + 5]);
      kmax_ = static_cast<Key>(t[row + 6]);
    }
    if (expect != kNoCheck && p.written != expect)
      throw std::logic_error(std::string(kOp) + ": compaction wrote " + std::to_string(p.written) +
                             " keys, expected " + std::to_string(expect));
    return p;
  });
}

template <class T>
cl::Buffer RadixSelect<T>::candidates(int part) {
  return ::clstat::detail::scratch(q_, RadixScratch::candidates, cap_ * sizeof(Key), static_cast<std::size_t>(part));
}

template <class T>
std::vector<typename RadixSelect<T>::Key> RadixSelect<T>::read_keys(const cl::Buffer& src, std::uint64_t m) {
  std::vector<Key> out(m);
  if (m == 0) return out;
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
    cl::Event done;
    ::clstat::detail::queue_of(q_).enqueueReadBuffer(src, CL_FALSE, 0, m * sizeof(Key), out.data(), nullptr, &done);
    wait(done);
  });
  return out;
}

template <class T>
void RadixSelect<T>::finish(const cl::Buffer& src, std::uint64_t m, unsigned plen, bool intervals,
                            const std::vector<Job>& jobs, std::size_t ntargets, std::vector<Key>& out) {
  ::clstat::detail::cl_guard(kOp, *ctx_, [&] {
    auto prog = program(Kind::plain, false, true);
    const std::size_t qi = q_.index();
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    std::vector<cl_uint> job_of(ntargets), rank_of(ntargets);
    for (std::size_t j = 0; j < jobs.size(); ++j)
      for (std::size_t i = 0; i < jobs[j].targets.size(); ++i) {
        job_of[jobs[j].targets[i]] = static_cast<cl_uint>(j);
        rank_of[jobs[j].targets[i]] = static_cast<cl_uint>(jobs[j].rank[i]);
      }
    jobs_host_.clear();
    for (const Job& j : jobs) {
      jobs_host_.push_back(j.prefix);
      if (intervals) jobs_host_.push_back(j.hi);
    }
    cl::Buffer jobsb = ::clstat::detail::scratch(q_, RadixScratch::jobs, 2 * kMaxJobs * sizeof(Key));
    cl::Buffer jb = ::clstat::detail::scratch(q_, RadixScratch::job_index, kMaxJobs * sizeof(cl_uint));
    cl::Buffer rb = ::clstat::detail::scratch(q_, RadixScratch::job_rank, kMaxJobs * sizeof(cl_uint));
    cl::Buffer ob = ::clstat::detail::scratch(q_, RadixScratch::job_out, kMaxJobs * sizeof(Key));
    cq.enqueueWriteBuffer(jobsb, CL_FALSE, 0, jobs_host_.size() * sizeof(Key), jobs_host_.data());
    cq.enqueueWriteBuffer(jb, CL_FALSE, 0, ntargets * sizeof(cl_uint), job_of.data());
    cq.enqueueWriteBuffer(rb, CL_FALSE, 0, ntargets * sizeof(cl_uint), rank_of.data());
    cl::Kernel k = build::kernel(*prog, intervals ? "select_finish_iv" : "select_finish", qi);
    cl_uint a = 0;
    k.setArg(a++, src);
    k.setArg(a++, static_cast<cl_uint>(m));
    if (!intervals) k.setArg(a++, static_cast<cl_uint>(plen));
    k.setArg(a++, jobsb);
    k.setArg(a++, jb);
    k.setArg(a++, rb);
    k.setArg(a++, static_cast<cl_uint>(ntargets));
    k.setArg(a++, ob);
    ::clstat::detail::launch(q_, k, cl::NDRange(jobs.size() * wg_), cl::NDRange(wg_), {}, kOp, false);
    // The sorts write a key for every target; those answered before (outside every job) keep
    // theirs.
    std::vector<Key> got(ntargets);
    cl::Event done;
    cq.enqueueReadBuffer(ob, CL_FALSE, 0, ntargets * sizeof(Key), got.data(), nullptr, &done);
    wait(done);  // also keeps the staged vectors alive until their writes are done
    for (const Job& j : jobs)
      for (std::size_t t : j.targets) out[t] = got[t];
  });
}

template <class T>
std::vector<typename RadixSelect<T>::Key> RadixSelect<T>::select(const std::vector<std::uint64_t>& ranks) {
  // At most kMaxJobs targets per batch, so at most kMaxJobs jobs at any level.
  return select_sorted<Key>(
      ranks, n_, kMaxJobs, kOp,
      [&](const std::vector<std::uint64_t>& sorted, std::vector<Key>& out) { return answer_from_plan(sorted, out); },
      [&](const std::vector<std::uint64_t>& br, std::vector<Key>& out) { select_batch(br, out); });
}

template <class T>
std::vector<typename RadixSelect<T>::Job> RadixSelect<T>::refine(const std::vector<Job>& jobs, const Pass& p) {
  std::vector<Job> next;
  const std::size_t nbins = std::size_t(1) << p.bits;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const std::uint64_t* tot = p.totals.data() + (j << p.bits);
    std::size_t b = 0;
    std::uint64_t below = 0;
    for (std::size_t i = 0; i < jobs[j].targets.size(); ++i) {
      const std::uint64_t r = jobs[j].rank[i];
      while (b < nbins && below + tot[b] <= r) below += tot[b++];
      if (b == nbins) throw std::logic_error(std::string(kOp) + ": histogram lost elements");
      const Key prefix = static_cast<Key>((p.bits ? jobs[j].prefix << p.bits : jobs[j].prefix) | b);
      if (next.empty() || next.back().prefix != prefix) next.push_back(Job{prefix, tot[b], {}, {}});
      next.back().targets.push_back(jobs[j].targets[i]);
      next.back().rank.push_back(r - below);
    }
  }
  return next;
}

template <class T>
void RadixSelect<T>::select_batch(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out) {
  constexpr unsigned KB = 8 * sizeof(Key);
  if (ranks.empty()) return;
  Job root{0, 0, {}, {}};
  for (std::size_t t = 0; t < ranks.size(); ++t) root.targets.push_back(t);

  if (select_from_brackets(ranks, out)) return;

  // The bracket holds every target: descend from its candidates, which share the common prefix
  // of the bracket's ends.
  if (filtered_ && ranks.size() <= kMaxJobs && (filter_.written <= cap_ || filter_.bracket[0] == filter_.bracket[1]) &&
      ranks.front() >= filter_.below && ranks.back() < filter_.below + filter_.written) {
    const Key lo = filter_.bracket[0], hi = filter_.bracket[1];
    if (lo == hi) {  // every candidate is lo
      std::fill(out.begin(), out.end(), lo);
      return;
    }
    const unsigned common =
        static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(lo ^ hi))) - (64 - KB);
    root.prefix = common ? static_cast<Key>(lo >> (KB - common)) : Key(0);
    root.count = filter_.written;
    for (auto r : ranks) root.rank.push_back(r - filter_.below);
    Descent d;
    d.jobs = {root};
    d.plen = common;
    d.src = ::clstat::detail::scratch(q_, RadixScratch::candidates, cap_ * sizeof(Key));
    d.from_keys = true;
    d.m = filter_.written;
    d.cand = 1;
    descend(std::move(d), ranks.size(), out);
    return;
  }

  if (!first_done_) run_first();
  if (kmin_ == kmax_) {  // every element has the same key
    std::fill(out.begin(), out.end(), kmin_);
    return;
  }
  root.count = n_;
  root.rank = ranks;
  Descent d;
  d.src = x_;
  d.m = n_;
  const unsigned common = static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(kmin_ ^ kmax_))) -
                          (64 - KB);
  if (common >= first_.bits) {
    // The first histogram has a single bin; every key shares the first `common` bits.
    root.prefix = static_cast<Key>(kmin_ >> (KB - common));
    d.jobs = {root};
    d.plen = common;
  } else {
    d.jobs = refine({root}, first_);
    d.plen = first_.bits;
  }
  descend(std::move(d), ranks.size(), out);
}

template <class T>
void RadixSelect<T>::descend(Descent d, std::size_t ntargets, std::vector<Key>& out) {
  constexpr unsigned KB = 8 * sizeof(Key);
  for (;;) {
    if (!d.intervals && d.plen == KB) {
      for (const Job& j : d.jobs)
        for (std::size_t t : j.targets) out[t] = j.prefix;
      return;
    }
    if (d.jobs.empty()) return;  // interval jobs: every target answered by a one-key interval
    std::uint64_t total = 0, largest = 0;
    for (const Job& j : d.jobs) {
      total += j.count;
      largest = std::max(largest, j.count);
    }
    if (d.from_keys && largest <= lcap_ && d.m <= std::max<std::uint64_t>(1u << 16, 4 * total)) {
      finish(d.src, d.m, d.plen, d.intervals, d.jobs, ntargets, out);
      return;
    }
    const unsigned bits = d.intervals ? 12 - ceil_log2(d.jobs.size())
                                      : std::min<unsigned>(12 - ceil_log2(d.jobs.size()), KB - d.plen);
    const bool compact = total <= cap_ && (!d.from_keys || 4 * total <= d.m);
    cl::Buffer dest;
    if (compact) dest = candidates(d.cand);
    const Pass p = run_pass(d.intervals ? Kind::interval : Kind::plain, d.from_keys, d.src, d.m, d.plen, bits,
                            d.jobs, compact, compact ? &dest : nullptr);
    if (compact) {
      d.src = dest;
      d.from_keys = true;
      d.m = total;
      d.cand ^= 1;
    }
    if (d.intervals) {
      d.jobs = refine_intervals(d.jobs, p, out);
    } else {
      d.jobs = refine(d.jobs, p);
      d.plen += bits;
    }
  }
}

template <class T>
std::vector<typename RadixSelect<T>::Job> RadixSelect<T>::refine_intervals(const std::vector<Job>& jobs, const Pass& p,
                                                                          std::vector<Key>& out) {
  constexpr unsigned KB = 8 * sizeof(Key);
  std::vector<Job> next;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const Job& job = jobs[j];
    // As interval_shift in cl/order/radix_select.cl.
    const unsigned span = job.prefix < job.hi
                              ? KB - (static_cast<unsigned>(__builtin_clzll(static_cast<unsigned long long>(job.hi - job.prefix))) - (64 - KB))
                              : 0;
    const unsigned shift = span > p.bits ? span - p.bits : 0;
    const std::uint64_t* tot = p.totals.data() + (j << p.bits);
    const std::size_t nbins = static_cast<std::size_t>((job.hi - job.prefix) >> shift) + 1;
    std::size_t bin = 0;
    std::uint64_t below = 0;
    for (std::size_t i = 0; i < job.targets.size(); ++i) {
      const std::uint64_t r = job.rank[i];
      while (bin < nbins && below + tot[bin] <= r) below += tot[bin++];
      if (bin == nbins) throw std::logic_error(std::string(kOp) + ": histogram lost elements");
      const Key lo = job.prefix + (static_cast<Key>(bin) << shift);
      const Key step = static_cast<Key>((static_cast<Key>(1) << shift) - 1);
      const Key hi = job.hi - lo <= step ? job.hi : lo + step;
      if (lo == hi) {  // every key in it is the answer
        out[job.targets[i]] = lo;
        continue;
      }
      if (next.empty() || next.back().prefix != lo) next.push_back(Job{lo, tot[bin], {}, {}, hi});
      next.back().targets.push_back(job.targets[i]);
      next.back().rank.push_back(r - below);
    }
  }
  return next;
}

template <class T>
std::unique_ptr<Selector<T>> make_radix_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                 std::uint64_t n) {
  return std::make_unique<RadixSelect<T>>(q, x, offset, n);
}

#define CLSTAT_INSTANTIATE(T)    \
  template class RadixSelect<T>; \
  template std::unique_ptr<Selector<T>> make_radix_selector(const Queue&, const Buffer<T>&, std::size_t, std::uint64_t);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order::detail
