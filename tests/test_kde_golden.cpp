// KDE against scipy.stats.gaussian_kde (tests/data/kde_scipy.csv, made by tools/golden/kde_scipy.py).
// gaussian_kde's bandwidth is H = factor^2 * cov(x): unweighted, that is
// Bandwidth::scaled_covariance(factor); weighted, SciPy uses the weighted covariance with the
// 1 / (1 - sum w^2) correction, which the test builds and passes as Bandwidth::matrix.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "support.hpp"

using namespace clstat;

namespace {

struct GoldenCase {
  std::size_t d = 0;
  double factor = 0;
  bool weighted = false;
  std::vector<double> x, w, y, f;
};

double parse_value(std::string s) {  // "np.float64(0.25)" or "0.25"
  const auto open = s.find('(');
  if (open != std::string::npos) s = s.substr(open + 1, s.rfind(')') - open - 1);
  return std::stod(s);
}

std::map<std::string, GoldenCase> load() {
  std::ifstream in(CLSTAT_TEST_DATA_DIR "/kde_scipy.csv");
  REQUIRE(in);
  std::map<std::string, GoldenCase> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string tok;
    while (std::getline(ss, tok, ',')) f.push_back(tok);
    GoldenCase& c = cases[f[0]];
    c.d = std::stoul(f[1]);
    c.factor = std::stod(f[2]);
    c.weighted = f[3] == "1";
    std::vector<double> v;
    for (std::size_t k = 6; k < f.size(); ++k) v.push_back(parse_value(f[k]));
    if (f[4] == "x") {
      c.x.insert(c.x.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(c.d));
      if (c.weighted) c.w.push_back(v[c.d]);
    } else if (f[4] == "y") {
      c.y.insert(c.y.end(), v.begin(), v.end());
    } else {
      c.f.push_back(v[0]);
    }
  }
  return cases;
}

}  // namespace

TEST_CASE("kde.scipy_golden") {
  const auto cases = load();
  REQUIRE(cases.size() == 4);
  const bool f64 = clstat_test::has_fp64();
  for (const auto& [name, c] : cases) {
    INFO(name);
    const std::size_t n = c.x.size() / c.d, m = c.y.size() / c.d;
    KdeOptions o;
    o.precision = f64 ? Precision::float64 : Precision::float32;
    if (!c.weighted) {
      o.bandwidth = Bandwidth::scaled_covariance(c.factor);
    } else {
      std::vector<double> w = c.w, mean(c.d, 0), H(c.d * c.d, 0);
      double sw = 0, sw2 = 0;
      for (double v : w) sw += v;
      for (auto& v : w) v /= sw, sw2 += v * v;
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t a = 0; a < c.d; ++a) mean[a] += w[j] * c.x[j * c.d + a];
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t a = 0; a < c.d; ++a)
          for (std::size_t b = 0; b < c.d; ++b)
            H[a * c.d + b] += w[j] * (c.x[j * c.d + a] - mean[a]) * (c.x[j * c.d + b] - mean[b]);
      for (auto& v : H) v *= c.factor * c.factor / (1 - sw2);
      o.bandwidth = Bandwidth::matrix(H);
      o.weights = c.w;
    }
    const auto got = kde(clstat_test::ctx(), c.x.data(), n, c.d, c.y.data(), m, o);
    // SciPy's own rounding is ~1e-15; fp32 devices get a loose bar (no input-rounding allowance here).
    for (std::size_t i = 0; i < m; ++i) CHECK(got[i] == doctest::Approx(c.f[i]).epsilon(f64 ? 1e-12 : 1e-4));
  }
}
