// Internal: the checked, standardised design of a robust regression. The fits search in
// standardised units (each explanatory column centred and scaled, y too), where the normal
// equations of the C-steps are well conditioned; LTS and LMS are regression, scale and affine
// equivariant, so the h-subsets and p-subsets found there are those of the data. Final fits are
// recomputed in the data's units.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <string>
#include <vector>

#include "robust/across.hpp"
#include "runtime/host_result.hpp"

namespace clstat::robust::detail {

struct Design {
  std::size_t n = 0, p = 0, q = 0;  // rows, explanatory columns, coefficients (p + intercept)
  bool intercept = true;
  ::clstat::detail::HostArray<double> z;   // n x q row-major, standardised, the intercept's ones first
  ::clstat::detail::HostArray<double> ys;  // n, standardised
};

/// Checks x (n x p row-major) and y as robust.hpp documents (throws std::invalid_argument with
/// `op` and the problem) and builds the standardised design: with an intercept, columns are
/// centred on their mean and divided by their standard deviation; without, only divided by their
/// root mean square (centring would change the model). min_rows_factor: n must exceed
/// min_rows_factor * q.
Design make_design(const std::string& op, const double* x, std::size_t n, std::size_t p, const double* y,
                   bool intercept, std::size_t min_rows_factor);
/// The same over rows spread across processes: x and y hold this process's ac.n_local() rows; the
/// centres and scales are those of all ac.n() rows (each process's moments merged in rank order),
/// the checks are made on all rows (a bad value named by its global row), and the design holds
/// this process's rows (d.n = ac.n_local()). Collective.
Design make_design(const std::string& op, const double* x, std::size_t p, const double* y, bool intercept,
                   std::size_t min_rows_factor, const Across& ac);

/// sum_i w_i z_i z_i' over the n rows of z (n x q row-major; w = nullptr for all ones), by blocks
/// of 65536 rows on the host's threads, the blocks' sums added in block order: the same bits for
/// any number of threads. O(n q^2).
Eigen::MatrixXd cross_products(const double* z, std::size_t n, std::size_t q, const double* w = nullptr);

/// Row i of the data in its own units, the intercept's 1 first: [1, x_i1..x_ip] or [x_i1..x_ip].
void data_row(const double* x, std::size_t p, bool intercept, std::size_t i, double* out);

}  // namespace clstat::robust::detail
