// Internal: exact selection over data spread across several queues (the members of a
// DeviceGroup). Every radix pass runs on every shard at once, each on its own queue; the host adds
// the shards' digit histograms, which are integer counts, so their sum is exact and does not
// depend on the split, and descends exactly as RadixSelect does on one device; each shard copies
// its own candidates. Once few candidates are left (at most 2^18 keys over all shards), the host
// reads them and selects among them. The answer is the same key as on one device.
//
// With an Exchange (clstat/exchange.hpp) the shards are this process's part of data spread over
// several processes: the histograms, counts and last candidates are also combined across the
// processes, every process takes the same steps, and a failure on any process is raised on all of
// them at the next combination (no process waits for one that has given up).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "clstat/exchange.hpp"
#include "order/radix_select.hpp"

namespace clstat::order::detail {

/// One shard: n elements of x from `offset`, selected on q (whose lease the caller holds).
template <class T>
struct ShardRef {
  Queue q;
  Buffer<T> x;
  std::size_t offset = 0;
  std::uint64_t n = 0;
};

template <class T>
class ShardedSelect final : public Selector<T> {
 public:
  using Key = key_t<T>;
  /// Shards with n = 0 are skipped; at least one must hold data (over all processes, with ex).
  explicit ShardedSelect(const std::vector<ShardRef<T>>& shards, Exchange* ex = nullptr);
  /// One first pass (12-bit histogram, NaN count, key range) on every shard.
  void prepare(const std::vector<std::uint64_t>& hint) override;
  std::uint64_t nan_count() const override { return nan_; }
  std::vector<Key> select(const std::vector<std::uint64_t>& ranks) override;

 private:
  using RS = RadixSelect<T>;
  using Job = typename RS::Job;
  using Pass = typename RS::Pass;
  using Kind = typename RS::Kind;
  struct State {
    std::unique_ptr<RS> sel;
    std::uint64_t n = 0;
    cl::Buffer src;          // what the next pass reads: the input, or candidates
    bool from_keys = false;  // src holds candidate keys
    std::uint64_t m = 0;     // elements in src
    int cand = 0;            // the candidate buffer the next copy goes to
    Pass first;              // this shard's first histogram (prepare)
    Pass last;               // this shard's last histogram
    std::vector<std::uint64_t> count;  // this shard's keys in each current job
  };
  void select_batch(const std::vector<std::uint64_t>& ranks, std::vector<Key>& out);
  // Per-shard counts of `next` jobs, made by RS::refine from `jobs` and a pass of `bits` digits.
  void shard_counts(const std::vector<Job>& jobs, const std::vector<Job>& next, unsigned bits);
  bool host_finish(const std::vector<Job>& jobs, unsigned plen, std::vector<Key>& out);
  // Runs this process's part of a step, keeping its error for agree().
  template <class F>
  void local(F&& f);
  // Sums v over the processes (with an exchange) and raises a failure of any of them.
  void agree(std::vector<std::uint64_t>& v);
  // Every process's bytes in rank order (this one's alone without an exchange), raising failures.
  std::vector<unsigned char> gather(const std::vector<unsigned char>& mine);

  std::vector<State> s_;
  Exchange* ex_ = nullptr;
  std::exception_ptr err_;
  std::uint64_t n_ = 0, nan_ = 0;
  Key kmin_ = 0, kmax_ = 0;
  Pass first_;
};

}  // namespace clstat::order::detail
