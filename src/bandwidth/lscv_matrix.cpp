// LSCV_H (paper sec. 3.2.3, 6.3) and the single LSCV(H) evaluation.
//
// Parametrisation: theta = the lower Cholesky factor L of H (H = L L'), row by row, with log L_kk
// in place of the diagonal, so every theta gives a positive definite H and H^-1 = A'A with
// A = L^-1 (whitening is then one triangular solve on the host and d(d+1)/2 multiply-adds per point
// on the device). ks parametrises by vech(H^(1/2)) instead; both reach the same minima.
// The start is the normal-scale H (the paper's eq. (25) gives its square root).
#include <cmath>
#include <cstring>
#include <exception>
#include <string>
#include <stdexcept>

#include "bandwidth/bandwidth_input.hpp"
#include "bandwidth/lscv_device.hpp"
#include "bandwidth/nelder_mead.hpp"
#include "clstat/bandwidth.hpp"
#include "clstat/exchange.hpp"
#include "clstat/group.hpp"
#include "runtime/exchange_values.hpp"
#include "runtime/lease.hpp"

namespace clstat::bandwidth {

using namespace bandwidth_detail;

namespace {

struct Evaluator {
  WhitenedPairs pairs;
  std::size_t n, d;
  Evaluator(const Context& ctx, const char* op, const double* x, std::size_t n_, std::size_t d_)
      : pairs(ctx, op, x, n_, d_), n(n_), d(d_) {}
  // Over a group's members: each evaluation's pair pass split by tiles (lscv_device.hpp).
  Evaluator(const std::vector<Context>& devices, const std::vector<double>& weights, const char* op, const double* x,
            std::size_t n_, std::size_t d_)
      : pairs(devices, weights, op, x, n_, d_), n(n_), d(d_) {}
  // Over processes: each evaluation's tiles dealt to them, every process the same sums.
  Evaluator(const Context& ctx, Exchange& ex, const char* op, const double* x, std::size_t n_, std::size_t d_)
      : pairs(ctx, ex, op, x, n_, d_), n(n_), d(d_) {}
  // LSCV at H = L L' (L lower triangular with a positive diagonal).
  double at_factor(const Mat& L) const {
    const Mat A = L.triangularView<Eigen::Lower>().solve(Mat::Identity(L.rows(), L.cols()));
    double s4 = 0, s2 = 0;
    pairs.sums(A, s4, s2);
    return lscv_value(2 * L.diagonal().array().log().sum(), n, d, s4, s2);
  }
};

Mat factor_of(const Eigen::VectorXd& t, std::size_t d) {
  const auto D = static_cast<Eigen::Index>(d);
  Mat L = Mat::Zero(D, D);
  Eigen::Index i = 0;
  for (Eigen::Index r = 0; r < D; ++r)
    for (Eigen::Index c = 0; c <= r; ++c, ++i) L(r, c) = r == c ? std::exp(t(i)) : t(i);
  return L;
}

Eigen::VectorXd theta_of(const Mat& H) {
  const Mat L = Eigen::LLT<Mat>(H).matrixL();
  const Eigen::Index D = H.rows();
  Eigen::VectorXd t(D * (D + 1) / 2);
  Eigen::Index i = 0;
  for (Eigen::Index r = 0; r < D; ++r)
    for (Eigen::Index c = 0; c <= r; ++c, ++i) t(i) = r == c ? std::log(L(r, c)) : L(r, c);
  return t;
}

// Initial simplex steps: 0.1 on the log diagonal (10% of scale); 0.1 L_rr on the off-diagonal
// entries of row r, so the steps follow the data's units.
Eigen::VectorXd steps_for(const Eigen::VectorXd& t, std::size_t d) {
  const Mat L = factor_of(t, d);
  Eigen::VectorXd s(t.size());
  Eigen::Index i = 0;
  for (Eigen::Index r = 0; r < L.rows(); ++r)
    for (Eigen::Index c = 0; c <= r; ++c, ++i) s(i) = r == c ? 0.1 : 0.1 * L(r, r);
  return s;
}

}  // namespace

struct LscvObjective::Impl {
  Evaluator e;
  Impl(const Context& ctx, const char* op, const double* x, std::size_t n, std::size_t d) : e(ctx, op, x, n, d) {}
};

LscvObjective::LscvObjective(const Context& ctx, const double* x, std::size_t n, std::size_t d) {
  const char* op = "clstat::bandwidth::LscvObjective";
  check_data(op, x, n, d);
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  impl_ = std::make_unique<Impl>(ctx, op, x, n, d);
}

LscvObjective::~LscvObjective() = default;

double LscvObjective::operator()(const std::vector<double>& H) const {
  const Mat M = checked_matrix("clstat::bandwidth::LscvObjective", H, impl_->e.d);
  return impl_->e.at_factor(Eigen::LLT<Mat>(M).matrixL());
}

Future<double> LscvObjective::evaluate_async(const Queue& q, const std::vector<double>& H,
                                             const std::vector<Event>& wait) const {
  const Mat M = checked_matrix("clstat::bandwidth::LscvObjective::evaluate_async", H, impl_->e.d);
  const Mat L = Eigen::LLT<Mat>(M).matrixL();
  const Impl* impl = impl_.get();  // the object must outlive the Future (documented)
  return detail::host_task<double>(q, wait, [impl, L] { return impl->e.at_factor(L); });
}

std::size_t LscvObjective::n() const { return impl_->e.n; }
std::size_t LscvObjective::d() const { return impl_->e.d; }

Future<double> lscv_objective_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                    const std::vector<double>& H, const std::vector<Event>& wait) {
  const char* op = "clstat::bandwidth::lscv_objective";
  const Context ctx = q.context();
  check_data(op, x, n, d);
  const Mat M = checked_matrix(op, H, d);
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  const Mat L = Eigen::LLT<Mat>(M).matrixL();
  return detail::host_task<double>(q, wait, [=] {
    Evaluator e(q.context(), op, x, n, d);
    return e.at_factor(L);
  });
}

namespace {

void check_lscv_H(const char* op, const Context& ctx, const double* x, std::size_t n, std::size_t d,
                  const LscvMatrixOptions& o) {
  check_data(op, x, n, d);
  if (!(o.rel_tol > 0)) throw std::invalid_argument(std::string(op) + ": rel_tol must be positive");
  if (o.restarts > 6) throw std::invalid_argument(std::string(op) + ": at most 6 restarts");
  if (o.max_evaluations < 10) throw std::invalid_argument(std::string(op) + ": max_evaluations must be at least 10");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
}

// The search, given how to make the evaluator (one device or a group's members).
template <class Make>
LscvMatrixResult lscv_H_search(const char* op, const double* x, std::size_t n, std::size_t d,
                               const LscvMatrixOptions& o, Make&& make) {
  const Mat S = covariance(op, x, n, d);
  reject_duplicates(op, x, n, d);
  const double dd = static_cast<double>(d);
  const Mat Hns = S * std::pow(4 / ((dd + 2) * static_cast<double>(n)), 2 / (dd + 4));
  const Evaluator e = make();

  LscvMatrixResult best;
  best.objective = HUGE_VAL;
  std::size_t evaluations = 0;
  // H stays well conditioned: in the coordinates where H_NS is the identity, its eigenvalues stay
  // within 1e-6..1e6 (a condition number at most 1e12 times H_NS's). Beyond that the objective is
  // +inf, so the simplex turns back, and no evaluation is spent (the LSCV surface has no minimum
  // there that a kernel estimate could use: H collapses onto a line).
  const Mat Lns = Eigen::LLT<Mat>(Hns).matrixL();
  const Mat Lns_inv = Lns.triangularView<Eigen::Lower>().solve(Mat::Identity(Lns.rows(), Lns.cols()));
  auto well_conditioned = [&](const Mat& L) {
    const Mat M = Lns_inv * L;  // H relative to H_NS: M M'
    const Eigen::SelfAdjointEigenSolver<Mat> es(M * M.transpose(), Eigen::EigenvaluesOnly);
    return es.eigenvalues().minCoeff() >= 1e-6 && es.eigenvalues().maxCoeff() <= 1e6;
  };
  auto f = [&](const Eigen::VectorXd& t) {
    const Mat L = factor_of(t, d);
    if (!well_conditioned(L)) return HUGE_VAL;
    const double v = e.at_factor(L);
    ++evaluations;
    if (v < best.objective) best.objective = v, best.H = row_major(L * L.transpose());
    if (o.progress)
      o.progress({static_cast<double>(evaluations), static_cast<double>(o.max_evaluations),
                  "lscv_H: evaluation " + std::to_string(evaluations) + ", best LSCV " + std::to_string(best.objective)});
    return v;
  };
  // Run r starts from Hns * scale_r; each run restarts from its own optimum with a fresh simplex
  // until that gains nothing (a collapsed simplex can stop Nelder-Mead short of a minimum).
  const double scales[] = {1, 0.5, 2, 0.25, 4, 0.125, 8};
  // max_evaluations bounds the whole search, every run and restart together: a search that has
  // not met rel_tol by then returns its best point with converged = false.
  for (std::size_t run = 0; run <= o.restarts && evaluations < o.max_evaluations; ++run) {
    Eigen::VectorXd t = theta_of(Hns * scales[run]);
    double prev = HUGE_VAL;
    for (int round = 0; round < 20 && evaluations + d * (d + 1) / 2 + 1 < o.max_evaluations; ++round) {
      const NelderMeadResult r = nelder_mead(f, t, steps_for(t, d), o.rel_tol, o.max_evaluations - evaluations);
      t = r.x;
      const bool gained = r.f < prev - o.rel_tol * std::abs(r.f);
      if (r.f <= best.objective) best.converged = r.converged;
      prev = std::min(prev, r.f);
      if (!gained) break;
    }
  }
  best.evaluations = evaluations;
  return best;
}

LscvMatrixResult lscv_H_on(const Queue& q, const double* x, std::size_t n, std::size_t d, const LscvMatrixOptions& o) {
  const char* op = "clstat::bandwidth::lscv_H";
  detail::Lease lease = detail::Lease::named(q);  // every evaluation below runs on q
  const Context ctx = q.context();
  return lscv_H_search(op, x, n, d, o, [&] { return Evaluator(ctx, op, x, n, d); });
}

}  // namespace

LscvMatrixResult lscv_H(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, std::size_t d,
                        const LscvMatrixOptions& o) {
  const std::string op = "clstat::bandwidth::lscv_H (processes)";
  std::exception_ptr err;
  try {
    if (d == 0) throw std::invalid_argument(op + ": d = 0");
    if (n_local > 0 && !x) throw std::invalid_argument(op + ": null data pointer with n_local = " + std::to_string(n_local));
    if (!(o.rel_tol > 0)) throw std::invalid_argument(op + ": rel_tol must be positive");
    if (o.restarts > 6) throw std::invalid_argument(op + ": at most 6 restarts");
    if (o.max_evaluations < 10) throw std::invalid_argument(op + ": max_evaluations must be at least 10");
    if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "needs a device with fp64 (cl_khr_fp64)");
  } catch (...) {
    err = std::current_exception();
  }
  std::uint64_t args = hash_bytes(hash_seed, &d, sizeof d);
  args = hash_bytes(args, &o.restarts, sizeof o.restarts);
  args = hash_bytes(args, &o.rel_tol, sizeof o.rel_tol);
  args = hash_bytes(args, &o.max_evaluations, sizeof o.max_evaluations);
  const std::vector<double> all = detail::gather_values(ex, op, err, args, x, n_local * d);
  const std::size_t n = all.size() / d;
  check_data(op.c_str(), all.data(), n, d);  // the same data everywhere: every process throws alike
  return lscv_H_search(op.c_str(), all.data(), n, d, o, [&] { return Evaluator(ctx, ex, op.c_str(), all.data(), n, d); });
}

LscvMatrixResult lscv_H(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d,
                        const LscvMatrixOptions& o) {
  const char* op = "clstat::bandwidth::lscv_H";
  for (std::size_t i = 0; i < g.size(); ++i) check_lscv_H(op, g.member(i), x, n, d, o);
  std::vector<Context> members;
  for (std::size_t i = 0; i < g.size(); ++i) members.push_back(g.member(i));
  return lscv_H_search(op, x, n, d, o, [&] { return Evaluator(members, g.weights(), op, x, n, d); });
}

LscvMatrixResult lscv_H(const Context& ctx, const double* x, std::size_t n, std::size_t d, const LscvMatrixOptions& o) {
  check_lscv_H("clstat::bandwidth::lscv_H", ctx, x, n, d, o);
  detail::Lease lease = detail::Lease::any(ctx);
  return lscv_H_on(lease.queue(), x, n, d, o);
}

Future<LscvMatrixResult> lscv_H_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                      const LscvMatrixOptions& o, const std::vector<Event>& wait) {
  check_lscv_H("clstat::bandwidth::lscv_H_async", q.context(), x, n, d, o);
  return detail::host_task<LscvMatrixResult>(q, wait, [=] { return lscv_H_on(q, x, n, d, o); });
}

double lscv_objective(const Context& ctx, const double* x, std::size_t n, std::size_t d, const std::vector<double>& H) {
  detail::Lease lease = detail::Lease::any(ctx);  // the async form then runs inline on it
  return lscv_objective_async(lease.queue(), x, n, d, H).get();
}

}  // namespace clstat::bandwidth
