// Robust regression: LTS equal to robustbase::ltsReg and LMS equal to MASS::lqs on stackloss and
// hbk (tests/data/robust/lts_r.txt, exhaustive enumeration in R, tools/golden/robust_lts.R); the
// nested extension and the long-data LMS on planted outliers; reproducibility; bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>

#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::throws_with;

namespace {

struct DataSet {
  std::size_t n = 0, p = 0;
  std::vector<double> x, y;
};

struct Golden {
  std::map<std::string, DataSet> data;
  std::map<std::string, std::map<std::string, std::vector<std::string>>> cases;  // case -> key -> words
};

const Golden& golden() {
  static const Golden g = [] {
    Golden out;
    std::ifstream f(std::string(CLSTAT_TEST_DATA_DIR) + "/robust/lts_r.txt");
    REQUIRE(f.good());
    std::string line;
    DataSet* cur = nullptr;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line);
      std::string a, b;
      s >> a;
      if (a == "data") {
        s >> b;
        cur = &out.data[b];
        s >> cur->n >> cur->p;
        continue;
      }
      if (a == "row") {
        double v;
        s >> v;
        cur->y.push_back(v);
        for (std::size_t j = 0; j < cur->p; ++j) {
          s >> v;
          cur->x.push_back(v);
        }
        continue;
      }
      s >> b;
      std::vector<std::string> words;
      std::string w;
      while (s >> w) words.push_back(w);
      out.cases[a][b] = words;
    }
    return out;
  }();
  return g;
}

std::vector<double> nums(const std::vector<std::string>& w) {
  std::vector<double> v;
  for (const auto& s : w) v.push_back(std::stod(s));
  return v;
}

std::vector<std::size_t> rows1(const std::vector<std::string>& w) {  // R's 1-based -> 0-based
  std::vector<std::size_t> v;
  for (const auto& s : w) v.push_back(std::stoul(s) - 1);
  return v;
}

void close_all(const std::vector<double>& got, const std::vector<double>& want, double rel, const char* what) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(what << "[" << i << "]: got " << got[i] << ", R " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= rel * std::max(1.0, std::fabs(want[i])));
  }
}

// Fit-for-fit comparison with robustbase. Coefficients and scales to 1e-9 relative (R's QR and
// ours differ in rounding only); robustbase's crit to 1e-7 (its Fortran standardises y itself).
void check_lts_case(const std::string& name, bool exact, std::size_t nsamp) {
  const auto& c = golden().cases.at(name);
  const auto& hdr = c.at("lts");
  const DataSet& d = golden().data.at(hdr[0]);
  robust::LtsOptions o;
  o.alpha = std::stod(hdr[1]);
  o.intercept = hdr[2] == "1";
  o.exact = exact;
  o.nsamp = nsamp;
  const auto f = robust::lts(ctx(), d.x.data(), d.n, d.p, d.y.data(), o);
  INFO("case " << name << ", starts " << f.starts << ", objective " << f.objective);
  CHECK(f.h == std::stoul(c.at("h")[0]));
  CHECK(f.best == rows1(c.at("best")));
  close_all(f.raw_coefficients, nums(c.at("raw_coefficients")), 1e-9, "raw coefficient");
  close_all(f.coefficients, nums(c.at("coefficients")), 1e-9, "coefficient");
  close_all({f.raw_scale, f.scale}, {nums(c.at("raw_scale"))[0], nums(c.at("scale"))[0]}, 1e-9, "scale");
  close_all({f.raw_cnp2[0], f.raw_cnp2[1], f.cnp2[0], f.cnp2[1]},
            {nums(c.at("raw_cnp2"))[0], nums(c.at("raw_cnp2"))[1], nums(c.at("cnp2"))[0], nums(c.at("cnp2"))[1]},
            1e-12, "cnp2");
  close_all({f.crit_robustbase}, nums(c.at("crit")), 1e-7, "crit");
  CHECK(f.outliers == rows1(c.at("outliers")));
  std::vector<std::size_t> raw_out;
  for (std::size_t i = 0; i < d.n; ++i)
    if (!f.raw_weights[i]) raw_out.push_back(i);
  CHECK(raw_out == rows1(c.at("raw_outliers")));
  CHECK(f.converged);
}

// y = 2 + x . (1, -1, 0.5, ...) + N(0, 0.1^2) with the first `bad` rows shifted by +50 in y and
// moved to x = 10 in column 0 (bad leverage points).
DataSet planted(std::size_t n, std::size_t p, std::size_t bad, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, 1);
  DataSet d;
  d.n = n;
  d.p = p;
  d.x.resize(n * p);
  d.y.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double f = 2;
    for (std::size_t j = 0; j < p; ++j) {
      d.x[i * p + j] = z(g);
      f += (j % 2 ? -1.0 : 1.0) / static_cast<double>(j / 2 + 1) * d.x[i * p + j];
    }
    d.y[i] = f + 0.1 * z(g);
    if (i < bad) {
      d.x[i * p] = 10 + z(g);
      d.y[i] += 50;
    }
  }
  return d;
}

std::vector<double> truth(std::size_t p) {
  std::vector<double> b{2};
  for (std::size_t j = 0; j < p; ++j) b.push_back((j % 2 ? -1.0 : 1.0) / static_cast<double>(j / 2 + 1));
  return b;
}

}  // namespace

TEST_CASE("robust.lts_stackloss_equals_robustbase") {
  if (!clstat_test::has_fp64()) return;
  check_lts_case("sl50", true, 0);
  check_lts_case("sl75", true, 0);
  check_lts_case("sl50n", true, 0);
  check_lts_case("sl50", false, 500);  // robustbase's default search finds the same optimum
}

TEST_CASE("robust.lts_hbk_equals_robustbase") {
  if (!clstat_test::has_fp64()) return;
  // R's reference enumerates all 1.2 million p-subsets; every one of 3000 random starts runs its
  // C-steps to convergence here, which reaches the same optimum (robustbase's default search
  // misses it for some seeds: its crit 3.7312 against 3.7246).
  check_lts_case("hbk50", false, 3000);
  check_lts_case("hbk90", false, 3000);
}

TEST_CASE("robust.lms_stackloss_equals_mass_lqs") {
  if (!clstat_test::has_fp64()) return;
  for (const std::string name : {"slms", "slmsn"}) {
    const auto& c = golden().cases.at(name);
    const auto& hdr = c.at("lms");
    const DataSet& d = golden().data.at(hdr[0]);
    robust::LmsOptions o;
    o.h = std::stoul(hdr[1]);
    o.intercept = hdr[2] == "1";
    o.exact = true;
    const auto f = robust::lms(ctx(), d.x.data(), d.n, d.p, d.y.data(), o);
    INFO("case " << name);
    CHECK(f.exhaustive);
    // Not compared: MASS's bestone. With the intercept adjusted, p-subsets whose fits share the
    // slopes tie exactly (here rows 8, 10, 11, 15 in R's answer and 8, 11, 15 with another row
    // in ours, whose criteria differ by rounding only), and which one wins is an accident of
    // enumeration order and rounding. The fit they give is compared below.
    CHECK(f.best.size() == f.q);
    close_all({f.crit}, nums(c.at("crit")), 1e-9, "crit");
    // An exactly zero R coefficient (-7e-17) is compared on the absolute scale.
    close_all(f.coefficients, nums(c.at("coefficients")), 1e-9, "coefficient");
    close_all({f.scale[0], f.scale[1]}, nums(c.at("scale")), 1e-9, "scale");
  }
}

TEST_CASE("robust.lts_nested_finds_the_clean_fit") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 6000, p = 3, bad = 1800;  // 30% bad leverage points; n > 2048: nested
  const DataSet d = planted(n, p, bad, seed);
  robust::LtsOptions o;
  o.seed = seed;
  const auto f = robust::lts(ctx(), d.x.data(), n, p, d.y.data(), o);
  CHECK(f.converged);
  const auto b = truth(p);
  for (std::size_t j = 0; j <= p; ++j) CHECK(std::fabs(f.coefficients[j] - b[j]) < 0.02);
  // robustbase's reweighted scale carries the consistency factor of the weights' fraction (here
  // about 0.7, factor 1.8) as if every row were normal; without it, the noise's 0.1.
  CHECK(std::fabs(f.scale / (f.cnp2[0] * f.cnp2[1]) - 0.1) < 0.01);
  // Every planted row is flagged, and few clean ones (2.5% by the cut-off).
  CHECK(std::count_if(f.outliers.begin(), f.outliers.end(), [&](std::size_t i) { return i < bad; }) ==
        static_cast<std::ptrdiff_t>(bad));
  CHECK(f.outliers.size() < bad + (n - bad) / 20);
  // The raw fit is a C-step fixed point: least squares on best, whose rows are the h smallest
  // squared residuals of that fit.
  std::vector<double> r2(n);
  for (std::size_t i = 0; i < n; ++i) {
    double r = d.y[i] - f.raw_coefficients[0];
    for (std::size_t j = 0; j < p; ++j) r -= f.raw_coefficients[j + 1] * d.x[i * p + j];
    r2[i] = r * r;
  }
  double worst_in = 0, best_out = INFINITY;
  std::vector<char> in(n, 0);
  for (auto i : f.best) in[i] = 1;
  for (std::size_t i = 0; i < n; ++i) (in[i] ? worst_in : best_out) = in[i] ? std::max(worst_in, r2[i]) : std::min(best_out, r2[i]);
  CHECK(worst_in <= best_out * (1 + 1e-9));
  // The same seed, the same fit.
  const auto g = robust::lts(ctx(), d.x.data(), n, p, d.y.data(), o);
  CHECK(g.best == f.best);
  CHECK(g.coefficients == f.coefficients);
}

TEST_CASE("robust.lts_design_in_blocks") {
  // Past 65536 rows the design's moments are merged block by block: the clean fit still, and a
  // bad value is named by its row in the whole data, y's before its row's x.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 150000, p = 2, bad = 30000;
  DataSet d = planted(n, p, bad, seed);
  robust::LtsOptions o;
  o.seed = seed;
  const auto f = robust::lts(ctx(), d.x.data(), n, p, d.y.data(), o);
  const auto b = truth(p);
  for (std::size_t j = 0; j <= p; ++j) CHECK(std::fabs(f.coefficients[j] - b[j]) < 0.01);
  // The passes over all rows run by blocks on the host's threads and select on the device: the
  // h-subset, the objective and robustbase's y scale against a direct computation here.
  REQUIRE(f.best.size() == f.h);
  CHECK(std::is_sorted(f.best.begin(), f.best.end()));
  std::vector<double> r2(n);
  for (std::size_t i = 0; i < n; ++i) {
    double r = d.y[i] - f.raw_coefficients[0];
    for (std::size_t j = 0; j < p; ++j) r -= f.raw_coefficients[j + 1] * d.x[i * p + j];
    r2[i] = r * r;
  }
  std::vector<double> sorted(r2);
  std::sort(sorted.begin(), sorted.end());
  long double ref = 0;
  for (std::size_t i = 0; i < f.h; ++i) ref += sorted[i];
  CHECK(std::fabs(f.objective - static_cast<double>(ref)) <= 1e-12 * static_cast<double>(ref));
  std::vector<double> ys(d.y);
  std::sort(ys.begin(), ys.end());
  const double med = 0.5 * (ys[n / 2 - 1] + ys[n / 2]);  // n even
  for (std::size_t i = 0; i < n; ++i) ys[i] = std::fabs(d.y[i] - med);
  std::sort(ys.begin(), ys.end());
  const double mad = 0.5 * (ys[n / 2 - 1] + ys[n / 2]) * static_cast<double>(1.4826f);
  CHECK(f.crit_robustbase == f.objective / (mad * mad));
  std::size_t flagged = 0;
  for (std::size_t i = 0; i < n; ++i) flagged += f.raw_weights[i] == 0;
  CHECK(flagged >= bad);
  d.x[100000 * p + 1] = NAN;
  throws_with([&] { robust::lts(ctx(), d.x.data(), n, p, d.y.data(), o); }, "x[100000, 1] is not finite");
  d.y[140000] = NAN;
  d.y[100000] = INFINITY;
  throws_with([&] { robust::lts(ctx(), d.x.data(), n, p, d.y.data(), o); }, "y[100000] is not finite");
}

// Least squares in long double on the centred data (no centring without an intercept): the
// normal equations of (x - xbar, y - ybar), solved by Gaussian elimination with partial pivoting.
std::vector<double> least_squares_ld(const std::vector<double>& x, const std::vector<double>& y, std::size_t n,
                                     std::size_t p, bool intercept) {
  std::vector<long double> xm(p, 0), a(p * (p + 1), 0);
  long double ym = 0;
  if (intercept) {
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < p; ++j) xm[j] += x[i * p + j];
      ym += y[i];
    }
    for (auto& v : xm) v /= static_cast<long double>(n);
    ym /= static_cast<long double>(n);
  }
  std::vector<long double> r(p);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) r[j] = x[i * p + j] - xm[j];
    const long double yi = y[i] - ym;
    for (std::size_t j = 0; j < p; ++j) {
      for (std::size_t k = 0; k < p; ++k) a[j * (p + 1) + k] += r[j] * r[k];
      a[j * (p + 1) + p] += r[j] * yi;
    }
  }
  for (std::size_t c = 0; c < p; ++c) {
    std::size_t piv = c;
    for (std::size_t i = c + 1; i < p; ++i)
      if (std::fabs(a[i * (p + 1) + c]) > std::fabs(a[piv * (p + 1) + c])) piv = i;
    for (std::size_t k = 0; k <= p; ++k) std::swap(a[c * (p + 1) + k], a[piv * (p + 1) + k]);
    for (std::size_t i = c + 1; i < p; ++i) {
      const long double f = a[i * (p + 1) + c] / a[c * (p + 1) + c];
      for (std::size_t k = c; k <= p; ++k) a[i * (p + 1) + k] -= f * a[c * (p + 1) + k];
    }
  }
  std::vector<long double> b(p);
  for (std::size_t c = p; c-- > 0;) {
    long double v = a[c * (p + 1) + p];
    for (std::size_t k = c + 1; k < p; ++k) v -= a[c * (p + 1) + k] * b[k];
    b[c] = v / a[c * (p + 1) + c];
  }
  std::vector<double> out;
  if (intercept) {
    long double b0 = ym;
    for (std::size_t j = 0; j < p; ++j) b0 -= b[j] * xm[j];
    out.push_back(static_cast<double>(b0));
  }
  for (auto v : b) out.push_back(static_cast<double>(v));
  return out;
}

TEST_CASE("robust.lts_alpha_one_is_least_squares_in_blocks") {
  // alpha = 1 is least squares on every row (as robustbase), which the host computes in blocks
  // of 65536 rows and sub-blocks of 1024, their co-moments merged pairwise: 140000 rows leave a
  // part-filled last block and sub-block. A column far from 0 (mean 1e4, spread 1e-2 of it)
  // needs the centring; without an intercept the raw cross products are summed. Each against
  // least squares in long double.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 140000, p = 3;
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> x(n * p), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i * p] = z(g);
    x[i * p + 1] = 1e4 + 100 * z(g);
    x[i * p + 2] = 0.5 * x[i * p] + z(g);
    y[i] = 3 + 2 * x[i * p] - 0.01 * x[i * p + 1] + 0.5 * x[i * p + 2] + 0.3 * z(g);
  }
  for (const bool intercept : {true, false}) {
    INFO("intercept " << intercept);
    robust::LtsOptions o;
    o.alpha = 1;
    o.intercept = intercept;
    const auto f = robust::lts(ctx(), x.data(), n, p, y.data(), o);
    const auto want = least_squares_ld(x, y, n, p, intercept);
    REQUIRE(f.raw_coefficients.size() == want.size());
    for (std::size_t j = 0; j < want.size(); ++j) {
      INFO("coefficient " << j << ": " << f.raw_coefficients[j] << " against " << want[j]);
      CHECK(std::fabs(f.raw_coefficients[j] - want[j]) <= 1e-12 * std::max(1.0, std::fabs(want[j])));
    }
  }
}

TEST_CASE("robust.lts_exact_fit") {
  if (!clstat_test::has_fp64()) return;
  // 70% of the rows lie exactly on y = 1 + 2 x1 - 3 x2 (small integers, exact in double), the
  // rest far off it: the raw scale is 0 and the fit is that plane, for the block (n = 200) and the
  // nested (n = 3000) search.
  for (std::size_t n : {200u, 3000u}) {
    std::mt19937_64 g(n);
    std::uniform_int_distribution<int> u(-20, 20);
    std::vector<double> x(2 * n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[2 * i] = u(g);
      x[2 * i + 1] = u(g);
      y[i] = 1 + 2 * x[2 * i] - 3 * x[2 * i + 1] + (i % 10 < 3 ? 100.0 + u(g) : 0.0);
    }
    const auto f = robust::lts(ctx(), x.data(), n, 2, y.data());
    INFO("n = " << n);
    CHECK(f.exact_fit);
    CHECK(f.scale == 0);
    close_all(f.coefficients, {1, 2, -3}, 1e-9, "coefficient");
    CHECK(f.outliers.size() == 3 * n / 10);
  }
}

TEST_CASE("robust.lms_long_data") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 3000, p = 2, bad = 900;
  const DataSet d = planted(n, p, bad, seed);
  for (bool adjust : {true, false}) {
    robust::LmsOptions o;
    o.nsamp = 40;
    o.seed = seed;
    o.adjust = adjust;
    const auto f = robust::lms(ctx(), d.x.data(), n, p, d.y.data(), o);
    INFO("adjust " << adjust);
    const auto b = truth(p);
    // The best of 40 elemental fits through 3 noisy points (sd 0.1) scatters by about 0.1 around
    // the truth (0.128 for seed 2358894244799742769); a fit pulled by the 30% planted outliers
    // (x shifted by 10, y by 50) would be off by more than 1.
    for (std::size_t j = 0; j <= p; ++j) CHECK(std::fabs(f.coefficients[j] - b[j]) < 0.3);
    // crit is the h-th smallest squared residual of the fit returned.
    std::vector<double> r2(n);
    for (std::size_t i = 0; i < n; ++i) r2[i] = f.residuals[i] * f.residuals[i];
    std::nth_element(r2.begin(), r2.begin() + (f.h - 1), r2.end());
    CHECK(std::fabs(r2[f.h - 1] - f.crit) <= 1e-9 * f.crit);
    for (std::size_t i = 0; i < bad; ++i) CHECK(std::find(f.outliers.begin(), f.outliers.end(), i) != f.outliers.end());
  }
}

// The random LMS/LQS search against MASS::lqs with the same number of subsets (3000), in
// distribution: over seeds 1..20 (aircraft) and 1..6 (the contaminated regression) the mean
// criterion is at most the mean of MASS's over R's seeds 1..20 (tests/data/robust/lms_search.txt,
// tools/golden/lms_search.R), and the exhaustive search finds MASS's exhaustive optimum.
TEST_CASE("robust.lms_search_against_mass") {
  if (!clstat_test::has_fp64()) return;
  std::ifstream in(CLSTAT_TEST_DATA_DIR "/robust/lms_search.txt");
  REQUIRE(in);
  struct Set {
    std::size_t n = 0, p = 0, h = 0;
    std::vector<double> x, y, mass;
    double exact = 0;
  };
  std::map<std::string, Set> sets;
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string a;
    ss >> a;
    if (a == "data") {
      ss >> current;
      Set& t = sets[current];
      ss >> t.n >> t.p >> t.h;
    } else if (a == "row") {
      Set& t = sets[current];
      double v;
      ss >> v;
      t.y.push_back(v);
      for (std::size_t j = 0; j < t.p; ++j) ss >> v, t.x.push_back(v);
    } else {
      std::string key;
      ss >> key;
      Set& t = sets.at(a);
      for (double v; ss >> v;) (key == "mass_crit" ? t.mass.push_back(v) : void(t.exact = v));
    }
  }
  REQUIRE(sets.size() == 2);
  for (const auto& [name, t] : sets) {
    REQUIRE(t.y.size() == t.n);
    REQUIRE(t.mass.size() == 20);
    const int seeds = name == "aircraft" ? 20 : 6;
    double ours = 0, mass = 0;
    for (int s = 1; s <= seeds; ++s) {
      robust::LmsOptions o;
      o.h = t.h;
      o.seed = static_cast<std::uint64_t>(s);
      ours += robust::lms(ctx(), t.x.data(), t.n, t.p, t.y.data(), o).crit / seeds;
    }
    for (double v : t.mass) mass += v / 20;
    MESSAGE(name << ": mean LQS criterion " << ours << " over " << seeds << " seeds, MASS " << mass << " over 20");
    CHECK(ours <= mass);
    if (t.exact > 0) {
      robust::LmsOptions o;
      o.h = t.h;
      o.exact = true;
      CHECK(robust::lms(ctx(), t.x.data(), t.n, t.p, t.y.data(), o).crit == doctest::Approx(t.exact).epsilon(1e-9));
    }
  }
}

TEST_CASE("robust.bad_input") {
  if (!clstat_test::has_fp64()) return;
  std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8}, y{1, 2, 3, 5, 4, 6, 7, 9};
  CHECK(robust::lts_coverage(0.5, 21, 4) == 13);   // robustbase: h.alpha.n(0.5, 21, 4)
  CHECK(robust::lts_coverage(0.75, 21, 4) == 17);
  CHECK(robust::lts_coverage(1.0, 21, 4) == 21);
  throws_with([] { robust::lts_coverage(0.3, 21, 4); }, "outside [0.5, 1]");
  throws_with([] { robust::lts_coverage(0.5, 3, 4); }, "q = 4 coefficients for n = 3");
  throws_with([&] { robust::lts(ctx(), x.data(), 0, 1, y.data()); }, "n = 0");
  throws_with([&] { robust::lts(ctx(), x.data(), 4, 1, y.data()); }, "more than 2 times");  // n <= 2q
  throws_with([&] { robust::lts(ctx(), x.data(), 8, 0, y.data()); }, "p = 0");
  std::vector<double> c(8, 3.0);
  throws_with([&] { robust::lts(ctx(), c.data(), 8, 1, y.data()); }, "column 0 of x is constant");
  std::vector<double> two(16);
  for (int i = 0; i < 8; ++i) {
    two[2 * i] = i;
    two[2 * i + 1] = 2 * i + 1;  // = 2 x1 + 1: dependent with the intercept
  }
  throws_with([&] { robust::lts(ctx(), two.data(), 8, 2, y.data()); }, "linearly dependent");
  auto xn = x;
  xn[3] = NAN;
  throws_with([&] { robust::lts(ctx(), xn.data(), 8, 1, y.data()); }, "x[3, 0] is not finite");
  auto yn = y;
  yn[5] = INFINITY;
  throws_with([&] { robust::lts(ctx(), x.data(), 8, 1, yn.data()); }, "y[5] is not finite");
  robust::LtsOptions o;
  o.alpha = 0.4;
  throws_with([&] { robust::lts(ctx(), x.data(), 8, 1, y.data(), o); }, "outside [0.5, 1]");
  o = {};
  o.nsamp = 0;
  throws_with([&] { robust::lts(ctx(), x.data(), 8, 1, y.data(), o); }, "nsamp = 0");
  throws_with([&] { robust::lts(ctx(), nullptr, 8, 1, y.data()); }, "null");
  {
    const DataSet big = planted(400, 3, 0, 7);
    o = {};
    o.exact = true;  // C(400, 4) = 1.05e9 p-subsets
    throws_with([&] { robust::lts(ctx(), big.x.data(), 400, 3, big.y.data(), o); }, "past 2^25");
  }
  throws_with([&] { robust::lms(ctx(), x.data(), 4, 1, y.data()); }, "more than 2 times");
  throws_with([&] { robust::lms(ctx(), c.data(), 8, 1, y.data()); }, "constant");
  robust::LmsOptions lo;
  lo.h = 2;
  throws_with([&] { robust::lms(ctx(), x.data(), 8, 1, y.data(), lo); }, "h = 2 is outside");
}
