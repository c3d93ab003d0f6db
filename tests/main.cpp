// doctest main with three extra flags for tests/DiscoverDeviceTests.cmake:
//   --clstat-list-devices          "P:D<TAB>name" per device
//   --clstat-resolve-device SPEC   the P:D that CLSTAT_DEVICE=SPEC selects (a list: "P:D,P:D")
//   --clstat-require-device        fails with a message when there is no OpenCL device
// CLSTAT_DEVICE may be a comma-separated list: the test device is then its first (as
// default_device takes it), and the group tests take the listed devices as their members.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "clstat/clstat.hpp"
#include "support.hpp"

namespace clstat_test {
namespace {
std::vector<clstat::Device> listed;
}

const clstat::Context& ctx() {
  static const clstat::Context c{clstat::default_device()};
  return c;
}

const std::vector<clstat::Device>& group_devices() { return listed; }
}  // namespace clstat_test

namespace {
std::vector<clstat::Device> resolve_list(const std::string& list) {
  std::vector<clstat::Device> out;
  std::stringstream ss(list);
  for (std::string one; std::getline(ss, one, ',');) out.push_back(clstat::select_device(one));
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--clstat-list-devices") == 0) {
    for (const auto& d : clstat::devices())
      std::printf("%zu:%zu\t%s\n", d.info().platform_index, d.info().device_index, d.info().name.c_str());
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "--clstat-resolve-device") == 0) {
    try {
      std::string out;
      for (const auto& d : resolve_list(argv[2]))
        out += (out.empty() ? "" : ",") + std::to_string(d.info().platform_index) + ":" + std::to_string(d.info().device_index);
      std::printf("%s\n", out.c_str());
    } catch (const std::exception&) {
    }
    return 0;
  }
  if (const char* e = std::getenv("CLSTAT_DEVICE"); e && std::strchr(e, ',')) {
    const std::string list = e;
    try {
      clstat_test::listed = resolve_list(list);
    } catch (const std::exception& x) {
      std::fprintf(stderr, "CLSTAT_DEVICE=%s: %s\n", list.c_str(), x.what());
      return 2;
    }
    for (const auto& d : clstat_test::listed)
      if (d.info().name != clstat_test::listed.front().info().name) {
        std::fprintf(stderr, "CLSTAT_DEVICE=%s: a group under test is made of devices of one name (%s and %s differ)\n",
                     list.c_str(), clstat_test::listed.front().info().name.c_str(), d.info().name.c_str());
        return 2;
      }
  }
  if (argc >= 2 && std::strcmp(argv[1], "--clstat-require-device") == 0) {
    std::fprintf(stderr, "no OpenCL device found: install an ICD, e.g. pocl-opencl-icd\n");
    return clstat::devices().empty() ? 1 : 0;
  }
  doctest::Context dc(argc, argv);
  if (!dc.shouldExit() && !clstat::devices().empty()) {
    const auto& info = clstat_test::ctx().info();
    std::printf("[clstat] device %s (%s, driver %s)\n", info.label().c_str(), info.platform_name.c_str(),
                info.driver_version.c_str());
  }
  return dc.run();
}
