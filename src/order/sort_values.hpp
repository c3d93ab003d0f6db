// Internal: sorts doubles in place on the device (Boost.Compute's radix sort), for callers that
// need every order statistic at once (LMS's shortest window), where selection does not pay.
#pragma once

#include <cstddef>

#include "clstat/runtime.hpp"

namespace clstat::order::detail {

/// Sorts x[offset, offset + n) ascending. NaN-free input. Blocks until done.
void sort_values(const Queue& q, const Buffer<double>& x, std::size_t offset, std::size_t n);

}  // namespace clstat::order::detail
