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
#include <thread>
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
/// A bijection of [0, n): an odd-multiplier affine map of [0, 2^k) walked until it lands below n.
/// It places the mixtures' components at scattered positions with exact counts, without a shuffle.
inline std::size_t scatter_index(std::size_t i, std::size_t n) {
  std::size_t m = 1;
  while (m < n) m <<= 1;
  std::uint64_t j = i;
  do j = (j * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) & (m - 1);
  while (j >= n);
  return static_cast<std::size_t>(j);
}

template <class T>
std::vector<T> order_data(const std::string& name, std::size_t n, std::uint64_t seed) {
  const auto& known = order_distributions();
  const auto it = std::find(known.begin(), known.end(), name);
  if (it == known.end()) throw std::invalid_argument("order_data: unknown distribution " + name);
  // The index in order_distributions(): the per-element switch compares no strings.
  const int id = static_cast<int>(it - known.begin());
  std::vector<double> v(n);
  // Chunks of 2^20 values, each from its own generator, filled by as many threads as the
  // machine has (the benchmark's 2^27 values in a second or two).
  const std::size_t chunk = std::size_t(1) << 20, chunks = (n + chunk - 1) / chunk;
  auto fill = [&](std::size_t c) {
    std::mt19937_64 g(seed ^ (0xD1B54A32D192ED03ull * (c + 1)));
    std::normal_distribution<double> N(0, 1);
    std::uniform_real_distribution<double> U(0, 1);
    std::gamma_distribution<double> ga(2, 1), gb(5, 1);
    for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) {
      const std::size_t s = id >= 4 && id <= 8 ? scatter_index(i, n) : i;  // mixtures
      double x;
      switch (id) {
        case 0: x = U(g); break;                                              // uniform
        case 1: x = N(g); break;                                              // normal
        case 2: x = std::fabs(N(g)); break;                                   // halfnormal
        case 3: { const double a = ga(g); x = a / (a + gb(g)); break; }       // beta(2, 5)
        case 4: x = s % 3 == 2 ? 100 + N(g) : N(g); break;                    // mixture1
        case 5: x = s <= n / 2 ? N(g) : 100 + N(g); break;                    // mixture2
        case 6: x = s % 10 == 9 ? 10.0 : std::fabs(N(g)); break;              // mixture3
        case 7: x = s % 3 == 2 ? 100 + N(g) : std::fabs(N(g)); break;         // mixture4
        case 8: x = s <= n / 2 ? std::fabs(N(g)) : 100 + N(g); break;         // mixture5
        case 9: case 10: x = -std::log1p(-U(g)); break;                       // Exp(1) spacings
        case 11: x = 2.5; break;                                              // equal
        default: x = i % 100 == 7 ? (i % 200 == 7 ? 1e9 : -1e9) * (1 + U(g)) : N(g);  // outliers
      }
      v[i] = x;
    }
  };
  const std::size_t threads = std::min<std::size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t c = t; c < chunks; c += threads) fill(c);
    });
  for (auto& th : pool) th.join();
  // Sorted: the cumulative sums of Exp(1) spacings over n, i.e. sorted uniforms in O(n).
  if (id == 9 || id == 10) {
    double c = 0;
    for (auto& e : v) e = (c += e) / static_cast<double>(n);
    if (id == 10) std::reverse(v.begin(), v.end());
  }
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
