// Reference: the correctly rounded sum of doubles (Shewchuk 1997's non-overlapping partials, as in
// Python's math.fsum). Obviously correct by construction: the partials represent the running sum
// exactly, and only the last step rounds.
#pragma once

#include <cmath>
#include <vector>

namespace clstat_ref {

inline double exact_sum(const std::vector<double>& x) {
  std::vector<double> p;
  for (double v : x) {
    std::size_t k = 0;
    for (double y : p) {
      if (std::fabs(v) < std::fabs(y)) std::swap(v, y);
      const double hi = v + y;
      const double lo = y - (hi - v);
      if (lo != 0) p[k++] = lo;
      v = hi;
    }
    p.resize(k);
    p.push_back(v);
  }
  // Round the exact sum of the partials (largest last) once, with the half-way correction of fsum.
  if (p.empty()) return 0;
  std::size_t n = p.size();
  double hi = p[--n], lo = 0;
  while (n > 0) {
    const double y = p[--n];
    const double x = hi;
    hi = x + y;
    const double yr = hi - x;
    lo = y - yr;
    if (lo != 0) break;
  }
  if (n > 0 && ((lo < 0 && p[n - 1] < 0) || (lo > 0 && p[n - 1] > 0))) {
    const double y = lo * 2;
    const double x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

template <class T>
std::vector<double> widen(const std::vector<T>& v) {
  return std::vector<double>(v.begin(), v.end());
}

}  // namespace clstat_ref
