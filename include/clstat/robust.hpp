// clstat/robust.hpp: high-breakdown linear regression, least trimmed squares (LTS) by FAST-LTS and
// least median of squares (LMS), with the random starts and C-steps on the device, and
// MM-regression (lmrob); and robust location and scatter by the minimum covariance determinant
// (MCD, FAST-MCD).
//
// Model. y_i = b_0 + x_i . b + e_i with intercept (the default), or y_i = x_i . b + e_i without.
// x is a row-major n x p matrix of explanatory columns (without a column of ones), y has n
// values, all in double. q = p + 1 with intercept, else p, is the number of coefficients;
// coefficients are returned intercept first, then b_1..b_p, in the units of the data.
//
// Coverage. h = floor(2 floor((n + q + 1) / 2) - n + 2 (n - floor((n + q + 1) / 2)) alpha), as
// robustbase's h.alpha.n: alpha = 0.5 gives h = floor((n + q + 1) / 2), the highest breakdown
// point; alpha = 1 gives h = n (least squares). alpha must lie in [0.5, 1].
//
// Reproducibility. The random p-subsets (and, for large n, the random subsamples of the nested
// extension) are drawn on the host by Philox4x32-10 from `seed`, so a seed gives the same starts
// on every device; the C-steps sort and sum in a fixed order, so the fit does not depend on the
// work-group size or the number of work-groups.
//
// Errors (std::invalid_argument, naming the problem): n == 0 or null pointers; p == 0 (the
// location-only LTS is not provided); n <= 2q ("need more than twice as many observations as
// coefficients", as robustbase); a value of x or y that is NaN or infinite (its row named); a
// constant explanatory column (named; the intercept is the only constant column allowed);
// columns that are linearly dependent (x singular); alpha outside [0.5, 1]; nsamp == 0; too many
// coefficients (q > 32); exact enumeration of more than 2^25 p-subsets (or, for lts, with
// n > 2048); lms's h outside q + 1..n. OpenCL failures raise clstat::Error; a device without fp64 raises
// UnsupportedFeature.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clstat/export.hpp"
#include "clstat/runtime.hpp"

namespace clstat::robust {

struct LtsOptions {
  double alpha = 0.5;        // coverage, h as above
  bool intercept = true;     // add b_0
  std::size_t nsamp = 500;   // random p-subsets (starts), as robustbase's default
  bool exact = false;        // every p-subset as a start instead (C(n, q) of them, at most 2^25)
  std::uint64_t seed = 0x5eed5eedULL;
  bool use_correction = true;  // the small-sample factors of Pison, Van Aelst & Willems (2002)
  // A safety bound on the C-steps of each final run: they stop when the objective stops
  // decreasing (robustbase stops at its maxcsteps = 200); LtsFit::converged says which happened.
  int max_csteps = 1000;
};

struct LtsFit {
  std::size_t n = 0, q = 0, h = 0;  // observations, coefficients, coverage
  // The reweighted fit: least squares on the observations whose raw standardised residual is at
  // most qnorm(0.9875) = 2.2414 in absolute value (robustbase's coefficients, scale, lts.wt).
  std::vector<double> coefficients;
  double scale = 0;
  std::vector<double> residuals;        // y - fit, all n
  std::vector<unsigned char> weights;   // 1 where |residual / scale| <= 2.2414, else 0
  std::vector<std::size_t> outliers;    // 0-based rows with weight 0
  // The raw LTS fit: least squares on the best h-subset.
  std::vector<double> raw_coefficients;
  double raw_scale = 0;                      // consistency- and small-sample-corrected
  std::vector<unsigned char> raw_weights;
  std::vector<std::size_t> best;             // the h-subset, 0-based, ascending
  double objective = 0;   // sum of the h smallest squared raw residuals, in y's units squared
  double crit_robustbase = 0;  // objective / (MAD of y)^2, the number robustbase reports as crit
  double raw_cnp2[2] = {1, 1}, cnp2[2] = {1, 1};  // the factors applied, as robustbase's
  bool exact_fit = false;  // raw scale below 1e-7: at least h points lie on a hyperplane
  // Search record: starts tried, those whose p-subset was singular and had to be extended,
  // C-steps in the final runs, and whether the best final run stopped because its objective
  // stopped decreasing (false: it hit max_csteps).
  std::size_t starts = 0, singular_starts = 0;
  int csteps = 0;
  bool converged = false;
};

/// Least trimmed squares: minimises the sum of the h smallest squared residuals by FAST-LTS
/// (Rousseeuw & Van Driessen 2006), then the raw and reweighted fits and scales as robustbase's
/// ltsReg (0.95). Search: every start is a p-subset's exact fit (a singular subset grows by random
/// rows until it has full rank), improved by C-steps, each of which takes the h observations with
/// the smallest squared residuals (ties by lower row) and refits them by least squares.
///   n <= 2048: every start is C-stepped to convergence on the whole data, one work-group each.
///   n >  2048: robustbase's nested extension: 1500 random rows in 5 blocks of 300; nsamp / 5
///              starts per block with 2 C-steps there, the 10 best of each block with 2 C-steps
///              on the 1500 rows, then the 10 best of those C-stepped to convergence on all n
///              rows, where each C-step selects the h-th smallest squared residual exactly
///              (clstat::order) and uses the tie formula sum_{r^2 < t} r^2 + (h - #{r^2 < t}) t.
/// Work: O(nsamp (m q + m log^2 m + h q^2) C-steps) on the device for the starts (m = min(n,
/// 2048)), O(n q^2) per final C-step, and O(n q^2) on the host for the final fits (Householder
/// QR, as R's lm.fit). Memory: x and y on the device once, plus 10 n doubles.
CLSTAT_EXPORT LtsFit lts(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y,
                         const LtsOptions& o = {});
/// Asynchronous form (clstat/runtime.hpp): x and y must stay valid until the Future is ready.
CLSTAT_EXPORT Future<LtsFit> lts_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                                       const LtsOptions& options = {}, const std::vector<Event>& wait = {});

struct LmsOptions {
  std::size_t h = 0;         // the order statistic minimised; 0: floor((n + q + 1) / 2)
  bool intercept = true;
  bool adjust = true;        // optimise the intercept of every subset's fit (MASS's adjust)
  std::size_t nsamp = 3000;  // random p-subsets; every subset when C(n, q) <= nsamp
  bool exact = false;        // every p-subset (at most 2^25 of them)
  std::uint64_t seed = 0x5eed5eedULL;
};

struct LmsFit {
  std::size_t n = 0, q = 0, h = 0;
  std::vector<double> coefficients;  // intercept first
  double crit = 0;   // the h-th smallest squared residual of the fit
  // MASS's two scales: sqrt(crit) / qnorm((n + h) / (2n)), then the root mean square of the
  // residuals within 2.5 times it (with q degrees of freedom removed).
  double scale[2] = {0, 0};
  std::vector<double> residuals;
  std::vector<std::size_t> best;      // the p-subset (0-based, ascending) whose fit won
  std::vector<std::size_t> outliers;  // rows with |residual| > 2.5 scale[0]
  std::size_t starts = 0, singular_starts = 0;
  bool exhaustive = false;
};

/// Least median of squares, generalised to the h-th order statistic (Rousseeuw 1984): over the
/// exact fits through p-subsets (a singular subset is skipped), the one with the smallest h-th
/// squared residual; with adjust, each fit's intercept is first moved to the middle of the
/// shortest interval holding h of its residuals (the LMS location), as MASS::lqs. Random search
/// (nsamp subsets, as MASS) runs in two stages: half the subsets from all rows, the other half
/// from the h rows that the first half's best fit fits best, which concentrates the search on the
/// bulk of the data (with 30% outliers and q = 6, 12% of random subsets are clean, nearly all of
/// the second stage's). Over seeds its criterion is lower than MASS's with the same nsamp
/// (tests/data/robust/lms_search.txt); nsamp < 20 or h = n keep one stage. Ties go to the earlier
/// subset. n <= 2048: one work-group per subset sorts the residuals in local memory.
/// Larger n: the residuals of each subset are sorted (adjust) or selected (no adjust) in device
/// memory, subset by subset, O(n log n) or O(n) each.
CLSTAT_EXPORT LmsFit lms(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y,
                         const LmsOptions& o = {});
/// Asynchronous form (clstat/runtime.hpp): x and y must stay valid until the Future is ready.
CLSTAT_EXPORT Future<LmsFit> lms_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                                       const LmsOptions& options = {}, const std::vector<Event>& wait = {});

// ----------------------------------------------------------------------------------------------
// Minimum covariance determinant (MCD): robust location and scatter of a row-major n x p matrix x
// (p variables), as robustbase's covMcd (0.95) estimates them: the h-subset whose sample
// covariance has the smallest determinant, h = lts_coverage(alpha, n, p) (alpha = 0.5 gives
// floor((n + p + 1) / 2), the highest breakdown point), found by FAST-MCD (Rousseeuw & Van
// Driessen 1999); then
//   raw:         center = mean of the h-subset; cov = its covariance (divisor h - 1) times
//                raw_cnp2[0] raw_cnp2[1];
//   reweighted:  the rows whose squared Mahalanobis distance under the raw estimates is at most
//                cutoff = qchisq(0.975, p) (raw_weights) give the weighted mean and covariance
//                (divisor sum - 1), times cnp2[0] cnp2[1]; weights and outliers use the same
//                cutoff on the final distances (robustbase's mcd.wt).
// Factors: [0] makes the covariance consistent at the normal model, 1 / (F_{p+2}(q_a) / a) with
// a = h / n (raw) or sum(raw_weights) / n (reweighted) and q_a = qchisq(a, p) (Croux & Haesbroeck
// 1999; robustbase's MCDcons); [1] is the small-sample factor, the fitted curves of Pison, Van
// Aelst & Willems (2002) (robustbase's MCDcnp2 and MCDcnp2.rew), or 1 without use_correction.
// robustbase >= 0.93 replaces the curve at alpha = 0.5 by simulated values for small n, which
// clstat does not ship: there, with use_correction, its cov differs from covMcd's by the ratio
// of the two factors; without it they agree (tests/data/robust/mcd_r.txt).
// Search: nsamp random (p + 1)-subsets (Philox from seed; a singular one grows by random rows),
// two C-steps each (a C-step keeps the h rows of smallest distance under the current subset's
// mean and covariance, ties by lower row, which never raises the determinant), on all rows when
// n <= 600, else on 1500 random rows with coverage scaled to h / n; the 10 best are C-stepped to
// convergence on all n rows on the device (the distances, their h-th smallest by clstat::order,
// the next subset's moments summed by chunks in a fixed order). p = 1 is exact: the best h-subset
// is a run of h consecutive sorted values, all n - h + 1 of them compared.
// Work: O(nsamp (m p^2 + m log m)) for the starts (m = min(n, 1500), on the host's threads) and
// O(n p^2) per final C-step on the device, with p (p + 3) / 2 sums per 1024 rows read back.
// Errors (std::invalid_argument): n == 0 or a null pointer; p == 0 or p > 32; n <= 2 p; a NaN or
// infinite value (its row named); a constant column; alpha outside [0.5, 1]; nsamp == 0. An
// h-subset whose covariance is singular (h rows on a hyperplane) ends the search with exact_fit:
// the raw estimates of that subset are returned, unscaled, with no reweighting.
// Thread-safety and async form as lts. Results do not depend on the device.
struct McdOptions {
  double alpha = 0.5;
  std::size_t nsamp = 500;
  std::uint64_t seed = 0x5eed5eedULL;
  bool use_correction = true;
  int max_csteps = 1000;
};

struct McdFit {
  std::size_t n = 0, p = 0, h = 0;
  std::vector<double> center, cov;          // reweighted: p, and p x p row-major
  std::vector<double> raw_center, raw_cov;  // raw
  std::vector<std::size_t> best;            // the h-subset, 0-based, ascending
  double crit = 0;  // log det of the h-subset's covariance (divisor h - 1), as robustbase's crit
  double raw_cnp2[2] = {1, 1}, cnp2[2] = {1, 1};
  double cutoff = 0;                          // qchisq(0.975, p)
  std::vector<double> raw_mahalanobis, mahalanobis;  // squared distances of every row
  std::vector<unsigned char> raw_weights, weights;   // 1 where the distance is within the cutoff
  std::vector<std::size_t> outliers;                 // 0-based rows with weight 0
  bool exact_fit = false;
  std::size_t starts = 0, singular_starts = 0;
  int csteps = 0;          // C-steps of the winning final run
  bool converged = false;  // it stopped because the determinant stopped decreasing
};

CLSTAT_EXPORT McdFit mcd(const Context& ctx, const double* x, std::size_t n, std::size_t p, const McdOptions& o = {});
/// Asynchronous form (clstat/runtime.hpp): x must stay valid until the Future is ready.
CLSTAT_EXPORT Future<McdFit> mcd_async(const Queue& q, const double* x, std::size_t n, std::size_t p,
                                       const McdOptions& o = {}, const std::vector<Event>& wait = {});

// ----------------------------------------------------------------------------------------------
// MM-regression (Yohai 1987), as robustbase's lmrob with its default control: the model of lts
// (x row-major n x p without a column of ones, intercept first in the results).
//   S-estimate: the coefficients minimising the M-scale s of the residuals, the solution of
//               sum rho_chi(r_i / s) = (n - q) bb (Tukey's bisquare rho, normalised to 1 at
//               |r / s| >= tuning_chi = 1.54764, bb = 0.5: breakdown point 0.5), by fast-S
//               (Salibian-Barrera & Yohai 2006): nsamp random q-subsets' exact fits, one IRWLS
//               step each, the best two refined to convergence; past 2000 rows the subsets are
//               drawn from, and stepped on, 2000 random rows (lmrob's own large-n scheme differs).
//   M-step:     IRWLS from the S-estimate with s fixed and the bisquare psi at tuning_psi =
//               4.685061 (95% efficiency at the normal).
//   Standard errors: robustbase's .vcov.avar1 (Croux, Dhaene & Hoorelbeke 2003), made positive
//               semi-definite as its "posdefify" where rounding leaves a negative eigenvalue.
//   weights are psi(r / s) / (r / s) (robustbase's rweights); outliers have weight < 0.1 / n
//               (lmrob.control's eps.outlier).
// Convergence: both iterations stop when the coefficients move by at most rel_tol times their
// norm; the default 1e-10 is tighter than lmrob's 1e-7, so lmrob's results agree with these to
// about 1e-7 relative where both find the same S minimum (tests/data/robust/mm_r.txt).
// Work: O(nsamp (q^3 + m q)) on the host's threads for the subsets (m = min(n, 2000)); on the device, per
// refining or M-step iteration over all rows, one O(n q^2) pass for the weighted normal equations
// (x's columns standardised, the q x q system solved on the host) and O(n) per M-scale update;
// the standard errors take one O(n q^2) host pass. Sums over rows are added in a fixed order per
// device; other devices may round them differently (about 1e-16 relative). Errors (std::invalid_argument): n == 0 or null
// pointers, q == 0 or q > 32, n <= 2 q, NaN or infinite values (row named), linearly dependent
// columns, nsamp == 0, bad tuning constants, an S-scale of zero (more than half the points on a
// hyperplane). Random subsets by Philox from seed: the same fit for the same seed everywhere.
// Thread-safe as every call on a shared Context (clstat/runtime.hpp): a call leases one queue.
struct MmOptions {
  bool intercept = true;
  std::size_t nsamp = 500;
  std::uint64_t seed = 0x5eed5eedULL;
  double tuning_chi = 1.54764, tuning_psi = 4.685061, bb = 0.5;
  double rel_tol = 1e-10;
  int k_max = 200;  // S refinement iterations
  int max_it = 200;  // M-step iterations
};

struct MmFit {
  std::size_t n = 0, q = 0;
  std::vector<double> coefficients, std_errors;  // intercept first
  std::vector<double> cov;                       // q x q row-major, .vcov.avar1
  double scale = 0;                              // the S-scale, fixed in the M-step
  std::vector<double> init_coefficients;         // the S-estimate
  std::vector<double> residuals, weights;        // all n
  std::vector<std::size_t> outliers;             // 0-based rows with weight < 0.1 / n
  std::size_t starts = 0, singular_starts = 0;
  int iterations = 0;       // M-step iterations
  bool converged = false;   // both the S refinement and the M-step met rel_tol
};

CLSTAT_EXPORT MmFit mm(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y,
                       const MmOptions& o = {});
/// Asynchronous form (clstat/runtime.hpp): x and y must stay valid until the Future is ready.
CLSTAT_EXPORT Future<MmFit> mm_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                                     const MmOptions& o = {}, const std::vector<Event>& wait = {});

/// robustbase's h.alpha.n(alpha, n, q), the coverage above. O(1). Throws std::invalid_argument
/// for alpha outside [0.5, 1] or q > n.
CLSTAT_EXPORT std::size_t lts_coverage(double alpha, std::size_t n, std::size_t q);

}  // namespace clstat::robust
