// Smoothed cross-validation over full bandwidth matrices: ks::Hscv with binned = FALSE (Hall,
// Marron & Park 1992; Duong & Hazelton 2005 for the multivariate form and the SAMSE pilot;
// Chacon & Duong 2011 for the scalar pilot, "dscalar"). Checked against ks 1.14.0's code and
// numbers (tools/golden/bandwidth_hscv.R).
//
// In the sphered coordinates, with the pilot G = g^2 I:
//   SCV(H) = (4 pi)^(-d/2) n^-1 |H|^(-1/2) + max(0, T(2H + 2G) - 2 T(H + 2G) + T(2G)),
//   T(Sigma) = n^-2 sum_{i,j} phi_Sigma(X_i - X_j)   (the diagonal included, as ks's Qr).
// Each T and its derivative in Sigma come from one pass over the pairs (pair_sums.cl, TERM 4) on
// rows u = L^-1 x (Sigma = L L'): phi_Sigma(Delta) = (2 pi)^(-d/2) |Sigma|^(-1/2) w with
// w = e^(-|u|^2/2), and dphi/dSigma = phi (Sigma^-1 Delta Delta' Sigma^-1 - Sigma^-1) / 2
// = phi A'(u u' - I)A / 2 (A = L^-1), whose sums are the Hermite products He_1 He_1 and He_2.
// So an evaluation of SCV and its exact gradient costs two passes and one wait, and BFGS (exact gradients,
// backtracking to keep H positive definite and SCV falling) finds the minimum to rounding, where
// ks's optim (finite-difference gradients, reltol 1.5e-8) stops up to about 3e-3 of H's scale
// short of it.
// The pilot: dscalar as ks's gdscalar with Hscv's constants; samse as ks's gamse.scv, whose pilot
// H is the one-stage SAMSE plug-in. ks computes that pilot H binned even when Hscv is asked for
// binned = FALSE; here it is exact (plugin_sphered).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/matrix_functionals.hpp"
#include "clstat/bandwidth.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

// T(Sigma) and dT/dSigma (symmetric d x d) over the sphered rows xs, for each Sigma given: all
// their passes enqueued, then one wait.
struct GaussianSum {
  double value = 0;
  Mat grad;
};

std::vector<GaussianSum> gaussian_sums(const Queue& q, const char* op, const Mat& xs, const std::vector<Mat>& sigmas,
                                       bool with_grad) {
  const auto D = xs.cols();
  const std::size_t d = static_cast<std::size_t>(D);
  const double n = static_cast<double>(xs.rows());
  HermiteTerms t;
  t.counts.push_back(std::vector<unsigned>(d, 0));
  if (with_grad)
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = a; b < d; ++b) {
        std::vector<unsigned> c(d, 0);
        ++c[a], ++c[b];
        t.counts.push_back(c);
      }
  std::vector<HermiteJob> jobs;
  std::vector<double> logdet;
  for (const Mat& Sigma : sigmas) {
    const Eigen::LLT<Mat> llt(Sigma);
    jobs.push_back({llt.matrixL().solve(Mat::Identity(D, D)), t});  // rows u = L^-1 x
    double ld = 0;
    for (Eigen::Index k = 0; k < D; ++k) ld += 2 * std::log(llt.matrixL()(k, k));
    logdet.push_back(ld);
  }
  const std::vector<std::vector<double>> s = hermite_sums(q, op, xs, jobs);
  std::vector<GaussianSum> out(sigmas.size());
  for (std::size_t j = 0; j < sigmas.size(); ++j) {
    const double c = std::pow(2 * M_PI, -static_cast<double>(d) / 2) * std::exp(-0.5 * logdet[j]);
    out[j].value = c * (2 * s[j][0] + n) / (n * n);
    if (with_grad) {
      const Mat& A = jobs[j].A;
      Mat M(D, D);
      std::size_t k = 1;
      for (Eigen::Index a = 0; a < D; ++a)
        for (Eigen::Index b = a; b < D; ++b) M(a, b) = M(b, a) = s[j][k++];
      out[j].grad = c / (2 * n * n) * (2 * A.transpose() * M * A - n * A.transpose() * A);
    }
  }
  return out;
}

// SCV in the sphered coordinates, its value and gradient in the coordinates of `basis` (vech(H)).
struct ScvCriterion {
  const Queue& q;
  const char* op;
  const Mat& xs;
  Mat G2;       // 2G
  double t3;    // T(2G)
  double a0;    // (4 pi)^(-d/2) / n
  std::vector<Mat> basis;

  // f at H, +inf where H is not positive definite; grad when asked.
  double evaluate(const Mat& H, Eigen::VectorXd* grad) const {
    Eigen::LLT<Mat> llt(H);
    if (llt.info() != Eigen::Success) return HUGE_VAL;
    double logdet = 0;
    for (Eigen::Index k = 0; k < H.rows(); ++k) logdet += 2 * std::log(llt.matrixL()(k, k));
    const double det_term = a0 * std::exp(-0.5 * logdet);
    const std::vector<GaussianSum> t = gaussian_sums(q, op, xs, {Mat(2 * H + G2), Mat(H + G2)}, grad != nullptr);
    const GaussianSum &t1 = t[0], &t2 = t[1];
    const double bias = t1.value - 2 * t2.value + t3;
    if (grad) {
      Mat GH = -0.5 * det_term * llt.solve(Mat::Identity(H.rows(), H.cols()));
      if (bias > 0) GH += 2 * t1.grad - 2 * t2.grad;
      grad->resize(static_cast<Eigen::Index>(basis.size()));
      for (std::size_t p = 0; p < basis.size(); ++p) (*grad)(static_cast<Eigen::Index>(p)) = GH.cwiseProduct(basis[p]).sum();
    }
    return det_term + std::max(0.0, bias);
  }
  Mat matrix(const Eigen::VectorXd& h) const {
    Mat M = Mat::Zero(basis[0].rows(), basis[0].cols());
    for (std::size_t p = 0; p < basis.size(); ++p) M += h(static_cast<Eigen::Index>(p)) * basis[p];
    return M;
  }
};

// BFGS on vech(H) from H0 with exact gradients: backtracking (Armijo) steps that keep H positive
// definite; the update skipped where the curvature condition fails. Converged when a step changes
// no entry of H by more than 1e-12 of its largest entry, or where SCV can no longer rank steps
// (the directional derivative within 1e-13 of SCV) and a full step is taken instead; at most 200
// iterations.
Mat minimise(const ScvCriterion& cr, const Mat& H0, std::size_t& iterations, bool& converged) {
  const auto m = static_cast<Eigen::Index>(cr.basis.size());
  Eigen::VectorXd h(m);
  for (Eigen::Index p = 0; p < m; ++p) {
    const Mat& E = cr.basis[static_cast<std::size_t>(p)];
    Eigen::Index i = 0, j = 0;
    E.maxCoeff(&i, &j);
    h(p) = H0(i, j);
  }
  Eigen::VectorXd g;
  double f = cr.evaluate(cr.matrix(h), &g);
  Mat Binv = Mat::Identity(m, m) * (0.1 * h.cwiseAbs().maxCoeff() / std::max(g.cwiseAbs().maxCoeff(), 1e-300));
  converged = false;
  for (iterations = 0; iterations < 200; ++iterations) {
    Eigen::VectorXd dir = -Binv * g;
    if (g.dot(dir) >= 0) {  // not a descent direction: restart from the gradient
      Binv = Mat::Identity(m, m) * (0.1 * h.cwiseAbs().maxCoeff() / std::max(g.cwiseAbs().maxCoeff(), 1e-300));
      dir = -Binv * g;
    }
    if (dir.cwiseAbs().maxCoeff() <= 1e-12 * h.cwiseAbs().maxCoeff()) {
      converged = true;
      break;
    }
    const double slope = g.dot(dir);
    Eigen::VectorXd gn, hn;
    double fn = HUGE_VAL, t = 1;
    bool moved = false;
    const bool flat = -slope <= 1e-13 * std::fabs(f);
    for (int k = 0; k < 60; ++k, t /= 2) {
      hn = h + t * dir;
      fn = cr.evaluate(cr.matrix(hn), &gn);
      if (fn < HUGE_VAL && (flat || fn <= f + 1e-4 * t * slope)) {
        moved = true;
        break;
      }
    }
    if (!moved) break;
    const Eigen::VectorXd sv = hn - h, yv = gn - g;
    const double sy = sv.dot(yv);
    if (sy > 1e-300) {
      const double rho = 1 / sy;
      const Mat I = Mat::Identity(m, m);
      Binv = (I - rho * sv * yv.transpose()) * Binv * (I - rho * yv * sv.transpose()) + rho * sv * sv.transpose();
    }
    const bool tiny = sv.cwiseAbs().maxCoeff() <= 1e-12 * hn.cwiseAbs().maxCoeff();
    h = hn, g = gn, f = fn;
    if (tiny) {
      converged = true;
      break;
    }
  }
  return cr.matrix(h);
}

// ks's gamse.scv: the samse pilot of SCV from a pilot H (Hamise) and the order-6 functionals
// (estimated at gsamse's g_6 with two stages, the normal reference with one).
double samse_scv_pilot(const Queue& q, const char* op, const Mat& xs, const Mat& Hamise, int stages) {
  const std::size_t d = static_cast<std::size_t>(xs.cols());
  const double n = static_cast<double>(xs.rows()), dd = static_cast<double>(d);
  const auto all6 = multi_indices(d, 6, false);
  std::vector<double> psi6(all6.size());
  if (stages == 2) {
    const auto normal = [](const std::vector<unsigned>& c) { return normal_derivative_at_zero(c, std::sqrt(2.0)); };
    const double g6 = samse_pilot(d, n, 6, laplacian_contractions(d, 6, normal));
    HermiteTerms t;
    t.counts = all6;
    const auto D = static_cast<Eigen::Index>(d);
    const std::vector<double> s = hermite_sums(q, op, xs, Mat(Mat::Identity(D, D) / g6), t);
    for (std::size_t k = 0; k < all6.size(); ++k) psi6[k] = functional_of(all6[k], s[k], g6, n);
  } else {
    for (std::size_t k = 0; k < all6.size(); ++k) psi6[k] = normal_derivative_at_zero(all6[k], std::sqrt(2.0));
  }
  // psi_6 at an index tuple (symmetric: its multi-index), looked up in a map: the sums below
  // make d^6 lookups.
  std::map<std::vector<unsigned>, double> by_index;
  for (std::size_t k = 0; k < all6.size(); ++k) by_index.emplace(all6[k], psi6[k]);
  const auto at = [&](std::initializer_list<std::size_t> idx) {
    std::vector<unsigned> c(d, 0);
    for (std::size_t i : idx) ++c[i];
    return by_index.at(c);
  };
  const Mat& H = Hamise;
  // Cmu1Cmu1 = 1/4 sum H_aa' H_bb' psi(a, b, m) psi(a', b', m) over a, a', b, b' and 4-tuples m;
  // Cmu1Cmu2 = 3/4 (4 pi)^(-d/2) sum H_ab H_ce psi(a, b, c, e, k, k).
  double c11 = 0, c12 = 0;
  std::size_t tuples = 1;
  for (int k = 0; k < 4; ++k) tuples *= d;
  std::vector<double> P(d * d), Q(d * d);
  for (std::size_t t = 0; t < tuples; ++t) {
    std::size_t m[4], v = t;
    for (auto& i : m) i = v % d, v /= d;
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) P[a * d + b] = at({a, b, m[0], m[1], m[2], m[3]});
    // Q = H P H (H symmetric), then sum P .* Q.
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) {
        double s = 0;
        for (std::size_t i = 0; i < d; ++i)
          for (std::size_t j = 0; j < d; ++j)
            s += H(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(i)) * P[i * d + j] *
                 H(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(b));
        Q[a * d + b] = s;
      }
    for (std::size_t k = 0; k < d * d; ++k) c11 += P[k] * Q[k];
  }
  c11 /= 4;
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b)
      for (std::size_t c = 0; c < d; ++c)
        for (std::size_t e = 0; e < d; ++e)
          for (std::size_t k = 0; k < d; ++k)
            c12 += H(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) *
                   H(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(e)) * at({a, b, c, e, k, k});
  c12 *= 0.75 * std::pow(4 * M_PI, -dd / 2);
  const double trH = H.trace(), trH2 = (H * H).trace();
  const double c22 = std::pow(4 * M_PI, -dd) / 64 * (4 * trH2 + (dd + 8) * trH * trH);
  const double num = 2 * (dd + 4) * c22;
  const double den = -(dd + 2) * c12 + std::sqrt((dd + 2) * (dd + 2) * c12 * c12 + 8 * (dd + 4) * c11 * c22);
  return std::pow(num / (den * n), 1 / (dd + 6));
}


MatrixSelectorResult scv_H_on(const Queue& q, const double* x, std::size_t n, std::size_t d,
                              const MatrixSelectorOptions& o) {
  const char* op = "clstat::bandwidth::scv_H";
  detail::Lease lease = detail::Lease::named(q);
  const Sphered sp = sphere(op, x, n, d);
  const Mat& xs = sp.xs;
  const auto D = static_cast<Eigen::Index>(d);
  const double nn = static_cast<double>(n), dd = static_cast<double>(d);
  MatrixSelectorResult r;
  r.pilot = o.pilot == MatrixPilot::automatic ? (d == 2 ? MatrixPilot::samse : MatrixPilot::dscalar) : o.pilot;
  double g;
  if (r.pilot == MatrixPilot::dscalar) {
    if (o.stages == 1) {
      g = dscalar_normal_pilot(d, nn, 1, true);
    } else {
      const double g6 = dscalar_normal_pilot(d, nn, 2, true);
      const double s = hermite_sums(q, op, xs, Mat(Mat::Identity(D, D) / g6), HermiteTerms{true, {}})[0];
      g = dscalar_second_pilot(d, nn, eta6_of(d, s, g6, nn), true);
    }
  } else {
    const MatrixSelectorResult pilot = plugin_sphered(q, op, xs, MatrixSelectorOptions{1, MatrixPilot::samse});
    const Mat Hamise = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
        pilot.H_sphered.data(), D, D);
    g = samse_scv_pilot(q, op, xs, Hamise, o.stages);
  }
  if (!(g > 0 && std::isfinite(g)))
    throw std::invalid_argument(std::string(op) + ": the pilot bandwidth is not positive (an order-6 functional "
                                "estimate has the wrong sign for these data); try stages = 1");
  ScvCriterion cr{q, op, xs, 2 * g * g * Mat::Identity(D, D), 0, std::pow(4 * M_PI, -dd / 2) / nn, {}};
  cr.t3 = gaussian_sums(q, op, xs, {cr.G2}, false)[0].value;
  for (Eigen::Index i = 0; i < D; ++i)
    for (Eigen::Index j = i; j < D; ++j) {
      Mat E = Mat::Zero(D, D);
      E(i, j) = E(j, i) = 1;
      cr.basis.push_back(E);
    }
  const Mat H0 = std::pow(4 / (nn * (dd + 2)), 2 / (dd + 4)) * Mat::Identity(D, D);
  const Mat Hs = minimise(cr, H0, r.iterations, r.converged);
  r.criterion = cr.evaluate(Hs, nullptr);
  r.pilot_g = g;
  r.H_sphered = row_major(Hs);
  r.H = row_major(sp.S12 * Hs * sp.S12);
  return r;
}

}  // namespace

MatrixSelectorResult scv_H(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                           const MatrixSelectorOptions& o) {
  check_matrix_selector("clstat::bandwidth::scv_H", ctx, x, n, d, o, "scv_h", false);
  detail::Lease lease = detail::Lease::any(ctx);
  return scv_H_on(lease.queue(), x, n, d, o);
}

Future<MatrixSelectorResult> scv_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                         const MatrixSelectorOptions& o, const std::vector<Event>& wait) {
  check_matrix_selector("clstat::bandwidth::scv_H_async", q.context(), x, n, d, o, "scv_h", false);
  return detail::host_task<MatrixSelectorResult>(q, wait, [=] { return scv_H_on(q, x, n, d, o); });
}

}  // namespace clstat::bandwidth
