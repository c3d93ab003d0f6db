// Huge-page advice for large host results (host_result.hpp).
#include "runtime/host_result.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace clstat::detail {

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0 || !p) return;
  const auto a = reinterpret_cast<std::uintptr_t>(p), P = static_cast<std::uintptr_t>(page);
  const std::uintptr_t lo = (a + P - 1) / P * P, hi = (a + bytes) / P * P;
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace clstat::detail
