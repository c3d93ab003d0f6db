// Internal: the starts of FAST-LTS and LMS, the exact fits through p-subsets, drawn on the host
// (Philox, so a seed gives the same starts on every device) or enumerated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "robust/design.hpp"

namespace clstat::robust::detail {

struct Starts {
  std::vector<double> beta;            // count x q, in standardised units
  std::vector<std::uint32_t> subset;   // count x q design rows of the p-subset (before any extension)
  std::vector<char> valid;             // 0: singular and not extended (skipped)
  std::size_t singular = 0;            // singular p-subsets (extended or skipped)
  std::size_t size() const { return valid.size(); }
};

/// `count` random p-subsets of `rows` (design rows), start i drawn from Philox stream
/// (seed, stream, first + i). A singular subset grows by random rows of `rows` until its least
/// squares fit has full rank (robustbase's FAST-LTS) when `extend`, else it is marked invalid.
/// Runs on the host's threads (d is only read), with the same starts on any number of them;
/// O(count q^3).
Starts random_starts(const Design& d, const std::vector<std::uint32_t>& rows, std::size_t count, std::uint64_t seed,
                     std::uint32_t stream, std::uint64_t first, bool extend);

/// Every p-subset of the n rows, in lexicographic order; singular ones are marked invalid.
/// Throws std::invalid_argument when there are more than 2^25 of them.
Starts all_starts(const Design& d, const std::string& op);

/// C(n, k), saturating at 2^63.
std::uint64_t choose(std::uint64_t n, std::uint64_t k);

}  // namespace clstat::robust::detail
