// The matrix bandwidth selectors: the plug-in and SCV against ks::Hpi and ks::Hscv (binned =
// FALSE) and the minimisers of ks's own criteria (tests/data/bandwidth_hpi.txt and
// bandwidth_hscv.txt, made by tools/golden/bandwidth_hpi.R and bandwidth_hscv.R), affine
// equivariance on fresh random data, and bad input.
#include <doctest/doctest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "reference/tagged_golden.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;
namespace bw = clstat::bandwidth;

namespace {

struct HpiGolden {
  clstat_ref::TaggedSet set;
  int stages = 2;
  std::string pilot;
};

std::map<std::string, HpiGolden> load_hpi(const char* file = "bandwidth_hpi.txt") {
  const std::string path = std::string(CLSTAT_TEST_DATA_DIR) + "/" + file;
  std::map<std::string, HpiGolden> g;
  for (auto& [name, s] : clstat_ref::load_tagged(path, {"opt"})) g[name].set = s;
  clstat_ref::for_each_tagged(path, [&](const std::string& tag, const std::string& name, std::istringstream& is) {
    if (tag == "opt") is >> g[name].stages >> g[name].pilot;
  });
  return g;
}

// max |a - b| over max |b|.
double scaled_diff(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double m = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i])), s = std::max(s, std::fabs(b[i]));
  return m / s;
}

}  // namespace

TEST_CASE("bandwidth.plugin_H_equals_ks") {
  if (!clstat_test::has_fp64()) return;
  const auto g = load_hpi();
  REQUIRE(g.size() == 8);
  for (const auto& [name, e] : g) {
    INFO(name);
    const auto& v = e.set.v;
    bw::MatrixSelectorOptions o;
    o.stages = e.stages;
    // ks's numbers: its own SAMSE lookup (equal to samse with one stage).
    o.pilot = e.pilot == "samse" ? bw::MatrixPilot::samse_ks : bw::MatrixPilot::dscalar;
    const auto r = bw::plugin_H(ctx(), v.at("data").data(), e.set.n, e.set.p, o);
    CHECK(r.converged);
    CHECK(r.pilot == o.pilot);
    // The criterion's minimiser: ks's criterion at it to 1e-12, H to 1e-6 (the reference's own
    // search converges to about 1e-8 of H's scale).
    CHECK(std::fabs(r.criterion - v.at("ref_PI")[0]) <= 1e-12 * v.at("ref_PI")[0]);
    CHECK(scaled_diff(r.H, v.at("ref_H")) <= 1e-6);
    // ks::Hpi itself: never a larger criterion; H as near as ks's search stops to the minimum.
    CHECK(r.criterion <= v.at("ks_PI")[0] * (1 + 1e-13));
    CHECK(scaled_diff(r.H, v.at("ks_H")) <= 5e-4);
    MESSAGE(name << ": |H - ks::Hpi| / max|H| = " << scaled_diff(r.H, v.at("ks_H"))
                 << ", |H - minimiser| / max|H| = " << scaled_diff(r.H, v.at("ref_H")));
    if (v.count("pilot_g")) CHECK(std::fabs(r.pilot_g - v.at("pilot_g")[0]) <= 1e-13 * v.at("pilot_g")[0]);
    if (e.pilot != "samse") continue;
    // SAMSE as its formula says: R's minimiser of the criterion with the psi_6 lookup mended.
    o.pilot = bw::MatrixPilot::samse;
    const auto f = bw::plugin_H(ctx(), v.at("data").data(), e.set.n, e.set.p, o);
    CHECK(f.converged);
    if (e.stages == 1) {
      CHECK(f.H == r.H);
      continue;
    }
    CHECK(std::fabs(f.pilot_g - v.at("fix_g")[0]) <= 1e-13 * v.at("fix_g")[0]);
    CHECK(std::fabs(f.criterion - v.at("fix_PI")[0]) <= 1e-12 * v.at("fix_PI")[0]);
    CHECK(scaled_diff(f.H, v.at("fix_H")) <= 1e-6);
    // Automatic: samse at d = 2, dscalar above.
    const auto a = bw::plugin_H(ctx(), v.at("data").data(), e.set.n, e.set.p);
    CHECK(a.H == (e.set.p == 2 ? f.H : bw::plugin_H(ctx(), v.at("data").data(), e.set.n, e.set.p,
                                                     bw::MatrixSelectorOptions{2, bw::MatrixPilot::dscalar}).H));
  }
}

TEST_CASE("bandwidth.scv_H_equals_ks") {
  if (!clstat_test::has_fp64()) return;
  const auto g = load_hpi("bandwidth_hscv.txt");
  REQUIRE(g.size() == 6);
  for (const auto& [name, e] : g) {
    INFO(name);
    const auto& v = e.set.v;
    bw::MatrixSelectorOptions o;
    o.stages = e.stages;
    o.pilot = e.pilot == "samse" ? bw::MatrixPilot::samse : bw::MatrixPilot::dscalar;
    const auto r = bw::scv_H(ctx(), v.at("data").data(), e.set.n, e.set.p, o);
    CHECK(r.converged);
    CHECK(r.pilot == o.pilot);
    CHECK(r.psi4.empty());
    // The samse pilot rests on a minimiser (the pilot H), which R's reference finds to about 1e-10.
    CHECK(std::fabs(r.pilot_g - v.at("pilot_g")[0]) <= (e.pilot == "samse" ? 1e-9 : 1e-13) * v.at("pilot_g")[0]);
    CHECK(std::fabs(r.criterion - v.at("ref_SCV")[0]) <= 1e-10 * v.at("ref_SCV")[0]);
    CHECK(scaled_diff(r.H, v.at("ref_H")) <= 1e-6);
    if (e.pilot == "dscalar") CHECK(r.criterion <= v.at("ks_SCV")[0] * (1 + 1e-13));
    MESSAGE(name << ": |H - ks::Hscv| / max|H| = " << scaled_diff(r.H, v.at("ks_H"))
                 << ", |H - minimiser| / max|H| = " << scaled_diff(r.H, v.at("ref_H")) << ", " << r.iterations
                 << " BFGS steps");
  }
}

TEST_CASE("bandwidth.scv_h_equals_ks") {
  if (!clstat_test::has_fp64()) return;
  const auto g = clstat_ref::load_tagged(std::string(CLSTAT_TEST_DATA_DIR) + "/bandwidth_scv_1d.txt");
  REQUIRE(g.size() == 3);
  for (const auto& [name, e] : g) {
    INFO(name);
    const auto& x = e.v.at("data");
    for (int stages : {1, 2}) {
      INFO("stages " << stages);
      const std::string s = std::to_string(stages);
      const double h = bw::scv_h(ctx(), x.data(), e.n, 1, bw::ScvOptions{stages})[0];
      // The criterion is flat to rounding within about 1e-8 of h at its minimum.
      CHECK(std::fabs(h - e.v.at("ref_h" + s)[0]) <= 1e-7 * h);
      CHECK(std::fabs(h - e.v.at("ks_h" + s)[0]) <= 1e-4 * h);  // hscv's own search tolerance
    }
    // Columns are independent: two columns give each one's bandwidth.
    std::vector<double> two(2 * e.n);
    for (std::size_t i = 0; i < e.n; ++i) two[2 * i] = x[i], two[2 * i + 1] = 2 * x[e.n - 1 - i];
    const auto h2 = bw::scv_h(ctx(), two.data(), e.n, 2);
    CHECK(std::fabs(h2[0] - e.v.at("ref_h2")[0]) <= 1e-7 * h2[0]);
    CHECK(std::fabs(h2[1] - 2 * e.v.at("ref_h2")[0]) <= 2e-7 * h2[1]);
  }
  std::vector<double> flat(50, 3.0);
  CHECK_THROWS_AS(bw::scv_h(ctx(), flat.data(), 50, 1), std::invalid_argument);
  CHECK_THROWS_AS(bw::scv_h(ctx(), flat.data(), 50, 1, bw::ScvOptions{3}), std::invalid_argument);
}

// H(x A' + b) = A H(x) A' for the dscalar pilot, plug-in and SCV (every step is invariant under
// the rotation that sphering leaves free); the samse pilot sums over coordinate multi-indices, so only shifts and
// uniform scaling carry through it.
TEST_CASE("bandwidth.matrix_selectors_are_affine_equivariant") {
  if (!clstat_test::has_fp64()) return;
  for (int rep = 0; rep < 2; ++rep) {
    const std::uint64_t seed = clstat_test::fresh_seed();
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> N;
    std::uniform_real_distribution<double> U(-1, 1);
    const std::size_t n = 150, d = 3;
    std::vector<double> x(n * d);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k) x[i * d + k] = N(rng) + (k == 0 && i % 3 == 0 ? 2.5 : 0.0) + 0.4 * x[i * d];
    Eigen::Matrix3d A;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) A(a, b) = U(rng) + (a == b ? 2.0 : 0.0);
    const Eigen::Vector3d shift(U(rng) * 10, U(rng) * 10, U(rng) * 10);
    const double c = 0.3 + std::fabs(U(rng)) * 5;
    std::vector<double> y(n * d), z(n * d);
    for (std::size_t i = 0; i < n; ++i) {
      const Eigen::Vector3d xi(x[i * d], x[i * d + 1], x[i * d + 2]);
      const Eigen::Vector3d yi = A * xi + shift;
      for (std::size_t k = 0; k < d; ++k) y[i * d + k] = yi(static_cast<int>(k)), z[i * d + k] = c * xi(static_cast<int>(k)) - shift(static_cast<int>(k));
    }
    for (auto pilot : {bw::MatrixPilot::dscalar, bw::MatrixPilot::samse}) {
      bw::MatrixSelectorOptions o;
      o.pilot = pilot;
      const auto hx = bw::plugin_H(ctx(), x.data(), n, d, o);
      const Eigen::Matrix3d Hx = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(hx.H.data());
      const auto hz = bw::plugin_H(ctx(), z.data(), n, d, o);
      const Eigen::Matrix3d Hz = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(hz.H.data());
      CHECK((Hz - c * c * Hx).cwiseAbs().maxCoeff() <= 1e-9 * c * c * Hx.cwiseAbs().maxCoeff());
      CHECK(std::fabs(hz.criterion - hx.criterion) <= 1e-10 * hx.criterion);
      if (pilot == bw::MatrixPilot::dscalar) {
        const auto hy = bw::plugin_H(ctx(), y.data(), n, d, o);
        const Eigen::Matrix3d Hy = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(hy.H.data());
        const Eigen::Matrix3d want = A * Hx * A.transpose();
        CHECK((Hy - want).cwiseAbs().maxCoeff() <= 1e-8 * want.cwiseAbs().maxCoeff());
        CHECK(std::fabs(hy.criterion - hx.criterion) <= 1e-10 * hx.criterion);
        CHECK(std::fabs(hy.pilot_g - hx.pilot_g) <= 1e-12 * hx.pilot_g);
        // SCV's minimiser (BFGS to 1e-12 of a step; the criterion's curvature leaves H good to
        // about 1e-8 of its scale).
        const auto sx = bw::scv_H(ctx(), x.data(), n, d, o), sy = bw::scv_H(ctx(), y.data(), n, d, o);
        const Eigen::Matrix3d Sx = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(sx.H.data());
        const Eigen::Matrix3d Sy = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(sy.H.data());
        const Eigen::Matrix3d swant = A * Sx * A.transpose();
        CHECK(sx.converged);
        CHECK((Sy - swant).cwiseAbs().maxCoeff() <= 1e-6 * swant.cwiseAbs().maxCoeff());
        CHECK(std::fabs(sy.criterion - sx.criterion) <= 1e-10 * sx.criterion);
      }
    }
  }
}

TEST_CASE("bandwidth.plugin_H_bad_input") {
  if (!clstat_test::has_fp64()) return;
  std::vector<double> x(60);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> N;
  for (auto& v : x) v = N(rng);
  CHECK_THROWS_WITH_AS(bw::plugin_H(ctx(), x.data(), 60, 1), doctest::Contains("d = 1"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bw::plugin_H(ctx(), x.data(), 8, 7), doctest::Contains("2 to 6"), std::invalid_argument);
  bw::MatrixSelectorOptions o;
  o.stages = 3;
  CHECK_THROWS_WITH_AS(bw::plugin_H(ctx(), x.data(), 30, 2, o), doctest::Contains("stages"), std::invalid_argument);
  CHECK_THROWS_AS(bw::plugin_H(ctx(), nullptr, 30, 2), std::invalid_argument);
  CHECK_THROWS_AS(bw::plugin_H(ctx(), x.data(), 2, 2), std::invalid_argument);
  std::vector<double> bad = x;
  bad[17] = NAN;
  CHECK_THROWS_AS(bw::plugin_H(ctx(), bad.data(), 30, 2), std::invalid_argument);
  std::vector<double> line(60);  // two equal columns: S is singular
  for (std::size_t i = 0; i < 30; ++i) line[2 * i] = line[2 * i + 1] = x[i];
  CHECK_THROWS_AS(bw::plugin_H(ctx(), line.data(), 30, 2), std::invalid_argument);
  CHECK_THROWS_AS(bw::scv_H(ctx(), line.data(), 30, 2), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bw::scv_H(ctx(), x.data(), 60, 1), doctest::Contains("2 to 6"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(bw::scv_H(ctx(), x.data(), 30, 2, bw::MatrixSelectorOptions{2, bw::MatrixPilot::samse_ks}),
                       doctest::Contains("samse_ks"), std::invalid_argument);
  CHECK_THROWS_AS(bw::scv_H(ctx(), bad.data(), 30, 2), std::invalid_argument);
  CHECK(bw::matrix_pilot("samse-ks") == bw::MatrixPilot::samse_ks);
  CHECK(bw::matrix_pilot("auto") == bw::MatrixPilot::automatic);
  CHECK_THROWS_WITH_AS(bw::matrix_pilot("ks"), doctest::Contains("'ks' is not auto"), std::invalid_argument);
}
