// clstat-mpi-bench: one call split across MPI processes against one process holding all the
// data. Run under mpirun; every process makes the same data (one seed) and takes its shard.
//   mpirun -np P clstat-mpi-bench [--devices SPEC,SPEC,...] [--weights W,W,...] [--median-log2 N]
//                                 [--kde-log2 N] [--stable-points N] [--plugin-log2 N] [--lts-rows N]
//                                 [--lts-p P] [--repeats R]
// --devices: process r uses the r-th spec (cycled), else clstat::mpi::rank_device. --weights:
// the processes' shares (cycled; default equal). Rows (process 0 prints): the median of 2^N
// doubles from host memory, KDE 1-d fp32 at n = m = 2^N' (samples sharded, all points on every
// process) and the stable pdf of one law at N'' points (the points sharded: each process the
// densities of its own points, nothing exchanged), each as one process with all the data
// (process 0, the others waiting) and as all processes together, wall clock from a barrier to
// the last process's return (median of R); the answers compared (the median equal, kde within
// 2e-5 of the largest density, the pdf's shards bit for bit on devices of one name); then the
// two-stage plug-in bandwidth of 2^N''' doubles (rows sharded, the tiles of pairs dealt to the processes),
// equal to one process's on devices of one name; then LTS of N rows of P columns (30% of them
// shifted; rows sharded, staying on their processes), the coefficients against one process's.
#include <clstat/mpi.hpp>
#include <clstat/stable.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');) out.push_back(t);
  return out;
}

// Median wall time (ms) over `repeats` runs of f, each from a barrier to the slowest process's end.
double timed(const std::function<void()>& f, int repeats) {
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
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string> specs;
  std::vector<double> weights{1};
  int median_log2 = 24, kde_log2 = 16, repeats = 5;
  std::size_t stable_points = 1000000;
  int plugin_log2 = 14;
  std::size_t lts_rows = 1000000, lts_p = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--devices") specs = split(v);
    else if (a == "--weights") {
      weights.clear();
      for (const auto& w : split(v)) weights.push_back(std::stod(w));
    } else if (a == "--median-log2") median_log2 = std::stoi(v);
    else if (a == "--kde-log2") kde_log2 = std::stoi(v);
    else if (a == "--stable-points") stable_points = std::stoull(v);
    else if (a == "--plugin-log2") plugin_log2 = std::stoi(v);
    else if (a == "--lts-rows") lts_rows = std::stoull(v);
    else if (a == "--lts-p") lts_p = std::stoull(v);
    else if (a == "--repeats") repeats = std::stoi(v);
  }
  int rc = 0;
  try {
    const clstat::Device dev =
        specs.empty() ? clstat::mpi::rank_device(MPI_COMM_WORLD)
                      : clstat::mpi::rank_device(MPI_COMM_WORLD, specs[static_cast<std::size_t>(rank) % specs.size()]);
    const clstat::Context ctx(dev);
    for (int r = 0; r < size; ++r) {
      if (r == rank) std::printf("process %d of %d: %s\n", rank, size, dev.info().label().c_str());
      std::fflush(stdout);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    // Shard bounds by the weights.
    auto bounds = [&](std::size_t n) {
      double sum = 0;
      for (int r = 0; r < size; ++r) sum += weights[static_cast<std::size_t>(r) % weights.size()];
      std::vector<std::size_t> b{0};
      for (int r = 0; r + 1 < size; ++r)
        b.push_back(std::min(n, b.back() + static_cast<std::size_t>(n * weights[static_cast<std::size_t>(r) % weights.size()] / sum)));
      b.push_back(n);
      return b;
    };
    std::mt19937_64 g(11);
    {
      const std::size_t n = std::size_t(1) << median_log2;
      std::vector<double> x(n);
      // Blocks of 2^20 values on every core, each from its own seed (2^30 on one thread: half a minute).
      const std::size_t block = std::size_t(1) << 20, blocks = (n + block - 1) / block;
      const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
      std::vector<std::thread> pool;
      for (std::size_t t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          for (std::size_t b = t; b < blocks; b += threads) {
            std::mt19937_64 gb(11 + b);
            std::uniform_real_distribution<double> u(-1, 1);
            for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) x[i] = u(gb) * std::exp(3 * u(gb));
          }
        });
      for (auto& th : pool) th.join();
      const auto b = bounds(n);
      const std::size_t lo = b[static_cast<std::size_t>(rank)], hi = b[static_cast<std::size_t>(rank) + 1];
      double one = 0, all = 0;
      const double t1 = timed([&] { if (rank == 0) one = clstat::order::median(ctx, x.data(), n); }, repeats);
      const double tp = timed([&] { all = clstat::mpi::median(ctx, MPI_COMM_WORLD, x.data() + lo, hi - lo); }, repeats);
      if (rank == 0)
        std::printf("median 2^%d doubles (host data): 1 process %.2f ms, %d processes %.2f ms (%.2fx); %s\n",
                    median_log2, t1, size, tp, t1 / tp, one == all ? "same value" : "DIFFERENT VALUE");
      if (rank == 0 && one != all) rc = 1;
    }
    {
      const std::size_t n = std::size_t(1) << kde_log2;
      std::vector<double> x(n), y(n);
      std::normal_distribution<double> z;
      for (auto& v : x) v = z(g);
      for (auto& v : y) v = 1.5 * z(g);
      clstat::KdeOptions o;
      o.bandwidth = clstat::Bandwidth::scalar(0.05);
      o.precision = clstat::Precision::float32;
      const auto b = bounds(n);
      const std::size_t lo = b[static_cast<std::size_t>(rank)], hi = b[static_cast<std::size_t>(rank) + 1];
      std::vector<double> one, all;
      const double t1 = timed([&] { if (rank == 0) one = clstat::kde(ctx, x.data(), n, 1, y.data(), n, o); }, repeats);
      const double tp =
          timed([&] { all = clstat::mpi::kde(ctx, MPI_COMM_WORLD, x.data() + lo, hi - lo, 1, y.data(), n, o); }, repeats);
      if (rank == 0) {
        double err = 0, top = 0;
        for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::fabs(one[i] - all[i])), top = std::max(top, one[i]);
        std::printf("kde d=1 fp32 n = m = 2^%d: 1 process %.2f ms, %d processes %.2f ms (%.2fx); max difference %.2e of the largest density\n",
                    kde_log2, t1, size, tp, t1 / tp, err / top);
        if (err > 2e-5 * top) rc = 1;
      }
    }
    if (stable_points > 0) {
      const std::size_t n = stable_points;
      std::vector<double> x(n);
      std::uniform_real_distribution<double> u(-20, 20);
      for (auto& v : x) v = u(g);
      const clstat::stable::Params law{1.5, 0.5, 1, 0, clstat::stable::Param::S0};
      const auto b = bounds(n);
      const std::size_t lo = b[static_cast<std::size_t>(rank)], hi = b[static_cast<std::size_t>(rank) + 1];
      std::vector<double> one, mine;
      const double t1 = timed([&] { if (rank == 0) one = clstat::stable::pdf(ctx, x.data(), n, law); }, repeats);
      const double tp = timed([&] { mine = hi > lo ? clstat::stable::pdf(ctx, x.data() + lo, hi - lo, law) : std::vector<double>{}; }, repeats);
      // Every shard against process 0's whole answer (devices of one name: the same bits).
      std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
      for (int r = 0; r < size; ++r) {
        counts[static_cast<std::size_t>(r)] = static_cast<int>(b[static_cast<std::size_t>(r) + 1] - b[static_cast<std::size_t>(r)]);
        displs[static_cast<std::size_t>(r)] = static_cast<int>(b[static_cast<std::size_t>(r)]);
      }
      std::vector<double> all(rank == 0 ? n : 0);
      MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                  MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        double err = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (one[i] != all[i]) err = std::max(err, std::fabs(one[i] - all[i]) / std::max(std::fabs(one[i]), 1e-300));
        std::printf("stable pdf (1.5, 0.5) S0 at %zu points: 1 process %.2f ms, %d processes %.2f ms (%.2fx); max relative difference %.2e\n",
                    n, t1, size, tp, t1 / tp, err);
        if (err > 1e-9) rc = 1;
      }
    }
    if (plugin_log2 > 0) {
      const std::size_t n = std::size_t(1) << plugin_log2;
      std::vector<double> x(n);
      std::normal_distribution<double> z;
      for (auto& v : x) v = z(g);
      const auto b = bounds(n);
      const std::size_t lo = b[static_cast<std::size_t>(rank)], hi = b[static_cast<std::size_t>(rank) + 1];
      double one = 0, all = 0;
      const double t1 = timed([&] { if (rank == 0) one = clstat::bandwidth::plugin(ctx, x.data(), n, 1)[0]; }, repeats);
      const double tp = timed([&] { all = clstat::mpi::plugin(ctx, MPI_COMM_WORLD, x.data() + lo, hi - lo, 1)[0]; }, repeats);
      if (rank == 0)
        std::printf("plugin bandwidth (2 stages) of 2^%d doubles: 1 process %.2f ms, %d processes %.2f ms (%.2fx); %s\n",
                    plugin_log2, t1, size, tp, t1 / tp, one == all ? "same value" : "DIFFERENT VALUE");
      if (rank == 0 && one != all) rc = 1;
    }
    if (lts_rows > 0) {
      const std::size_t n = lts_rows, p = lts_p;
      std::vector<double> x(n * p), y(n);
      std::normal_distribution<double> z;
      for (auto& v : x) v = z(g);
      for (std::size_t i = 0; i < n; ++i) {
        y[i] = 1 + 0.1 * z(g);
        for (std::size_t j = 0; j < p; ++j) y[i] += (j % 2 ? -1.0 : 1.0) * x[i * p + j];
        if (i % 10 < 3) y[i] += 10;
      }
      const auto b = bounds(n);
      const std::size_t lo = b[static_cast<std::size_t>(rank)], hi = b[static_cast<std::size_t>(rank) + 1];
      clstat::robust::LtsFit one, all;
      const double t1 = timed([&] { if (rank == 0) one = clstat::robust::lts(ctx, x.data(), n, p, y.data()); }, repeats);
      const double tp =
          timed([&] { all = clstat::mpi::lts(ctx, MPI_COMM_WORLD, x.data() + lo * p, hi - lo, p, y.data() + lo); }, repeats);
      if (rank == 0) {
        double err = 0;
        for (std::size_t j = 0; j <= p; ++j)
          err = std::max(err, std::fabs(one.coefficients[j] - all.coefficients[j]) / (1 + std::fabs(one.coefficients[j])));
        std::printf("lts p = %zu, %zu rows: 1 process %.2f ms, %d processes %.2f ms (%.2fx); coefficients within %.2e\n",
                    p, n, t1, size, tp, t1 / tp, err);
        if (err > 1e-9) rc = 1;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "clstat-mpi-bench (process %d): %s\n", rank, e.what());
    rc = 1;
  }
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
