// Exact 64-bit count of the elements that satisfy a predicate chosen by -D PREDICATE=<id>, with
// parameters pa, pb. The ids match clstat::Predicate in primitives.hpp:
//   0 isnan   1 isinf   2 isfinite   3 x < a   4 x <= a   5 x > a   6 x >= a   7 x == a
//   8 x != a (true for NaN)   9 a <= x <= b
#include "real.clh"
#ifndef PREDICATE
#define PREDICATE 0
#endif

inline int predicate(real x, real a, real b) {
#if PREDICATE == 0
  return isnan(x);
#elif PREDICATE == 1
  return isinf(x);
#elif PREDICATE == 2
  return isfinite(x);
#elif PREDICATE == 3
  return x < a;
#elif PREDICATE == 4
  return x <= a;
#elif PREDICATE == 5
  return x > a;
#elif PREDICATE == 6
  return x >= a;
#elif PREDICATE == 7
  return x == a;
#elif PREDICATE == 8
  return x != a;
#elif PREDICATE == 9
  return x >= a && x <= b;
#else
#error "unknown PREDICATE"
#endif
}

#define STATE ulong
inline ulong identity(void) { return 0; }
inline ulong merge(ulong a, ulong b) { return a + b; }
#define state_add(st, v, i) ((st) + (ulong)(v))
#define ELEMENT(v) (predicate((v), pa, pb) ? 1 : 0)
#include "reduce_slots.clh"
