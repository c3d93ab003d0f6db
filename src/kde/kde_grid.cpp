// Density on a regular grid (issue 6): the sample-wise gather of cl/kde/kde_grid.cl (S-KDE) over a
// host counting sort of the samples into tile cells, computed slab by slab; and the point-wise
// baseline (EP-KDE) through clstat::kde.
#include "clstat/kde_grid.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>

#include "build/program_cache.hpp"
#include "kde/grid_bin.hpp"
#include "kde/grid_layout.hpp"
#include "kde/kde_plan.hpp"
#include "runtime/launch.hpp"

namespace clstat {

namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr const char* kOp = "clstat::evaluate_grid";

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(std::string(kOp) + ": " + what); }

struct Geometry {
  std::size_t d = 0;
  std::vector<std::size_t> count;
  std::vector<double> lower, step;
  std::vector<double> reach;  // the support's bounding-box half-width in grid steps
};

// Where the grid's values go, slab by slab, in order: place(first, count) gives the memory for
// points [first, first + count) (the result itself, so slabs are read straight into it, or a
// staging buffer), done(first, count) is called once they are there. With `device` set, the
// kernel writes the whole grid there in one slab and nothing is read back.
struct Sink {
  std::function<double*(std::size_t, std::size_t)> place;
  std::function<void(std::size_t, std::size_t)> done;
  const cl::Buffer* device = nullptr;
  std::vector<Event> wait;  // with `device`: what must finish before the grid is written
  Event* finished = nullptr;  // with `device`: set to the event of the last write
  bool direct = false;  // place() gives the result's own memory, distinct for every slab
};

// dst[0..count) = src[0..count) by the host's threads (one thread copies about 10 GB/s).
void parallel_copy(double* dst, const double* src, std::size_t count) {
  const std::size_t chunk = std::size_t{1} << 20;  // values
  const std::size_t threads = std::max<std::size_t>(
      1, std::min<std::size_t>({std::thread::hardware_concurrency(), 8, (count + chunk - 1) / chunk}));
  std::vector<std::thread> pool;
  const std::size_t per = (count + threads - 1) / threads;
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back([=] {
      const std::size_t b = std::min(count, t * per), e = std::min(count, b + per);
      std::copy(src + b, src + e, dst + b);
    });
  std::copy(src, src + std::min(count, per), dst);
  for (auto& th : pool) th.join();
}

// Cells the samples are sorted into, at most (4 bytes each on the device; also at most 4 per
// sample, as finer cells than that cost more in offsets than they save in pairs).
constexpr std::size_t kMaxCells = std::size_t{1} << 24;

void sample_wise(const Context& ctx, const Queue& q, const double* x, std::size_t n, const Geometry& g, const Mat& A, double scale,
                 double r2, int kern, std::size_t budget, const Sink& sink) {
  const std::size_t d = g.d;
  const bool trace = std::getenv("CLSTAT_GRID_TRACE") != nullptr;  // phase times on stderr, for tuning
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
  // Points per work-item along the last dimension. In d >= 3, 4 share each sample's loads and
  // first d - 1 terms of q (3-d bench grid on the H100: 179 ms in all against 214 ms with 2),
  // unless the grid then has too few tiles to fill the device; in 2-d the shared part is small
  // and the wider tile gathers more samples (3800 x 3400: 216 ms against 201 ms with 2).
  // CLSTAT_GRID_PPI overrides it, for tuning.
  std::size_t points = 1;
  for (auto c : g.count) points *= c;
  std::size_t ppi = d >= 3 && points >= 16 * 1024 * std::max<std::size_t>(1, ctx.info().compute_units) ? 4 : 2;
  if (const char* e = std::getenv("CLSTAT_GRID_PPI")) ppi = std::max(1, std::min(8, std::atoi(e)));
  // CLSTAT_GRID_MAX_CELLS lowers the cap, so tests reach coarse cells at small sizes.
  std::size_t max_cells = std::min(kMaxCells, std::max<std::size_t>(std::size_t{1} << 16, 4 * n));
  if (const char* e = std::getenv("CLSTAT_GRID_MAX_CELLS"))
    max_cells = std::max<std::size_t>(1, std::min<std::size_t>(kMaxCells, std::strtoull(e, nullptr, 10)));
  const auto lay = kde_detail::plan_grid_layout(g.count, g.reach, ppi, max_cells);
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
    for (std::size_t b = 0; b <= k; ++b) prm[2 * d + k * d + b] = A(k, b);
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
  std::size_t rows_per_slab = g.count[0];
  if (!sink.device) {
    const std::size_t wanted = std::max<std::size_t>(1, std::min<std::size_t>(12, g.count[0] * row_bytes / (std::size_t{128} << 20)));
    rows_per_slab = std::min((g.count[0] + wanted - 1) / wanted, std::max<std::size_t>(1, budget / row_bytes));
    if (rows_per_slab > lay.tile[0] && rows_per_slab < g.count[0]) rows_per_slab -= rows_per_slab % lay.tile[0];
  }
  auto ci = ctx.impl();
  detail::cl_guard(kOp, *ci, [&] {
    std::string opt = build::base_options(*ci, true, kOp) + " -DD=" + std::to_string(d) +
                      " -DKERN=" + std::to_string(kern) + " -DWG=" + std::to_string(kde_detail::kGridItems) +
                      " -DPPI=" + std::to_string(ppi);
    for (std::size_t k = 0; k < d; ++k) opt += " -DT" + std::to_string(k) + "=" + std::to_string(lay.items[k]);
    // Rows staged together; CLSTAT_GRID_ROWS_MAX lowers it so tests reach the loop over blocks.
    if (const char* e = std::getenv("CLSTAT_GRID_ROWS_MAX"))
      opt += " -DROWS_MAX=" + std::to_string(std::max(1, std::min(static_cast<int>(kde_detail::kGridItems), std::atoi(e))));
    auto prog = build::program(*ci, "kde/kde_grid", opt);
    const cl::CommandQueue& cq = detail::queue_of(q);
    const auto t_up = Clock::now();
    cl::Buffer bx(ci->context, CL_MEM_READ_WRITE, n * d * sizeof(double));
    cq.enqueueWriteBuffer(bx, CL_TRUE, 0, n * d * sizeof(double), x);
    if (trace) std::fprintf(stderr, "[grid] upload %.1f ms (%zu samples)\n", ms_since(t_up), n);
    const auto t_bin = Clock::now();
    const auto bins = kde_detail::bin_samples(*ci, q, bx, n, lay, g.lower, g.step, kOp);
    if (trace) {
      cq.finish();
      std::string shape;
      for (std::size_t k = 0; k < d; ++k)
        shape += (k ? " " : "") + std::to_string(lay.tile[k]) + "/" + std::to_string(lay.csize[k]);
      std::fprintf(stderr, "[grid] binning %.1f ms (%zu cells; tile/cell per dimension: %s)\n", ms_since(t_bin),
                   lay.cells(), shape.c_str());
    }
    cl::Buffer bg(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, geo.size() * sizeof(cl_ulong), geo.data());
    cl::Buffer bp(ci->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, prm.size() * sizeof(double), prm.data());
    cl::Kernel kk = build::kernel(*prog, "grid_skde", q.index());
    kk.setArg(0, bins.xs);
    kk.setArg(1, bins.off);
    kk.setArg(2, bg);
    kk.setArg(3, bp);
    kk.setArg(4, scale);
    kk.setArg(5, r2);
    const std::size_t slabs = (g.count[0] + rows_per_slab - 1) / rows_per_slab;
    auto slab_rows = [&](std::size_t s) {
      return std::make_pair(s * rows_per_slab, std::min(g.count[0], (s + 1) * rows_per_slab));
    };
    // Slabs in flight: kernel s + ring waits for the read of slab s out of the same device buffer.
    // Reads go on a second queue into pinned host memory, pooled by the context (pinning 2 x 142
    // MB took 125 ms on the H100's host: the first call pays it), and are copied on by the host's
    // threads while the next slabs are computed and read: for the 3-d bench grid (1.56 GB) the
    // slabs took 112-120 ms so against 167-210 ms read straight into the result, where the driver
    // copies from its own staging (11 GB/s at best). CLSTAT_GRID_READ=direct reads straight into
    // the result when the sink allows, for comparison.
    const char* read_mode = std::getenv("CLSTAT_GRID_READ");
    const bool direct = sink.direct && read_mode && std::string(read_mode) == "direct";
    const std::size_t slab_bytes = rows_per_slab * row_bytes;
    const std::size_t ring = sink.device ? 1 : std::min<std::size_t>(direct ? 3 : 2, slabs);
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
    std::vector<double*> host(ring, nullptr);
    for (std::size_t i = 0; i < ring; ++i) {
      bout.push_back(sink.device ? *sink.device : cl::Buffer(ci->context, CL_MEM_WRITE_ONLY, slab_bytes));
      if (sink.device || direct) continue;
      pinned.push_back(ci->take_pinned(slab_bytes));
      host[i] = static_cast<double*>(pinned.back()->host);
    }
    const Queue qr = ctx.queue(ctx.queue_count() > 1 && q.index() == 0 ? 1 : 0);
    const cl::CommandQueue& rq = detail::queue_of(qr);
    give_back.reads = &rq;
    std::vector<Event> kdone(slabs);
    std::vector<cl::Event> rdone(slabs);
    std::vector<double*> dest(slabs, nullptr);
    auto compute = [&](std::size_t s) {
      const auto [row0, row1] = slab_rows(s);
      const std::size_t c0 = row0 / lay.tile[0], c1 = (row1 + lay.tile[0] - 1) / lay.tile[0];
      kk.setArg(6, static_cast<cl_ulong>(c0 * inner_tiles));
      kk.setArg(7, static_cast<cl_ulong>(row0));
      kk.setArg(8, static_cast<cl_ulong>(row1));
      kk.setArg(9, bout[s % ring]);
      std::vector<Event> wait = sink.device ? sink.wait : std::vector<Event>{};
      if (s >= ring && !sink.device) wait.push_back(detail::from_cl(rdone[s - ring]));
      kdone[s] = detail::launch(q, kk, cl::NDRange((c1 - c0) * inner_tiles * kde_detail::kGridItems),
                                cl::NDRange(kde_detail::kGridItems), wait, kOp);
      cq.flush();
      if (sink.device) {
        if (sink.finished) *sink.finished = kdone[s];
        return;
      }
      const std::size_t pts = (row1 - row0) * inner_points;
      dest[s] = direct ? sink.place(row0 * inner_points, pts) : host[s % ring];
      std::vector<cl::Event> kw = detail::to_cl({kdone[s]});
      rq.enqueueReadBuffer(bout[s % ring], CL_FALSE, 0, pts * sizeof(double), dest[s], &kw, &rdone[s]);
      rq.flush();
    };
    const auto t_k = Clock::now();
    if (sink.device) {
      for (std::size_t s = 0; s < slabs; ++s) compute(s);
      if (trace) {
        cq.finish();
        std::fprintf(stderr, "[grid] kernel %.1f ms (into the device buffer)\n", ms_since(t_k));
      }
      return;
    }
    for (std::size_t s = 0; s < ring; ++s) compute(s);
    double wait_ms = 0, copy_ms = 0;
    for (std::size_t s = 0; s < slabs; ++s) {
      const auto t_w = Clock::now();
      rdone[s].wait();
      const auto t_c = Clock::now();
      wait_ms += std::chrono::duration<double, std::milli>(t_c - t_w).count();
      const auto [row0, row1] = slab_rows(s);
      const std::size_t pts = (row1 - row0) * inner_points;
      if (!direct) parallel_copy(sink.place(row0 * inner_points, pts), dest[s], pts);
      copy_ms += ms_since(t_c);
      sink.done(row0 * inner_points, pts);
      if (s + ring < slabs) compute(s + ring);
    }
    if (trace)
      std::fprintf(stderr, "[grid] %zu slabs of %zu rows, read %s: %.1f ms in all, %.1f ms waiting for slabs, %.1f ms copying on\n",
                   slabs, rows_per_slab, direct ? "directly" : "via pinned memory", ms_since(t_k), wait_ms, copy_ms);
  });
}

void point_wise(const Context& ctx, const double* x, std::size_t n, const Geometry& g, const Mat& H, Kernel kernel,
                const Sink& sink) {
  const std::size_t d = g.d;
  std::size_t total = 1;
  for (auto c : g.count) total *= c;
  KdeOptions ko;
  ko.kernel = kernel;
  ko.bandwidth = Bandwidth::matrix(std::vector<double>(H.data(), H.data() + d * d));
  const std::size_t slab = std::size_t{1} << 22;  // grid points materialised at once
  std::vector<double> y;
  for (std::size_t p0 = 0; p0 < total; p0 += slab) {
    const std::size_t m = std::min(slab, total - p0);
    y.resize(m * d);
    for (std::size_t j = 0; j < m; ++j) {
      std::size_t lin = p0 + j;
      for (std::size_t k = d; k-- > 0;) {
        const std::size_t i = lin % g.count[k];
        lin /= g.count[k];
        y[j * d + k] = g.lower[k] + static_cast<double>(i) * g.step[k];
      }
    }
    const auto f = kde(ctx, x, n, d, y.data(), m, ko);
    std::copy(f.begin(), f.end(), sink.place(p0, m));
    sink.done(p0, m);
  }
}

}  // namespace

namespace {

void evaluate(const Queue& q, const double* x, std::size_t n, std::size_t d, const GridSpec& grid,
              const GridOptions& o, const Sink& sink) {
  const Context ctx = q.context();
  if (n == 0) bad("no samples (n = 0)");
  if (!x) bad("null sample pointer");
  if (d < 1 || d > 6) bad("d = " + std::to_string(d) + " is outside 1..6");
  if (grid.lower.size() != d || grid.upper.size() != d || grid.count.size() != d)
    bad("the grid has " + std::to_string(grid.lower.size()) + " lower, " + std::to_string(grid.upper.size()) +
        " upper and " + std::to_string(grid.count.size()) + " count values for d = " + std::to_string(d));
  Geometry g;
  g.d = d;
  g.count = grid.count;
  g.lower = grid.lower;
  for (std::size_t k = 0; k < d; ++k) {
    if (!std::isfinite(grid.lower[k]) || !std::isfinite(grid.upper[k]) || !(grid.lower[k] < grid.upper[k]))
      bad("dimension " + std::to_string(k) + ": lower (" + std::to_string(grid.lower[k]) + ") must be below upper (" +
          std::to_string(grid.upper[k]) + "), both finite");
    if (grid.count[k] == 0) bad("dimension " + std::to_string(k) + " has no grid points (count 0)");
    g.step.push_back(grid.count[k] > 1 ? (grid.upper[k] - grid.lower[k]) / static_cast<double>(grid.count[k] - 1)
                                       : grid.upper[k] - grid.lower[k]);
  }
  const int kern = static_cast<int>(o.kernel);
  const bool gaussian = o.kernel == Kernel::gaussian;
  if (!gaussian && o.kernel != Kernel::epanechnikov && o.kernel != Kernel::biweight &&
      o.kernel != Kernel::triweight && o.kernel != Kernel::uniform)
    bad("kernel " + std::to_string(kern) +
        " is not one of the grid's radial kernels (epanechnikov, biweight, triweight, uniform, gaussian)");
  if (gaussian && o.gaussian_cutoff != 0 && !(std::isfinite(o.gaussian_cutoff) && o.gaussian_cutoff > 0))
    bad("gaussian_cutoff must be finite and > 0 (or 0: none), got " + std::to_string(o.gaussian_cutoff));
  const bool unbounded = gaussian && o.gaussian_cutoff == 0;
  if (unbounded && o.method == GridMethod::sample_wise)
    bad("the Gaussian kernel has no bounded support: give gaussian_cutoff (in standard deviations) for the "
        "sample-wise method");
  const auto t_prep = std::chrono::steady_clock::now();
  kde_detail::require_finite(kOp, "sample", x, n, d);
  const auto bf = kde_detail::bandwidth_factor(kOp, o.bandwidth, x, n, d);
  if (std::getenv("CLSTAT_GRID_TRACE"))
    std::fprintf(stderr, "[grid] samples checked and bandwidth in %.1f ms\n",
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_prep).count());
  const auto D = static_cast<Eigen::Index>(d);
  const Mat H = Eigen::Map<const Mat>(bf.H.data(), D, D), L = Eigen::Map<const Mat>(bf.L.data(), D, D);
  double log_det_half = 0;
  for (std::size_t k = 0; k < d; ++k) log_det_half += std::log(L(k, k));
  const Mat A = L.triangularView<Eigen::Lower>().solve(Mat::Identity(L.rows(), L.cols()));
  const double radius = gaussian ? o.gaussian_cutoff : 1.0;
  const double scale =
      std::exp(-log_det_half - std::log(radial_kernel_integral(o.kernel, d)) - std::log(static_cast<double>(n)));
  // Reach of the support in grid steps; the work of each method (pairs), to choose.
  double cost_s = static_cast<double>(n), cost_p = static_cast<double>(n);
  for (std::size_t k = 0; k < d; ++k) {
    g.reach.push_back(unbounded ? INFINITY : radius * std::sqrt(H(k, k)) / g.step[k]);
    cost_s *= std::min(static_cast<double>(g.count[k]), 2 * g.reach[k] + 1);
    cost_p *= static_cast<double>(g.count[k]);
  }
  GridMethod method = o.method;
  if (method == GridMethod::automatic)
    method = unbounded || cost_p <= cost_s ? GridMethod::point_wise : GridMethod::sample_wise;
  if (method == GridMethod::point_wise) return point_wise(ctx, x, n, g, H, o.kernel, sink);
  const auto& info = ctx.info();
  if (!info.fp64) throw UnsupportedFeature(kOp, ctx.info().name, "the grid kernel needs fp64");
  std::size_t budget = o.memory_budget_bytes;
  if (budget == 0) budget = std::min<std::size_t>(info.global_mem_bytes / 8, info.max_alloc_bytes);
  sample_wise(ctx, q, x, n, g, A, scale, radius * radius, kern, budget, sink);
}

}  // namespace

double grid_normal_scale(Kernel kernel, std::size_t d, std::size_t n) {
  if (n == 0 || d == 0) bad("grid_normal_scale needs n >= 1 and d >= 1");
  const double dd = static_cast<double>(d), h = dd / 2;
  double log_r = 0, log_mu2 = 0;  // log R(K), log mu_2(K)
  if (kernel == Kernel::gaussian) {
    log_r = -h * std::log(4 * M_PI);
    log_mu2 = 0;
  } else {
    double m = 0;
    switch (kernel) {
      case Kernel::uniform: m = 0; break;
      case Kernel::epanechnikov: m = 1; break;
      case Kernel::biweight: m = 2; break;
      case Kernel::triweight: m = 3; break;
      default: bad("kernel " + std::to_string(static_cast<int>(kernel)) + " is not one of the grid's radial kernels");
    }
    // Over the unit ball, with V_d its volume: int (1 - |x|^2)^a = V_d G(h+1) G(a+1) / G(h+a+1) and
    // int |x|^2 (1 - |x|^2)^m = (d V_d / 2) G(h+1) G(m+1) / G(h+m+2) (Beta integrals).
    const double log_vd = h * std::log(M_PI) - std::lgamma(h + 1);
    auto log_ball = [&](double a) { return log_vd + std::lgamma(h + 1) + std::lgamma(a + 1) - std::lgamma(h + a + 1); };
    const double log_c = log_ball(m);
    log_r = log_ball(2 * m) - 2 * log_c;
    log_mu2 = std::log(dd / 2) + log_vd + std::lgamma(h + 1) + std::lgamma(m + 1) - std::lgamma(h + m + 2) -
              std::log(dd) - log_c;
  }
  const double log_h = ((dd + 2) * std::log(2.0) + h * std::log(M_PI) + log_r - std::log(dd + 2) -
                        std::log(static_cast<double>(n)) - 2 * log_mu2) /
                       (dd + 4);
  return std::exp(log_h);
}

std::vector<double> evaluate_grid(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                  const GridSpec& grid, const GridOptions& o) {
  std::vector<double> out;
  Sink sink;
  sink.place = [&](std::size_t first, std::size_t) {
    if (out.empty()) out.resize(grid.points());  // after validation: a bad grid throws first
    return out.data() + first;
  };
  sink.done = [](std::size_t, std::size_t) {};
  sink.direct = true;
  evaluate(ctx.queue(0), x, n, d, grid, o, sink);
  return out;
}

void evaluate_grid(const Context& ctx, const double* x, std::size_t n, std::size_t d, const GridSpec& grid,
                   double* out, const GridOptions& o) {
  if (!out) bad("null output pointer");
  Sink sink;
  sink.place = [&](std::size_t first, std::size_t) { return out + first; };
  sink.done = [](std::size_t, std::size_t) {};
  sink.direct = true;
  evaluate(ctx.queue(0), x, n, d, grid, o, sink);
}

Event evaluate_grid(const Queue& q, const double* x, std::size_t n, std::size_t d, const GridSpec& grid,
                    const Buffer<double>& out, const GridOptions& o, const std::vector<Event>& wait) {
  if (out.size() < grid.points())
    bad("the output buffer holds " + std::to_string(out.size()) + " doubles, the grid has " +
        std::to_string(grid.points()) + " points");
  std::vector<double> staging;  // the point-wise method's slabs, written on
  Event last;
  bool waited = false;
  Sink sink;
  sink.device = &out.raw().impl()->buffer;
  sink.wait = wait;
  sink.finished = &last;
  sink.place = [&](std::size_t, std::size_t count) {
    staging.resize(count);
    return staging.data();
  };
  sink.done = [&](std::size_t first, std::size_t count) {
    if (!waited)
      for (const auto& e : wait) e.wait();
    waited = true;
    out.write(q, staging.data(), count, first);  // blocking: `staging` is reused
  };
  evaluate(q, x, n, d, grid, o, sink);
  return last;
}

std::size_t evaluate_grid_to_file(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                  const GridSpec& grid, const std::string& path, const GridOptions& o,
                                  const std::function<void(std::size_t, std::size_t)>& progress) {
  std::FILE* f = nullptr;
  std::size_t written = 0;
  const std::size_t total = grid.points();
  auto close = [&] {
    if (f) std::fclose(f);
    f = nullptr;
  };
  // A path ending in .f32 gets float32 values (rounded to nearest), anything else doubles.
  const bool single = path.size() >= 4 && path.compare(path.size() - 4, 4, ".f32") == 0;
  std::vector<double> staging;
  std::vector<float> narrow;
  Sink sink;
  sink.place = [&](std::size_t, std::size_t count) {
    staging.resize(count);
    return staging.data();
  };
  sink.done = [&](std::size_t first, std::size_t count) {
    if (!f) {
      f = std::fopen(path.c_str(), "wb");
      if (!f) throw std::runtime_error(std::string(kOp) + ": cannot open " + path + " for writing");
    }
    if (first != written) throw std::logic_error(std::string(kOp) + ": slabs out of order");
    bool ok = true;
    if (single) {
      narrow.assign(staging.begin(), staging.begin() + static_cast<std::ptrdiff_t>(count));
      ok = std::fwrite(narrow.data(), sizeof(float), count, f) == count;
    } else {
      ok = std::fwrite(staging.data(), sizeof(double), count, f) == count;
    }
    if (!ok) throw std::runtime_error(std::string(kOp) + ": writing " + path + " failed (disk full?)");
    written += count;
    if (progress) progress(written, total);
  };
  try {
    evaluate(ctx.queue(0), x, n, d, grid, o, sink);
  } catch (...) {
    close();
    throw;
  }
  if (f && std::fclose(f) != 0) throw std::runtime_error(std::string(kOp) + ": closing " + path + " failed");
  return written;
}

}  // namespace clstat
