// Host side of the per-point kernels (cl/stable/stable_point.cl): standardise to the unit law,
// one work-item per point, and back.
#include <cmath>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/stable.hpp"
#include "runtime/launch.hpp"

namespace clstat::stable {
namespace {

constexpr int k_want_pdf = 1, k_want_cdf = 2, k_want_sf = 4;
using LD = long double;

// The origin of the kernel's coordinate: alpha = 1 and 2, delta0; otherwise delta1 (the point's
// distance from zeta, in scale units). Computed in long double: near zeta the density of a small
// alpha is steep on scales of 1e-9, so the rounding of delta1 = delta0 - beta gamma tan(pi alpha/2)
// in double (1e-16 of delta) would be amplified (2e-9 relative at alpha = 0.1 in Nolan's loc-scale
// table); with the x87 format's 64-bit significand it is 2e-12. The caller's own location is used
// when it is the one needed.
LD origin_of(const Params& p) {
  const Params q = to_s0(p);
  const bool s1_form = q.alpha != 1 && q.alpha != 2;
  if (!s1_form) return static_cast<LD>(q.loc);
  if (p.param == Param::S1) return static_cast<LD>(p.loc);
  const LD pi = 3.141592653589793238462643383279502884L;
  return static_cast<LD>(p.loc) -
         static_cast<LD>(p.beta) * static_cast<LD>(p.scale) * std::tan(pi * static_cast<LD>(p.alpha) / 2);
}

void common_checks(const Context& ctx, const char* op, const double* x, std::size_t n, const Params& p, double tol) {
  check(p);
  if (n > 0 && !x) throw std::invalid_argument(std::string(op) + ": null input");
  if (!(tol > 0 && tol < 1e-3)) throw std::invalid_argument(std::string(op) + ": the tolerance must be in (0, 1e-3)");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

// One work-item per point: kernel(in, n, alpha, beta, a4, a5, flag, out) of stable_point.cl, with
// per_point output values per point (kernels lay them out n apart), read back.
std::vector<double> per_point(const Context& ctx, const char* op, const char* kernel, const std::vector<double>& in,
                              std::size_t per_point_values, const Params& q, double a4, double a5, int flag) {
  const std::size_t n = in.size();
  std::vector<double> out(per_point_values * n);
  auto ci = ctx.impl();
  detail::cl_guard(op, *ci, [&] {
    const Queue qu = ctx.queue(0);
    auto prog = build::program(*ci, "stable/stable_point", build::base_options(*ci, true, op));
    cl::Kernel k = build::kernel(*prog, kernel, 0);
    cl::Buffer ib(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(double),
                  const_cast<double*>(in.data()));
    cl::Buffer ob(ci->context, CL_MEM_WRITE_ONLY, out.size() * sizeof(double));
    const std::size_t wg = ctx.info().type == DeviceType::gpu ? 64 : 8;
    k.setArg(0, ib);
    k.setArg(1, static_cast<cl_ulong>(n));
    k.setArg(2, q.alpha);
    k.setArg(3, q.beta);
    k.setArg(4, a4);
    k.setArg(5, a5);
    k.setArg(6, static_cast<cl_int>(flag));
    k.setArg(7, ob);
    detail::launch(qu, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), {}, op);
    detail::queue_of(qu).enqueueReadBuffer(ob, CL_TRUE, 0, out.size() * sizeof(double), out.data());
  });
  return out;
}

// out: 6 n values (pdf, cdf, sf and their error estimates), for the `want` mask.
std::vector<double> evaluate(const Context& ctx, const char* op, const double* x, std::size_t n, const Params& p,
                             double rel, int want) {
  common_checks(ctx, op, x, n, p, rel);
  if (n == 0) return {};
  const Params q = to_s0(p);
  const LD origin = origin_of(p);
  std::vector<double> z(n);
  for (std::size_t i = 0; i < n; ++i) z[i] = static_cast<double>((static_cast<LD>(x[i]) - origin) / static_cast<LD>(q.scale));
  return per_point(ctx, op, "stable_eval", z, 6, q, 1 / q.scale, rel, want);
}

std::vector<double> slice(const std::vector<double>& v, std::size_t k, std::size_t n) {
  return std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(k * n),
                             v.begin() + static_cast<std::ptrdiff_t>((k + 1) * n));
}

std::vector<double> solve(const Context& ctx, const char* op, const double* prob, std::size_t n, const Params& p,
                          double tol, int upper, bool nan_for_invalid) {
  common_checks(ctx, op, prob, n, p, tol);
  if (!nan_for_invalid)
    for (std::size_t i = 0; i < n; ++i)
      if (!(prob[i] >= 0 && prob[i] <= 1))
        throw std::invalid_argument(std::string(op) + ": probability " + std::to_string(prob[i]) + " at index " +
                                    std::to_string(i) + " is outside [0, 1]");
  if (n == 0) return {};
  const Params q = to_s0(p);
  std::vector<double> u = per_point(ctx, op, "stable_quantile", std::vector<double>(prob, prob + n), 1, q, 1e-14, tol, upper);
  const LD origin = origin_of(p);
  for (std::size_t i = 0; i < n; ++i)
    u[i] = static_cast<double>(origin + static_cast<LD>(q.scale) * static_cast<LD>(u[i]));
  return u;
}

}  // namespace

PdfCdf pdf_cdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double rel_tol) {
  const std::vector<double> v = evaluate(ctx, "clstat::stable::pdf_cdf", x, n, p, rel_tol, k_want_pdf | k_want_cdf);
  return {slice(v, 0, n), slice(v, 1, n), slice(v, 3, n), slice(v, 4, n)};
}

std::vector<double> pdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  return slice(evaluate(ctx, "clstat::stable::pdf", x, n, p, 1e-14, k_want_pdf), 0, n);
}

std::vector<double> cdf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  return slice(evaluate(ctx, "clstat::stable::cdf", x, n, p, 1e-14, k_want_cdf), 1, n);
}

std::vector<double> sf(const Context& ctx, const double* x, std::size_t n, const Params& p) {
  return slice(evaluate(ctx, "clstat::stable::sf", x, n, p, 1e-14, k_want_sf), 2, n);
}

std::vector<double> quantile(const Context& ctx, const double* prob, std::size_t n, const Params& p, double tol,
                             bool nan_for_invalid) {
  return solve(ctx, "clstat::stable::quantile", prob, n, p, tol, 0, nan_for_invalid);
}

std::vector<double> isf(const Context& ctx, const double* q, std::size_t n, const Params& p, double tol,
                        bool nan_for_invalid) {
  return solve(ctx, "clstat::stable::isf", q, n, p, tol, 1, nan_for_invalid);
}

Event sample_async(const Queue& q, const Buffer<double>& out, std::size_t n, const Params& p, std::uint64_t seed,
                   std::uint64_t first, const std::vector<Event>& wait) {
  const char* op = "clstat::stable::sample";
  check(p);
  auto ci = q.context().impl();
  if (!ci->info().fp64) throw UnsupportedFeature(op, ci->info().name, "needs a device with fp64 (cl_khr_fp64)");
  if (out.size() < n)
    throw std::invalid_argument(std::string(op) + ": the buffer holds " + std::to_string(out.size()) + " values, n = " +
                                std::to_string(n));
  if (n == 0) return Event();
  // y = scale X + shift with X ~ S1(alpha, beta, 1, 0): shift = delta1, plus (2/pi) beta gamma
  // log gamma at alpha = 1 (the S1 law is not a location-scale family there).
  const Params s1 = to_s1(p);
  double shift = s1.loc;
  if (p.alpha == 1) shift += (2 / M_PI) * p.beta * p.scale * std::log(p.scale);
  return detail::cl_guard(op, *ci, [&] {
    auto prog = build::program(*ci, "stable/stable_point", build::base_options(*ci, true, op));
    cl::Kernel k = build::kernel(*prog, "stable_rng", q.index());
    const std::size_t wg = ci->info().type == DeviceType::gpu ? 256 : 64;
    k.setArg(0, out.raw().impl()->buffer);
    k.setArg(1, static_cast<cl_ulong>(n));
    k.setArg(2, static_cast<cl_ulong>(first));
    k.setArg(3, static_cast<cl_uint>(seed & 0xffffffffu));
    k.setArg(4, static_cast<cl_uint>(seed >> 32));
    k.setArg(5, p.alpha);
    k.setArg(6, p.beta);
    k.setArg(7, p.scale);
    k.setArg(8, shift);
    return detail::launch(q, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), wait, op);
  });
}

std::vector<double> sample(const Context& ctx, std::size_t n, const Params& p, std::uint64_t seed,
                           std::uint64_t first) {
  check(p);
  if (n == 0) return {};
  Buffer<double> out(ctx, n);
  const Queue q = ctx.queue(0);
  sample_async(q, out, n, p, seed, first).wait();
  return out.to_host(q);
}

}  // namespace clstat::stable
