// Per-kernel breakdown of order::median on 2^27 device-resident values (uniform and normal, float and
// double), for the order suite's profiles in bench/results/sweeps/. Not built by CMake:
//   g++ -O2 -std=c++17 -Iinclude -Ibuild-gpu/include tools/dev/order_profile.cpp -Lbuild-gpu -lclstat \
//       -Wl,-rpath,$PWD/build-gpu -o order_profile && CFGS=256:4 ./order_profile nvidia
// CFGS lists work-group size:groups per compute unit pairs (CLSTAT_ORDER_WG, CLSTAT_ORDER_GROUPS_PER_CU);
// CLSTAT_ORDER_EXTRA passes -D measurement switches (PROFILE_NO_STAGE, PROFILE_NO_HIST, PROFILE_NO_COMPACT).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include "clstat/clstat.hpp"
using namespace clstat;
template <class T>
void run(const Context& ctx, const char* dist, std::size_t n) {
  std::vector<T> x(n);
  std::mt19937_64 g(7);
  for (std::size_t i = 0; i < n; ++i) {
    double u = (g() >> 11) * 0x1.0p-53;
    if (dist[0] == 'n') { double v = (g() >> 11) * 0x1.0p-53; x[i] = T(std::sqrt(-2 * std::log(u + 1e-300)) * std::cos(6.283185307179586 * v)); }
    else x[i] = T(u);
  }
  Buffer<T> b(ctx, x.data(), n);
  auto q = ctx.queue(0);
  const char* cfgs = std::getenv("CFGS") ? std::getenv("CFGS") : "256:4";
  for (std::string rest = cfgs; !rest.empty();) {
  std::string c = rest.substr(0, rest.find(','));
  rest = rest.find(',') == std::string::npos ? "" : rest.substr(rest.find(',') + 1);
  setenv("CLSTAT_ORDER_WG", c.substr(0, c.find(':')).c_str(), 1);
  setenv("CLSTAT_ORDER_GROUPS_PER_CU", c.substr(c.find(':') + 1).c_str(), 1);
  std::printf("config %s items %s extra %s\n", c.c_str(), std::getenv("CLSTAT_ORDER_ITEMS") ? std::getenv("CLSTAT_ORDER_ITEMS") : "8", std::getenv("CLSTAT_ORDER_EXTRA") ? std::getenv("CLSTAT_ORDER_EXTRA") : "");
  double m = 0;
  try { m = order::median(q, b, 0, n); } catch (const std::exception& e) { std::printf("(%s)\n", e.what()); }
  ctx.take_profile();
  ctx.set_profiling(true);
  for (int r = 0; r < 3; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    try { m = order::median(q, b, 0, n); } catch (const std::exception&) {}
    ctx.finish();
    double w = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    auto rec = ctx.take_profile();
    if (r < 2) continue;
    std::printf("%s %s n=%zu median=%.17g wall %.3f ms span %.3f ms\n", sizeof(T) == 8 ? "f64" : "f32", dist, n, m, w,
                (rec.back().end_ns - rec.front().start_ns) * 1e-6);
    for (auto& k : rec)
      std::printf("   %-16s start %8.3f  dur %8.3f ms\n", k.kernel.c_str(), (k.start_ns - rec.front().start_ns) * 1e-6,
                  (k.end_ns - k.start_ns) * 1e-6);
  }
  ctx.set_profiling(false);
  }
}
int main(int argc, char** argv) {
  Context ctx(select_device(argc > 1 ? argv[1] : "nvidia"));
  std::size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : (1u << 27);
  run<float>(ctx, "uniform", n);
  run<float>(ctx, "normal", n);
  run<double>(ctx, "uniform", n);
  run<double>(ctx, "normal", n);
}
