// Internal: agree_before (clstat/exchange.hpp) carrying doubles, for the split calls that gather
// every process's values (shards, partial sums).
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "clstat/exchange.hpp"

namespace clstat::detail {

/// agree_before with this process's n values x (none when err is set) as its bytes: every
/// process's values concatenated in rank order, the same on every process. Throws as
/// agree_before. O(total values).
std::vector<double> gather_values(Exchange& ex, const std::string& op, std::exception_ptr err, std::uint64_t args,
                                  const double* x, std::size_t n);

}  // namespace clstat::detail
