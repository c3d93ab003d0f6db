// Shared test helpers: the device under test, fresh random inputs, ulp distance.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"

namespace clstat_test {

/// The context on the device CLSTAT_DEVICE selects (ctest sets it per test); with a list, its
/// first device.
const clstat::Context& ctx();

/// The devices of a group under test: the comma-separated list CLSTAT_DEVICE held when the test
/// program started ("1:0,1:1": two GPUs as one group; devices of one name, so that split results
/// can be compared bit for bit), else empty, and the group tests take the test device several
/// times.
const std::vector<clstat::Device>& group_devices();

inline bool has_fp64() { return ctx().info().fp64; }

/// A fresh seed per run (fresh inputs every time), reported by the caller via INFO on failure.
inline std::uint64_t fresh_seed() { return std::random_device{}() * 0x9E3779B97F4A7C15ull ^ std::random_device{}(); }

template <class T>
std::vector<T> normal(std::size_t n, std::uint64_t seed, double mean = 0, double sd = 1) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d(mean, sd);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(g));
  return v;
}

/// Distance in units in the last place between two finite values of T.
template <class T>
double ulp_distance(T a, T b) {
  if (a == b) return 0;
  const T u = std::nextafter(std::fabs(b), std::numeric_limits<T>::infinity()) - std::fabs(b);
  return std::fabs(static_cast<double>(a) - static_cast<double>(b)) / static_cast<double>(u);
}

/// Sets an environment variable for the scope and then restores it (CLSTAT_TUNING_FILE and
/// CLSTAT_CACHE_DIR are read when a Context is made).
struct ScopedEnv {
  std::string name, before;
  bool was_set;
  ScopedEnv(const char* n, const std::string& v) : name(n), was_set(std::getenv(n) != nullptr) {
    if (was_set) before = std::getenv(n);
    setenv(n, v.c_str(), 1);
  }
  ~ScopedEnv() {
    if (was_set) setenv(name.c_str(), before.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

/// A new context on the device under test, so tuning settings made now take effect.
inline clstat::Context fresh_ctx() { return clstat::Context(ctx().device()); }

/// a and b are the same bits (NaN payloads and the sign of zero included).
template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

/// T can be tested on the test device (double needs fp64).
template <class T>
bool type_ok() {
  return !std::is_same_v<T, double> || has_fp64();
}

/// A new context on the device under test with tuning entries replaced.
inline clstat::Context tuned_ctx(const std::map<std::string, std::size_t>& tuning) {
  return clstat::Context(ctx().device(), 4, tuning);
}

}  // namespace clstat_test
