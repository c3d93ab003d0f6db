// Internal: the plug-in's host steps (plugin.cpp), shared by the one-device and the device-group
// forms so that both start from the same pilots and end with the same formula.
#pragma once

#include <string>
#include <vector>

#include "clstat/bandwidth.hpp"

namespace clstat::bandwidth {

/// The dimension-major copy of the n x d row-major x the passes read (empty for d = 1: x itself
/// is the one column). O(n d).
std::vector<double> plugin_columns(const double* x, std::size_t n, std::size_t d);

/// The normal-reference pilots of every column of the dimension-major cols (n d values): stage 2
/// fills g1 and scale_h[2k] = 1 / (g1 sqrt 2), stage 1 g2 and scale_h[2k + 1]. Returns the error
/// message for a column with a zero scale estimate, else empty. (g1, g2: d values; scale_h: 2 d.)
std::string plugin_pilots(const char* op, const double* cols, std::size_t n, std::size_t d, const PluginOptions& o,
                          std::vector<double>& g1, std::vector<double>& g2, std::vector<double>& scale_h);

/// The bandwidths from the device's sums out_h (3 d values a column: S_6, the psi_4 pilot g_2,
/// S_4). Throws std::invalid_argument when a psi estimate has the wrong sign.
std::vector<double> plugin_h(const char* op, const std::vector<double>& out_h, const std::vector<double>& g1,
                             std::vector<double> g2, std::size_t n, std::size_t d, const PluginOptions& o);

}  // namespace clstat::bandwidth
