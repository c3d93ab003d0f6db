// Host side of the pdf/cdf pass (cl/stable/stable_point.cl): standardise to the unit S0 law,
// one work-item per point.
#include <cmath>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/stable.hpp"
#include "runtime/launch.hpp"

namespace clstat::stable {

PdfCdf pdf_cdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double rel_tol) {
  const char* op = "clstat::stable::pdf_cdf";
  const Params q = to_s0(p);  // alpha, beta, scale; loc in S0
  if (n > 0 && !x) throw std::invalid_argument(std::string(op) + ": null x");
  if (!(rel_tol > 0 && rel_tol < 1e-3)) throw std::invalid_argument(std::string(op) + ": rel_tol must be in (0, 1e-3)");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  PdfCdf r;
  if (n == 0) return r;
  // alpha = 1 and 2: the S0 standardised point; otherwise the distance from zeta, (x - delta1) / gamma,
  // taken from delta1 directly so that points near zeta keep their digits.
  // Computed in long double: near zeta the density of a small alpha is steep on scales of 1e-9,
  // so the rounding of delta1 = delta0 - beta gamma tan(pi alpha / 2) in double (1e-16 of delta)
  // would be amplified (2e-9 relative at alpha = 0.1 in Nolan's loc-scale table); with the x87
  // format's 64-bit significand it is 2e-12.
  const bool s1_form = q.alpha != 1 && q.alpha != 2;
  using LD = long double;
  const LD pi = 3.141592653589793238462643383279502884L;
  // The caller's own location when it is the one needed (S1 in, alpha != 1; S0 in, alpha = 1 or 2).
  LD origin = static_cast<LD>(p.loc);
  if (s1_form && p.param == Param::S0)
    origin -= static_cast<LD>(p.beta) * static_cast<LD>(p.scale) * std::tan(pi * static_cast<LD>(p.alpha) / 2);
  if (!s1_form) origin = static_cast<LD>(q.loc);
  std::vector<double> z(n), out(4 * n);
  for (std::size_t i = 0; i < n; ++i)
    z[i] = static_cast<double>((static_cast<LD>(x[i]) - origin) / static_cast<LD>(q.scale));
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    const Queue qu = ctx.queue(0);
    const cl::CommandQueue& cq = detail::queue_of(qu);
    auto prog = build::program(*ci, "stable/stable_point", build::base_options(*ci, true, op));
    cl::Kernel k = build::kernel(*prog, "stable_pdf_cdf", 0);
    cl::Buffer zb(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(double), z.data());
    cl::Buffer ob(ci->context, CL_MEM_WRITE_ONLY, 4 * n * sizeof(double));
    const std::size_t wg = ctx.info().type == DeviceType::gpu ? 64 : 8;
    k.setArg(0, zb);
    k.setArg(1, static_cast<cl_ulong>(n));
    k.setArg(2, q.alpha);
    k.setArg(3, q.beta);
    k.setArg(4, 1 / q.scale);
    k.setArg(5, rel_tol);
    k.setArg(6, ob);
    detail::launch(qu, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), {}, op);
    cq.enqueueReadBuffer(ob, CL_TRUE, 0, 4 * n * sizeof(double), out.data());
  });
  r.pdf.assign(out.begin(), out.begin() + n);
  r.cdf.assign(out.begin() + n, out.begin() + 2 * n);
  r.pdf_error.assign(out.begin() + 2 * n, out.begin() + 3 * n);
  r.cdf_error.assign(out.begin() + 3 * n, out.end());
  return r;
}

std::vector<double> pdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  return pdf_cdf(ctx, x, n, p).pdf;
}

std::vector<double> cdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  return pdf_cdf(ctx, x, n, p).cdf;
}

}  // namespace clstat::stable
