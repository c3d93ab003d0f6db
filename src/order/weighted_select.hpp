// Internal: exact weighted selection on one queue (kernels and algorithm in
// cl/order/weighted_select.cl). The smallest key whose cumulative weight reaches each target,
// the weights summed as integers: each weight w becomes q = floor(w 2^s), s = 78 - ilogb(m) with m
// the largest weight of the first sample (or, where none is positive or a weight would not fit,
// 94 - ilogb(the largest weight)), and every sum of fewer than 2^32 of them is exact in 128 bits,
// so the answer does not depend on the device or on how the work is split.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clstat/order.hpp"
#include "order/keys.hpp"

namespace clstat::order::detail {

__extension__ typedef unsigned __int128 u128;

template <class T>
struct WeightedOutcome {
  bool nan_result = false;          // NanPolicy::propagate met a NaN, or omit left no value
  std::vector<key_t<T>> keys;       // the answer of each target
};

/// Targets from the exact total: given Q (the sum of every non-NaN value's q, > 0) and s, the
/// integer targets in 1..Q, each asking for the smallest key v with C(v) >= target.
using WeightedTargets = std::function<std::vector<u128>(u128 total, int s)>;

/// Runs the selection over n values of x and weights w from element `offset` on q, whose lease
/// the caller holds. `approx` gives each target's probability (target / Q, roughly) before Q is
/// known, for the first brackets. Raises std::invalid_argument for a negative, NaN or infinite
/// weight, for weights (of the non-NaN values) that sum to zero, for n >= 2^32, and by the NaN
/// policy; clstat::Error for OpenCL failures.
template <class T>
WeightedOutcome<T> weighted_select(const Queue& q, const Buffer<T>& x, const Buffer<double>& w, std::size_t offset,
                                   std::uint64_t n, const std::vector<double>& approx, const WeightedTargets& targets,
                                   const Options& o, const std::string& op);

}  // namespace clstat::order::detail
