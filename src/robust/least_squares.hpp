// Internal: least squares in the data's units on chosen rows (corrected semi-normal equations,
// pivoted QR where they are not safe), and the residuals of a fit on every row.
#pragma once

#include <cstddef>
#include <vector>

#include "robust/across.hpp"

namespace clstat::robust::detail {

/// Coefficients (intercept first) of least squares on `rows` of (x, y); empty when the rows do
/// not determine them (numerical rank below q, as R's lm.fit tolerance 1e-7 decides). O(k q^2).
std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows);
/// The same over rows spread across processes (robust/across.hpp): each process passes its own
/// rows of x and y and its chosen rows among them; the fit is that of every process's chosen rows,
/// the same on every process (the sums added in rank order; the pivoted QR, where it is needed,
/// on the chosen rows gathered in rank order). Collective.
std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows, const Across& ac);

/// y_i - fit at every row i < n.
std::vector<double> residuals_of(const double* x, std::size_t n, std::size_t p, bool intercept, const double* y,
                                 const std::vector<double>& coef);

}  // namespace clstat::robust::detail
