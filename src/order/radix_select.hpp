// Internal: the radix selection engine behind clstat::order (kernels in cl/order/radix_select.cl).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "order/keys.hpp"
#include "order/selector.hpp"
#include "runtime/impl.hpp"

namespace clstat::order::detail {

/// Selection of order statistics of n elements of x (from element `offset`) by MSD radix passes
/// over the order-preserving keys.
///  prepare(hint): for at most 64 targets within 2% of n of each other (n >= 2^20), a sampled
///    bracket and one filtering pass (cl/order/radix_select.cl). With at most 4 such targets the
///    passes after it are planned on the device and enqueued at once: one wait for the host
///    (run_planned). Targets in 2..16 such clusters (spread quantiles) take a bracket per
///    cluster and one filtering pass against all of them (run_filter_multi); on GPUs the
///    interval passes over its copies are then planned on the device too, one wait in all
///    (order.plan_spread; CPUs, whose looks are cheap, take the host's). Otherwise, or when
///    select() asks for ranks the brackets do not hold, a first histogram pass over the top 12
///    bits, which also gives the NaN count and key range.
///  select(ranks): histogram passes over the candidates until each target's bucket fits one
///    work-group, which sorts it in local memory. Up to 64 targets share each pass; the host
///    waits for each pass's histogram (GPUs poll the event rather than sleep in the driver's
///    wait, which costs 100 us or more on NVIDIA's OpenCL).
/// Memory: two candidate buffers of max(2^16, n/8) keys (at most 2^26 and the largest
/// allocation), plus O(groups x 4096) counters. Work: one read of the data for a bracketed
/// median, two or three otherwise, plus reads of the candidates (a few percent of n).
template <class T>
class RadixSelect final : public Selector<T> {
 public:
  using Key = key_t<T>;
  // A slot of the bracket buffer: {lo, hi}, then (as uint) the second sample's count below it
  // and its 4096-bucket histogram (select_sample2 in cl/order/radix_select.cl), in keys.
  static constexpr std::size_t kBracketWords = 2 + ((4096 + 1) * 4 + sizeof(key_t<T>) - 1) / sizeof(key_t<T>);
  static constexpr std::size_t kBracketBytes = kBracketWords * sizeof(key_t<T>);
  // Clusters of close targets that one bracket pass serves (NBR in the kernel, at most).
  static constexpr std::size_t kMaxBrackets = 16;
  RadixSelect(const Queue& q, const Buffer<T>& x, std::size_t offset, std::uint64_t n);

  void prepare(const std::vector<std::uint64_t>& hint) override;
  std::uint64_t nan_count() const override { return nan_; }
  std::vector<Key> select(const std::vector<std::uint64_t>& ranks) override;


 private:
  template <class U>
  friend class ShardedSelect;  // runs these passes on every shard of a device group
  struct Job {
    Key prefix;  // Kind::interval: the interval's low end
    std::uint64_t count;
    std::vector<std::size_t> targets;  // indices into the batch's ranks
    std::vector<std::uint64_t> rank;   // their ranks within this job, ascending
    Key hi = 0;  // Kind::interval: the interval's high end
  };
  struct Pass {
    std::vector<std::uint64_t> totals;  // (jobs << bits) counters
    unsigned bits = 0;
    std::uint64_t nan = 0, below = 0;   // FIRST / FILTER
    std::uint64_t written = 0;          // keys the compaction counted
    Key bracket[2] = {0, 0};            // FILTER: lo, hi
  };
  // interval: a pass over candidates whose jobs are key intervals (IVJOBS in the kernel).
  // planned_iv: an interval pass whose jobs come from the device plan of spread targets.
  enum class Kind { plain, first, filter, planned, interval, planned_iv };
  struct Descent {
    std::vector<Job> jobs;
    bool intervals = false;  // interval jobs (Kind::interval passes), else prefix jobs of plen bits
    unsigned plen = 0;
    cl::Buffer src;
    bool from_keys = false;
    std::uint64_t m = 0;
    int cand = 0;  // the candidate buffer to write next
  };

  void run_first();
  void run_filter(const std::vector<std::uint64_t>& hint);
  void run_filter_multi(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& clusters,
                        const std::vector<std::uint64_t>& sorted_hint);
  bool select_from_brackets(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out);
  void run_planned(const std::vector<std::uint64_t>& sorted_hint);
  bool answer_from_plan(const std::vector<std::uint64_t>& sorted_ranks, std::vector<Key>& out);
  // Samples the bracket of ranks {r_lo, r_hi} of each slot (at most kMaxBrackets) into its slot.
  // Returns the keys the slots' brackets are expected to hold at most (their margins' span).
  double enqueue_sample(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& slots);
  // `plan`: the device plan the pass's select_sum then makes in its last group (0 none, 1 the
  // start after the bracket pass, for the sorted ranks `hint`; 2 the next after a planned pass),
  // or that a kernel of its own makes after select_sum for spread targets (3 the start after the
  // bracket pass, select_plan_iv_start; 4 the next after a planned interval pass, select_plan_iv).
  // `nbr` > 1: the bracket pass against the brackets of `plen` slots (NBR in the kernel).
  void enqueue_pass(Kind kind, bool from_keys, const cl::Buffer& src, std::uint64_t m, unsigned plen, unsigned bits,
                    const std::vector<Job>& jobs, bool compact, const cl::Buffer* dest, std::size_t& G,
                    unsigned plan = 0, const std::vector<std::uint64_t>& hint = {}, unsigned nbr = 1);
  void select_batch(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out);
  // Histogram passes until every job fits a work-group's sort. Prefix jobs take the next bits of
  // the key; interval jobs split their interval into 2^bits equal steps, so it shrinks as fast
  // wherever it lies against bit boundaries (the brackets of spread targets).
  void descend(Descent d, std::size_t ntargets, std::vector<Key>& out);
  // Interval jobs after a pass; a target whose interval is one key is answered into `out`.
  static std::vector<Job> refine_intervals(const std::vector<Job>& jobs, const Pass& p, std::vector<Key>& out);
  static std::vector<Job> refine(const std::vector<Job>& jobs, const Pass& p);
  Pass run_pass(Kind kind, bool from_keys, const cl::Buffer& src, std::uint64_t m, unsigned plen, unsigned bits,
                const std::vector<Job>& jobs, bool compact, const cl::Buffer* dest);
  // Candidate buffer `part` (0 or 1) of this selection's queue, and m keys read back from one.
  cl::Buffer candidates(int part);
  std::vector<Key> read_keys(const cl::Buffer& src, std::uint64_t m);
  static constexpr std::uint64_t kNoCheck = ~std::uint64_t(0);
  // The wait and read of an enqueued pass's totals (nb histogram counters); with `expect` other
  // than kNoCheck, a compaction that wrote another count of keys is a logic_error.
  Pass read_pass(Kind kind, unsigned nb, unsigned bits, std::uint64_t expect);
  // The final sorts in local memory, one group per job (prefix jobs of plen bits, or interval
  // jobs); writes out[t] for the jobs' targets only.
  void finish(const cl::Buffer& src, std::uint64_t m, unsigned plen, bool intervals, const std::vector<Job>& jobs,
              std::size_t ntargets, std::vector<Key>& out_batch);
  void wait(cl::Event& e);
  std::shared_ptr<::clstat::detail::BuiltProgram> program(Kind kind, bool compact, bool from_keys, unsigned nbr = 1);

  Queue q_;
  std::shared_ptr<::clstat::detail::ContextImpl> ctx_;
  cl::Buffer x_;
  std::size_t offset_;
  std::uint64_t n_;
  std::uint64_t nan_ = 0;
  Key kmin_ = 0, kmax_ = 0;
  bool first_done_ = false, filtered_ = false, spin_ = false;
  // The bracket pass of spread targets (run_filter_multi): the merged brackets, the keys below
  // each and up to its top, the count of each key of the narrow ones (empty for the others:
  // their keys were copied), and the keys it copied.
  struct Brackets {
    bool done = false;
    std::vector<Key> lo, hi;
    std::vector<std::uint64_t> below, upto;
    std::vector<std::vector<std::uint64_t>> counts;
    std::uint64_t written = 0;
  } multi_;
  Pass first_, filter_;
  std::size_t groups_ = 0, filter_groups_ = 0, wg_ = 0, lcap_ = 0, sample2_ = 0, s1_ = 0;
  std::uint64_t cap_ = 0;
  std::size_t items_ = 8;   // loads per thread per step (the tuning entry order.items)
  std::size_t filter_vec_ = 1;    // elements per load of the bracket pass (order.filter_load_bytes)
  std::size_t filter_items_ = 8;  // its loads per thread per step (order.filter_items)
  // The bracket pass as contiguous blocks, one work-item each (select_filter_blocks), this many
  // per compute unit; 0: select_hist's shape (order.filter_blocks_per_cu).
  std::size_t filter_blocks_ = 0;
  std::size_t sample_batch_ = 1;  // select_sample2's loads before counting (SAMPLE_BATCH)
  std::size_t sample2_groups_ = 0;  // select_sample2's groups; 0: the GPU constants
  std::size_t sample2_multi_ = 16;  // the second sample's size for spread targets, in sample2_'s (order.sample2_multi)
  std::size_t planned_passes_ = 2;  // passes enqueued behind a device plan (order.planned_passes)
  bool plan_spread_ = true;  // spread targets' passes planned on the device (order.plan_spread)
  std::vector<Key> jobs_host_;  // staged for non-blocking writes; alive until the pass's read
  std::vector<cl_ulong> spec_host_;  // the sampled brackets' ranks and margins (enqueue_sample)
  // The device-planned selection (run_planned): its sorted ranks and the plan it ended with.
  std::vector<std::uint64_t> plan_ranks_;
  std::vector<cl_ulong> plan_;
  // The plan of spread targets (run_filter_multi): its sorted ranks and the plan it ended with.
  std::vector<std::uint64_t> ivplan_ranks_;
  std::vector<cl_ulong> ivplan_;
};

}  // namespace clstat::order::detail
