// FAST-LTS and LMS starts on a block of at most M rows, one work-group per start (issue 7, robust
// regression). A block is a set of rows held contiguously in z (row-major, Q columns, the
// intercept's column of ones included) and y; several blocks can share one launch (the nested
// extension's subsets).
//
// MODE 0, LTS C-steps (Rousseeuw & Van Driessen 2006, sec. 2, Theorem 1): from beta, sort the
// squared residuals with their row numbers (ties by lower row, so the h-subset is well defined),
// Q(beta) = the sum of the h smallest; refit the h rows by least squares (normal equations,
// Cholesky); repeat until Q stops decreasing or max_steps refits. Theorem 1 makes Q
// non-increasing, so the first step without a decrease is a fixed point: the previous beta is
// kept. The data are standardised on the host, which keeps the normal equations well
// conditioned; the final fit is recomputed on the host by QR.
// MODE 1, LMS with intercept adjustment (Rousseeuw 1984; MASS::lqs): sort the signed residuals;
// the criterion is (w / 2)^2 for the shortest window w = r_(j+h-1) - r_(j), i.e. the h-th
// smallest squared residual once the intercept moves to the window's middle.
// MODE 2, LMS without adjustment: the h-th smallest squared residual.
//
// Options: Q coefficients (<= 32), M local sort size (a power of two >= the largest block), WG,
// TILE rows staged per gram step, MODE, NACC = ceil(NE (NE + 1) / 2 / WG).
// Sums run in a fixed order (the sorted order, one work-item per gram entry), so results do not
// depend on WG.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#include "robust_common.clh"

// Bitonic sort of M (key, row) pairs, ascending by key then row. The caller has written every
// pair and ends with a barrier of its own after this returns.
inline void sort_pairs(__local double* key, __local uint* row, uint l) {
  for (uint size = 2; size <= M; size <<= 1) {
    for (uint stride = size >> 1; stride > 0; stride >>= 1) {
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint t = l; t < M / 2; t += WG) {
        const uint a = 2 * t - (t & (stride - 1));
        const uint b = a + stride;
        const bool up = (a & size) == 0;
        const double ka = key[a], kb = key[b];
        const uint ra = row[a], rb = row[b];
        const bool greater = ka > kb || (ka == kb && ra > rb);
        if (greater == up) {
          key[a] = kb;
          key[b] = ka;
          row[a] = rb;
          row[b] = ra;
        }
      }
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Solves g x = rhs for the q x q symmetric g (row stride NE) by Cholesky, in place in g; returns
// 0 when a pivot falls below 1e-14 of its diagonal (numerically singular). One work-item. q is
// Q passed at run time: with a compile-time bound NVIDIA's compiler unrolls the triple loop
// completely (32^3 bodies at Q = 32) and takes minutes.
inline int cholesky_solve(__local double* g, __local double* x, uint q) {
  for (uint j = 0; j < q; ++j) {
    const double djj = g[j * NE + j];
    double d = djj;
    for (uint k = 0; k < j; ++k) d -= g[j * NE + k] * g[j * NE + k];
    if (!(d > 1e-14 * djj)) return 0;
    d = sqrt(d);
    g[j * NE + j] = d;
    for (uint i = j + 1; i < q; ++i) {
      double s = g[i * NE + j];
      for (uint k = 0; k < j; ++k) s -= g[i * NE + k] * g[j * NE + k];
      g[i * NE + j] = s / d;
    }
  }
  for (uint i = 0; i < q; ++i) {  // L u = rhs (rhs in column Q)
    double s = g[i * NE + Q];
    for (uint k = 0; k < i; ++k) s -= g[i * NE + k] * x[k];
    x[i] = s / g[i * NE + i];
  }
  for (uint i = q; i-- > 0;) {  // L' x = u
    double s = x[i];
    for (uint k = i + 1; k < q; ++k) s -= g[k * NE + i] * x[k];
    x[i] = s / g[i * NE + i];
  }
  return 1;
}

__kernel void lts_block(__global const double* z, __global const double* y, __global const uint* blk_off,
                        __global const uint* blk_m, __global const uint* blk_h, __global const uint* start_blk,
                        __global double* beta, __global double* obj, __global uint* steps, uint max_steps,
                        uint first, uint q_run) {
  __local double key[M];
  __local uint row[M];
  __local double tile[TILE * NE];
  __local double g[Q * NE];
  __local double be[Q], prev_be[Q], x[Q];
#if MODE == 1
  __local double best_w[WG];
#endif
  __local int done;
  __local double prev_q, cur_q;
  __local uint nsteps;

  const uint s = first + get_group_id(0), l = get_local_id(0);
  const uint bk = start_blk[s];
  const uint off = blk_off[bk], m = blk_m[bk], h = blk_h[bk];
  if (l < Q) be[l] = beta[(ulong)s * Q + l];
  if (l == 0) {
    done = 0;
    prev_q = INFINITY;
    nsteps = 0;
  }
  for (;;) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = l; i < M; i += WG) {
      if (i < m) {
        __global const double* zi = z + (ulong)(off + i) * Q;
        double r = y[off + i];
        for (uint j = 0; j < Q; ++j) r -= zi[j] * be[j];
        key[i] = MODE == 1 ? r : r * r;
        row[i] = i;
      } else {
        key[i] = INFINITY;
        row[i] = 0xffffffffu;
      }
    }
    sort_pairs(key, row, l);
#if MODE == 0
    if (l == 0) {
      double qv = 0.0;
      for (uint i = 0; i < h; ++i) qv += key[i];
      cur_q = qv;
      if (!(qv < prev_q)) {  // no decrease: the previous beta is a fixed point
        done = 1;
        for (uint j = 0; j < Q; ++j) be[j] = prev_be[j];
        cur_q = prev_q;
      } else if (nsteps >= max_steps) {
        done = 2;
      }
      prev_q = cur_q;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (done) break;
    // Gram matrix of [z y] over the h rows, one work-item per upper-triangle entry.
    double acc[NACC];
    for (uint a = 0; a < NACC; ++a) acc[a] = 0.0;
    for (uint t0 = 0; t0 < h; t0 += TILE) {
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint u = l; u < TILE * NE; u += WG) {
        const uint tr = u / NE, c = u - tr * NE;
        double v = 0.0;
        if (t0 + tr < h) {
          const uint i = off + row[t0 + tr];
          v = c < Q ? z[(ulong)i * Q + c] : y[i];
        }
        tile[u] = v;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      for (uint a = 0; a < NACC; ++a) {
        const uint e = l + a * WG;
        if (e < NTRI) {
          uint ra, cb;
          tri_entry(e, &ra, &cb);
          double sacc = acc[a];
          for (uint tr = 0; tr < TILE; ++tr) sacc += tile[tr * NE + ra] * tile[tr * NE + cb];
          acc[a] = sacc;
        }
      }
    }
    for (uint a = 0; a < NACC; ++a) {
      const uint e = l + a * WG;
      if (e < NTRI) {
        uint ra, cb;
        tri_entry(e, &ra, &cb);
        if (ra < Q) g[ra * NE + cb] = acc[a];  // rows of z only; column Q holds z'y
        if (cb < Q) g[cb * NE + ra] = acc[a];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
      for (uint j = 0; j < Q; ++j) prev_be[j] = be[j];
      if (cholesky_solve(g, x, q_run)) {
        for (uint j = 0; j < Q; ++j) be[j] = x[j];
        ++nsteps;
      } else {
        done = 3;  // the h rows are (numerically) rank deficient: keep beta and its Q
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (done) break;
#else
    // LMS: the criterion of this start's fit, then stop.
#if MODE == 1
    double bw = INFINITY;
    for (uint j = l; j + h <= m; j += WG) bw = fmin(bw, key[j + h - 1] - key[j]);
    const double w = group_min(best_w, bw, l);
    if (l == 0) cur_q = 0.25 * w * w;
#else
    if (l == 0) cur_q = key[h - 1];
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
    break;
#endif
  }
  if (l < Q) beta[(ulong)s * Q + l] = be[l];
  if (l == 0) {
    obj[s] = cur_q;
    steps[s] = nsteps | (done == 1 || done == 3 ? 0x80000000u : 0u);  // high bit: converged
  }
}
