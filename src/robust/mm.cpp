// MM-regression (Yohai 1987) as robustbase's lmrob: an S-estimate by fast-S (Salibian-Barrera &
// Yohai 2006), then the IRWLS M-step with its scale fixed, and the standard errors of
// .vcov.avar1 (Croux, Dhaene & Hoorelbeke 2003). Both steps use Tukey's bisquare.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>

#include "build/program_cache.hpp"
#include "clstat/robust.hpp"
#include "runtime/host_parallel.hpp"
#include "runtime/launch.hpp"
#include "robust/design.hpp"
#include "robust/philox.hpp"
#include "robust/row_blocks.hpp"
#include "runtime/lease.hpp"

namespace clstat::robust {

using namespace detail;

namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;
constexpr const char* kOp = "clstat::robust::mm";
constexpr std::size_t kLargeN = 2000, kBest = 2;

// Tukey's bisquare with tuning c, as robustbase's Mchi / Mpsi: rho normalised to 1 at |x| >= c.
double rho(double x, double c) {
  const double u = x / c;
  if (std::fabs(u) >= 1) return 1;
  const double v = 1 - u * u;
  return 1 - v * v * v;
}
double rho_d(double x, double c) {  // rho'
  const double u = x / c;
  if (std::fabs(u) >= 1) return 0;
  const double v = 1 - u * u;
  return 6 * x / (c * c) * v * v;
}
double psi(double x, double c) {
  const double u = x / c;
  if (std::fabs(u) >= 1) return 0;
  const double v = 1 - u * u;
  return x * v * v;
}
double psi_d(double x, double c) {
  const double u = x / c;
  if (std::fabs(u) >= 1) return 0;
  return (1 - u * u) * (1 - 5 * u * u);
}
double weight(double x, double c) {  // psi(x) / x, 1 at 0
  const double u = x / c;
  if (std::fabs(u) >= 1) return 0;
  const double v = 1 - u * u;
  return v * v;
}

// The M-scale: s with rho_sum(s) = sum rho(r_i / s) = target ((n - q) b), by robustbase's
// fixed-point iteration s <- s sqrt(rho_sum(s) / target) from s0 > 0, to a relative change of tol.
template <class RhoSum>
double solve_scale(RhoSum&& rho_sum, double target, double s0, double tol) {
  double s = s0;
  for (int it = 0; it < 200; ++it) {
    const double next = s * std::sqrt(rho_sum(s) / target);
    if (std::fabs(next / s - 1) <= tol) return next;
    s = next;
  }
  return s;
}

// The M-scale of residuals held on the host, from s0 (the MAD when s0 <= 0).
double m_scale(const Vec& r, std::size_t q, double b, double c, double s0, double tol) {
  const std::size_t n = static_cast<std::size_t>(r.size());
  double s = s0;
  if (!(s > 0)) {
    std::vector<double> a(n);
    for (std::size_t i = 0; i < n; ++i) a[i] = std::fabs(r(static_cast<Eigen::Index>(i)));
    std::nth_element(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n / 2), a.end());
    s = a[n / 2] / 0.6745;
    if (!(s > 0)) return 0;
  }
  auto sum = [&](double t) {
    double acc = 0;
    for (Eigen::Index i = 0; i < r.size(); ++i) acc += rho(r(i) / t, c);
    return acc;
  };
  return solve_scale(sum, static_cast<double>(n - q) * b, s, tol);
}

// Weighted least squares: argmin sum w_i (y_i - x_i b)^2 (column-pivoting QR); empty if rank < q.
Vec wls(const Mat& X, const Vec& y, const Vec& w) {
  const Vec sw = w.cwiseSqrt();
  Mat A = X;
  for (Eigen::Index i = 0; i < A.rows(); ++i) A.row(i) *= sw(i);
  Eigen::ColPivHouseholderQR<Mat> qr(A);
  if (qr.rank() < A.cols()) return {};
  return qr.solve(y.cwiseProduct(sw));
}

struct Candidate {
  Vec beta;
  double scale = std::numeric_limits<double>::infinity();
};

// The passes of the iterations on rows held by the host (the subsets' steps on at most 2000 rows):
// the same interface as DeviceIrls below.
class HostIrls {
 public:
  HostIrls(const Mat& x, const Vec& y) : x_(x), y_(y) {}
  void residuals(const Vec& beta) { r_ = y_ - x_ * beta; }
  // The M-scale of the residuals kept, from s0 (the MAD when s0 <= 0).
  double scale(std::size_t q, double b, double c, double s0) const { return m_scale(r_, q, b, c, s0, 1e-12); }
  Vec step(const Vec& beta, double s, double c) const {
    const Vec r = y_ - x_ * beta;
    Vec w(r.size());
    for (Eigen::Index i = 0; i < r.size(); ++i) w(i) = weight(r(i) / s, c);
    return wls(x_, y_, w);
  }

 private:
  const Mat& x_;
  const Vec& y_;
  Vec r_;
};

// The full-data passes on the device (cl/robust/mm_irls.cl): z (n x q, standardised, ones first
// with an intercept) and y uploaded once.
class DeviceIrls {
 public:
  DeviceIrls(const Queue& q, const Mat& z, const Vec& y) : q_(q), ci_(q.context().impl()), n_(z.rows()), k_(z.cols()) {
    const bool cpu = ci_->info().type == DeviceType::cpu;
    groups_ = std::max<std::size_t>(1, (cpu ? 1 : 4) * ci_->info().compute_units);
    const std::string opt = build::base_options(*ci_, true, kOp) + " -DQ=" + std::to_string(k_) + " -DTILE=64";
    prog_ = build::program_for_wg(*ci_, "robust/mm_irls", opt, "mm_gram", 128, wg_);
    const std::size_t n = static_cast<std::size_t>(n_), k = static_cast<std::size_t>(k_);
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    x_ = cl::Buffer(ci_->context, CL_MEM_READ_ONLY, n * k * sizeof(double));
    y_ = cl::Buffer(ci_->context, CL_MEM_READ_ONLY, n * sizeof(double));
    r_ = cl::Buffer(ci_->context, CL_MEM_READ_WRITE, n * sizeof(double));
    ::clstat::detail::write_wait(cq, x_, 0, n * k * sizeof(double), z.data());
    ::clstat::detail::write_wait(cq, y_, 0, n * sizeof(double), y.data());
    part_ = cl::Buffer(ci_->context, CL_MEM_READ_WRITE, groups_ * (k * (k + 1) / 2 + k) * sizeof(double));
  }
  // The residuals of beta, kept on the device for scale().
  void residuals(const Vec& beta) {
    cl::Buffer b = ::clstat::detail::staged(q_, Scratch::beta, beta.data(), beta.size() * sizeof(double));
    cl::Kernel kr = build::kernel(*prog_, "mm_resid", q_.index());
    kr.setArg(0, x_);
    kr.setArg(1, y_);
    kr.setArg(2, static_cast<cl_ulong>(n_));
    kr.setArg(3, b);
    kr.setArg(4, r_);
    const std::size_t n = static_cast<std::size_t>(n_);
    ::clstat::detail::launch(q_, kr, cl::NDRange((n + 63) / 64 * 64), cl::NDRange(64), {}, kOp);
  }
  // sum rho(r_i / s) over the residuals kept.
  double rho_sum(double s, double c) {
    cl::Kernel k = build::kernel(*prog_, "mm_rho", q_.index());
    k.setArg(0, r_);
    k.setArg(1, static_cast<cl_ulong>(n_));
    k.setArg(2, s);
    k.setArg(3, c);
    k.setArg(4, part_);
    ::clstat::detail::launch(q_, k, cl::NDRange(groups_ * wg_), cl::NDRange(wg_), {}, kOp);
    std::vector<double> h(groups_);
    ::clstat::detail::read_wait(::clstat::detail::queue_of(q_), part_, 0, groups_ * sizeof(double), h.data());
    double sum = 0;
    for (double v : h) sum += v;
    return sum;
  }
  // The M-scale of the residuals kept, from s0 > 0 (as m_scale).
  double scale(std::size_t q, double b, double c, double s0) {
    const double target = static_cast<double>(n_ - static_cast<Eigen::Index>(q)) * b;
    return solve_scale([&](double s) { return rho_sum(s, c); }, target, s0, 1e-12);
  }
  // One IRWLS step: weights from beta's residuals at scale s, bisquare c; the weighted least
  // squares solution by the normal equations (z is standardised), empty if they are singular.
  Vec step(const Vec& beta, double s, double c) {
    const std::size_t k = static_cast<std::size_t>(k_), nt = k * (k + 1) / 2;
    cl::Buffer b = ::clstat::detail::staged(q_, Scratch::beta, beta.data(), k * sizeof(double));
    cl::Kernel kg = build::kernel(*prog_, "mm_gram", q_.index());
    kg.setArg(0, x_);
    kg.setArg(1, y_);
    kg.setArg(2, static_cast<cl_ulong>(n_));
    kg.setArg(3, b);
    kg.setArg(4, s);
    kg.setArg(5, c);
    kg.setArg(6, r_);
    kg.setArg(7, part_);
    ::clstat::detail::launch(q_, kg, cl::NDRange(groups_ * wg_), cl::NDRange(wg_), {}, kOp);
    std::vector<double> h(groups_ * (nt + k));
    ::clstat::detail::read_wait(::clstat::detail::queue_of(q_), part_, 0, h.size() * sizeof(double), h.data());
    Mat G = Mat::Zero(k_, k_);
    Vec g = Vec::Zero(k_);
    for (std::size_t grp = 0; grp < groups_; ++grp) {
      const double* p = h.data() + grp * (nt + k);
      std::size_t e = 0;
      for (std::size_t a = 0; a < k; ++a)
        for (std::size_t bb = a; bb < k; ++bb, ++e) G(a, bb) += p[e];
      for (std::size_t a = 0; a < k; ++a) g(a) += p[nt + a];
    }
    G = G.selfadjointView<Eigen::Upper>();
    Eigen::LDLT<Mat> ldlt(G);
    if (ldlt.info() != Eigen::Success || !ldlt.isPositive() || ldlt.vectorD().minCoeff() <= 1e-12 * ldlt.vectorD().maxCoeff())
      return {};
    return ldlt.solve(g);
  }

 private:
  enum class Scratch { beta };
  Queue q_;
  std::shared_ptr<::clstat::detail::ContextImpl> ci_;
  Eigen::Index n_, k_;
  std::size_t groups_ = 1, wg_ = 64;
  std::shared_ptr<::clstat::detail::BuiltProgram> prog_;
  cl::Buffer x_, y_, r_, part_;
};

// IRWLS steps of the S-estimate from beta on the rows `rows` holds (HostIrls or DeviceIrls): each
// takes the M-scale of the residuals (from the last one, first from s0) and refits with weights
// psi(r / s) / (r / s); `steps` of them, or until the relative change of beta is at most tol.
template <class Rows>
Candidate refine(Rows& rows, Vec beta, double s0, std::size_t q, double b, double c, int steps, double tol,
                 bool& converged) {
  converged = false;
  double s = s0;
  for (int k = 0; k < steps; ++k) {
    rows.residuals(beta);
    s = rows.scale(q, b, c, s);
    if (!(s > 0)) break;
    Vec next = rows.step(beta, s, c);
    if (next.size() == 0) break;
    const double d = (next - beta).norm();
    beta = std::move(next);
    if (d <= tol * std::max(tol, beta.norm())) {
      converged = true;
      break;
    }
  }
  rows.residuals(beta);
  Candidate out;
  out.beta = beta;
  out.scale = rows.scale(q, b, c, s);
  return out;
}

}  // namespace

MmFit mm(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y, const MmOptions& o) {
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const std::string op = kOp;
  if (n == 0 || !x || !y) throw std::invalid_argument(op + ": empty input or null pointer");
  const std::size_t q = p + (o.intercept ? 1 : 0);
  if (q == 0) throw std::invalid_argument(op + ": no coefficients (p = 0 without intercept)");
  if (q > 32) throw std::invalid_argument(op + ": " + std::to_string(q) + " coefficients (at most 32)");
  if (n <= 2 * q)
    throw std::invalid_argument(op + ": n = " + std::to_string(n) + "; need more than twice as many observations as the " +
                                std::to_string(q) + " coefficients");
  if (o.nsamp == 0) throw std::invalid_argument(op + ": nsamp = 0 random subsamples");
  if (!(o.tuning_chi > 0) || !(o.tuning_psi > 0) || !(o.bb > 0 && o.bb < 1))
    throw std::invalid_argument(op + ": tuning constants must be positive and bb in (0, 1)");
  // The passes over all n rows below run by blocks on the host's threads (robust/row_blocks.hpp):
  // at n = 1e6, q = 11, the design and its standardisation took 105 ms on one thread of a 2-core
  // machine, 63 ms on both.
  const auto Q = static_cast<Eigen::Index>(q), N = static_cast<Eigen::Index>(n);
  Mat X(N, Q);
  Vec Y(N);
  constexpr std::size_t kNoRow = std::numeric_limits<std::size_t>::max();
  std::vector<std::pair<std::size_t, bool>> bad(row_blocks(n), {kNoRow, false});  // a block's first: row, in y
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const auto r = static_cast<Eigen::Index>(i);
      if (!std::isfinite(y[i])) {
        bad[b] = {i, true};
        return;
      }
      Y(r) = y[i];
      Eigen::Index c = 0;
      if (o.intercept) X(r, c++) = 1;
      for (std::size_t j = 0; j < p; ++j) {
        const double v = x[i * p + j];
        if (!std::isfinite(v)) {
          bad[b] = {i, false};
          return;
        }
        X(r, c++) = v;
      }
    }
  });
  for (const auto& [row, in_y] : bad)  // the first in row order
    if (row != kNoRow) throw std::invalid_argument(op + (in_y ? ": y" : ": x") + " is not finite in row " + std::to_string(row));
  const double b = o.bb, cchi = o.tuning_chi, cpsi = o.tuning_psi;
  // The search runs on z: x's columns centred (with an intercept) and divided by their standard
  // deviation, so that the device's normal equations are well conditioned. The estimates are
  // regression equivariant: beta_x follows from beta_z exactly, up to rounding.
  Vec mean = Vec::Zero(Q);
  if (o.intercept) {
    mean = sum_rows(n, Q, [&](Vec& acc, std::size_t i) { acc += X.row(static_cast<Eigen::Index>(i)).transpose(); }) /
           static_cast<double>(n);
    mean(0) = 0;
  }
  Vec sd = sum_rows(n, Q, [&](Vec& acc, std::size_t i) {
    acc += (X.row(static_cast<Eigen::Index>(i)).transpose() - mean).array().square().matrix();
  });
  sd = (sd / static_cast<double>(n - 1)).cwiseSqrt();
  for (Eigen::Index j = 0; j < Q; ++j)
    if (!(sd(j) > 0) || (o.intercept && j == 0)) sd(j) = 1;
  const Eigen::RowVectorXd mean_row = mean.transpose(), inv_sd = sd.cwiseInverse().transpose();
  Mat Z(N, Q);
  for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const auto r = static_cast<Eigen::Index>(i);
      Z.row(r) = (X.row(r) - mean_row).cwiseProduct(inv_sd);
    }
  });
  // Linearly dependent columns: the standardised cross products (diagonal about n) must have full
  // numerical rank, as for LTS (design.cpp); by blocks on the host's threads, where a pivoted QR
  // of X took 0.47 s at n = 1e6, q = 11 on one thread.
  {
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(cross_products(Z.data(), n, q), Eigen::EigenvaluesOnly);
    if (!(es.eigenvalues().minCoeff() > 1e-12 * es.eigenvalues().maxCoeff()))
      throw std::invalid_argument(op + ": the columns of x are linearly dependent");
  }
  auto to_x = [&](const Vec& bz) {
    Vec bx = bz.cwiseQuotient(sd);
    if (o.intercept)
      for (Eigen::Index j = 1; j < bx.size(); ++j) bx(0) -= bx(j) * mean(j);
    return bx;
  };

  // fast-S: random q-subsets' exact fits, one IRWLS step each, the best two refined fully. Past
  // 2000 rows the subsets' steps and scales use 2000 random rows.
  std::vector<std::size_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0);
  if (n > kLargeN) {
    PhiloxStream rng(o.seed, 1, 0);
    for (std::size_t i = 0; i < kLargeN; ++i) std::swap(rows[i], rows[i + rng.below(n - i)]);
    rows.resize(kLargeN);
    std::sort(rows.begin(), rows.end());
  }
  Mat Xs(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(q));
  Vec Ys(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Xs.row(static_cast<Eigen::Index>(i)) = Z.row(static_cast<Eigen::Index>(rows[i]));
    Ys(static_cast<Eigen::Index>(i)) = Y(static_cast<Eigen::Index>(rows[i]));
  }
  MmFit f;
  f.n = n;
  f.q = q;
  // The subsets are independent (subset k draws from its own Philox stream), so they run on the
  // host's threads, each into its own slot; the best two are then chosen in subset order, as one
  // thread would (500 subsets of 11 columns took 0.6 s on one thread, whatever n).
  struct Subset {
    Candidate c;
    bool fitted = false;
    std::size_t singular = 0;
    std::exception_ptr error;
  };
  std::vector<Subset> subsets(o.nsamp);
  ::clstat::detail::parallel_tasks(o.nsamp, std::thread::hardware_concurrency(), [&](std::size_t k) {
    Subset& out = subsets[k];
    try {
      PhiloxStream rng(o.seed, 2, k);
      Vec beta;
      for (int attempt = 0; attempt < 50 && beta.size() == 0; ++attempt) {
        std::unordered_set<std::size_t> used;
        Mat A(static_cast<Eigen::Index>(q), static_cast<Eigen::Index>(q));
        Vec v(static_cast<Eigen::Index>(q));
        for (std::size_t j = 0; j < q; ++j) {
          std::size_t r;
          do r = rng.below(rows.size());
          while (!used.insert(r).second);
          A.row(static_cast<Eigen::Index>(j)) = Xs.row(static_cast<Eigen::Index>(r));
          v(static_cast<Eigen::Index>(j)) = Ys(static_cast<Eigen::Index>(r));
        }
        Eigen::FullPivLU<Mat> lu(A);
        if (lu.rank() == static_cast<Eigen::Index>(q)) beta = lu.solve(v);
        else ++out.singular;
      }
      if (beta.size() == 0) return;
      HostIrls subsample(Xs, Ys);
      bool conv;
      out.c = refine(subsample, beta, 0, q, b, cchi, 1, o.rel_tol, conv);
      out.fitted = true;
    } catch (...) {
      out.error = std::current_exception();
    }
  });
  std::vector<Candidate> best;
  for (Subset& sub : subsets) {
    if (sub.error) std::rethrow_exception(sub.error);
    f.singular_starts += sub.singular;
    ++f.starts;
    if (!sub.fitted) continue;
    if (sub.c.scale == 0)  // half the residuals are zero: an exact fit
      throw std::invalid_argument(op + ": the S-scale is zero: more than half the points lie on a hyperplane");
    if (!std::isfinite(sub.c.scale)) continue;
    best.push_back(std::move(sub.c));
    std::sort(best.begin(), best.end(), [](const Candidate& a, const Candidate& c2) { return a.scale < c2.scale; });
    if (best.size() > kBest) best.resize(kBest);
  }
  if (best.empty()) throw std::invalid_argument(op + ": no subsample gave a fit (the data are degenerate)");
  DeviceIrls dev(lease.queue(), Z, Y);
  Candidate s_est;
  bool s_conv = false;
  for (const Candidate& c : best) {
    bool conv;
    Candidate r = refine(dev, c.beta, c.scale, q, b, cchi, o.k_max, o.rel_tol, conv);
    if (r.scale < s_est.scale) {
      s_est = r;
      s_conv = conv;
    }
  }
  if (!(s_est.scale > 0))
    throw std::invalid_argument(op + ": the S-scale is zero: more than half the points lie on a hyperplane");
  const double s = s_est.scale;
  const Vec init = to_x(s_est.beta);
  f.init_coefficients.assign(init.data(), init.data() + q);
  f.scale = s;

  // M-step: IRWLS with the scale fixed.
  Vec beta = s_est.beta;
  f.converged = false;
  for (int it = 0; it < o.max_it; ++it) {
    Vec next = dev.step(beta, s, cpsi);
    if (next.size() == 0) throw std::invalid_argument(op + ": the M-step's weighted design is singular");
    const double d = (next - beta).norm();
    beta = std::move(next);
    f.iterations = it + 1;
    if (d <= o.rel_tol * std::max(o.rel_tol, beta.norm())) {
      f.converged = s_conv;
      break;
    }
  }
  beta = to_x(beta);
  f.coefficients.assign(beta.data(), beta.data() + q);
  Vec r(N), r0(N);
  f.weights.resize(n);
  // .vcov.avar1's weights too: the asymptotic covariance of the MM-estimate given its S start.
  Vec wd(N), w0d(N), wp(N), w0(N);
  for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t k = first; k < last; ++k) {
      const auto i = static_cast<Eigen::Index>(k);
      r(i) = Y(i) - X.row(i).dot(beta);
      r0(i) = Y(i) - X.row(i).dot(init);
      f.weights[k] = weight(r(i) / s, cpsi);
      wd(i) = psi_d(r(i) / s, cpsi);
      w0d(i) = rho_d(r0(i) / s, cchi);
      wp(i) = psi(r(i) / s, cpsi);
      w0(i) = rho(r0(i) / s, cchi);
    }
  });
  f.residuals.assign(r.data(), r.data() + n);
  f.outliers = rows_where(n, [&](std::size_t i) { return f.weights[i] < 0.1 / static_cast<double>(n); });
  const double nd = static_cast<double>(n);
  // The two weighted cross products by blocks on the host's threads (0.08 s each at n = 1e6,
  // q = 11 on one thread).
  const Vec wp2 = wp.array().square();
  const Mat XwX = cross_products(X.data(), n, q, wd.data());
  Eigen::FullPivLU<Mat> lu(XwX);
  if (!lu.isInvertible()) throw std::invalid_argument(op + ": X'WX is singular; no standard errors");
  const Mat A = lu.inverse() * s;
  const double m0 = (w0d.array() * (r0.array() / s)).mean();
  const Vec a = A * sum_rows(n, Q, [&](Vec& acc, std::size_t k) {
    const auto i = static_cast<Eigen::Index>(k);
    acc += X.row(i).transpose() * (wd(i) * (r(i) / s));
  }) / m0;
  const Vec Xww = sum_rows(n, Q, [&](Vec& acc, std::size_t k) {
    const auto i = static_cast<Eigen::Index>(k);
    acc += X.row(i).transpose() * (wp(i) * w0(i));
  });
  const Mat u1 = A * Mat(cross_products(X.data(), n, q, wp2.data())) * (nd * A);
  const Mat u2 = a * (Xww.transpose() * A);
  const Mat u3 = A * Xww * a.transpose();
  const double u4c = (w0.array() * w0.array() - b * b).mean();
  Mat V = (u1 - u2 - u3 + u4c * a * a.transpose()) / nd;
  V = (V + V.transpose()) / 2;
  Eigen::SelfAdjointEigenSolver<Mat> es(V);
  if ((es.eigenvalues().array() < 0).any()) {  // robustbase's posdefify
    const Vec d0 = V.diagonal();
    Vec lam = es.eigenvalues().cwiseMax(0);
    V = es.eigenvectors() * lam.asDiagonal() * es.eigenvectors().transpose();
    for (Eigen::Index i = 0; i < V.rows(); ++i)
      for (Eigen::Index j = 0; j < V.cols(); ++j)
        V(i, j) *= std::sqrt(std::max(0.0, d0(i)) / V(i, i)) * std::sqrt(std::max(0.0, d0(j)) / V(j, j));
  }
  f.cov.assign(V.data(), V.data() + q * q);
  for (std::size_t j = 0; j < q; ++j) f.std_errors.push_back(std::sqrt(V(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(j))));
  return f;
}

Future<MmFit> mm_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                       const MmOptions& o, const std::vector<Event>& wait) {
  if (n > 0 && (!x || !y)) throw std::invalid_argument("clstat::robust::mm_async: null input");
  return ::clstat::detail::host_task<MmFit>(q, wait, [=] { return mm(q.context(), x, n, p, y, o); });
}

}  // namespace clstat::robust
