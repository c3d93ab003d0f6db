// The bandwidth suite of clstat-bench (issue 4's shapes): the exact plug-in at n = 1024 ... 32768
// and 2^20, LSCV_h (n_h = 150) at n = 64 ... 1024 for d = 1 ... 16 and at 2^16, one LSCV_H
// objective evaluation at n = 1024 ... 16384 for d = 1 ... 16, a whole LSCV_H at n = 16384,
// d = 4, and the matrix selectors (plugin_H, scv_H; d = 3, two stages) at n = 1024 ... 1e5 beside
// ks::Hpi and ks::Hscv. Times are wall clock of the whole call (host data in, bandwidth out: transfers included).
#pragma once

#include "report.hpp"

namespace bench {

struct BandwidthBenchOptions {
  int repeats = 5;
  bool large = true;  // the 2^20 plug-in, the 2^16 LSCV_h, the full LSCV_H and plugin_H at 1e5 (GPUs)
  bool peers = true;  // R's ks::Hpi and ks::Hscv beside plugin_H and scv_H, when Rscript and ks are present
  std::string peers_dir;
};

std::vector<Row> run_bandwidth(const clstat::Context& ctx, const BandwidthBenchOptions& o);

}  // namespace bench
