// Internal: host vectors for large results that a device read-back overwrites, and for
// internal arrays that parallel passes fill.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
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

/// std::allocator, except that a value-initialised element is default-initialised: a vector's
/// resize(n) leaves trivial elements unwritten, where std::vector<T> zeroes them on one thread.
template <class T>
struct DefaultInit : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInit<U>;
  };
  DefaultInit() = default;
  template <class U>
  DefaultInit(const DefaultInit<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
};

/// An internal host array whose elements are written before they are read.
template <class T>
using HostArray = std::vector<T, DefaultInit<T>>;

/// n unwritten T, their pages (from 32 MiB on) advised huge: the passes that fill them touch each
/// page first, on their own threads. For the LTS design at 10^6 rows of 11, zeroing it on one
/// thread before the parallel fill was a third of the design's 32 ms on the H100 machine.
template <class T>
HostArray<T> host_array(std::size_t n) {
  static_assert(std::is_trivially_default_constructible<T>::value, "host_array leaves elements unwritten");
  HostArray<T> v;
  if (n * sizeof(T) >= (std::size_t(32) << 20)) {
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
  return v;
}

}  // namespace clstat::detail
