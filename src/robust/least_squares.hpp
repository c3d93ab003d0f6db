// Internal: least squares in the data's units on chosen rows, by column-pivoted Householder QR
// (as R's lm.fit), and the residuals of a fit on every row.
#pragma once

#include <cstddef>
#include <vector>

namespace clstat::robust::detail {

/// Coefficients (intercept first) of least squares on `rows` of (x, y); empty when the rows do
/// not determine them (numerical rank below q).
std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows);

/// y_i - fit at every row i < n.
std::vector<double> residuals_of(const double* x, std::size_t n, std::size_t p, bool intercept, const double* y,
                                 const std::vector<double>& coef);

/// The sum of the h smallest of v (v is reordered). O(n).
double sum_smallest(std::vector<double>& v, std::size_t h);

}  // namespace clstat::robust::detail
