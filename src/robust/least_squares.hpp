// Internal: least squares in the data's units on chosen rows (corrected semi-normal equations,
// pivoted QR where they are not safe), and the residuals of a fit on every row.
#pragma once

#include <cstddef>
#include <vector>

namespace clstat::robust::detail {

/// Coefficients (intercept first) of least squares on `rows` of (x, y); empty when the rows do
/// not determine them (numerical rank below q, as R's lm.fit tolerance 1e-7 decides). O(k q^2).
std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows);

/// y_i - fit at every row i < n.
std::vector<double> residuals_of(const double* x, std::size_t n, std::size_t p, bool intercept, const double* y,
                                 const std::vector<double>& coef);

}  // namespace clstat::robust::detail
