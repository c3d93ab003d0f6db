// The sample-wise method of evaluate_grid (issue 6): the pipeline of upload, device binning,
// the grid kernel slab by slab, and the reads to where the values go (see grid_sample_wise.hpp).
#include "kde/grid_sample_wise.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "build/program_cache.hpp"
#include "kde/grid_bin.hpp"
#include "kde/grid_layout.hpp"
#include "runtime/host_parallel.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::kde_detail {

namespace {

// dst[0..count) = src[0..count) by up to 8 host threads, in chunks of 2^20 values (one thread
// copies about 10 GB/s).
void parallel_copy(double* dst, const double* src, std::size_t count) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  detail::parallel_tasks((count + kChunk - 1) / kChunk, 8, [&](std::size_t t) {
    const std::size_t b = t * kChunk, e = std::min(count, b + kChunk);
    std::copy(src + b, src + e, dst + b);
  });
}

// The sample-wise method's scratch: the samples as given, and the ring of slab buffers (parts).
enum class GridScratch { samples, slab, geometry, params };

// Cells the samples are sorted into, at most (4 bytes each on the device; also at most 4 per
// sample, as finer cells than that cost more in offsets than they save in pairs).
constexpr std::size_t kMaxCells = std::size_t{1} << 24;

}  // namespace

void grid_sample_wise(const Context& ctx, const Queue& q, const double* x, std::size_t n, const GridGeometry& g,
                      const std::vector<double>& A, double scale, double r2, int kern, std::size_t budget,
                      const GridSink& sink, const char* kOp) {
  const std::size_t d = g.d;
  // Points per work-item along the last dimension. In d >= 3, 4 share each sample's loads and
  // first d - 1 terms of q (3-d bench grid on the H100: 179 ms in all against 214 ms with 2),
  // unless the grid then has too few tiles to fill the device; in 2-d the shared part is small
  // and the wider tile gathers more samples (3800 x 3400: 216 ms against 201 ms with 2).
  // The tuning table's grid.ppi overrides it.
  std::size_t points = 1;
  for (auto c : g.count) points *= c;
  std::size_t ppi = d >= 3 && points >= 16 * 1024 * std::max<std::size_t>(1, ctx.info().compute_units) ? 4 : 2;
  const auto& tuning = ctx.impl()->tuning;
  ppi = detail::tuned(tuning, "grid.ppi", ppi);
  // grid.max_cells lowers the cap (tests reach coarse cells at small sizes with it).
  std::size_t max_cells = std::min(kMaxCells, std::max<std::size_t>(std::size_t{1} << 16, 4 * n));
  max_cells = std::min(kMaxCells, detail::tuned(tuning, "grid.max_cells", max_cells));
  const auto lay = plan_grid_layout(g.count, g.reach, ppi, max_cells);
  std::vector<cl_ulong> geo(5 * d);
  std::vector<double> prm(3 * d + d * d, 0.0);
  for (std::size_t k = 0; k < d; ++k) {
    geo[k] = g.count[k];
    geo[d + k] = lay.ntile[k];
    geo[2 * d + k] = lay.cext[k];
    geo[3 * d + k] = lay.creach[k];
    geo[4 * d + k] = lay.csize[k];
    prm[k] = g.lower[k];
    prm[d + k] = g.step[k];
    for (std::size_t b = 0; b <= k; ++b) prm[2 * d + k * d + b] = A[k * d + b];
    prm[2 * d + d * d + k] = g.reach[k];
  }
  std::size_t inner_points = 1, inner_tiles = 1;  // per first-dimension index / tile row
  for (std::size_t k = 1; k < d; ++k) {
    inner_points *= g.count[k];
    inner_tiles *= lay.ntile[k];
  }
  // Slabs of whole first-dimension indices (a tile that straddles two slabs computes its part of
  // each: the same values, see kde_grid.cl), at most the budget each. A grid of many bytes is cut
  // into up to 12 slabs of about 128 MB, so that reading one overlaps computing the next; a grid
  // of few is one slab, as kernels on one queue run one after the other and each ends in a tail
  // of unevenly loaded tiles (3800 x 3400 in 7 slabs: 285 ms against 195 ms in one). Whole tile
  // rows where a slab holds some.
  const std::size_t row_bytes = inner_points * sizeof(double);
  // The rows asked for (all but for a group member's share).
  const std::size_t first_row = sink.device ? 0 : std::min(sink.row_begin, g.count[0]);
  const std::size_t end_row = sink.device ? g.count[0] : std::min(sink.row_end, g.count[0]);
  if (first_row >= end_row) return;
  const std::size_t span = end_row - first_row;
  std::size_t rows_per_slab = span;
  if (!sink.device) {
    const std::size_t wanted = std::max<std::size_t>(1, std::min<std::size_t>(12, span * row_bytes / (std::size_t{128} << 20)));
    rows_per_slab = std::min((span + wanted - 1) / wanted, std::max<std::size_t>(1, budget / row_bytes));
    if (rows_per_slab > lay.tile[0] && rows_per_slab < span) rows_per_slab -= rows_per_slab % lay.tile[0];
  }
  auto ci = ctx.impl();
  detail::cl_guard(kOp, *ci, [&] {
    std::string opt = build::base_options(*ci, true, kOp) + " -DD=" + std::to_string(d) +
                      " -DKERN=" + std::to_string(kern) + " -DWG=" + std::to_string(kGridItems) +
                      " -DPPI=" + std::to_string(ppi);
    for (std::size_t k = 0; k < d; ++k) opt += " -DT" + std::to_string(k) + "=" + std::to_string(lay.items[k]);
    // Rows staged together; grid.rows_max lowers it (tests reach the loop over blocks with it).
    if (const std::size_t rm = detail::tuned(tuning, "grid.rows_max", 0))
      opt += " -DROWS_MAX=" + std::to_string(std::min<std::size_t>(kGridItems, rm));
    auto prog = build::program(*ci, "kde/kde_grid", opt);
    const cl::CommandQueue& cq = detail::queue_of(q);
    cl::Buffer bx = detail::scratch(q, GridScratch::samples, n * d * sizeof(double));
    detail::write_wait(cq, bx, 0, n * d * sizeof(double), x);
    const auto bins = bin_samples(*ci, q, bx, n, lay, g.lower, g.step, kOp);
    const cl::Buffer bg = detail::staged(q, GridScratch::geometry, geo.data(), geo.size() * sizeof(cl_ulong));
    const cl::Buffer bp = detail::staged(q, GridScratch::params, prm.data(), prm.size() * sizeof(double));
    cl::Kernel kk = build::kernel(*prog, "grid_skde", q.index());
    kk.setArg(0, bins.xs);
    kk.setArg(1, bins.off);
    kk.setArg(2, bg);
    kk.setArg(3, bp);
    kk.setArg(4, scale);
    kk.setArg(5, r2);
    const std::size_t slabs = (span + rows_per_slab - 1) / rows_per_slab;
    auto slab_rows = [&](std::size_t s) {
      return std::make_pair(first_row + s * rows_per_slab, std::min(end_row, first_row + (s + 1) * rows_per_slab));
    };
    // Two slabs in flight: kernel s + 2 waits for the read of slab s out of the same device
    // buffer. Reads go on a second queue into pinned host memory, pooled by the context (pinning
    // 2 x 142 MB took 125 ms on the H100's host: the first call pays it), and are copied on by the
    // host's threads while the next slabs are computed and read: for the 3-d bench grid (1.56 GB)
    // the slabs took 112-120 ms so, against 167-210 ms read straight into the result, where the
    // driver copies through its own staging (11 GB/s at best; bench/results/sweeps/ in git history, up to a10d6fa).
    const std::size_t slab_bytes = rows_per_slab * row_bytes;
    const std::size_t ring = sink.device ? 1 : std::min<std::size_t>(2, slabs);
    std::vector<cl::Buffer> bout;
    std::vector<std::shared_ptr<detail::ContextImpl::PinnedBlock>> pinned;
    struct GiveBack {  // the pinned blocks return to the pool however this scope ends, once no
      detail::ContextImpl& ci;  // read into them is in flight
      std::vector<std::shared_ptr<detail::ContextImpl::PinnedBlock>>& blocks;
      const cl::CommandQueue* reads = nullptr;
      ~GiveBack() {
        try {
          if (reads) reads->finish();
        } catch (...) {
          return;  // the blocks are dropped, not pooled
        }
        for (auto& b : blocks) ci.give_pinned(std::move(b));
      }
    } give_back{*ci, pinned};
    for (std::size_t i = 0; i < ring; ++i) {
      if (sink.device) {
        bout.push_back(*sink.device);
        break;
      }
      bout.push_back(detail::scratch(q, GridScratch::slab, slab_bytes, i));
      pinned.push_back(ci->take_pinned(slab_bytes));
    }
    // Reads go on a second queue when one is free, so they overlap the next slab's kernel; on q
    // itself otherwise (still correct, in order).
    detail::Lease reads = detail::Lease::try_another(ctx);
    const cl::CommandQueue& rq = reads ? reads.cl() : cq;
    give_back.reads = &rq;
    std::vector<Event> kdone(slabs);
    std::vector<cl::Event> rdone(slabs);
    auto compute = [&](std::size_t s) {
      const auto [row0, row1] = slab_rows(s);
      const std::size_t c0 = row0 / lay.tile[0], c1 = (row1 + lay.tile[0] - 1) / lay.tile[0];
      kk.setArg(6, static_cast<cl_ulong>(c0 * inner_tiles));
      kk.setArg(7, static_cast<cl_ulong>(row0));
      kk.setArg(8, static_cast<cl_ulong>(row1));
      kk.setArg(9, bout[s % ring]);
      std::vector<Event> wait = sink.device ? sink.wait : std::vector<Event>{};
      if (s >= ring && !sink.device) wait.push_back(detail::from_cl(rdone[s - ring]));
      kdone[s] = detail::launch(q, kk, cl::NDRange((c1 - c0) * inner_tiles * kGridItems),
                                cl::NDRange(kGridItems), wait, kOp);
      cq.flush();
      if (sink.device) {
        if (sink.finished) *sink.finished = kdone[s];
        return;
      }
      const std::size_t pts = (row1 - row0) * inner_points;
      std::vector<cl::Event> kw = detail::to_cl({kdone[s]});
      rq.enqueueReadBuffer(bout[s % ring], CL_FALSE, 0, pts * sizeof(double), pinned[s % ring]->host, &kw, &rdone[s]);
      rq.flush();
    };
    if (sink.device) {
      for (std::size_t s = 0; s < slabs; ++s) compute(s);
      return;
    }
    for (std::size_t s = 0; s < ring; ++s) compute(s);
    for (std::size_t s = 0; s < slabs; ++s) {
      rdone[s].wait();
      const auto [row0, row1] = slab_rows(s);
      const std::size_t pts = (row1 - row0) * inner_points;
      parallel_copy(sink.place(row0 * inner_points, pts), static_cast<const double*>(pinned[s % ring]->host), pts);
      sink.done(row0 * inner_points, pts);
      if (s + ring < slabs) compute(s + ring);
    }
  });
}

}  // namespace clstat::kde_detail
