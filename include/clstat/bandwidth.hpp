// clstat/bandwidth.hpp: bandwidth selection for kernel density estimation.
//
// Sources: Andrzejewski, Gramacki & Gramacki (2013), "Graphics processing units in acceleration of
// bandwidth selection for kernel density estimation", sec. 3.2 and 5-6; Wand & Jones (1995),
// "Kernel Smoothing", ch. 3-4 (checked formula by formula; the paper's eq. (9)/(11) misplace the
// diagonal term and its eq. (17) has a stray d^2, see src/bandwidth/*.cpp).
//
// Data are n x d row-major doubles (one observation a row), as in clstat/kde.hpp. Bandwidth
// matrices are d x d row-major. "S" below is the (n - 1)-denominator sample covariance.
//
// Errors (std::invalid_argument, naming the function and the problem): null data, n < 3, d = 0,
// NaN or infinite values, a column of zero variance, a singular S (collinear columns), bad
// options. LSCV selectors also reject duplicated observations: with two equal rows the LSCV
// objective goes to minus infinity as the bandwidth shrinks, so its minimiser is meaningless.
// Device work needs fp64 (clstat::UnsupportedFeature otherwise); device failures raise
// clstat::Error.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clstat/export.hpp"
#include "clstat/runtime.hpp"

namespace clstat::bandwidth {

// ---- rules of thumb (host, O(n d^2); no device) ----

/// Normal-scale bandwidth matrix H_NS = (4 / ((d + 2) n))^(2 / (d + 4)) S (Wand & Jones eq. 4.15
/// with the normal reference). Equals R ks::Hns(x) and SciPy gaussian_kde(bw_method="silverman")'s
/// kernel covariance. Returns d x d row-major.
CLSTAT_EXPORT std::vector<double> normal_scale(const double* x, std::size_t n, std::size_t d);

/// Scott's rule H = n^(-2 / (d + 4)) S: SciPy gaussian_kde's default ("scott") kernel covariance.
CLSTAT_EXPORT std::vector<double> scott(const double* x, std::size_t n, std::size_t d);

/// Silverman's rule of thumb per column, as R's bw.nrd0: 0.9 min(sd, IQR / 1.34) n^(-1/5), IQR by
/// quantile type 7. R uses 1.34, not 1.349, and so does this. Where that minimum is 0, R falls back
/// to sd, then |x_1|, then 1; so does this. Returns d bandwidths (standard deviations of the
/// Gaussian kernel, data units). O(n log n) per column.
CLSTAT_EXPORT std::vector<double> silverman_rot(const double* x, std::size_t n, std::size_t d);

/// The normal-scale constant A(K) = [8 (d + 4) (2 sqrt(pi))^d / c_d]^(1 / (d + 4)) of the spherical
/// Epanechnikov kernel (Silverman 1986, eq. 4.15 and table 4.1; c_d the volume of the unit d-ball):
/// h = A(K) n^(-1/(d + 4)) with H = h^2 S is its AMISE-optimal bandwidth for normal data.
CLSTAT_EXPORT double epanechnikov_constant(std::size_t d);

/// h = epanechnikov_constant(d) n^(-1/(d+4)), to use as Bandwidth::scaled_covariance(h).
CLSTAT_EXPORT double epanechnikov_normal_scale(std::size_t n, std::size_t d);

// ---- direct plug-in (device) ----

/// Scale estimate of the plug-in's normal reference.
enum class Scale {
  minim,  ///< min(sd, IQR / 1.349), IQR by quantile type 7 (KernSmooth::dpik's default)
  sd,     ///< the sample standard deviation (the paper's eq. (6))
};

struct PluginOptions {
  int stages = 2;              ///< 1 or 2 functional-estimation stages (Wand & Jones sec. 3.6.1)
  Scale scale = Scale::minim;
};

/// The Wand-Jones direct plug-in bandwidth with the Gaussian kernel, exact (unbinned): for each
/// column, psi_6 and psi_4 are estimated by full pairwise sums on the device (one pass each, fp64
/// terms and accumulation):
///   psi_r(g) = n^-2 g^(-r-1) [n phi^(r)(0) + 2 sum_{i<j} phi^(r)((X_i - X_j) / g)]
/// (Wand & Jones eq. 3.19), pilots g from the normal reference, and h = (R(phi) / (psi_4 n))^(1/5).
/// Agrees with KernSmooth::dpik up to dpik's binning (401 grid points) and with ks::hpi.
/// For d > 1 each column gets its own bandwidth (for the product kernel, as the paper does).
/// Returns d bandwidths in data units. O(stages n^2 d / 2) on the device. The terms use a
/// table-driven fp64 exp (cl/common/exp_table.clh, within 2 ulp); a term under 1e-296 reads as
/// that bound rather than its smaller value, far below the sums' rounding. Tested within 1e-12 of
/// a long-double evaluation of the same formulas.
CLSTAT_EXPORT std::vector<double> plugin(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                         const PluginOptions& options = {});
/// Asynchronous form (clstat/runtime.hpp): x must stay valid until the Future is ready.
CLSTAT_EXPORT Future<std::vector<double>> plugin_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                       const PluginOptions& options = {},
                                                       const std::vector<Event>& wait = {});

// ---- smoothed cross-validation per column (device) ----

struct ScvOptions {
  int stages = 2;  ///< 1 or 2 stages for the pilot's functionals (ks::hscv's nstage)
};

/// Smoothed cross-validation, one bandwidth per column, exact (unbinned): R's
/// ks::hscv(x, binned = FALSE) (Hall, Marron & Park 1992, with the pilot g = C n^(-23/45) h^(-2) of
/// Jones, Marron & Park 1991):
///   SCV(h) = (n h)^-1 (4 pi)^(-1/2) + T(sqrt(2h^2 + 2g^2)) - 2 T(sqrt(h^2 + 2g^2)) + T(sqrt(2) g),
///   T(s) = n^-2 sum_{i,j} phi_s(x_i - x_j),
/// C from psi_4 and psi_8, whose pilots come from psi_6 and psi_10 (estimated by pair sums with 2
/// stages, the normal reference with 1). SCV is minimised over ks's interval [0.1, 2] h_NS by
/// golden sections to 1e-10 of h, where hscv's optimise stops at 1.2e-4 (absolute): the two differ
/// by up to about 3e-5 of h on tests/data/bandwidth_scv_1d.txt. Returns d bandwidths in data
/// units. Errors as plugin (a pilot functional of the wrong sign included). O(n^2 / 2) per pass, 3
/// passes a search step (about 60 steps a column). Thread-safe.
CLSTAT_EXPORT std::vector<double> scv_h(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                        const ScvOptions& options = {});
/// Asynchronous form (clstat/runtime.hpp): x must stay valid until the Future is ready.
CLSTAT_EXPORT Future<std::vector<double>> scv_h_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                      const ScvOptions& options = {},
                                                      const std::vector<Event>& wait = {});

// ---- the multivariate plug-in bandwidth matrix (device) ----

/// How the pilot bandwidth of the fourth-order functionals is chosen (ks::Hpi's `pilot`).
enum class MatrixPilot {
  automatic,  ///< ks's choice: samse for d = 2, dscalar otherwise
  samse,      ///< one g for all psi_4 entries, minimising their summed AMSE (Duong & Hazelton 2003)
  samse_ks,   ///< samse as ks 1.14 computes it with 2 stages: it reads psi_6 at the wrong entries
              ///< (a multi-index's place among the distinct ones, taken in the full d^6 vector), so
              ///< its pilot and H differ from samse's (at d = 2 by about 4% and 15%); use it to
              ///< reproduce ks::Hpi(x, binned = FALSE). With 1 stage it equals samse.
  dscalar,    ///< one g minimising the AMSE of the whole psi_4 functional (Chacon & Duong 2010)
};

/// The pilot named "auto", "samse", "samse-ks" or "dscalar" (the CLI's --pilot and Python's
/// pilot=); std::invalid_argument "'NAME' is not auto, samse, samse-ks or dscalar" otherwise.
CLSTAT_EXPORT MatrixPilot matrix_pilot(const std::string& name);

struct MatrixSelectorOptions {
  int stages = 2;                             ///< 1 or 2 pilot stages (ks's nstage)
  MatrixPilot pilot = MatrixPilot::automatic;
};

/// What plugin_H and scv_H return.
struct MatrixSelectorResult {
  std::vector<double> H;          ///< d x d row-major, symmetric positive definite, data units
  std::vector<double> H_sphered;  ///< the minimiser in the sphered coordinates: H = S^(1/2) H_sphered S^(1/2)
  double criterion = 0;           ///< the criterion at H_sphered: PI (ks's PI.star) or SCV (ks's SCV.star)
  double pilot_g = 0;             ///< the pilot bandwidth, sphered units (G = g^2 I): of psi_4 (plugin_H)
                                  ///< or of SCV's bias terms (scv_H)
  MatrixPilot pilot = MatrixPilot::samse;  ///< the pilot used (automatic resolved)
  std::vector<double> psi4;       ///< plugin_H: the d^4 estimates n^-2 sum_{i,j} D^4 phi_G(X*_i - X*_j)
                                  ///< (ks's kfe(x.star, G, 4) vector; symmetric in its four indices)
  std::size_t iterations = 0;     ///< Newton steps (plugin_H) or BFGS steps (scv_H)
  bool converged = false;         ///< the last step moved H by at most 1e-13 (plugin_H) or 1e-12 (scv_H)
                                  ///< of its largest entry
};

/// The unconstrained plug-in bandwidth matrix, exact (unbinned): R's ks::Hpi(x, binned = FALSE,
/// pre = "sphere") with its pilots and nstage (Duong & Hazelton 2003; Chacon & Duong 2010); for
/// d = 2 ks's default pilot has a lookup slip (MatrixPilot::samse_ks reproduces it).
/// The data are sphered by S^(-1/2); a pilot g comes from the normal reference (one stage)
/// or from one pass over the pairs estimating the order-6 functionals (two stages); psi_4 is
/// estimated by passes over the n (n - 1) / 2 pairs on the device (fp64, one pass per 15 of its
/// C(d+3, 4) distinct entries); then H minimises PI(H) = (4 pi)^(-d/2) |H|^(-1/2) / n
/// + vec(H)' Psi_4 vec(H) / 4 by Newton's method with exact derivatives.
/// ks stops its own BFGS search (finite-difference gradients, reltol 1.5e-8) short of that
/// minimum: its H differs from this one by up to about 1e-4 of the diagonal, and this one's
/// criterion is never larger than ks's (tests/data/bandwidth_hpi.txt compares both, per data set).
/// d: 2 to 6 (d = 1: plugin). Errors as the other selectors, and std::invalid_argument when a
/// pilot comes out non-positive (an order-6 estimate of the wrong sign). Thread-safe.
/// O(passes n^2 d / 2) on the device (d = 3 two stages: 2 passes), O(d^6) on the host.
CLSTAT_EXPORT MatrixSelectorResult plugin_H(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                          const MatrixSelectorOptions& options = {});
/// Asynchronous form (clstat/runtime.hpp): x must stay valid until the Future is ready.
CLSTAT_EXPORT Future<MatrixSelectorResult> plugin_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                        const MatrixSelectorOptions& options = {},
                                                        const std::vector<Event>& wait = {});

// ---- smoothed cross-validation over full H (device) ----

/// Smoothed cross-validation over unconstrained bandwidth matrices, exact (unbinned): R's
/// ks::Hscv(x, binned = FALSE, pre = "sphere") with its pilots and nstage (Hall, Marron & Park
/// 1992; Duong & Hazelton 2005; Chacon & Duong 2011). In the sphered coordinates, with the
/// pilot G = g^2 I,
///   SCV(H) = (4 pi)^(-d/2) |H|^(-1/2) / n + max(0, T(2H + 2G) - 2 T(H + 2G) + T(2G)),
///   T(Sigma) = n^-2 sum_{i,j} phi_Sigma(X_i - X_j),
/// minimised by BFGS with exact gradients (each evaluation: two passes over the n (n - 1) / 2
/// pairs on the device, fp64, T and its derivative in Sigma in one pass each). Pilots: dscalar
/// (ks's default for d > 2) and samse (its default for d = 2), whose pilot H is the exact
/// one-stage SAMSE plug-in here, where ks computes that one binned even with binned = FALSE (so at
/// d = 2 this differs from ks::Hscv by the binning of ks's pilot: 2e-4 of H on the golden set).
/// ks's optim stops short of the minimum (up to about 3e-3 of H's scale away on the golden sets);
/// SCV here is never above ks's SCV.star for the same pilot (tests/data/bandwidth_hscv.txt).
/// The result as plugin_H's (criterion = SCV(H_sphered); psi4 empty; iterations = BFGS steps).
/// d: 2 to 6; MatrixPilot::samse_ks is rejected (it names a slip of ks's Hpi only). Errors and
/// thread-safety as plugin_H. O(evaluations n^2 d / 2) on the device.
CLSTAT_EXPORT MatrixSelectorResult scv_H(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                         const MatrixSelectorOptions& options = {});
/// Asynchronous form (clstat/runtime.hpp): x must stay valid until the Future is ready.
CLSTAT_EXPORT Future<MatrixSelectorResult> scv_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                       const MatrixSelectorOptions& options = {},
                                                       const std::vector<Event>& wait = {});

// ---- least-squares cross-validation (device) ----

/// LSCV(H) = (4 pi)^(-d/2) |H|^(-1/2) [1/n + (2/n^2) sum_{i<j} e^(-q_ij/4)
///           - (2^(d/2+2) / (n (n-1))) sum_{i<j} e^(-q_ij/2)],  q_ij = (X_i - X_j)' H^-1 (X_i - X_j),
/// the integrated squared error minus its H-free part, for the Gaussian kernel (Wand & Jones
/// sec. 4.7; the same objective as ks's unbinned hlscv and Hlscv). H must be d x d symmetric
/// positive definite. One pass over the n (n - 1) / 2 pairs, fp64. Duplicates are not rejected
/// here (the objective is finite at any fixed H).
CLSTAT_EXPORT double lscv_objective(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                    const std::vector<double>& H);
CLSTAT_EXPORT Future<double> lscv_objective_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                  const std::vector<double>& H, const std::vector<Event>& wait = {});

/// The same objective for one data set at many H, with the centred data kept on the device: what
/// lscv_H evaluates at each Nelder-Mead step, for surfaces, profiles or an optimiser of your own.
/// Construction checks x (as lscv_objective), centres it on its mean and uploads it: O(n d) host
/// work and one transfer; throws std::invalid_argument on bad data and UnsupportedFeature without
/// fp64. Each call: H row-major d x d, symmetric positive definite (else std::invalid_argument);
/// one whitening and one fused pass over the pairs on the device, O(n^2 d / 2), one wait.
/// Thread-safe: calls from several threads run at once, each on a queue of its own (the data are
/// kept in a buffer of the object's, not in a queue's scratch).
class CLSTAT_EXPORT LscvObjective {
 public:
  LscvObjective(const Context& ctx, const double* x, std::size_t n, std::size_t d);
  ~LscvObjective();
  LscvObjective(const LscvObjective&) = delete;
  LscvObjective& operator=(const LscvObjective&) = delete;
  double operator()(const std::vector<double>& H) const;
  /// Asynchronous form on q; the object must outlive the Future.
  Future<double> evaluate_async(const Queue& q, const std::vector<double>& H, const std::vector<Event>& wait = {}) const;
  std::size_t n() const;
  std::size_t d() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct LscvOptions {
  std::size_t grid = 150;    ///< n_h: grid points, geometric, 3 to 100000 (first over [h0/4, 4 h0])
  double rel_tol = 1e-7;     ///< the bracket of the minimum is shrunk below rel_tol * h
  /// Device memory the stored pair distances may use (bytes); 0 = a quarter of the device's memory.
  /// Beyond it the distances are recomputed, block by block, for every pass.
  std::size_t memory_budget_bytes = 0;
};

struct LscvResult {
  std::vector<double> h;              ///< the bandwidth per dimension in data units, sqrt(H_ii), as
                                      ///< plugin's and silverman_rot's (d = 1: ks::hlscv's h)
  std::vector<double> H;              ///< multiplier^2 S, d x d row-major
  double multiplier = 0;              ///< the minimiser m of LSCV(m^2 S): H's multiple of S
                                      ///< (d = 1: h[0] = multiplier * sd)
  double objective = 0;               ///< LSCV(H) at the optimum
  std::vector<double> grid_multiplier;  ///< the last grid of multipliers: the bracket used
  std::vector<double> grid_objective; ///< LSCV at each grid value, for plotting
  bool at_boundary = false;           ///< the minimum is still at an end of the grid after moving it
                                      ///< up to 16^8 from h0 (or where the objective is not finite)
  std::size_t passes = 0;             ///< passes over the pairs (the grid, then each refinement)
};

/// LSCV_h (paper sec. 3.2.2): minimises LSCV(m^2 S) over the multiplier m (the paper's h; the
/// result's h is in data units, sqrt(H_ii), as every method's). The data are whitened by S once; the
/// squared distances of all pairs are computed once on the device (sec. 5.1) and kept there when
/// they fit, and every pass evaluates the objective at many h at once. The grid of n_h values over
/// [h0/4, 4 h0], h0 = (4 / ((d + 2) n))^(1/(d+4)) (eq. 17-18; the normal-scale h, see plugin.cpp),
/// locates the minimum; when its best point is an end of the grid (skewed or sharply peaked data,
/// whose LSCV minimum lies far from the normal reference), the grid moves a factor 16 that way, one
/// pass each, until the best point is interior (at most 8 moves). The bracket around the best grid
/// point is then narrowed by repeated
/// 33-point passes to rel_tol (each shrinks it 17-fold, in one device pass; see lscv_h.cpp for why
/// not Brent's serial steps). O(n^2 (d + n_h)) on the device.
CLSTAT_EXPORT LscvResult lscv_h(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                const LscvOptions& options = {});
CLSTAT_EXPORT Future<LscvResult> lscv_h_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                              const LscvOptions& options = {}, const std::vector<Event>& wait = {});

struct LscvMatrixOptions {
  std::size_t restarts = 3;            ///< extra Nelder-Mead runs from scaled starts (H_NS / 2, 2 H_NS, ...)
  double rel_tol = 1e-10;              ///< stop when the simplex's objective spread <= rel_tol * |best|
  std::size_t max_evaluations = 3000;  ///< for the whole search (all runs and restarts together)
  /// After every objective evaluation: done = evaluations so far, total = max_evaluations,
  /// message "lscv_H: evaluation N, best LSCV v".
  Progress progress;
};

struct LscvMatrixResult {
  std::vector<double> H;        ///< d x d row-major, symmetric positive definite
  double objective = 0;         ///< LSCV(H)
  std::size_t evaluations = 0;  ///< over all runs
  bool converged = false;       ///< the best run met rel_tol before max_evaluations
};

/// LSCV_H (paper sec. 3.2.3): minimises LSCV(H) over symmetric positive definite H by Nelder-Mead
/// on the d (d + 1) / 2 entries of H's Cholesky factor, with the log of its diagonal, so every
/// simplex vertex is positive definite; H is kept within eigenvalues 1e-6..1e6 of H_NS's scale
/// (relative to H_NS), so it cannot collapse onto a line. Starts at H_NS (eq. 25), then from each restart scale;
/// every run restarts from its own optimum until that no longer improves; returns the best. Each
/// evaluation whitens the data on the device and makes one fused pass over the pairs for both
/// exponentials. O(evaluations n^2 d / 2).
CLSTAT_EXPORT LscvMatrixResult lscv_H(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                      const LscvMatrixOptions& options = {});
/// Asynchronous form; options.progress is called from the task's thread.
CLSTAT_EXPORT Future<LscvMatrixResult> lscv_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                    const LscvMatrixOptions& options = {},
                                                    const std::vector<Event>& wait = {});

}  // namespace clstat::bandwidth
