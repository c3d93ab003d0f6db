#include "suite_runtime.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

#include "clstat/interop/opencl.hpp"

namespace bench {

namespace {

// Device span (ms) of the kernels recorded since the last take_profile.
double span_ms(const clstat::Context& ctx) {
  const auto rec = ctx.take_profile();
  if (rec.empty()) return 0;
  std::uint64_t lo = rec.front().start_ns, hi = rec.front().end_ns;
  for (const auto& r : rec) lo = std::min(lo, r.start_ns), hi = std::max(hi, r.end_ns);
  return static_cast<double>(hi - lo) * 1e-6;
}

}  // namespace

std::vector<Row> run_runtime(const clstat::Context& ctx, int repeats, bool large) {
  std::vector<Row> rows;
  if (!ctx.info().fp64 || ctx.queue_count() < 4) return rows;
  const clstat::stable::Params law{1.5, 0.5, 1, 0, clstat::stable::Param::S0};
  for (std::size_t n : large ? std::vector<std::size_t>{10000, 1000000} : std::vector<std::size_t>{10000}) {
    std::mt19937_64 g(n);
    std::uniform_real_distribution<double> u(-20, 20);
    std::vector<double> x(n);
    for (auto& v : x) v = u(g);
    const clstat::Buffer<double> xb(ctx, x.data(), n);
    std::vector<clstat::Buffer<double>> out;
    for (int k = 0; k < 4; ++k) out.emplace_back(ctx, n);
    auto one = [&] { clstat::stable::evaluate_async(ctx.queue(0), clstat::stable::fn_pdf, xb, 0, n, law, out[0], 0).wait(); };
    auto four = [&] {
      std::vector<clstat::Event> ev;
      for (std::size_t k = 0; k < 4; ++k)
        ev.push_back(clstat::stable::evaluate_async(ctx.queue(k), clstat::stable::fn_pdf, xb, 0, n, law, out[k], 0));
      for (auto& e : ev) e.wait();
    };
    one();  // builds the program
    four();
    std::vector<double> t1, t4, w1, w4;
    ctx.set_profiling(true);
    ctx.take_profile();
    for (int r = 0; r < repeats; ++r) {
      w1.push_back(wall_stats(one, 1).median);
      ctx.take_profile();  // wall_stats' warm-up call
      one();
      t1.push_back(span_ms(ctx));
      w4.push_back(wall_stats(four, 1).median);
      ctx.take_profile();
      four();
      t4.push_back(span_ms(ctx));
    }
    ctx.set_profiling(false);
    const auto want = out[0].to_host(ctx.queue(0));
    bool same = true;
    for (std::size_t k = 1; k < 4; ++k) {
      const auto got = out[k].to_host(ctx.queue(0));
      same = same && std::memcmp(got.data(), want.data(), n * sizeof(double)) == 0;
    }
    Row a{"runtime", "stable pdf, 1 call", "f64", n};
    a.repeats = repeats;
    a.kernel_ms = Stats::of(t1);
    a.wall_ms = Stats::of(w1);
    a.work = static_cast<double>(n) * 1e-3;  // thousand points, so the unit reads as M points/s
    a.unit = "Mpt/s";
    a.throughput = a.work / (a.kernel_ms.median * 1e-3) * 1e-3;
    a.check = "reference for the 4-queue row";
    rows.push_back(a);
    Row b{"runtime", "stable pdf, 4 calls on 4 queues", "f64", 4 * n};
    b.repeats = repeats;
    b.kernel_ms = Stats::of(t4);
    b.wall_ms = Stats::of(w4);
    b.work = 4 * a.work;
    b.unit = "Mpt/s";
    b.throughput = b.work / (b.kernel_ms.median * 1e-3) * 1e-3;
    b.check = "4 results == the single call's, bit for bit";
    b.pass = same;
    b.error = same ? 0 : 1;
    rows.push_back(b);
    Row c{"runtime", "overlap: 4 x one call / span of 4", "f64", 4 * n};
    c.repeats = repeats;
    c.kernel_ms = b.kernel_ms;
    c.wall_ms = b.wall_ms;
    c.unit = "x";
    c.throughput = 4 * a.kernel_ms.median / b.kernel_ms.median;
    c.check = "informational";
    rows.push_back(c);

    // Queues without profiling, wall clock only.
    cl_device_id dev = clstat::interop::native_device(ctx);
    cl_context cctx = clstat::interop::native_context(ctx);
    std::vector<cl_command_queue> plain;
    for (int k = 0; k < 4; ++k) {
      cl_int err = CL_SUCCESS;
      plain.push_back(clCreateCommandQueue(cctx, dev, 0, &err));
      if (err != CL_SUCCESS) return rows;
    }
    {
      const clstat::Context np = clstat::interop::adopt_context(cctx, dev, plain);
      auto one_np = [&] {
        clstat::stable::evaluate_async(np.queue(0), clstat::stable::fn_pdf, xb, 0, n, law, out[0], 0).wait();
      };
      auto four_np = [&] {
        std::vector<clstat::Event> ev;
        for (std::size_t k = 0; k < 4; ++k)
          ev.push_back(clstat::stable::evaluate_async(np.queue(k), clstat::stable::fn_pdf, xb, 0, n, law, out[k], 0));
        for (auto& e : ev) e.wait();
      };
      auto wall_row = [&](const char* name, std::uint64_t count, double work, const std::function<void()>& f) {
        Row r{"runtime", name, "f64", count};
        r.repeats = repeats;
        r.wall_ms = wall_stats(f, repeats);
        r.kernel_ms = r.wall_ms;
        r.work = work;
        r.unit = "Mpt/s";
        r.throughput = r.work / (r.wall_ms.median * 1e-3) * 1e-3;
        r.check = "wall clock";
        return r;
      };
      const Row d = wall_row("1 call, queue without profiling", n, a.work, one_np);
      rows.push_back(d);
      Row e = wall_row("4 calls, 4 queues without profiling", 4 * n, 4 * a.work, four_np);
      bool same_np = true;
      for (std::size_t k = 1; k < 4; ++k) {
        const auto got = out[k].to_host(ctx.queue(0));
        same_np = same_np && std::memcmp(got.data(), want.data(), n * sizeof(double)) == 0;
      }
      e.check = "4 results == the single call's, bit for bit; overlap " +
                std::to_string(4 * d.wall_ms.median / e.wall_ms.median) + "x";
      e.pass = same_np;
      rows.push_back(e);
    }
    for (cl_command_queue q : plain) clReleaseCommandQueue(q);
  }
  return rows;
}

}  // namespace bench
