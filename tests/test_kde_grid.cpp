// Density on grids (clstat/kde_grid.hpp): every kernel and d = 1..4 against a long-double direct
// evaluation at random grid points, the sample-wise (S-KDE) and point-wise (EP-KDE) methods
// against each other, slabs against one pass, the integral, and bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>

#include "reference/kde_grid_reference.hpp"
#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::throws_with;

namespace {

// n correlated normal samples in d dimensions (covariance 1 on the diagonal, 0.5 off it), with
// every fifth sample shifted by 2 in the first coordinate (a second mode).
std::vector<double> samples(std::size_t n, std::size_t d, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z;
  std::vector<double> x(n * d);
  for (std::size_t i = 0; i < n; ++i) {
    const double common = z(g);
    for (std::size_t k = 0; k < d; ++k) x[i * d + k] = std::sqrt(0.5) * common + std::sqrt(0.5) * z(g);
    if (i % 5 == 0) x[i * d] += 2;
  }
  return x;
}

GridSpec box(std::size_t d, double lo, double hi, const std::vector<std::size_t>& count) {
  GridSpec g;
  g.lower.assign(d, lo);
  g.upper.assign(d, hi);
  g.count = count;
  return g;
}


// Checks `vals` at `probes` random grid points against the long-double value. The tolerance is
// the error bound of the device's computation, q_j = |A (y - x_j)|^2 with A = L^-1 in double,
// propagated through k (u = 2^-53):
//  - A's rounding: a relative error of q up to 2 d kappa(L) u, kappa(L) bounded by
//    sqrt(tr H tr H^-1); q's own sum of squares, 8 u. Through k: cond * that.
//  - the grid point's rounding (y = lower + i step, absolute error about |y| u) and the difference
//    y - x_j: an absolute error of A (y - x_j) up to |A| |y|max 2u, |A| <= sqrt(tr H^-1); through
//    k: cond_root * 2 |A| * that.
//  - the sum of the terms and the scale: 1e-12 relative (far above N u for these sizes).
//  - where a term sits on a jump of the kernel, one term's worth (any rounding may flip it).
void check_against_reference(const std::vector<double>& vals, const std::vector<double>& x, std::size_t n,
                             std::size_t d, const GridSpec& g, int kernel, double cutoff, double h,
                             std::uint64_t seed, int probes) {
  const auto H = clstat_ref::scaled_covariance(x, n, d, h);
  std::vector<long double> hinv;
  long double det = 0;
  clstat_ref::invert(H, d, hinv, det);
  const long double cd = radial_kernel_integral(static_cast<Kernel>(kernel), d);
  const long double r2 = kernel == 0 ? static_cast<long double>(cutoff) * cutoff : 1.0L;
  long double tr_h = 0, tr_hinv = 0, y_max = 0;
  for (std::size_t k = 0; k < d; ++k) {
    tr_h += H[k * d + k];
    tr_hinv += hinv[k * d + k];
    y_max = std::max({y_max, std::fabs(static_cast<long double>(g.lower[k])), std::fabs(static_cast<long double>(g.upper[k]))});
  }
  const long double kappa = std::sqrt(tr_h * tr_hinv), a_norm = std::sqrt(tr_hinv);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, vals.size() - 1);
  int nonzero = 0;
  std::uniform_int_distribution<std::size_t> sample(0, n - 1);
  // Half the probes are anywhere on the grid, half at the grid point nearest a random sample,
  // where the density is positive whatever the seed (the support may cover little of the grid).
  auto nearest = [&](std::size_t j) {
    std::size_t lin = 0;
    for (std::size_t k = 0; k < d; ++k) {
      const double step = (g.upper[k] - g.lower[k]) / static_cast<double>(g.count[k] - 1);
      const double i = std::round((x[j * d + k] - g.lower[k]) / step);
      lin = lin * g.count[k] + static_cast<std::size_t>(std::clamp(i, 0.0, static_cast<double>(g.count[k] - 1)));
    }
    return lin;
  };
  for (int t = 0; t < probes; ++t) {
    const std::size_t lin = t == 0 ? vals.size() / 2 : t % 2 ? nearest(sample(rng)) : pick(rng);
    const auto y = clstat_ref::grid_point(g.lower, g.upper, g.count, lin);
    const auto ref = clstat_ref::grid_density(x, n, d, y.data(), hinv, det, cd, kernel, r2);
    const long double scale = 1.0L / (static_cast<long double>(n) * std::sqrt(det) * cd);
    const long double u = 0x1p-53L;
    const long double q_rel = (8 + 2 * static_cast<long double>(d) * kappa) * u;
    const long double v_abs = a_norm * y_max * 2 * u;  // absolute error of A (y - x_j)
    const long double tol = 1e-12L * ref.f + ref.cond * q_rel + ref.cond_root * 2 * v_abs + (ref.edge ? scale : 0);
    INFO("d " << d << " kernel " << kernel << " point " << lin << ": got " << vals[lin] << ", reference "
              << static_cast<double>(ref.f));
    CHECK(std::fabs(static_cast<long double>(vals[lin]) - ref.f) <= tol);
    nonzero += ref.f > 0;
  }
  CHECK(nonzero > probes / 8);  // the probes saw the density, not only its zeros
}

}  // namespace

TEST_CASE("kde_grid.every_kernel_and_dimension_matches_long_double") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<std::vector<std::size_t>> counts{{301}, {61, 47}, {21, 17, 19}, {7, 9, 8, 6}};
  for (std::size_t d = 1; d <= 4; ++d) {
    const std::size_t n = 1500;
    const auto x = samples(n, d, seed + d);
    const GridSpec g = d < 4 ? box(d, -3.5, 4.5, counts[d - 1]) : box(d, -1, 1.5, counts[d - 1]);
    for (int kernel : {1, 2, 3, 5, 0}) {
      if (d == 4 && kernel != 1) continue;
      GridOptions o;
      o.kernel = static_cast<Kernel>(kernel);
      o.bandwidth = Bandwidth::scaled_covariance(0.6);
      o.gaussian_cutoff = kernel == 0 ? 3.0 : 0.0;
      o.method = GridMethod::sample_wise;
      const auto v = evaluate_grid(ctx(), x.data(), n, d, g, o);
      REQUIRE(v.size() == g.points());
      check_against_reference(v, x, n, d, g, kernel, o.gaussian_cutoff, 0.6, seed, d == 4 ? 40 : 60);
    }
  }
}

TEST_CASE("kde_grid.sample_wise_equals_point_wise") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 800, d = 2;
  const auto x = samples(n, d, seed);
  const GridSpec g = box(d, -4, 5, {40, 33});
  for (int kernel : {1, 3}) {
    GridOptions o;
    o.kernel = static_cast<Kernel>(kernel);
    o.bandwidth = Bandwidth::matrix({0.30, 0.08, 0.08, 0.20});
    o.method = GridMethod::sample_wise;
    const auto s = evaluate_grid(ctx(), x.data(), n, d, g, o);
    o.method = GridMethod::point_wise;
    const auto p = evaluate_grid(ctx(), x.data(), n, d, g, o);
    REQUIRE(s.size() == p.size());
    double worst = 0, top = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      worst = std::max(worst, std::fabs(s[i] - p[i]));
      top = std::max(top, p[i]);
    }
    INFO("kernel " << kernel << ": largest difference " << worst << " of a maximum " << top);
    CHECK(worst <= 1e-13 * top);
  }
}

TEST_CASE("kde_grid.slabs_equal_one_pass_and_runs_repeat") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 3000, d = 3;
  const auto x = samples(n, d, seed);
  const GridSpec g = box(d, -3, 4, {37, 20, 26});
  GridOptions o;
  o.method = GridMethod::sample_wise;
  o.bandwidth = Bandwidth::scaled_covariance(0.5);
  const auto one = evaluate_grid(ctx(), x.data(), n, d, g, o);
  o.memory_budget_bytes = 4 * 20 * 26 * sizeof(double);  // one tile row of the first dimension per slab
  const auto slabs = evaluate_grid(ctx(), x.data(), n, d, g, o);
  CHECK(slabs == one);
  CHECK(evaluate_grid(ctx(), x.data(), n, d, g, o) == slabs);
  // The runs of neighbouring cells staged two at a time instead of all together: same sums.
  {
    const Context two_rows = clstat_test::tuned_ctx({{"grid.rows_max", 2}});
    CHECK(evaluate_grid(two_rows, x.data(), n, d, g, o) == one);
  }
  // Into caller memory: the same values.
  std::vector<double> mine(g.points(), -1.0);
  evaluate_grid(ctx(), x.data(), n, d, g, mine.data(), o);
  CHECK(mine == one);
  CHECK_THROWS_AS(evaluate_grid(ctx(), x.data(), n, d, g, static_cast<double*>(nullptr), o), std::invalid_argument);
}

// The largest difference between two grids, relative to the larger maximum.
double relative_gap(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0, top = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(a[i] - b[i]));
    top = std::max({top, std::fabs(a[i]), std::fabs(b[i])});
  }
  return top > 0 ? worst / top : worst;
}

// The cells and per-row bounds of the sample-wise method never drop a term: a strongly tilted
// ellipsoid (correlations 0.95, -0.9, -0.85), samples far outside the grid (dropped by the
// binning), a block of tied samples (one cell), and cells coarsened by a low cap, all against the
// point-wise sums; the device-buffer form gives the host form's values.
TEST_CASE("kde_grid.cells_and_row_bounds_drop_no_term") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t d = 3, n = 2500;
  auto x = samples(n, d, seed);
  for (std::size_t i = 0; i < 200; ++i) x[(7 * i) * d + i % d] += i % 2 ? 40.0 : -40.0;
  for (std::size_t i = 1000; i < 1300; ++i)
    for (std::size_t k = 0; k < d; ++k) x[i * d + k] = 0.25 * static_cast<double>(k) - 0.1;
  const std::vector<double> S{1, .95, -.9, .95, 1, -.85, -.9, -.85, 1};
  const GridSpec g = box(d, -3, 3.5, {29, 23, 41});
  for (int kernel : {1, 5}) {
    GridOptions o;
    o.kernel = static_cast<Kernel>(kernel);
    std::vector<double> H(9);
    for (std::size_t i = 0; i < 9; ++i) H[i] = 0.36 * S[i];
    o.bandwidth = Bandwidth::matrix(H);
    o.method = GridMethod::point_wise;
    const auto p = evaluate_grid(ctx(), x.data(), n, d, g, o);
    o.method = GridMethod::sample_wise;
    const auto s = evaluate_grid(ctx(), x.data(), n, d, g, o);
    INFO("kernel " << kernel);
    CHECK(relative_gap(s, p) <= 1e-13);
    {
      const Context capped = clstat_test::tuned_ctx({{"grid.max_cells", 300}});
      CHECK(relative_gap(evaluate_grid(capped, x.data(), n, d, g, o), p) <= 1e-13);
    }
    {
      const Context four = clstat_test::tuned_ctx({{"grid.ppi", 4}});
      CHECK(relative_gap(evaluate_grid(four, x.data(), n, d, g, o), p) <= 1e-13);
    }
    const Queue q = ctx().queue(ctx().queue_count() - 1);
    Buffer<double> dev(ctx(), g.points() + 5);
    const Event filled = dev.fill_async(ctx().queue(0), -1.0);  // another queue: the wait list orders it
    const Event written = evaluate_grid(q, x.data(), n, d, g, dev, 0, o, {filled});
    written.wait();
    auto back = dev.to_host(q);
    CHECK(back[g.points()] == -1.0);  // nothing past the grid
    back.resize(g.points());
    CHECK(back == s);
    o.method = GridMethod::point_wise;
    evaluate_grid(q, x.data(), n, d, g, dev, 0, o);
    back = dev.to_host(q);
    back.resize(g.points());
    CHECK(back == p);
    Buffer<double> small(ctx(), g.points() - 1);
    throws_with([&] { evaluate_grid(q, x.data(), n, d, g, small, 0, o); }, "output buffer holds");
    throws_with([&] { evaluate_grid(q, x.data(), n, d, g, dev, 6, o); }, "output buffer holds");
    // From an offset: the same values, both methods, nothing before or after them touched.
    for (GridMethod m : {GridMethod::sample_wise, GridMethod::point_wise}) {
      o.method = m;
      Buffer<double> wide(ctx(), g.points() + 7);
      wide.fill_async(q, -1.0).wait();
      evaluate_grid(q, x.data(), n, d, g, wide, 3, o).wait();
      const auto w = wide.to_host(q);
      CHECK(std::vector<double>(w.begin() + 3, w.begin() + 3 + static_cast<std::ptrdiff_t>(g.points())) ==
            (m == GridMethod::sample_wise ? s : p));
      CHECK(w[2] == -1.0);
      CHECK(w[3 + g.points()] == -1.0);
    }
  }
}

// d = 5 and 6, with the tile shape and cells chosen for them.
TEST_CASE("kde_grid.five_and_six_dimensions") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t d : {5, 6}) {
    const std::size_t n = 600;
    const auto x = samples(n, d, seed + d);
    const GridSpec g = box(d, -1.5, 2, std::vector<std::size_t>(d, d == 5 ? 7 : 5));
    GridOptions o;
    o.bandwidth = Bandwidth::scaled_covariance(0.9);
    o.method = GridMethod::point_wise;
    const auto p = evaluate_grid(ctx(), x.data(), n, d, g, o);
    o.method = GridMethod::sample_wise;
    const auto s = evaluate_grid(ctx(), x.data(), n, d, g, o);
    INFO("d " << d);
    CHECK(relative_gap(s, p) <= 1e-13);
    CHECK(*std::max_element(p.begin(), p.end()) > 0);
  }
}

TEST_CASE("kde_grid.integrates_to_one") {
  if (!clstat_test::has_fp64()) return;
  // The support (samples within +-4.5, kernel radius about 1.2) lies well inside the grid, so the
  // Riemann sum of the unrenormalised estimate is 1 up to the discretisation error, O(step^2).
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 2000, d = 2;
  auto x = samples(n, d, seed);
  for (auto& v : x) v = std::max(-4.5, std::min(4.5, v));
  const GridSpec g = box(d, -9, 10, {381, 381});
  for (int kernel : {1, 2}) {
    GridOptions o;
    o.kernel = static_cast<Kernel>(kernel);
    o.bandwidth = Bandwidth::scaled_covariance(0.8);
    const auto v = evaluate_grid(ctx(), x.data(), n, d, g, o);
    const double step = 19.0 / 380;
    double sum = 0;
    for (double f : v) sum += f;
    INFO("kernel " << kernel << ": integral " << sum * step * step);
    CHECK(std::fabs(sum * step * step - 1) < 2e-4);
  }
}

TEST_CASE("kde_grid.bad_input") {
  if (!clstat_test::has_fp64()) return;
  const auto x = samples(50, 2, 1);
  const GridSpec g = box(2, -3, 3, {10, 10});
  throws_with([&] { evaluate_grid(ctx(), x.data(), 0, 2, g); }, "no samples");
  // Point counts whose product overflows, and a file larger than any disk: refused before any
  // allocation or write, and no file is left behind.
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, box(2, -3, 3, {std::size_t(1) << 40, std::size_t(1) << 40})); },
              "overflows");
  {
    const std::string path = "clstat-test-grid-too-large.f64";
    try {
      evaluate_grid_to_file(ctx(), x.data(), 50, 2, box(2, -3, 3, {1000000, 1000000}), path);
      FAIL("expected runtime_error");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find("needs 8000000000000 bytes") != std::string::npos);
    }
    CHECK(std::fopen(path.c_str(), "rb") == nullptr);
  }
  {
    // h = 1e-160: 1 / (n |H|^(1/2) c_d) overflows; refused by name instead of a grid of NaN.
    GridOptions tiny;
    tiny.bandwidth = Bandwidth::scalar(1e-160);
    throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, g, tiny); }, "too small");
  }
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 3, g); }, "for d = 3");
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 7, box(7, -1, 1, std::vector<std::size_t>(7, 2))); },
              "outside 1..6");
  GridSpec flat = g;
  flat.upper[1] = -3;
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, flat); }, "must be below upper");
  GridSpec empty = g;
  empty.count[0] = 0;
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, empty); }, "count 0");
  GridOptions o;
  o.kernel = Kernel::gaussian;
  o.method = GridMethod::sample_wise;
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, g, o); }, "no bounded support");
  o.kernel = Kernel::triangular;
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, g, o); }, "not one of the grid's radial kernels");
  o = {};
  o.bandwidth = Bandwidth::scalar(-1);
  throws_with([&] { evaluate_grid(ctx(), x.data(), 50, 2, g, o); }, "bandwidth h must be");
  auto xn = x;
  xn[7] = NAN;
  throws_with([&] { evaluate_grid(ctx(), xn.data(), 50, 2, g); }, "sample");
}

TEST_CASE("kde_grid.normal_scale_bandwidth") {
  // Gaussian: the normal reference rule (4 / ((d + 2) n))^{1/(d+4)}; 1-d Epanechnikov: the
  // textbook (40 sqrt(pi) / n)^{1/5} = 2.3449 n^{-1/5} (Silverman 1986, table 3.1).
  for (std::size_t d : {1u, 2u, 3u, 5u})
    CHECK(grid_normal_scale(Kernel::gaussian, d, 1000) ==
          doctest::Approx(std::pow(4.0 / ((d + 2) * 1000.0), 1.0 / (d + 4))).epsilon(1e-13));
  CHECK(grid_normal_scale(Kernel::epanechnikov, 1, 500) ==
        doctest::Approx(std::pow(40 * std::sqrt(M_PI) / 500, 0.2)).epsilon(1e-13));
  // The spherical Epanechnikov has mu_2 = 1/(d+4) and R(K) = 2(d+2)/(V_d (d+4)).
  const double d = 3, vd = 4 * M_PI / 3, r = 2 * (d + 2) / (vd * (d + 4)), mu2 = 1 / (d + 4);
  CHECK(grid_normal_scale(Kernel::epanechnikov, 3, 10000) ==
        doctest::Approx(std::pow(std::pow(2, d + 2) * std::pow(M_PI, d / 2) * r / ((d + 2) * 10000 * mu2 * mu2),
                                 1 / (d + 4)))
            .epsilon(1e-13));
  CHECK_THROWS_AS(grid_normal_scale(Kernel::cosine, 2, 10), std::invalid_argument);
}

TEST_CASE("kde_grid.to_file_in_slabs") {
  if (!clstat_test::has_fp64()) return;
  const std::size_t n = 500, d = 2;
  const auto x = samples(n, d, 11);
  const GridSpec g = box(d, -3, 4, {45, 31});
  GridOptions o;
  o.method = GridMethod::sample_wise;
  o.bandwidth = Bandwidth::scaled_covariance(0.5);
  o.memory_budget_bytes = 16 * 31 * sizeof(double);  // one tile row per slab: 3 slabs
  const std::string path = "kde_grid_test_" + std::to_string(clstat_test::fresh_seed() % 1000000) + ".f64";
  std::size_t calls = 0, last = 0;
  const auto written = evaluate_grid_to_file(ctx(), x.data(), n, d, g, path, o, [&](const clstat::ProgressReport& p) {
    ++calls;
    last = static_cast<std::size_t>(p.done);
    CHECK(p.total == static_cast<double>(g.points()));
  });
  CHECK(written == g.points());
  CHECK(calls == 3);
  CHECK(last == g.points());
  std::vector<double> back(g.points());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f);
  CHECK(std::fread(back.data(), sizeof(double), back.size(), f) == back.size());
  std::fclose(f);
  std::remove(path.c_str());
  const auto direct = evaluate_grid(ctx(), x.data(), n, d, g, o);
  CHECK(back == direct);
  // As floats, rounded to nearest.
  const std::string path32 = path.substr(0, path.size() - 4) + ".f32";
  CHECK(evaluate_grid_to_file(ctx(), x.data(), n, d, g, path32, o) == g.points());
  std::vector<float> back32(g.points() + 1);
  f = std::fopen(path32.c_str(), "rb");
  REQUIRE(f);
  CHECK(std::fread(back32.data(), sizeof(float), back32.size(), f) == g.points());  // nothing more
  std::fclose(f);
  std::remove(path32.c_str());
  std::size_t same = 0;
  for (std::size_t i = 0; i < g.points(); ++i) same += back32[i] == static_cast<float>(direct[i]);
  CHECK(same == g.points());
  CHECK_THROWS_AS(evaluate_grid_to_file(ctx(), x.data(), n, d, g, "/nonexistent-dir/x.f64", o), std::runtime_error);
}
