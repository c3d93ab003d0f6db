// The unconstrained multivariate plug-in bandwidth matrix: ks::Hpi with binned = FALSE (Duong &
// Hazelton 2003 for the SAMSE pilot; Chacon & Duong 2010 for the scalar pilot of the derivative
// functionals, "dscalar"). Every formula was checked against ks 1.14.0's code and numbers
// (tools/golden/bandwidth_hpi.R): the pilots to 1e-16 and psi_4 to 6e-16 relative.
//
// Steps, all in the sphered coordinates x* = (x - mean) S^(-1/2) (S^(-1/2) the symmetric root):
//   1. a pilot g for psi_4: a closed form from the normal reference (1 stage), or from a first
//      pass's estimate of the order-6 functionals (2 stages);
//   2. psi_4, the d^4 tensor of n^-2 sum_{i,j} D^4 phi_{g^2 I}(X_i - X_j), from one pass over the
//      pairs per 15 of its C(d+3, 4) distinct entries (pair_sums.cl, TERM 4);
//   3. the minimiser of PI(H) = (4 pi)^(-d/2) n^-1 |H|^(-1/2) + vec(H)' Psi_4 vec(H) / 4 over
//      symmetric positive definite H, by Newton's method with the exact gradient and Hessian
//      (d (d + 1) / 2 unknowns). |H|^(-1/2) is convex on positive definite matrices and Psi_4 is an
//      estimate of the positive semi-definite integral of vec(D^2 f) vec(D^2 f)', so the minimum
//      is unique wherever that estimate is positive semi-definite.
//   4. H = S^(1/2) H* S^(1/2).
// ks 1.14's two-stage SAMSE pilot (gsamse, nstage = 2) reads psi_6 at a multi-index's place in the
// list of distinct multi-indices but from the full d^6 vector, so it sums other entries than the
// AMSE formula names (Duong & Hazelton 2003, sec. 3); at d = 2 its pilot differs by about 4% and
// its H by about 15%. MatrixPilot::samse does what the formula says; samse_ks reads as ks does, to
// reproduce ks::Hpi's numbers (tools/golden/bandwidth_hpi.R shows the lookup on ks's own objects).
// ks minimises PI with optim's BFGS over vech(H^(1/2)) with finite-difference gradients and its
// default reltol (1.5e-8), which stops short of the minimum: its H lies up to about 1e-4 of the
// diagonal's size from the minimiser (6e-3 relative on a small off-diagonal entry) of the very
// criterion it reports. This returns that minimiser to rounding; PI(H) here is at most ks's.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/pair_sums.hpp"
#include "clstat/bandwidth.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

constexpr std::size_t k_max_dim = 6;
constexpr std::size_t k_outputs_per_pass = 15;  // C(6, 4): psi_4 of d = 3 in one pass

enum class PluginMatrixScratch { rows, sums };

// He_k(0): 0 for odd k, (-1)^(k/2) (k - 1)!! for even k.
double hermite_at_zero(unsigned k) {
  if (k % 2) return 0;
  double v = 1;
  for (unsigned m = 1; m < k; m += 2) v *= m;
  return (k / 2) % 2 ? -v : v;
}

// The multi-indices of `order` in d dimensions (all counts even when `even`), in lexicographic
// order of their counts, first dimension slowest.
std::vector<std::vector<unsigned>> multi_indices(std::size_t d, unsigned order, bool even) {
  std::vector<std::vector<unsigned>> out;
  std::vector<unsigned> c(d, 0);
  std::function<void(std::size_t, unsigned)> fill = [&](std::size_t k, unsigned left) {
    if (k + 1 == d) {
      if (!even || left % 2 == 0) {
        c[k] = left;
        out.push_back(c);
      }
      return;
    }
    for (unsigned v = left + 1; v-- > 0;) {
      if (even && v % 2) continue;
      c[k] = v;
      fill(k + 1, left - v);
    }
  };
  fill(0, order);
  return out;
}

// ks's nu(r, A) at A = I_d: r! 2^r times the r-th coefficient of the recursion on the traces
// tr(A^p) = d (the cumulants of a quadratic form in normal variables).
double nu_identity(int r, double d) {
  std::vector<double> v{1.0};
  for (int p = 1; p <= r; ++p) {
    double a = 0;
    for (int q = 1; q <= p; ++q) a += d * v[static_cast<std::size_t>(p - q)];
    v.push_back(a / (2 * p));
  }
  double f = 1;
  for (int k = 2; k <= r; ++k) f *= k;
  return f * std::pow(2.0, r) * v.back();
}

// ks's OF(m) = m! / (2^(m/2) (m/2)!) = (m - 1)!!.
double odd_factorial(int m) {
  double v = 1;
  for (int k = 1; k < m; k += 2) v *= k;
  return v;
}

// The number of perfect matchings of the index tuple t[0 .. len) whose pairs hold equal indices:
// the sum over matchings of products of Kronecker deltas.
double delta_matchings(const unsigned* t, std::size_t len) {
  if (len == 0) return 1;
  double s = 0;
  unsigned rest[8];
  for (std::size_t k = 1; k < len; ++k) {
    if (t[k] != t[0]) continue;
    std::size_t m = 0;
    for (std::size_t j = 1; j < len; ++j)
      if (j != k) rest[m++] = t[j];
    s += delta_matchings(rest, len - 2);
  }
  return s;
}

// Sum over all d^m index tuples of delta_matchings(tuple)^2 (m = 4 or 6).
double matchings_square_sum(std::size_t d, std::size_t m) {
  std::vector<unsigned> t(m, 0);
  double s = 0;
  for (;;) {
    const double v = delta_matchings(t.data(), m);
    s += v * v;
    std::size_t k = 0;
    while (k < m && ++t[k] == d) t[k++] = 0;
    if (k == m) return s;
  }
}

// The dscalar pilot's normal-reference constant B3 = |(vec I' (x) I) D^(2k+2) phi_{2I}(0)|^2
// (ks's gdscalar, k = 2 for one stage, 3 for two). D^(2k+2) phi_{2I}(0) = (4 pi)^(-d/2) 2^-(k+1)
// (-1)^(k+1) M, M the delta matchings of its 2k + 2 indices; tracing the first two indices of M
// gives (d + 2k) times the matchings of the other 2k.
double dscalar_b3(std::size_t d, int k) {
  const double dd = static_cast<double>(d);
  const double c = std::pow(4 * M_PI, -dd / 2) * std::pow(2.0, -(k + 1)) * (dd + 2 * k);
  return c * c * matchings_square_sum(d, static_cast<std::size_t>(2 * k));
}

// ks's gdscalar: the scalar pilot for psi_4 (one stage), or for the order-6 functional eta_6
// that the second stage estimates (two stages). Both use ks's exponent 1 / (d + 8).
double dscalar_normal_pilot(std::size_t d, double n, int stages) {
  const double dd = static_cast<double>(d), tp = std::pow(2 * M_PI, -dd);
  double B1, B2, B3;
  if (stages == 1) {
    B1 = 2 * tp * odd_factorial(4) * dd * (dd + 2) * (dd + 4);
    B2 = -(dd + 2) * std::pow(2.0, -dd / 2) * tp * odd_factorial(4) * nu_identity(2, dd);
    B3 = dscalar_b3(d, 2);
  } else {
    B1 = 2 * tp * odd_factorial(6) * dd * (dd + 2) * (dd + 4) * (dd + 6);
    B2 = -(dd + 4) * std::pow(2.0, -dd / 2 + 2) * tp * odd_factorial(6) * nu_identity(4, dd);
    B3 = dscalar_b3(d, 3);
  }
  return std::pow(2 * B1 / (-B2 + std::sqrt(B2 * B2 + 4 * B1 * B3)), 1 / (dd + 8)) * std::pow(n, -1 / (dd + 8));
}

// The second stage of gdscalar: the psi_4 pilot from eta_6 (ks's A1, A2, A3).
double dscalar_second_pilot(std::size_t d, double n, double eta6) {
  const double dd = static_cast<double>(d), L0 = std::pow(2 * M_PI, -dd / 2);
  const double A1 = (2 * dd + 8) * L0 * L0 * odd_factorial(4) * nu_identity(2, dd);
  const double A2 = (dd + 2) * L0 * odd_factorial(4) * eta6;
  const double A3 = eta6 * eta6;
  return std::pow(2 * A1 / ((-A2 + std::sqrt(A2 * A2 + 4 * A1 * A3)) * n), 1 / (dd + 6));
}

// D^c phi_{s^2 I}(0) for a multi-index c of even total order.
double normal_derivative_at_zero(const std::vector<unsigned>& c, double s) {
  const double dd = static_cast<double>(c.size());
  double v = std::pow(2 * M_PI * s * s, -dd / 2);
  for (unsigned k : c) v *= std::pow(s, -static_cast<double>(k)) * hermite_at_zero(k);
  return v;
}

// ks's gsamse (Duong & Hazelton 2003): one g for all order-`order` functionals, from psi[a] =
// sum_j psi_{a + 2 e_j} over the all-even multi-indices a of that order.
double samse_pilot(std::size_t d, double n, unsigned order, const std::vector<double>& psi) {
  const auto even = multi_indices(d, order, true);
  double A1 = 0, A2 = 0, A3 = 0;
  for (std::size_t i = 0; i < even.size(); ++i) {
    const double K = normal_derivative_at_zero(even[i], 1.0);
    A1 += K * K, A2 += K * psi[i], A3 += psi[i] * psi[i];
  }
  const double dd = static_cast<double>(d), r = order;
  const double B1 = (2 * r + 2 * dd) * A1, B2 = (r + dd - 2) * A2, B3 = A3;
  const double gamma1 = (-B2 + std::sqrt(B2 * B2 + 4 * B1 * B3)) / (2 * B1);
  return std::pow(gamma1 * n, -1 / (r + dd + 2));
}

// The counts of the base-d digits of t (order digits): the multi-index of entry t of a d^order
// derivative vector, in ks's (and the Kronecker product's) order.
std::vector<unsigned> digit_counts(std::size_t t, std::size_t d, unsigned order) {
  std::vector<unsigned> c(d, 0);
  for (unsigned k = 0; k < order; ++k) ++c[t % d], t /= d;
  return c;
}

// The entry of the d^6 vector that ks 1.14's two-stage SAMSE pilot reads for multi-index c: the
// entry numbered by c's place among the distinct multi-indices in order of first appearance.
std::vector<unsigned> ks_samse_read(const std::vector<unsigned>& c) {
  const std::size_t d = c.size();
  std::vector<std::vector<unsigned>> distinct;
  std::size_t total = 1;
  for (int k = 0; k < 6; ++k) total *= d;
  for (std::size_t t = 0; t < total; ++t) {
    auto m = digit_counts(t, d, 6);
    if (std::find(distinct.begin(), distinct.end(), m) == distinct.end()) distinct.push_back(std::move(m));
  }
  const auto at = std::find(distinct.begin(), distinct.end(), c) - distinct.begin();
  return digit_counts(static_cast<std::size_t>(at), d, 6);
}

// sum_j of f(a + 2 e_j) over the all-even multi-indices a of `order`.
template <class F>
std::vector<double> laplacian_contractions(std::size_t d, unsigned order, F&& f) {
  std::vector<double> out;
  for (auto a : multi_indices(d, order, true)) {
    double s = 0;
    for (std::size_t j = 0; j < d; ++j) {
      a[j] += 2;
      s += f(a);
      a[j] -= 2;
    }
    out.push_back(s);
  }
  return out;
}

// The pair sums of `terms` over the sphered rows scaled by 1/g, on q: one pass per 15 outputs,
// one wait at the end. O(n^2 d / 2) per pass.
std::vector<double> hermite_sums(const Queue& q, const char* op, const Mat& xs, double g, const HermiteTerms& terms) {
  const Context ctx = q.context();
  const std::size_t n = static_cast<std::size_t>(xs.rows()), d = static_cast<std::size_t>(xs.cols());
  std::vector<HermiteTerms> passes;
  if (terms.radial6) passes.push_back(HermiteTerms{true, {}});
  for (std::size_t k = 0; k < terms.counts.size(); k += k_outputs_per_pass) {
    HermiteTerms t;
    t.counts.assign(terms.counts.begin() + static_cast<std::ptrdiff_t>(k),
                    terms.counts.begin() + static_cast<std::ptrdiff_t>(std::min(k + k_outputs_per_pass, terms.counts.size())));
    passes.push_back(std::move(t));
  }
  std::vector<double> out(terms.outputs());
  detail::cl_guard(op, *ctx.impl(), [&] {
    std::vector<std::unique_ptr<PairSumPass>> pass;
    for (const auto& t : passes) pass.push_back(std::make_unique<PairSumPass>(ctx, op, PairTerm::hermite, d, n, nullptr, &t));
    const std::size_t rs = pass[0]->row_stride();
    std::vector<double> rows(n * rs, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k) rows[i * rs + k] = xs(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)) / g;
    const cl::CommandQueue& cq = detail::queue_of(q);
    cl::Buffer rb = detail::scratch(q, PluginMatrixScratch::rows, rows.size() * sizeof(double));
    cl::Buffer sums = detail::scratch(q, PluginMatrixScratch::sums, out.size() * sizeof(double));
    cl::Event w;
    cq.enqueueWriteBuffer(rb, CL_FALSE, 0, rows.size() * sizeof(double), rows.data(), nullptr, &w);
    Event ev = detail::from_cl(w);
    unsigned at = 0;
    for (auto& p : pass) {
      ev = p->enqueue(q, rb, 0, n, rb, PairSumPass::k_scale_value, 0.0, sums, at, {ev});
      at += static_cast<unsigned>(p->outputs());
    }
    detail::read_wait(cq, sums, 0, out.size() * sizeof(double), out.data());  // waits for the upload too
  });
  return out;
}

// psi_c = n^-2 sum_{i,j} D^c phi_{g^2 I}(X_i - X_j) (diagonal included, as ks's kfe) from the
// sum over i < j of w prod He_{c_a}(u_a).
double functional_of(const std::vector<unsigned>& c, double pair_sum, double g, double n) {
  unsigned order = 0;
  double at0 = 1;
  for (unsigned k : c) order += k, at0 *= hermite_at_zero(k);
  const double dd = static_cast<double>(c.size());
  return std::pow(2 * M_PI, -dd / 2) * std::pow(g, -dd - order) * (2 * pair_sum + n * at0) / (n * n);
}

// PI(H) and its minimisation in the sphered coordinates: f(H) = a |H|^(-1/2) + vec(H)' P vec(H) / 4.
struct Criterion {
  Mat P;  // d^2 x d^2: P(i d + j, k d + l) = psi_4 at the multi-index of (i, j, k, l)
  double a;
  std::size_t d;
  std::vector<Mat> basis;  // E_p: e_i e_j' + e_j e_i' (i < j) or e_i e_i'

  Criterion(Mat p, double a_, std::size_t d_) : P(std::move(p)), a(a_), d(d_) {
    const auto D = static_cast<Eigen::Index>(d);
    for (Eigen::Index i = 0; i < D; ++i)
      for (Eigen::Index j = i; j < D; ++j) {
        Mat E = Mat::Zero(D, D);
        E(i, j) = E(j, i) = 1;
        basis.push_back(E);
      }
  }
  static Eigen::Map<const Eigen::VectorXd> vec(const Mat& M) { return {M.data(), M.size()}; }
  // f at H, or +inf where H is not positive definite.
  double value(const Mat& H) const {
    Eigen::LLT<Mat> llt(H);
    if (llt.info() != Eigen::Success) return HUGE_VAL;
    double logdet = 0;
    for (Eigen::Index k = 0; k < H.rows(); ++k) logdet += 2 * std::log(llt.matrixL()(k, k));
    return a * std::exp(-0.5 * logdet) + 0.25 * vec(H).dot(P * vec(H));
  }
  // Gradient and Hessian in the coordinates of `basis`.
  void derivatives(const Mat& H, Eigen::VectorXd& grad, Mat& hess) const {
    const Mat Hi = H.inverse();
    const double c = a / std::sqrt(H.determinant());
    const auto m = static_cast<Eigen::Index>(basis.size());
    grad.resize(m), hess.resize(m, m);
    std::vector<Mat> HiE;
    Eigen::VectorXd tr(m);
    Mat PE(P.rows(), m);
    for (Eigen::Index p = 0; p < m; ++p) {
      HiE.push_back(Hi * basis[static_cast<std::size_t>(p)]);
      tr(p) = HiE.back().trace();
      PE.col(p) = P * vec(basis[static_cast<std::size_t>(p)]);
      grad(p) = -0.5 * c * tr(p) + 0.5 * PE.col(p).dot(vec(H));
    }
    for (Eigen::Index p = 0; p < m; ++p)
      for (Eigen::Index r = 0; r < m; ++r)
        hess(p, r) = c * (0.25 * tr(p) * tr(r) + 0.5 * (HiE[static_cast<std::size_t>(p)] * HiE[static_cast<std::size_t>(r)]).trace()) +
                     0.5 * PE.col(r).dot(vec(basis[static_cast<std::size_t>(p)]));
  }
  Mat step_matrix(const Eigen::VectorXd& delta) const {
    Mat M = Mat::Zero(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
    for (std::size_t p = 0; p < basis.size(); ++p) M += delta(static_cast<Eigen::Index>(p)) * basis[p];
    return M;
  }
};

// Damped Newton from H0: the Hessian shifted by mu I where it is not positive definite, steps
// halved until H stays positive definite and f does not rise, full steps once f cannot tell.
// Stops when a full step changes no entry of H by more than 1e-13 of H's largest entry
// (converged), or after 200 iterations.
Mat minimise(const Criterion& cr, Mat H, std::size_t& iterations, bool& converged) {
  converged = false;
  double f = cr.value(H);
  for (iterations = 0; iterations < 200; ++iterations) {
    Eigen::VectorXd grad;
    Mat hess;
    cr.derivatives(H, grad, hess);
    const auto m = hess.rows();
    Eigen::VectorXd delta;
    double mu = 0;
    for (int tries = 0; tries < 60; ++tries) {
      Eigen::LLT<Mat> llt(hess + mu * Mat::Identity(m, m));
      if (llt.info() == Eigen::Success) {
        delta = llt.solve(-grad);
        break;
      }
      mu = mu == 0 ? 1e-12 * hess.diagonal().cwiseAbs().maxCoeff() : 4 * mu;
    }
    if (delta.size() == 0) break;
    const Mat D = cr.step_matrix(delta);
    if (D.cwiseAbs().maxCoeff() <= 1e-13 * H.cwiseAbs().maxCoeff()) {
      converged = true;
      break;
    }
    // Within f's rounding of the minimum (the Newton decrement -grad'delta ~ 2 (f - min f) below
    // 1e-10 f), f can no longer rank the steps, while each full step still gains digits of H
    // (quadratically): take it.
    if (mu == 0 && -grad.dot(delta) <= 1e-10 * std::fabs(f) && cr.value(H + D) < HUGE_VAL) {
      H += D;
      f = cr.value(H);
      continue;
    }
    double t = 1;
    bool moved = false;
    for (int k = 0; k < 60; ++k, t /= 2) {
      const Mat Hn = H + t * D;
      const double fn = cr.value(Hn);
      if (fn <= f) {
        H = Hn, f = fn, moved = true;
        break;
      }
    }
    if (!moved) {
      // No step lowers f: H is the minimum to f's rounding.
      converged = mu == 0;
      break;
    }
  }
  return H;
}

void check_plugin_H(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                    const PluginMatrixOptions& o) {
  check_data(op, x, n, d);
  if (d < 2 || d > k_max_dim)
    throw std::invalid_argument(std::string(op) + ": d = " + std::to_string(d) +
                                "; the matrix plug-in takes 2 to 6 dimensions (d = 1: plugin)");
  if (o.stages != 1 && o.stages != 2) throw std::invalid_argument(std::string(op) + ": stages must be 1 or 2");
  if (o.pilot != MatrixPilot::automatic && o.pilot != MatrixPilot::samse && o.pilot != MatrixPilot::samse_ks &&
      o.pilot != MatrixPilot::dscalar)
    throw std::invalid_argument(std::string(op) + ": unknown pilot");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

PluginMatrixResult plugin_H_on(const Queue& q, const double* x, std::size_t n, std::size_t d,
                               const PluginMatrixOptions& o) {
  const char* op = "clstat::bandwidth::plugin_H";
  detail::Lease lease = detail::Lease::named(q);
  Eigen::VectorXd mean;
  const Mat S = covariance(op, x, n, d, &mean);
  Eigen::SelfAdjointEigenSolver<Mat> es(S);
  const Mat S12 = es.operatorSqrt(), Sinv12 = es.operatorInverseSqrt();
  const auto N = static_cast<Eigen::Index>(n), D = static_cast<Eigen::Index>(d);
  Mat xs(N, D);
  for (Eigen::Index i = 0; i < N; ++i)
    for (Eigen::Index k = 0; k < D; ++k) xs(i, k) = x[i * D + k] - mean(k);
  xs = xs * Sinv12;

  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  PluginMatrixResult r;
  r.pilot = o.pilot == MatrixPilot::automatic ? (d == 2 ? MatrixPilot::samse : MatrixPilot::dscalar) : o.pilot;
  double g4;
  if (r.pilot == MatrixPilot::dscalar) {
    if (o.stages == 1) {
      g4 = dscalar_normal_pilot(d, nn, 1);
    } else {
      const double g6 = dscalar_normal_pilot(d, nn, 2);
      const double s = hermite_sums(q, op, xs, g6, HermiteTerms{true, {}})[0];
      const double h30 = -dd * (dd + 2) * (dd + 4);  // h3(0)
      const double eta6 = std::pow(2 * M_PI, -dd / 2) * std::pow(g6, -dd - 6) * (2 * s + nn * h30) / (nn * nn);
      g4 = dscalar_second_pilot(d, nn, eta6);
    }
  } else {
    // The normal reference at S* = I: D^c phi_{2I}(0).
    const auto normal = [](const std::vector<unsigned>& c) { return normal_derivative_at_zero(c, std::sqrt(2.0)); };
    if (o.stages == 1) {
      g4 = samse_pilot(d, nn, 4, laplacian_contractions(d, 4, normal));
    } else {
      const double g6 = samse_pilot(d, nn, 6, laplacian_contractions(d, 6, normal));
      // The psi_6 entries the pilot reads (ks's lookup for samse_ks), each estimated once.
      const auto read = [&](const std::vector<unsigned>& c) {
        return r.pilot == MatrixPilot::samse_ks ? ks_samse_read(c) : c;
      };
      HermiteTerms t6;
      laplacian_contractions(d, 4, [&](const std::vector<unsigned>& c) {
        auto m = read(c);
        if (std::find(t6.counts.begin(), t6.counts.end(), m) == t6.counts.end()) t6.counts.push_back(std::move(m));
        return 0.0;
      });
      const std::vector<double> s6 = hermite_sums(q, op, xs, g6, t6);
      const auto psi6 = [&](const std::vector<unsigned>& c) {
        const auto m = read(c);
        const auto at = std::find(t6.counts.begin(), t6.counts.end(), m) - t6.counts.begin();
        return functional_of(m, s6[static_cast<std::size_t>(at)], g6, nn);
      };
      g4 = samse_pilot(d, nn, 4, laplacian_contractions(d, 4, psi6));
    }
  }
  if (!(g4 > 0 && std::isfinite(g4)))
    throw std::invalid_argument(std::string(op) + ": the pilot bandwidth is not positive (the order-6 functional "
                                "estimate has the wrong sign for these data); try stages = 1");
  HermiteTerms t4;
  t4.counts = multi_indices(d, 4, false);
  const std::vector<double> s4 = hermite_sums(q, op, xs, g4, t4);

  // Psi_4 as a d^2 x d^2 matrix, and the full d^4 vector (first index fastest, as ks's vecPsi4).
  Mat P(D * D, D * D);
  r.psi4.resize(d * d * d * d);
  for (std::size_t t = 0; t < r.psi4.size(); ++t) {
    std::vector<unsigned> c(d, 0);
    std::size_t idx[4], v = t;
    for (auto& i : idx) i = v % d, v /= d, ++c[i];
    const auto at = std::find(t4.counts.begin(), t4.counts.end(), c) - t4.counts.begin();
    const double p = functional_of(c, s4[static_cast<std::size_t>(at)], g4, nn);
    r.psi4[t] = p;
    P(static_cast<Eigen::Index>(idx[0] + d * idx[1]), static_cast<Eigen::Index>(idx[2] + d * idx[3])) = p;
  }
  const Criterion cr(P, std::pow(4 * M_PI, -dd / 2) / nn, d);
  const Mat H0 = std::pow(4 / (nn * (dd + 2)), 2 / (dd + 4)) * Mat::Identity(D, D);
  const Mat Hs = minimise(cr, H0, r.iterations, r.converged);
  r.criterion = cr.value(Hs);
  r.pilot_g = g4;
  r.H = row_major(S12 * Hs * S12);
  r.H_sphered = row_major(Hs);
  return r;
}

}  // namespace

PluginMatrixResult plugin_H(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                            const PluginMatrixOptions& o) {
  check_plugin_H("clstat::bandwidth::plugin_H", ctx, x, n, d, o);
  detail::Lease lease = detail::Lease::any(ctx);
  return plugin_H_on(lease.queue(), x, n, d, o);
}

Future<PluginMatrixResult> plugin_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                          const PluginMatrixOptions& o, const std::vector<Event>& wait) {
  check_plugin_H("clstat::bandwidth::plugin_H_async", q.context(), x, n, d, o);
  return detail::host_task<PluginMatrixResult>(q, wait, [=] { return plugin_H_on(q, x, n, d, o); });
}

}  // namespace clstat::bandwidth
