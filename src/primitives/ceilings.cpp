// Device ceilings from cl/bench/ceilings.cl. Each rate is the best of `repeats` runs, timed by
// event profiling.
#include "clstat/ceilings.hpp"

#include <algorithm>

#include "build/program_cache.hpp"
#include "runtime/lease.hpp"
#include "runtime/launch.hpp"

namespace clstat {
namespace {

constexpr int k_iters = 256;

double best_seconds(const Queue& q, cl::Kernel& k, std::size_t global, std::size_t local, int repeats) {
  double best = 1e30;
  for (int r = 0; r <= repeats; ++r) {  // run 0 is the warm-up
    Event e = detail::launch(q, k, cl::NDRange(global), cl::NDRange(local), {}, "measure_ceilings");
    const double s = static_cast<double>(e.duration_ns()) * 1e-9;
    if (r > 0) best = std::min(best, s);
  }
  return best;
}

}  // namespace

Ceilings measure_ceilings(const Context& ctx, std::size_t copy_bytes, int repeats) {
  if (repeats < 1) throw std::invalid_argument("clstat::measure_ceilings: repeats must be at least 1");
  if (copy_bytes < (std::size_t(1) << 20))
    throw std::invalid_argument("clstat::measure_ceilings: copy_bytes must be at least 1 MiB, got " +
                                std::to_string(copy_bytes));
  return detail::cl_guard("clstat::measure_ceilings", *ctx.impl(), [&] {
    auto impl = ctx.impl();
    const DeviceInfo& info = ctx.info();
    detail::Lease lease = detail::Lease::any(ctx);
    const Queue q = lease.queue();
    Ceilings c;
    const std::size_t local = std::min<std::size_t>(256, info.max_work_group_size);
    const std::size_t lanes = std::max<std::size_t>(info.compute_units, 1) * 2048;
    const std::size_t global = ((lanes * 4 + local - 1) / local) * local;

    for (bool dbl : {false, true}) {
      if (dbl && !info.fp64) continue;
      const std::size_t elem = dbl ? 8 : 4;
      const std::string base = build::base_options(*impl, dbl, "measure_ceilings") + " -DITERS=" + std::to_string(k_iters);
      auto prog = build::program(*impl, "bench/ceilings", base + " -DEXP_FN=exp");
      cl::Buffer out(impl->context, CL_MEM_READ_WRITE, global * elem);
      cl::Kernel fma = build::kernel(*prog, "fma_rate", q.index());
      fma.setArg(0, out);
      if (dbl) {
        fma.setArg(1, 0.999999), fma.setArg(2, 1e-7);
      } else {
        fma.setArg(1, 0.999999f), fma.setArg(2, 1e-7f);
      }
      const double fma_s = best_seconds(q, fma, global, local, repeats);
      const double flops = static_cast<double>(global) * k_iters * 16;
      // exp: the scalar kernel, and on CPUs the vector one (exp_rate_vec); the higher rate.
      const bool cpu = info.type == DeviceType::cpu;
      const auto exp_rate = [&](auto& pr) {
        double best = 0;
        for (const bool vec : {false, true}) {
          if (vec && !cpu) continue;
          cl::Kernel k = build::kernel(pr, vec ? "exp_rate_vec" : "exp_rate", q.index());
          k.setArg(0, out);
          if (dbl) k.setArg(1, 0.5); else k.setArg(1, 0.5f);
          const std::size_t g = vec ? std::max(local, global / 16 / local * local) : global;  // about as many exps
          best = std::max(best, static_cast<double>(g) * k_iters * 4 * (vec ? (dbl ? 8 : 16) : 1) /
                                    best_seconds(q, k, g, local, repeats) * 1e-9);
        }
        return best;
      };
      (dbl ? c.fp64_fma_gflops : c.fp32_fma_gflops) = flops / fma_s * 1e-9;
      // exp or exp2, whichever the device evaluates faster (the KDE's Gaussian calls exp2).
      auto prog2 = build::program(*impl, "bench/ceilings", base + " -DEXP_FN=exp2");
      (dbl ? c.exp64_gps : c.exp32_gps) = std::max(exp_rate(*prog), exp_rate(*prog2));
      if (!dbl) {
        auto nprog = build::program(*impl, "bench/ceilings", base + " -DEXP_FN=native_exp2");
        c.native_exp32_gps = exp_rate(*nprog);

        // Copy: one float4 per work-item over the whole buffer.
        const std::size_t n = std::min<std::size_t>(copy_bytes, info.max_alloc_bytes / 2) / (16 * local) * local;
        const std::size_t bytes = n * 16;
        cl::Buffer src(impl->context, CL_MEM_READ_WRITE, bytes), dst(impl->context, CL_MEM_READ_WRITE, bytes);
        const float one = 1.0f;
        detail::queue_of(q).enqueueFillBuffer(src, one, 0, bytes);
        cl::Kernel cp = build::kernel(*prog, "copy_real4", q.index());
        cp.setArg(0, src);
        cp.setArg(1, dst);
        c.copy_gbs = 2.0 * static_cast<double>(bytes) / best_seconds(q, cp, n, local, repeats) * 1e-9;
        cl::Kernel rd = build::kernel(*prog, "read_real4", q.index());
        rd.setArg(0, src);
        rd.setArg(1, dst);
        const std::size_t rg = std::max<std::size_t>(local, n / 16 / local * local);  // 16 vectors each
        c.read_gbs = static_cast<double>(rg * 16 * 16) / best_seconds(q, rd, rg, local, repeats) * 1e-9;
      }
    }
    return c;
  });
}

}  // namespace clstat
