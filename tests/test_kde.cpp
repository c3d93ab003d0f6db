// KDE against the long-double reference on fresh random data: every kernel and bandwidth form in
// fp64 (1e-12 relative) and fp32 (2e-5 relative), weights, leave-one-out, log density, chunking,
// the four kernel variants, the asynchronous and device-buffer forms.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "reference/kde_ref.hpp"
#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::throws_with;

namespace {

const char* kname(Kernel k) {
  static const char* names[] = {"gaussian", "epanechnikov", "biweight", "triweight", "triangular", "uniform", "cosine"};
  return names[static_cast<int>(k)];
}
const Kernel k_all[] = {Kernel::gaussian,   Kernel::epanechnikov, Kernel::biweight, Kernel::triweight,
                        Kernel::triangular, Kernel::uniform,      Kernel::cosine};

double tol_for(Precision p) { return p == Precision::float64 ? 1e-12 : 2e-5; }
long double eps_for(Precision p) { return p == Precision::float64 ? 0x1p-53L : 0x1p-24L; }

// Checks got against the reference: relative tolerance where the density exceeds 1e-300, plus
// what rounding the inputs to the device precision alone changes (KdeValue::ambiguity).
void check_against(const std::vector<double>& got, const std::vector<clstat_ref::KdeValue>& ref, double tol,
                   bool log_density) {
  REQUIRE(got.size() == ref.size());
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const long double r = ref[i].value;
    if (log_density) {
      if (r < 1e-300L) {
        if (!(got[i] < -690)) ++bad;  // log of a density below 1e-300
        continue;
      }
      const long double lo = std::log(std::max(r - ref[i].ambiguity, 1e-300L)), hi = std::log(r + ref[i].ambiguity);
      const long double e = got[i] < lo ? lo - got[i] : got[i] > hi ? got[i] - hi : 0;
      worst = std::max(worst, double(e));
      if (!(e <= tol) || std::isnan(got[i])) ++bad;
      continue;
    }
    if (r < 1e-300L) {
      if (!(std::fabs(got[i]) <= 1e-300 + ref[i].ambiguity)) ++bad;
      continue;
    }
    const long double e = std::fabs(got[i] - r) - ref[i].ambiguity;
    worst = std::max(worst, double(e / r));
    if (!(e <= tol * r) || std::isnan(got[i])) ++bad;
  }
  INFO("worst relative error beyond the input-rounding allowance " << worst << ", tolerance " << tol);
  CHECK(bad == 0);
}

struct Case {
  std::size_t n = 700, m = 150, d = 1;
  Precision prec = Precision::float64;
  KdeOptions opt;
};

Case kcase(std::size_t d, Precision p, Kernel k, Bandwidth b) {
  Case c;
  c.d = d;
  c.prec = p;
  c.opt.kernel = k;
  c.opt.bandwidth = std::move(b);
  return c;
}

std::vector<double> random_spd(std::size_t d, std::uint64_t seed, double scale) {
  auto g = clstat_test::normal<double>(d * d, seed);
  std::vector<double> H(d * d, 0);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < d; ++k) s += g[i * d + k] * g[j * d + k];
      H[i * d + j] = scale * (s / d + (i == j ? 0.5 : 0.0));
    }
  return H;
}

void run_case(Case c, std::uint64_t seed, bool at_samples = false) {
  c.opt.precision = c.prec;
  const auto x = clstat_test::normal<double>(c.n * c.d, seed, 0.5, 1.3);
  const auto y = clstat_test::normal<double>(c.m * c.d, seed + 1, 0.5, 1.6);
  const auto got = at_samples ? kde_at_samples(ctx(), x.data(), c.n, c.d, c.opt)
                              : kde(ctx(), x.data(), c.n, c.d, y.data(), c.m, c.opt);
  const auto ref = clstat_ref::kde(x, c.n, c.d, y, c.m, c.opt, at_samples, eps_for(c.prec));
  check_against(got, ref, tol_for(c.prec), c.opt.log_density);
}

std::vector<Precision> precisions() {
  std::vector<Precision> p{Precision::float32};
  if (clstat_test::has_fp64()) p.push_back(Precision::float64);
  return p;
}

// The simd variant's result against a scalar variant's: the same bits, except that the Gaussian's
// exp2 may round a vector lane differently from a scalar call (PoCL's does, by an ulp or so), so
// its sums of positive terms are held to 64 ulps: a lane that met a wrong point or skipped a wrong
// sample would be off by a whole term, some 1/n.
bool same_as_scalar_variants(const std::vector<double>& got, const std::vector<double>& want, Kernel k, Precision p) {
  if (k != Kernel::gaussian) return got == want;
  if (got.size() != want.size()) return false;
  const double ulp = p == Precision::float64 ? 0x1p-52 : 0x1p-23;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 64 * ulp * want[i])) return false;
  return true;
}

}  // namespace

TEST_CASE("kde.radial_integral") {
  for (Kernel k : k_all)
    for (std::size_t d : {1, 2, 3, 5, 8}) {
      INFO(std::string(kname(k)) << " d=" << d);
      const double ref = double(clstat_ref::radial_integral(k, d));
      CHECK(radial_kernel_integral(k, d) == doctest::Approx(ref).epsilon(1e-10));
    }
  // The 1-d constants of Wand & Jones table 2.1.
  CHECK(1 / radial_kernel_integral(Kernel::epanechnikov, 1) == doctest::Approx(0.75).epsilon(1e-15));
  CHECK(1 / radial_kernel_integral(Kernel::cosine, 1) == doctest::Approx(M_PI / 4).epsilon(1e-15));
  CHECK(1 / radial_kernel_integral(Kernel::triweight, 1) == doctest::Approx(35.0 / 32).epsilon(1e-15));
}

TEST_CASE("kde.product_kernels") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (Precision p : precisions())
    for (Kernel k : k_all) {
      INFO(std::string(kname(k)) << (p == Precision::float64 ? " fp64" : " fp32"));
      run_case(kcase(1, p, k, Bandwidth::scalar(0.37)), seed);
      run_case(kcase(3, p, k, Bandwidth::per_dimension({0.6, 0.9, 1.2})), seed + 7);
    }
}

TEST_CASE("kde.matrix_bandwidth") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (Precision p : precisions())
    for (Kernel k : k_all) {
      INFO(std::string(kname(k)) << (p == Precision::float64 ? " fp64" : " fp32"));
      run_case(kcase(3, p, k, Bandwidth::matrix(random_spd(3, seed + 3, k == Kernel::gaussian ? 0.4 : 1.5))), seed);
      run_case(kcase(2, p, k, Bandwidth::scaled_covariance(k == Kernel::gaussian ? 0.4 : 0.9)), seed + 11);
    }
}

TEST_CASE("kde.gaussian_dimensions") {
  // Both forms of the Gaussian exponent (expanded square and difference) at several d.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (Precision p : precisions())
    for (std::size_t d : {1, 2, 6, 16})
      for (int dot : {0, 1}) {
        INFO("d=" << d << " dot=" << dot << (p == Precision::float64 ? " fp64" : " fp32"));
        Case c;
        c.d = d;
        c.n = 500;
        c.m = 120;
        c.prec = p;
        c.opt.launch.expanded_square = dot;
        // A bandwidth of the size a selector would choose: Scott's rule for N(0, 1.3^2 I).
        const double h = 1.3 * std::pow(double(c.n), -1.0 / (d + 4));
        std::vector<double> H(d * d, 0);
        for (std::size_t a = 0; a < d; ++a) H[a * d + a] = h * h;
        c.opt.bandwidth = Bandwidth::matrix(H);
        run_case(c, seed + d);
      }
}

TEST_CASE("kde.weights_loo_log") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  auto w = clstat_test::normal<double>(700, seed + 5);
  for (auto& v : w) v = std::fabs(v) * 3;  // unnormalised on purpose
  for (Precision p : precisions())
    for (Kernel k : {Kernel::gaussian, Kernel::epanechnikov}) {
      INFO(std::string(kname(k)) << (p == Precision::float64 ? " fp64" : " fp32"));
      Case c;
      c.prec = p;
      c.opt.kernel = k;
      c.opt.bandwidth = Bandwidth::scalar(0.5);
      c.opt.weights = w;
      run_case(c, seed);                        // weighted
      Case loo = c;
      loo.opt.weights.clear();
      loo.opt.leave_one_out = true;
      run_case(loo, seed, true);                // leave-one-out
      loo.opt.weights = w;
      run_case(loo, seed, true);                // weighted leave-one-out
      Case at = c;
      at.opt.weights.clear();
      run_case(at, seed, true);                 // at the samples, own term included
      Case lg = c;
      lg.opt.log_density = true;
      lg.d = 2;
      lg.opt.bandwidth = Bandwidth::per_dimension({0.4, 0.7});
      lg.opt.weights.clear();
      run_case(lg, seed);                       // log density
    }
}

TEST_CASE("kde.loo_drops_exactly_the_own_term") {
  // f_{-i}(x_i) (n-1) + K_h(0)/1 = f(x_i) n for an unweighted Gaussian.
  const auto x = clstat_test::normal<double>(300, clstat_test::fresh_seed());
  KdeOptions o;
  o.bandwidth = Bandwidth::scalar(0.3);
  o.precision = clstat_test::has_fp64() ? Precision::float64 : Precision::float32;
  const auto full = kde_at_samples(ctx(), x.data(), x.size(), 1, o);
  o.leave_one_out = true;
  const auto loo = kde_at_samples(ctx(), x.data(), x.size(), 1, o);
  const double k0 = 1 / (0.3 * std::sqrt(2 * M_PI));
  for (std::size_t i = 0; i < x.size(); ++i)
    CHECK(loo[i] * 299 + k0 == doctest::Approx(full[i] * 300).epsilon(o.precision == Precision::float64 ? 1e-12 : 2e-5));
}

TEST_CASE("kde.chunking_and_variants_agree_bitwise") {
  // A small memory budget forces streamed sample blocks and many point chunks over several queues;
  // variants and launch settings change only speed. All must give identical bits (the simd
  // variant's Gaussian: see same_as_scalar_variants).
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 3000, m = 2100, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed);
  const auto y = clstat_test::normal<double>(m * d, seed + 1);
  for (Precision p : precisions())
    for (Kernel k : {Kernel::gaussian, Kernel::biweight}) {
      INFO(std::string(kname(k)) << (p == Precision::float64 ? " fp64" : " fp32"));
      KdeOptions o;
      o.kernel = k;
      o.precision = p;
      o.bandwidth = Bandwidth::per_dimension({0.3, 0.5});
      o.launch.expanded_square = 0;
      const auto base = kde(ctx(), x.data(), n, d, y.data(), m, o);
      const auto ref = clstat_ref::kde(x, n, d, y, m, o, false, eps_for(p));
      check_against(base, ref, tol_for(p), false);
      KdeOptions chunked = o;
      chunked.memory_budget_bytes = 64 * 1024;  // about 700 samples and 600 points per block
      CHECK(kde(ctx(), x.data(), n, d, y.data(), m, chunked) == base);
      KdeOptions ou = o;
      ou.variant = KdeVariant::unrolled;
      const auto scalar = kde(ctx(), x.data(), n, d, y.data(), m, ou);
      for (KdeVariant v : {KdeVariant::naive, KdeVariant::tiled, KdeVariant::unrolled, KdeVariant::simd}) {
        KdeOptions ov = o;
        ov.variant = v;
        ov.launch.work_group = v == KdeVariant::naive ? 32 : 64;
        ov.launch.points_per_item = v == KdeVariant::tiled ? 1 : 2;
        ov.launch.tile = v == KdeVariant::tiled ? 128 : 64;
        ov.launch.unroll = 2;
        for (int vr : {0, 1}) {
          ov.launch.vector_rows = vr;
          INFO("variant " << static_cast<int>(v) << " vector rows " << vr);
          const auto got = kde(ctx(), x.data(), n, d, y.data(), m, ov);
          if (v == KdeVariant::simd)
            CHECK(same_as_scalar_variants(got, scalar, k, p));
          else
            CHECK(got == scalar);
        }
      }
      KdeOptions lo = o;
      lo.leave_one_out = true;
      const auto loo = kde_at_samples(ctx(), x.data(), n, d, lo);
      lo.memory_budget_bytes = 64 * 1024;
      CHECK(kde_at_samples(ctx(), x.data(), n, d, lo) == loo);
    }
}

TEST_CASE("kde.vector_rows_change_no_bits") {
  // Rows padded to 16-byte vectors (zeros after the weight) must give the same bits as scalar rows,
  // for both exponent forms, weights and leave-one-out, at strides that need 0 to 3 pad values.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 700;
  for (std::size_t d : {3u, 5u, 16u}) {
    const auto x = clstat_test::normal<double>(n * d, seed + d);
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) w[i] = 0.5 + static_cast<double>(i % 7);
    for (Precision p : precisions())
      for (int dot : {0, 1})
        for (bool weighted : {false, true}) {
          INFO("d " << d << (p == Precision::float64 ? " fp64" : " fp32") << " dot " << dot << " weighted " << weighted);
          KdeOptions o;
          o.precision = p;
          o.bandwidth = Bandwidth::scaled_covariance(0.6);
          if (weighted) o.weights = w;
          o.leave_one_out = true;
          o.variant = KdeVariant::unrolled;
          o.launch.work_group = 64;
          o.launch.points_per_item = 2;
          o.launch.tile = 128;
          o.launch.expanded_square = dot;
          o.launch.vector_rows = 0;
          const auto scalar = kde_at_samples(ctx(), x.data(), n, d, o);
          const auto ref = clstat_ref::kde(x, n, d, x, n, o, true, eps_for(p));
          check_against(scalar, ref, tol_for(p), false);
          o.launch.vector_rows = 1;
          CHECK(kde_at_samples(ctx(), x.data(), n, d, o) == scalar);
          o.variant = KdeVariant::tiled;
          CHECK(kde_at_samples(ctx(), x.data(), n, d, o) == scalar);
        }
  }
}

TEST_CASE("kde.polynomial_exp2_share") {
  // The Gaussian terms whose exp2 runs as clstat's polynomial (EXP_POLY: the first exp_poly of every
  // 8 samples): within the precision's tolerance of the long-double reference, for both exponent
  // forms, weights and leave-one-out, and points far enough out that terms underflow; and, for
  // each share, the same bits from every scalar variant, launch shape and chunking, because the
  // choice follows the global sample index.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 1000, m = 300;
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = 0.5 + static_cast<double>(i % 3);
  for (std::size_t d : {1u, 5u})
    for (Precision p : precisions())
      for (int share : {1, 3, 8}) {
        const bool weighted = share == 3, dot = d == 5 && share != 1;
        INFO("d " << d << (p == Precision::float64 ? " fp64" : " fp32") << " share " << share << " weighted "
                  << weighted << " dot " << dot);
        const auto x = clstat_test::normal<double>(n * d, seed + d + share);
        auto y = clstat_test::normal<double>(m * d, seed + d + share + 7, 0.0, 1.6);
        // Every term underflows at the first point; at the second (fp64) they are near 2^-211 (d = 1),
        // below float's range, where fp32 estimates are 0 whatever the exp2.
        for (std::size_t k = 0; k < d; ++k) y[k] = 40.0;
        if (p == Precision::float64)
          for (std::size_t k = 0; k < d; ++k) y[d + k] = -12.0;
        KdeOptions o;
        o.precision = p;
        o.bandwidth = Bandwidth::scaled_covariance(0.7);
        if (weighted) o.weights = w;
        o.variant = KdeVariant::unrolled;
        o.launch.work_group = 64;
        o.launch.points_per_item = 2;
        o.launch.unroll = 4;
        o.launch.expanded_square = dot ? 1 : 0;
        o.launch.exp_poly = share;
        const auto base = kde(ctx(), x.data(), n, d, y.data(), m, o);
        check_against(base, clstat_ref::kde(x, n, d, y, m, o, false, eps_for(p)), tol_for(p), false);
        for (KdeVariant v : {KdeVariant::naive, KdeVariant::tiled}) {
          KdeOptions ov = o;
          ov.variant = v;
          ov.launch.work_group = 32;
          ov.launch.points_per_item = 1;
          ov.launch.tile = 128;
          CHECK(kde(ctx(), x.data(), n, d, y.data(), m, ov) == base);
        }
        KdeOptions chunked = o;
        chunked.memory_budget_bytes = 48 * 1024;
        CHECK(kde(ctx(), x.data(), n, d, y.data(), m, chunked) == base);
        KdeOptions lo = o;
        lo.leave_one_out = true;
        const auto loo = kde_at_samples(ctx(), x.data(), n, d, lo);
        check_against(loo, clstat_ref::kde(x, n, d, x, n, lo, true, eps_for(p)), tol_for(p), false);
        lo.variant = KdeVariant::tiled;
        CHECK(kde_at_samples(ctx(), x.data(), n, d, lo) == loo);
      }
}

TEST_CASE("kde.simd_variant_matches_the_others_bitwise") {
  // The CPU-shaped variant keeps each point's sample order and CHUNK partition, so it must give the
  // bits of the unrolled one (the Gaussian: see same_as_scalar_variants): for both forms of every
  // kernel, both exponent forms of the Gaussian, weights and leave-one-out, vector widths from 2 to
  // 16, point counts that end mid-vector, and work-groups of several vectors. The dimension and the
  // width turn with the case, so that each program is built once (builds dominate the run time).
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 301, m = 77, dims[] = {1, 3, 16}, widths[] = {2, 8, 16};
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = 0.25 + static_cast<double>(i % 5);
  std::size_t c = 0;
  for (Precision p : precisions())
    for (Kernel k : k_all)
      for (int form = 0; form < 3; ++form, ++c) {
        // form 0: diagonal h (product form; the Gaussian's is radial), 1: matrix H, 2: the Gaussian
        // with the expanded square.
        if (form == 2 && k != Kernel::gaussian) continue;
        const std::size_t d = dims[c % 3], lanes = widths[(c / 3) % 3];
        const bool weighted = c % 2 == 1;
        INFO("d " << d << " " << std::string(kname(k)) << " form " << form << (p == Precision::float64 ? " fp64" : " fp32")
                  << " weighted " << weighted << " lanes " << lanes);
        const auto x = clstat_test::normal<double>(n * d, seed + c);
        const auto y = clstat_test::normal<double>(m * d, seed + c + 1000);
        KdeOptions o;
        o.kernel = k;
        o.precision = p;
        o.bandwidth = form ? Bandwidth::scaled_covariance(0.9) : Bandwidth::scalar(0.8);
        if (weighted) o.weights = w;
        o.variant = KdeVariant::unrolled;
        o.launch.work_group = 64;
        o.launch.points_per_item = 2;
        o.launch.expanded_square = form == 2 ? 1 : 0;
        KdeOptions s = o;
        s.variant = KdeVariant::simd;
        s.launch.lanes = lanes;
        s.launch.work_group = lanes == 8 ? 4 : 1;
        s.launch.points_per_item = lanes == 2 ? 3 : 2;
        CHECK(same_as_scalar_variants(kde(ctx(), x.data(), n, d, y.data(), m, s), kde(ctx(), x.data(), n, d, y.data(), m, o), k, p));
        o.leave_one_out = s.leave_one_out = true;
        CHECK(same_as_scalar_variants(kde_at_samples(ctx(), x.data(), n, d, s), kde_at_samples(ctx(), x.data(), n, d, o), k, p));
      }
}

TEST_CASE("kde.async_and_device_buffers") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  const std::size_t n = 900, m = 333, d = 3;
  const auto x = clstat_test::normal<double>(n * d, seed);
  const auto y = clstat_test::normal<double>(m * d, seed + 1);
  KdeOptions o;
  o.precision = Precision::float32;
  o.bandwidth = Bandwidth::scaled_covariance(0.5);
  const auto sync = kde(ctx(), x.data(), n, d, y.data(), m, o);

  Future<std::vector<double>> f = kde_async(ctx().queue(1), x.data(), n, d, y.data(), m, o);
  CHECK(f.get() == sync);

  // Row-major at offsets: 3 values before the samples, 2 d before the points, 4 before the output.
  std::vector<float> xf(3, 7.0f), yf(2 * d, 7.0f);
  xf.insert(xf.end(), x.begin(), x.end());
  yf.insert(yf.end(), y.begin(), y.end());
  Buffer<float> xb(ctx(), xf.data(), xf.size()), yb(ctx(), yf.data(), yf.size()), out(ctx(), 4 + m);
  Queue q = ctx().queue(0);
  Event filled = out.fill_async(ctx().queue(2), std::nanf(""));  // another queue: the wait list orders it
  kde_async(q, xb, 3, n, d, yb, 2 * d, m, out, 4, o, {filled}).wait();
  auto dev = out.to_host(q);
  dev.erase(dev.begin(), dev.begin() + 4);
  const auto ref = clstat_ref::kde(x, n, d, y, m, o, false, 0x1p-24L, false);
  std::vector<double> devd(dev.begin(), dev.end());
  for (double v : devd) CHECK(!std::isnan(v));  // every element written
  // No centring on this path, so compare to the reference, not bit for bit to the host form.
  check_against(devd, ref, 2e-5, false);

  KdeOptions lo = o;
  lo.leave_one_out = true;
  Buffer<float> out2(ctx(), n);
  out2.fill_async(q, std::nanf("")).wait();
  kde_async(q, xb, 3, n, d, xb, 3, n, out2, 0, lo).wait();
  const auto d2 = out2.to_host(q);
  check_against(std::vector<double>(d2.begin(), d2.end()), clstat_ref::kde(x, n, d, x, n, lo, true, 0x1p-24L, false), 2e-5, false);
}

TEST_CASE("kde.bad_input") {
  const std::vector<double> x{0.1, 0.2, 0.3, 0.4, 1.5, 0.9}, y{0.0, 0.5};
  KdeOptions o;
  o.precision = Precision::float32;
  throws_with([&] { kde(ctx(), x.data(), 0, 1, y.data(), 2, o); }, "empty");
  throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), 0, o); }, "no evaluation points");
  throws_with([&] { kde(ctx(), x.data(), 6, 0, y.data(), 2, o); }, "dimension d = 0");
  // Sizes whose byte counts wrap are refused before anything is read (n = 2^61 + 1, d = 8).
  throws_with([&] { kde(ctx(), x.data(), (std::size_t(1) << 61) + 1, 8, y.data(), 2, o); }, "overflow");
  throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), (std::size_t(1) << 61) + 1, o); }, "overflow");
  // The vector form never truncates a ragged table: 5 values are not rows of d = 2.
  const std::vector<double> five{1, 2, 3, 4, 5}, two{0, 0};
  throws_with([&] { kde(ctx(), five, 2, two, o); }, "not whole rows");
  throws_with([&] { kde(ctx(), x.data(), 1, 65, y.data(), 1, o); }, "dimension d = 65");
  auto xn = x;
  xn[3] = std::nan("");
  throws_with([&] { kde(ctx(), xn.data(), 6, 1, y.data(), 2, o); }, "NaN at row 3");
  auto yi = y;
  yi[1] = INFINITY;
  throws_with([&] { kde(ctx(), x.data(), 6, 1, yi.data(), 2, o); }, "evaluation points contain Inf");
  for (double h : {0.0, -1.0, std::nan("")}) {
    o.bandwidth = Bandwidth::scalar(h);
    throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), 2, o); }, "> 0");
  }
  o.bandwidth = Bandwidth::per_dimension({0.3, 0.3, 0.3});
  throws_with([&] { kde(ctx(), x.data(), 3, 2, y.data(), 1, o); }, "per-dimension bandwidth has 3 values, d = 2");
  o.bandwidth = Bandwidth::matrix({1, 2, 2, 1});
  throws_with([&] { kde(ctx(), x.data(), 3, 2, y.data(), 1, o); }, "not positive definite");
  o.bandwidth = Bandwidth::matrix({1, 0.5, 0.4, 1});
  throws_with([&] { kde(ctx(), x.data(), 3, 2, y.data(), 1, o); }, "not symmetric");
  o.bandwidth = Bandwidth::matrix({1, 0, 0});
  throws_with([&] { kde(ctx(), x.data(), 3, 2, y.data(), 1, o); }, "needs d*d = 4");
  const std::vector<double> line{0, 0, 1, 1, 2, 2, 3, 3};  // collinear: singular covariance
  o.bandwidth = Bandwidth::scaled_covariance(0.5);
  throws_with([&] { kde(ctx(), line.data(), 4, 2, y.data(), 1, o); }, "positive definite");
  o.bandwidth = Bandwidth::scalar(0.3);
  o.weights = {1, 1};
  throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), 2, o); }, "weights has 2 values for 6 samples");
  o.weights = {1, 1, -1, 1, 1, 1};
  throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), 2, o); }, "negative");
  o.weights = {0, 0, 0, 0, 0, 0};
  throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), 2, o); }, "sum to zero");
  o.weights.clear();
  o.leave_one_out = true;
  throws_with([&] { kde(ctx(), x.data(), 6, 1, y.data(), 2, o); }, "kde_at_samples");
  throws_with([&] { kde_at_samples(ctx(), x.data(), 1, 1, o); }, "at least 2 samples");
  if (!clstat_test::has_fp64()) {
    KdeOptions d64;
    CHECK_THROWS_AS(kde(ctx(), x.data(), 6, 1, y.data(), 2, d64), UnsupportedFeature);
  }
  CHECK_THROWS_AS(radial_kernel_integral(Kernel::gaussian, 0), std::invalid_argument);
}

TEST_CASE("kde.bad_input_async_forms") {
  const std::vector<double> x{0.1, 0.2, 0.3, 0.4, 1.5, 0.9}, y{0.0, 0.5};
  KdeOptions o;
  o.precision = Precision::float32;
  o.bandwidth = Bandwidth::scalar(0.3);
  const Queue q = ctx().queue(0);
  CHECK_THROWS_WITH_AS(kde_async(q, nullptr, 6, 1, y.data(), 2, o), doctest::Contains("null sample pointer"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(kde_async(q, x.data(), 6, 1, nullptr, 2, o), doctest::Contains("null point pointer"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(kde_async(q, x.data(), 6, 1, y.data(), 0, o), doctest::Contains("no evaluation points"),
                       std::invalid_argument);

  std::vector<float> xf(x.begin(), x.end()), yf(y.begin(), y.end());
  Buffer<float> xb(ctx(), xf.data(), 6), yb(ctx(), yf.data(), 2), out(ctx(), 2);
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 0, 7, 1, yb, 0, 2, out, 0, o), doctest::Contains("sample buffer smaller"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 1, 6, 1, yb, 0, 2, out, 0, o), doctest::Contains("sample buffer smaller"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 0, 6, 1, yb, 0, 3, out, 0, o), doctest::Contains("point buffer smaller"),
                       std::invalid_argument);
  Buffer<float> small(ctx(), 1);
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 0, 6, 1, yb, 0, 2, small, 0, o), doctest::Contains("output buffer smaller"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 0, 6, 1, yb, 0, 2, out, 1, o), doctest::Contains("output buffer smaller"),
                       std::invalid_argument);
  KdeOptions o64 = o;
  o64.precision = Precision::float64;
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 0, 6, 1, yb, 0, 2, out, 0, o64),
                       doctest::Contains("does not match options.precision"), std::invalid_argument);
  o.bandwidth = Bandwidth::scalar(-1);
  CHECK_THROWS_WITH_AS(kde_async(q, xb, 0, 6, 1, yb, 0, 2, out, 0, o), doctest::Contains("> 0"), std::invalid_argument);
}
