#include "kde/grid_bin.hpp"

#include <limits>
#include <stdexcept>
#include <string>

#include "build/program_cache.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::kde_detail {

namespace {

constexpr std::size_t kWg = 256, kRadixTile = 2048, kScanTile = 2048;

// The binning's buffers: keys and values (two each, the radix passes ping-pong), the tiles'
// digit counts and their starts, the scan's tile totals, and the two results.
enum class BinScratch { keys, values, digit_counts, digit_starts, tile_totals, samples, offsets, params, geometry };

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

}  // namespace

BinnedSamples bin_samples(detail::ContextImpl& ci, const Queue& q, const cl::Buffer& x, std::size_t n,
                          const GridLayout& g, const std::vector<double>& lower, const std::vector<double>& step,
                          const char* op) {
  const std::size_t d = g.d, cells = g.cells();
  constexpr std::size_t kMax = std::numeric_limits<cl_uint>::max() - 1;
  if (n >= kMax) throw std::invalid_argument(std::string(op) + ": the sample-wise method takes fewer than 2^32 - 1 samples");
  if (cells >= kMax) throw std::invalid_argument(std::string(op) + ": too many cells for the binning");
  auto prog = build::program(ci, "kde/grid_bin", build::base_options(ci, true, op) + " -DD=" + std::to_string(d));
  auto k_keys = build::kernel(*prog, "grid_bin_keys", q.index());
  auto k_count = build::kernel(*prog, "grid_radix_count", q.index());
  auto k_scatter = build::kernel(*prog, "grid_radix_scatter", q.index());
  auto k_tiles = build::kernel(*prog, "grid_scan_tiles", q.index());
  auto k_totals = build::kernel(*prog, "grid_scan_totals", q.index());
  auto k_add = build::kernel(*prog, "grid_scan_add", q.index());
  auto k_offsets = build::kernel(*prog, "grid_cell_offsets", q.index());
  auto k_gather = build::kernel(*prog, "grid_gather", q.index());

  std::vector<double> prm(2 * d);
  std::vector<cl_ulong> cgeo(3 * d);
  for (std::size_t k = 0; k < d; ++k) {
    prm[k] = lower[k];
    prm[d + k] = step[k];
    cgeo[k] = g.csize[k];
    cgeo[d + k] = g.creach[k];
    cgeo[2 * d + k] = g.cext[k];
  }
  const std::size_t nn = std::max<std::size_t>(n, 1), groups = (nn + kRadixTile - 1) / kRadixTile;
  // The queue's scratch buffers, reused call after call (queues are in order).
  auto make = [&](BinScratch which, std::size_t bytes, std::size_t part = 0) {
    return detail::scratch(q, which, std::max<std::size_t>(bytes, 16), part);
  };
  const cl::Buffer bprm = detail::staged(q, BinScratch::params, prm.data(), prm.size() * sizeof(double));
  const cl::Buffer bgeo = detail::staged(q, BinScratch::geometry, cgeo.data(), cgeo.size() * sizeof(cl_ulong));
  cl::Buffer key[2] = {make(BinScratch::keys, nn * 4), make(BinScratch::keys, nn * 4, 1)};
  cl::Buffer val[2] = {make(BinScratch::values, nn * 4), make(BinScratch::values, nn * 4, 1)};
  cl::Buffer gcount = make(BinScratch::digit_counts, 16 * groups * 4);
  cl::Buffer gstart = make(BinScratch::digit_starts, (16 * groups + 1) * 4);
  cl::Buffer tile_total =
      make(BinScratch::tile_totals, ((std::max(16 * groups, cells + 1) + kScanTile - 1) / kScanTile) * 4);
  BinnedSamples out{make(BinScratch::samples, nn * d * sizeof(double)), make(BinScratch::offsets, (cells + 1) * 4)};
  const auto N = static_cast<cl_uint>(n), C = static_cast<cl_uint>(cells);
  auto run = [&](cl::Kernel& k, std::size_t global, std::size_t local) {
    detail::launch(q, k, cl::NDRange(round_up(std::max<std::size_t>(global, 1), local)), cl::NDRange(local), {}, op);
  };
  // Exclusive scan of m uint into out (m + 1 values: the total last).
  auto scan = [&](const cl::Buffer& in, std::size_t m, const cl::Buffer& dst) {
    const std::size_t tiles = (m + kScanTile - 1) / kScanTile;
    k_tiles.setArg(0, in);
    k_tiles.setArg(1, static_cast<cl_uint>(m));
    k_tiles.setArg(2, dst);
    k_tiles.setArg(3, tile_total);
    run(k_tiles, tiles * kWg, kWg);
    k_totals.setArg(0, tile_total);
    k_totals.setArg(1, static_cast<cl_uint>(tiles));
    k_totals.setArg(2, dst);
    k_totals.setArg(3, static_cast<cl_uint>(m));
    run(k_totals, kWg, kWg);
    k_add.setArg(0, dst);
    k_add.setArg(1, static_cast<cl_uint>(m));
    k_add.setArg(2, tile_total);
    run(k_add, m, kWg);
  };
  k_keys.setArg(0, x);
  k_keys.setArg(1, N);
  k_keys.setArg(2, bprm);
  k_keys.setArg(3, bgeo);
  k_keys.setArg(4, C);
  k_keys.setArg(5, key[0]);
  k_keys.setArg(6, val[0]);
  run(k_keys, n, kWg);
  // Keys run up to `cells` (the dropped samples, sorted last).
  std::size_t bits = 0;
  while (bits < 32 && (cells >> bits) != 0) ++bits;
  int cur = 0;
  for (std::size_t shift = 0; shift < bits; shift += 4, cur ^= 1) {
    k_count.setArg(0, key[cur]);
    k_count.setArg(1, N);
    k_count.setArg(2, static_cast<cl_uint>(shift));
    k_count.setArg(3, gcount);
    run(k_count, groups * kWg, kWg);
    scan(gcount, 16 * groups, gstart);
    k_scatter.setArg(0, key[cur]);
    k_scatter.setArg(1, val[cur]);
    k_scatter.setArg(2, N);
    k_scatter.setArg(3, static_cast<cl_uint>(shift));
    k_scatter.setArg(4, gstart);
    k_scatter.setArg(5, key[cur ^ 1]);
    k_scatter.setArg(6, val[cur ^ 1]);
    run(k_scatter, groups * kWg, kWg);
  }
  k_offsets.setArg(0, key[cur]);
  k_offsets.setArg(1, N);
  k_offsets.setArg(2, C);
  k_offsets.setArg(3, out.off);
  run(k_offsets, cells + 1, kWg);
  k_gather.setArg(0, x);
  k_gather.setArg(1, val[cur]);
  k_gather.setArg(2, out.off);
  k_gather.setArg(3, C);
  k_gather.setArg(4, out.xs);
  run(k_gather, n, kWg);
  return out;
}

}  // namespace clstat::kde_detail
