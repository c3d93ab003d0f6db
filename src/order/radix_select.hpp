// Internal: the radix selection engine behind clstat::order (kernels in cl/order/radix_select.cl).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "order/keys.hpp"
#include "order/selector.hpp"
#include "runtime/impl.hpp"

namespace clstat::order::detail {

/// What a selection did, for the benchmark's and the tests' accounting.
struct SelectStats {
  unsigned passes = 0;          ///< histogram passes (each reads the current candidates once)
  unsigned full_passes = 0;     ///< of which over the whole input
  unsigned host_syncs = 0;      ///< read-backs that the host waited for
  std::uint64_t keys_read = 0;  ///< elements read by all passes
};

/// Selection of order statistics of n elements of x (starting at element `offset`), by MSD radix
/// passes over the order-preserving keys. The constructor runs the first pass (a histogram of the
/// top digit, the NaN count and the key range); select() then answers any set of ranks from it.
/// Enqueues on q and waits for each pass's histogram (a few host round trips per call).
/// Memory: two candidate buffers of at most max(2^16, n/8) keys, capped at 2^26, plus
/// O(groups * 4096) counters. Work: a few reads of the data (see radix_select.cl).
template <class T>
class RadixSelect final : public Selector<T> {
 public:
  using Key = key_t<T>;
  RadixSelect(const Queue& q, const Buffer<T>& x, std::size_t offset, std::uint64_t n);

  std::uint64_t nan_count() const override { return nan_; }
  Key min_key() const { return kmin_; }
  Key max_key() const { return kmax_; }

  /// Keys of the elements of 0-based ranks `ranks` (each < n) in key order (NaNs last).
  std::vector<Key> select(const std::vector<std::uint64_t>& ranks) override;

  const SelectStats& stats() const { return stats_; }

 private:
  struct Job {
    Key prefix;
    std::uint64_t count;
    std::vector<std::size_t> targets;      // indices into the batch's ranks
    std::vector<std::uint64_t> rank;       // their ranks within this job
  };
  struct Pass {
    std::vector<std::uint64_t> totals;  // (jobs << bits) counters
    unsigned bits;
  };
  void select_batch(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out);
  Pass run_pass(bool from_keys, const cl::Buffer& src, std::uint64_t m, unsigned plen, unsigned bits,
                const std::vector<Job>& jobs, bool compact, const cl::Buffer* dest, bool first);
  void finish(const cl::Buffer& src, std::uint64_t m, unsigned plen, const std::vector<Job>& jobs,
              std::size_t ntargets, std::vector<Key>& out_batch);

  std::shared_ptr<::clstat::detail::BuiltProgram> program(bool first, bool compact, bool from_keys);

  Queue q_;
  std::shared_ptr<::clstat::detail::ContextImpl> ctx_;
  cl::Buffer x_;
  std::size_t offset_;
  std::uint64_t n_;
  std::uint64_t nan_ = 0;
  Key kmin_ = 0, kmax_ = 0;
  Pass first_;
  unsigned first_bits_ = 0;
  std::size_t groups_ = 0, wg_ = 0, lcap_ = 0;
  std::uint64_t cap_ = 0;
  SelectStats stats_;
  std::vector<Key> jobs_host_;  // staged for non-blocking writes; alive until the pass's read
};

}  // namespace clstat::order::detail
