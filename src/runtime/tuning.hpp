// Internal: tunables per device class. They change speed, never results: every kernel's rounding is
// fixed by constants that are not tunable (reduction slot count, pairwise TILE and CHUNK).
#pragma once

#include <cstddef>
#include <string>

#include "clstat/runtime.hpp"

namespace clstat::detail {

struct Tuning {
  std::size_t reduce_wg = 256;        // reduction work-group size (power of two)
  std::size_t pair_wg = 128;          // pairwise-triangle work-group size; rows = TILE / pair_wg
  std::size_t points_wg = 128;        // pairwise-points work-group size
  std::size_t points_rows = 4;        // targets per work-item in pairwise-points
  bool native_exp = false;            // fp32 exp through native_exp2 in pair functions
  std::size_t pair_batch_tiles = 1u << 16;  // tiles per pairwise launch (a power of two: any
                                            // power of two gives the same canonical tree)
  std::string source = "default";     // which table entry supplied the values
};

/// Defaults for NVIDIA, AMD and Intel GPUs and for CPU devices, keyed by vendor and device type,
/// then overridden by the environment for experiments: CLSTAT_TUNE_REDUCE_WG, CLSTAT_TUNE_PAIR_WG,
/// CLSTAT_TUNE_POINTS_WG, CLSTAT_TUNE_POINTS_ROWS, CLSTAT_TUNE_NATIVE_EXP, CLSTAT_TUNE_PAIR_BATCH.
/// Sizes that are not powers of two are rounded down to one.
Tuning default_tuning(const DeviceInfo& info);

}  // namespace clstat::detail
