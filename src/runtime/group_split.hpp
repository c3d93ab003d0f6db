// Internal: one result split across a device group's members, each writing its share on a
// thread of its own (clstat/group.hpp's point-, row- and grid-split operations).
#pragma once

#include <cstddef>
#include <exception>
#include <thread>
#include <utility>
#include <vector>

#include "clstat/group.hpp"
#include "runtime/host_result.hpp"

namespace clstat::detail {

// Runs part(i, first) for every member i with a non-empty share (share[i] > 0; first: the shares
// before it), each on a thread of its own: members do device work, so each gets a thread whatever
// the host's core count. The first member's exception (in member order) is rethrown once all
// have stopped.
template <class F>
void on_members(const DeviceGroup& g, const std::vector<std::size_t>& share, F&& part) {
  std::vector<std::exception_ptr> error(g.size());
  std::vector<std::thread> threads;
  std::size_t first = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (share[i] > 0)
      threads.emplace_back([&, i, first] {
        try {
          part(i, first);
        } catch (...) {
          error[i] = std::current_exception();
        }
      });
    first += share[i];
  }
  for (auto& t : threads) t.join();
  for (auto& e : error)
    if (e) std::rethrow_exception(e);
}

// Runs into(member, first, count, dst) for every member with a non-empty share of m points, on
// on_members's threads, every member writing its `width` values a point straight into its slice
// of `all` (dst = its first point's).
template <class R, class F>
void split_into(const DeviceGroup& g, std::size_t m, std::size_t width, R* all, F&& into) {
  const std::vector<std::size_t> share = g.split(m);
  on_members(g, share, [&](std::size_t i, std::size_t first) {
    into(g.member(i), first, share[i], all + first * width);
  });
}

// The same into a new result of m * width values.
template <class R, class F>
std::vector<R> split_into(const DeviceGroup& g, std::size_t m, std::size_t width, F&& into) {
  std::vector<R> all = detail::host_result<R>(m * width);
  split_into<R>(g, m, width, all.data(), std::forward<F>(into));
  return all;
}

}  // namespace clstat::detail
