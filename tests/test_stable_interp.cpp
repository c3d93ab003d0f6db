// The per-law interpolant (src/stable/interpolant.cpp) against the quadrature it is built from:
// the same functions at random points, within the two error estimates; quantiles; the
// device-resident form; the choice by point count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "clstat/stable.hpp"
#include "clstat/stable_fit.hpp"
#include "stable_tables.hpp"
#include "support.hpp"

namespace st = clstat::stable;

namespace {

using clstat_test::ctx;

// Contexts whose calls always (from 1 point) or never take the interpolant.
const clstat::Context& interp_ctx() {
  static const clstat::Context c = clstat_test::tuned_ctx({{"stable.interp_points", 1}});
  return c;
}
const clstat::Context& quad_ctx() {
  static const clstat::Context c = clstat_test::tuned_ctx({{"stable.interp_points", std::size_t{1} << 62}});
  return c;
}

// Points where the law lives (its own samples, seeded by the law) and a spread over [-40, 40].
std::vector<double> points(const st::Params& p, std::size_t n, std::uint64_t seed) {
  std::vector<double> x = st::sample(quad_ctx(), n / 2, p, seed);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-40, 40);
  while (x.size() < n) x.push_back(u(g));
  return x;
}

const unsigned k_all = st::fn_pdf | st::fn_cdf | st::fn_sf | st::fn_logpdf;

// |a - b| within both error estimates plus the quadrature's relative target, 1e-13 of the value:
// its estimate is G7's error, and where it is below that target (1e-14 in the light tail of
// alpha = 1.2, beta = -1) the values scatter by up to 2e-13 around the truth.
bool agree(double a, double ea, double b, double eb, double scale) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  return std::abs(a - b) <= ea + eb + 1e-13 * scale;
}

}  // namespace

TEST_CASE("stable.interp_matches_quadrature") {
  if (!clstat_test::has_fp64()) return;
  // Device-sized: 1e6 points a law on a GPU, 3000 on a CPU device (the quadrature reference
  // costs the same per point there).
  const bool gpu = ctx().info().type == clstat::DeviceType::gpu;
  const std::size_t n = gpu ? 1000000 : 3000;
  std::vector<st::Params> laws = {{1.5, 0.5, 1, 0, st::Param::S0}, {0.8, 1.0, 2, -1, st::Param::S0},
                                  {1.0, 0.5, 1, 0, st::Param::S0}, {1.2, -1.0, 0.5, 3, st::Param::S1}};
  if (gpu)
    for (double a : {0.3, 0.8, 1.0, 1.2, 1.5, 1.9, 0.9995, 1.0005})
      for (double b : {0.0, 0.5, 1.0, -1.0}) laws.push_back({a, b, 1, 0, st::Param::S0});
  for (const st::Params& p : laws) {
    CAPTURE(p.alpha);
    CAPTURE(p.beta);
    const std::vector<double> x = points(p, n, static_cast<std::uint64_t>(1000 * p.alpha + 10 * p.beta + 7));
    const st::Values a = st::evaluate(interp_ctx(), k_all, x.data(), n, p, true);
    const st::Values q = st::evaluate(quad_ctx(), k_all, x.data(), n, p, true);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // The quadrature's cdf and sf are computed apart and may miss summing to 1 by more than
      // their estimates (7.7e-14 at one point in 1e6 on the H100); the interpolant's sum to 1.
      const double apart = std::abs(q.cdf[i] + q.sf[i] - 1);
      bool ok = agree(a.pdf[i], a.pdf_error[i], q.pdf[i], q.pdf_error[i], q.pdf[i]) &&
                agree(a.cdf[i], a.cdf_error[i] + apart, q.cdf[i], q.cdf_error[i], q.cdf[i]) &&
                agree(a.sf[i], a.sf_error[i] + apart, q.sf[i], q.sf_error[i], q.sf[i]);
      if (std::isfinite(q.logpdf[i]))
        ok = ok && agree(a.logpdf[i], a.logpdf_error[i], q.logpdf[i], q.logpdf_error[i],
                         std::max(1.0, std::abs(q.logpdf[i])));
      else
        ok = ok && a.logpdf[i] == q.logpdf[i];
      // And the promise of stable.hpp where the quadrature keeps it: 1e-12 relative (pdf) and
      // 1e-13 absolute (cdf, sf) wherever its own estimate is below a tenth of that, outside the
      // steep light tails (pdf below 1e-20), where the error follows the estimates above.
      if (q.pdf_error[i] < 1e-13 * q.pdf[i] && q.pdf[i] > 1e-20)
        ok = ok && std::abs(a.pdf[i] - q.pdf[i]) <= 1e-12 * q.pdf[i];
      // (Where the quadrature's cdf and sf agree: at alpha = 1.5, beta = 1, x = 0.176 its cdf
      // was 4.2e-13 off its sf's complement, with an estimate below 1e-14.)
      if (q.cdf_error[i] < 1e-14 && apart < 1e-14) ok = ok && std::abs(a.cdf[i] - q.cdf[i]) <= 1e-13;
      if (!ok && bad++ < 3)
        MESSAGE(std::setprecision(17) << "x = " << x[i] << ": pdf " << a.pdf[i] << " +- " << a.pdf_error[i] << " vs " << q.pdf[i] << " +- "
                       << q.pdf_error[i] << "; cdf " << a.cdf[i] << " vs " << q.cdf[i] << "; sf " << a.sf[i] << " +- "
                       << a.sf_error[i] << " vs " << q.sf[i] << " +- " << q.sf_error[i] << "; logpdf " << a.logpdf[i]
                       << " vs " << q.logpdf[i]);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("stable.interp_quantiles_and_tails") {
  if (!clstat_test::has_fp64()) return;
  const st::Params p{1.3, 0.7, 2, 1, st::Param::S0};
  // Lower and upper tails down to 1e-12, and the middle.
  std::vector<double> pr;
  for (int k = 0; k <= 240; ++k) pr.push_back(std::pow(10.0, -12 + k * 0.05));
  for (std::size_t i = 0, m = pr.size(); i < m; ++i) pr.push_back(1 - pr[i]);
  const std::vector<double> a = st::quantile(interp_ctx(), pr.data(), pr.size(), p);
  const std::vector<double> u = st::isf(interp_ctx(), pr.data(), pr.size(), p);
  const unsigned fs = st::fn_cdf | st::fn_sf;
  const st::Values A = st::evaluate(quad_ctx(), fs, a.data(), a.size(), p);
  const st::Values U = st::evaluate(quad_ctx(), fs, u.data(), u.size(), p);
  for (std::size_t i = 0; i < pr.size(); ++i) {
    CAPTURE(pr[i]);
    // The round trip through the quadrature's functions on the smaller tail (1 - p is exact for
    // p > 1/2), relative to it.
    const bool low = pr[i] <= 0.5;
    const double t = low ? pr[i] : 1 - pr[i];
    CHECK(std::abs((low ? A.cdf[i] : A.sf[i]) - t) <= 1e-11 * t);
    CHECK(std::abs((low ? U.sf[i] : U.cdf[i]) - t) <= 1e-11 * t);
  }
  // The ends of the support and NaN, as the quadrature path gives them.
  const std::vector<double> ends{0.0, 1.0};
  const std::vector<double> e = st::quantile(interp_ctx(), ends.data(), 2, p);
  CHECK(e[0] == -INFINITY);
  CHECK(e[1] == INFINITY);
  const std::vector<double> odd{NAN, -1e300, 1e300, INFINITY, -INFINITY};
  const st::Values v = st::evaluate(interp_ctx(), k_all, odd.data(), odd.size(), p);
  const st::Values w = st::evaluate(quad_ctx(), k_all, odd.data(), odd.size(), p);
  for (std::size_t i = 0; i < odd.size(); ++i) {
    CAPTURE(odd[i]);
    CHECK((std::isnan(v.pdf[i]) ? std::isnan(w.pdf[i]) : v.pdf[i] == w.pdf[i]));
    CHECK((std::isnan(v.cdf[i]) ? std::isnan(w.cdf[i]) : v.cdf[i] == w.cdf[i]));
  }
}

TEST_CASE("stable.interp_resident_and_threads") {
  if (!clstat_test::has_fp64()) return;
  const st::Params p{0.8, 1.0, 1, 0, st::Param::S1};  // a support edge at 0
  const std::size_t n = 4000;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = -5 + 30.0 * static_cast<double>(i) / n;
  const clstat::Context& c = interp_ctx();
  const st::Values host = st::evaluate(c, st::fn_pdf | st::fn_cdf, x.data(), n, p);
  const clstat::Buffer<double> xb(c, x.data(), n), out(c, 2 * n);
  const clstat::Queue q = c.queue(0);
  st::evaluate_async(q, st::fn_pdf | st::fn_cdf, xb, 0, n, p, out, 0).wait();
  const std::vector<double> back = out.to_host(q);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(back[i] == host.pdf[i]);
    CHECK(back[n + i] == host.cdf[i]);
    if (x[i] < 0) CHECK(host.pdf[i] == 0);  // outside the support, exactly
  }
  // Quantiles from and into device buffers, at offsets: the host form's values, NaN for a bad
  // probability.
  std::vector<double> pr{0.5, 1e-9, 0.25, 0.999, 1.5, NAN, 0.0, 1.0};
  const std::size_t m = pr.size();
  std::vector<double> padded(3, 0.5);
  padded.insert(padded.end(), pr.begin(), pr.end());
  const clstat::Buffer<double> pb(c, padded.data(), padded.size()), qb(c, m + 5);
  for (bool upper : {false, true}) {
    st::quantile_async(q, pb, 3, m, p, qb, 5, upper).wait();
    const std::vector<double> dev = qb.to_host(q);
    const std::vector<double> hst = upper ? st::isf(c, pr.data(), m, p, 1e-12, true)
                                          : st::quantile(c, pr.data(), m, p, 1e-12, true);
    for (std::size_t i = 0; i < m; ++i) {
      CAPTURE(pr[i]);
      CHECK((std::isnan(hst[i]) ? std::isnan(dev[5 + i]) : dev[5 + i] == hst[i]));
    }
  }
  CHECK_THROWS_AS(st::quantile_async(q, pb, 4, m, p, qb, 0), std::invalid_argument);
  // Four threads asking for a new law at once get the same answers (one of them builds it, or
  // each does and one is kept: either way the same table).
  const st::Params r{1.7, -0.3, 1, 0, st::Param::S0};
  std::vector<std::vector<double>> got(4);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) ts.emplace_back([&, t] { got[t] = st::pdf(c, x.data(), n, r); });
  for (auto& t : ts) t.join();
  for (int t = 1; t < 4; ++t) CHECK(got[t] == got[0]);
  // Into caller memory through the interpolant: the vector form's values.
  std::vector<double> into(n, std::nan(""));
  st::pdf(c, x.data(), n, r, into.data());
  CHECK(into == got[0]);
}

TEST_CASE("stable.interp_chosen_by_point_count") {
  if (!clstat_test::has_fp64()) return;
  // Below stable.interp_points the quadrature answers, bit for bit as a context without the
  // interpolant; from it, the interpolant; never depending on earlier calls.
  const clstat::Context c = clstat_test::tuned_ctx({{"stable.interp_points", 500}});
  const st::Params p{1.5, 0.5, 1, 0, st::Param::S0};
  std::vector<double> x(600);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -6 + 0.02 * static_cast<double>(i);
  const std::vector<double> small_before = st::pdf(c, x.data(), 400, p);
  const std::vector<double> big = st::pdf(c, x.data(), 600, p);
  const std::vector<double> small_after = st::pdf(c, x.data(), 400, p);
  const std::vector<double> quad = st::pdf(quad_ctx(), x.data(), 400, p);
  const std::vector<double> interp = st::pdf(interp_ctx(), x.data(), 600, p);
  CHECK(small_before == quad);
  CHECK(small_after == quad);
  CHECK(big == interp);
  CHECK_THROWS_AS(clstat_test::tuned_ctx({{"stable.interp_points", 0}}), std::invalid_argument);
}

TEST_CASE("stable.interp_log_likelihood") {
  if (!clstat_test::has_fp64()) return;
  // log_likelihood through interpolants built together in shared passes: each law's sum is the
  // sum of its logpdf through the law's own interpolant (built alone), close to the quadrature's,
  // and does not depend on the other laws of the call.
  const bool gpu = ctx().info().type == clstat::DeviceType::gpu;
  const std::size_t n = gpu ? 200000 : 3000;
  const std::vector<st::Params> laws = {{1.5, 0.5, 1, 0, st::Param::S0},
                                        {1.2, -0.3, 2, 1, st::Param::S0},
                                        {0.8, 1.0, 1, -1, st::Param::S1},  // support from -1: -inf
                                        {1.9, 0.2, 0.7, 0.5, st::Param::S0},
                                        {1.5, 0.5, 3, -2, st::Param::S0}};  // the first's table again
  const std::vector<double> x = points(laws[0], n, 99);
  const std::vector<double> li = st::log_likelihood(interp_ctx(), x.data(), n, laws);
  const std::vector<double> lq = st::log_likelihood(quad_ctx(), x.data(), n, laws);
  REQUIRE(li.size() == laws.size());
  for (std::size_t k = 0; k < laws.size(); ++k) {
    CAPTURE(k);
    const st::Values v = st::evaluate(interp_ctx(), st::fn_logpdf, x.data(), n, laws[k], true);
    long double s = 0, mag = 0, err = 0;
    for (std::size_t i = 0; i < n; ++i) {
      s += v.logpdf[i];
      mag += std::abs(static_cast<long double>(v.logpdf[i]));
      err += v.logpdf_error[i];
    }
    if (std::isinf(static_cast<double>(s))) {
      CHECK(li[k] == -INFINITY);
      CHECK(lq[k] == -INFINITY);
      continue;
    }
    // The same terms, added in another order.
    CHECK(std::abs(li[k] - static_cast<double>(s)) <= 1e-14 * static_cast<double>(mag));
    // The quadrature's terms: within the error estimates plus its own target, 1e-13 a term.
    CHECK(std::abs(li[k] - lq[k]) <= static_cast<double>(err) + 1e-13 * static_cast<double>(mag) + 1e-12 * n);
    // Alone in a call, or after other laws: the same bits.
    CHECK(st::log_likelihood(interp_ctx(), x.data(), n, {laws[k]})[0] == li[k]);
  }
  CHECK(li[2] == -INFINITY);
  // Sets of other sizes in one call (the batched fit's form) leave each set's sums alone.
  const std::vector<double> y(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n / 3));
  const std::vector<double> ly = st::log_likelihood(interp_ctx(), y.data(), y.size(), {laws[3], laws[0]});
  CHECK(st::log_likelihood(interp_ctx(), y.data(), y.size(), {laws[0]})[0] == ly[1]);
  CHECK(st::log_likelihood(interp_ctx(), x.data(), 0, laws) == std::vector<double>(laws.size(), 0.0));
}

TEST_CASE("stable.interp_mle_matches_quadrature") {
  if (!clstat_test::has_fp64()) return;
  // The MLE through interpolants (its log-likelihood passes from stable.interp_points values)
  // against the MLE through the quadrature, on the same draws: the same estimate within the
  // interpolants' error. Sized for a GPU, where both take a second or less; on a CPU device the
  // interpolants' builds for the fit's hundred laws take minutes, and stable.interp_log_likelihood
  // covers the pieces.
  if (ctx().info().type != clstat::DeviceType::gpu) return;
  for (const st::Params& p : {st::Params{1.5, 0.5, 1, 0}, st::Params{0.8, -0.3, 2, 1}}) {
    CAPTURE(p.alpha);
    const std::vector<double> x = st::sample(ctx(), 100000, p, 31);
    const st::FitResult a = st::fit(interp_ctx(), x.data(), x.size());
    const st::FitResult b = st::fit(quad_ctx(), x.data(), x.size());
    CHECK(a.converged);
    CHECK(b.converged);
    CHECK(std::abs(a.params.alpha - b.params.alpha) < 1e-5);
    CHECK(std::abs(a.params.beta - b.params.beta) < 1e-5);
    CHECK(std::abs(a.params.scale / b.params.scale - 1) < 1e-5);
    CHECK(std::abs(a.params.loc - b.params.loc) < 1e-5 * b.params.scale);
    CHECK(std::abs(a.loglik - b.loglik) < 1e-9 * std::abs(b.loglik));
    CHECK(std::abs(a.se_alpha / b.se_alpha - 1) < 1e-3);
  }
}

TEST_CASE("stable.interp_matches_nolan_tables") {
  if (!clstat_test::has_fp64()) return;
  // Nolan's tables through the interpolants: every law of the tables on a GPU (420 builds), four
  // of them on a CPU device. The bars of stable.pdf_matches_nolan_tables and
  // stable.cdf_matches_nolan_tables for alpha > 0.2 (below, the tables themselves are weak near
  // zeta, and those tests replace 12 rows by 40-digit values; the cdf table's alpha = 1 rows hold
  // 6 known errors, which stable.cdf_matches_nolan_tables replaces by Gil-Pelaez values).
  const bool gpu = ctx().info().type == clstat::DeviceType::gpu;
  for (const char* name : {"stable-Z1-pdf-sample-data.csv", "stable-Z1-cdf-sample-data.csv"}) {
    const bool is_pdf = std::string(name).find("pdf") != std::string::npos;
    std::map<std::pair<double, double>, std::vector<clstat_test::Row>> by;
    for (const auto& r : clstat_test::table(name))
      if (r.alpha > 0.2 + 1e-9 && (is_pdf || r.alpha != 1)) by[{r.alpha, r.beta}].push_back(r);
    std::size_t k = 0, checked = 0;
    double worst = 0;
    for (const auto& [law, rows] : by) {
      if (!gpu && k++ % 97 != 5) continue;
      std::vector<double> x;
      for (const auto& r : rows) x.push_back(r.x);
      const st::Params p{law.first, law.second, 1, 0, st::Param::S1};
      const std::vector<double> v = is_pdf ? st::pdf(interp_ctx(), x.data(), x.size(), p)
                                           : st::cdf(interp_ctx(), x.data(), x.size(), p);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const double d = std::abs(v[i] - rows[i].value) / (is_pdf ? rows[i].value : 1.0);
        INFO(name << " alpha " << law.first << " beta " << law.second << " x " << rows[i].x << ": " << v[i]
                  << " against " << rows[i].value);
        CHECK(d < (is_pdf ? 1e-11 : 2e-12));
        worst = std::max(worst, d);
        ++checked;
      }
    }
    MESSAGE(name << ": " << checked << " points through the interpolants, worst " << worst);
  }
}
