// Argument parsing shared by clstat kde and clstat grid.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "clstat/kde.hpp"

namespace clstat_cli {

/// Comma-separated numbers; throws std::invalid_argument naming `what` on a field that is not one.

/// A kernel by name: gaussian, epanechnikov, biweight, triweight, triangular, uniform, cosine.
clstat::Kernel kernel_of(const std::string& k);

/// --bandwidth: h, h1,h2,..., H:<d*d row-major or vech values>, S:h (see clstat kde --help).
clstat::Bandwidth bandwidth_of(const std::string& b, std::size_t d);

/// The shortest decimal that reads back as the same double.
std::string g17(double v);

}  // namespace clstat_cli
