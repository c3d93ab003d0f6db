// clstat/kde_grid.hpp: kernel density estimates on a regular grid, by sample-wise KDE with bounded
// kernels (S-KDE, Lopez-Novoa et al. 2015) or point by point (EP-KDE).
//
//   f(y) = 1/(n |H|^{1/2} C_d) sum_j k((y - x_j)' H^{-1} (y - x_j))
//
// with the radial kernels k(q) = (1 - q) (spherical Epanechnikov), (1 - q)^2 (biweight), (1 - q)^3
// (triweight), 1 (uniform ball), all for q <= 1 and 0 beyond, and the Gaussian exp(-q / 2) cut
// off at q <= c^2 (c = gaussian_cutoff, in standard deviations of the kernel). C_d is the
// integral of k over R^d (radial_kernel_integral in kde.hpp; for the Gaussian (2 pi)^{d/2}, the
// untruncated constant), so the cut-off Gaussian estimate is never renormalised: it is short by
// the kernel mass beyond c, P(chi^2_d > c^2) (for c = 5, d = 3: 7.7e-6 relative).
//
// Grid. Dimension k has count_k >= 1 points, lower_k + i (upper_k - lower_k) / (count_k - 1) for
// i = 0..count_k - 1, both ends included (lower_k < upper_k always; a dimension with count 1 is
// the single point lower_k).
// Values are stored row-major with the first dimension slowest: point (i_0, .., i_{d-1}) at
// ((i_0 count_1 + i_1) count_2 + ..) + i_{d-1}.
//
// Bandwidth (Bandwidth in kde.hpp): scalar(h) is H = h^2 I; per_dimension(h) is H = diag(h_k^2);
// matrix(H); scaled_covariance(h) is H = h^2 S with S the sample covariance: the whitening of
// Fukunaga (Lopez-Novoa eq. 5). Every form uses the radial kernel above (kde() uses product
// kernels for the scalar and per-dimension forms of bounded kernels: a different estimator).
//
// Methods.
//   sample_wise (S-KDE)  the samples are sorted on the device into cells of whole grid steps (a
//        stable radix sort, so a point's terms are added in the samples' order); one work-group
//        owns a tile of 512 grid points, 1024 in d >= 3 on large grids (its shape chosen for the
//        support's extent), and adds the
//        samples of the cells that can reach it: those within the support's bounding box, of
//        half-widths c sqrt(H_kk) (c = 1 for bounded kernels; Lopez-Novoa sec. 3.2), and in each
//        row of cells only the run whose part of the support's ellipsoid can reach the tile (the
//        chop of sec. 3.3, by interval arithmetic). No atomics, deterministic, the same values
//        whatever the slabs. Work: about n x (the ellipsoid grown by a tile) grid points, plus
//        O(n + cells) for the sort. Grids larger than the memory budget are computed in slabs of
//        first-dimension indices. Needs n < 2^32 - 1.
//   point_wise (EP-KDE)  every grid point sums over every sample (clstat::kde with matrix(H)),
//        in slabs of points: O(n x grid points); the baseline, and the only method for the
//        Gaussian without a cut-off.
//   automatic  sample_wise when the kernel has bounded support (or a cut-off), else point_wise.
//
// Errors (std::invalid_argument naming the problem): no samples, d outside 1..6, a sample that is
// NaN or infinite, lower/upper/count sizes that differ from d, lower_k >= upper_k, count_k == 0,
// a kernel that is not radial-bounded (triangular and cosine are not provided here), the Gaussian
// with sample_wise and no cut-off, a cut-off that is not finite and > 0, a bad bandwidth (as kde).
// A device without fp64 raises UnsupportedFeature.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "clstat/export.hpp"
#include "clstat/kde.hpp"
#include "clstat/runtime.hpp"

namespace clstat {

struct GridSpec {
  std::vector<double> lower, upper;  ///< d values each, lower_k < upper_k
  std::vector<std::size_t> count;    ///< d values, points per dimension (>= 1)
  std::size_t points() const {
    std::size_t p = count.empty() ? 0 : 1;
    for (auto c : count) p *= c;
    return p;
  }
};

enum class GridMethod : int { automatic = 0, sample_wise, point_wise };

struct GridOptions {
  Kernel kernel = Kernel::epanechnikov;
  Bandwidth bandwidth = Bandwidth::scaled_covariance(1.0);
  double gaussian_cutoff = 0;  ///< Gaussian only: support radius in kernel standard deviations
  GridMethod method = GridMethod::automatic;
  /// Device memory for one slab of grid values, in bytes; 0 = an eighth of the device's global
  /// memory (capped by its largest allocation). Grids are computed in slabs of first-dimension
  /// indices, at most this size each and about a twelfth of a grid over 192 MB, so that computing
  /// one slab overlaps reading the last; two slabs are in flight, on the device and in pinned host
  /// memory. The device-buffer form ignores it.
  std::size_t memory_budget_bytes = 0;
};

/// The normal-scale (normal reference) bandwidth of the grid estimator: the h of H = h^2 S that
/// minimises the asymptotic MISE when the data are normal with covariance S (Wand & Jones 1995,
/// sec. 4.3 with the radial kernel's R(K) and mu_2(K)):
///   h^{d+4} = 2^{d+2} pi^{d/2} R(K) / ((d + 2) n mu_2(K)^2),
/// for the Gaussian (4 / ((d + 2) n))^{1/(d+4)}; for the spherical Epanechnikov mu_2 = 1/(d+4).
/// Use as Bandwidth::scaled_covariance(h). O(1). Throws std::invalid_argument for n == 0, d == 0
/// or a kernel the grid does not provide.
CLSTAT_EXPORT double grid_normal_scale(Kernel kernel, std::size_t d, std::size_t n);

/// The density at every point of `grid` from n samples x (n x d row-major, d = grid dimension,
/// 1..6), in double, as a dense row-major array of grid.points() values. Blocks until done.
/// Complexity: sample_wise about n x (the support's ellipsoid grown by a tile, in grid points)
/// kernel terms plus O(n + grid points) memory traffic; point_wise n x grid points (see Methods).
/// The first sample-wise call on a context also pins two slabs of host memory, kept for later
/// calls. Errors: as listed at the top of this file.
CLSTAT_EXPORT std::vector<double> evaluate_grid(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                                const GridSpec& grid, const GridOptions& options = {});

/// As evaluate_grid, into caller memory: `out` holds grid.points() doubles (reused across calls,
/// it saves the allocation and first touch of a fresh vector: 1.56 GB for the 220 x 1100 x 805
/// grid). Slabs are read straight into it.
CLSTAT_EXPORT void evaluate_grid(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                 const GridSpec& grid, double* out, const GridOptions& options = {});

/// As evaluate_grid, into the device buffer `out` from element `out_offset` (grid.points()
/// doubles there, on q's context), in one pass whatever memory_budget_bytes says (at a nonzero
/// offset the sample-wise grid is computed in q's scratch and copied there on the device). The sample-wise work is enqueued on q after
/// `wait` and the call returns without waiting for it (x is copied before it returns), with the
/// event of the kernel that writes `out`: later work on q sees the grid. The point-wise method
/// waits for `wait`, writes `out` and returns a default (complete) event. Throws
/// std::invalid_argument, as evaluate_grid, and when `out` is too small.
CLSTAT_EXPORT Event evaluate_grid(const Queue& q, const double* x, std::size_t n, std::size_t d, const GridSpec& grid,
                                  const Buffer<double>& out, std::size_t out_offset, const GridOptions& options = {},
                                  const std::vector<Event>& wait = {});

/// As evaluate_grid, writing the values to `path` as raw little-endian doubles in the same order
/// (a `.f64` file), or as floats rounded to nearest when `path` ends in `.f32`, slab by slab, so
/// host memory stays bounded by a few slabs (memory_budget_bytes) whatever the grid's size.
/// `progress` is called after each slab (done and total in grid values). Returns the number of
/// values written.
/// Throws std::runtime_error when the file cannot be written.
CLSTAT_EXPORT std::size_t evaluate_grid_to_file(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                                const GridSpec& grid, const std::string& path,
                                                const GridOptions& options = {},
                                                const Progress& progress = {});

}  // namespace clstat
