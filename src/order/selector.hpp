// Internal: the selection methods behind clstat::order, one interface.
#pragma once

#include <cstdint>
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
