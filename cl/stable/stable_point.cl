// Alpha-stable pdf and cdf, one work-item per point, fp64: Nolan's (1997) integral formulas, as
// restated in Julian-Moreno et al. 2017, eq. (3)-(11), evaluated by adaptive Gauss-Kronrod (7-15)
// on each side of the integrand's peak. This is the per-point variant the issue allows for CPU
// devices; it is also the reference for the work-group variant.
//
// Parameterisation. The formulas give the S0 density of unit scale and zero location (checked
// against Fourier inversion of the S1 characteristic function in mpmath: f_S1(x) = f_S0(x + zeta)
// with zeta = -beta tan(pi alpha / 2)). The host turns every point into z = (x - delta0) / gamma.
//   alpha != 1, z > zeta, xi = z - zeta:
//     theta0 = atan(beta tan(pi alpha / 2)) / alpha
//     log g(theta) = alpha/(alpha-1) log xi + log V(theta),
//     log V = log cos(alpha theta0)/(alpha-1) + alpha/(alpha-1) (log cos theta - log sin(alpha (theta0 + theta)))
//             + log cos(alpha theta0 + (alpha-1) theta) - log cos theta
//     pdf = alpha / (pi xi |alpha-1|) int_{-theta0}^{pi/2} g e^-g,
//     cdf = c1 + sign(1-alpha)/pi int e^-g, c1 = (pi/2 - theta0)/pi (alpha < 1) or 1 (alpha > 1);
//   z < zeta by reflection: f(z; beta) = f(-z; -beta), F(z; beta) = 1 - F(-z; -beta);
//   z = zeta: pdf = Gamma(1 + 1/alpha) cos(theta0) / (pi (1 + zeta^2)^(1/(2 alpha))), cdf = (pi/2 - theta0)/pi.
//   alpha = 1, beta > 0 (beta < 0 by reflection): log g = -pi z/(2 beta) + log(2/pi)
//     + log(pi/2 + beta theta) - log cos theta + (pi/2 + beta theta) tan(theta) / beta on (-pi/2, pi/2),
//     pdf = int g e^-g / (2 beta), cdf = int e^-g / pi;  beta = 0: Cauchy;  alpha = 2: N(0, 2).
// The integrands are evaluated from log g, so neither g nor V overflows in the far tails. log g is
// monotone in theta; the peak of g e^-g is where log g = 0, found by bisection, and each side is
// integrated adaptively to a relative tolerance of the side's first estimate.
// Outputs: pdf, cdf and sf with error estimates (sum of |K15 - G7| over the accepted panels), and
// quantiles.
#include "real.clh"

// PAIRED (default 1): two integrals share panels and log g evaluations (pv_t holds both); 0 builds
// the single-integral kernel for calls that need one integral a point (pdf, logpdf, cdf or sf
// alone), without the second lane's arithmetic and private memory.
#ifndef PAIRED
#define PAIRED 1
#endif
#if PAIRED
typedef double2 pv_t;
#define PV(x, y) ((double2)((x), (y)))
#define PV_Y(v) ((v).y)
#define PV_X(v) ((v).x)
#else
typedef double pv_t;
#define PV(x, y) (x)
#define PV_Y(v) 0.0
#define PV_X(v) (v)
#endif

#define PI 3.14159265358979323846

#include "gauss_kronrod.clh"

// tan(pi alpha / 2), from alpha - 1 where that is exact (alpha in [0.5, 1.5]), so it keeps its
// relative precision near the pole at alpha = 1 (src/stable/near_one.hpp does the same on the host).
inline double tan_pi_alpha_half(double alpha) {
  return alpha >= 0.5 && alpha <= 1.5 ? -1.0 / tan(0.5 * PI * (alpha - 1.0)) : tan(0.5 * PI * alpha);
}

typedef struct {
  int one;          // alpha == 1 form
  double alpha, beta, theta0, a1, c0, lxi;  // c0: the theta-free part of log V; lxi = log xi
  double ez;        // alpha = 1: -pi z / (2 beta) + log(2/pi)
  double E, D, F0;  // see log_g
  double sh;        // the pdf integrand is g e^-g e^-sh: logpdf's scale shift (0 for the pdf)
} Setup;

// log g at theta given as u = theta - lo and v = hi - theta (u + v = hi - lo): whichever is small
// is exact, so the factors that vanish at the ends (sin(alpha (theta0 + theta)) = sin(alpha u) at
// lo = -theta0, cos(theta) = sin(v) at hi = pi/2, and cos(theta) = sin(u) at lo = -pi/2 when
// alpha = 1) keep their relative precision; computing them from theta loses it to cancellation.
// log_g is a real function, not inlined at its 14 call sites: on the H100 that made pdf and cdf
// 1.2-1.6x faster and the cold build 9 s instead of 30 s (bench/results/README.md, "Stable,
// 2026-11-23").
__attribute__((noinline)) double log_g(const Setup* s, double u, double v) {
  if (s->one) {
    const double c = sin(u < v ? u : v);                            // cos(theta)
    const double tn = u < v ? -1.0 / tan(u) : 1.0 / tan(v);        // tan(theta)
    const double w = s->beta * u + (PI / 2) * (1 - s->beta);        // pi/2 + beta theta
    const double lw = c > 1e-290 ? log(w / c) : log(w) - log(c);   // one log where it cannot overflow
    return s->ez + lw + w * tn / s->beta;
  }
  const double a = s->alpha;
  // log cos(theta): cos(theta) = sin(v) = sin(E + u) with E = pi/2 - theta0, taken from the small
  // side. At beta = 1, alpha < 1, E is exactly 0 and cos(theta) vanishes at lo too; from v it
  // would read sin(pi - u) = 1.2e-16 for u = 1e-29, an absolute floor of 1e-16 in the light tail.
  const double c = u < v ? sin(s->E + u) : sin(v);
  // cos(alpha theta0 + (alpha - 1) theta), as a sine of a small argument near whichever end it
  // vanishes at (beta = 1, alpha < 1 at lo; beta = -1, alpha > 1 at hi), so it keeps its precision:
  //   = sin(E + (1 - alpha) u) with E = pi/2 - theta0,  = sin(D + (alpha - 1) v) with
  //   D = pi/2 - alpha theta0 - (alpha - 1) pi/2.
  const double ca = u < v ? sin(s->E + (1 - a) * u) : sin(s->D + (a - 1) * v);
  // sin(alpha (theta0 + theta)) = sin(alpha u) = sin(F0 + alpha v) with F0 = pi - alpha W, from the
  // small side: at beta = -1, alpha > 1, alpha W is exactly pi and this factor vanishes at hi too.
  const double sn = u < v ? sin(a * u) : sin(s->F0 + a * v);
  // log V - c0 = alpha/(alpha-1) (log c - log sn) + log ca - log c, as two logarithms of ratios
  // (one log fewer per node; a log is an eighth of a node's cost) unless a ratio could overflow.
  const double lv = c > 1e-290 && sn > 1e-290 ? s->c0 + s->a1 * log(c / sn) + log(ca / c)
                                              : s->c0 + s->a1 * (log(c) - log(sn)) + log(ca) - log(c);
  return s->a1 * s->lxi + lv;
}

// kind 0: g e^-g (scaled by e^-sh), kind 1: e^-g, kind 2: 1 - e^-g (by expm1, so it stays exact
// where g is small); -1: none. Two kinds from one log g, which is most of the cost.
inline double one_kind(const Setup* s, double lg, double g, int kind) {
  if (kind < 0) return 0.0;
  if (lg > 700) return kind == 2 ? 1.0 : 0.0;  // e^-g underflows long before g e^-g matters
  return kind == 0 ? exp(lg - g - s->sh) : kind == 1 ? exp(-g) : -expm1(-g);
}

inline pv_t integrand(const Setup* s, double u, double v, int k1, int k2) {
  const double lg = log_g(s, u, v);
  const double g = lg > 700 ? INFINITY : exp(lg);
  return PV(one_kind(s, lg, g, k1), one_kind(s, lg, g, k2));
}

// Over [l, r] in the coordinate d measured from one end of the whole interval (width W): d = u
// when from_lo, d = v otherwise. Kinds k1 and k2 (see integrand) in .x and .y; *err gets
// |K15 - G7| of each.
inline pv_t gk15(const Setup* s, double l, double r, double W, int from_lo, int k1, int k2, pv_t* err) {
  const double c = 0.5 * (l + r), h = 0.5 * (r - l);
  pv_t k = PV(0.0, 0.0), g = PV(0.0, 0.0);
  // One integrand call site, in loops the compiler must not unroll: unrolled, the 15 nodes put
  // 30 copies of the integrand (log_g's transcendentals) in every gk15, and NVIDIA's compiler
  // took about 90 s to build this file. The sums are the same: f = (0 + f(c - h x)) + f(c + h x).
#pragma unroll 1
  for (int j = 0; j < 8; ++j) {
    pv_t f = PV(0.0, 0.0);
#pragma unroll 1
    for (int t = 0; t < (j < 7 ? 2 : 1); ++t) {
      const double d = j < 7 ? (t ? c + h * gk_x[j] : c - h * gk_x[j]) : c;
      const double e = W - d;
      f += integrand(s, from_lo ? d : e, from_lo ? e : d, k1, k2);
    }
    k += gk_wk[j] * f;
    if (j & 1) g += gk_wg[j >> 1] * f;
  }
  *err = fabs((k - g) * h);
  return k * h;
}

// The peak: where log g crosses 0, as its distance ut from lo and vt from hi (ut + vt = W),
// whichever is small being the one searched, so a peak 1e-16 from an end (x near zeta) is found
// and kept. The search runs down to 1e-300 W from each end, halving the logarithm of the
// distance while the bracket spans more than a factor 8, then the distance itself. No crossing:
// the midpoint.
inline void peak(const Setup* s, double W, double* ut, double* vt) {
  const double h = 0.5 * W, tiny = 1e-300 * W;
  const double fm = log_g(s, h, W - h);
  const double fa = log_g(s, tiny, W - tiny), fb = log_g(s, W - tiny, tiny);
  *ut = h, *vt = W - h;
  if (!((fa < 0) != (fb < 0))) return;
  const int from_lo = (fa < 0) != (fm < 0);
  const int below = from_lo ? fa < 0 : fb < 0;  // the sign of log g at the searched end
  // Stop once both ends of the bracket lie in the peak's core, |log g| < 1 (where g e^-g is within
  // a factor e^(e-2) of its top): the panels are graded from the midpoint down to an eighth of the
  // peak's width, so a closer location buys nothing. (Bisecting to the last bit cost 200 log g
  // calls a point: the old test x1 - x0 > 1e-16 x1 never failed between neighbouring doubles.)
  double x0 = tiny, x1 = h, f0 = from_lo ? fa : fb, f1 = fm;
  for (int it = 0; it < 200 && !(fabs(f0) < 1 && fabs(f1) < 1); ++it) {
    const double m = x1 > 8 * x0 ? sqrt(x0) * sqrt(x1) : 0.5 * (x0 + x1);
    if (!(m > x0 && m < x1)) break;
    const double f = from_lo ? log_g(s, m, W - m) : log_g(s, W - m, m);
    if ((f < 0) == below) x0 = m, f0 = f;
    else x1 = m, f1 = f;
  }
  const double t = 0.5 * (x0 + x1);
  if (from_lo) *ut = t, *vt = W - t;
  else *vt = t, *ut = W - t;
}

// The whole integral over (lo, hi) of width W, around the peak at (ut, vt). The integrand's
// scale near the peak is at most the peak's distance p to the nearer end (1e-15 when x is near
// zeta, where all the mass sits in a sliver) and at most the peak's own width, so the panels are
// graded from the peak outwards, from d = min(p/64, width/8) growing 4-fold each panel towards
// both ends. Each
// panel is held in the coordinate of the end it lies nearer to (u from lo, v from hi), which keeps
// the points near either end exact. Then the panel with the largest |K15 - G7| is bisected until
// the sum of those is within rel * |value| or the panel budget is spent (the error estimate then
// says so).
// The panel budget per integral.
#define MAX_PANELS 128
// Two integrals at once (kinds k1 and k2, k2 = -1 for one) on the same panels, refined until
// both meet the tolerance; the panel split is the one with the largest error relative to its
// integral's total.
inline pv_t integral(const Setup* s, double W, double ut, double vt, int k1, int k2, double rel,
                     pv_t* err_out) {
  double pa[MAX_PANELS], pb[MAX_PANELS];
  pv_t pv[MAX_PANELS], pe[MAX_PANELS];
  int pl[MAX_PANELS];
  int m = 0;
  const int near_lo = ut <= vt;
  const double p = near_lo ? ut : vt;  // the peak in the near end's coordinate
  // The peak's own width, 1 / |d log g / d theta| there (by a central difference over 0.1% of p):
  // in the far tails of alpha = 1, log g changes by 1e8 per radian at the peak, and e^-g falls from
  // 1 to 0 within 1e-8 of it, far inside p / 64; a panel that wide lets all 15 nodes miss the step.
  const double hs = 1e-3 * p;
  const double l1 = near_lo ? log_g(s, p - hs, W - (p - hs)) : log_g(s, W - (p - hs), p - hs);
  const double l2 = near_lo ? log_g(s, p + hs, W - (p + hs)) : log_g(s, W - (p + hs), p + hs);
  const double slope = fabs(l2 - l1) / (2 * hs);
  const double width = slope > 0 && isfinite(slope) ? 1.0 / slope : p;
  const double d = fmax(fmin(p / 64, width / 8), 1e-300);
  // In the near coordinate c (0 at the near end, W at the far end); stored in the far end's
  // coordinate when the panel's midpoint is past W/2.
#define ADD_PANEL(A, B)                                             \
  {                                                                 \
    const double a_ = (A), b_ = (B);                                \
    if (b_ > a_ && m < MAX_PANELS - 1) {                            \
      if (0.5 * (a_ + b_) <= 0.5 * W) pa[m] = a_, pb[m] = b_, pl[m] = near_lo; \
      else pa[m] = W - b_, pb[m] = W - a_, pl[m] = !near_lo;        \
      ++m;                                                          \
    }                                                               \
  }
  // Graded panels: doubling for the first six (out to 8 peak widths, where e^-g falls from 1 to
  // nothing: with 4-fold growth a single panel spanned that cliff, and at alpha = 1, beta = 0.5,
  // x = 14.26398 its G7 and K15 agreed to 1e-12 while the cdf was 1.1e-11 off), 4-fold after,
  // at most 40 a side (so the panel budget is never hit before the ends are covered), none wider
  // than W/8.
  double prev = p;
  const double wide = 0.125 * W;
  for (double e = d; e < p && prev - (p - e) <= wide && m < 40; e *= e < 64 * d ? 2 : 4) {
    ADD_PANEL(p - e, prev)
    prev = p - e;
  }
  // The stretch beyond the graded panels, in pieces no wider than W/8: a panel wider than that
  // can hold the whole super-exponential rise of g towards an end (alpha = 1, beta = 0.5,
  // x = 1.8346555551711912: on (0.02, 0.94) rad G7 and K15 agreed to 1.7e-14 while both were
  // 5e-12 off, and the cdf with them).
  for (int k = 0, parts = (int)ceil(prev / wide); k < parts; ++k)
    ADD_PANEL(prev * (parts - k - 1) / parts, k == 0 ? prev : prev * (parts - k) / parts)
  prev = p;
  const int m_near = m;
  for (double e = d; p + e < W && p + e - prev <= wide && m - m_near < 40; e *= e < 64 * d ? 2 : 4) {
    ADD_PANEL(prev, p + e)
    prev = p + e;
  }
  {
    const double rest = W - prev;
    for (int k = 0, parts = (int)ceil(rest / wide); k < parts; ++k)
      ADD_PANEL(k == 0 ? prev : prev + rest * k / parts, k + 1 == parts ? W : prev + rest * (k + 1) / parts)
  }
#undef ADD_PANEL
  for (int k = 0; k < m; ++k) pv[k] = gk15(s, pa[k], pb[k], W, pl[k], k1, k2, &pe[k]);
  for (;;) {
    pv_t total = PV(0.0, 0.0), err = PV(0.0, 0.0);
    for (int k = 0; k < m; ++k) total += pv[k], err += pe[k];
    const pv_t scale = 1.0 / fmax(fabs(total), 1e-300);
    double worst = -1.0;
    int w = 0;
    for (int k = 0; k < m; ++k) {
      const double e = PV_X(pe[k]) * PV_X(scale) + (k2 >= 0 ? PV_Y(pe[k]) * PV_Y(scale) : 0.0);
      if (e > worst) worst = e, w = k;
    }
    // A panel at an end of the interval is cut at an eighth, not halved: at alpha < 1 (lo) and
    // alpha > 1 (hi) the integrand goes like a fractional power of the distance to that end
    // (g ~ u^(alpha/(1-alpha)), v^(1/(alpha-1))), so the error sits at the end, and halving took
    // 20 levels of two K15s each to bury it (alpha = 0.3); cutting at an eighth takes 7.
    const double mid = pa[w] == 0.0 ? 0.125 * pb[w] : 0.5 * (pa[w] + pb[w]);
    const int done = PV_X(err) <= rel * fabs(PV_X(total)) && (k2 < 0 || PV_Y(err) <= rel * fabs(PV_Y(total)));
    if (done || m == MAX_PANELS || !(mid > pa[w] && mid < pb[w])) {
      *err_out = err;
      return total;
    }
    pa[m] = mid, pb[m] = pb[w], pl[m] = pl[w];
    pb[w] = mid;
#pragma unroll 1
    for (int t = 0; t < 2; ++t) {  // the two halves, through one gk15 call site
      const int q = t ? m : w;
      pv[q] = gk15(s, pa[q], pb[q], W, pl[q], k1, k2, &pe[q]);
    }
    ++m;
  }
}

// Unit pdf, cdf and survival function with error estimates; `want` says which are needed
// (WANT_PDF | WANT_CDF | WANT_SF), and each costs one integral at most. alpha = 1 and alpha = 2: z
// is the S0 (= S1) standardised point (x - delta0) / gamma; otherwise z = (x - delta1) / gamma =
// z0 - zeta.
// F and S are each computed directly, never as 1 minus the other: on the side z > zeta (after the
// reflection), with I1 = int e^-g and I2 = int (1 - e^-g) (I1 + I2 = W = pi/2 + theta0),
//   alpha < 1: F = (pi/2 - theta0)/pi + I1/pi, S = I2/pi;
//   alpha > 1: F = (pi/2 - theta0)/pi + I2/pi, S = I1/pi;   alpha = 1: F = I1/pi, S = I2/pi;
// and the reflection swaps F and S. So a tail probability of 1e-300 keeps its digits.
#define WANT_PDF 1
#define WANT_CDF 2
#define WANT_SF 4
#define WANT_LOGPDF 8
#define WANT_ERROR 16
typedef struct {
  double pdf, cdf, sf, lpdf, epdf, ecdf, esf, elpdf;
} Values;

// log of the pdf integrand's largest value over the peak and the two ends (log g e^-g = lg - g):
// logpdf integrates g e^-g scaled by it, so a density below the smallest double (the light tail of
// a |beta| = 1 law, e^-(a large power of |x|)) still has a finite logarithm. 0 when nothing is finite.
inline double integrand_log_max(const Setup* s, double W, double ut, double vt) {
  const double tiny = 1e-300 * W;
  double m = -INFINITY;
  const double l0 = log_g(s, tiny, W - tiny), l1 = log_g(s, W - tiny, tiny), l2 = log_g(s, ut, vt);
  if (isfinite(l0)) m = fmax(m, l0 - exp(l0));
  if (isfinite(l1)) m = fmax(m, l1 - exp(l1));
  if (isfinite(l2)) m = fmax(m, l2 - exp(l2));
  return isfinite(m) ? m : 0.0;
}

inline Values stable_core(double z, double alpha, double beta, double rel, int want) {
  Values r = {0, 0, 0, 0, 0, 0, 0, 0};
  if (alpha == 2.0) {
    r.pdf = exp(-0.25 * z * z) / (2.0 * sqrt(PI));
    r.lpdf = -0.25 * z * z - log(2.0 * sqrt(PI));
    r.cdf = 0.5 * erfc(-0.5 * z);
    r.sf = 0.5 * erfc(0.5 * z);
    return r;
  }
  if (alpha == 1.0 && beta == 0.0) {  // Cauchy; each tail from atan(1/|z|) without cancellation
    r.pdf = 1.0 / (PI * (1.0 + z * z));
    // log(pi (1 + z^2)) without overflowing z^2 for |z| > 1e154
    r.lpdf = fabs(z) > 1.0 ? -log(PI) - 2.0 * log(fabs(z)) - log1p(1.0 / (z * z)) : -log(PI) - log1p(z * z);
    r.cdf = z < 0 ? atan(-1.0 / z) / PI : 0.5 + atan(z) / PI;
    r.sf = z > 0 ? atan(1.0 / z) / PI : 0.5 - atan(z) / PI;
    return r;
  }
  Setup s;
  double W, lead, pdf_scale;  // lead: the constant term of F on the z' > zeta' side
  int flip, tail_done = 0;
  double ec = 0.0;  // the rounding of log g, as a relative error (see the end)
  double ep = 0.0;  // alpha = 1: the same for the density alone
  if (alpha == 1.0) {
    flip = beta < 0;
    const double b = flip ? -beta : beta, zz = flip ? -z : z;
    s.one = 1, s.alpha = 1.0, s.beta = b, s.theta0 = 0, s.a1 = 0, s.c0 = 0, s.lxi = 0, s.E = 0, s.D = 0, s.F0 = 0;
    s.sh = 0;
    s.ez = -PI * zz / (2.0 * b) + log(2.0 / PI);
    // At the peak of g e^-g, log g = 0 is the difference of ez and (pi/2 + beta theta) tan(theta)
    // / beta, both of size |ez|: their rounding, |ez| ulps, moves the peak's steep flank, and the
    // density (the flank's slope) carries it as a relative error; the probabilities (where the
    // flank is) do not. Far out (|z| of 1e5 and more) this is the density's largest error, and
    // beyond 1e15 the density has no correct digit: the estimate says so.
    ep = DBL_EPSILON * (2.0 * fabs(s.ez) + 1.0);
    W = PI;
    lead = 0.0;
    pdf_scale = 1.0 / (2.0 * b);
  } else {
    const double tpa = tan_pi_alpha_half(alpha);
    if (z == 0.0) {
      const double zeta = -beta * tpa, th0 = atan(beta * tpa) / alpha;
      r.pdf = tgamma(1.0 + 1.0 / alpha) * cos(th0) / (PI * pow(1.0 + zeta * zeta, 1.0 / (2.0 * alpha)));
      r.lpdf = log(r.pdf);
      r.cdf = (PI / 2 - th0) / PI;
      r.sf = (PI / 2 + th0) / PI;
      return r;
    }
    flip = z < 0;
    const double b = flip ? -beta : beta;
    const double xi = fabs(z);
    s.one = 0, s.alpha = alpha, s.beta = b, s.sh = 0;
    // |beta| = 1 in closed form, so the factors that vanish at an end vanish exactly there:
    // atan(tan(pi alpha / 2)) is pi alpha / 2 (alpha < 1) or pi alpha / 2 - pi (alpha > 1). Then at
    // beta = 1, alpha < 1, theta0 = pi/2 makes E exactly 0 (and at beta = -1, W exactly 0: the
    // support's edge, density 0, whatever tan's last bit); at beta = -1, alpha > 1,
    // alpha theta0 = pi - alpha pi/2 makes D and F0 exactly 0 (alpha W = pi).
    const int pole = b == 1.0 || b == -1.0;
    s.theta0 = pole ? b * (alpha < 1 ? PI / 2 : PI / 2 - PI / alpha) : atan(b * tpa) / alpha;
    const int far_zero = pole && b < 0 && alpha > 1;
    s.E = PI / 2 - s.theta0;
    s.D = far_zero ? 0.0 : PI / 2 - alpha * s.theta0 - (alpha - 1) * (PI / 2);
    s.F0 = far_zero ? 0.0 : PI - alpha * (PI / 2 + s.theta0);
    s.a1 = alpha / (alpha - 1);
    // log cos(alpha theta0) / (alpha - 1) is of order log|alpha - 1| / (alpha - 1), so its
    // rounding is amplified 1/|alpha - 1|-fold in log g: cos(alpha theta0) = cos(atan(y)),
    // y = beta tan(pi alpha / 2), is taken as (1 + y^2)^-1/2 (at |beta| = 1, |cos(pi alpha / 2)| =
    // |sin(pi (alpha - 1) / 2)|), not as the cosine of an angle near pi/2 (at alpha = 1.002 that
    // cost 3e-12 in the pdf).
    const double y = b * tpa;
    s.c0 = (pole ? log(fabs(sin(0.5 * PI * (alpha - 1))))
                 : fabs(y) > 1e150 ? -log(fabs(y)) - 0.5 * log1p(1.0 / (y * y)) : -0.5 * log1p(y * y)) /
           (alpha - 1);
    s.lxi = log(xi);
    ec = DBL_EPSILON * (2.0 * fabs(s.a1 * s.lxi) + fabs(s.c0) + 1.0);
    s.ez = 0;
    W = PI / 2 + s.theta0;
    lead = (PI / 2 - s.theta0) / PI;
    pdf_scale = alpha / (PI * xi * fabs(alpha - 1));
    // The far heavy tail: f = alpha c_alpha (1 + b) xi^-(1+alpha) (1 + O(xi^-alpha) + O(zeta / xi)),
    // c_alpha = Gamma(alpha) sin(pi alpha / 2) / pi (Nolan 2020, Theorem 1.12; Zolotarev 1986, 2.4;
    // the series' second term is at most 12 xi^-alpha of the first). Past
    // xi >= max(1e18 (1 + |zeta|), 10^(19 / alpha)) both corrections are below 1e-17, so the first
    // term is the density to double precision, in log space: the quadrature's integrand there is a
    // spike too narrow for its panels (logpdf read -inf at 1e170 for alpha = 1.9).
    if ((want & (WANT_PDF | WANT_LOGPDF)) && b > -1.0 &&
        xi >= fmax(1e18 * (1.0 + fabs(beta * tpa)), exp10(19.0 / alpha))) {
      r.lpdf = log(alpha) + lgamma(alpha) + log(sin(PI * alpha / 2)) - log(PI) + log1p(b) - (1.0 + alpha) * log(xi);
      r.pdf = exp(r.lpdf);
      r.elpdf = 1e-17;
      r.epdf = 1e-17 * r.pdf;
      want &= ~(WANT_PDF | WANT_LOGPDF);
      tail_done = 1;
      ec = 0.0;
    }
  }
  // Which integral gives F' and which S' on the z' > zeta' side (see above).
  const int f_kind = (alpha < 1 || alpha == 1.0) ? 1 : 2;
  const int s_kind = 3 - f_kind;
  const int need_f = (want & (flip ? WANT_SF : WANT_CDF)) != 0;
  const int need_s = (want & (flip ? WANT_CDF : WANT_SF)) != 0;
  double Fp = lead, Sp = 0.0, eF = 0.0, eS = 0.0;
  if (!tail_done) r.lpdf = -INFINITY;  // outside the support (W = 0)
  if (W > 0) {
    double ut, vt, e;
    peak(&s, W, &ut, &vt);
    // The integrals needed, in pairs on shared panels: pdf (kind 0), F' (f_kind), S' (s_kind).
    int kinds[3], nk = 0;
    const int want_p = (want & (WANT_PDF | WANT_LOGPDF)) != 0;
    if (want_p) kinds[nk++] = 0;
    if (need_f) kinds[nk++] = f_kind;
    if (need_s) kinds[nk++] = s_kind;
    // logpdf: pdf = pdf_scale e^sh I with I = int g e^-g e^-sh; sh = 0 unless the logarithm is wanted.
    if (want & WANT_LOGPDF) s.sh = integrand_log_max(&s, W, ut, vt);
    for (int a = 0; a < nk; a += 1 + PAIRED) {
      const int k1 = kinds[a], k2 = PAIRED && a + 1 < nk ? kinds[a + 1] : -1;
      pv_t e2;
      const pv_t I2 = integral(&s, W, ut, vt, k1, k2, rel, &e2);
      for (int b = 0; b < 1 + PAIRED; ++b) {
        const int kind = b ? k2 : k1;
        const double I = b ? PV_Y(I2) : PV_X(I2), e = b ? PV_Y(e2) : PV_X(e2);
        if (kind == 0) {
          const double es = exp(s.sh);
          r.pdf = pdf_scale * es * I;
          r.epdf = pdf_scale * es * e;
          r.lpdf = log(pdf_scale) + s.sh + log(I);
          r.elpdf = I > 0 ? e / I : INFINITY;
        } else if (kind == f_kind && need_f) {
          Fp = lead + I / PI, eF = e / PI;
        } else if (kind == s_kind && need_s) {
          Sp = I / PI, eS = e / PI;
        }
      }
    }
  }
  // Probabilities are clamped to [0, 1]: where one side is the whole interval (the light tail
  // of |beta| = 1), lead + I / pi sums to 1 within the panels' rounding, a few ulps either way.
  r.cdf = clamp(flip ? Sp : Fp, 0.0, 1.0);
  r.sf = clamp(flip ? Fp : Sp, 0.0, 1.0);
  r.ecdf = flip ? eS : eF;
  r.esf = flip ? eF : eS;
  // The quadrature's estimate does not see the rounding of log g itself, which near alpha = 1 is
  // amplified: a1 log xi and c0 are of order log|alpha - 1| / (alpha - 1) and cancel at the peak.
  // Their rounding, as a relative error of every integral, is added to the estimates (at
  // alpha = 0.999 about 3e-12, where the errors measured were 1e-13; 1e-15 at alpha = 1.5).
  r.epdf += (ec + ep) * r.pdf, r.elpdf += ec + ep, r.ecdf += ec * r.cdf, r.esf += ec * r.sf;
  return r;
}

// Near alpha = 1 (0 < |alpha - 1| < STABLE_NEAR_ONE), z is the S0 coordinate and the law is
// interpolated in alpha. Nolan's integrand is exact there but not computable: its exponent is
// alpha/(alpha - 1) times a difference of numbers of order one, and zeta = -beta tan(pi alpha/2)
// is of order 1/(alpha - 1), so 1e-16 of rounding becomes 1e-16/|alpha - 1| in log g (at
// alpha = 1 + 1e-10 the cdf read 0.9998 where the answer is 0.395), and the peak of g e^-g narrows
// to about |alpha - 1| radians, fewer doubles than a quadrature needs. The S0 law is smooth in
// alpha (its characteristic function is: tan(pi alpha/2)(|t|^(1-alpha) - 1) -> (2/pi) log|t|),
// so the value at alpha is the degree-4 Lagrange interpolant through alpha = 1 (the closed
// alpha = 1 formulas) and alpha = 1 +- H, 1 +- 2H, H = STABLE_NEAR_ONE, where the integrals are
// accurate (zeta about 0.64 beta / H). The logarithms of pdf, cdf and sf are interpolated, not
// the values: in a heavy tail log f is nearly linear in alpha, and in the light tail of
// |beta| = 1 the values differ by orders of magnitude between the nodes while their logarithms
// do not. Where a node's value is 0 (outside its support, or underflowed) the values themselves
// are interpolated, clamped to [0, 1] for probabilities. Each error estimate adds the nodes'
// errors through the weights' magnitudes to the change from dropping the farthest node (the
// interpolation's own error, overestimated by an order). Cost: five evaluations a point.
// Checked against 40-digit values of Nolan's integrals at alpha = 1 +- 10^-k, k = 3..15
// (tools/golden/stable_near_one.py).
#ifndef STABLE_NEAR_ONE
#error "the host defines STABLE_NEAR_ONE (src/stable/near_one.hpp)"
#endif
#define NEAR_NODES 5

inline int near_one(double alpha) {
  const double d = alpha - 1.0;  // exact for alpha in [0.5, 2]
  return d != 0.0 && fabs(d) < STABLE_NEAR_ONE;
}

// The interpolant of node values y[k] at weights w[k] (sum 1): in logarithms when every node is
// positive, else in values; *e gets the nodes' errors ey[k] carried through |w[k]| plus |P - P'|,
// P' the interpolant without the node farthest from alpha (weights wd).
inline double near_combine(const double* y, const double* ey, const double* w, const double* wd, int log_space,
                           double* e) {
  int pos = 1;
  for (int k = 0; k < NEAR_NODES; ++k) pos &= y[k] > 0;
  double p = 0, pd = 0, en = 0;
  if (pos && log_space) {
    for (int k = 0; k < NEAR_NODES; ++k) {
      const double l = log(y[k]);
      p += w[k] * l, pd += wd[k] * l, en += fabs(w[k]) * ey[k] / y[k];
    }
    const double v = exp(p);
    *e = v * (en + fabs(p - pd));
    return v;
  }
  for (int k = 0; k < NEAR_NODES; ++k) p += w[k] * y[k], pd += wd[k] * y[k], en += fabs(w[k]) * ey[k];
  *e = en + fabs(p - pd);
  return p;
}

// The unit law at z: stable_core, or near alpha = 1 the interpolant above (z then in S0). One
// call site of stable_core for both, the nodes' values kept in arrays: laid out otherwise (two
// inlined copies, or running sums live across the integrals) pdf and cdf at alpha far from 1
// took 1.1 to 1.6 times as long on the H100, though the interpolation was never taken there.
inline Values stable_unit(double z, double alpha, double beta, double rel, int want) {
  const int near = near_one(alpha);
  const double d = alpha - 1.0, H = STABLE_NEAR_ONE;
  double dk[NEAR_NODES], w[NEAR_NODES], wd[NEAR_NODES];
  double pdf[NEAR_NODES], lpdf[NEAR_NODES], cdf[NEAR_NODES], sf[NEAR_NODES];
  double epdf[NEAR_NODES], elpdf[NEAR_NODES], ecdf[NEAR_NODES], esf[NEAR_NODES];
  // The pdf is interpolated through its logarithm, so every node computes logpdf (which stays
  // finite where the pdf underflows).
  const int node_want = near && (want & (WANT_PDF | WANT_LOGPDF)) ? (want | WANT_LOGPDF) : want;
  Values v;
#pragma unroll 1
  for (int k = 0; k < (near ? NEAR_NODES : 1); ++k) {
    dk[k] = (1.0 + (k - 2) * H) - 1.0;  // the node's alpha - 1, exactly
    const double a = near ? 1.0 + dk[k] : alpha;
    // A node's S1 coordinate: z - zeta, zeta = -beta tan(pi a / 2) (tan_pi_alpha_half keeps its
    // relative precision next to the pole).
    v = stable_core(near && dk[k] != 0.0 ? z + beta * tan_pi_alpha_half(a) : z, a, beta, rel, node_want);
    pdf[k] = v.pdf, lpdf[k] = v.lpdf, cdf[k] = v.cdf, sf[k] = v.sf;
    epdf[k] = v.epdf, elpdf[k] = v.elpdf, ecdf[k] = v.ecdf, esf[k] = v.esf;
  }
  if (!near) return v;
  const int drop = d > 0 ? 0 : NEAR_NODES - 1;  // the node farthest from alpha
  for (int k = 0; k < NEAR_NODES; ++k) {
    double l = 1.0, ld = 1.0;
    for (int j = 0; j < NEAR_NODES; ++j) {
      if (j == k) continue;
      l *= (d - dk[j]) / (dk[k] - dk[j]);
      if (j != drop) ld *= (d - dk[j]) / (dk[k] - dk[j]);
    }
    w[k] = l, wd[k] = k == drop ? 0.0 : ld;
  }
  Values r = {0, 0, 0, 0, 0, 0, 0, 0};
  if (want & (WANT_PDF | WANT_LOGPDF)) {
    int fin = 1;
    double lp = 0, lpd = 0, el = 0;
    for (int k = 0; k < NEAR_NODES; ++k) {
      fin &= isfinite(lpdf[k]);
      lp += w[k] * lpdf[k], lpd += wd[k] * lpdf[k], el += fabs(w[k]) * elpdf[k];
    }
    if (fin) {
      r.lpdf = lp, r.elpdf = el + fabs(lp - lpd);
      r.pdf = exp(lp), r.epdf = r.pdf * r.elpdf;
    } else {  // a node outside its support: interpolate the densities
      double e;
      r.pdf = fmax(near_combine(pdf, epdf, w, wd, 0, &e), 0.0);
      r.epdf = e, r.lpdf = log(r.pdf), r.elpdf = r.pdf > 0 ? e / r.pdf : INFINITY;
    }
  }
  if (want & WANT_CDF) r.cdf = clamp(near_combine(cdf, ecdf, w, wd, 1, &r.ecdf), 0.0, 1.0);
  if (want & WANT_SF) r.sf = clamp(near_combine(sf, esf, w, wd, 1, &r.esf), 0.0, 1.0);
  return r;
}

#include "stable_interp.clh"

// The unit law at z from the law's interpolant ip where it covers z, else stable_unit.
inline Values unit_values(__global const double* ip, double z, double alpha, double beta, double rel, int want) {
  Values v = {0, 0, 0, 0, 0, 0, 0, 0};
  if (ip_values(ip, z, want, &v)) return v;
  return stable_unit(z, alpha, beta, rel, want);
}

// Per-law parameters, PRM values each: alpha and beta; the scale gamma; the origin of the kernel's
// coordinate (delta0 for alpha = 1, 2 and near 1, else delta1; see stable_unit) as a double-double hi + lo,
// so a point 1e-12 from zeta keeps its digits whatever the size of delta (x - hi is exact there).
#define PRM 5
inline double standardise(__global const double* p, double x) { return ((x - p[3]) - p[4]) / p[2]; }

inline __global const double* law_of(__global const double* prm, __global const uint* pid, int laws, ulong i) {
  return prm + (laws == 0 ? 0 : PRM * (laws == 1 ? (ulong)pid[i] : i));
}

// Element i's parameters: prm[0] (laws = 0), prm[PRM pid[i]] (laws = 1) or prm[PRM i] (laws = 2,
// a law per element, with no index array to upload). Outputs, n apart, in
// this order and only those asked for in `want`: pdf, cdf, sf, logpdf, then with WANT_ERROR their
// error estimates in the same order (logpdf's is the pdf's relative error). ip: the law's
// interpolant (stable_interp.clh; one law for all elements), or a table of no cells.
__kernel void stable_eval(__global const double* x, ulong n, __global const double* prm,
                          __global const uint* pid, int laws, double rel, int want,
                          __global const double* ip, __global double* out) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  __global const double* p = law_of(prm, pid, laws, i);
  const double z = standardise(p, x[i]);
  // NaN in, NaN out (the probabilities' clamps and the near-one interpolation's fallbacks would
  // turn it into 0), for every output and error estimate.
  Values v;
  if (isnan(z)) v.pdf = v.cdf = v.sf = v.lpdf = v.epdf = v.ecdf = v.esf = v.elpdf = NAN;
  else v = unit_values(ip, z, p[0], p[1], rel, want);
  const double inv = 1.0 / p[2];
  const double val[4] = {v.pdf * inv, v.cdf, v.sf, v.lpdf - log(p[2])};
  const double err[4] = {v.epdf * inv, v.ecdf, v.esf, v.elpdf};
  int slot = 0;
  for (int k = 0; k < 4; ++k)
    if (want & (1 << k)) out[(ulong)(slot++) * n + i] = val[k];
  if (want & WANT_ERROR)
    for (int k = 0; k < 4; ++k)
      if (want & (1 << k)) out[(ulong)(slot++) * n + i] = err[k];
}

// Log-likelihoods: pair p (pair0 + dimension 1 of the range; a data set under one law) sums logpdf over
// the xn[p] points at x + xo[p] under the law at prm + PRM p, through that law's interpolant at
// ips + ipo[p] (a table of no cells: the quadrature). Group g of the pair (g < gp[p]) takes the
// points g WG + l, g WG + l + gp[p] WG, ...; each work-item adds its points in that order and the
// group adds the work-items' sums in a fixed tree (red: WG doubles), so pair p's partial g, at
// part[po[p] + g], depends only on its points, its law and WG and gp[p], which the host derives
// from the set's size: a set's log-likelihood has the same bits whatever else the call holds.
// The data hold no NaN (the host refuses them); a point outside the law's support adds -inf.
__kernel void stable_loglik(__global const double* x, __global const ulong* xo, __global const uint* xn,
                            __global const uint* gp, __global const ulong* po, __global const double* prm,
                            __global const ulong* ipo, __global const double* ips, double rel,
                            __global double* part, __local double* red, uint pair0) {
  const uint pr = pair0 + get_group_id(1), g = get_group_id(0), l = get_local_id(0), wg = get_local_size(0);
  const uint G = gp[pr];
  if (g >= G) return;  // the whole group: no barrier is reached
  __global const double* p = prm + PRM * pr;
  __global const double* xs = x + xo[pr];
  __global const double* ip = ips + ipo[pr];
  const uint n = xn[pr];
  const double lsc = log(p[2]);
  double s = 0.0;
  for (uint i = g * wg + l; i < n; i += G * wg) {
    const Values v = unit_values(ip, standardise(p, xs[i]), p[0], p[1], rel, WANT_LOGPDF);
    s += v.lpdf - lsc;
  }
  red[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  // wg need not be a power of two: fold the top down onto the largest power of two below it.
  uint h = 1;
  while (h * 2 < wg) h *= 2;
  for (; h > 0; h /= 2) {
    if (l < h && l + h < wg) red[l] += red[l + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) part[po[pr] + g] = red[0];
}

// Quantiles in the same standardised coordinate: q[i] is a lower-tail probability (upper = 0:
// solve F(z) = q) or an upper-tail one (upper = 1: S(z) = q). The tail of the smaller probability
// is the one solved (F(z) = p with p > 1/2 becomes S(z) = 1 - p, exact in double), each with its
// directly computed function. A bracket [lo, hi] is grown from zeta by factors of 4, then kept:
// Newton steps on the pdf when they stay inside it, else bisection (geometric while the bracket
// spans more than a factor 4 on one side of zeta). Stops at |hi - lo| <= tol max(|z|, 1e-300).
// q = 0 or 1 gives the support's end (+-inf, or zeta for alpha < 1, beta = +-1); NaN gives NaN.
// The increasing function whose root is sought: F(z) - t (lower) or t - S(z) (upper).
inline double residual(const Values* v, double t, int up) { return up ? t - v->sf : v->cdf - t; }

// With a table (K > 0; tab: z[K] ascending, then F, S and the pdf at those z): the bracket is the
// two nodes around t, from the directly computed tail of the side being solved, and the start
// is the inverse cubic Hermite interpolant through them (z as a function of F, or of -S, with
// slope 1/pdf), so Newton needs two to four steps. Beyond the
// table's last node on a side, and without a table, the bracket is grown outwards by factors of 4.
inline double unit_quantile(double t, double alpha, double beta, double rel, double tol, int upper,
                            __global const double* tab, int K, __global const double* ip) {
  int up = upper;
  if (!(t >= 0 && t <= 1)) {
    return NAN;
  }
  if (t > 0.5) t = 1.0 - t, up = !up;  // solve the smaller tail
  const int want = WANT_PDF | (up ? WANT_SF : WANT_CDF);
  // The support's end, zeta, is the origin for alpha < 1, beta = +-1; near alpha = 1 the
  // coordinate is S0, whose zeta is beyond 300 scale units, and the bracket finds it.
  const int edged = alpha < 1 && !near_one(alpha);
  const double lo_edge = (edged && beta == 1.0) ? 0.0 : -INFINITY;
  const double hi_edge = (edged && beta == -1.0) ? 0.0 : INFINITY;
  if (t == 0) {
    return up ? hi_edge : lo_edge;
  }
  Values v;
  double lo = 0.0, hi = 0.0, x = NAN;
  int grow = 0;  // -1: grow lo downwards from hi, +1: grow hi upwards from lo
  if (K > 0) {
    __global const double* z = tab;
    __global const double* G = up ? tab + 2 * K : tab + K;  // S (decreasing) or F (increasing)
    // G as increasing: F, or -S. Nodes a = k, b = k + 1 with Ginc(a) <= target < Ginc(b).
    const double target = up ? -t : t;
    const double g0 = up ? -G[0] : G[0], gl = up ? -G[K - 1] : G[K - 1];
    if (target < g0) {
      hi = z[0], grow = -1;
    } else if (target >= gl) {
      lo = z[K - 1], grow = 1;
    } else {
      int a = 0, b = K - 1;
      while (b - a > 1) {
        const int c = (a + b) / 2;
        if ((up ? -G[c] : G[c]) <= target) a = c;
        else b = c;
      }
      lo = z[a], hi = z[b];
      const double ga = up ? -G[a] : G[a], gb = up ? -G[b] : G[b];
      const double fa = tab[3 * K + a], fb = tab[3 * K + b], h = gb - ga;
      if (ga == target) return z[a];
      const double s1 = (target - ga) / h, s2 = s1 * s1, s3 = s2 * s1;
      x = fa > 0 && fb > 0 && h > 0
              ? (2 * s3 - 3 * s2 + 1) * z[a] + (s3 - 2 * s2 + s1) * h / fa + (3 * s2 - 2 * s3) * z[b] +
                    (s3 - s2) * h / fb
              : z[a] + s1 * (z[b] - z[a]);
      if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    }
  } else {
    v = unit_values(ip, 0.0, alpha, beta, rel, want);
    const double g0 = residual(&v, t, up);
    if (g0 == 0) return 0.0;
    if (g0 > 0) hi = 0.0, grow = -1;
    else lo = 0.0, grow = 1;
  }
  if (grow < 0) {  // the root is below hi: step down by 1, 4, 16, ... times max(|hi|, 1)
    double d = fmax(fabs(hi), 1.0);
    for (int k = 0; k < 600; ++k) {
      lo = hi - d;
      if (lo_edge == 0.0 && lo <= 0.0) { lo = 0.0; break; }
      if (lo < -1e300) break;
      v = unit_values(ip, lo, alpha, beta, rel, want);
      if (residual(&v, t, up) <= 0) break;
      hi = lo, d *= 4;
    }
  } else if (grow > 0) {
    double d = fmax(fabs(lo), 1.0);
    for (int k = 0; k < 600; ++k) {
      hi = lo + d;
      if (hi_edge == 0.0 && hi >= 0.0) { hi = 0.0; break; }
      if (hi > 1e300) break;
      v = unit_values(ip, hi, alpha, beta, rel, want);
      if (residual(&v, t, up) >= 0) break;
      lo = hi, d *= 4;
    }
  }
  if (isnan(x)) x = 0.5 * (lo + hi);
  // Converge 8 times tighter than asked: the last Newton step's size bounds the error in x, and
  // the residual in probability is that times x f(x) (up to about 0.4), so tol = 1e-12 in x keeps
  // |F(Q(p)) - p| below 1e-12 (1.65e-12 was measured with tol itself, alpha = 1, beta = 0.5).
  const double tx = 0.125 * tol;
  for (int it = 0; it < 300; ++it) {
    v = unit_values(ip, x, alpha, beta, rel, want);
    const double g = residual(&v, t, up);
    if (g == 0) break;
    if (g > 0) hi = x;
    else lo = x;
    if (hi - lo <= tx * fmax(fmax(fabs(lo), fabs(hi)), 1e-300)) break;
    // Converged when the Newton step is below the tolerance: tested before the bracket, since
    // the step from the point that just became an end of the bracket can round onto that end,
    // and the bisection that followed threw the converged point away (20 extra steps).
    const double step = v.pdf > 0 ? g / v.pdf : NAN;
    if (fabs(step) <= tx * fabs(x)) {
      x -= step;
      break;
    }
    double nx = x - step;
    if (!(nx > lo && nx < hi)) {
      const int same_side = (lo > 0 && hi > 0) || (lo < 0 && hi < 0);
      nx = same_side && hi > 4 * lo && lo > 0 ? sqrt(lo) * sqrt(hi)
           : same_side && lo < 4 * hi && hi < 0 ? -sqrt(-lo) * sqrt(-hi)
                                                 : 0.5 * (lo + hi);
    }
    if (fabs(nx - x) <= tx * fabs(x)) {
      x = nx;
      break;
    }
    x = nx;
  }
  return x;
}


// Element i: probability q[i], parameters as in stable_eval; out[i] = origin + scale z. With
// K > 0, tab is the unit law's table of unit_quantile; ip as in stable_eval (both for one law).
__kernel void stable_quantile(__global const double* q, ulong n, __global const double* prm,
                              __global const uint* pid, int laws, double rel, double tol, int upper,
                              __global const double* tab, int K, __global const double* ip,
                              __global double* out) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  __global const double* p = law_of(prm, pid, laws, i);
  out[i] = p[3] + (p[4] + p[2] * unit_quantile(q[i], p[0], p[1], rel, tol, upper, tab, K, ip));
}

// Random numbers: Chambers, Mallows and Stuck (1976) with Weron's (1996) correction, S1 unit law,
// from sample index `first + i` and the seed, through one Philox4x32-10 block per sample:
//   V = pi (u1 - 1/2), W = -log u2,
//   alpha != 1: B = atan(beta tan(pi alpha/2)) / alpha, S = (1 + beta^2 tan^2(pi alpha/2))^(1/(2 alpha)),
//     X = S sin(alpha (V + B)) / cos(V)^(1/alpha) (cos(V - alpha (V + B)) / W)^((1 - alpha)/alpha);
//   alpha = 1: X = (2/pi) ((pi/2 + beta V) tan V - beta log((pi/2) W cos V / (pi/2 + beta V))).
// Then y = scale X + shift (the host folds S0/S1 and alpha = 1's log-scale term into shift).
#include "philox.clh"

__kernel void stable_rng(__global double* out, ulong n, ulong first, uint key0, uint key1, double alpha,
                         double beta, double scale, double shift) {
  const ulong i = get_global_id(0);
  if (i >= n) return;
  const ulong j = first + i;
  const uint4 r = philox4x32_10((uint4)((uint)j, (uint)(j >> 32), 0x5eed57a6u, 0u), (uint2)(key0, key1));
  const double v = PI * (philox_unit(r.x, r.y) - 0.5);
  const double w = -log(philox_unit(r.z, r.w));
  double x;
  if (alpha == 1.0) {
    const double h = PI / 2 + beta * v;
    x = (2.0 / PI) * (h * tan(v) - beta * log((PI / 2) * w * cos(v) / h));
  } else {
    const double t = beta * tan(PI * alpha / 2);
    const double B = atan(t) / alpha, S = pow(1.0 + t * t, 1.0 / (2.0 * alpha));
    const double av = alpha * (v + B);
    x = S * sin(av) / pow(cos(v), 1.0 / alpha) * pow(cos(v - av) / w, (1.0 - alpha) / alpha);
  }
  out[i] = scale * x + shift;
}
