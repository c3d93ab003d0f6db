// examples/async_queues.cpp: one Context shared by several host threads and queues. Four KDE
// calls are enqueued at once with kde_async, each on its own queue, while a second thread runs
// blocking calls on the same Context; the results equal the blocking form's.
#include <clstat/clstat.hpp>

#include <cstdio>
#include <random>
#include <thread>
#include <vector>

int main() {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> z(0, 1);
  std::vector<std::vector<double>> sets(4, std::vector<double>(10000));
  for (auto& s : sets)
    for (double& v : s) v = z(rng);
  std::vector<double> y(512);
  for (std::size_t j = 0; j < y.size(); ++j) y[j] = -4 + 8.0 * j / y.size();

  clstat::Context ctx;  // 4 queues by default
  clstat::KdeOptions o;
  o.bandwidth = clstat::Bandwidth::scalar(0.3);

  // Another thread shares the Context: operations lease a queue each, so nothing is shared
  // between them but the compiled programs.
  double median = 0;
  std::thread other([&] { median = clstat::order::median(ctx, sets[0].data(), sets[0].size()); });

  std::vector<clstat::Future<std::vector<double>>> pending;
  for (std::size_t i = 0; i < sets.size(); ++i)
    pending.push_back(clstat::kde_async(ctx.queue(i % ctx.queue_count()), sets[i].data(), sets[i].size(), 1,
                                        y.data(), y.size(), o));
  bool same = true;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::vector<double> f = pending[i].get();  // waits for that queue's work only
    same = same && f == clstat::kde(ctx, sets[i].data(), sets[i].size(), 1, y.data(), y.size(), o);
  }
  other.join();
  std::printf("%zu async KDE calls on %zu queues of %s: %s the blocking results; median of set 0 = %.4f\n",
              sets.size(), ctx.queue_count(), ctx.info().name.c_str(), same ? "equal to" : "DIFFERENT from", median);
  return same ? 0 : 1;
}
