// Internal: the sample-wise method of clstat::evaluate_grid (S-KDE): the samples binned on the
// device, the grid kernel over tiles, and the slabs' transfers to where the values go.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "clstat/runtime.hpp"
#include "runtime/impl.hpp"

namespace clstat::kde_detail {

struct GridGeometry {
  std::size_t d = 0;
  std::vector<std::size_t> count;
  std::vector<double> lower, step;
  std::vector<double> reach;  // the support's bounding-box half-width in grid steps
};

// Where the grid's values go, slab by slab, in order: place(first, count) gives the memory for
// points [first, first + count) (the result itself, so slabs are read straight into it, or a
// staging buffer), done(first, count) is called once they are there. With `device` set, the
// kernel writes the whole grid there in one slab and nothing is read back.
struct GridSink {
  std::function<double*(std::size_t, std::size_t)> place;
  std::function<void(std::size_t, std::size_t)> done;
  const cl::Buffer* device = nullptr;
  std::vector<Event> wait;  // with `device`: what must finish before the grid is written
  Event* finished = nullptr;  // with `device`: set to the event of the last write
  // Only the first-dimension indices [row_begin, row_end) (a device group member's share; host
  // sinks only): the values there are the whole grid's, bit for bit.
  std::size_t row_begin = 0, row_end = static_cast<std::size_t>(-1);
};

/// The grid of `g` from the n samples x (n x d, row-major) with u = A (y - x) (A: d x d row-major,
/// lower triangular), q = |u|^2, the kernel KERN id `kern` over q <= r2 and the factor `scale`,
/// enqueued on q, slabs of at most `budget` bytes, values to `sink`. Throws as the API.
void grid_sample_wise(const Context& ctx, const Queue& q, const double* x, std::size_t n, const GridGeometry& g,
                      const std::vector<double>& A, double scale, double r2, int kern, std::size_t budget,
                      const GridSink& sink, const char* op);

}  // namespace clstat::kde_detail
