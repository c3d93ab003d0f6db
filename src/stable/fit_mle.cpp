// stable::fit and fit_many: input checks, the quantile and ECF methods' results, and maximum
// likelihood. The MLE, for all data sets at once (each round's likelihood passes of every set
// that is still running go to the device as one batched call, fit_detail::loglik_many):
//  1. Start: McCulloch's estimate, or Koutrouvelis' when McCulloch's alpha is at its floor 0.3.
//  2. Contracting grid (Julian-Moreno et al. 2017, sec. 3.5, after Hesterman et al. 2010): the
//     3 x 3 nodes (alpha +- s_a, beta +- s_b) around the best point, each node's scale and loc
//     re-estimated by McCulloch's functions at that node's (alpha, beta); the best node becomes
//     the centre and the steps halve; 4 rounds from s = (0.1, 0.2), 9 nodes in the first, 8 after.
//  3. Newton's method on theta = (alpha, beta, log scale, loc0) (S0, where the likelihood is
//     smooth through alpha = 1): gradient and Hessian by central differences on a 21-point stencil
//     (one batched call; each cross term from the two diagonal points (+,+) and (-,-) and the
//     axis points, second order as the four-point form, which took 33 laws a stencil), the step
//     solved on the parameters not held at a bound, made positive definite by a Levenberg shift
//     when needed, and a line search over 4 step lengths (one more call). Stops when the
//     accepted step is below tol in every coordinate (loc in scale units).
//  4. Standard errors: the inverse of minus the Hessian of the last stencil, over the free
//     parameters; scale's by the delta method from log scale, loc's (S1) from delta1's gradient.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "clstat/exchange.hpp"
#include "clstat/group.hpp"
#include "clstat/order.hpp"
#include "runtime/group_split.hpp"
#include "clstat/stable_fit.hpp"
#include "runtime/exchange_values.hpp"
#include "stable/fit_internal.hpp"

namespace clstat::stable {
namespace {

using fit_detail::Quantiles;
using Vec4 = Eigen::Vector4d;

constexpr double k_alpha_min = 0.1, k_alpha_max = 2.0;

Params law_of(const Vec4& t) {
  return {t(0), t(1), std::exp(t(2)), t(3), Param::S0};
}

Vec4 theta_of(const Params& p) { return {p.alpha, p.beta, std::log(p.scale), p.loc}; }

Vec4 project(Vec4 t) {
  t(0) = std::clamp(t(0), k_alpha_min, k_alpha_max);
  t(1) = std::clamp(t(1), -1.0, 1.0);
  return t;
}

// One data set's state through the stages.
struct Job {
  const std::vector<double>* x = nullptr;
  Quantiles q{};
  Vec4 theta = Vec4::Zero();
  double ll = -INFINITY;
  int stage = 0;  // 0 grid, 1 Newton stencil, 2 line search, 3 done
  int grid_round = 0, iterations = 0;
  double sa = 0.1, sb = 0.2;
  Vec4 h = Vec4::Zero(), centre = Vec4::Zero(), step = Vec4::Zero();
  double lambda = 0;
  bool converged = false, have_hessian = false;
  Eigen::Matrix4d H = Eigen::Matrix4d::Zero();
  std::array<bool, 4> free{true, true, true, true};
  std::vector<Params> request;
  std::vector<Vec4> request_theta;
};

// The 21-point central-difference stencil around c (shifted inward so every point is a valid law):
// c, c +- h_a e_a, and c +- (h_a e_a + h_b e_b) for each pair a < b.
void stencil(Job& j) {
  const double sc = std::exp(j.theta(2));
  j.h = Vec4(1e-3, 2e-3, 1e-3, 1e-3 * sc);
  Vec4 c = j.theta;
  c(0) = std::clamp(c(0), k_alpha_min + j.h(0), k_alpha_max - j.h(0));
  c(1) = std::clamp(c(1), -1 + j.h(1), 1 - j.h(1));
  j.centre = c;
  j.request_theta.clear();
  j.request_theta.push_back(c);
  for (int a = 0; a < 4; ++a)
    for (int s : {1, -1}) {
      Vec4 t = c;
      t(a) += s * j.h(a);
      j.request_theta.push_back(t);
    }
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b)
      for (int s : {1, -1}) {
        Vec4 t = c;
        t(a) += s * j.h(a), t(b) += s * j.h(b);
        j.request_theta.push_back(t);
      }
}

// The grid's nodes around the centre; the centre itself only in the first round (later its
// log-likelihood is j.ll already).
void request_grid(Job& j) {
  j.request_theta.clear();
  for (int da = -1; da <= 1; ++da)
    for (int db = -1; db <= 1; ++db) {
      if (da == 0 && db == 0 && j.grid_round > 0) continue;
      const double a = std::clamp(j.theta(0) + da * j.sa, k_alpha_min, k_alpha_max);
      const double b = std::clamp(j.theta(1) + db * j.sb, -1.0, 1.0);
      Vec4 t = j.theta;
      if (da != 0 || db != 0) {
        const Params p = fit_detail::mcculloch_scale_loc(j.q, a, b);
        t = Vec4(a, b, std::log(p.scale), p.loc);
      }
      j.request_theta.push_back(t);
    }
}

void make_request(Job& j) {
  j.request.clear();
  for (const Vec4& t : j.request_theta) j.request.push_back(law_of(t));
}

// Gradient and Hessian from the stencil's log-likelihoods (order as in stencil()).
void derivatives(Job& j, const std::vector<double>& L, Vec4& g) {
  const double f0 = L[0];
  for (int a = 0; a < 4; ++a) {
    const double fp = L[1 + 2 * a], fm = L[2 + 2 * a];
    g(a) = (fp - fm) / (2 * j.h(a));
    j.H(a, a) = (fp - 2 * f0 + fm) / (j.h(a) * j.h(a));
  }
  // f(c + u) + f(c - u) = 2 f + u'Hu + O(h^4) for u = h_a e_a + h_b e_b, less the same for each
  // axis, leaves 2 h_a h_b H_ab: error O(h^2) (terms in the fourth derivatives), as the four-point
  // form's (f(++) - f(+-) - f(-+) + f(--)) / 4 h_a h_b.
  int k = 9;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b) {
      const double fpp = L[k], fmm = L[k + 1];
      k += 2;
      const double axes = L[1 + 2 * a] + L[2 + 2 * a] + L[1 + 2 * b] + L[2 + 2 * b];
      j.H(a, b) = j.H(b, a) = (fpp + fmm - axes + 2 * f0) / (2 * j.h(a) * j.h(b));
    }
}

// Which parameters Newton moves: not alpha or beta held at a bound by a gradient pointing out,
// and not beta when alpha is 2 (where beta has no effect).
void choose_free(Job& j, const Vec4& g) {
  j.free = {true, true, true, true};
  const double a = j.theta(0), b = j.theta(1);
  if ((a >= k_alpha_max && g(0) >= 0) || (a <= k_alpha_min && g(0) <= 0)) j.free[0] = false;
  if ((b >= 1 && g(1) >= 0) || (b <= -1 && g(1) <= 0)) j.free[1] = false;
  if (a >= k_alpha_max) j.free[1] = false;
}

std::vector<int> free_index(const Job& j) {
  std::vector<int> f;
  for (int a = 0; a < 4; ++a)
    if (j.free[a]) f.push_back(a);
  return f;
}

// The Newton step on the free parameters, with minus the Hessian shifted by lambda (relative to
// its diagonal) until it is positive definite.
Vec4 newton_step(Job& j, const Vec4& g) {
  const std::vector<int> f = free_index(j);
  const int m = static_cast<int>(f.size());
  Vec4 step = Vec4::Zero();
  if (m == 0) return step;
  Eigen::MatrixXd A(m, m);
  Eigen::VectorXd b(m);
  for (int r = 0; r < m; ++r) {
    b(r) = g(f[r]);
    for (int c = 0; c < m; ++c) A(r, c) = -j.H(f[r], f[c]);
  }
  for (double lam = j.lambda;; lam = lam == 0 ? 1e-6 : lam * 10) {
    Eigen::MatrixXd B = A;
    for (int r = 0; r < m; ++r) B(r, r) += lam * std::max(std::abs(A(r, r)), 1e-12);
    Eigen::LLT<Eigen::MatrixXd> llt(B);
    if (llt.info() == Eigen::Success || lam > 1e12) {
      const Eigen::VectorXd s = llt.solve(b);
      for (int r = 0; r < m; ++r) step(f[r]) = s(r);
      j.lambda = lam;
      return step;
    }
  }
}

double step_size(const Vec4& s, double scale) {
  return std::max({std::abs(s(0)), std::abs(s(1)), std::abs(s(2)), std::abs(s(3)) / scale});
}

// done: grid rounds plus Newton steps so far; at most 4 rounds and max_iter steps.
void report(const FitOptions& o, int done, const std::string& line) {
  if (o.progress) o.progress({static_cast<double>(done), static_cast<double>(4 + o.max_iter), line});
}

// Advances job j with the log-likelihoods L of its last request; sets its next request.
void advance(Job& j, const std::vector<double>& L, const FitOptions& o, bool single) {
  if (j.stage == 0) {  // grid
    std::size_t best = 0;
    for (std::size_t k = 1; k < L.size(); ++k)
      if (L[k] > L[best]) best = k;
    if (L[best] > j.ll || !std::isfinite(j.ll)) j.theta = j.request_theta[best], j.ll = L[best];
    j.sa *= 0.5, j.sb *= 0.5;
    ++j.grid_round, ++j.iterations;
    if (single) {
      std::ostringstream s;
      s << "mle: grid round " << j.grid_round << ": loglik " << j.ll << " at alpha " << j.theta(0) << " beta "
        << j.theta(1);
      report(o, j.iterations, s.str());
    }
    if (j.grid_round < 4) {
      request_grid(j);
    } else {
      j.stage = 1;
      stencil(j);
    }
  } else if (j.stage == 1) {  // stencil evaluated
    bool finite = true;
    for (double v : L) finite = finite && std::isfinite(v);
    if (!finite) {  // a stencil point left a support: stop here, without standard errors
      j.stage = 3;
      return;
    }
    Vec4 g;
    derivatives(j, L, g);
    j.have_hessian = true;
    choose_free(j, g);
    j.step = newton_step(j, g);
    j.request_theta.clear();
    for (double t : {1.0, 0.5, 0.25, 0.125}) j.request_theta.push_back(project(j.theta + t * j.step));
    j.stage = 2;
  } else if (j.stage == 2) {  // line search evaluated
    std::size_t best = 0;
    for (std::size_t k = 1; k < L.size(); ++k)
      if (L[k] > L[best]) best = k;
    ++j.iterations;
    const double sc = std::exp(j.theta(2));
    const double moved = step_size(j.request_theta[best] - j.theta, sc);
    if (L[best] >= j.ll) {
      j.theta = j.request_theta[best], j.ll = L[best];
      j.lambda = j.lambda * 0.1 < 1e-6 ? 0.0 : j.lambda * 0.1;
      if (moved < o.tol) j.converged = true;
    } else if (step_size(j.step, sc) * 0.125 < o.tol) {
      j.converged = true;  // no step length improves and the steps are below tol
    } else {
      j.lambda = j.lambda == 0 ? 1e-3 : j.lambda * 10;
    }
    if (single) {
      std::ostringstream s;
      s << "mle: Newton step " << j.iterations - j.grid_round << ": loglik " << j.ll << " step " << moved;
      report(o, j.iterations, s.str());
    }
    if (j.converged || j.iterations >= o.max_iter) {
      j.stage = 3;
    } else {
      j.stage = 1;
      stencil(j);
    }
  }
  if (j.stage != 3) make_request(j);
}

void standard_errors(const Job& j, const FitOptions& o, FitResult& r) {
  if (!j.have_hessian) return;
  const std::vector<int> f = free_index(j);
  const int m = static_cast<int>(f.size());
  Eigen::MatrixXd A(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) A(a, b) = -j.H(f[a], f[b]);
  Eigen::LLT<Eigen::MatrixXd> llt(A);
  if (llt.info() != Eigen::Success) return;
  const Eigen::MatrixXd C = llt.solve(Eigen::MatrixXd::Identity(m, m));
  Eigen::Matrix4d cov = Eigen::Matrix4d::Constant(NAN);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) cov(f[a], f[b]) = C(a, b);
  const double al = j.theta(0), be = j.theta(1), sc = std::exp(j.theta(2));
  r.se_alpha = std::sqrt(cov(0, 0));
  r.se_beta = std::sqrt(cov(1, 1));
  r.se_scale = sc * std::sqrt(cov(2, 2));
  if (o.param == Param::S0) {
    r.se_loc = std::sqrt(cov(3, 3));
    return;
  }
  // delta1 = delta0 - beta sc tan(pi al/2) (alpha != 1), delta0 - beta (2/pi) sc log sc (alpha = 1).
  Vec4 grad;
  if (al == 1) {
    grad = Vec4(0, -(2 / M_PI) * sc * std::log(sc), -be * (2 / M_PI) * sc * (std::log(sc) + 1), 1);
  } else {
    const double t = std::tan(M_PI * al / 2);
    grad = Vec4(-be * sc * (M_PI / 2) * (1 + t * t), -sc * t, -be * sc * t, 1);
  }
  double v = 0;
  for (int a : f)
    for (int b : f) v += grad(a) * cov(a, b) * grad(b);
  r.se_loc = std::sqrt(v);
}

Params in_param(const Params& s0, Param p) { return p == Param::S0 ? s0 : to_s1(s0); }

void check_options(const FitOptions& o) {
  if (!(o.tol >= 1e-12 && o.tol <= 1e-1)) throw std::invalid_argument("clstat::stable::fit: tol must be in [1e-12, 0.1]");
  if (o.max_iter < 1) throw std::invalid_argument("clstat::stable::fit: max_iter must be positive");
  if (o.param != Param::S0 && o.param != Param::S1) throw std::invalid_argument("clstat::stable::fit: unknown param");
}

// From this many values the fit's order statistics come from the device's exact selection
// (order::kth_smallest: one set of passes) instead of a sort on the host, which took 89 ms of a
// 1e6-value fit.
constexpr std::size_t k_device_ranks = std::size_t{1} << 16;

// The order statistics of x at the 0-based ranks (any order): the same values either way.
std::map<std::size_t, double> order_statistics(const Context& ctx, const std::vector<double>& x,
                                               std::vector<std::size_t> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::map<std::size_t, double> out;
  if (x.size() >= k_device_ranks) {
    std::vector<std::uint64_t> ks;
    for (std::size_t r : ranks) ks.push_back(r + 1);  // kth_smallest counts from 1
    const std::vector<double> v = order::kth_smallest(ctx, x.data(), x.size(), ks);
    for (std::size_t k = 0; k < ranks.size(); ++k) out[ranks[k]] = v[k];
    return out;
  }
  std::vector<double> s = x;
  std::sort(s.begin(), s.end());
  for (std::size_t r : ranks) out[r] = s[r];
  return out;
}

// What a set's fit starts from: c, a power of two near the data's spread when that spread is far
// from 1 (below 1e-100 or above 1e100, where densities and quantiles of the standardised data
// lose digits to subnormals or overflow), else 1 (dividing by a power of two is exact); and
// McCulloch's sample quantiles of x / c. One selection gives both: the order statistics of x / c
// are those of x divided by c, bit for bit, since the division keeps the order. Checks first
// that x can be fitted.
struct Start {
  double c = 1;
  Quantiles q{};
};
Start start_of(const Context& ctx, const std::vector<double>& x, const std::string& what) {
  const std::string op = "clstat::stable::fit: " + what;
  if (x.size() < 10) throw std::invalid_argument(op + "needs at least 10 values, got " + std::to_string(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) throw std::invalid_argument(op + "non-finite value at index " + std::to_string(i));
  const auto rank = [&](double p) { return static_cast<std::size_t>(p * static_cast<double>(x.size() - 1)); };
  std::vector<std::size_t> ranks = fit_detail::sample_quantile_ranks(x.size());
  ranks.push_back(rank(0.25));
  ranks.push_back(rank(0.75));
  const auto os = order_statistics(ctx, x, ranks);
  Start st;
  const double spread = os.at(rank(0.75)) - os.at(rank(0.25));
  if (spread > 0 && std::isfinite(spread) && !(spread >= 1e-100 && spread <= 1e100))
    st.c = std::ldexp(1.0, std::ilogb(spread));
  st.q = fit_detail::sample_quantiles(x.size(), [&](std::size_t i) { return os.at(i) / st.c; });
  if (!(st.q.q75 > st.q.q25)) throw std::invalid_argument(op + "the data have no spread (equal quartiles)");
  return st;
}

}  // namespace

namespace {

// The log-likelihoods of data set s under each of laws[s] (fit_detail::loglik_many's contract):
// one device's pass, or, over processes, each process's shard summed in rank order.
using Loglik = std::function<std::vector<std::vector<double>>(const std::vector<const std::vector<double>*>&,
                                                              const std::vector<std::vector<Params>>&)>;

// sets[s] with McCulloch's sample quantiles q[s] (start_of).
std::vector<FitResult> fit_many_unscaled(const std::vector<std::vector<double>>& sets, const std::vector<Quantiles>& q,
                                         const FitOptions& o, const Loglik& loglik) {
  const bool single = sets.size() == 1;
  std::vector<Job> jobs(sets.size());
  std::vector<FitResult> out(sets.size());
  for (std::size_t s = 0; s < sets.size(); ++s) {
    Job& j = jobs[s];
    j.x = &sets[s];
    j.q = q[s];
    Params start = fit_detail::mcculloch(j.q);
    FitResult& r = out[s];
    r.method = o.method;
    r.converged = true;
    if (o.method == FitMethod::koutrouvelis || (o.method == FitMethod::mle && start.alpha <= 0.3)) {
      bool conv = false;
      int rounds = 0;
      start = fit_detail::koutrouvelis(sets[s].data(), sets[s].size(), start, o.tol, o.max_iter, &rounds, &conv);
      if (o.method == FitMethod::koutrouvelis) r.iterations = rounds, r.converged = conv;
    }
    j.theta = theta_of(start);
    r.params = start;
    if (o.method == FitMethod::mle) {
      r.converged = false;
      request_grid(j);  // the first grid round includes the start itself at its centre
      make_request(j);
    } else {
      j.stage = 3;
      j.request = {start};
    }
  }
  if (o.method != FitMethod::mle) {  // one pass for every set's log-likelihood at its estimate
    std::vector<const std::vector<double>*> data;
    std::vector<std::vector<Params>> laws;
    for (std::size_t s = 0; s < sets.size(); ++s) data.push_back(&sets[s]), laws.push_back(jobs[s].request);
    const auto L = loglik(data, laws);
    for (std::size_t s = 0; s < sets.size(); ++s) {
      out[s].loglik = L[s][0];
      out[s].params = in_param(out[s].params, o.param);
    }
    return out;
  }
  if (single) report(o, 0, std::string("mle: start (") + (jobs[0].theta(0) <= 0.3 ? "koutrouvelis" : "mcculloch") +
                            ") alpha " + std::to_string(jobs[0].theta(0)) + " beta " + std::to_string(jobs[0].theta(1)));
  for (;;) {
    std::vector<const std::vector<double>*> data;
    std::vector<std::vector<Params>> laws;
    std::vector<std::size_t> who;
    for (std::size_t s = 0; s < jobs.size(); ++s)
      if (jobs[s].stage != 3) data.push_back(jobs[s].x), laws.push_back(jobs[s].request), who.push_back(s);
    if (who.empty()) break;
    const auto L = loglik(data, laws);
    for (std::size_t k = 0; k < who.size(); ++k) advance(jobs[who[k]], L[k], o, single);
  }
  for (std::size_t s = 0; s < jobs.size(); ++s) {
    const Job& j = jobs[s];
    FitResult& r = out[s];
    r.params = in_param(law_of(j.theta), o.param);
    r.loglik = j.ll;
    r.iterations = j.iterations;
    r.converged = j.converged;
    standard_errors(j, o, r);
  }
  if (single) report(o, out[0].iterations, std::string("mle: ") + (out[0].converged ? "converged" : "stopped") + " after " +
                            std::to_string(out[0].iterations) + " rounds, loglik " + std::to_string(out[0].loglik));
  return out;
}

// The law is a location-scale family: the fit of x / c is the fit of x with scale and location
// divided by c (in S0, and in S1 away from alpha = 1), and a log-likelihood larger by n log c.
// make_loglik(c) gives the likelihood of the data divided by c (one factor a set).
// `agree`, where the data are split over processes: called with the start's error (or none) on
// every process, it raises any process's error on all of them, so that a process whose device
// fails here does not leave the others waiting in the first log-likelihood's combination.
std::vector<FitResult> fit_many_scaled(const Context& ctx, const std::vector<std::vector<double>>& sets,
                                       const FitOptions& o,
                                       const std::function<Loglik(const std::vector<double>&)>& make_loglik,
                                       const std::function<void(std::exception_ptr)>& agree = {}) {
  check_options(o);
  std::vector<double> c(sets.size(), 1.0);
  std::vector<Quantiles> q(sets.size());
  bool any = false;
  std::exception_ptr err;
  try {
    if (!ctx.info().fp64) throw UnsupportedFeature("clstat::stable::fit", ctx.info().name, "needs fp64 (cl_khr_fp64)");
    for (std::size_t s = 0; s < sets.size(); ++s) {
      const Start st = start_of(ctx, sets[s], sets.size() == 1 ? "" : "set " + std::to_string(s) + ": ");
      c[s] = st.c, q[s] = st.q;
      any = any || c[s] != 1.0;
    }
  } catch (...) {
    err = std::current_exception();
  }
  if (agree) agree(err);
  else if (err) std::rethrow_exception(err);
  if (!any) return fit_many_unscaled(sets, q, o, make_loglik(c));
  std::vector<std::vector<double>> scaled = sets;
  for (std::size_t s = 0; s < sets.size(); ++s)
    for (double& v : scaled[s]) v /= c[s];
  FitOptions o0 = o;
  o0.param = Param::S0;
  auto out = fit_many_unscaled(scaled, q, o0, make_loglik(c));
  for (std::size_t s = 0; s < sets.size(); ++s) {
    FitResult& r = out[s];
    r.params.scale *= c[s];
    r.params.loc *= c[s];
    r.se_scale *= c[s];
    r.se_loc *= c[s];
    r.loglik -= static_cast<double>(sets[s].size()) * std::log(c[s]);
    if (o.param == Param::S1) {
      // S1's location for the rescaled law (the delta-method error of S0's loc carries over, scaled).
      r.params = to_s1(r.params);
    }
  }
  return out;
}

}  // namespace

std::vector<FitResult> fit_many(const Context& ctx, const std::vector<std::vector<double>>& sets,
                                const FitOptions& o) {
  return fit_many_scaled(ctx, sets, o, [&](const std::vector<double>&) -> Loglik {
    auto cache = std::make_shared<fit_detail::LoglikCache>();
    return [&, cache](const std::vector<const std::vector<double>*>& data, const std::vector<std::vector<Params>>& laws) {
      return fit_detail::loglik_many(ctx, data, laws, cache.get());
    };
  });
}


FitResult fit(const Context& ctx, Exchange& ex, const double* x, std::size_t n_local, const FitOptions& o) {
  const std::string op = "clstat::stable::fit (processes)";
  // Every process's shard to all (the start, the grid and the standard errors are host work on
  // all the data, the same on every process); the likelihoods from the shards, summed.
  std::exception_ptr err;
  try {
    if (n_local > 0 && !x) throw std::invalid_argument(op + ": null input with n_local = " + std::to_string(n_local));
    check_options(o);
  } catch (...) {
    err = std::current_exception();
  }
  std::uint64_t args = hash_bytes(hash_seed, &o.method, sizeof o.method);
  args = hash_bytes(args, &o.param, sizeof o.param);
  args = hash_bytes(args, &o.tol, sizeof o.tol);
  args = hash_bytes(args, &o.max_iter, sizeof o.max_iter);
  const std::vector<double> all = detail::gather_values(ex, op, err, args, x, n_local);
  const std::vector<double> mine(x, x + n_local);
  return fit_many_scaled(ctx, {all}, o, [&](const std::vector<double>& c) -> Loglik {
    auto cache = std::make_shared<fit_detail::LoglikCache>();
    // This process's shard, divided by c as the whole set is, made once per scale.
    auto scaled = std::make_shared<std::vector<double>>(mine);
    if (c[0] != 1.0)
      for (double& v : *scaled) v /= c[0];
    return [&, cache, scaled](const std::vector<const std::vector<double>*>&, const std::vector<std::vector<Params>>& laws) {
      // This process's shard (divided by c as the whole set is) under every law, then the sums
      // of all processes added in rank order: the same value on every process.
      std::vector<double> local(laws.empty() ? 0 : laws[0].size(), 0.0);
      std::exception_ptr e;
      try {
        if (!mine.empty() && !local.empty()) local = fit_detail::loglik_many(ctx, {scaled.get()}, laws, cache.get()).at(0);
      } catch (...) {
        e = std::current_exception();
      }
      const std::vector<double> parts = detail::gather_values(ex, op, e, 0, local.data(), local.size());
      std::vector<double> total(local.size(), 0.0);
      for (std::size_t at = 0; at < parts.size(); at += total.size())
        for (std::size_t k = 0; k < total.size(); ++k) total[k] += parts[at + k];
      return std::vector<std::vector<double>>{total};
    };
  }, [&](std::exception_ptr e) { detail::gather_values(ex, op, e, 0, nullptr, 0); }).at(0);
}

FitResult fit(const DeviceGroup& g, const double* x, std::size_t n, const FitOptions& o) {
  const std::string op = "clstat::stable::fit (device group)";
  if (n > 0 && !x) throw std::invalid_argument(op + ": null input");
  const std::vector<std::size_t> share = g.split(n);
  std::size_t holders = 0, holder = 0;
  for (std::size_t i = 0; i < share.size(); ++i)
    if (share[i] > 0) ++holders, holder = i;
  // One member with every value (or none at all): its own fit, bit for bit.
  if (holders <= 1) return fit(g.member(holder), x, n, o);
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!g.member(i).info().fp64)
      throw UnsupportedFeature(op, g.member(i).info().name, "needs fp64 (cl_khr_fp64)");
  const std::vector<double> all(x, x + n);
  return fit_many_scaled(g.member(0), {all}, o, [&](const std::vector<double>& c) -> Loglik {
    // Each member's contiguous share, divided by c as the whole set is, made once per scale.
    auto parts = std::make_shared<std::vector<std::vector<double>>>(g.size());
    for (std::size_t i = 0, first = 0; i < g.size(); first += share[i], ++i) {
      (*parts)[i].assign(all.begin() + static_cast<std::ptrdiff_t>(first),
                         all.begin() + static_cast<std::ptrdiff_t>(first + share[i]));
      if (c[0] != 1.0)
        for (double& v : (*parts)[i]) v /= c[0];
    }
    auto caches = std::make_shared<std::vector<fit_detail::LoglikCache>>(g.size());
    return [&g, &share, parts, caches](const std::vector<const std::vector<double>*>&,
                                       const std::vector<std::vector<Params>>& laws) {
      // Every member's share under every law at once, each on a thread of its own; the sums
      // added in member order, so the likelihood does not depend on which member finished first.
      const std::size_t k = laws.empty() ? 0 : laws[0].size();
      std::vector<std::vector<double>> local(g.size(), std::vector<double>(k, 0.0));
      if (k > 0)
        detail::on_members(g, share, [&](std::size_t i, std::size_t) {
          local[i] = fit_detail::loglik_many(g.member(i), {&(*parts)[i]}, laws, &(*caches)[i]).at(0);
        });
      std::vector<double> total(k, 0.0);
      for (const auto& l : local)
        for (std::size_t j = 0; j < k; ++j) total[j] += l[j];
      return std::vector<std::vector<double>>{total};
    };
  }).at(0);
}

FitResult fit(const Context& ctx, const double* x, std::size_t n, const FitOptions& o) {
  if (n > 0 && !x) throw std::invalid_argument("clstat::stable::fit: null input");
  return fit_many(ctx, {std::vector<double>(x, x + n)}, o).at(0);
}

}  // namespace clstat::stable
