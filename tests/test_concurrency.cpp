// One Context shared by many host threads, and the asynchronous forms on several queues: every
// result must be bit-identical to the same call made alone (runtime.hpp's thread-safety contract).
#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "support.hpp"

using namespace clstat;

namespace {

// The inputs of the mix: small, so 8 threads x 20 rounds run in seconds on a 2-core CPU device.
struct Inputs {
  std::vector<double> x2, y2, x1, big, reg_x, reg_y, stable_x, fit_x;
  std::vector<float> x2f, y2f;
  Inputs(std::uint64_t seed) {
    x2 = clstat_test::normal<double>(2 * 400, seed);
    y2 = clstat_test::normal<double>(2 * 150, seed + 1);
    x2f.assign(x2.begin(), x2.end());
    y2f.assign(y2.begin(), y2.end());
    x1 = clstat_test::normal<double>(300, seed + 2, 1, 2);
    big = clstat_test::normal<double>(200000, seed + 3);
    const auto e = clstat_test::normal<double>(200, seed + 4);
    reg_x = clstat_test::normal<double>(200, seed + 5);
    for (std::size_t i = 0; i < 200; ++i) reg_y.push_back(1 + 2 * reg_x[i] + (i % 7 == 0 ? 30 : 0.1 * e[i]));
    stable_x = clstat_test::normal<double>(64, seed + 6, 0, 5);
    fit_x = stable::sample(clstat_test::ctx(), 300, stable::Params{1.6, 0.3, 1, 0, stable::Param::S0}, seed + 7);
  }
};

// One result as bytes, so "the same" means the same bits.
using Bits = std::vector<unsigned char>;
template <class T>
Bits bits_of(const std::vector<T>& v) {
  Bits b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
Bits bits_of(double v) { return bits_of(std::vector<double>{v}); }

constexpr std::size_t kOps = 10;
const char* const kNames[kOps] = {"kde f64", "kde f32", "median", "quantiles", "plugin",
                                  "lscv_h", "stable::pdf", "stable::fit", "lts", "sum"};

// Operation i of the mix, plain form, on ctx.
Bits run_plain(const Context& ctx, const Inputs& in, std::size_t i) {
  KdeOptions ko;
  ko.bandwidth = Bandwidth::scalar(0.4);
  switch (i) {
    case 0: return bits_of(kde(ctx, in.x2.data(), 400, 2, in.y2.data(), 150, ko));
    case 1: {
      ko.precision = Precision::float32;
      return bits_of(kde(ctx, in.x2.data(), 400, 2, in.y2.data(), 150, ko));
    }
    case 2: return bits_of(order::median(ctx, in.big.data(), in.big.size()));
    case 3: return bits_of(order::quantiles(ctx, in.big.data(), in.big.size(), {0.01, 0.25, 0.5, 0.9}));
    case 4: return bits_of(bandwidth::plugin(ctx, in.x1.data(), in.x1.size(), 1));
    case 5: return bits_of(bandwidth::lscv_h(ctx, in.x1.data(), 150, 2).H);
    case 6: return bits_of(stable::pdf(ctx, in.stable_x.data(), in.stable_x.size(), {1.3, 0.5, 2, 1, stable::Param::S0}));
    case 7: {
      stable::FitOptions fo;
      fo.tol = 1e-4;
      const auto f = stable::fit(ctx, in.fit_x.data(), in.fit_x.size(), fo);
      return bits_of(std::vector<double>{f.params.alpha, f.params.beta, f.params.scale, f.params.loc, f.loglik});
    }
    case 8: {
      robust::LtsOptions o;
      o.seed = 7;
      return bits_of(robust::lts(ctx, in.reg_x.data(), 200, 1, in.reg_y.data(), o).coefficients);
    }
    default: return bits_of(sum(ctx, in.big.data(), in.big.size()));
  }
}

// Operation i of the mix, asynchronous form, on q after `wait`.
Future<Bits> run_async(const Queue& q, const Inputs& in, std::size_t i, const std::vector<Event>& wait) {
  auto as = [](auto f, auto conv) {
    return Future<Bits>(f.event(), [f, conv]() mutable { return conv(f.get()); });
  };
  auto vec = [](const auto& v) { return bits_of(v); };
  auto one = [](double v) { return bits_of(v); };
  KdeOptions ko;
  ko.bandwidth = Bandwidth::scalar(0.4);
  switch (i) {
    case 0: return as(kde_async(q, in.x2.data(), 400, 2, in.y2.data(), 150, ko, wait), vec);
    case 1: {
      ko.precision = Precision::float32;
      return as(kde_async(q, in.x2.data(), 400, 2, in.y2.data(), 150, ko, wait), vec);
    }
    case 2:
    case 3:
    case 9: {
      // Device-buffer forms: the upload goes first on the same queue, so the wait list is its event.
      Buffer<double> b(q.context(), in.big.size());
      const Event up = b.raw().write_async(q, in.big.data(), in.big.size() * sizeof(double), 0, wait);
      if (i == 2) return as(order::median_async(q, b, 0, in.big.size(), {}, {up}), one);
      if (i == 3) return as(order::quantiles_async(q, b, 0, in.big.size(), {0.01, 0.25, 0.5, 0.9}, 7, {}, {up}), vec);
      return as(sum_async(q, b, 0, in.big.size(), {up}), one);
    }
    case 4: return as(bandwidth::plugin_async(q, in.x1.data(), in.x1.size(), 1, {}, wait), vec);
    case 5:
      return as(bandwidth::lscv_h_async(q, in.x1.data(), 150, 2, {}, wait),
                [](const bandwidth::LscvResult& r) { return bits_of(r.H); });
    case 6:
      return as(stable::evaluate_async(q, stable::fn_pdf, in.stable_x.data(), in.stable_x.size(),
                                       {1.3, 0.5, 2, 1, stable::Param::S0}, false, 1e-13, wait),
                [](const stable::Values& v) { return bits_of(v.pdf); });
    case 7: {
      stable::FitOptions fo;
      fo.tol = 1e-4;
      return as(stable::fit_async(q, in.fit_x.data(), in.fit_x.size(), fo, wait), [](const stable::FitResult& f) {
        return bits_of(std::vector<double>{f.params.alpha, f.params.beta, f.params.scale, f.params.loc, f.loglik});
      });
    }
    default: {
      robust::LtsOptions o;
      o.seed = 7;
      return as(robust::lts_async(q, in.reg_x.data(), 200, 1, in.reg_y.data(), o, wait),
                [](const robust::LtsFit& f) { return bits_of(f.coefficients); });
    }
  }
}

}  // namespace

TEST_CASE("concurrency.shared_context_many_threads") {
  if (!clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const Inputs in(seed);
  const Context shared = clstat_test::fresh_ctx();
  std::array<Bits, kOps> alone;
  for (std::size_t i = 0; i < kOps; ++i) alone[i] = run_plain(shared, in, i);

  constexpr std::size_t kThreads = 8, kRounds = 20;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      try {
        for (std::size_t r = 0; r < kRounds; ++r) {
          const std::size_t i = (t + r) % kOps;
          if (run_plain(shared, in, i) != alone[i]) {
            failures[t] = std::string(kNames[i]) + " differs in round " + std::to_string(r);
            return;
          }
        }
      } catch (const std::exception& e) {
        failures[t] = e.what();
      }
    });
  for (auto& th : pool) th.join();
  for (std::size_t t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == "");
  }
}

TEST_CASE("concurrency.async_forms_on_four_queues") {
  if (!clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const Inputs in(seed);
  const Context c = clstat_test::fresh_ctx();
  std::array<Bits, kOps> alone;
  for (std::size_t i = 0; i < kOps; ++i) alone[i] = run_plain(c, in, i);
  // Every operation twice, round-robin over four queues, all in flight before the first get();
  // the second of each pair waits for the first's event (a wait list across queues).
  std::vector<Future<Bits>> futures;
  for (std::size_t rep = 0; rep < 2; ++rep)
    for (std::size_t i = 0; i < kOps; ++i) {
      const std::size_t k = rep * kOps + i;
      std::vector<Event> wait;
      if (rep == 1) wait.push_back(futures[i].event());
      futures.push_back(run_async(c.queue(k % 4), in, i, wait));
    }
  for (std::size_t k = 0; k < futures.size(); ++k) {
    INFO(kNames[k % kOps] << " on queue " << k % 4);
    CHECK(futures[k].get() == alone[k % kOps]);
  }
}

TEST_CASE("concurrency.future_shared_between_threads") {
  const Context c = clstat_test::fresh_ctx();
  const auto x = clstat_test::normal<float>(100000, 3);
  Buffer<float> b(c, x.data(), x.size());
  Future<float> f = sum_async(c.queue(1), b, 0, x.size());
  std::vector<float> got(4);
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < 4; ++t) pool.emplace_back([&, t] { got[t] = f.get(); });
  for (auto& th : pool) th.join();
  const float want = sum(c, x.data(), x.size());
  for (float g : got) CHECK(std::memcmp(&g, &want, sizeof g) == 0);
}

TEST_CASE("concurrency.async_error_reaches_the_future") {
  // The NaN is found by the selection's first pass, inside the task: get() rethrows the
  // operation's own exception, the event reports a failure, and the queue is free again.
  const Context c = clstat_test::fresh_ctx();
  std::vector<float> x(5000, 1.0f);
  x[1234] = std::nanf("");
  Buffer<float> b(c, x.data(), x.size());
  order::Options o;
  o.nan = order::NanPolicy::raise;
  auto f = order::median_async(c.queue(2), b, 0, x.size(), o);
  CHECK_THROWS_WITH_AS(f.get(), doctest::Contains("NaN"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(f.get(), doctest::Contains("NaN"), std::invalid_argument);  // every time
  CHECK_THROWS_AS(f.event().wait(), Error);
  o.nan = order::NanPolicy::omit;
  CHECK(order::median_async(c.queue(2), b, 0, x.size(), o).get() == 1.0);
}
