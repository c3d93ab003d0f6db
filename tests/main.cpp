// doctest main with three extra flags for tests/DiscoverDeviceTests.cmake:
//   --clstat-list-devices          "P:D<TAB>name" per device
//   --clstat-resolve-device SPEC   the P:D that CLSTAT_DEVICE=SPEC selects
//   --clstat-require-device        fails with a message when there is no OpenCL device
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "clstat/clstat.hpp"
#include "support.hpp"

namespace clstat_test {
const clstat::Context& ctx() {
  static const clstat::Context c{clstat::default_device()};
  return c;
}
}  // namespace clstat_test

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--clstat-list-devices") == 0) {
    for (const auto& d : clstat::devices())
      std::printf("%zu:%zu\t%s\n", d.info().platform_index, d.info().device_index, d.info().name.c_str());
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "--clstat-resolve-device") == 0) {
    try {
      const auto& i = clstat::select_device(argv[2]).info();
      std::printf("%zu:%zu\n", i.platform_index, i.device_index);
    } catch (const std::exception&) {
    }
    return 0;
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
