#include "host_ceilings.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

// Runs body(t) on `threads` threads at once and returns the wall time in seconds.
template <class F>
double on_all(unsigned threads, F&& body) {
  std::vector<std::thread> ts;
  const auto t0 = Clock::now();
  for (unsigned t = 0; t < threads; ++t) ts.emplace_back([&, t] { body(t); });
  for (auto& th : ts) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <class F>
double best_of(int runs, F&& f) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) best = std::min(best, f());
  return best;
}

// 16 lanes x 8 chains: enough independent FMAs to fill two FMA pipes of AVX-512 or AVX2.
constexpr int kLanes = 128;

// One compiled clone per x86-64 vector level, chosen when the program starts by the CPU's
// features; elsewhere the compiler's baseline. (Clones named after CPU models, such as
// arch=skylake-avx512, are picked only on that model: on an AMD EPYC the SSE2 baseline ran and
// the ceilings came out 3 to 7 times low.)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define CLSTAT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CLSTAT_CLONES
#endif

template <class T>
CLSTAT_CLONES T fma_chains(long iters, T seed) {
  T x[kLanes];
  for (int k = 0; k < kLanes; ++k) x[k] = seed + T(k) * T(1e-3);
  const T m = T(0.999999), c = T(1e-7);
  for (long i = 0; i < iters; ++i)
    for (int k = 0; k < kLanes; ++k) x[k] = x[k] * m + c;
  T s = 0;
  for (int k = 0; k < kLanes; ++k) s += x[k];
  return s;
}

CLSTAT_CLONES float exp_sum_f(const float* x, int n, int reps) {
  float s = 0;
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < n; ++i) s += std::exp(x[i] * -0.5f);
  return s;
}

CLSTAT_CLONES double exp_sum_d(const double* x, int n, int reps) {
  double s = 0;
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < n; ++i) s += std::exp(x[i] * -0.5);
  return s;
}

// A native exp2 as OpenCL CPU drivers build native_exp2: range reduction (2^t = 2^i 2^f,
// f in [0, 1)), a degree-6 polynomial for 2^f by FMAs (relative error about 2e-6, native_exp's
// class), and i put into the exponent bits. PoCL's native exp ran faster than glibc's full-accuracy
// expf (a pairwise row at 3.5 G exponentials/s against expf's 2.9 G/s on 2 cores), so the native
// ceiling takes the higher of the two.
CLSTAT_CLONES float native_exp2_sum_f(const float* x, int n, int reps) {
  float s = 0;
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < n; ++i) {
      const float t = x[i] * -0.5f, fl = std::floor(t), f = t - fl;
      float p = 1.540353e-4f;
      p = p * f + 1.333355e-3f;
      p = p * f + 9.618129e-3f;
      p = p * f + 5.550411e-2f;
      p = p * f + 2.402265e-1f;
      p = p * f + 6.931472e-1f;
      p = p * f + 1.0f;
      std::int32_t bits;
      std::memcpy(&bits, &p, sizeof bits);
      bits += static_cast<std::int32_t>(fl) << 23;
      float v;
      std::memcpy(&v, &bits, sizeof v);
      s += v;
    }
  return s;
}

// A slice read once: eight 64-bit integer sums, which the compiler may vectorise and reorder
// freely (floating-point sums it may not), so the loop is bound by the loads alone.
CLSTAT_CLONES std::uint64_t read_sum(const std::uint64_t* p, std::size_t n) {
  std::uint64_t s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) s[k] += p[i + k];
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

volatile double sink;  // keeps the results alive

}  // namespace

clstat::Ceilings measure_host_ceilings() {
  clstat::Ceilings h;
  const unsigned T = std::max(1u, std::thread::hardware_concurrency());
  {  // copy: each thread its own slice, first touched by that thread
    const std::size_t bytes = std::size_t(256) << 20, slice = bytes / T / 64 * 64;
    std::unique_ptr<char[]> src(new char[bytes]), dst(new char[bytes]);
    on_all(T, [&](unsigned t) {
      std::memset(src.get() + t * slice, 1, slice);
      std::memset(dst.get() + t * slice, 0, slice);
    });
    const double s = best_of(5, [&] {
      return on_all(T, [&](unsigned t) { std::memcpy(dst.get() + t * slice, src.get() + t * slice, slice); });
    });
    h.copy_gbs = 2.0 * static_cast<double>(slice * T) / s * 1e-9;
    sink = dst[bytes / 2];
    // read: the same slices, each summed by its thread
    const double r = best_of(5, [&] {
      return on_all(T, [&](unsigned t) {
        sink = static_cast<double>(read_sum(reinterpret_cast<const std::uint64_t*>(src.get() + t * slice), slice / 8));
      });
    });
    h.read_gbs = static_cast<double>(slice * T) / r * 1e-9;
  }
  const long iters = 1 << 20;
  const double s32 = best_of(5, [&] { return on_all(T, [&](unsigned t) { sink = fma_chains<float>(iters, float(t)); }); });
  h.fp32_fma_gflops = 2.0 * kLanes * iters * T / s32 * 1e-9;
  const double s64 = best_of(5, [&] { return on_all(T, [&](unsigned t) { sink = fma_chains<double>(iters, double(t)); }); });
  h.fp64_fma_gflops = 2.0 * kLanes * iters * T / s64 * 1e-9;
  {
    const int n = 4096, reps = 2000;  // 32 KiB of float: the inputs stay in L1
    std::vector<float> xf(n);
    std::vector<double> xd(n);
    for (int i = 0; i < n; ++i) xf[i] = static_cast<float>(i % 64) * 0.25f, xd[i] = xf[i];
    const double ef = best_of(5, [&] { return on_all(T, [&](unsigned) { sink = exp_sum_f(xf.data(), n, reps); }); });
    const double ed = best_of(5, [&] { return on_all(T, [&](unsigned) { sink = exp_sum_d(xd.data(), n, reps / 2); }); });
    h.exp32_gps = double(n) * reps * T / ef * 1e-9;
    const double nf = best_of(5, [&] { return on_all(T, [&](unsigned) { sink = native_exp2_sum_f(xf.data(), n, reps); }); });
    h.native_exp32_gps = std::max(h.exp32_gps, double(n) * reps * T / nf * 1e-9);
    h.exp64_gps = double(n) * (reps / 2) * T / ed * 1e-9;
  }
  return h;
}

clstat::Ceilings higher(clstat::Ceilings c, const clstat::Ceilings& h) {
  c.copy_gbs = std::max(c.copy_gbs, h.copy_gbs);
  c.read_gbs = std::max(c.read_gbs, h.read_gbs);
  c.fp32_fma_gflops = std::max(c.fp32_fma_gflops, h.fp32_fma_gflops);
  if (c.fp64_fma_gflops > 0) c.fp64_fma_gflops = std::max(c.fp64_fma_gflops, h.fp64_fma_gflops);
  c.exp32_gps = std::max(c.exp32_gps, h.exp32_gps);
  c.native_exp32_gps = std::max(c.native_exp32_gps, h.native_exp32_gps);
  if (c.exp64_gps > 0) c.exp64_gps = std::max(c.exp64_gps, h.exp64_gps);
  return c;
}

}  // namespace bench
