// KDE evaluation: for each point y_i, sum over samples j of w_j k(u(y_i) - u(x_j)), on rows made
// by kde_prepare. Michailidis & Margaritis 2013 sec. 3 give three CUDA kernels; all three are here,
// chosen by -D VARIANT:
//   0 naive     every work-item reads the samples from global memory (their sec. 3.2);
//   1 tiled     the work-group stages TILE samples at a time in local memory (sec. 3.3.1);
//   2 unrolled  tiled, with the sample loop unrolled UNROLL times (sec. 3.3.2).
// The dimension loops always run to the compile-time DIM (specialised per d on demand); only
// VARIANT 2 asks for them to be unrolled. Beyond the paper, each work-item owns PPT points in
// registers, so every sample read from local memory serves PPT pairs.
//
// Rounding is fixed independently of WG, PPT, TILE, VARIANT and chunking over launches: each point
// sums CHUNK consecutive samples (a fixed, global partition of the sample index) in `real`, then
// folds that partial into a compensated (TwoSum) accumulator in sample order. The state (s, c)
// lives in `state` between launches, so sample blocks of any multiple of CHUNK give the same bits.
//
// VEC (tiled variants only): sample rows are padded to a multiple of a 16-byte vector (float4 or
// double2; SSTRIDE says the padded length), the tile is staged and read as vectors, and each row is
// copied to registers with SSTRIDE / VW vector loads before it meets the PPT points. Without it a
// row costs one scalar local load per value, and at d = 16 those loads, not the multiply-adds,
// bound the kernel. The padding values are zero and never read by a term, so the bits are the same.
//
// VARIANT 3 (simd, for CPU devices): each work-item owns PPT vectors of LANES consecutive points,
// one point per vector lane, and reads each sample row from global memory once as scalars that
// meet all PPT * LANES points. The GPU shape (one point per work-item, a tile in local memory and
// barriers) leaves a CPU compiler such as PoCL's a scalar loop per work-item; explicit vectors make
// every subtraction, multiply-add and exp2 a SIMD instruction over LANES points. Each lane sums its
// samples in the same order and CHUNK partition as the other variants, so the bits are theirs
// wherever the device's vector and scalar shapes round alike.
//
// EXP_POLY (Gaussian, variants 0 to 2): of every 8 consecutive samples, the first EXP_POLY have
// their terms' exp2 computed by kde_exp2_poly on the FMA pipes, the others by KDE_EXP2 (on a GPU's
// special-function unit in fp32), so both units work at once. The choice follows the global sample
// index modulo 8 (CHUNK is a multiple of 8), so the bits stay independent of the launch shape.
//
// Options: DIM, KERN, FORM, DOT (Gaussian expanded square), WEIGHTED, LOO (skip j == i by global
// index), VARIANT, WG, PPT, TILE, CHUNK, UNROLL, NATIVE_EXP, NV_PTX (kde_shapes.clh), EXP_POLY,
// VEC, SSTRIDE, LANES (simd).
#include "kde_shapes.clh"
#include "compensated.clh"

#ifdef REAL_DOUBLE
#define KSTATE csumd
#define KSTATE_ZERO csumd_zero
#define KSTATE_ADD csumd_add
#else
#define KSTATE csumf
#define KSTATE_ZERO csumf_zero
#define KSTATE_ADD csumf_add
#endif

#ifndef VEC
#define VEC 0
#endif
#ifndef SSTRIDE
#define SSTRIDE (DIM + DOT + WEIGHTED)
#endif
#define SAMPLE_STRIDE SSTRIDE
#define POINT_STRIDE (DIM + DOT)
#if VEC
#ifdef REAL_DOUBLE
typedef double2 realv;
#define VW 2
#else
typedef float4 realv;
#define VW 4
#endif
#if SSTRIDE % VW
#error "VEC needs SSTRIDE to be a multiple of the vector width"
#endif
#define SV (SSTRIDE / VW)
#endif

#ifndef EXP_POLY
#define EXP_POLY 0
#endif
#if EXP_POLY
#if KERN != KK_GAUSSIAN || VARIANT == 3 || CHUNK % 8
#error "EXP_POLY is for the Gaussian in the scalar variants, with CHUNK a multiple of 8"
#endif
#define EXP_PERIOD 8
#define KDE_SHAPE_POLY kde_shape_radial_poly
#else
#define EXP_PERIOD 1
#define KDE_SHAPE_POLY KDE_SHAPE_STD
#endif
#define KDE_SHAPE_STD kde_shape_radial

#if VARIANT == 2
#define DIM_UNROLL _Pragma("unroll")
#else
#define DIM_UNROLL _Pragma("unroll 1")
#endif

// The term of point p against the sample row xr (in address space AS), its radial shape SHAPE
// (KDE_SHAPE_STD, or KDE_SHAPE_POLY for the terms whose exp2 runs on the FMA pipes).
#if DOT
#define KDE_TERM(AS, NAME, SHAPE)                                           \
  inline real NAME##AS(const real* y, AS const real* xr) {                 \
    real e = y[DIM] + xr[DIM];                                              \
    DIM_UNROLL for (uint k = 0; k < DIM; ++k) e = fma(y[k], xr[k], e);      \
    return SHAPE(-e);                                                       \
  }
#elif FORM == FORM_RADIAL
#define KDE_TERM(AS, NAME, SHAPE)                                           \
  inline real NAME##AS(const real* y, AS const real* xr) {                 \
    real q = RC(0.0);                                                       \
    DIM_UNROLL for (uint k = 0; k < DIM; ++k) {                             \
      const real t = y[k] - xr[k];                                          \
      q = fma(t, t, q);                                                     \
    }                                                                       \
    return SHAPE(q);                                                        \
  }
#else
#define KDE_TERM(AS, NAME, SHAPE)                                           \
  inline real NAME##AS(const real* y, AS const real* xr) {                 \
    real p = kde_shape1(y[0] - xr[0]);                                      \
    DIM_UNROLL for (uint k = 1; k < DIM; ++k) p *= kde_shape1(y[k] - xr[k]); \
    return p;                                                               \
  }
#endif
KDE_TERM(__global, kde_term_, KDE_SHAPE_STD)
KDE_TERM(__local, kde_term_, KDE_SHAPE_STD)
KDE_TERM(__private, kde_term_, KDE_SHAPE_STD)
#if EXP_POLY
KDE_TERM(__global, kde_term_poly_, KDE_SHAPE_POLY)
KDE_TERM(__local, kde_term_poly_, KDE_SHAPE_POLY)
KDE_TERM(__private, kde_term_poly_, KDE_SHAPE_POLY)
#define KDE_TERM_POLY_OF2(AS) kde_term_poly_##AS
#else
#define KDE_TERM_POLY_OF2(AS) kde_term_##AS
#endif
#define KDE_TERM_POLY_OF(AS) KDE_TERM_POLY_OF2(AS)

// Sums samples [c0, c0 + CHUNK) of the rows at xs (global sample index sample_base + c0 + j) into
// part[p]; then folds each part into acc. One macro for both address spaces.
#if LOO
#define KDE_SKIP(p, jg) t = ((jg) == point_base + i0 + (ulong)(p) * WG) ? RC(0.0) : t;
#else
#define KDE_SKIP(p, jg)
#endif
#if WEIGHTED
#define KDE_ACCUM(p, xr, t) part[p] = fma(xr[DIM + DOT], t, part[p]);
#else
#define KDE_ACCUM(p, xr, t) part[p] += t;
#endif
// KDE_ROW(AS, xs, j) declares xr, the sample row j of xs, as the term reads it (address space
// KDE_ROW_AS(AS)): in place, or (VEC) copied to registers with vector loads.
#if VEC
#define KDE_ROW_AS(AS) __private
#define KDE_ROW(AS, xs, j)                                                  \
  realv xrv[SV];                                                            \
  _Pragma("unroll") for (uint q = 0; q < SV; ++q) xrv[q] = ((AS const realv*)(xs))[(j) * SV + q]; \
  const real* xr = (const real*)xrv;
#else
#define KDE_ROW_AS(AS) AS
#define KDE_ROW(AS, xs, j) AS const real* xr = (xs) + (j) * SAMPLE_STRIDE;
#endif
#define KDE_TERM_OF2(AS) kde_term_##AS
#define KDE_TERM_OF(AS) KDE_TERM_OF2(AS)
#define KDE_CHUNK(AS, xs, jg0)                                              \
  {                                                                         \
    real part[PPT];                                                         \
    _Pragma("unroll") for (uint p = 0; p < PPT; ++p) part[p] = RC(0.0);     \
    KDE_SAMPLE_LOOP for (uint j8 = 0; j8 < CHUNK; j8 += EXP_PERIOD) {       \
      _Pragma("unroll") for (uint jj = 0; jj < EXP_PERIOD; ++jj) {          \
        const uint j = j8 + jj;                                             \
        KDE_ROW(AS, xs, j)                                                  \
        _Pragma("unroll") for (uint p = 0; p < PPT; ++p) {                  \
          real t = jj < EXP_POLY ? KDE_TERM_POLY_OF(KDE_ROW_AS(AS))(y[p], xr) \
                                 : KDE_TERM_OF(KDE_ROW_AS(AS))(y[p], xr);   \
          KDE_SKIP(p, (jg0) + j)                                            \
          KDE_ACCUM(p, xr, t)                                               \
        }                                                                   \
      }                                                                     \
    }                                                                       \
    _Pragma("unroll") for (uint p = 0; p < PPT; ++p) acc[p] = KSTATE_ADD(acc[p], part[p]); \
  }

// The sample loop steps EXP_PERIOD samples at a time (each step unrolled); the unrolled variant
// unrolls UNROLL steps.
#if VARIANT == 2
#define KDE_SAMPLE_LOOP _Pragma(KDE_STR(unroll UNROLL))
#else
#define KDE_SAMPLE_LOOP _Pragma("unroll 1")
#endif
#define KDE_STR2(x) #x
#define KDE_STR(x) KDE_STR2(x)

#if VARIANT != 3
// Samples: rows x_row0 .. x_row0 + n_pad - 1 of xs (n_pad a multiple of TILE and CHUNK), whose
// first has global index sample_base; points: m rows of ys, the first with global index
// point_base (both only matter for LOO). state: 2m values, s at [i] and c at [m + i]; first != 0
// starts from zero instead of reading it.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void kde_eval(__global const real* xs, ulong x_row0, uint n_pad, __global const real* ys, uint m,
              __global real* state, uint first, ulong sample_base, ulong point_base) {
  xs += x_row0 * SAMPLE_STRIDE;
  const uint l = get_local_id(0);
  const uint i0 = get_group_id(0) * (WG * PPT) + l;  // point p is i0 + p * WG: coalesced loads

  real y[PPT][POINT_STRIDE];
  KSTATE acc[PPT];
#pragma unroll
  for (uint p = 0; p < PPT; ++p) {
    const uint i = i0 + p * WG;
    const bool in = i < m;
    for (uint k = 0; k < POINT_STRIDE; ++k) y[p][k] = in ? ys[(ulong)i * POINT_STRIDE + k] : RC(0.0);
    acc[p] = KSTATE_ZERO();
    if (in && !first) {
      acc[p].s = state[i];
      acc[p].c = state[m + i];
    }
  }

#if VARIANT == 0
#if VEC
#error "VEC is for the tiled variants"
#endif
  for (uint jb = 0; jb < n_pad; jb += CHUNK) {
    __global const real* xb = xs + (ulong)jb * SAMPLE_STRIDE;
    KDE_CHUNK(__global, xb, sample_base + jb)
  }
#else
#if VEC
  __local realv xlv[TILE * SV];
  __local real* xl = (__local real*)xlv;
#else
  __local real xl[TILE * SAMPLE_STRIDE];
#endif
  for (uint jb = 0; jb < n_pad; jb += TILE) {
    barrier(CLK_LOCAL_MEM_FENCE);
    __global const real* src = xs + (ulong)jb * SAMPLE_STRIDE;
#if VEC
    for (uint k = l; k < TILE * SV; k += WG) xlv[k] = ((__global const realv*)src)[k];
#else
    for (uint k = l; k < TILE * SAMPLE_STRIDE; k += WG) xl[k] = src[k];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = 0; c < TILE; c += CHUNK) {
      __local const real* xb = xl + c * SAMPLE_STRIDE;
      KDE_CHUNK(__local, xb, sample_base + jb + c)
    }
  }
#endif

#pragma unroll
  for (uint p = 0; p < PPT; ++p) {
    const uint i = i0 + p * WG;
    if (i < m) {
      state[i] = acc[p].s;
      state[m + i] = acc[p].c;
    }
  }
}

#else  // VARIANT == 3: simd

#define KDE_VT2(t, n) t##n
#define KDE_VT(t, n) KDE_VT2(t, n)
typedef KDE_VT(REAL, LANES) realL;
#ifdef REAL_DOUBLE
#define KDE_LANE_INT long  // the element type of a comparison mask of realL values
#else
#define KDE_LANE_INT int
#endif
typedef KDE_VT(KDE_LANE_INT, LANES) laneL;
#define KDE_VLOAD KDE_VT(vload, LANES)
#define KDE_VSTORE KDE_VT(vstore, LANES)
CSUM_DEFINE(realL, csumv)
KDE_SHAPES(realL, _v)

inline realL kde_term_v(const realL* y, __global const real* xr) {
#if DOT
  realL e = y[DIM] + xr[DIM];
  _Pragma("unroll") for (uint k = 0; k < DIM; ++k) e = fma(y[k], (realL)xr[k], e);
  return kde_shape_radial_v(-e);
#elif FORM == FORM_RADIAL
  realL q = (realL)RC(0.0);
  _Pragma("unroll") for (uint k = 0; k < DIM; ++k) {
    const realL t = y[k] - xr[k];
    q = fma(t, t, q);
  }
  return kde_shape_radial_v(q);
#else
  realL p = kde_shape1_v(y[0] - xr[0]);
  _Pragma("unroll") for (uint k = 1; k < DIM; ++k) p *= kde_shape1_v(y[k] - xr[k]);
  return p;
#endif
}

// Same arguments and state layout as the other variants; point p, lane l of work-item g is
// g * PPT * LANES + p * LANES + l.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void kde_eval(__global const real* xs, ulong x_row0, uint n_pad, __global const real* ys, uint m,
              __global real* state, uint first, ulong sample_base, ulong point_base) {
  xs += x_row0 * SAMPLE_STRIDE;
  const uint i0 = get_global_id(0) * (PPT * LANES);
  realL y[PPT][POINT_STRIDE];
  csumv acc[PPT];
#pragma unroll
  for (uint p = 0; p < PPT; ++p) {
    const uint ib = i0 + p * LANES;
    real lane[LANES];
    for (uint k = 0; k < POINT_STRIDE; ++k) {
      for (uint l = 0; l < LANES; ++l) lane[l] = ib + l < m ? ys[(ulong)(ib + l) * POINT_STRIDE + k] : RC(0.0);
      y[p][k] = KDE_VLOAD(0, lane);
    }
    acc[p] = csumv_zero();
    if (!first) {
      for (uint l = 0; l < LANES; ++l) lane[l] = ib + l < m ? state[ib + l] : RC(0.0);
      acc[p].s = KDE_VLOAD(0, lane);
      for (uint l = 0; l < LANES; ++l) lane[l] = ib + l < m ? state[m + ib + l] : RC(0.0);
      acc[p].c = KDE_VLOAD(0, lane);
    }
  }
#if LOO
  laneL iota;
  {
    KDE_LANE_INT lane_id[LANES];
    for (uint l = 0; l < LANES; ++l) lane_id[l] = (KDE_LANE_INT)l;
    iota = KDE_VLOAD(0, lane_id);
  }
#endif
  for (uint jb = 0; jb < n_pad; jb += CHUNK) {
    realL part[PPT];
#pragma unroll
    for (uint p = 0; p < PPT; ++p) part[p] = (realL)RC(0.0);
    __global const real* xb = xs + (ulong)jb * SAMPLE_STRIDE;
    for (uint j = 0; j < CHUNK; ++j) {
      __global const real* xr = xb + j * SAMPLE_STRIDE;
#pragma unroll
      for (uint p = 0; p < PPT; ++p) {
        realL t = kde_term_v(y[p], xr);
#if LOO
        // Lane l of vector p is the global point point_base + i0 + p * LANES + l.
        long off = (long)(sample_base + jb + j) - (long)(point_base + i0 + p * LANES);
        off = off >= 0 && off < LANES ? off : -1;  // no lane; and never wraps in the lane type
        t = select(t, (realL)RC(0.0), iota == (laneL)(KDE_LANE_INT)off);
#endif
#if WEIGHTED
        part[p] = fma((realL)xr[DIM + DOT], t, part[p]);
#else
        part[p] += t;
#endif
      }
    }
#pragma unroll
    for (uint p = 0; p < PPT; ++p) acc[p] = csumv_add(acc[p], part[p]);
  }
  for (uint p = 0; p < PPT; ++p) {
    const uint ib = i0 + p * LANES;
    real s[LANES], c[LANES];
    KDE_VSTORE(acc[p].s, 0, s);
    KDE_VSTORE(acc[p].c, 0, c);
    for (uint l = 0; l < LANES && ib + l < m; ++l) {
      state[ib + l] = s[l];
      state[m + ib + l] = c[l];
    }
  }
}
#endif  // VARIANT

// out[out_offset + i] = scale * (s + c) (or its log + log_scale), in acc_t so that a huge or tiny
// normalising constant neither overflows nor loses digits before the final rounding to real.
// PER_POINT: each point's value is further divided by point_div[i] (weighted leave-one-out:
// 1 - w_i, the weight that remains once the point's own sample is left out).
__kernel void kde_finish(__global const real* state, uint m, acc_t scale, acc_t log_scale,
                         __global const real* point_div, __global real* out, ulong out_offset) {
  const uint i = get_global_id(0);
  if (i >= m) return;
  const real s = state[i], c = state[m + i];
  acc_t v = isfinite(s) ? (acc_t)s + (acc_t)c : (acc_t)s;
#if PER_POINT
  v /= (acc_t)point_div[i];
#endif
#if LOG_DENSITY
  out[out_offset + i] = (real)(log(v) + log_scale);
#else
  out[out_offset + i] = (real)(v * scale);
#endif
}
