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
#include "bandwidth/matrix_functionals.hpp"
#include "clstat/bandwidth.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

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


}  // namespace

}  // namespace clstat::bandwidth

namespace clstat::bandwidth_detail {

bandwidth::MatrixSelectorResult plugin_sphered(const Queue& q, const char* op, const Mat& xs,
                                               const bandwidth::MatrixSelectorOptions& o) {
  using namespace bandwidth;
  const std::size_t n = static_cast<std::size_t>(xs.rows()), d = static_cast<std::size_t>(xs.cols());
  const auto D = static_cast<Eigen::Index>(d);
  const auto scaled = [&](double g) { return Mat(Mat::Identity(D, D) / g); };
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  MatrixSelectorResult r;
  r.pilot = o.pilot == MatrixPilot::automatic ? (d == 2 ? MatrixPilot::samse : MatrixPilot::dscalar) : o.pilot;
  double g4;
  if (r.pilot == MatrixPilot::dscalar) {
    if (o.stages == 1) {
      g4 = dscalar_normal_pilot(d, nn, 1, false);
    } else {
      const double g6 = dscalar_normal_pilot(d, nn, 2, false);
      const double s = hermite_sums(q, op, xs, scaled(g6), HermiteTerms{true, {}})[0];
      g4 = dscalar_second_pilot(d, nn, eta6_of(d, s, g6, nn), false);
    }
  } else {
    // The normal reference at S* = I: D^c phi_{2I}(0).
    const auto normal = [](const std::vector<unsigned>& c) { return normal_derivative_at_zero(c, std::sqrt(2.0)); };
    if (o.stages == 1) {
      g4 = samse_pilot(d, nn, 4, laplacian_contractions(d, 4, normal));
    } else {
      const double g6 = samse_pilot(d, nn, 6, laplacian_contractions(d, 6, normal));
      // The psi_6 entries the pilot reads (ks's lookup for samse_ks), each estimated once.
      const auto distinct = r.pilot == MatrixPilot::samse_ks ? ks_distinct6(d) : std::vector<std::vector<unsigned>>{};
      const auto read = [&](const std::vector<unsigned>& c) {
        return r.pilot == MatrixPilot::samse_ks ? ks_samse_read(c, distinct) : c;
      };
      HermiteTerms t6;
      laplacian_contractions(d, 4, [&](const std::vector<unsigned>& c) {
        auto m = read(c);
        if (std::find(t6.counts.begin(), t6.counts.end(), m) == t6.counts.end()) t6.counts.push_back(std::move(m));
        return 0.0;
      });
      const std::vector<double> s6 = hermite_sums(q, op, xs, scaled(g6), t6);
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
  const std::vector<double> s4 = hermite_sums(q, op, xs, scaled(g4), t4);

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
  r.H_sphered = row_major(Hs);
  return r;
}

}  // namespace clstat::bandwidth_detail

namespace clstat::bandwidth {

namespace {

MatrixSelectorResult plugin_H_on(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                 const MatrixSelectorOptions& o) {
  const char* op = "clstat::bandwidth::plugin_H";
  detail::Lease lease = detail::Lease::named(q);
  const Sphered sp = sphere(op, x, n, d);
  MatrixSelectorResult r = plugin_sphered(q, op, sp.xs, o);
  const Mat Hs = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      r.H_sphered.data(), static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  r.H = row_major(sp.S12 * Hs * sp.S12);
  return r;
}

}  // namespace

MatrixPilot matrix_pilot(const std::string& name) {
  if (name == "auto") return MatrixPilot::automatic;
  if (name == "samse") return MatrixPilot::samse;
  if (name == "samse-ks") return MatrixPilot::samse_ks;
  if (name == "dscalar") return MatrixPilot::dscalar;
  throw std::invalid_argument("'" + name + "' is not auto, samse, samse-ks or dscalar");
}

MatrixSelectorResult plugin_H(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                            const MatrixSelectorOptions& o) {
  check_matrix_selector("clstat::bandwidth::plugin_H", ctx, x, n, d, o, "plugin", true);
  detail::Lease lease = detail::Lease::any(ctx);
  return plugin_H_on(lease.queue(), x, n, d, o);
}

Future<MatrixSelectorResult> plugin_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                          const MatrixSelectorOptions& o, const std::vector<Event>& wait) {
  check_matrix_selector("clstat::bandwidth::plugin_H_async", q.context(), x, n, d, o, "plugin", true);
  return detail::host_task<MatrixSelectorResult>(q, wait, [=] { return plugin_H_on(q, x, n, d, o); });
}

}  // namespace clstat::bandwidth
