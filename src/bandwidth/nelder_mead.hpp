// Internal: the Nelder-Mead simplex minimiser (Nelder & Mead 1965, with the standard coefficients
// reflection 1, expansion 2, contraction 1/2, shrink 1/2 as in Lagarias et al. 1998), on Eigen.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <functional>

namespace clstat::bandwidth_detail {

struct NelderMeadResult {
  Eigen::VectorXd x;
  double f = 0;
  std::size_t evaluations = 0;
  bool converged = false;  // the simplex's f spread met rel_tol before max_evaluations
};

/// Minimises f from x0. The initial simplex adds steps(i) to coordinate i, one vertex each. Stops when
/// max f - min f over the simplex <= rel_tol * |min f| + 1e-300, or after max_evaluations.
NelderMeadResult nelder_mead(const std::function<double(const Eigen::VectorXd&)>& f, const Eigen::VectorXd& x0,
                             const Eigen::VectorXd& steps, double rel_tol, std::size_t max_evaluations);

}  // namespace clstat::bandwidth_detail
