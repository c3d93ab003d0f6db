// clstat grid: the density of CSV (or .f64) samples on a regular grid by clstat::evaluate_grid,
// written as raw .f64 or .f32 (slab by slab, bounded memory) or as CSV rows (coordinates, density);
// progress on stderr for long runs and a one-line summary.
#include "grid_command.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/kde_grid.hpp"
#include "cli_common.hpp"
#include "kde_args.hpp"
#include "progress.hpp"
#include "table_input.hpp"

namespace clstat_cli {
namespace {

const char* k_usage =
    "usage: clstat grid --data FILE --lower a,b --upper c,d --size n1,n2 --out FILE [options]\n"
    "  --data FILE        samples: CSV (header detected) or raw .f64 with --dims\n"
    "  --columns a,b      CSV columns to use, by header name or 1-based position (default: all)\n"
    "  --dims d           values per row of .f64 input\n"
    "  --lower, --upper   the grid's first and last point in each dimension\n"
    "  --size n1,n2,...   points per dimension (both ends included)\n"
    "  --kernel K         epanechnikov (default), biweight, triweight, uniform, gaussian (needs --cutoff\n"
    "                     for the sample-wise method)\n"
    "  --cutoff C         the Gaussian's support radius in kernel standard deviations\n"
    "  --bandwidth B      normal-scale (default: H = h^2 S with the normal reference h), S:h, h,\n"
    "                     h1,h2,... or H:... as clstat kde (radial kernels in every case)\n"
    "  --method M         auto (default), sample-wise (S-KDE) or point-wise (EP-KDE)\n"
    "  --memory BYTES     device memory for one slab of grid values (default: an eighth of the\n"
    "                     device's); two slabs are in flight\n"
    "  --out FILE         .f64: raw little-endian doubles, row-major, first dimension slowest;\n"
    "                     .f32: the same as floats;\n"
    "                     .csv: one row per point, its coordinates then the density\n"
    "  --device SPEC      as CLSTAT_DEVICE: gpu, cpu, nvidia, pocl, P:D or a name substring\n"
    "Summary on stderr: grid size, time, and the integral of the density over the grid (the sum\n"
    "of the values times the cell volume; the estimate is never renormalised).\n";

}  // namespace

int grid_command(int argc, char** argv) {
  std::string data, columns, out, kernel = "epanechnikov", bw = "normal-scale", method = "auto", device;
  std::string lower, upper, size;
  std::size_t dims = 0, memory = 0;
  double cutoff = 0;
  SeenOptions seen;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    seen.add(a);
    if (a == "--help" || a == "-h") {
      std::cout << k_usage;
      return 0;
    }
    auto value = [&] { return next_value(i, argc, argv); };
    if (a == "--data") data = value();
    else if (a == "--columns") columns = value();
    else if (a == "--dims") dims = parse_count("--dims", value(), 1, 64);
    else if (a == "--lower") lower = value();
    else if (a == "--upper") upper = value();
    else if (a == "--size") size = value();
    else if (a == "--kernel") kernel = value();
    else if (a == "--cutoff") cutoff = parse_real("--cutoff", value());
    else if (a == "--bandwidth") bw = value();
    else if (a == "--method") method = value();
    else if (a == "--memory") memory = parse_count("--memory", value(), 1);
    else if (a == "--out") out = value();
    else if (a == "--device") device = value();
    else {
      std::cerr << "clstat grid: unknown argument '" << a << "' (clstat grid --help lists the options)\n";
      return 2;
    }
  }
  if (data.empty() || lower.empty() || upper.empty() || size.empty() || out.empty()) {
    std::cerr << "clstat grid: needs --data, --lower, --upper, --size and --out (clstat grid --help lists the options)\n";
    return 2;
  }
  const bool raw = ends_with(data, ".f64") || ends_with(data, ".f32");
  const Table t = read_table(data, raw ? "" : columns, raw ? dims : 0);
  const std::size_t d = t.cols, n = t.rows;
  clstat::GridSpec g;
  g.lower = parse_list("--lower", lower);
  g.upper = parse_list("--upper", upper);
  for (auto v : parse_counts("--size", size, 1, ~0ull)) g.count.push_back(static_cast<std::size_t>(v));
  clstat::GridOptions o;
  o.kernel = kernel_of(kernel);
  if (seen.has("--cutoff") && kernel != "gaussian")
    throw std::invalid_argument("--cutoff applies to --kernel gaussian (the " + kernel + " kernel has a bounded support)");
  o.gaussian_cutoff = cutoff;
  o.memory_budget_bytes = memory;
  o.bandwidth = bw == "normal-scale" ? clstat::Bandwidth::scaled_covariance(clstat::grid_normal_scale(o.kernel, d, n))
                                     : bandwidth_of(bw, d);
  if (method == "auto") o.method = clstat::GridMethod::automatic;
  else if (method == "sample-wise") o.method = clstat::GridMethod::sample_wise;
  else if (method == "point-wise") o.method = clstat::GridMethod::point_wise;
  else throw std::invalid_argument("--method is auto, sample-wise or point-wise");
  const clstat::Context ctx = context_for(device);
  if (g.lower.size() != d || g.upper.size() != d || g.count.size() != d)
    throw std::invalid_argument("--lower, --upper and --size need " + std::to_string(d) + " values each (one per column); got " +
                                std::to_string(g.lower.size()) + ", " + std::to_string(g.upper.size()) + " and " +
                                std::to_string(g.count.size()));
  double cell = 1;  // the volume of one grid cell
  for (std::size_t k = 0; k < g.count.size(); ++k)
    if (g.count[k] > 1) cell *= (g.upper[k] - g.lower[k]) / static_cast<double>(g.count[k] - 1);
  const auto t0 = std::chrono::steady_clock::now();
  double sum = 0;
  if (ends_with(out, ".csv")) {
    const auto v = clstat::evaluate_grid(ctx, t.values.data(), n, d, g, o);
    std::FILE* f = std::fopen(out.c_str(), "w");
    if (!f) throw std::runtime_error("cannot open " + out + " for writing");
    for (std::size_t k = 0; k < d; ++k) std::fprintf(f, "%s,", k < t.names.size() ? t.names[k].c_str() : "x");
    std::fprintf(f, "density\n");
    std::vector<std::size_t> idx(d, 0);
    for (std::size_t p = 0; p < v.size(); ++p) {
      for (std::size_t k = 0; k < d; ++k) {
        const double step = g.count[k] > 1 ? (g.upper[k] - g.lower[k]) / static_cast<double>(g.count[k] - 1) : 0;
        std::fprintf(f, "%s,", g17(g.lower[k] + static_cast<double>(idx[k]) * step).c_str());
      }
      std::fprintf(f, "%s\n", g17(v[p]).c_str());
      sum += v[p];
      for (std::size_t k = d; k-- > 0;) {  // next index, last dimension fastest
        if (++idx[k] < g.count[k]) break;
        idx[k] = 0;
      }
    }
    if (std::fclose(f) != 0) throw std::runtime_error("writing " + out + " failed");
  } else {
    const bool single = ends_with(out, ".f32");
    if (!single && !ends_with(out, ".f64")) throw std::invalid_argument("--out must end in .f64, .f32 or .csv");
    clstat_tools::Progress progress("clstat grid");
    clstat::evaluate_grid_to_file(ctx, t.values.data(), n, d, g, out, o,
                                  [&](const clstat::ProgressReport& p) { progress.update(p.done, p.total); });
    progress.clear();
    // The integral, reading the file back in bounded chunks.
    std::FILE* f = std::fopen(out.c_str(), "rb");
    if (!f) throw std::runtime_error("cannot reopen " + out);
    std::vector<double> buf(1 << 20);
    std::vector<float> fbuf(single ? 1 << 20 : 0);
    std::size_t got;
    while ((got = single ? std::fread(fbuf.data(), sizeof(float), fbuf.size(), f)
                         : std::fread(buf.data(), sizeof(double), buf.size(), f)) > 0)
      for (std::size_t i = 0; i < got; ++i) sum += single ? fbuf[i] : buf[i];
    std::fclose(f);
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string shape;
  for (std::size_t k = 0; k < g.count.size(); ++k) shape += (k ? "x" : "") + std::to_string(g.count[k]);
  std::fprintf(stderr, "clstat grid: %s = %zu points from %zu samples in %.3f s; integral over the grid %.6f\n",
               shape.c_str(), g.points(), n, sec, sum * cell);
  return 0;
}

}  // namespace clstat_cli
