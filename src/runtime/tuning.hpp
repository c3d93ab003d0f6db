// Internal: tunables per device class. They change speed, never results: every kernel's rounding is
// fixed by constants that are not tunable (reduction slot count, pairwise TILE and CHUNK).
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "clstat/runtime.hpp"

namespace clstat::detail {

struct Tuning {
  std::size_t reduce_wg = 256;        // reduction work-group size (power of two)
  std::size_t pair_wg = 128;          // pairwise-triangle work-group size; rows = TILE / pair_wg
  std::size_t points_wg = 128;        // pairwise-points work-group size
  std::size_t points_rows = 4;        // targets per work-item in pairwise-points
  bool native_exp = false;            // fp32 exp through native_exp2 in pair functions
  bool ptx = false;                   // the device's compiler takes inline NVIDIA PTX (NVIDIA's
                                      // OpenCL): the KDE's fp32 Gaussian uses its one-instruction ex2
  std::size_t pair_batch_tiles = 1u << 16;  // tiles per pairwise launch (a power of two: any
                                            // power of two gives the same canonical tree)
  std::string source = "default";     // which table entry supplied the values
  // Keyed tunables of the algorithm layers, e.g. "kde.f32.d1.ppt" (see tuned()): shipped
  // defaults for the device class, then the tuning file's entries for this device.
  std::map<std::string, std::size_t> table;
  std::size_t file_entries = 0;       // how many entries came from the tuning file
};

/// The value of `key` in t.table, or `fallback` when absent.
std::size_t tuned(const Tuning& t, const std::string& key, std::size_t fallback);

/// $CLSTAT_CACHE_DIR, else $XDG_CACHE_HOME/clstat, else ~/.cache/clstat; empty if none is set.
std::string cache_directory();

/// Defaults for NVIDIA, AMD and Intel GPUs and for CPU devices, keyed by vendor and device type;
/// then the tuning file's entries for this device (clstat/tuning.hpp), then `overrides` (the
/// Context constructor's). Every entry is checked against its key's range (tuning_ranges.cpp):
/// an unknown key or a value out of range raises std::invalid_argument naming both.
Tuning default_tuning(const DeviceInfo& info, const std::map<std::string, std::size_t>& overrides = {});

/// Throws std::invalid_argument unless `key` is a known tunable and `value` within its range.
void check_tunable(const std::string& key, std::size_t value, const std::string& where);

}  // namespace clstat::detail
