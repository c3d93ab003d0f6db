// clstat-bench rows, the printed table and the CSV report (the JSON one: result_json.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"

namespace bench {

/// Median, minimum and relative spread ((max - min) / median) of repeated timings.
struct Stats {
  double median = 0, min = 0, spread = 0;
  static Stats of(std::vector<double> v) {
    Stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    s.spread = s.median > 0 ? (v.back() - v.front()) / s.median : 0;
    return s;
  }
};

/// Wall-clock milliseconds of `repeats` calls of f after one warm-up call (which builds programs).
Stats wall_stats(const std::function<void()>& f, int repeats);

struct Row {
  std::string suite, name, precision;
  std::uint64_t n = 0;
  int repeats = 0;
  Stats kernel_ms;      // device span of the operation's kernels (event profiling)
  Stats wall_ms;        // host wall clock, host arrays in and results out (transfers included)
  double work = 0;      // units of work per run (bytes, pairs, ...)
  std::string unit;     // "GB/s", "Gpairs/s"
  double throughput = 0;            // work / median kernel time, in 1e9 units per second
  std::string ceiling_name;         // which ceiling the row is compared with
  double ceiling = 0;               // that ceiling, same unit as throughput
  double fraction = 0;              // throughput / ceiling
  std::string check;                // what the result was checked against
  double error = 0;                 // the measured error (relative or ulp, see check)
  bool pass = true;
  std::string peer;                 // what a user would run instead, timed in the same run
  double peer_throughput = 0;       // its throughput, same unit; 0 when not run
  std::string peer_error;           // why the peer gave no number (its exit status and stderr)
};

struct DeviceReport {
  clstat::DeviceInfo info;
  clstat::Ceilings ceilings;       ///< what rows are compared with (CPU devices: the higher of the two below)
  clstat::Ceilings device_ceilings;  ///< the OpenCL micro-kernels' rates
  clstat::Ceilings host_ceilings;    ///< CPU devices: native code on the host's cores (zero for GPUs)
  std::string tuning;
  std::vector<Row> rows;
};

/// Calls body(b, begin, end) for the blocks [b 2^16, min(n, (b + 1) 2^16)) of 0..n, on all host
/// cores. A body that seeds its generator with b makes data that does not depend on the machine.
void for_blocks(std::size_t n, const std::function<void(std::size_t, std::size_t, std::size_t)>& body);

/// Times `run` on ctx as r.repeats, r.kernel_ms and r.wall_ms: one warm-up call (which builds the
/// programs), then `repeats` calls, each with its wall time and its device span (from the first
/// profiled kernel's start to the last one's end; none when it ran no clstat kernel).
void time_device_and_wall(const clstat::Context& ctx, Row& r, int repeats, const std::function<void()>& run);

/// Sets r's ceiling to the exp rate its kernels use: exp64 for double, native_exp2 for float where
/// the context's tuning enables it, else exp32.
void set_exp_ceiling(const clstat::Context& ctx, const clstat::Ceilings& c, bool dbl, Row& r);

/// Sets each row's ceiling (read, copy, exp32, native_exp2, exp64; rows compared with anything
/// else keep theirs) to d.ceilings' rate of that name, and its fraction to throughput / ceiling.
void rebase_fractions(DeviceReport& d);

/// v with `digits` digits after the point ("1.94"), for the check texts.
std::string fixed(double v, int digits);

void print_table(const DeviceReport& d);
void write_csv(const std::string& path, const std::vector<DeviceReport>& devices);

}  // namespace bench
