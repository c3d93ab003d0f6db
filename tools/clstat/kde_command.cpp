// clstat kde: density estimates from files, written as CSV (or JSON) to stdout.
#include "kde_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "clstat/clstat.hpp"
#include "clstat/group.hpp"
#include "cli_common.hpp"
#include "kde_args.hpp"
#include "mpi_run.hpp"
#include "table_input.hpp"

#ifdef CLSTAT_CLI_MPI
#include "clstat/mpi.hpp"
#endif

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat kde --data FILE [--at FILE] [--kernel K] --bandwidth B [options]\n"
    "  --data FILE        samples: CSV (header detected) or raw little-endian .f64/.f32 with --dims\n"
    "  --at FILE          evaluation points, same format and columns; default: the samples\n"
    "  --columns a,b      columns to use, by header name or 1-based position (default: all)\n"
    "  --dims d           values per row of .f64/.f32 input\n"
    "  --kernel K         gaussian (default), epanechnikov, biweight, triweight, triangular, uniform, cosine\n"
    "  --bandwidth B      h                scalar bandwidth, product kernel\n"
    "                     h1,h2,...        one per dimension, product kernel\n"
    "                     H:v1,v2,...      full matrix H: d*d values row-major, or d(d+1)/2 values as\n"
    "                                      vech(H) (the lower triangle column by column, as R's ks)\n"
    "                     S:h              H = h^2 times the sample covariance\n"
    "  --weights FILE     one non-negative weight per sample (first column of a CSV, or .f64/.f32)\n"
    "  --precision P      double (default) or float\n"
    "  --log              write log densities\n"
    "  --loo              leave-one-out densities at the samples (needs no --at)\n"
    "  --boundary M       a bounded support: reflection, renormalisation (cut and normalise) or log\n"
    "                     (log transform; lower bounds only); needs --lower and/or --upper\n"
    "  --lower a,b,...    per column, the support's lower bounds (-inf: open); default all -inf\n"
    "  --upper a,b,...    per column, the upper bounds (inf: open); default all inf\n"
    "  --sample N         instead of densities, N draws from the estimate (rows of the columns);\n"
    "                     --seed S (default 0) makes them reproducible on any device\n"
    "  --cdf              the kernel estimate of the distribution function F (one column only):\n"
    "                     the integrated kernel, as R's ks::kcde; with --log, log F\n"
    "  --json             JSON instead of CSV\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring; \"all\"\n"
    "                     or a comma-separated list splits the --at points over those devices\n"
    "  --mpi              under mpirun, densities at the --at points: each process reads its share\n"
    "                     of the samples (and of --weights) and every --at point; the processes'\n"
    "                     densities are added in rank order; process 0 prints\n"
    "Output: the point's coordinates, then density (or log_density, cdf, log_cdf), one row per point.\n";

}  // namespace

int kde_command(int argc, char** argv) {
  std::string data, at, columns, kernel = "gaussian", bw, weights, precision = "double", device, boundary;
  std::vector<double> lower, upper;
  unsigned long long draws = 0, seed = 0;
  bool sample = false;
  std::size_t dims = 0;
  bool log = false, loo = false, json = false, cdf = false, mpi = false;
  SeenOptions seen;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    seen.add(a);
    auto value = [&] { return next_value(i, argc, argv); };
    if (a == "--data") data = value();
    else if (a == "--at") at = value();
    else if (a == "--columns") columns = value();
    else if (a == "--dims") dims = parse_count("--dims", value(), 1, 64);
    else if (a == "--kernel") kernel = value();
    else if (a == "--bandwidth") bw = value();
    else if (a == "--weights") weights = value();
    else if (a == "--precision") precision = value();
    else if (a == "--device") device = value();
    else if (a == "--log") log = true;
    else if (a == "--loo") loo = true;
    else if (a == "--cdf") cdf = true;
    else if (a == "--sample") draws = parse_count("--sample", value(), 1, 1ull << 40), sample = true;
    else if (a == "--seed") seed = parse_count("--seed", value());
    else if (a == "--boundary") boundary = value();
    else if (a == "--lower") lower = parse_list("--lower", value(), true);
    else if (a == "--upper") upper = parse_list("--upper", value(), true);
    else if (a == "--json") json = true;
    else if (a == "--mpi") mpi = true;
    else if (a == "--help" || a == "-h") return std::cout << k_usage, 0;
    else {
      std::cerr << "clstat kde: unknown argument '" << a << "' (clstat kde --help lists the options)\n";
      return 2;
    }
  }
  if (data.empty() || bw.empty()) {
    std::cerr << "clstat kde: --data and --bandwidth are required (clstat kde --help lists the options)\n";
    return 2;
  }
  if (loo && !at.empty()) {
    std::cerr << "clstat kde: --loo evaluates at the samples; drop --at\n";
    return 2;
  }
  if (cdf && loo) {
    std::cerr << "clstat kde: --cdf has no leave-one-out form; drop --loo\n";
    return 2;
  }
  if (precision != "double" && precision != "float") {
    std::cerr << "clstat kde: --precision is double or float\n";
    return 2;
  }
  if (mpi && (at.empty() || sample || loo || cdf || names_group(device)))
    throw std::invalid_argument("--mpi splits the samples for the densities at --at points (one device per process); "
                                "not --sample, --loo, --cdf, a device list, nor the densities at the samples");
#ifndef CLSTAT_CLI_MPI
  if (mpi) throw std::invalid_argument("--mpi: this clstat was built without MPI (CMake found no MPI; Debian: libopenmpi-dev)");
#endif
  // The estimate's options for samples x, whose weights (with --weights) are w.
  auto options_for = [&](const Table& x, const Table* w) {
    clstat::KdeOptions o;
    o.kernel = kernel_of(kernel);
    o.bandwidth = bandwidth_of(bw, x.cols);
    o.precision = precision == "float" ? clstat::Precision::float32 : clstat::Precision::float64;
    o.log_density = log;
    o.leave_one_out = loo;
    if (w) o.weights = w->values;
    if (!boundary.empty()) {
      using M = clstat::KdeBoundary::Method;
      o.boundary.method = boundary == "reflection" ? M::reflection
                          : boundary == "renormalisation" ? M::renormalisation
                          : boundary == "log" ? M::log_transform
                                              : throw std::invalid_argument("--boundary: '" + boundary +
                                                                            "' is not reflection, renormalisation or log");
      if (lower.empty() && upper.empty()) throw std::invalid_argument("--boundary needs --lower and/or --upper");
      o.boundary.lower = lower;
      o.boundary.upper = upper;
    } else if (!lower.empty() || !upper.empty()) {
      throw std::invalid_argument("--lower and --upper need --boundary (reflection, renormalisation or log)");
    }
    return o;
  };
  const char* col = cdf ? (log ? "log_cdf" : "cdf") : log ? "log_density" : "density";
  // The values f at the points y of an estimate from n samples of d columns, computed on `where`.
  auto print = [&](const Table& y, const std::vector<double>& f, std::size_t n, const std::string& where) {
    if (json) {
      std::cout << "{\"kernel\": \"" << kernel << "\", \"bandwidth\": \"" << bw << "\", \"precision\": \"" << precision
                << "\", \"n\": " << n << ", \"d\": " << y.cols << ", \"m\": " << y.rows << ", \"device\": \"" << where
                << "\", \"columns\": [";
      for (std::size_t k = 0; k < y.cols; ++k) std::cout << (k ? ", " : "") << '"' << y.names[k] << '"';
      std::cout << "],\n \"points\": [";
      for (std::size_t i = 0; i < y.rows; ++i) {
        std::cout << (i ? ", " : "") << '[';
        for (std::size_t k = 0; k < y.cols; ++k) std::cout << (k ? ", " : "") << g17(y.values[i * y.cols + k]);
        std::cout << ']';
      }
      std::cout << "],\n \"" << col << "\": [";
      for (std::size_t i = 0; i < f.size(); ++i)
        std::cout << (i ? ", " : "") << (std::isfinite(f[i]) ? g17(f[i]) : std::string(f[i] < 0 ? "\"-inf\"" : "null"));
      std::cout << "]}\n";
      return 0;
    }
    for (std::size_t k = 0; k < y.cols; ++k) std::cout << y.names[k] << ',';
    std::cout << col << '\n';
    for (std::size_t i = 0; i < y.rows; ++i) {
      for (std::size_t k = 0; k < y.cols; ++k) std::cout << g17(y.values[i * y.cols + k]) << ',';
      std::cout << g17(f[i]) << '\n';
    }
    return 0;
  };
#ifdef CLSTAT_CLI_MPI
  if (mpi)
    return with_mpi("clstat kde", [&](int rank, int size) {
      const auto r = static_cast<std::size_t>(rank), s = static_cast<std::size_t>(size);
      const Table x = read_table_part(data, columns, dims, r, s);
      const Table y = read_table(at, columns, dims);
      if (y.cols != x.cols)
        throw std::invalid_argument("--at has " + std::to_string(y.cols) + " columns, --data has " + std::to_string(x.cols));
      const Table w = weights.empty() ? Table{} : read_table_part(weights, "1", 1, r, s);
      const clstat::KdeOptions o = options_for(x, weights.empty() ? nullptr : &w);
      const clstat::Context ctx(clstat::mpi::rank_device(MPI_COMM_WORLD, device));
      const std::vector<double> f =
          clstat::mpi::kde(ctx, MPI_COMM_WORLD, x.values.data(), x.rows, x.cols, y.values.data(), y.rows, o);
      std::uint64_t n = x.rows;
      MPI_Allreduce(MPI_IN_PLACE, &n, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      return rank == 0 ? print(y, f, n, std::to_string(size) + " processes") : 0;
    });
#endif
  const Table x = read_table(data, columns, dims);
  const Table y = at.empty() ? x : read_table(at, columns, dims);
  if (y.cols != x.cols)
    throw std::invalid_argument("--at has " + std::to_string(y.cols) + " columns, --data has " + std::to_string(x.cols));
  const Table w = weights.empty() ? Table{} : read_table(weights, "1", 1);
  const clstat::KdeOptions o = options_for(x, weights.empty() ? nullptr : &w);
  // One device, or the devices of --device's list with the evaluation points split over them
  // (clstat/group.hpp): densities at --at points and --cdf.
  const bool group = names_group(device);
  if (group && (at.empty() || sample || loo))
    throw std::invalid_argument("--device " + device +
                                ": a list or \"all\" splits the points of --at (densities or --cdf); not --sample, "
                                "--loo, nor the densities at the samples");
  const clstat::DeviceGroup devices = group ? clstat::DeviceGroup::from_spec(device)
                                            : clstat::DeviceGroup({context_for(device)});
  const clstat::Context& ctx = devices.member(0);
  if (sample) {
    if (cdf || !at.empty() || loo || log)
      throw std::invalid_argument("--sample draws from the estimate: drop --cdf, --at, --loo and --log");
    const std::vector<double> v = clstat::kde_sample(ctx, x.values.data(), x.rows, x.cols, draws, seed, o);
    for (std::size_t k = 0; k < x.cols; ++k) std::cout << (k ? "," : "") << x.names[k];
    std::cout << "\n";
    for (std::size_t i = 0; i < draws; ++i) {
      for (std::size_t k = 0; k < x.cols; ++k) std::cout << (k ? "," : "") << g17(v[i * x.cols + k]);
      std::cout << "\n";
    }
    return 0;  // main checks that the output was written
  }
  if (cdf && x.cols != 1)
    throw std::invalid_argument("--cdf is for one column, the data have " + std::to_string(x.cols));
  const std::vector<double> f =
      group ? (cdf ? clstat::kde_cdf(devices, x.values.data(), x.rows, y.values.data(), y.rows, o)
                   : clstat::kde(devices, x.values.data(), x.rows, x.cols, y.values.data(), y.rows, o))
      : cdf        ? clstat::kde_cdf(ctx, x.values.data(), x.rows, y.values.data(), y.rows, o)
      : at.empty() ? clstat::kde_at_samples(ctx, x.values.data(), x.rows, x.cols, o)
                   : clstat::kde(ctx, x.values.data(), x.rows, x.cols, y.values.data(), y.rows, o);
  return print(y, f, x.rows, group ? device : ctx.info().name);
}

}  // namespace clstat_cli
