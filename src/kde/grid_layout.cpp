#include "kde/grid_layout.hpp"
#include "kde/kde_plan.hpp"

#include <cmath>
#include <functional>
#include <limits>

namespace clstat::kde_detail {

namespace {

std::size_t cells_along(std::size_t count, double reach, std::size_t csize, std::size_t* creach) {
  // Reach in cells, plus one for the rounding of a sample's cell.
  const auto r = static_cast<std::size_t>(std::ceil(reach / static_cast<double>(csize))) + 1;
  if (creach) *creach = r;
  return (count - 1) / csize + 1 + 2 * r;
}

// Volume of the unit ball in m dimensions.
double ball(std::size_t m) {
  const double h = static_cast<double>(m) / 2;
  return std::exp(h * std::log(M_PI) - kde_detail::log_gamma(h + 1));
}

}  // namespace

std::size_t GridLayout::cells() const {
  std::size_t c = 1;
  for (auto e : cext) c *= e;
  return c;
}

GridLayout plan_grid_layout(const std::vector<std::size_t>& count, const std::vector<double>& reach, std::size_t ppi,
                            std::size_t max_cells) {
  GridLayout g;
  const std::size_t d = count.size();
  g.d = d;
  g.points_per_item = ppi;
  g.count = count;
  g.reach = reach;
  // Cells: one step wide, coarsened where they are finest relative to the support.
  g.csize.assign(d, 1);
  for (;;) {
    double total = 1;
    for (std::size_t k = 0; k < d; ++k) total *= static_cast<double>(cells_along(count[k], reach[k], g.csize[k], nullptr));
    if (total <= static_cast<double>(max_cells)) break;
    std::size_t pick = 0;
    double finest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < d; ++k) {
      if (g.csize[k] >= count[k] + static_cast<std::size_t>(reach[k])) continue;  // one cell spans it
      const double rel = static_cast<double>(g.csize[k]) / (reach[k] + 1);
      if (rel < finest) finest = rel, pick = k;
    }
    if (!std::isfinite(finest)) break;
    g.csize[pick] *= 2;
  }
  g.creach.assign(d, 0);
  g.cext.assign(d, 0);
  for (std::size_t k = 0; k < d; ++k) g.cext[k] = cells_along(count[k], reach[k], g.csize[k], &g.creach[k]);
  // Tile shape: every power-of-two split of the 256 work-items over the dimensions.
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::size_t> e(d, 0);  // log2 of the items per dimension
  auto consider = [&] {
    std::vector<double> len(d);
    double padded = 1;
    for (std::size_t k = 0; k < d; ++k) {
      len[k] = static_cast<double>((std::size_t{1} << e[k]) * (k + 1 == d ? ppi : 1));
      padded *= std::ceil(static_cast<double>(count[k]) / len[k]) * len[k];
    }
    // Volume of the support's ellipsoid (radii W_k) grown by the box of a tile and a cell
    // (Steiner's sum over the faces: the grown lengths over a set S of dimensions times the
    // ellipsoid's projection on the others).
    double vol = 0;
    for (std::size_t s = 0; s < (std::size_t{1} << d); ++s) {
      double term = 1;
      std::size_t rest = 0;
      for (std::size_t k = 0; k < d; ++k) {
        if (s >> k & 1) term *= len[k] + static_cast<double>(g.csize[k]);
        else term *= reach[k], ++rest;
      }
      vol += term * ball(rest);
    }
    if (padded * vol < best) {
      best = padded * vol;
      g.items.assign(d, 0);
      for (std::size_t k = 0; k < d; ++k) g.items[k] = std::size_t{1} << e[k];
    }
  };
  std::function<void(std::size_t, std::size_t)> split = [&](std::size_t k, std::size_t left) {
    if (k + 1 == d) {
      e[k] = left;
      consider();
      return;
    }
    for (std::size_t v = 0; v <= left; ++v) {
      e[k] = v;
      split(k + 1, left - v);
    }
  };
  split(0, 8);
  g.tile.assign(d, 0);
  g.ntile.assign(d, 0);
  for (std::size_t k = 0; k < d; ++k) {
    g.tile[k] = g.items[k] * (k + 1 == d ? ppi : 1);
    g.ntile[k] = (count[k] + g.tile[k] - 1) / g.tile[k];
  }
  return g;
}

}  // namespace clstat::kde_detail
