// Internal: one alpha-stable law's interpolant, built from the quadrature at the pieces' nodes and
// checked against it between them (layout and evaluation: cl/stable/stable_interp.clh).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace clstat::stable::interp {

// The kernel's constants (stable_interp.clh).
constexpr int k_head = 8, k_deg = 16, k_piece = 40;

/// Quadrature values at unit-law points z (the kernel's coordinate), with their error estimates.
struct NodeValues {
  std::vector<double> pdf, cdf, sf, pdf_error, cdf_error, sf_error;
};
using Quadrature = std::function<NodeValues(const std::vector<double>& z)>;

struct Table {
  std::vector<double> data;   ///< the device layout
  std::size_t points = 0;     ///< quadrature evaluations the build took
  std::size_t rounds = 0;     ///< device passes
};

/// The variable s = asinh((z - c) / w) of the pieces. alpha < 1 (z the S1 coordinate): c = 0,
/// the point zeta, where the support ends for |beta| = 1 and where the quadrature's integrand
/// degenerates (log xi -> -inf), and w = 2^-10, so pieces of width 2^-7 in s reach down to 1e-5
/// of zeta and the light tail's exp(-xi^(-alpha/(1-alpha))) becomes smooth in s = log(2 xi / w).
/// alpha > 1 in the S1 coordinate: c = beta tan(pi alpha / 2), the S0 origin (near the mode),
/// w = 1. alpha = 1 and near 1 (z the S0 coordinate): c = 0, w = 1.
struct Mapping {
  double c, w;
};
Mapping mapping(double alpha, double beta, bool s1_coordinate);

/// Builds the interpolant of the unit law (alpha, beta): cells of width 1 in s out to where the
/// kernel's tail series takes over (at most |s| = 100), each cut into 2^depth pieces, depth
/// raised (to 7 at most) until every piece matches the quadrature at the 16 points between its
/// 17 Chebyshev-Lobatto nodes to `rel` / 2 in log f and rel / 10 in log of the smaller tail
/// (plus the rounding of the sums). Pieces that never match, or where a value is below 1e-290 or
/// zero, are left to the quadrature, and so are those still open once the evaluations would pass
/// `budget` (the first level is always made; the budget counts the nodes of the pieces each level
/// settles). One call of `q` per refinement level, or with `speculate` per two levels after the
/// first (each piece's halves evaluated with it): the same table in about half the passes, for
/// devices where a pass costs its latency.
Table build(double alpha, double beta, bool s1_coordinate, double rel, std::size_t budget, bool speculate,
            const Quadrature& q);

}  // namespace clstat::stable::interp
