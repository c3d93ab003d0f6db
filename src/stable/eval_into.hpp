// Internal: one stable function written into a destination the caller owns.
#pragma once

#include <cstddef>

#include "clstat/stable.hpp"

namespace clstat::detail {

/// fn's values (fn_pdf, fn_logpdf, fn_cdf or fn_sf alone) of law p at x[0 .. n) into
/// out[0 .. n): the public call of that function without its result vector, so that a device
/// group writes each member's share straight into its slice of one result (a copy of 1e8
/// values into a new vector took longer than the two GPUs' whole work). Raises as that call does.
void stable_eval_into(const Context& ctx, const char* op, stable::Fn fn, const double* x, std::size_t n,
                      const stable::Params& p, double* out);

}  // namespace clstat::detail
