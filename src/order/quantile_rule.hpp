// Internal: Hyndman & Fan's nine sample quantile definitions, written as R 4.x's
// quantile.default computes them (stats/R/quantile.R), so the results match R bit for bit.
#pragma once

#include <cstdint>

namespace clstat::order::detail {

/// The two order statistics (1-based, within 1..n) that quantile type `type` at probability p
/// combines, and the weight h of the upper one, as R computes them.
struct QuantileRule {
  std::uint64_t lo, hi;
  double h;
  bool type7;  // type 7 tests index > lo rather than 0 < h < 1
};

/// Throws std::invalid_argument for a type outside 1..9. n >= 1, p in [0, 1].
QuantileRule quantile_rule(int type, double p, std::uint64_t n);

/// Combines the order statistics a = x_(lo), b = x_(hi) as R does: a, b, or (1 - h) a + h b.
double quantile_combine(const QuantileRule& r, double a, double b);

}  // namespace clstat::order::detail
