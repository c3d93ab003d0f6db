// Reference order statistics: a full std::sort under IEEE totalOrder (-0 before +0, NaNs last),
// the order clstat::order documents.
#pragma once

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

namespace clstat_ref {

template <class T>
bool total_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(b)) return !std::isnan(a);
    if (std::isnan(a)) return false;
    if (a == b) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

template <class T>
std::vector<T> sorted_total(std::vector<T> x) {
  std::sort(x.begin(), x.end(), total_less<T>);
  return x;
}

}  // namespace clstat_ref
