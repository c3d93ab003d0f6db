// Internal: host vectors for large results that a device read-back overwrites.
#pragma once

#include <cstddef>
#include <vector>

namespace clstat::detail {

/// Asks the kernel for huge pages on [p, p + bytes) (Linux MADV_HUGEPAGE, whole pages inside
/// the range; elsewhere, or when refused, nothing). Advice only: never fails.
void advise_huge_pages(void* p, std::size_t bytes);

/// n value-initialised T (as std::vector<T>(n)) whose pages, from 32 MiB on, are advised huge
/// before they are first touched. A result of 1e8 doubles otherwise costs 2e5 page faults: on
/// the H200 machine 400 ms to zero 800 MB, four times the device's read-back into it.
template <class T>
std::vector<T> host_result(std::size_t n) {
  std::vector<T> v;
  if (n * sizeof(T) >= (std::size_t(32) << 20)) {
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
  return v;
}

}  // namespace clstat::detail
