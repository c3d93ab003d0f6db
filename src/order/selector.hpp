// Internal: the selection methods behind clstat::order, one interface.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <memory>
#include <vector>

#include "clstat/order.hpp"
#include "order/keys.hpp"

namespace clstat::order::detail {

/// One selection problem: n elements of x from `offset`. prepare() does the first read of the
/// data, told the ranks that will probably be asked for (those of a NaN-free input); the NaN
/// count is known after it. select() returns the keys of 0-based ranks (< n) in key order, NaNs
/// last; it may ask for other ranks than the hint (the NaN policy can move them).
template <class T>
class Selector {
 public:
  virtual ~Selector() = default;
  virtual void prepare(const std::vector<std::uint64_t>& hint) = 0;
  virtual std::uint64_t nan_count() const = 0;
  virtual std::vector<key_t<T>> select(const std::vector<std::uint64_t>& ranks) = 0;
};

/// Targets per batch of radix passes (the kernels' local job table holds 64 prefixes).
constexpr std::size_t kMaxJobs = 64;

/// The least b with 2^b >= v.
inline unsigned ceil_log2(std::size_t v) {
  unsigned b = 0;
  while ((std::size_t(1) << b) < v) ++b;
  return b;
}

/// Answers ranks (0-based, < n, else std::out_of_range naming `op`) in batches of at most `batch`
/// ascending ranks: first(sorted ranks, keys) may answer all at once (returns true), else
/// each(batch ranks, keys) answers a batch. Sorted ranks keep a batch's targets close, so they
/// share more of their passes. Returns the keys in the callers' order.
template <class Key, class First, class Each>
std::vector<Key> select_sorted(const std::vector<std::uint64_t>& ranks, std::uint64_t n, std::size_t batch,
                               const char* op, First&& first, Each&& each) {
  for (std::uint64_t r : ranks)
    if (r >= n) throw std::out_of_range(std::string(op) + ": rank " + std::to_string(r) + " >= n = " + std::to_string(n));
  std::vector<std::size_t> order(ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ranks[a] < ranks[b]; });
  std::vector<std::uint64_t> sorted(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) sorted[i] = ranks[order[i]];
  std::vector<Key> so(ranks.size()), out(ranks.size());
  if (!first(sorted, so))
    for (std::size_t b0 = 0; b0 < sorted.size(); b0 += batch) {
      const std::size_t b1 = std::min(sorted.size(), b0 + batch);
      const std::vector<std::uint64_t> br(sorted.begin() + static_cast<std::ptrdiff_t>(b0),
                                          sorted.begin() + static_cast<std::ptrdiff_t>(b1));
      std::vector<Key> bo(br.size());
      each(br, bo);
      std::copy(bo.begin(), bo.end(), so.begin() + static_cast<std::ptrdiff_t>(b0));
    }
  for (std::size_t i = 0; i < ranks.size(); ++i) out[order[i]] = so[i];
  return out;
}

template <class T>
std::unique_ptr<Selector<T>> make_radix_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                 std::uint64_t n);
template <class T>
std::unique_ptr<Selector<T>> make_cutting_plane_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                         std::uint64_t n);
template <class T>
std::unique_ptr<Selector<T>> make_sort_selector(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                std::uint64_t n);

}  // namespace clstat::order::detail
