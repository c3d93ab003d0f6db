// Internal: passes over the rows of a fit by fixed blocks on the host's threads. Each block's
// part goes to its own slot and the parts combine in block order, so results do not depend on
// the number of threads.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "runtime/host_parallel.hpp"
#include "runtime/host_result.hpp"

namespace clstat::robust::detail {

/// Rows a block takes (as the design's).
constexpr std::size_t kRowBlock = 65536;

/// The number of blocks of n rows.
inline std::size_t row_blocks(std::size_t n) { return (n + kRowBlock - 1) / kRowBlock; }

/// body(b, first, last) for every block b of n rows [first, last), on the host's threads.
template <class F>
void for_row_blocks(std::size_t n, F&& body) {
  ::clstat::detail::parallel_tasks(row_blocks(n), std::thread::hardware_concurrency(), [&](std::size_t b) {
    body(b, b * kRowBlock, std::min(n, (b + 1) * kRowBlock));
  });
}

/// The sum over rows i < n of term(acc, i), which adds row i's part to acc (a vector of len,
/// zero at each block's start): each block's sum in its own slot, the blocks' sums added in block
/// order. O(n) calls of term.
template <class F>
Eigen::VectorXd sum_rows(std::size_t n, Eigen::Index len, F&& term) {
  std::vector<Eigen::VectorXd> part(row_blocks(n));
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    Eigen::VectorXd acc = Eigen::VectorXd::Zero(len);
    for (std::size_t i = first; i < last; ++i) term(acc, i);
    part[b] = std::move(acc);
  });
  Eigen::VectorXd t = Eigen::VectorXd::Zero(len);
  for (const Eigen::VectorXd& v : part) t += v;
  return t;
}

/// f(i) for every row i < n into a new array.
template <class F>
::clstat::detail::HostArray<double> each_row(std::size_t n, F&& f) {
  auto v = ::clstat::detail::host_array<double>(n);
  for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) v[i] = f(i);
  });
  return v;
}

/// The rows i < n where keep(i), in row order (each block counts its rows, then writes them at
/// its offset).
template <class F>
std::vector<std::size_t> rows_where(std::size_t n, F&& keep) {
  const std::size_t blocks = row_blocks(n);
  std::vector<std::size_t> count(blocks, 0), at(blocks + 1, 0);
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    std::size_t c = 0;  // in a register: counting into count[b] shared cache lines between threads
    for (std::size_t i = first; i < last; ++i) c += keep(i) ? 1 : 0;
    count[b] = c;
  });
  for (std::size_t b = 0; b < blocks; ++b) at[b + 1] = at[b] + count[b];
  std::vector<std::size_t> idx(at[blocks]);
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    std::size_t o = at[b];
    for (std::size_t i = first; i < last; ++i)
      if (keep(i)) idx[o++] = i;
  });
  return idx;
}

}  // namespace clstat::robust::detail
