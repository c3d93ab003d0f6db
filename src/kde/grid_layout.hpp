// The layout of a sample-wise grid estimate (cl/kde/kde_grid.cl): the work-items' shape of a tile
// and the cells the samples are binned into, chosen for the support's extent in grid steps.
#pragma once

#include <cstddef>
#include <vector>

namespace clstat::kde_detail {

struct GridLayout {
  std::size_t d = 0, points_per_item = 2;
  std::vector<std::size_t> count;   ///< grid points per dimension
  std::vector<std::size_t> items;   ///< work-items of a tile per dimension (product 256)
  std::vector<std::size_t> tile;    ///< grid points of a tile per dimension (items, times PPI last)
  std::vector<std::size_t> ntile;   ///< tiles per dimension
  std::vector<std::size_t> csize;   ///< cell width in grid steps
  std::vector<std::size_t> creach;  ///< cells added below the grid (and above) for samples in reach
  std::vector<std::size_t> cext;    ///< cells per dimension, padding included
  std::vector<double> reach;        ///< the support's bounding-box half-width W_k, in grid steps
  std::size_t cells() const;
};

constexpr std::size_t kGridItems = 256;

/// Picks cells and the tile shape for supports of half-widths `reach` (grid steps) on a grid of
/// `count` points: cells start one grid step wide and are doubled along the dimension where they
/// are finest relative to the support until at most `max_cells` remain; the tile shape (powers of
/// two, 256 work-items, `ppi` points each along the last dimension) minimises the estimated pairs
/// (tile points times the volume of the support's box grown by a tile and a cell, plus the tiles'
/// padding beyond the grid). O(d 2^d x the shapes tried).
GridLayout plan_grid_layout(const std::vector<std::size_t>& count, const std::vector<double>& reach, std::size_t ppi,
                            std::size_t max_cells);

}  // namespace clstat::kde_detail
