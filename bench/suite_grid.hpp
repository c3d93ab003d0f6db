// The grid suite of clstat-bench (issue 6: the shapes of Lopez-Novoa et al. 2015, synthetic data
// of the same sizes).
//  2-d: 3.47M samples on 560 x 540 and 5.89M on 3800 x 3400 (a mixture of three correlated
//  normals); 3-d: 0.5M on 110 x 220 x 322 and 1M on 220 x 1100 x 805 (a correlated normal). CPU
//  devices run the smaller of each at a tenth of the samples.
//  Estimator: spherical Epanechnikov with H = h^2 S, h the normal-scale bandwidth
//  (grid_normal_scale); the grid spans the samples' range.
//  S-KDE: evaluate_grid(sample_wise), wall time with host arrays in and the whole grid back on the
//  host (binning, upload, kernels, transfer). EP-KDE: the point-wise method timed on the first
//  rows of the same grid (about 2^16 points on GPUs, 2^12 on CPUs) and projected to the whole grid
//  by its measured rate: the row says so, and its time is the projection.
//  Check: 24 random grid points against a long-double direct evaluation, within 1e-12 relative
//  plus the conditioning of q's rounding (tests/reference/kde_grid_reference.hpp).
#pragma once

#include <vector>

#include "report.hpp"

namespace bench {

struct GridBenchOptions {
  int repeats = 3;
  bool large = true;        ///< the paper's shapes, else a tenth of their samples on smaller grids
  std::size_t ep_points = 1 << 16;  ///< grid points EP-KDE is timed on (then projected)
};

std::vector<Row> run_grid(const clstat::Context& ctx, const GridBenchOptions& o);

}  // namespace bench
