// Rules of thumb: closed forms on the sample covariance or spread, computed on the host.
#include <cmath>

#include "bandwidth/bandwidth_input.hpp"
#include "kde/kde_plan.hpp"
#include "clstat/bandwidth.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

std::vector<double> normal_scale(const double* x, std::size_t n, std::size_t d) {
  const char* op = "clstat::bandwidth::normal_scale";
  check_data(op, x, n, d);
  const double dd = static_cast<double>(d);
  const double f = std::pow(4.0 / ((dd + 2) * static_cast<double>(n)), 2.0 / (dd + 4));
  return row_major(covariance(op, x, n, d) * f);
}

std::vector<double> scott(const double* x, std::size_t n, std::size_t d) {
  const char* op = "clstat::bandwidth::scott";
  check_data(op, x, n, d);
  const double f = std::pow(static_cast<double>(n), -2.0 / (static_cast<double>(d) + 4));
  return row_major(covariance(op, x, n, d) * f);
}

std::vector<double> silverman_rot(const double* x, std::size_t n, std::size_t d) {
  const char* op = "clstat::bandwidth::silverman_rot";
  check_data(op, x, n, d);
  std::vector<double> h(d);
  for (std::size_t k = 0; k < d; ++k) {
    std::vector<double> c = column(x, n, d, k);
    const ColumnStats st = column_stats(c.data(), n, true);
    const double sd = st.sd, first = c[0], iqr = st.q3 - st.q1;
    double lo = std::min(sd, iqr / 1.34);
    // R's bw.nrd0 fallbacks, in its order.
    if (!(lo > 0)) lo = sd;
    if (!(lo > 0)) lo = std::abs(first);
    if (!(lo > 0)) lo = 1;
    h[k] = 0.9 * lo * std::pow(static_cast<double>(n), -0.2);
  }
  return h;
}

double epanechnikov_constant(std::size_t d) {
  if (d == 0) throw std::invalid_argument("clstat::bandwidth::epanechnikov_constant: d must be at least 1");
  // [8 (d + 4) (2 sqrt(pi))^d / c_d]^(1/(d+4)), c_d the unit ball's volume: the radial rule's
  // constant for the spherical Epanechnikov, shared with grid_normal_scale.
  return kde_detail::normal_scale_factor("clstat::bandwidth::epanechnikov_constant", Kernel::epanechnikov, d);
}

double epanechnikov_normal_scale(std::size_t n, std::size_t d) {
  if (n < 1) throw std::invalid_argument("clstat::bandwidth::epanechnikov_normal_scale: n must be at least 1");
  return epanechnikov_constant(d) * std::pow(static_cast<double>(n), -1 / (static_cast<double>(d) + 4));
}

}  // namespace clstat::bandwidth
