#include "suite_mpi.hpp"

#include <clstat/mpi.hpp>
#include <clstat/stable.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>

namespace bench {

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// Wall ms of `repeats` runs of f after a warm-up, each from a barrier to the slowest process's end.
Stats timed(const std::function<void()>& f, int repeats) {
  f();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    MPI_Allreduce(MPI_IN_PLACE, &ms, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t.push_back(ms);
  }
  return Stats::of(t);
}

// The two rows of one operation: one process with all the data, and all P processes.
struct Pair {
  std::string name, precision, unit;
  std::uint64_t n = 0;
  double work = 0, scale = 1e9;  // units of `unit` per call, times scale
};

void add_rows(std::vector<Row>& rows, const Pair& p, int repeats, const Stats& one, const Stats& all, int P,
              const std::string& check, double error, bool pass) {
  Row r1;
  r1.suite = "mpi";
  r1.name = p.name + " on 1 process";
  r1.precision = p.precision;
  r1.n = p.n;
  r1.repeats = repeats;
  r1.wall_ms = one;
  r1.work = p.work;
  r1.unit = p.unit;
  r1.throughput = p.work / (one.median * 1e-3) / p.scale;
  r1.check = "process 0 with all the data (reference for the processes)";
  Row rp = r1;
  rp.name = p.name + " on " + std::to_string(P) + " processes";
  rp.wall_ms = all;
  rp.throughput = p.work / (all.median * 1e-3) / p.scale;
  rp.ceiling_name = std::to_string(P) + " times one process";
  rp.ceiling = P * r1.throughput;
  rp.fraction = rp.throughput / rp.ceiling;
  rp.check = check + "; " + fixed(one.median / all.median, 2) + "x one process's time, efficiency " +
             fixed(100 * rp.fraction, 0) + "%";
  rp.error = error;
  rp.pass = pass;
  rows.push_back(r1);
  rows.push_back(rp);
}

}  // namespace

DeviceReport run_mpi(const MpiBenchOptions& o) {
  const int rank = world_rank(), P = world_size();
  const clstat::Device dev =
      clstat::mpi::rank_device(MPI_COMM_WORLD, o.devices.empty() ? std::string() : o.devices[static_cast<std::size_t>(rank) % o.devices.size()]);
  const clstat::Context ctx(dev);
  for (int r = 0; r < P; ++r) {
    if (r == rank) std::fprintf(stderr, "[clstat-bench] mpi: process %d of %d on %s\n", rank, P, dev.info().label().c_str());
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // Process 0's device type sets the sizes, so every process makes the same data.
  int gpu = dev.info().type == clstat::DeviceType::gpu;
  MPI_Bcast(&gpu, 1, MPI_INT, 0, MPI_COMM_WORLD);
  // The scaling suite's sizes (bench/suite_scaling.hpp), so that processes and an in-process
  // group are measured on the same work.
  const int median_log2 = o.median_log2 > 0 ? o.median_log2 : (gpu ? 30 : 24);
  const int kde_log2 = o.kde_log2 > 0 ? o.kde_log2 : (gpu ? 22 : 14);
  const int plugin_log2 = o.plugin_log2 > 0 ? o.plugin_log2 : (gpu ? 18 : 13);
  const std::size_t stable_points = gpu ? 100000000 : 20000, lts_rows = gpu ? 1000000 : 100000, lts_p = 10;
  const auto bounds = [&](std::size_t n) {
    double sum = 0;
    for (int r = 0; r < P; ++r) sum += o.weights[static_cast<std::size_t>(r) % o.weights.size()];
    std::vector<std::size_t> b{0};
    for (int r = 0; r + 1 < P; ++r)
      b.push_back(std::min(n, b.back() + static_cast<std::size_t>(n * o.weights[static_cast<std::size_t>(r) % o.weights.size()] / sum)));
    b.push_back(n);
    return b;
  };
  const auto shard = [&](std::size_t n) {
    const auto b = bounds(n);
    return std::make_pair(b[static_cast<std::size_t>(rank)], b[static_cast<std::size_t>(rank) + 1]);
  };
  DeviceReport rep;
  if (rank == 0) rep.info = dev.info();
  std::vector<Row>& rows = rep.rows;
  std::mt19937_64 g(11);
  std::normal_distribution<double> z;
  {
    const std::size_t n = std::size_t(1) << median_log2;
    std::vector<double> x(n);
    for_blocks(n, [&](std::size_t b, std::size_t lo, std::size_t hi) {
      std::mt19937_64 gb(11 + b);
      std::uniform_real_distribution<double> u(-1, 1);
      for (std::size_t i = lo; i < hi; ++i) x[i] = u(gb) * std::exp(3 * u(gb));
    });
    const auto sh = shard(n);
    const std::size_t lo = sh.first, hi = sh.second;
    double one = 0, all = 0;
    const Stats t1 = timed([&] { if (rank == 0) one = clstat::order::median(ctx, x.data(), n); }, o.repeats);
    const Stats tp = timed([&] { all = clstat::mpi::median(ctx, MPI_COMM_WORLD, x.data() + lo, hi - lo); }, o.repeats);
    add_rows(rows, {"median (host data)", "f64", "GB/s", n, 8.0 * n}, o.repeats, t1, tp, P,
             one == all ? "the same value as one process" : "A DIFFERENT VALUE from one process", 0, one == all);
  }
  {
    const std::size_t n = std::size_t(1) << kde_log2;
    std::vector<double> x(n), y(n);
    for (auto& v : x) v = z(g);
    for (auto& v : y) v = 1.5 * z(g);
    clstat::KdeOptions ko;
    ko.bandwidth = clstat::Bandwidth::scalar(0.05);
    ko.precision = clstat::Precision::float32;
    const auto sh = shard(n);
    const std::size_t lo = sh.first, hi = sh.second;
    std::vector<double> one, all;
    const Stats t1 = timed([&] { if (rank == 0) one = clstat::kde(ctx, x.data(), n, 1, y.data(), n, ko); }, o.repeats);
    const Stats tp = timed([&] { all = clstat::mpi::kde(ctx, MPI_COMM_WORLD, x.data() + lo, hi - lo, 1, y.data(), n, ko); }, o.repeats);
    double err = 0, top = 0;
    if (rank == 0)
      for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::fabs(one[i] - all[i])), top = std::max(top, one[i]);
    add_rows(rows, {"kde d=1 gaussian", "f32", "Gpairs/s", n, double(n) * double(n)}, o.repeats, t1, tp, P,
             "against one process, relative to the largest density", top > 0 ? err / top : 0, err <= 2e-5 * top);
  }
  {
    const std::size_t n = stable_points;
    std::vector<double> x(n);
    std::uniform_real_distribution<double> u(-20, 20);
    for (auto& v : x) v = u(g);
    const clstat::stable::Params law{1.5, 0.5, 1, 0, clstat::stable::Param::S0};
    const auto b = bounds(n);
    const auto sh = shard(n);
    const std::size_t lo = sh.first, hi = sh.second;
    std::vector<double> one, mine;
    const Stats t1 = timed([&] { if (rank == 0) one = clstat::stable::pdf(ctx, x.data(), n, law); }, o.repeats);
    // The points are independent: each process evaluates its own, nothing is exchanged.
    const Stats tp = timed([&] { mine = hi > lo ? clstat::stable::pdf(ctx, x.data() + lo, hi - lo, law) : std::vector<double>{}; }, o.repeats);
    std::vector<int> counts(static_cast<std::size_t>(P)), displs(static_cast<std::size_t>(P));
    for (int r = 0; r < P; ++r) {
      counts[static_cast<std::size_t>(r)] = static_cast<int>(b[static_cast<std::size_t>(r) + 1] - b[static_cast<std::size_t>(r)]);
      displs[static_cast<std::size_t>(r)] = static_cast<int>(b[static_cast<std::size_t>(r)]);
    }
    std::vector<double> all(rank == 0 ? n : 0);
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double err = 0;
    if (rank == 0)
      for (std::size_t i = 0; i < n; ++i)
        if (one[i] != all[i]) err = std::max(err, std::fabs(one[i] - all[i]) / std::max(std::fabs(one[i]), 1e-300));
    add_rows(rows, {"stable pdf (1.5, 0.5) S0", "f64", "Mpt/s", n, double(n), 1e6}, o.repeats, t1, tp, P,
             "every shard against one process, relative", err, err <= 1e-9);
  }
  {
    const std::size_t n = std::size_t(1) << plugin_log2;
    std::vector<double> x(n);
    for (auto& v : x) v = z(g);
    const auto sh = shard(n);
    const std::size_t lo = sh.first, hi = sh.second;
    double one = 0, all = 0;
    const Stats t1 = timed([&] { if (rank == 0) one = clstat::bandwidth::plugin(ctx, x.data(), n, 1)[0]; }, o.repeats);
    const Stats tp = timed([&] { all = clstat::mpi::plugin(ctx, MPI_COMM_WORLD, x.data() + lo, hi - lo, 1)[0]; }, o.repeats);
    add_rows(rows, {"plugin bandwidth, 2 stages", "f64", "Gpairs/s", n, double(n) * double(n)}, o.repeats, t1, tp, P,
             one == all ? "the same value as one process" : "A DIFFERENT VALUE from one process", 0, one == all);
  }
  {
    const std::size_t n = lts_rows, p = lts_p;
    std::vector<double> x(n * p), y(n);
    for (auto& v : x) v = z(g);
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = 1 + 0.1 * z(g);
      for (std::size_t j = 0; j < p; ++j) y[i] += (j % 2 ? -1.0 : 1.0) * x[i * p + j];
      if (i % 10 < 3) y[i] += 10;
    }
    const auto sh = shard(n);
    const std::size_t lo = sh.first, hi = sh.second;
    clstat::robust::LtsFit one, all;
    const Stats t1 = timed([&] { if (rank == 0) one = clstat::robust::lts(ctx, x.data(), n, p, y.data()); }, o.repeats);
    const Stats tp = timed([&] { all = clstat::mpi::lts(ctx, MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, y.data() + lo); }, o.repeats);
    double err = 0;
    if (rank == 0)
      for (std::size_t j = 0; j <= p; ++j)
        err = std::max(err, std::fabs(one.coefficients[j] - all.coefficients[j]) / (1 + std::fabs(one.coefficients[j])));
    add_rows(rows, {"lts p = 10", "f64", "Mrows/s", n, double(n), 1e6}, o.repeats, t1, tp, P,
             "coefficients against one process's, relative", err, err <= 1e-9);
  }
  if (rank != 0) rows.clear();
  return rep;
}

}  // namespace bench
