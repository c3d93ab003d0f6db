// The KDE suite of clstat-bench: 1-d Gaussian KDE from 2^14 to 2^22 points, d in {2, 6, 14, 30, 62}
// and the d = 16 full-matrix Gaussian, fp32 and fp64, each kernel variant, with the PyTorch peer
// (bench/peers/kde_torch.py) timed on the same device; and `--tune kde`.
#pragma once

#include <string>

#include "report.hpp"

namespace bench {

struct KdeBenchOptions {
  int repeats = 10;
  int max_log2 = 22;          // largest 1-d n = m
  std::string peers_dir;      // where kde_torch.py lives; empty: no peer
  bool peers = true;
};

std::vector<Row> run_kde(const clstat::Context& ctx, const clstat::Ceilings& c, const KdeBenchOptions& o);

/// Searches the KDE launch settings per precision and dimension class by coordinate descent,
/// checks every candidate against the long-double reference, stores the fastest in the tuning
/// file (clstat::store_tuning) and returns one row per class (the tuned setting's throughput).
/// `only`: comma-separated classes such as "f32.d16,f64.d1" (empty: all eight).
std::vector<Row> tune_kde(const clstat::Context& ctx, const clstat::Ceilings& c, int repeats, const std::string& only);

}  // namespace bench
