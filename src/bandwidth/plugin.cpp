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
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/pair_sums.hpp"
#include "bandwidth/plugin_steps.hpp"
#include "clstat/bandwidth.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

const double k_inv_sqrt_2pi = 0.39894228040143267794;
const double k_sqrt2 = 1.4142135623730951;

// psi_r(g) from S = sum_{i<j} He_r(z_ij) exp(-z_ij^2 / 2), z_ij = (X_i - X_j) / g, which the
// device pass returns: phi^(r)(z) = He_r(z) phi(z) and He_4(0) = 3, He_6(0) = -15.
double psi_of(double S, int r, double g, double n) {
  return k_inv_sqrt_2pi * ((r == 4 ? 3.0 : -15.0) * n + 2 * S) / (n * n * std::pow(g, r + 1));
}

}  // namespace

// Every column's stages are enqueued together and read back once: the psi_6 pass's merge also
// computes the psi_4 pilot g_2 on the device (pair_sums.cl's pair_finish), so the two passes need
// no host wait between them.
namespace {

// The plug-in's device buffers: the columns, the pilots' scales, the sums.
enum class PluginScratch { columns, scale, sums };

void check_plugin(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                  const PluginOptions& o) {
  check_data(op, x, n, d);
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

std::vector<double> plugin_on(const Queue& q, const double* x, std::size_t n, std::size_t d, const PluginOptions& o) {
  const char* op = "clstat::bandwidth::plugin";
  const Context ctx = q.context();
  detail::Lease lease = detail::Lease::named(q);
  check_data(op, x, n, d);
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  std::vector<double> scale_h(2 * d), g1(d), g2(d), out_h(3 * d);
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    const cl::CommandQueue& cq = detail::queue_of(q);
    PairSumPass pass4(ctx, op, PairTerm::psi4, 1, n);
    std::unique_ptr<PairSumPass> pass6;
    if (o.stages == 2) pass6 = std::make_unique<PairSumPass>(ctx, op, PairTerm::psi6, 1, n);
    // The data go up first, so the transfer overlaps the host's scale estimates below. One column
    // is x itself (alive until the blocking read); more are copied dimension-major.
    const std::vector<double> xs = plugin_columns(x, n, d);
    const double* cols = d > 1 ? xs.data() : x;
    cl::Buffer xb = detail::scratch(q, PluginScratch::columns, n * d * sizeof(double));
    cl::Buffer scale = detail::scratch(q, PluginScratch::scale, d * sizeof(double));  // the device's g_2 pilots
    cl::Buffer out = detail::scratch(q, PluginScratch::sums, out_h.size() * sizeof(double));
    cq.enqueueWriteBuffer(xb, CL_FALSE, 0, n * d * sizeof(double), cols);
    const std::string error = plugin_pilots(op, cols, n, d, o, g1, g2, scale_h);
    if (!error.empty()) {
      cq.finish();  // the upload reads host memory that may not outlive this call
      throw std::invalid_argument(error);
    }
    // The host's pilot goes in as a kernel argument; the device's (stage 2's g_2) through `scale`.
    Event ev;
    for (std::size_t k = 0; k < d; ++k) {
      const auto at = static_cast<unsigned>(k);
      std::vector<Event> deps{ev};  // a default Event (the first column) waits on nothing
      if (pass6) {
        const PairSumPass::Pilot pilot{g1[k], at};
        ev = pass6->enqueue(q, xb, k * n, n, scale, PairSumPass::k_scale_value, scale_h[2 * k], out, 3 * at, deps, &pilot);
        ev = pass4.enqueue(q, xb, k * n, n, scale, at, 0.0, out, 3 * at + 2, {ev});
      } else {
        ev = pass4.enqueue(q, xb, k * n, n, scale, PairSumPass::k_scale_value, scale_h[2 * k + 1], out, 3 * at + 2, deps);
      }
    }
    detail::read_wait(cq, out, 0, out_h.size() * sizeof(double), out_h.data());
  });
  return plugin_h(op, out_h, g1, g2, n, d, o);
}

}  // namespace

std::vector<double> plugin_columns(const double* x, std::size_t n, std::size_t d) {
  std::vector<double> xs;
  if (d > 1) {
    xs.resize(n * d);
    for (std::size_t k = 0; k < d; ++k)
      for (std::size_t i = 0; i < n; ++i) xs[k * n + i] = x[i * d + k];
  }
  return xs;
}

std::string plugin_pilots(const char* op, const double* cols, std::size_t n, std::size_t d, const PluginOptions& o,
                          std::vector<double>& g1, std::vector<double>& g2, std::vector<double>& scale_h) {
  const double nn = static_cast<double>(n);
  for (std::size_t k = 0; k < d; ++k) {
    const double* c = cols + k * n;
    const ColumnStats st = column_stats(c, n, o.scale == Scale::minim);
    const double s = o.scale == Scale::minim ? std::min(st.sd, (st.q3 - st.q1) / 1.349) : st.sd;
    if (!(s > 0)) return std::string(op) + ": column " + std::to_string(k) + " has a zero scale estimate (zero variance or IQR)";
    if (o.stages == 2) {
      const double psi8 = normal_psi(8, s);
      g1[k] = std::pow(2 * 15 * k_inv_sqrt_2pi / (psi8 * nn), 1.0 / 9);
      scale_h[2 * k] = 1 / (g1[k] * k_sqrt2);
    } else {
      const double psi6 = normal_psi(6, s);
      g2[k] = std::pow(-2 * 3 * k_inv_sqrt_2pi / (psi6 * nn), 1.0 / 7);
      scale_h[2 * k + 1] = 1 / (g2[k] * k_sqrt2);
    }
  }
  return {};
}

std::vector<double> plugin_h(const char* op, const std::vector<double>& out_h, const std::vector<double>& g1,
                             std::vector<double> g2, std::size_t n, std::size_t d, const PluginOptions& o) {
  const double nn = static_cast<double>(n), sqrt_pi = std::sqrt(M_PI);
  std::vector<double> h(d);
  for (std::size_t k = 0; k < d; ++k) {
    if (o.stages == 2) {
      const double psi6 = psi_of(out_h[3 * k], 6, g1[k], nn);
      if (!(psi6 < 0))
        throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                    ": the psi_6 estimate is not negative; the plug-in is undefined for these data");
      g2[k] = out_h[3 * k + 1];  // the pilot the psi_4 pass used
    }
    const double psi4 = psi_of(out_h[3 * k + 2], 4, g2[k], nn);
    if (!(psi4 > 0))
      throw std::invalid_argument(std::string(op) + ": column " + std::to_string(k) +
                                  ": the psi_4 estimate is not positive; the plug-in is undefined for these data");
    h[k] = std::pow(1 / (2 * sqrt_pi * psi4 * nn), 0.2);
  }
  return h;
}

std::vector<double> plugin(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                           const PluginOptions& o) {
  check_plugin("clstat::bandwidth::plugin", ctx, x, n, d, o);
  detail::Lease lease = detail::Lease::any(ctx);
  return plugin_on(lease.queue(), x, n, d, o);
}

Future<std::vector<double>> plugin_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                         const PluginOptions& o, const std::vector<Event>& wait) {
  check_plugin("clstat::bandwidth::plugin_async", q.context(), x, n, d, o);
  return detail::host_task<std::vector<double>>(q, wait, [=] { return plugin_on(q, x, n, d, o); });
}

}  // namespace clstat::bandwidth
