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
#define ROWS_CUSTOM
#include "reduce_slots.clh"

inline rsimd transform_v(rsimd x, real c) { return TRANSFORM_EXPR(x, c, (rsimd)RC(0.0)); }

// The CPUs' form (reduce_slots.clh's reduce_rows), its block loop in vectors: RSIMD slots' sums and
// compensations in two registers, each lane the TwoSum of compensated.clh in the same order, so
// the same bits. PoCL 3.1, 2 cores, 2^25 doubles: 8.4 ms with the loop over an array of states,
// 6.8 to 7.1 ms with this one.
__kernel void reduce_rows(__global const real* x, ulong offset, ulong n, ulong P, real pa, real pb,
                          __global STATE* out, ulong ld) {
  ROWS_START;
  real S[ROW_SLOTS], C[ROW_SLOTS];
  for (uint b = 0; b < ROW_SLOTS; ++b) S[b] = C[b] = RC(0.0);
  const ulong whole = rows_whole_blocks(n, P);
  for (ulong g = 0; g < whole; ++g) {
    __global const real* blk = x + 8 * g * P + s0;
    for (uint j = 0; j + RSIMD <= ROW_SLOTS; j += RSIMD) {
      rsimd s = vload_rsimd(0, S + j), c = vload_rsimd(0, C + j);
#pragma unroll
      for (int u = 0; u < 8; ++u) {
        const rsimd v = transform_v(vload_rsimd(0, blk + u * P + j), pa);
        const rsimd t = s + v;
        const rsimd bp = t - s;
        c += (s - (t - bp)) + (v - bp);
        s = t;
      }
      vstore_rsimd(s, 0, S + j);
      vstore_rsimd(c, 0, C + j);
    }
  }
  STATE st[ROW_SLOTS];
  for (uint b = 0; b < ROW_SLOTS; ++b) {
    st[b].s = S[b];
    st[b].c = C[b];
  }
  out[get_global_id(0)] = rows_finish(st, x, 8 * whole, s0, n, P, pa, pb);
}
