// Reference pairwise sums in long double: the definitions of clstat::PairFunction, summed
// directly over every pair.
#pragma once

#include <cmath>
#include <vector>

#include "clstat/primitives.hpp"

namespace clstat_ref {

inline long double pair_term(clstat::PairFunction f, long double q, long double p) {
  const long double inv_sqrt_2pi = 0.398942280401432677939946059934381868L;
  switch (f) {
    case clstat::PairFunction::gaussian:
      return std::exp(-p * q);
    case clstat::PairFunction::gauss_d4: {
      const long double s = p * q;
      return (s * s - 6 * s + 3) * std::exp(-s / 2) * inv_sqrt_2pi;
    }
    case clstat::PairFunction::gauss_d6: {
      const long double s = p * q;
      return (s * s * s - 15 * s * s + 45 * s - 15) * std::exp(-s / 2) * inv_sqrt_2pi;
    }
    case clstat::PairFunction::distance:
      return std::sqrt(q);
    case clstat::PairFunction::within:
      return q <= p ? 1 : 0;
  }
  return 0;
}

/// Squared distance of rows i and j of row-major data with d columns, in long double.
template <class T>
long double sqdist(const T* a, const T* b, std::size_t d) {
  long double q = 0;
  for (std::size_t k = 0; k < d; ++k) {
    const long double t = static_cast<long double>(a[k]) - static_cast<long double>(b[k]);
    q += t * t;
  }
  return q;
}

/// Condition number of a term with respect to its argument: exp(-a) computed from an argument
/// rounded to T carries a relative error of about |a| u, whatever exp does.
inline long double pair_cond(clstat::PairFunction f, long double q, long double p) {
  switch (f) {
    case clstat::PairFunction::gaussian:
    case clstat::PairFunction::gauss_d4:
    case clstat::PairFunction::gauss_d6:
      return 1 + std::fabs(p * q);
    default:
      return 1;
  }
}

/// A reference sum, the sum of the terms' magnitudes, and that sum weighted by each term's
/// condition number (together they scale the tolerance).
struct RefSum {
  long double sum = 0, mag = 0, cmag = 0;
  std::size_t count = 0;
  void add(long double t, long double cond) {
    ++count;
    sum += t;
    mag += std::fabs(t);
    cmag += std::fabs(t) * cond;
  }
};

template <class T>
std::vector<RefSum> triangle(const std::vector<T>& x, std::size_t n, std::size_t d, clstat::PairFunction f,
                             const std::vector<double>& params) {
  std::vector<RefSum> s(params.size());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const long double q = sqdist(&x[i * d], &x[j * d], d);
      for (std::size_t k = 0; k < params.size(); ++k) s[k].add(pair_term(f, q, params[k]), pair_cond(f, q, params[k]));
    }
  return s;
}

template <class T>
std::vector<RefSum> points(const std::vector<T>& y, std::size_t m, const std::vector<T>& x, std::size_t n,
                           std::size_t d, clstat::PairFunction f, const std::vector<double>& params) {
  std::vector<RefSum> s(params.size() * m);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const long double q = sqdist(&y[i * d], &x[j * d], d);
      for (std::size_t k = 0; k < params.size(); ++k)
        s[k * m + i].add(pair_term(f, q, params[k]), pair_cond(f, q, params[k]));
    }
  return s;
}

}  // namespace clstat_ref
