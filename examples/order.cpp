// examples/order.cpp: exact order statistics on the device: the median, the k-th smallest, R's
// type-7 quantiles and the top 5, each checked against std::nth_element.
#include <clstat/clstat.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(11);
  std::exponential_distribution<float> e(1.0f);
  std::vector<float> x(1 << 20);
  for (float& v : x) v = e(rng);

  clstat::Context ctx;
  namespace ord = clstat::order;
  const double median = ord::median(ctx, x.data(), x.size());
  const float k1000 = ord::kth_smallest(ctx, x.data(), x.size(), 1000);  // 1-based k
  const std::vector<double> q = ord::quantiles(ctx, x.data(), x.size(), {0.1, 0.9, 0.99});
  const ord::TopK<float> top = ord::top_k(ctx, x.data(), x.size(), 5);
  std::printf("n = %zu on %s: median %.6f (ln 2 = 0.693147), 1000th smallest %.8f\n", x.size(),
              ctx.info().name.c_str(), median, k1000);
  std::printf("  quantiles 10%% %.5f, 90%% %.5f, 99%% %.5f; largest %.4f\n", q[0], q[1], q[2], top.values[0]);

  std::vector<float> s = x;
  std::nth_element(s.begin(), s.begin() + 999, s.end());
  const bool ok = s[999] == k1000 && top.values[0] == *std::max_element(x.begin(), x.end());
  return ok ? 0 : 1;
}
