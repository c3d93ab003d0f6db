#include "runtime/tuning.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace clstat::detail {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

void env_size(const char* name, std::size_t& v) {
  if (const char* e = std::getenv(name); e && *e) v = static_cast<std::size_t>(std::strtoull(e, nullptr, 10));
}

}  // namespace

Tuning default_tuning(const DeviceInfo& info) {
  Tuning t;
  const std::string vendor = lower(info.vendor + " " + info.platform_name);
  if (info.type == DeviceType::gpu && vendor.find("nvidia") != std::string::npos) {
    t.reduce_wg = 256, t.pair_wg = 128, t.points_wg = 128, t.points_rows = 4, t.native_exp = true;
    t.source = "nvidia-gpu";
  } else if (info.type == DeviceType::gpu &&
             (vendor.find("amd") != std::string::npos || vendor.find("advanced micro") != std::string::npos)) {
    t.reduce_wg = 256, t.pair_wg = 256, t.points_wg = 256, t.points_rows = 4, t.native_exp = true;
    t.source = "amd-gpu";
  } else if (info.type == DeviceType::gpu) {
    t.reduce_wg = 256, t.pair_wg = 128, t.points_wg = 128, t.points_rows = 2, t.native_exp = true;
    t.source = "gpu";
  } else if (info.type == DeviceType::cpu) {
    // PoCL runs a work-group as vectorised loops: small groups, many rows per work-item.
    t.reduce_wg = 64, t.pair_wg = 64, t.points_wg = 64, t.points_rows = 8, t.native_exp = false;
    t.source = "cpu";
  }
  env_size("CLSTAT_TUNE_REDUCE_WG", t.reduce_wg);
  env_size("CLSTAT_TUNE_PAIR_WG", t.pair_wg);
  env_size("CLSTAT_TUNE_POINTS_WG", t.points_wg);
  env_size("CLSTAT_TUNE_POINTS_ROWS", t.points_rows);
  env_size("CLSTAT_TUNE_PAIR_BATCH", t.pair_batch_tiles);
  if (const char* e = std::getenv("CLSTAT_TUNE_NATIVE_EXP"); e && *e) t.native_exp = std::atoi(e) != 0;
  for (std::size_t* v : {&t.reduce_wg, &t.pair_wg, &t.points_wg, &t.points_rows, &t.pair_batch_tiles}) {
    std::size_t p = 1;
    while (p * 2 <= *v) p *= 2;
    *v = p;
  }
  return t;
}

}  // namespace clstat::detail
