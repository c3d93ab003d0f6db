#include "report.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <ctime>
#include <fstream>
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace bench {
namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

std::string num(double v) {
  std::ostringstream s;
  s << std::setprecision(9) << v;
  return s.str();
}

}  // namespace

// A float kernel's exponentials run no faster than the device's fastest float exp, native_exp2
// or exp, whichever the kernel calls: on CPUs the KDE's vector exp2 (26 G/s on 16 cores) outran
// the exp measurement, so the higher of the two is the ceiling.
namespace {

// The rate of the ceiling called `name` (read, copy, exp32, native_exp2, exp64), or -1 for a row
// compared with anything else. native_exp2 is the faster of native_exp2 and exp32: a kernel
// built with native_exp2 can take whichever the driver makes faster.
double rate_named(const clstat::Ceilings& c, const std::string& name) {
  if (name == "read") return c.read_gbs;
  if (name == "copy") return c.copy_gbs;
  if (name == "exp32") return c.exp32_gps;
  if (name == "native_exp2") return std::max(c.native_exp32_gps, c.exp32_gps);
  if (name == "exp64") return c.exp64_gps;
  return -1;
}

}  // namespace

void set_exp_ceiling(const clstat::Context& ctx, const clstat::Ceilings& c, bool dbl, Row& r) {
  const bool native = !dbl && (ctx.tuning_summary().find("native_exp=1") != std::string::npos ||
                               c.native_exp32_gps > c.exp32_gps);
  r.ceiling_name = dbl ? "exp64" : native ? "native_exp2" : "exp32";
  r.ceiling = rate_named(c, r.ceiling_name);
}

void rebase_fractions(DeviceReport& d) {
  for (Row& r : d.rows) {
    const double v = rate_named(d.ceilings, r.ceiling_name);
    if (v < 0) continue;
    r.ceiling = v;
    r.fraction = v > 0 ? r.throughput / v : 0;
  }
}

void print_table(const DeviceReport& d) {
  const auto& c = d.ceilings;
  std::cout << "\n== " << d.info.label() << " | " << d.info.platform_name << " | driver " << d.info.driver_version
            << " | tuning " << d.tuning << "\n";
  std::cout << std::fixed << std::setprecision(1);
  if (c.copy_gbs > 0)  // (the mpi suite measures none: its rows compare processes)
    std::cout << "   ceilings: copy " << c.copy_gbs << " GB/s, read " << c.read_gbs << " GB/s, fp32 FMA "
              << c.fp32_fma_gflops << " GFLOP/s, fp64 FMA " << c.fp64_fma_gflops << " GFLOP/s, exp32 "
              << c.exp32_gps << " G/s, native_exp2 " << c.native_exp32_gps << " G/s, exp64 " << c.exp64_gps << " G/s\n";
  if (d.host_ceilings.copy_gbs > 0) {
    const auto& k = d.device_ceilings;
    const auto& h = d.host_ceilings;
    std::cout << "   (the higher of the OpenCL kernels': copy " << k.copy_gbs << ", read " << k.read_gbs << ", fp32 " << k.fp32_fma_gflops << ", fp64 "
              << k.fp64_fma_gflops << ", exp32 " << k.exp32_gps << ", exp64 " << k.exp64_gps
              << "; and native code on the host's cores: copy " << h.copy_gbs << ", read " << h.read_gbs << ", fp32 " << h.fp32_fma_gflops
              << ", fp64 " << h.fp64_fma_gflops << ", exp32 " << h.exp32_gps << ", exp64 " << h.exp64_gps << ")\n";
  }
  // The workload and peer columns are as wide as their longest entry, so no row runs into the next column.
  auto vs_peer = [](const Row& r) {
    return r.peer_throughput > 0 ? std::to_string(r.throughput / r.peer_throughput).substr(0, 6) + "x " + r.peer
                                 : std::string("-");
  };
  std::size_t name_w = 26, peer_w = 12;
  for (const Row& r : d.rows) {
    name_w = std::max(name_w, r.name.size() + 1);
    peer_w = std::max(peer_w, vs_peer(r).size() + 1);
  }
  const auto nw = static_cast<int>(name_w), pw = static_cast<int>(peer_w);
  std::cout << std::left << std::setw(11) << "suite" << std::setw(nw) << "workload" << std::setw(5) << "prec"
            << std::right << std::setw(11) << "n" << std::setw(12) << "kernel ms" << std::setw(8) << "spread"
            << std::setw(11) << "wall ms" << std::setw(12) << "throughput" << std::setw(10) << "unit"
            << std::setw(9) << "of ceil" << std::setw(pw) << "vs peer" << "  check\n";
  for (const Row& r : d.rows) {
    std::cout << std::left << std::setw(11) << r.suite << std::setw(nw) << r.name << std::setw(5) << r.precision
              << std::right << std::setw(11) << r.n << std::setw(12) << std::setprecision(4) << r.kernel_ms.median
              << std::setw(7) << std::setprecision(1) << 100 * r.kernel_ms.spread << "%" << std::setw(11)
              << std::setprecision(3) << r.wall_ms.median << std::setw(12) << std::defaultfloat << std::setprecision(4)
              << r.throughput << std::fixed
              << std::setw(10) << r.unit << std::setw(8) << std::setprecision(1) << 100 * r.fraction << "%"
              << std::setw(pw) << vs_peer(r)
              << "  " << (r.pass ? "ok " : "FAIL ") << r.check << " " << std::scientific << std::setprecision(2)
              << r.error << std::fixed << "\n";
  }
}

void write_csv(const std::string& path, const std::vector<DeviceReport>& devices) {
  std::ofstream o(path);
  o << "device,driver,clstat_version,git_commit,suite,workload,precision,n,repeats,kernel_ms_median,kernel_ms_min,"
       "kernel_spread,wall_ms_median,throughput,unit,ceiling,ceiling_value,fraction_of_ceiling,check,error,pass,"
       "peer,peer_throughput\n";
  for (const auto& d : devices)
    for (const Row& r : d.rows)
      o << '"' << esc(d.info.name) << "\",\"" << esc(d.info.driver_version) << "\"," << CLSTAT_VERSION_STRING << ','
        << CLSTAT_GIT_COMMIT << ',' << r.suite << ",\"" << esc(r.name) << "\"," << r.precision << ',' << r.n << ','
        << r.repeats << ',' << num(r.kernel_ms.median) << ',' << num(r.kernel_ms.min) << ','
        << num(r.kernel_ms.spread) << ',' << num(r.wall_ms.median) << ',' << num(r.throughput) << ',' << r.unit
        << ',' << r.ceiling_name << ',' << num(r.ceiling) << ',' << num(r.fraction) << ",\"" << esc(r.check)
        << "\"," << num(r.error) << ',' << (r.pass ? 1 : 0) << ",\"" << esc(r.peer) << "\"," << num(r.peer_throughput)
        << '\n';
}

std::string fixed(double v, int digits) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << v;
  return o.str();
}

Stats wall_stats(const std::function<void()>& f, int repeats) {
  f();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return Stats::of(t);
}

void for_blocks(std::size_t n, const std::function<void(std::size_t, std::size_t, std::size_t)>& body) {
  constexpr std::size_t kBlock = std::size_t{1} << 16;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  const std::size_t threads = std::min<std::size_t>(blocks, std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (std::size_t b; (b = next++) < blocks;) body(b, b * kBlock, std::min(n, (b + 1) * kBlock));
    });
  for (auto& th : pool) th.join();
}

void time_device_and_wall(const clstat::Context& ctx, Row& r, int repeats, const std::function<void()>& run) {
  run();
  ctx.take_profile();
  std::vector<double> kern, wall;
  ctx.set_profiling(true);
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    const auto rec = ctx.take_profile();
    if (!rec.empty()) kern.push_back(static_cast<double>(rec.back().end_ns - rec.front().start_ns) * 1e-6);
  }
  ctx.set_profiling(false);
  r.repeats = repeats;
  r.kernel_ms = Stats::of(kern);
  r.wall_ms = Stats::of(wall);
}

}  // namespace bench
