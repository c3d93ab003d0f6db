// The Wand-Jones direct plug-in (paper sec. 3.2.1, 6.1), exact: the psi functionals are full
// pairwise sums on the device rather than KernSmooth's binned approximations.
//
// Checked against Wand & Jones (1995) sec. 3.6 and KernSmooth::dpik's source, not the paper alone:
//   psi_r(g) = n^-2 g^(-r-1) [n phi^(r)(0) + 2 sum_{i<j} phi^(r)((X_i - X_j)/g)]   (W&J eq. 3.19;
//     the paper's eq. (9)/(11) put the diagonal term outside the n^-2 g^(-r-1) factor: a misprint)
//   normal reference (scale s): psi_8 = 105 / (32 sqrt(pi) s^9), psi_6 = -15 / (16 sqrt(pi) s^7)
//   pilot for psi_r from psi_(r+2): g = (-2 phi^(r)(0) / (psi_(r+2) n))^(1/(r+3)), mu_2(phi) = 1
//   h = (R(phi) / (psi_4 n))^(1/5), R(phi) = 1 / (2 sqrt(pi))
// With s = 1 these pilots are dpik's alpha = (2 sqrt(2)^9 / (7 n))^(1/9) (stage 2) and
// (2 sqrt(2)^7 / (5 n))^(1/7) (stage 1), and g_2 = (-3 sqrt(2/pi) / (psi_6 n))^(1/7).
#include <cmath>
#include <stdexcept>
#include <string>

#include "bandwidth/bandwidth_input.hpp"
#include "clstat/bandwidth.hpp"
#include "clstat/primitives.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

const double k_inv_sqrt_2pi = 0.39894228040143267794;

// psi_r(g) of one column (r = 4 or 6) by one pairwise pass.
double psi(const Context& ctx, const std::vector<double>& c, int r, double g) {
  const double n = static_cast<double>(c.size());
  const PairFunction f = r == 4 ? PairFunction::gauss_d4 : PairFunction::gauss_d6;
  const double sum = pairwise_sum<double>(ctx, c.data(), c.size(), 1, f, {1 / (g * g)})[0];
  const double at0 = (r == 4 ? 3.0 : -15.0) * k_inv_sqrt_2pi;  // phi^(r)(0) = He_r(0) phi(0)
  return (n * at0 + 2 * sum) / (n * n * std::pow(g, r + 1));
}

}  // namespace

std::vector<double> plugin(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                           const PluginOptions& o) {
  const char* op = "clstat::bandwidth::plugin";
  check_data(op, x, n, d);
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  const double nn = static_cast<double>(n), sqrt_pi = std::sqrt(M_PI);
  std::vector<double> h(d);
  for (std::size_t k = 0; k < d; ++k) {
    std::vector<double> c = column(x, n, d, k);
    const double sd = std_dev(c);
    double s = sd;
    if (o.scale == Scale::minim) {
      std::vector<double> t = c;
      const double iqr = quantile7(t, 0.75) - quantile7(t, 0.25);
      s = std::min(sd, iqr / 1.349);
    }
    if (!(s > 0))
      throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                  " has a zero scale estimate (zero variance or IQR)");
    double psi6 = -15 / (16 * sqrt_pi * std::pow(s, 7));
    if (o.stages == 2) {
      const double psi8 = 105 / (32 * sqrt_pi * std::pow(s, 9));
      const double g1 = std::pow(2 * 15 * k_inv_sqrt_2pi / (psi8 * nn), 1.0 / 9);
      psi6 = psi(ctx, c, 6, g1);
    }
    if (!(psi6 < 0))
      throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                  ": the psi_6 estimate is not negative; the plug-in is undefined for these data");
    const double g2 = std::pow(-2 * 3 * k_inv_sqrt_2pi / (psi6 * nn), 1.0 / 7);
    const double psi4 = psi(ctx, c, 4, g2);
    if (!(psi4 > 0))
      throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                  ": the psi_4 estimate is not positive; the plug-in is undefined for these data");
    h[k] = std::pow(1 / (2 * sqrt_pi * psi4 * nn), 0.2);
  }
  return h;
}

}  // namespace clstat::bandwidth
