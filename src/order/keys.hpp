// Internal: the order-preserving unsigned keys of the element types, on the host. They match
// to_key in cl/order/radix_select.cl: unsigned order of the keys is IEEE totalOrder of the values
// (-0 before +0), and every NaN maps to the largest key, so NaNs sort last.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace clstat::order::detail {

template <class T>
using key_t = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

/// The kernel's ELEM_KIND: 0 float, 1 double, 2 int32, 3 int64.
template <class T>
constexpr int elem_kind() {
  if constexpr (std::is_same_v<T, float>) return 0;
  else if constexpr (std::is_same_v<T, double>) return 1;
  else if constexpr (std::is_same_v<T, std::int32_t>) return 2;
  else return 3;
}

template <class T>
key_t<T> to_key(T v) {
  using K = key_t<T>;
  constexpr K top = K(1) << (8 * sizeof(K) - 1);
  K u;
  std::memcpy(&u, &v, sizeof u);
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return std::numeric_limits<K>::max();
    return (u & top) ? K(~u) : K(u | top);
  } else {
    return u ^ top;
  }
}

template <class T>
T from_key(key_t<T> k) {
  using K = key_t<T>;
  constexpr K top = K(1) << (8 * sizeof(K) - 1);
  K u;
  if constexpr (std::is_floating_point_v<T>) {
    if (k == std::numeric_limits<K>::max()) return std::numeric_limits<T>::quiet_NaN();
    u = (k & top) ? K(k & ~top) : K(~k);
  } else {
    u = k ^ top;
  }
  T v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

}  // namespace clstat::order::detail
