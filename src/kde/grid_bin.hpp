// Internal: the samples of a grid estimate sorted into the cells of a GridLayout on the device
// (cl/kde/grid_bin.cl), for the sample-wise kernel.
#pragma once

#include <cstddef>
#include <vector>

#include "kde/grid_layout.hpp"
#include "runtime/impl.hpp"

namespace clstat::kde_detail {

/// The first of the 9 scratch slots (ContextImpl::scratch, on q) the binning uses.

struct BinnedSamples {
  cl::Buffer xs;   ///< the kept samples in cell order (stable), n x d doubles allocated
  cl::Buffer off;  ///< cells + 1 uint: cell c holds xs rows off[c] .. off[c + 1]
};

/// Enqueues on q the binning of the n samples in `x` (a device buffer of n x d doubles) into the
/// cells of `g` (grid origin `lower` and `step` per dimension): a stable radix sort of the cells
/// (ceil(log2(cells + 1) / 4) passes of 4 bits), the cells' first positions by binary search, and
/// the gather. Samples out of reach of the grid are dropped. Needs n < 2^32 - 1 and cells < 2^32 - 1
/// (std::invalid_argument otherwise). O(n passes + cells log n) work, no host synchronisation. The
/// buffers are q's scratch (the caller holds q): valid until the next binning on q.
BinnedSamples bin_samples(detail::ContextImpl& ci, const Queue& q, const cl::Buffer& x, std::size_t n,
                          const GridLayout& g, const std::vector<double>& lower, const std::vector<double>& step,
                          const char* op);

}  // namespace clstat::kde_detail
