// Cold build times of embedded kernel sources, for the compile-time problem on NVIDIA (a build of
// stable/stable_point took about 90 s there). Not built by CMake:
//   g++ -O2 -std=c++17 -Iinclude -Ibuild-gpu/include tools/dev/compile_time.cpp -Lbuild-gpu -lclstat \
//       -Wl,-rpath,$PWD/build-gpu -o compile_time
//   CLSTAT_CACHE_DIR=$(mktemp -d) CUDA_CACHE_DISABLE=1 ./compile_time nvidia "stable/stable_point|" ...
// Each argument after the device is source|options; prints the seconds of each build.
#include <chrono>
#include <cstdio>
#include <string>

#include "clstat/clstat.hpp"

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const clstat::Context ctx(clstat::select_device(argv[1]));
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto bar = a.find('|');
    const std::string src = a.substr(0, bar), opt = bar == std::string::npos ? "" : a.substr(bar + 1);
    const auto t0 = std::chrono::steady_clock::now();
    clstat::build_kernel(ctx, src, true, opt);
    std::printf("%-28s %-40s %.1f s\n", src.c_str(), opt.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
  }
}
