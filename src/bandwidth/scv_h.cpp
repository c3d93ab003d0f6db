// Smoothed cross-validation for one bandwidth per column: ks::hscv with binned = FALSE (Hall,
// Marron & Park 1992, with the h-dependent pilot g = C n^(-23/45) h^(-2) of Jones, Marron & Park
// 1991, sec. 3), checked against ks 1.14.0 (tools/golden/bandwidth_scv_1d.R).
//   SCV(h) = (n h)^-1 (4 pi)^(-1/2) + max(0, T(sqrt(2h^2 + 2g^2)) - 2 T(sqrt(h^2 + 2g^2)) + T(sqrt(2) g)),
//   T(s) = n^-2 sum_{i,j} phi_s(x_i - x_j),
// C from psi_4 and psi_8 at pilots set by psi_6 and psi_10 (estimated with 2 stages, the normal
// reference with 1). Every functional is a pass over the pairs (pair_sums.cl, TERM 4 with d = 1).
// The minimum is searched over ks's interval [0.1, 2] h_NS by golden sections until the bracket
// is below 1e-10 h (hscv's optimise stops at its default tolerance, 1.2e-4 in h): each step
// three passes and one wait.
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/matrix_functionals.hpp"
#include "clstat/bandwidth.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

const double k_sqrt_2pi = 2.5066282746310002;

// n^-2 sum_{i,j} phi^(r_k)_(g_k)(x_i - x_j) (ks's kfe.1d with inc = 1) over the centred column xs,
// for each (r_k, g_k): all passes enqueued, one wait.
std::vector<double> kfe(const Queue& q, const char* op, const Mat& xs, const std::vector<std::pair<unsigned, double>>& rg) {
  std::vector<HermiteJob> jobs;
  for (const auto& [r, g] : rg) {
    HermiteTerms t;
    t.counts.push_back({r});
    jobs.push_back({Mat::Constant(1, 1, 1 / g), t});
  }
  const auto s = hermite_sums(q, op, xs, jobs);
  std::vector<double> out;
  for (std::size_t k = 0; k < rg.size(); ++k)
    out.push_back(functional_of({rg[k].first}, s[k][0], rg[k].second, static_cast<double>(xs.rows())));
  return out;
}

double scv_column(const Queue& q, const char* op, const double* col, std::size_t n, std::size_t k, int stages) {
  const double nn = static_cast<double>(n);
  const Eigen::Map<const Eigen::VectorXd> values(col, static_cast<Eigen::Index>(n));
  const Mat xs = (values.array() - values.mean()).matrix();
  const double sigma = column_stats(col, n, false).sd;
  if (!(sigma > 0))
    throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) + " has zero variance");
  double psi6, psi10;
  if (stages == 1) {
    psi6 = normal_psi(6, sigma), psi10 = normal_psi(10, sigma);
  } else {
    const auto p = kfe(q, op, xs, {{6, std::pow(2 / (7 * nn), 1.0 / 9) * std::sqrt(2.0) * sigma},
                                   {10, std::pow(2 / (11 * nn), 1.0 / 13) * std::sqrt(2.0) * sigma}});
    psi6 = p[0], psi10 = p[1];
  }
  if (!(psi6 < 0) || !(psi10 < 0))
    throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                ": a psi_6 or psi_10 estimate is not negative; SCV's pilot is undefined for these data");
  const double g3 = std::pow(-6 / (k_sqrt_2pi * psi6 * nn), 1.0 / 7);
  const double g4 = std::pow(-210 / (k_sqrt_2pi * psi10 * nn), 1.0 / 11);
  const auto p48 = kfe(q, op, xs, {{4, g3}, {8, g4}});
  const double psi4 = p48[0], psi8 = p48[1];
  if (!(psi4 > 0) || !(psi8 > 0))
    throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                ": a psi_4 or psi_8 estimate is not positive; SCV's pilot is undefined for these data");
  const double C = std::pow(441 / (64 * M_PI), 1.0 / 18) * std::pow(4 * M_PI, -0.2) * std::pow(psi4, -0.4) *
                   std::pow(psi8, -1.0 / 9);
  const auto scv = [&](double h) {
    const double g = C * std::pow(nn, -23.0 / 45) / (h * h);
    const auto t = kfe(q, op, xs, {{0, std::sqrt(2 * h * h + 2 * g * g)}, {0, std::sqrt(h * h + 2 * g * g)},
                                   {0, std::sqrt(2.0) * g}});
    const double bias = t[0] - 2 * t[1] + t[2];
    return 1 / (nn * h * std::sqrt(4 * M_PI)) + std::max(0.0, bias);
  };
  const double hnorm = std::pow(4 / (3 * nn), 0.2) * sigma;
  // Golden sections over [0.1, 2] h_NS.
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double a = 0.1 * hnorm, b = 2 * hnorm;
  double c = b - phi * (b - a), d = a + phi * (b - a), fc = scv(c), fd = scv(d);
  while (b - a > 1e-10 * (c + d) / 2) {
    if (fc <= fd) {
      b = d, d = c, fd = fc;
      c = b - phi * (b - a), fc = scv(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + phi * (b - a), fd = scv(d);
    }
  }
  return fc <= fd ? c : d;
}

void check_scv_h(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                 const ScvOptions& o) {
  check_data(op, x, n, d);
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

std::vector<double> scv_h_on(const Queue& q, const double* x, std::size_t n, std::size_t d, const ScvOptions& o) {
  const char* op = "clstat::bandwidth::scv_h";
  detail::Lease lease = detail::Lease::named(q);
  std::vector<double> h(d);
  for (std::size_t k = 0; k < d; ++k) h[k] = scv_column(q, op, column(x, n, d, k).data(), n, k, o.stages);
  return h;
}

}  // namespace

std::vector<double> scv_h(const Context& ctx, const double* x, std::size_t n, std::size_t d, const ScvOptions& o) {
  check_scv_h("clstat::bandwidth::scv_h", ctx, x, n, d, o);
  detail::Lease lease = detail::Lease::any(ctx);
  return scv_h_on(lease.queue(), x, n, d, o);
}

Future<std::vector<double>> scv_h_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                        const ScvOptions& o, const std::vector<Event>& wait) {
  check_scv_h("clstat::bandwidth::scv_h_async", q.context(), x, n, d, o);
  return detail::host_task<std::vector<double>>(q, wait, [=] { return scv_h_on(q, x, n, d, o); });
}

}  // namespace clstat::bandwidth
