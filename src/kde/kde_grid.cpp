// Density on a regular grid (issue 6): the API, its checks, the bandwidth and the choice of method;
// the sample-wise method (S-KDE) is in grid_sample_wise.cpp, the point-wise baseline (EP-KDE) here,
// through clstat::kde; and the sinks: a vector, caller memory, a device buffer, a file.
#include "clstat/kde_grid.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <cmath>
#include <limits>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "clstat/group.hpp"
#include "runtime/host_memory.hpp"
#include "runtime/group_split.hpp"
#include "runtime/lease.hpp"
#include "kde/grid_sample_wise.hpp"
#include "kde/kde_plan.hpp"

namespace clstat {

namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
constexpr const char* kOp = "clstat::evaluate_grid";

// The device-buffer form's grid when the caller's output starts at an offset.
enum class GridOutScratch { values };

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(std::string(kOp) + ": " + what); }

void point_wise(const Context& ctx, const double* x, std::size_t n, const kde_detail::GridGeometry& g, const Mat& H, Kernel kernel,
                const kde_detail::GridSink& sink) {
  const std::size_t d = g.d;
  std::size_t total = 1;
  for (auto c : g.count) total *= c;
  KdeOptions ko;
  ko.kernel = kernel;
  ko.bandwidth = Bandwidth::matrix(std::vector<double>(H.data(), H.data() + d * d));
  const std::size_t slab = std::size_t{1} << 22;  // grid points materialised at once
  // The points of the first-dimension indices asked for (all but for a group member's share).
  const std::size_t inner = total / g.count[0];
  const std::size_t first = std::min(sink.row_begin, g.count[0]) * inner, end = std::min(sink.row_end, g.count[0]) * inner;
  std::vector<double> y;
  for (std::size_t p0 = first; p0 < end; p0 += slab) {
    const std::size_t m = std::min(slab, end - p0);
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
              const GridOptions& o, const kde_detail::GridSink& sink) {
  const Context ctx = q.context();
  if (n == 0) bad("no samples (n = 0)");
  if (!x) bad("null sample pointer");
  if (d < 1 || d > 6) bad("d = " + std::to_string(d) + " is outside 1..6");
  if (grid.lower.size() != d || grid.upper.size() != d || grid.count.size() != d)
    bad("the grid has " + std::to_string(grid.lower.size()) + " lower, " + std::to_string(grid.upper.size()) +
        " upper and " + std::to_string(grid.count.size()) + " count values for d = " + std::to_string(d));
  kde_detail::GridGeometry g;
  g.d = d;
  g.count = grid.count;
  g.lower = grid.lower;
  std::size_t points_so_far = 1;
  for (std::size_t k = 0; k < d; ++k) {
    if (!std::isfinite(grid.lower[k]) || !std::isfinite(grid.upper[k]) || !(grid.lower[k] < grid.upper[k]))
      bad("dimension " + std::to_string(k) + ": lower (" + std::to_string(grid.lower[k]) + ") must be below upper (" +
          std::to_string(grid.upper[k]) + "), both finite");
    if (grid.count[k] == 0) bad("dimension " + std::to_string(k) + " has no grid points (count 0)");
    if (grid.count[k] > (std::size_t{1} << 62) / std::max<std::size_t>(1, points_so_far))
      bad("the grid's point count overflows (dimension " + std::to_string(k) + " has " +
          std::to_string(grid.count[k]) + " points)");
    points_so_far *= grid.count[k];
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
  kde_detail::require_finite(kOp, "sample", x, n, d);
  const auto bf = kde_detail::bandwidth_factor(kOp, o.bandwidth, x, n, d);
  const auto D = static_cast<Eigen::Index>(d);
  const Mat H = Eigen::Map<const Mat>(bf.H.data(), D, D), L = Eigen::Map<const Mat>(bf.L.data(), D, D);
  double log_det_half = 0;
  for (std::size_t k = 0; k < d; ++k) log_det_half += std::log(L(k, k));
  const Mat A = L.triangularView<Eigen::Lower>().solve(Mat::Identity(L.rows(), L.cols()));
  const double radius = gaussian ? o.gaussian_cutoff : 1.0;
  const double scale =
      std::exp(-log_det_half - std::log(radial_kernel_integral(o.kernel, d)) - std::log(static_cast<double>(n)));
  // A bandwidth so small that 1 / (n |H|^(1/2) c_d) overflows cannot give finite densities on a
  // grid (they are 0 between samples and past the largest double at them): refuse it by name.
  if (!std::isfinite(scale) || !(scale > 0))
    bad("the bandwidth is too small (or too large) for double precision: the kernel's normalising constant "
        "1 / (n |H|^(1/2) c_d) is " + std::string(std::isfinite(scale) ? "0" : "infinite") +
        "; rescale the data and the grid");
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
  std::vector<double> a(d * d, 0.0);
  for (std::size_t k = 0; k < d; ++k)
    for (std::size_t b = 0; b <= k; ++b) a[k * d + b] = A(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(b));
  kde_detail::grid_sample_wise(ctx, q, x, n, g, a, scale, radius * radius, kern, budget, sink, kOp);
}

}  // namespace

double grid_normal_scale(Kernel kernel, std::size_t d, std::size_t n) {
  if (n == 0 || d == 0) bad("grid_normal_scale needs n >= 1 and d >= 1");
  return kde_detail::normal_scale_factor(kOp, kernel, d) *
         std::pow(static_cast<double>(n), -1 / (static_cast<double>(d) + 4));
}

std::vector<double> evaluate_grid(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                  const GridSpec& grid, const GridOptions& o) {
  // The whole grid comes back in host memory: refuse one larger than the host before computing.
  std::uint64_t points = grid.count.empty() ? 0 : 1;
  for (auto c : grid.count) points = c != 0 && points > (std::uint64_t{1} << 60) / c ? 0 : points * c;
  if (points) detail::require_host_bytes(kOp, "a grid of " + std::to_string(points) + " points", points * sizeof(double));
  std::vector<double> out;
  kde_detail::GridSink sink;
  sink.place = [&](std::size_t first, std::size_t) {
    if (out.empty()) out.resize(grid.points());  // after validation: a bad grid throws first
    return out.data() + first;
  };
  sink.done = [](std::size_t, std::size_t) {};
  detail::Lease lease = detail::Lease::any(ctx);
  evaluate(lease.queue(), x, n, d, grid, o, sink);
  return out;
}

std::vector<double> evaluate_grid(const DeviceGroup& group, const double* x, std::size_t n, std::size_t d,
                                  const GridSpec& grid, const GridOptions& o) {
  // A grid whose shape is bad: the first member's call raises as it would.
  std::uint64_t points = grid.count.size() == d && d > 0 ? 1 : 0;
  for (auto c : grid.count) points = c != 0 && points > (std::uint64_t{1} << 60) / c ? 0 : points * c;
  const std::vector<std::size_t> share = points ? group.split(grid.count[0]) : std::vector<std::size_t>{};
  if (std::count_if(share.begin(), share.end(), [](std::size_t r) { return r > 0; }) <= 1) {
    std::size_t i = 0;
    while (i < share.size() && share[i] == 0) ++i;
    return evaluate_grid(group.member(i < share.size() ? i : 0), x, n, d, grid, o);
  }
  detail::require_host_bytes(kOp, "a grid of " + std::to_string(points) + " points", points * sizeof(double));
  // Each member its contiguous first-dimension indices (rows of `inner` points), straight into
  // its part of the result.
  const std::size_t inner = points / grid.count[0];
  return detail::split_into<double>(group, grid.count[0], inner,
                                    [&](const Context& c, std::size_t row, std::size_t rows, double* dst) {
                                      kde_detail::GridSink sink;
                                      sink.place = [&](std::size_t first, std::size_t) { return dst + (first - row * inner); };
                                      sink.done = [](std::size_t, std::size_t) {};
                                      sink.row_begin = row;
                                      sink.row_end = row + rows;
                                      detail::Lease lease = detail::Lease::any(c);
                                      evaluate(lease.queue(), x, n, d, grid, o, sink);
                                    });
}

void evaluate_grid(const Context& ctx, const double* x, std::size_t n, std::size_t d, const GridSpec& grid,
                   double* out, const GridOptions& o) {
  if (!out) bad("null output pointer");
  kde_detail::GridSink sink;
  sink.place = [&](std::size_t first, std::size_t) { return out + first; };
  sink.done = [](std::size_t, std::size_t) {};
  detail::Lease lease = detail::Lease::any(ctx);
  evaluate(lease.queue(), x, n, d, grid, o, sink);
}

Event evaluate_grid(const Queue& q, const double* x, std::size_t n, std::size_t d, const GridSpec& grid,
                    const Buffer<double>& out, std::size_t out_offset, const GridOptions& o,
                    const std::vector<Event>& wait) {
  if (out_offset > out.size() || out.size() - out_offset < grid.points())
    bad("the output buffer holds " + std::to_string(out.size()) + " doubles, the grid has " +
        std::to_string(grid.points()) + " points from element " + std::to_string(out_offset));
  detail::Lease lease = detail::Lease::named(q);
  std::vector<double> staging;  // the point-wise method's slabs, written on
  Event last;
  bool waited = false;
  kde_detail::GridSink sink;
  // The sample-wise kernel writes from element 0: at an offset it writes scratch, copied after.
  const cl::Buffer target = out_offset ? detail::scratch(q, GridOutScratch::values, grid.points() * sizeof(double))
                                       : out.raw().impl()->buffer;
  sink.device = &target;
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
    out.write(q, staging.data(), count, out_offset + first);  // blocking: `staging` is reused
  };
  evaluate(q, x, n, d, grid, o, sink);
  if (!out_offset || !last.impl()) return last;  // point-wise: written already
  return detail::copy_out(q, target, out.raw().impl()->buffer, out_offset * sizeof(double),
                          grid.points() * sizeof(double), last);
}

std::size_t evaluate_grid_to_file(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                  const GridSpec& grid, const std::string& path, const GridOptions& o,
                                  const Progress& progress) {
  std::FILE* f = nullptr;
  std::size_t written = 0;
  // A path ending in .f32 gets float32 values (rounded to nearest), anything else doubles.
  const bool single = path.size() >= 4 && path.compare(path.size() - 4, 4, ".f32") == 0;
  // The size and the free space first: a grid of 1e10 points is 80 GB of doubles.
  const std::size_t total = grid.points();
  const std::size_t width = single ? sizeof(float) : sizeof(double);
  if (total > std::numeric_limits<std::size_t>::max() / width) bad("the grid's byte count overflows");
  {
    std::error_code ec;
    const auto dir = std::filesystem::absolute(path, ec).parent_path();
    const auto space = std::filesystem::space(dir.empty() ? std::filesystem::path(".") : dir, ec);
    if (!ec && space.available < total * width)
      throw std::runtime_error(std::string(kOp) + ": " + path + " needs " + std::to_string(total * width) +
                               " bytes and its file system has " + std::to_string(space.available) + " free");
  }
  // On failure nothing is left behind: a partial file is removed.
  auto close = [&] {
    if (f) {
      std::fclose(f);
      std::remove(path.c_str());
    }
    f = nullptr;
  };
  std::vector<double> staging;
  std::vector<float> narrow;
  kde_detail::GridSink sink;
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
    if (progress) progress({static_cast<double>(written), static_cast<double>(total), {}});
  };
  try {
    detail::Lease lease = detail::Lease::any(ctx);
    evaluate(lease.queue(), x, n, d, grid, o, sink);
  } catch (...) {
    close();
    throw;
  }
  if (f && std::fclose(f) != 0) {
    std::remove(path.c_str());
    throw std::runtime_error(std::string(kOp) + ": closing " + path + " failed");
  }
  return written;
}

}  // namespace clstat
