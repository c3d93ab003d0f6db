// Internal: sizes from environment variables, the experiment knobs of the tuning defaults and of
// the kernels' launch settings.
#pragma once

#include <cstddef>
#include <cstdlib>

namespace clstat::detail {

/// The positive integer in environment variable `name`, or `fallback` when it is unset, empty,
/// not a number or 0.
inline std::size_t env_size(const char* name, std::size_t fallback) {
  const char* e = std::getenv(name);
  if (!e || !*e) return fallback;
  const unsigned long long v = std::strtoull(e, nullptr, 10);
  return v > 0 ? static_cast<std::size_t>(v) : fallback;
}

}  // namespace clstat::detail
