// The order suite of clstat-bench (issue 7's shapes).
//  Median of n = 2^13, 2^15, ..., 2^max_log2 (27 on GPUs, 23 on CPUs) floats and doubles already
//  on the device, for each of the thirteen inputs of tests/reference/order_data.hpp (Beliakov
//  2011's nine distributions, sorted, reverse-sorted, all-equal, 1% outliers near +-1e9), by
//  radix selection; the Boost.Compute sort baseline and the cutting-plane method (floats and
//  doubles) at the normal input, 2^21 and the largest n. Quantiles (type 7,
//  p = 0.01, 0.1, 0.5, 0.9, 0.99) and the k = n/10 order statistic at the largest n; int32 and
//  int64 medians at the largest n.
//  Times: kernel_ms is the device span from the first kernel's start to the last one's end (the
//  host's reads of each pass's histogram included, as gaps); wall_ms is the host wall clock of
//  the device-buffer call (data on the device, result on the host). The sort baseline's kernels
//  run inside Boost.Compute, outside clstat's profile: its kernel_ms is its wall time. Throughput = input bytes /
//  kernel_ms, against the copy ceiling. Check: every result equal, bit for bit, to std::sort's
//  (nth_element under IEEE totalOrder) on the host.
//  Peers: bench/peers/select_torch_cupy.py times torch.median, torch.kthvalue, cupy.median and
//  torch.sort on the same GPU, same shapes (data on the device, CUDA events), at the largest n.
#pragma once

#include <string>

#include "report.hpp"

namespace bench {

struct OrderBenchOptions {
  int repeats = 10;
  int max_log2 = 27;
  bool peers = true;
  std::string peers_dir;
};

std::vector<Row> run_order(const clstat::Context& ctx, const clstat::Ceilings& c, const OrderBenchOptions& o);

}  // namespace bench
