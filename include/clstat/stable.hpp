// The alpha-stable family: density and distribution function on the device (Nolan 1997; the
// device layout of Julian-Moreno, Lopez de Vergara, Gonzalez et al. 2017, sec. 3.1).
//
// Parameterisations (Nolan's): X ~ S(alpha, beta, gamma, delta; k).
//   S1 (k = 1): the characteristic function exp(-gamma^a |t|^a (1 - i beta sgn(t) tan(pi a / 2)) + i delta t)
//               for alpha != 1, and exp(-gamma |t| (1 + i beta (2/pi) sgn(t) log|t|) + i delta t) for
//               alpha = 1 (Samorodnitsky and Taqqu; scipy.stats.levy_stable's "S1").
//   S0 (k = 0): the same law with delta0 = delta1 + beta gamma tan(pi alpha / 2) (alpha != 1) or
//               delta0 = delta1 + beta (2/pi) gamma log(gamma) (alpha = 1): continuous in alpha and
//               in beta, the default (R stabledist's pm = 0, libstable's 0).
// Ranges: alpha in (0, 2], beta in [-1, 1], scale gamma > 0, loc delta finite; anything else
// throws std::invalid_argument naming the parameter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clstat/export.hpp"
#include "clstat/runtime.hpp"

namespace clstat::stable {

enum class Param { S0 = 0, S1 = 1 };

struct Params {
  double alpha = 2;
  double beta = 0;
  double scale = 1;  ///< gamma
  double loc = 0;    ///< delta, in the parameterisation `param`
  Param param = Param::S0;
};

/// Throws std::invalid_argument unless alpha in (0, 2], beta in [-1, 1], scale > 0 and finite,
/// loc finite.
CLSTAT_EXPORT void check(const Params& p);

/// The same law in S0 or S1: only loc changes (see above). Exact formulas; O(1).
CLSTAT_EXPORT Params to_s0(const Params& p);
CLSTAT_EXPORT Params to_s1(const Params& p);

/// Which functions an evaluation computes: a bit mask of these.
enum Fn : unsigned { fn_pdf = 1, fn_cdf = 2, fn_sf = 4, fn_logpdf = 8 };

/// The functions asked for, each n values (the others empty). Error estimates (when asked for):
/// the sum over the quadrature's accepted subintervals of |Kronrod 15 - Gauss 7|, scaled like the
/// value, plus the rounding of the integrand's exponent (which grows as 1e-16 / |alpha - 1|) and,
/// near alpha = 1, the interpolation's error (see evaluate); logpdf's is the pdf's relative error
/// estimate.
struct Values {
  std::vector<double> pdf, cdf, sf, logpdf;
  std::vector<double> pdf_error, cdf_error, sf_error, logpdf_error;
};

/// Many points of one law (evaluate, pdf_cdf, pdf, logpdf, cdf, sf, quantile, isf and the
/// device-resident evaluate_async, from the context's tunable stable.interp_points points, 2^15 by
/// default; not the _each forms): the values come from the law's interpolant, a piecewise
/// Chebyshev polynomial (degree 16) of log f and of the log of the smaller tail probability in
/// s = asinh((z - c) / w), built on the device from the quadrature below at its pieces' nodes and
/// checked against it between them, pieces halved until they match (rel_tol / 2 in log f,
/// rel_tol / 10 in the log tail, plus half the quadrature's own estimate). It is built once per
/// (alpha, beta, rel_tol) and kept by the context (the 15 laws used last; scale and location do
/// not enter; thread-safe: threads asking for a new law at once may each build it, one is kept):
/// 3e3 to 3e4 quadrature evaluations, 4 to 30 ms on an H100, 0.1 to 1 s on 16 CPU cores. Each
/// point then costs a lookup and two sums: 2e10 points/s on the H100
/// (bench/results/2026-11-24-h100-nvidia-stable-law.json). Where a piece never matched, a value
/// underflows or the quadrature's own estimate exceeds 1e-8, the quadrature answers. Error
/// estimates: three times the nodes' largest (the polynomial's Lebesgue constant is below 3) plus
/// twice the largest deviation seen at the checks, plus the rounding of s times the slope. Against the quadrature on 1e6 points per law (the 18 bench laws
/// and alpha = 1 +- 5e-4, tests/test_stable_interp.cpp on the H100) every value is within the two
/// estimates plus 1e-13 relative, the pdf within 1e-12 relative wherever the quadrature's
/// estimate is below 1e-13 and the pdf above 1e-20. The choice depends on n and the tuning only,
/// so a call's result never depends on earlier calls; the interpolant and the quadrature differ
/// in the last digits (within those bounds). cdf + sf is 1 to rounding from the interpolant.
///
/// The functions in `fns` at x[0 .. n), all in one device pass (the pdf and the cdf share the
/// integrand's peak: the paper's PCDF), fp64, one law for all points.
///   pdf, logpdf: the density and its logarithm. logpdf is integrated with its own scale shift, so
///     it is finite wherever the density is positive, also where the density underflows a double
///     (the light tail of a |beta| = 1 law); -inf outside the support. In the far heavy tails
///     (|x - zeta| / scale >= max(1e18 (1 + |zeta|), 10^(19 / alpha)), alpha != 1) both come from
///     the tail series' first term, alpha c_alpha (1 +- beta) |x|^-(1+alpha), which is the density
///     to double precision there (its next terms are below 1e-17 of it).
///   cdf, sf: P(X <= x) and P(X > x), each computed directly (never as 1 - the other), so a tail
///     of 1e-300 keeps its digits.
/// Near alpha = 1 (0 < |alpha - 1| < 1e-3) the S0 law is interpolated in alpha through
///   alpha = 1 and 1 +- 1e-3, 1 +- 2e-3 (degree 4, in the logarithms of pdf, cdf and sf), because
///   Nolan's integrals lose about 1e-16 / |alpha - 1| there (at alpha = 1.0000000001, beta = 0.8
///   the cdf read 0.9998 where it is 0.0113); it costs five evaluations a point. Against 40-digit
///   values at alpha = 1 +- 10^-k, k = 3..15, beta in {+-0.5, +-1}, x in [-30, 30]
///   (tools/golden/stable_near_one.py), the pdf is within 5e-12 relative, cdf and sf within
///   2e-13 absolute and quantiles within 2e-12 relative (worst seen 2.9e-12, 1.1e-13, 1.5e-12),
///   continuous across alpha = 1; in the light tail of |beta| = 1 (pdf below 1e-6) the pdf's
///   relative error grows and stays within its error estimate. S0 input is exact there; S1 input
///   is converted to S0 first, which costs 1e-16 of |zeta| = |beta tan(pi alpha / 2)| in the
///   location (the S1 parameterisation itself is discontinuous at alpha = 1).
/// Points outside the support (beta = +-1, alpha < 1) give exactly pdf 0, logpdf -inf and cdf 0
/// or 1. NaN x gives NaN. `rel_tol`: the quadrature refines until the sum of |K15 - G7| is within
/// rel_tol of the value (default 1e-13); that sum is G7's error, and K15's (the value returned)
/// is usually far smaller: Nolan's tables are matched to 3.7e-13 relative (pdf, the tables' own
/// precision) and 1.2e-14 absolute (cdf). Looser targets save time but lose that margin where
/// e^-g falls steeply (at 1e-12, 2 points in 1e6 were 3e-11 off). O(n) device work of a few
/// hundred integrand evaluations per point and function (a lookup and two sums through the
/// interpolant); no limit on n beyond device memory. At alpha = 1, beta != 0, the density's
/// estimate includes the rounding of the integrand's exponent, |z| pi / (2 |beta|) ulps: beyond
/// |z| = 1e5 it is the density's largest error, and beyond 1e15 no digit is right (the estimate
/// exceeds the value). Throws std::invalid_argument for bad
/// parameters, an empty `fns`, a null x with n > 0 or rel_tol outside (0, 1e-3); UnsupportedFeature
/// on a device without fp64.
CLSTAT_EXPORT Values evaluate(const Context& ctx, unsigned fns, const double* x, std::size_t n, const Params& p,
                              bool errors = false, double rel_tol = 1e-13);

/// The batched form: element i has its own law params[i] (any mix of alpha, beta, scale, loc and
/// parameterisation). Same outputs, cost and errors as evaluate (a bad params[i] names its index).
CLSTAT_EXPORT Values evaluate_each(const Context& ctx, unsigned fns, const double* x, const Params* params,
                                   std::size_t n, bool errors = false, double rel_tol = 1e-13);

/// Device-resident and asynchronous: n points from element x_offset of x to out from element
/// out_offset, on queue q after `wait`; returns the last command's event and transfers nothing to
/// the host. out receives k n values (k = the number of functions in fns, twice that with errors),
/// in the order pdf, cdf, sf, logpdf, then their errors in the same order, n apart. At a nonzero
/// offset the points (or results) pass through a device copy. Throws std::invalid_argument for
/// short buffers, else as evaluate.
CLSTAT_EXPORT Event evaluate_async(const Queue& q, unsigned fns, const Buffer<double>& x, std::size_t x_offset,
                                   std::size_t n, const Params& p, const Buffer<double>& out, std::size_t out_offset,
                                   bool errors = false, double rel_tol = 1e-13, const std::vector<Event>& wait = {});

/// Asynchronous host-array form of evaluate (clstat/runtime.hpp): runs on q after `wait`; x must
/// stay valid until the Future is ready. Throws as evaluate, before anything is enqueued.
CLSTAT_EXPORT Future<Values> evaluate_async(const Queue& q, unsigned fns, const double* x, std::size_t n,
                                            const Params& p, bool errors = false, double rel_tol = 1e-13,
                                            const std::vector<Event>& wait = {});

/// Density and distribution function with error estimates (evaluate with fn_pdf | fn_cdf and
/// errors), kept for its name: the paper's PCDF.
struct PdfCdf {
  std::vector<double> pdf, cdf, pdf_error, cdf_error;
};
CLSTAT_EXPORT PdfCdf pdf_cdf(const Context& ctx, const double* x, std::size_t n, const Params& p,
                             double rel_tol = 1e-13);

/// One function alone (evaluate with that function and no error estimates).
CLSTAT_EXPORT std::vector<double> pdf(const Context& ctx, const double* x, std::size_t n, const Params& p);
CLSTAT_EXPORT std::vector<double> logpdf(const Context& ctx, const double* x, std::size_t n, const Params& p);
CLSTAT_EXPORT std::vector<double> cdf(const Context& ctx, const double* x, std::size_t n, const Params& p);
CLSTAT_EXPORT std::vector<double> sf(const Context& ctx, const double* x, std::size_t n, const Params& p);

/// As pdf, logpdf, cdf and sf, into caller memory: out holds n doubles; it may be x itself (in
/// place), else it must not overlap x. Nothing is allocated on the host: the device's values are
/// read straight into out. Reused across calls, out saves a fresh result's allocation and first
/// touch, which at 1e8 points (about 150 ms on the H200 machine, on huge pages) take about as
/// long as both transfers and 25 times the device's work. Bit for bit the vector form's values, at
/// its cost. Thread-safe: calls on one Context may run at once from several threads (each holds
/// a queue of its own), given outs that do not overlap. Throws as that form, and
/// std::invalid_argument for a null out with n > 0.
CLSTAT_EXPORT void pdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out);
CLSTAT_EXPORT void logpdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out);
CLSTAT_EXPORT void cdf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out);
CLSTAT_EXPORT void sf(const Context& ctx, const double* x, std::size_t n, const Params& p, double* out);

/// Log-likelihoods of one data set x[0 .. n) under each of the laws in `laws`: sum_i logpdf(x_i),
/// -inf where a point lies outside a law's support. One device pass for all laws: x is uploaded
/// once, each work-group sums its points' logpdf in a fixed order and the host adds the groups'
/// sums in long double, so a law's value depends only on x, the law and the device, not on the
/// other laws asked for. From stable.interp_points points each law's logpdf comes from its
/// interpolant, as logpdf's does (within the accuracy stated above); the interpolants the call
/// needs are built together, each refinement level of all of them in one quadrature pass, and
/// kept for the call only. Throws as evaluate, and for NaN in x. Thread-safe. Cost: laws.size()
/// n logpdf evaluations, plus a few thousand quadrature points per law when interpolated.
CLSTAT_EXPORT std::vector<double> log_likelihood(const Context& ctx, const double* x, std::size_t n,
                                                 const std::vector<Params>& laws);

/// Quantiles Q(p) (cdf(Q(p)) = p) and upper quantiles isf(q) (sf(isf(q)) = q) for probabilities
/// in [0, 1], to `tol` relative in x (default 1e-12). Each point runs a bracketed Newton iteration
/// on the device, on the smaller tail with its directly computed function (so p = 1e-12 and
/// 1 - 1e-12 are both solved to full relative accuracy). p = 0 or 1 gives the support's end
/// (+-inf, or the finite edge when alpha < 1 and beta = +-1). A probability outside [0, 1] or NaN
/// throws std::invalid_argument naming its index, or gives NaN there with nan_for_invalid.
/// Throws as pdf_cdf does, and for tol outside (0, 1e-3). Cost: 10 to 60 pdf/cdf evaluations a
/// point; from stable.interp_points probabilities, through the law's interpolant (see above), so
/// the root is the interpolant's, within its cdf's error over the pdf of the exact one.
CLSTAT_EXPORT std::vector<double> quantile(const Context& ctx, const double* p, std::size_t n, const Params& params,
                                           double tol = 1e-12, bool nan_for_invalid = false);
CLSTAT_EXPORT std::vector<double> isf(const Context& ctx, const double* q, std::size_t n, const Params& params,
                                      double tol = 1e-12, bool nan_for_invalid = false);

/// Asynchronous form of quantile (upper = false) and isf (upper = true); p must stay valid until
/// the Future is ready.
CLSTAT_EXPORT Future<std::vector<double>> quantile_async(const Queue& q, const double* p, std::size_t n,
                                                         const Params& params, bool upper = false, double tol = 1e-12,
                                                         bool nan_for_invalid = false,
                                                         const std::vector<Event>& wait = {});

/// Device-resident form of quantile (upper = false) and isf (upper = true): n probabilities from
/// element p_offset of p to n quantiles from element out_offset of out, on queue q after `wait`;
/// returns the last command's event and transfers nothing to the host (at a nonzero offset, one
/// device copy). A probability outside [0, 1] or NaN gives NaN (the device's data are not read
/// on the host). The first call on a law builds its table (and, from stable.interp_points
/// probabilities, its interpolant) on the calling thread. Cost as quantile. Throws
/// std::invalid_argument for short buffers, else as quantile (tol outside (0, 1e-3), bad
/// parameters, UnsupportedFeature without fp64).
CLSTAT_EXPORT Event quantile_async(const Queue& q, const Buffer<double>& p, std::size_t p_offset, std::size_t n,
                                   const Params& params, const Buffer<double>& out, std::size_t out_offset,
                                   bool upper = false, double tol = 1e-12, const std::vector<Event>& wait = {});

/// Batched quantiles: element i solves cdf(x) = prob[i] (upper = false) or sf(x) = prob[i]
/// (upper = true) under its own law params[i]. Same accuracy, cost and errors as quantile.
CLSTAT_EXPORT std::vector<double> quantile_each(const Context& ctx, const double* prob, const Params* params,
                                                std::size_t n, bool upper = false, double tol = 1e-12,
                                                bool nan_for_invalid = false);

/// n random numbers from the law, by Chambers, Mallows and Stuck (1976) with Weron's (1996)
/// correction (all alpha, alpha = 1 by its own formula), driven by Philox4x32-10: sample j (the
/// first is j = first) uses counter block (j, seed) only, so a seed gives the same stream on every
/// device and work-group size (the uniforms bit for bit; the transformed values up to the last
/// bits of each device's sin, cos, pow and log), and streams can be split by `first`. fp64.
/// The draws are S1 variates shifted to S0, so near alpha = 1 each carries an absolute error of
/// about 2e-16 |zeta| scale, |zeta| = |beta tan(pi alpha / 2)| (6e-8 scale at alpha = 1 + 1e-9,
/// beta = 0.5); the law is right to that resolution.
/// O(n) device work, one Philox block and a few transcendental calls per sample. Throws
/// std::invalid_argument for bad parameters, UnsupportedFeature on a device without fp64.
CLSTAT_EXPORT std::vector<double> sample(const Context& ctx, std::size_t n, const Params& p, std::uint64_t seed,
                                         std::uint64_t first = 0);

/// The same stream written into out[out_offset .. out_offset + n) on queue q, after `wait`;
/// returns the last command's event. No host transfer (at a nonzero offset, one device copy).
/// Throws std::invalid_argument for a short buffer.
CLSTAT_EXPORT Event sample_async(const Queue& q, const Buffer<double>& out, std::size_t out_offset, std::size_t n,
                                 const Params& p, std::uint64_t seed, std::uint64_t first = 0,
                                 const std::vector<Event>& wait = {});

}  // namespace clstat::stable
