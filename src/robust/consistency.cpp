#include "robust/consistency.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>

namespace clstat::robust::detail {

double normal_quantile(double p) { return boost::math::quantile(boost::math::normal_distribution<double>(), p); }
double normal_density(double x) { return boost::math::pdf(boost::math::normal_distribution<double>(), x); }

double asymptotic_factor(double h, double n) {
  const double c = normal_quantile((h + n) / (2 * n));
  return 1 / std::sqrt(1 - (2 * n) / (h / c) * normal_density(c));
}

namespace {

// The curves 1 - exp(a) / n^b at alpha = 0.5 and 0.875, interpolated linearly in alpha, then to
// 1 at alpha = 1. For q - intercept = p >= 2 the paper gives (a, b) through two fitted points
// (coefficient, exponent, p-scale) per alpha, solved here as robustbase does.
struct Curve {
  double a500, b500, a875, b875;
};

double curve_value(const Curve& c, double n, double alpha) {
  const double f500 = 1 - std::exp(c.a500) / std::pow(n, c.b500);
  const double f875 = 1 - std::exp(c.a875) / std::pow(n, c.b875);
  if (alpha <= 0.875) return f500 + (f875 - f500) / 0.375 * (alpha - 0.5);
  return f875 + (1 - f875) / 0.125 * (alpha - 0.875);
}

// The two-point fit of sec. 3: y_k = log(-c1_k / p^c2_k) against -log(c3_k p^2), k = 1, 2.
void two_point(const double m[6], double p, double& a, double& b) {
  const double y1 = std::log(-m[0] / std::pow(p, m[1])), y2 = std::log(-m[3] / std::pow(p, m[4]));
  const double x1 = -std::log(m[2] * p * p), x2 = -std::log(m[5] * p * p);
  b = (y1 - y2) / (x1 - x2);
  a = y1 - b * x1;
}

double factor(std::size_t q, bool intercept, std::size_t n_, double alpha, bool rew) {
  const double n = static_cast<double>(n_);
  const std::size_t p = intercept ? q - 1 : q;  // >= 1: make_design rejects p = 0
  Curve c{};
  if (p == 1) {
    if (rew)
      c = intercept ? Curve{1.58609654199605, 1.46340162526468, 0.391653958727332, 1.03167487483316}
                    : Curve{0.6329852387657, 1.40361879788014, -0.642240988645469, 0.926325452943084};
    else
      c = intercept ? Curve{0.630869217886906, 0.650789250442946, 0.565065391014791, 1.03044199012509}
                    : Curve{-0.0181777452315321, 0.697629772271099, -0.310122738776431, 1.06241615923172};
    return 1 / curve_value(c, n, alpha);
  }
  // (coefficient, exponent, scale) at the two fitted points, for alpha = 0.5 and 0.875.
  static const double raw500i[6] = {-0.746945886714663, 0.56264937192689, 3, -0.535478048924724, 0.543323462033445, 5};
  static const double raw875i[6] = {-0.458580153984614, 1.12236071104403, 3, -0.267178168108996, 1.1022478781154, 5};
  static const double raw500o[6] = {-0.487338281979106, 0.405511279418594, 3, -0.340762058011, 0.37972360544988, 5};
  static const double raw875o[6] = {-0.251778730491252, 0.883966931611758, 3, -0.146660023184295, 0.86292940340761, 5};
  static const double rew500i[6] = {-0.773365715932083, 2.02013996406346, 3, -0.337571678986723, 2.02037467454833, 5};
  static const double rew875i[6] = {-0.474174840843602, 1.39681715704956, 3, -0.276640353112907, 1.42543242287677, 5};
  static const double rew500o[6] = {-0.417574780492848, 1.83958876341367, 3, -0.175753709374146, 1.8313809497999, 5};
  static const double rew875o[6] = {-0.267522855927958, 1.17559984533974, 3, -0.161200683014406, 1.21675019853961, 5};
  const double* m500 = rew ? (intercept ? rew500i : rew500o) : (intercept ? raw500i : raw500o);
  const double* m875 = rew ? (intercept ? rew875i : rew875o) : (intercept ? raw875i : raw875o);
  two_point(m500, static_cast<double>(p), c.a500, c.b500);
  two_point(m875, static_cast<double>(p), c.a875, c.b875);
  return 1 / curve_value(c, n, alpha);
}

}  // namespace

double small_sample_raw(std::size_t q, bool intercept, std::size_t n, double alpha) {
  return factor(q, intercept, n, alpha, false);
}
double small_sample_reweighted(std::size_t q, bool intercept, std::size_t n, double alpha) {
  return factor(q, intercept, n, alpha, true);
}

double chi_square_quantile(double a, std::size_t p) {
  return boost::math::quantile(boost::math::chi_squared_distribution<double>(static_cast<double>(p)), a);
}

double mcd_consistency(std::size_t p, double a) {
  if (a >= 1) return 1;
  const double q = chi_square_quantile(a, p);
  // F_{p+2}(q) = P(p / 2 + 1, q / 2), the regularised lower incomplete gamma function.
  return a / boost::math::gamma_p(static_cast<double>(p) / 2 + 1, q / 2);
}

namespace {

double mcd_factor(std::size_t p_, std::size_t n_, double alpha, bool rew) {
  const double n = static_cast<double>(n_), p = static_cast<double>(p_);
  Curve c{};
  if (p_ == 1) {
    c = rew ? Curve{1.11098143415027, 1.5182890270453, -0.66046776772861, 0.88939595831888}
            : Curve{0.262024211897096, 0.604756680630497, -0.351584646688712, 1.01646567502486};
  } else if (p_ == 2) {
    c = rew ? Curve{3.11101712909049, 1.91401056721863, 0.79473550581058, 1.10081930350091}
            : Curve{0.673292623522027, 0.691365864961895, 0.446537815635445, 1.06690782995919};
  } else {
    static const double raw500[6] = {-1.42764571687802, 1.26263336932151, 2, -1.06141115981725, 1.28907991440387, 3};
    static const double raw875[6] = {-0.455179464070565, 1.11192541278794, 2, -0.294241208320834, 1.09649329149811, 3};
    static const double rew500[6] = {-1.02842572724793, 1.67659883081926, 2, -0.26800273450853, 1.35968562893582, 3};
    static const double rew875[6] = {-0.544482443573914, 1.25994483222292, 2, -0.343791072183285, 1.25159004257133, 3};
    two_point(rew ? rew500 : raw500, p, c.a500, c.b500);
    two_point(rew ? rew875 : raw875, p, c.a875, c.b875);
  }
  return 1 / curve_value(c, n, alpha);
}

}  // namespace

double mcd_small_sample_raw(std::size_t p, std::size_t n, double alpha) { return mcd_factor(p, n, alpha, false); }
double mcd_small_sample_reweighted(std::size_t p, std::size_t n, double alpha) { return mcd_factor(p, n, alpha, true); }

}  // namespace clstat::robust::detail
