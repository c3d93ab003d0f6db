// clstat: the command line.
//   clstat devices     every platform and device with its capabilities
//   clstat --version   version and git commit
//   clstat kde ...     kernel density estimates from files (clstat kde --help)
//   clstat bandwidth   bandwidth selection (clstat bandwidth --help)
//   clstat stable      alpha-stable pdf, cdf, sf, quantiles, random numbers (clstat stable --help)
//   clstat select      exact median, k-th smallest, sample quantiles (clstat select --help)
//   clstat robust      LTS and LMS regression (clstat robust --help)
//   clstat grid        density on a regular grid (clstat grid --help)
// Errors go to stderr with exit status 1; a usage error exits with 2.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdio>
#include <iostream>
#include <string>

#include "clstat/clstat.hpp"
#include "bandwidth_command.hpp"
#include "grid_command.hpp"
#include "robust_command.hpp"
#include "select_command.hpp"
#include "stable_command.hpp"
#include "kde_command.hpp"

namespace {

const char* type_name(clstat::DeviceType t) {
  switch (t) {
    case clstat::DeviceType::cpu: return "cpu";
    case clstat::DeviceType::gpu: return "gpu";
    case clstat::DeviceType::accelerator: return "accelerator";
    default: return "other";
  }
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

int devices() {
  const auto all = clstat::devices();
  if (all.empty()) {
    std::cerr << "clstat: no OpenCL platform or device found (is an ICD such as pocl-opencl-icd installed?)\n";
    return 1;
  }
  std::size_t platform = static_cast<std::size_t>(-1);
  for (const auto& d : all) {
    const auto& i = d.info();
    if (i.platform_index != platform) {
      platform = i.platform_index;
      std::cout << "platform " << i.platform_index << ": " << i.platform_name << " (" << i.platform_vendor << ")\n";
    }
    std::cout << "  device " << i.platform_index << ":" << i.device_index << ": " << i.name << "\n"
              << "    type " << type_name(i.type) << ", vendor " << i.vendor << "\n"
              << "    compute units " << i.compute_units << ", max clock " << i.max_clock_mhz << " MHz\n"
              << "    global memory " << mib(i.global_mem_bytes) << ", max allocation " << mib(i.max_alloc_bytes)
              << ", local memory " << (i.local_mem_bytes >> 10) << " KiB\n"
              << "    max work-group size " << i.max_work_group_size << ", fp64 " << (i.fp64 ? "yes" : "no")
              << ", int64 atomics " << (i.int64_atomics ? "yes" : "no") << "\n"
              << "    " << i.opencl_c_version << ", " << i.device_version << ", driver " << i.driver_version << "\n";
  }
  return 0;
}

int usage(int code) {
  (code ? std::cerr : std::cout) << "usage: clstat devices | clstat --version | clstat kde --help | clstat bandwidth --help | clstat stable --help | clstat select --help | clstat robust --help | clstat grid --help\n";
  return code;
}

}  // namespace

static int run(int argc, char** argv) {
  if (argc < 2) return usage(2);
  const std::string cmd = argv[1];
  try {
    if (cmd == "--version" || cmd == "version") {
      std::cout << "clstat " << CLSTAT_VERSION_STRING << " (" << CLSTAT_GIT_COMMIT << ")\n";
      return 0;
    }
    if (cmd == "devices") return devices();
    if (cmd == "kde") return clstat_cli::kde_command(argc - 2, argv + 2);
    if (cmd == "bandwidth") return clstat_cli::bandwidth_command(argc - 2, argv + 2);
    if (cmd == "stable") return clstat_cli::stable_command(argc - 2, argv + 2);
    if (cmd == "select") return clstat_cli::select_command(argc - 2, argv + 2);
    if (cmd == "robust") return clstat_cli::robust_command(argc - 2, argv + 2);
    if (cmd == "grid") return clstat_cli::grid_command(argc - 2, argv + 2);
    if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(0);
    std::cerr << "clstat: unknown command '" << cmd << "'\n";
    return usage(2);
  } catch (const std::exception& e) {
    // The library's messages already start with "clstat: " or "clstat::": no second prefix.
    const std::string m = e.what();
    std::cerr << (m.rfind("clstat", 0) == 0 ? "" : "clstat: ") << m << "\n";
    return 1;
  }
}

// A result that could not be written is a failure: a full disk or a closed standard output must
// not end with status 0 (the results go through std::cout, which writes through stdio's stdout).
int main(int argc, char** argv) {
  int code = run(argc, argv);
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout) {
    const int err = errno;
    std::cerr << "clstat: writing the results to standard output failed"
              << (err ? std::string(": ") + std::strerror(err) : std::string(" (disk full or output closed?)")) << "\n";
    if (code == 0) code = 1;
  }
  return code;
}
