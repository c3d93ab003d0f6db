// clstat/tuning.hpp: the tuning file that `clstat-bench --tune` writes and every Context reads.
//
// Tunables (work-group size, tile size, points per work-item, unroll, ...) change speed, never
// results beyond rounding. Each Context starts from shipped defaults for its device class (NVIDIA,
// AMD, other GPU, CPU), then applies the entries stored for its device in the tuning file, then
// the entries given to the Context's constructor. Every entry is range-checked when a Context is
// made (an unknown name or a value that cannot work raises std::invalid_argument).
//
// The file is JSON: one object per device key, each mapping tunable names to non-negative
// integers, e.g. {"nvidia-h100-80gb-hbm3": {"kde.f32.d1.ppt": 8, "kde.f32.d1.wg": 256}}.
#pragma once

#include <cstddef>
#include <map>
#include <string>

#include "clstat/runtime.hpp"

namespace clstat {

/// Path of the tuning file: $CLSTAT_TUNING_FILE, else <cache dir>/tuning.json where the cache dir
/// is $CLSTAT_CACHE_DIR, else ~/.cache/clstat (the home directory from the password database);
/// empty when neither is known. The file need not exist. Never throws.
CLSTAT_EXPORT std::string tuning_file();

/// The device's key in the tuning file: its name in lower case, runs of other characters
/// replaced by '-' ("NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"). O(name length).
CLSTAT_EXPORT std::string tuning_key(const DeviceInfo& info);

/// The entries stored for `info` in the tuning file (empty when the file or the key is missing).
/// A file that does not parse (or is not the two-level shape above) is treated as empty, so a
/// damaged file can only cost speed. O(file size). Never throws.
CLSTAT_EXPORT std::map<std::string, std::size_t> load_tuning(const DeviceInfo& info);

/// Merges `values` into the device's entry of the tuning file (creating directories and file),
/// writing a temporary file and renaming it. Throws std::runtime_error when there is no path
/// (no cache directory variable) or the file cannot be written. Contexts created afterwards use
/// the new values. O(file size).
CLSTAT_EXPORT void store_tuning(const DeviceInfo& info, const std::map<std::string, std::size_t>& values);

}  // namespace clstat
