// Internal: kde() and kde_at_samples() on a bounded support (KdeOptions::boundary): reflection,
// renormalisation and the log transform, each as plain KDE calls on changed samples, weights or
// coordinates.
#pragma once

#include <cstddef>
#include <vector>

#include "clstat/kde.hpp"

namespace clstat::kde_detail {

/// The estimate with options.boundary.method != none at m points y (at_samples: at the samples,
/// y ignored). Validates the boundary (see KdeBoundary) and throws std::invalid_argument naming
/// `op` and the problem; otherwise as kde(). O(n c d) host work for c copies per sample
/// (reflection), O(n d) device CDF terms (renormalisation), O((n + m) d) logarithms (log_transform),
/// then one kde() call.
std::vector<double> bounded_kde(const Context& ctx, const double* x, std::size_t n, std::size_t d, const double* y,
                                std::size_t m, const KdeOptions& o, bool at_samples, const char* op);

}  // namespace clstat::kde_detail
