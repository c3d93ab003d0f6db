// Compensated sum of transform(x_i; pa): transform_reduce, and with TRANSFORM=0 the plain sum.
// STATE is csumd for double data and csumf for float data (the compensation word makes a float
// sum about as accurate as a double one over the same data).
#include "real.clh"
#include "compensated.clh"
#include "transforms.clh"
#ifdef REAL_DOUBLE
#define STATE csumd
#define identity csumd_zero
#define merge csumd_merge
#define state_add(st, v, i) csumd_add((st), (v))
#else
#define STATE csumf
#define identity csumf_zero
#define merge csumf_merge
#define state_add(st, v, i) csumf_add((st), (v))
#endif
#define ELEMENT(v) transform((v), pa)
#include "reduce_slots.clh"
