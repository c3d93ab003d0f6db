// The tuning file (clstat/tuning.hpp): round trip, merging, the device key, a damaged file, and
// a Context picking the stored values up.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "support.hpp"

using namespace clstat;
using clstat_test::ScopedEnv;

namespace {
std::string temp_path(const char* name) {
  return std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/clstat-test-" +
         std::to_string(clstat_test::fresh_seed()) + "-" + name;
}
}  // namespace

TEST_CASE("tuning.key") {
  DeviceInfo info;
  info.name = "  NVIDIA H100 80GB  HBM3 ";
  CHECK(tuning_key(info) == "nvidia-h100-80gb-hbm3");
  info.name = "pthread-skylake-avx512-AMD EPYC";
  CHECK(tuning_key(info) == "pthread-skylake-avx512-amd-epyc");
}

TEST_CASE("tuning.file_round_trip") {
  const std::string path = temp_path("tuning.json");
  ScopedEnv env("CLSTAT_TUNING_FILE", path);
  CHECK(tuning_file() == path);
  const DeviceInfo& info = clstat_test::ctx().info();
  CHECK(load_tuning(info).empty());  // no file yet
  store_tuning(info, {{"kde.f32.d1.ppt", 2}, {"kde.f32.d1.wg", 64}});
  store_tuning(info, {{"kde.f32.d1.ppt", 1}});  // merges, the later value wins
  DeviceInfo other;
  other.name = "Another Device";
  store_tuning(other, {{"kde.f64.d4.tile", 128}});
  const auto got = load_tuning(info);
  CHECK(got.size() == 2);
  CHECK(got.at("kde.f32.d1.ppt") == 1);
  CHECK(got.at("kde.f32.d1.wg") == 64);
  CHECK(load_tuning(other).at("kde.f64.d4.tile") == 128);

  // A context made now reads the two entries; they change speed only.
  Context fresh = clstat_test::fresh_ctx();
  CHECK(fresh.tuning_summary().find("tuning_file_entries=2") != std::string::npos);
  const auto x = clstat_test::normal<double>(500, clstat_test::fresh_seed());
  KdeOptions o;
  o.precision = Precision::float32;
  o.bandwidth = Bandwidth::scalar(0.4);
  CHECK(kde(fresh, x.data(), 500, 1, x.data(), 500, o) == kde(clstat_test::ctx(), x.data(), 500, 1, x.data(), 500, o));
  std::remove(path.c_str());
}

TEST_CASE("tuning.damaged_file_is_ignored") {
  const std::string path = temp_path("bad.json");
  ScopedEnv env("CLSTAT_TUNING_FILE", path);
  for (const char* text : {"{\"dev\": {\"k\": -3}}", "not json", "{\"a\": 1}", "{\"a\": {\"k\": 1}} trailing"}) {
    INFO(text);
    std::ofstream(path) << text;
    DeviceInfo info;
    info.name = "dev";
    CHECK(load_tuning(info).empty());
    CHECK_NOTHROW(clstat_test::fresh_ctx());
  }
  std::remove(path.c_str());
}

TEST_CASE("tuning.store_errors") {
  ScopedEnv env("CLSTAT_TUNING_FILE", "/proc/clstat-cannot-write-here/tuning.json");
  CHECK_THROWS_AS(store_tuning(clstat_test::ctx().info(), {{"k", 1}}), std::runtime_error);
}
