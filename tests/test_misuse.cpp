// Library misuse, for every public function: null pointers, empty input, sizes whose byte count
// wraps, and objects that are not real ones. Each must throw the documented exception type (never
// crash, read out of bounds or return quietly). Sizes are chosen so that nothing is read or
// allocated before the check.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

namespace {

constexpr std::size_t kHuge = (std::size_t(1) << 61) + 1;  // times 8 bytes wraps

struct Case {
  const char* what;
  std::function<void()> call;
};

// Runs every case; each must throw E (or a subclass).
template <class E>
void each_throws(const std::vector<Case>& cases) {
  for (const auto& c : cases) {
    INFO(c.what);
    CHECK_THROWS_AS(c.call(), E);
  }
}

}  // namespace

TEST_CASE("misuse.null_empty_and_huge_inputs") {
  const std::vector<double> x(64, 1.0), y(8, 0.5);
  const double* null = nullptr;
  const Context& c = ctx();
  const bool fp64 = clstat_test::has_fp64();
  std::vector<Case> cases = {
      // primitives
      {"sum n = 0", [&] { sum(c, x.data(), 0); }},
      {"sum null", [&] { sum<double>(c, null, 5); }},
      {"moments null", [&] { moments<double>(c, null, 5); }},
      {"extrema n = 0", [&] { extrema(c, x.data(), 0); }},
      {"count_if null", [&] { count_if<double>(c, null, 5, Predicate::is_nan); }},
      {"pairwise_sum null", [&] { pairwise_sum<double>(c, null, 5, 1, PairFunction::gaussian, {1.0}); }},
      {"pairwise_sum n = 1", [&] { pairwise_sum(c, x.data(), 1, 1, PairFunction::gaussian, {1.0}); }},
      {"pairwise_points m = 0", [&] { pairwise_points_sum(c, x.data(), 0, x.data(), 4, 1, PairFunction::gaussian, {1.0}); }},
      // kde
      {"kde null samples", [&] { kde(c, null, 4, 1, y.data(), 2); }},
      {"kde null points", [&] { kde(c, x.data(), 4, 1, null, 2); }},
      {"kde n = 0", [&] { kde(c, x.data(), 0, 1, y.data(), 2); }},
      {"kde n * d wraps", [&] { kde(c, x.data(), kHuge, 8, y.data(), 1); }},
      {"kde_at_samples null", [&] { kde_at_samples(c, null, 4, 1); }},
      {"kde_async null", [&] { kde_async(c.queue(0), null, 4, 1, y.data(), 2); }},
      {"evaluate_grid null out", [&] {
         GridSpec g{{0.0}, {1.0}, {4}};
         evaluate_grid(c, x.data(), 4, 1, g, static_cast<double*>(nullptr));
       }},
      // order
      {"median null", [&] { order::median<double>(c, null, 5); }},
      {"median n = 0", [&] { order::median(c, x.data(), 0); }},
      {"kth k = 0", [&] { order::kth_smallest(c, x.data(), 5, std::uint64_t(0)); }},
      {"quantiles null", [&] { order::quantiles<double>(c, null, 5, {0.5}); }},
      {"top_k k > n", [&] { order::top_k(c, x.data(), 5, 6); }},
      {"median_rows null", [&] { order::median_rows<double>(c, null, 2, 2); }},
      {"median_rows rows * cols wraps", [&] { order::median_rows(c, x.data(), kHuge, 8); }},
      {"quantiles_rows 0 rows", [&] { order::quantiles_rows(c, x.data(), 0, 4, {0.5}); }},
      {"top_k_rows null", [&] { order::top_k_rows<double>(c, null, 2, 2, 1); }},
      {"top_k_rows k > cols", [&] { order::top_k_rows(c, x.data(), 2, 2, 3); }},
      // bandwidth (host rules need no device)
      {"normal_scale null", [&] { bandwidth::normal_scale(null, 5, 1); }},
      {"scott n = 0", [&] { bandwidth::scott(x.data(), 0, 1); }},
      {"silverman d = 0", [&] { bandwidth::silverman_rot(x.data(), 5, 0); }},
      // robust
      {"lts null x", [&] { robust::lts(c, null, 20, 1, y.data()); }},
      {"lts null y", [&] { robust::lts(c, x.data(), 20, 1, null); }},
      {"lms n = 0", [&] { robust::lms(c, x.data(), 0, 1, y.data()); }},
      {"lts_coverage alpha 0.2", [&] { robust::lts_coverage(0.2, 20, 2); }},
      // stable
      {"stable::check alpha 0", [&] { stable::check({0.0, 0.0}); }},
      {"stable::check beta 2", [&] { stable::check({1.5, 2.0}); }},
      {"stable::pdf null", [&] { stable::pdf(c, null, 5, {1.5, 0.0}); }},
      {"stable::quantile null", [&] { stable::quantile(c, null, 5, {1.5, 0.0}); }},
      {"stable::fit n = 5", [&] { stable::fit(c, x.data(), 5); }},
      {"stable::fit null", [&] { stable::fit(c, null, 50); }},
      {"stable::mcculloch alpha 0.1", [&] { stable::mcculloch_functions(0.1, 0.0); }},
  };
  if (fp64) {
    cases.push_back({"plugin null", [&] { bandwidth::plugin(c, null, 5, 1); }});
    cases.push_back({"lscv_h n = 0", [&] { bandwidth::lscv_h(c, x.data(), 0, 1); }});
    cases.push_back({"lscv_H null", [&] { bandwidth::lscv_H(c, null, 5, 2); }});
    cases.push_back({"lscv_objective bad H", [&] { bandwidth::lscv_objective(c, x.data(), 10, 1, {-1.0}); }});
    cases.push_back({"LscvObjective null", [&] { bandwidth::LscvObjective f(c, null, 5, 1); }});
    cases.push_back({"plugin_async null", [&] { bandwidth::plugin_async(c.queue(0), null, 5, 1); }});
    cases.push_back({"lts_async null", [&] { robust::lts_async(c.queue(0), null, 20, 1, y.data()); }});
    cases.push_back({"fit_async null", [&] { stable::fit_async(c.queue(0), null, 50); }});
    cases.push_back({"quantile_async null", [&] { stable::quantile_async(c.queue(0), null, 5, {1.5, 0.0}); }});
    cases.push_back({"evaluate_async null", [&] { stable::evaluate_async(c.queue(0), stable::fn_pdf, null, 5, {1.5, 0.0}); }});
    cases.push_back({"fit_many_async too short", [&] { stable::fit_many_async(c.queue(0), {{1.0, 2.0}}).get(); }});
    cases.push_back({"lms_async null", [&] { robust::lms_async(c.queue(0), x.data(), 20, 1, null); }});
    cases.push_back({"lscv_h_async null", [&] { bandwidth::lscv_h_async(c.queue(0), null, 5, 1); }});
    cases.push_back({"lscv_H_async n = 0", [&] { bandwidth::lscv_H_async(c.queue(0), x.data(), 0, 2); }});
    cases.push_back({"lscv_objective_async null", [&] { bandwidth::lscv_objective_async(c.queue(0), null, 5, 1, {1.0}); }});
  }
  each_throws<std::invalid_argument>(cases);
}

TEST_CASE("misuse.buffers_and_ranges") {
  const Context& c = ctx();
  Buffer<float> b(c, 10);
  std::vector<float> host(10, 1.0f);
  each_throws<std::invalid_argument>({
      {"sum_async past the end", [&] { sum_async(c.queue(0), b, 5, 6).get(); }},
      {"median_async past the end", [&] { order::median_async(c.queue(0), b, 9, 2); }},
      {"quantiles_async offset past the end", [&] { order::quantiles_async(c.queue(0), b, 11, 1, {0.5}); }},
      {"median_rows_async past the end", [&] { order::median_rows_async(c.queue(0), b, 0, 3, 4); }},
      {"kth_smallest_rows_async k past a row", [&] { order::kth_smallest_rows_async(c.queue(0), b, 0, 2, 5, {6}).get(); }},
      {"quantiles_rows_async past the end", [&] { order::quantiles_rows_async(c.queue(0), b, 5, 2, 5, {0.5}); }},
      {"kth_smallest_async k = 0", [&] { order::kth_smallest_async(c.queue(0), b, 0, 10, {0}); }},
      {"top_k_async k > n", [&] { order::top_k_async(c.queue(0), b, 0, 10, 11); }},
      {"top_k_rows_async past the end", [&] { order::top_k_rows_async(c.queue(0), b, 0, 3, 4, 1); }},
      {"top_k_rows_async k > cols", [&] { order::top_k_rows_async(c.queue(0), b, 0, 2, 5, 6).get(); }},
      {"pairwise_sum_async past the end", [&] { pairwise_sum_async(c.queue(0), b, 0, 6, 2, PairFunction::gaussian, {1.0}); }},
      {"Buffer of too many elements", [&] { Buffer<double> huge(c, kHuge * 4); }},
      {"a zero-byte buffer", [&] { RawBuffer r(c, 0); }},
  });
  each_throws<std::out_of_range>({
      {"write past the end", [&] { b.write(c.queue(0), host.data(), 10, 1); }},
      {"read past the end", [&] { b.read(c.queue(0), host.data(), 11); }},
      {"queue index past the pool", [&] { c.queue(c.queue_count()); }},
  });
}

TEST_CASE("misuse.objects_that_are_not_real_ones") {
  Context moved = clstat_test::fresh_ctx();
  Context keep = std::move(moved);
  const std::vector<double> x(8, 1.0);
  Buffer<double> none;
  each_throws<std::logic_error>({
      {"moved-from Context: sum", [&] { sum(moved, x.data(), 8); }},  // NOLINT(bugprone-use-after-move)
      {"moved-from Context: kde", [&] { kde(moved, x.data(), 4, 1, x.data(), 2); }},
      {"moved-from Context: median", [&] { order::median(moved, x.data(), 8); }},
      {"moved-from Context: queue", [&] { moved.queue(0); }},
      {"default Queue: finish", [&] { Queue().finish(); }},
      {"default Queue: context", [&] { Queue().context(); }},
      {"default Future: get", [&] { Future<int>().get(); }},
      {"default Future: event", [&] { Future<int>().event(); }},
      {"default Buffer: impl", [&] { none.raw().impl(); }},
  });
  CHECK(keep.queue_count() == 4);
}

TEST_CASE("misuse.results_larger_than_the_host") {
  // A grid whose values cannot fit in the host's memory is refused before any work, with the
  // bytes needed (it used to start computing 1e12 points).
  if (!clstat_test::has_fp64()) return;
  const std::vector<double> x{0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.9, 1.1, 1.3, 1.7, 2.0, 2.2};
  const GridSpec g{{0.0, 0.0}, {1.0, 1.0}, {1000000, 1000000}};
  try {
    evaluate_grid(ctx(), x.data(), 6, 2, g);
    FAIL("expected UnsupportedFeature");
  } catch (const UnsupportedFeature& e) {
    CHECK(std::string(e.what()).find("8000000000000 bytes of host memory") != std::string::npos);
  }
}
