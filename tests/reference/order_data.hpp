// The selection test and benchmark inputs: Beliakov (2011) sec. V's nine distributions, plus
// sorted, reverse-sorted, all-equal and huge-outlier inputs (issue 7).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

namespace clstat_ref {

inline const std::vector<std::string>& order_distributions() {
  static const std::vector<std::string> d{"uniform",  "normal",   "halfnormal", "beta25",   "mixture1",
                                          "mixture2", "mixture3", "mixture4",   "mixture5", "sorted",
                                          "reverse",  "equal",    "outliers"};
  return d;
}

/// n values of distribution `name` (see order_distributions), from seed. Mixtures as the paper:
/// 1: 2/3 N(0,1), 1/3 N(100,1); 2: n/2 + 1 N(0,1), the rest N(100,1); 3: 90% |N(0,1)|, the
/// rest 10; 4: 2/3 |N(0,1)|, 1/3 N(100,1); 5: n/2 + 1 |N(0,1)|, the rest N(100,1). "outliers" is
/// N(0,1) with 1% of the values near +-1e9 (the paper's large components); "sorted" is
/// increasing values in (0, ~1], "reverse" the same decreasing. Integer T rounds
/// 1000 x the value, saturated.
template <class T>
std::vector<T> order_data(const std::string& name, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> N(0, 1);
  std::uniform_real_distribution<double> U(0, 1);
  std::gamma_distribution<double> ga(2, 1), gb(5, 1);
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    double x;
    if (name == "uniform") x = U(g);
    else if (name == "normal") x = N(g);
    else if (name == "halfnormal") x = std::fabs(N(g));
    else if (name == "beta25") { const double a = ga(g); x = a / (a + gb(g)); }
    else if (name == "mixture1") x = i % 3 == 2 ? 100 + N(g) : N(g);
    else if (name == "mixture2") x = i <= n / 2 ? N(g) : 100 + N(g);
    else if (name == "mixture3") x = i % 10 == 9 ? 10.0 : std::fabs(N(g));
    else if (name == "mixture4") x = i % 3 == 2 ? 100 + N(g) : std::fabs(N(g));
    else if (name == "mixture5") x = i <= n / 2 ? std::fabs(N(g)) : 100 + N(g);
    else if (name == "sorted" || name == "reverse") x = -std::log1p(-U(g));  // Exp(1) spacings
    else if (name == "equal") x = 2.5;
    else if (name == "outliers") x = i % 100 == 7 ? (i % 200 == 7 ? 1e9 : -1e9) * (1 + U(g)) : N(g);
    else throw std::invalid_argument("order_data: unknown distribution " + name);
    v[i] = x;
  }
  // Sorted: the cumulative sums of Exp(1) spacings over n, i.e. sorted uniforms in O(n).
  if (name == "sorted" || name == "reverse") {
    double c = 0;
    for (auto& e : v) e = (c += e) / static_cast<double>(n);
    if (name == "reverse") std::reverse(v.begin(), v.end());
  }
  // Mixtures built by index are shuffled so no method profits from the layout.
  if (name.rfind("mixture", 0) == 0) std::shuffle(v.begin(), v.end(), g);
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      const double lo = static_cast<double>(std::numeric_limits<T>::min()), hi = -lo;  // saturate
      out[i] = static_cast<T>(std::llround(std::min(std::max(1000 * v[i], lo), hi - 1)));
    }
    else out[i] = static_cast<T>(v[i]);
  }
  return out;
}

}  // namespace clstat_ref
