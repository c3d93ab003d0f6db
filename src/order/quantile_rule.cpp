// Hyndman & Fan (1996) sample quantiles, following R 4.2's quantile.default line by line: the
// index arithmetic is done in double in the same order, so the weights (and the results) are the
// same bits. Checked against R's output in tests/data/order/quantile_r.txt.
#include "order/quantile_rule.hpp"

#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

namespace clstat::order::detail {

namespace {
std::uint64_t clamp_rank(double j, std::uint64_t n) {
  // R pads x as c(x[1], x[1], x, x[n], x[n]): ranks below 1 read x_(1), above n read x_(n).
  if (j < 1) return 1;
  if (j > static_cast<double>(n)) return n;
  return static_cast<std::uint64_t>(j);
}
}  // namespace

QuantileRule quantile_rule(int type, double p, std::uint64_t n) {
  if (type < 1 || type > 9)
    throw std::invalid_argument("clstat::order::quantiles: type must be 1..9, got " + std::to_string(type));
  const double dn = static_cast<double>(n);
  if (type == 7) {
    const double index = 1 + (dn - 1) * p;
    const double lo = std::floor(index), hi = std::ceil(index);
    return {clamp_rank(lo, n), clamp_rank(hi, n), index > lo ? index - lo : 0.0, true};
  }
  double j, h;
  if (type <= 3) {
    const double nppm = type == 3 ? dn * p - 0.5 : dn * p;
    j = std::floor(nppm);
    if (type == 1) {
      h = nppm > j ? 1 : 0;
    } else if (type == 2) {
      h = ((nppm > j ? 1 : 0) + 1) / 2.0;
    } else {
      const double r = j - 2 * std::floor(j / 2);  // R's %%: floored, so -1 %% 2 == 1
      h = (nppm != j || r == 1) ? 1 : 0;
    }
  } else {
    double a, b;
    switch (type) {
      case 4: a = 0; b = 1; break;
      case 5: a = b = 0.5; break;
      case 6: a = b = 0; break;
      case 8: a = b = 1.0 / 3; break;
      default: a = b = 3.0 / 8; break;  // 9
    }
    const double fuzz = 4 * DBL_EPSILON;
    const double nppm = a + p * (dn + 1 - a - b);
    j = std::floor(nppm + fuzz);
    h = nppm - j;
    if (std::fabs(h) < fuzz) h = 0;
  }
  return {clamp_rank(j, n), clamp_rank(j + 1, n), h, false};
}

double quantile_combine(const QuantileRule& r, double a, double b) {
  if (r.type7) {
    // qs <- x[lo]; i <- index > lo & x[hi] != qs; qs[i] <- (1 - h) * qs[i] + h * x[hi[i]]
    if (r.h > 0 && b != a) return (1 - r.h) * a + r.h * b;
    return a;
  }
  if (r.h == 1) return b;
  if (r.h > 0 && r.h < 1 && a != b) return (1 - r.h) * a + r.h * b;
  return a;
}

}  // namespace clstat::order::detail
