// Random numbers on the device (stable_rng in cl/stable/stable_point.cl).
#include <cmath>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "clstat/stable.hpp"
#include "stable/near_one.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::stable {

// The draws of a call whose output starts at a nonzero offset, before their copy.
enum class SampleScratch { draws };

Event sample_async(const Queue& q, const Buffer<double>& out, std::size_t out_offset, std::size_t n, const Params& p,
                   std::uint64_t seed, std::uint64_t first, const std::vector<Event>& wait) {
  const char* op = "clstat::stable::sample";
  check(p);
  auto ci = q.context().impl();
  if (!ci->info().fp64) throw UnsupportedFeature(op, ci->info().name, "needs a device with fp64 (cl_khr_fp64)");
  if (out_offset > out.size() || out.size() - out_offset < n)
    throw std::invalid_argument(std::string(op) + ": the buffer holds " + std::to_string(out.size()) + " values, n = " +
                                std::to_string(n) + " from element " + std::to_string(out_offset));
  if (n == 0) return Event();
  // y = scale X + shift with X ~ S1(alpha, beta, 1, 0): shift = delta1, plus (2/pi) beta gamma
  // log gamma at alpha = 1 (the S1 law is not a location-scale family there).
  const Params s1 = to_s1(p);
  double shift = s1.loc;
  if (p.alpha == 1) shift += (2 / M_PI) * p.beta * p.scale * std::log(p.scale);
  detail::Lease lease = detail::Lease::named(q);
  return detail::cl_guard(op, *ci, [&] {
    auto prog = build::program(*ci, "stable/stable_point", build::base_options(*ci, true, op) + near_one_option());
    cl::Kernel k = build::kernel(*prog, "stable_rng", q.index());
    const std::size_t wg = ci->info().type == DeviceType::gpu ? 256 : 64;
    const cl::Buffer dst = out_offset ? detail::scratch(q, SampleScratch::draws, n * sizeof(double))
                                      : out.raw().impl()->buffer;
    k.setArg(0, dst);
    k.setArg(1, static_cast<cl_ulong>(n));
    k.setArg(2, static_cast<cl_ulong>(first));
    k.setArg(3, static_cast<cl_uint>(seed & 0xffffffffu));
    k.setArg(4, static_cast<cl_uint>(seed >> 32));
    k.setArg(5, p.alpha);
    k.setArg(6, p.beta);
    k.setArg(7, p.scale);
    k.setArg(8, shift);
    const Event ev = detail::launch(q, k, cl::NDRange((n + wg - 1) / wg * wg), cl::NDRange(wg), wait, op);
    if (!out_offset) return ev;
    return detail::copy_out(q, dst, out.raw().impl()->buffer, out_offset * sizeof(double), n * sizeof(double), ev);
  });
}

std::vector<double> sample(const Context& ctx, std::size_t n, const Params& p, std::uint64_t seed,
                           std::uint64_t first) {
  check(p);
  if (n == 0) return {};
  Buffer<double> out(ctx, n);
  detail::Lease lease = detail::Lease::any(ctx);
  const Queue q = lease.queue();
  sample_async(q, out, 0, n, p, seed, first).wait();
  return out.to_host(q);
}

}  // namespace clstat::stable
