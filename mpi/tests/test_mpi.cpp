// libclstat_mpi on 1, 2 or 3 processes: every process holds a shard of one data set (equal and
// unequal shards, an empty one, one process with everything) and gets the single-device answer:
// the same bits for order statistics, kde within 1e-13 relative (bit for bit when one process
// holds every sample). Bad input on one process raises on every process, and the next call
// works. Every process makes the same calls in the same order.
#include <doctest/doctest.h>

#include <clstat/mpi.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/order_data.hpp"
#include "reference/order_reference.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::same_bits;
using clstat_test::type_ok;

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// One seed for every process (rank 0's).
std::uint64_t shared_seed() {
  std::uint64_t s = clstat_test::fresh_seed();
  MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return s;
}

// Shard boundaries of n elements over the processes: proportional to the weights (by rank,
// cycled), the remainder to the last process.
std::vector<std::size_t> bounds(std::size_t n, const std::vector<double>& w) {
  const int P = size();
  double sum = 0;
  for (int r = 0; r < P; ++r) sum += w[static_cast<std::size_t>(r) % w.size()];
  std::vector<std::size_t> b{0};
  for (int r = 0; r + 1 < P; ++r)
    b.push_back(std::min(n, b.back() + static_cast<std::size_t>(std::floor(n * w[static_cast<std::size_t>(r) % w.size()] / sum))));
  b.push_back(n);
  return b;
}

const std::vector<std::vector<double>> kSplits{{1}, {1, 3}, {2, 0, 1}, {0, 1}, {1, 0}};

}  // namespace

TEST_CASE_TEMPLATE("mpi.order_equals_one_device_for_any_split", T, float, double, std::int32_t, std::int64_t) {
  const bool ok = type_ok<T>();
  int all_ok = ok;
  MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all_ok) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed << ", process " << rank() << " of " << size());
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(300001)}) {
    for (const char* d : {"normal", "mixture2", "equal"}) {
      INFO("n " << n << " " << d);
      const auto x = clstat_ref::order_data<T>(d, n, seed + n);
      const auto s = clstat_ref::sorted_total(x);
      const std::vector<std::uint64_t> ks{1, (n + 1) / 2, n, (n + 3) / 4};
      const std::vector<double> probs{0.01, 0.25, 0.5, 0.9, 1.0};
      const double med = order::median(ctx(), x.data(), n);
      const auto q = order::quantiles(ctx(), x.data(), n, probs, 7);
      for (const auto& w : kSplits) {
        const auto b = bounds(n, w);
        const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
        INFO("shard [" << lo << ", " << hi << ")");
        const T* mine = x.data() + lo;
        const auto got = mpi::kth_smallest(ctx(), MPI_COMM_WORLD, mine, hi - lo, ks);
        REQUIRE(got.size() == ks.size());
        for (std::size_t i = 0; i < ks.size(); ++i) CHECK(same_bits(got[i], s[ks[i] - 1]));
        CHECK(same_bits(mpi::median(ctx(), MPI_COMM_WORLD, mine, hi - lo), med));
        const auto gq = mpi::quantiles(ctx(), MPI_COMM_WORLD, mine, hi - lo, probs, 7);
        for (std::size_t i = 0; i < q.size(); ++i) CHECK(same_bits(gq[i], q[i]));
      }
    }
  }
}

TEST_CASE("mpi.nan_policies_see_every_shard") {
  // NaNs on one process only: the policy applies to the whole data.
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t n = 5001;
  auto x = clstat_test::normal<float>(n, seed);
  for (std::size_t i = n - 100; i < n; ++i) x[i] = NAN;  // in the last shard
  const auto b = bounds(n, {1});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  CHECK(same_bits(mpi::median(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, omit), order::median(ctx(), x.data(), n, omit)));
  CHECK(std::isnan(mpi::median(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo)));
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_AS(mpi::median(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, raise), std::invalid_argument);
}

TEST_CASE("mpi.bad_input_on_one_process_raises_on_all") {
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t n = 3000;
  const auto x = clstat_test::normal<double>(n, seed);
  const auto b = bounds(n, {1});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  const int last = size() - 1;
  // A null shard on the last process only.
  const double* mine = rank() == last ? nullptr : x.data() + lo;
  CHECK_THROWS_AS(mpi::median(ctx(), MPI_COMM_WORLD, mine, hi - lo), std::invalid_argument);
  // Other ranks asked for on one process.
  std::vector<std::uint64_t> ks{1, n / 2};
  if (rank() == last && size() > 1) ks[1] = n / 3;
  if (size() > 1) CHECK_THROWS_AS(mpi::kth_smallest(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, ks), std::invalid_argument);
  // A k past the data on every process (as on one device).
  CHECK_THROWS_AS(mpi::kth_smallest(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, {n + 1}), std::invalid_argument);
  // A device specification that names nothing, on every process.
  CHECK_THROWS_AS(mpi::rank_device(MPI_COMM_WORLD, "no-such-device-anywhere"), std::invalid_argument);
  // No data anywhere.
  CHECK_THROWS_AS(mpi::median(ctx(), MPI_COMM_WORLD, x.data(), 0), std::invalid_argument);
  // Every process is still in step, and the device still works.
  const auto s = clstat_ref::sorted_total(x);
  CHECK(mpi::kth_smallest(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, {n})[0] == s[n - 1]);
  // kde: no points on one process, then good ones.
  const std::vector<double> y{-1.0, 0.0, 0.5};
  KdeOptions o;
  o.bandwidth = Bandwidth::scalar(0.4);
  CHECK_THROWS_AS(mpi::kde(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, 1, rank() == last ? nullptr : y.data(), 3, o),
                  std::invalid_argument);
  CHECK(mpi::kde(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, 1, y.data(), 3, o).size() == 3);
}

TEST_CASE("mpi.kde_adds_the_shards_in_rank_order") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t n = 4000, m = 257, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed);
  const auto y = clstat_test::normal<double>(m * d, seed + 1, 0, 1.5);
  KdeOptions o;
  o.bandwidth = Bandwidth::per_dimension({0.3, 0.5});
  const auto want = kde(ctx(), x.data(), n, d, y.data(), m, o);
  for (const auto& w : kSplits) {
    const auto b = bounds(n, w);
    const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
    INFO("shard [" << lo << ", " << hi << ")");
    const auto got = mpi::kde(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, y.data(), m, o);
    REQUIRE(got.size() == m);
    // Every process has the same bits.
    std::vector<double> first = got;
    MPI_Bcast(first.data(), static_cast<int>(m), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    bool one_holds_all = false;
    for (std::size_t r = 0; r + 1 < b.size(); ++r) one_holds_all |= b[r + 1] - b[r] == n;
    for (std::size_t i = 0; i < m; ++i) {
      CHECK(same_bits(got[i], first[i]));
      if (one_holds_all) CHECK(same_bits(got[i], want[i]));
      CHECK(std::fabs(got[i] - want[i]) <= 1e-13 * want[i] + 1e-300);
    }
  }
  // Weighted samples: each process's weights are its own samples'.
  std::vector<double> wts(n);
  for (std::size_t i = 0; i < n; ++i) wts[i] = 1.0 + static_cast<double>(i % 7);
  KdeOptions ow = o;
  ow.weights = wts;
  const auto want_w = kde(ctx(), x.data(), n, d, y.data(), m, ow);
  const auto b = bounds(n, {1, 3});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  ow.weights.assign(wts.begin() + static_cast<std::ptrdiff_t>(lo), wts.begin() + static_cast<std::ptrdiff_t>(hi));
  const auto got_w = mpi::kde(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, y.data(), m, ow);
  for (std::size_t i = 0; i < m; ++i) CHECK(std::fabs(got_w[i] - want_w[i]) <= 1e-13 * want_w[i] + 1e-300);
}

TEST_CASE("mpi.plugin_equals_one_process") {
  // The shards gathered, the tiles dealt to the processes, the partials merged in the pass's
  // order: one process's bandwidths bit for bit, for every split (an empty shard, one process with
  // everything), 1 and 2 stages, d = 1 and 2.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t n = 3001;
  const auto x = clstat_test::normal<double>(2 * n, seed);
  for (int stages : {1, 2})
    for (std::size_t d : {std::size_t(1), std::size_t(2)}) {
      bandwidth::PluginOptions o;
      o.stages = stages;
      const auto want = bandwidth::plugin(ctx(), x.data(), n, d, o);
      for (const auto& w : kSplits) {
        const auto b = bounds(n, w);
        const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
        const auto got = mpi::plugin(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, o);
        REQUIRE(got.size() == d);
        for (std::size_t k = 0; k < d; ++k) {
          INFO("stages " << stages << ", d " << d << ", shard [" << lo << ", " << hi << "): " << got[k] << " against " << want[k]);
          CHECK(same_bits(got[k], want[k]));
        }
      }
    }
  // Bad input on one process raises on all, and the next call works.
  const auto b = bounds(n, {1});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  const int last = size() - 1;
  CHECK_THROWS_AS(mpi::plugin(ctx(), MPI_COMM_WORLD, rank() == last ? nullptr : x.data() + lo, hi - lo, 1), std::invalid_argument);
  std::vector<double> bad(x.begin() + static_cast<std::ptrdiff_t>(lo), x.begin() + static_cast<std::ptrdiff_t>(hi));
  if (rank() == last) bad.back() = std::nan("");
  CHECK_THROWS_AS(mpi::plugin(ctx(), MPI_COMM_WORLD, bad.data(), bad.size(), 1), std::invalid_argument);
  bandwidth::PluginOptions other;
  if (rank() == last && size() > 1) other.stages = 1;  // arguments that differ between processes
  if (size() > 1) CHECK_THROWS_AS(mpi::plugin(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, 1, other), std::invalid_argument);
  CHECK(same_bits(mpi::plugin(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo, 1)[0], bandwidth::plugin(ctx(), x.data(), n, 1)[0]));
}

TEST_CASE("mpi.lscv_H_equals_one_process") {
  // Every evaluation's sums are one process's (rank 0's merge of every process's tiles), so every
  // process runs the single-process search: the same H, objective and evaluations.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t n = 600, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed);
  bandwidth::LscvMatrixOptions o;
  o.restarts = 0;
  o.max_evaluations = 40;
  const auto want = bandwidth::lscv_H(ctx(), x.data(), n, d, o);
  for (const auto& w : kSplits) {
    const auto b = bounds(n, w);
    const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
    INFO("shard [" << lo << ", " << hi << ")");
    const auto got = mpi::lscv_H(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, o);
    CHECK(got.evaluations == want.evaluations);
    CHECK(same_bits(got.objective, want.objective));
    REQUIRE(got.H.size() == want.H.size());
    for (std::size_t i = 0; i < want.H.size(); ++i) CHECK(same_bits(got.H[i], want.H[i]));
  }
  // Bad options on one process raise on all; then a good call.
  const auto b = bounds(n, {1});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  bandwidth::LscvMatrixOptions bad = o;
  if (rank() == size() - 1) bad.max_evaluations = 5;
  CHECK_THROWS_AS(mpi::lscv_H(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, bad), std::invalid_argument);
  CHECK(mpi::lscv_H(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, o).evaluations == want.evaluations);
}

TEST_CASE("mpi.lscv_h_equals_one_process") {
  // The pairs are dealt by equal shares whatever the shards, so every split gives the same bits
  // on every process; against one process the sums add in another order.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t n = 1200, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed);
  const auto want = bandwidth::lscv_h(ctx(), x.data(), n, d);
  double first = 0;
  bool have = false;
  for (const auto& w : kSplits) {
    const auto b = bounds(n, w);
    const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
    INFO("shard [" << lo << ", " << hi << ")");
    const auto got = mpi::lscv_h(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d);
    CHECK(std::fabs(got.objective - want.objective) <= 1e-12 * std::fabs(want.objective));
    CHECK(std::fabs(got.multiplier - want.multiplier) <= 1e-5 * want.multiplier);
    CHECK(got.passes == want.passes);
    if (have) CHECK(same_bits(got.multiplier, first));
    first = got.multiplier, have = true;
  }
  // Bad options on one process raise on all; then a good call.
  const auto b = bounds(n, {1});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  bandwidth::LscvOptions bad;
  if (rank() == size() - 1) bad.grid = 2;
  CHECK_THROWS_AS(mpi::lscv_h(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d, bad), std::invalid_argument);
  CHECK(same_bits(mpi::lscv_h(ctx(), MPI_COMM_WORLD, x.data() + lo * d, hi - lo, d).multiplier, first));
}

TEST_CASE("mpi.stable_fit_adds_the_shards_likelihoods") {
  // Every process takes the same steps on the summed likelihoods: the same result on every
  // process, one process's fit within the fit's tolerance, and bit for bit when one process holds
  // every value.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const stable::Params law{1.6, 0.3, 2.0, -1.0, stable::Param::S0};
  const std::size_t n = 300;  // the MLE's quadrature on 2 CPU cores: seconds per fit
  const auto x = stable::sample(ctx(), n, law, seed);
  const auto want = stable::fit(ctx(), x.data(), n);
  for (const std::vector<double>& w : {std::vector<double>{1, 3}, std::vector<double>{1, 0}}) {
    const auto b = bounds(n, w);
    const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
    INFO("shard [" << lo << ", " << hi << ")");
    const auto got = mpi::fit(ctx(), MPI_COMM_WORLD, x.data() + lo, hi - lo);
    double mine[4] = {got.params.alpha, got.params.beta, got.params.scale, got.params.loc}, first[4];
    std::copy(mine, mine + 4, first);
    MPI_Bcast(first, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int k = 0; k < 4; ++k) CHECK(same_bits(mine[k], first[k]));
    bool one_holds_all = false;
    for (std::size_t r = 0; r + 1 < b.size(); ++r) one_holds_all |= b[r + 1] - b[r] == n;
    if (one_holds_all) {
      CHECK(same_bits(got.params.alpha, want.params.alpha));
      CHECK(same_bits(got.loglik, want.loglik));
    }
    CHECK(std::fabs(got.params.alpha - want.params.alpha) <= 1e-4);
    CHECK(std::fabs(got.params.beta - want.params.beta) <= 1e-3);
    CHECK(std::fabs(got.params.scale - want.params.scale) <= 1e-4 * want.params.scale);
    CHECK(std::fabs(got.params.loc - want.params.loc) <= 1e-3 * want.params.scale);
    CHECK(std::fabs(got.loglik - want.loglik) <= 1e-6 * std::fabs(want.loglik));
  }
  // Too few values in all, and a NaN on one process: every process raises.
  CHECK_THROWS_AS(mpi::fit(ctx(), MPI_COMM_WORLD, x.data(), rank() == 0 ? 5 : 0), std::invalid_argument);
  std::vector<double> bad(x.begin(), x.begin() + 100);
  if (rank() == size() - 1) bad[7] = std::nan("");
  CHECK_THROWS_AS(mpi::fit(ctx(), MPI_COMM_WORLD, bad.data(), bad.size()), std::invalid_argument);
}

namespace {
// Rows y = 1 + x1 - 2 x2 + 0.5 x3 + noise, every fifth shifted by 20; `copies` > 1 repeats the
// first n / copies rows (row i equals row i + n / copies), so that squared residuals tie at
// every threshold and the ties straddle the processes.
void lts_data(std::size_t n, std::size_t p, std::uint64_t seed, std::size_t copies, std::vector<double>& x,
              std::vector<double>& y) {
  x = clstat_test::normal<double>(n * p, seed);
  const auto e = clstat_test::normal<double>(n, seed + 1);
  y.assign(n, 0);
  const std::size_t m = n / copies;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = i % m;
    for (std::size_t j = 0; j < p; ++j) x[i * p + j] = x[s * p + j];
    y[i] = 1 + x[s * p] - 2 * x[s * p + 1] + 0.5 * x[s * p + 2] + 0.1 * e[s];
    if (s % 5 == 0) y[i] += 20;
  }
}

// The rows of v in [lo, hi).
std::vector<std::size_t> rows_in(const std::vector<std::size_t>& v, std::size_t lo, std::size_t hi) {
  std::vector<std::size_t> out;
  for (std::size_t i : v)
    if (i >= lo && i < hi) out.push_back(i);
  return out;
}
}  // namespace

TEST_CASE("mpi.lts_equals_one_process") {
  // Past 2048 rows the rows stay on their processes: every process gets the same fit, one
  // process's up to the rounding of the combined sums (the same h-subset and weights here), and
  // bit for bit when one process holds every row. At most 2048 rows: gathered, bit for bit.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const std::size_t p = 3;
  struct Case {
    std::size_t n, copies;
    double alpha;
  };
  for (const Case& c : {Case{1500, 1, 0.5}, Case{6000, 1, 0.5}, Case{6000, 3, 0.75}, Case{6000, 1, 1.0}}) {
        const std::size_t n = c.n, copies = c.copies;
        const double alpha = c.alpha;
        INFO("n " << n << ", copies " << copies << ", alpha " << alpha);
        std::vector<double> x, y;
        lts_data(n, p, seed + n + copies, copies, x, y);
        robust::LtsOptions o;
        o.seed = seed;
        o.alpha = alpha;
        o.nsamp = 100;  // fewer starts than robustbase's 500: the same paths, a fifth of the block runs
        const auto one = robust::lts(ctx(), x.data(), n, p, y.data(), o);
        for (const auto& w : kSplits) {
          const auto b = bounds(n, w);
          const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
          INFO("shard [" << lo << ", " << hi << ")");
          const auto got = mpi::lts(ctx(), MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, y.data() + lo, o);
          CHECK(got.n == n);
          CHECK(got.h == one.h);
          CHECK(got.starts == one.starts);
          CHECK(got.best == rows_in(one.best, lo, hi));
          CHECK(got.outliers == rows_in(one.outliers, lo, hi));
          REQUIRE(got.residuals.size() == hi - lo);
          CHECK(std::equal(got.weights.begin(), got.weights.end(), one.weights.begin() + static_cast<std::ptrdiff_t>(lo)));
          REQUIRE(got.coefficients.size() == p + 1);
          // Every process the same bits.
          std::vector<double> mine(got.coefficients);
          mine.insert(mine.end(), got.raw_coefficients.begin(), got.raw_coefficients.end());
          mine.push_back(got.objective);
          mine.push_back(got.scale);
          std::vector<double> first(mine);
          MPI_Bcast(first.data(), static_cast<int>(first.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
          for (std::size_t j = 0; j < mine.size(); ++j) CHECK(same_bits(mine[j], first[j]));
          bool one_holds_all = n <= 2048;
          for (std::size_t r = 0; r + 1 < b.size(); ++r) one_holds_all |= b[r + 1] - b[r] == n;
          for (std::size_t j = 0; j <= p; ++j) {
            if (one_holds_all) {
              CHECK(same_bits(got.coefficients[j], one.coefficients[j]));
              CHECK(same_bits(got.raw_coefficients[j], one.raw_coefficients[j]));
            }
            CHECK(std::fabs(got.coefficients[j] - one.coefficients[j]) <= 1e-11 * (1 + std::fabs(one.coefficients[j])));
            CHECK(std::fabs(got.raw_coefficients[j] - one.raw_coefficients[j]) <=
                  1e-11 * (1 + std::fabs(one.raw_coefficients[j])));
          }
          if (one_holds_all) CHECK(same_bits(got.objective, one.objective));
          CHECK(std::fabs(got.objective - one.objective) <= 1e-12 * one.objective);
          CHECK(std::fabs(got.scale - one.scale) <= 1e-12 * one.scale);
          CHECK(std::fabs(got.crit_robustbase - one.crit_robustbase) <= 1e-12 * one.crit_robustbase);
          for (std::size_t i = lo; i < hi; ++i)
            CHECK(std::fabs(got.residuals[i - lo] - one.residuals[i]) <= 1e-10 * (1 + std::fabs(one.residuals[i])));
        }
      }
  // Bad input on one process (a NaN, then other options) raises on every process, naming the
  // row over all processes; then a good call.
  const std::size_t n = 6000;
  std::vector<double> x, y;
  lts_data(n, p, seed, 1, x, y);
  const auto b = bounds(n, {1});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  robust::LtsOptions o;
  o.seed = seed;
  std::vector<double> bad_y(y);
  bad_y[n - 1] = NAN;  // on the last process
  try {
    mpi::lts(ctx(), MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, bad_y.data() + lo, o);
    CHECK_MESSAGE(false, "no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("y[" + std::to_string(n - 1) + "] is not finite") != std::string::npos);
  }
  // A null shard on the last process, and no rows anywhere.
  CHECK_THROWS_AS(mpi::lts(ctx(), MPI_COMM_WORLD, rank() == size() - 1 ? nullptr : x.data() + lo * p, hi - lo, p,
                           y.data() + lo, o),
                  std::invalid_argument);
  CHECK_THROWS_AS(mpi::lts(ctx(), MPI_COMM_WORLD, x.data(), 0, p, y.data(), o), std::invalid_argument);
  robust::LtsOptions other = o;
  if (rank() == size() - 1) other.nsamp = 50;
  if (size() > 1)
    CHECK_THROWS_AS(mpi::lts(ctx(), MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, y.data() + lo, other),
                    std::invalid_argument);
  const auto one = robust::lts(ctx(), x.data(), n, p, y.data(), o);
  const auto got = mpi::lts(ctx(), MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, y.data() + lo, o);
  CHECK(got.best == rows_in(one.best, lo, hi));
}

TEST_CASE("mpi.device_failure_on_one_process_raises_on_all") {
  // The last process's device fails at its 1st, 2nd, ... launch of a call (then every doubling),
  // until a call runs to its end first: each time every process raises (the failed one its
  // clstat::Error, naming its device; the others std::runtime_error naming the failed process),
  // none is left waiting, and the next call on the same contexts gives the right answer.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = shared_seed();
  INFO("seed " << seed);
  const int last = size() - 1;
  const Context c(ctx().device(), 2);  // this test's own, so that the injection touches nothing else
  const std::string name = c.device().info().name;
  // Cuts at the launches up to the `upto`-th (the fit's later launches repeat its first ones'
  // kinds, and each cut costs a fit).
  const auto sweep = [&](const std::string& what, auto call, auto good, std::uint64_t upto = UINT64_MAX) {
    INFO(what);
    std::size_t failures = 0;
    for (std::uint64_t after = 0; after < upto; after = after < 8 ? after + 1 : 2 * after) {
      INFO("launch " << after + 1 << " on process " << last);
      if (rank() == last) c.inject_launch_failure(after);
      int failed = 0;
      try {
        good(call());
      } catch (const Error& e) {
        failed = 1;
        CHECK(rank() == last);
        CHECK(e.code() == -5);
        CHECK(e.device() == name);
      } catch (const std::runtime_error& e) {
        failed = 1;
        CHECK(rank() != last);
        const std::string msg = e.what();
        CHECK(msg.find("process") != std::string::npos);
        CHECK(msg.find(std::to_string(last)) != std::string::npos);
      }
      int any = failed, all = failed;
      MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      CHECK(any == all);  // every process raised, or none did
      if (!any) break;
      ++failures;
      if (failures >= 64) break;  // (the same on every process)
    }
    CHECK(failures >= 1);
    CHECK(failures < 64);
    if (rank() == last) c.cancel_injected_failure();
    good(call());
  };
  const std::size_t n = 300001;
  const auto x = clstat_ref::order_data<double>("normal", n, seed);
  const auto b = bounds(n, {1, 2});
  const std::size_t lo = b[static_cast<std::size_t>(rank())], hi = b[static_cast<std::size_t>(rank()) + 1];
  const std::vector<double> probs{0.01, 0.5, 0.99};
  const auto q = order::quantiles(ctx(), x.data(), n, probs, 7);
  sweep(
      "quantiles", [&] { return mpi::quantiles(c, MPI_COMM_WORLD, x.data() + lo, hi - lo, probs, 7); },
      [&](const std::vector<double>& got) {
        REQUIRE(got.size() == q.size());
        for (std::size_t i = 0; i < q.size(); ++i) CHECK(same_bits(got[i], q[i]));
      });
  const std::size_t nk = 3001;
  const auto bk = bounds(nk, {1, 2});
  const std::size_t klo = bk[static_cast<std::size_t>(rank())], khi = bk[static_cast<std::size_t>(rank()) + 1];
  const auto xs = clstat_test::normal<double>(nk, seed + 1);
  const std::vector<double> y{-1.0, 0.0, 0.5, 2.0};
  KdeOptions ko;
  ko.bandwidth = Bandwidth::scalar(0.4);
  const auto dens = kde(ctx(), xs.data(), nk, 1, y.data(), y.size(), ko);
  sweep(
      "kde", [&] { return mpi::kde(c, MPI_COMM_WORLD, xs.data() + klo, khi - klo, 1, y.data(), y.size(), ko); },
      [&](const std::vector<double>& got) {
        REQUIRE(got.size() == dens.size());
        for (std::size_t i = 0; i < dens.size(); ++i) CHECK(std::fabs(got[i] - dens[i]) <= 1e-13 * dens[i]);
      });
  const double h = bandwidth::plugin(ctx(), xs.data(), nk, 1)[0];
  sweep(
      "plugin", [&] { return mpi::plugin(c, MPI_COMM_WORLD, xs.data() + klo, khi - klo, 1); },
      [&](const std::vector<double>& got) { CHECK(same_bits(got.at(0), h)); });
  const auto cv = bandwidth::lscv_h(ctx(), xs.data(), 1500, 1);
  const auto bc = bounds(1500, {1, 2});
  const std::size_t clo = bc[static_cast<std::size_t>(rank())], chi = bc[static_cast<std::size_t>(rank()) + 1];
  sweep(
      "lscv_h", [&] { return mpi::lscv_h(c, MPI_COMM_WORLD, xs.data() + clo, chi - clo, 1); },
      [&](const bandwidth::LscvResult& got) {
        CHECK(std::fabs(got.multiplier - cv.multiplier) <= 1e-5 * cv.multiplier);
        CHECK(got.passes == cv.passes);
      });
  const stable::Params law{1.6, 0.3, 1, 0, stable::Param::S0};
  const auto draws = stable::sample(ctx(), 300, law, seed + 3);
  const auto bd = bounds(draws.size(), {1, 2});
  const std::size_t dlo = bd[static_cast<std::size_t>(rank())], dhi = bd[static_cast<std::size_t>(rank()) + 1];
  const stable::FitResult fit1 = stable::fit(ctx(), draws.data(), draws.size());
  sweep(
      "stable fit", [&] { return mpi::fit(c, MPI_COMM_WORLD, draws.data() + dlo, dhi - dlo); },
      [&](const stable::FitResult& got) {
        CHECK(std::fabs(got.params.alpha - fit1.params.alpha) < 1e-6);
        CHECK(std::fabs(got.loglik - fit1.loglik) < 1e-8 * std::fabs(fit1.loglik));
      },
      16);
  const std::size_t rows = 6000, p = 3;
  std::vector<double> lx, ly;
  lts_data(rows, p, seed + 2, 1, lx, ly);
  robust::LtsOptions o;
  o.seed = seed;
  o.nsamp = 100;
  const auto one = robust::lts(ctx(), lx.data(), rows, p, ly.data(), o);
  const auto bl = bounds(rows, {1, 2});
  const std::size_t llo = bl[static_cast<std::size_t>(rank())], lhi = bl[static_cast<std::size_t>(rank()) + 1];
  sweep(
      "lts", [&] { return mpi::lts(c, MPI_COMM_WORLD, lx.data() + llo * p, lhi - llo, p, ly.data() + llo, o); },
      [&](const robust::LtsFit& got) {
        CHECK(got.best == rows_in(one.best, llo, lhi));
        REQUIRE(got.coefficients.size() == one.coefficients.size());
        for (std::size_t j = 0; j < one.coefficients.size(); ++j)
          CHECK(std::fabs(got.coefficients[j] - one.coefficients[j]) <= 1e-9 * (1 + std::fabs(one.coefficients[j])));
      });
}
