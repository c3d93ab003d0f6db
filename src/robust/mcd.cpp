// FAST-MCD (Rousseeuw & Van Driessen 1999) with robustbase's covMcd raw and reweighted estimates.
// The search runs in standardised units (each column centred on its mean and divided by its
// standard deviation): the MCD is affine equivariant, so the h-subsets found there are those of
// the data, and the moments are better conditioned. Estimates are recomputed in the data's units.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "build/program_cache.hpp"
#include "clstat/robust.hpp"
#include "robust/consistency.hpp"
#include "robust/philox.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::robust {

using namespace detail;

namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;
constexpr std::size_t kStartRows = 1500, kSmall = 600, kKeep = 10, kMaxP = 32;
constexpr const char* kOp = "clstat::robust::mcd";
enum class McdScratch { mu, linv, distances };

// A subset's mean, covariance (divisor m - 1) and the Cholesky factor of the covariance.
struct Moments {
  Vec mean;
  Mat cov;
  Eigen::LLT<Mat> llt;
  double logdet = std::numeric_limits<double>::infinity();
  bool singular = true;
};

Moments moments(const Mat& z, const std::vector<std::size_t>& rows) {
  const std::size_t p = static_cast<std::size_t>(z.cols()), m = rows.size();
  Moments s;
  s.mean = Vec::Zero(static_cast<Eigen::Index>(p));
  for (std::size_t r : rows) s.mean += z.row(static_cast<Eigen::Index>(r)).transpose();
  s.mean /= static_cast<double>(m);
  s.cov = Mat::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
  for (std::size_t r : rows) {
    const Vec c = z.row(static_cast<Eigen::Index>(r)).transpose() - s.mean;
    s.cov.noalias() += c * c.transpose();
  }
  s.cov /= static_cast<double>(m - 1);
  s.llt.compute(s.cov);
  if (s.llt.info() != Eigen::Success) return s;
  const auto& L = s.llt.matrixLLT();
  double ld = 0, dmin = std::numeric_limits<double>::infinity(), dmax = 0;
  for (Eigen::Index j = 0; j < L.rows(); ++j) {
    ld += 2 * std::log(L(j, j));
    dmin = std::min(dmin, L(j, j));
    dmax = std::max(dmax, L(j, j));
  }
  // Standardised columns have unit scale: a factor this small relative to the largest means the
  // rows lie on a hyperplane (robustbase's exact-fit case).
  s.singular = !(dmin > 1e-7 * dmax) || !std::isfinite(ld);
  s.logdet = ld;
  return s;
}

// The h rows (among `rows`) of smallest distance d, ties by lower row, ascending.
std::vector<std::size_t> smallest(const std::vector<double>& d, const std::vector<std::size_t>& rows, std::size_t h) {
  std::vector<std::size_t> idx(rows.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto less = [&](std::size_t a, std::size_t b) { return d[a] < d[b] || (d[a] == d[b] && rows[a] < rows[b]); };
  std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(h - 1), idx.end(), less);
  std::vector<std::size_t> out(h);
  for (std::size_t i = 0; i < h; ++i) out[i] = rows[idx[i]];
  std::sort(out.begin(), out.end());
  return out;
}

// Squared distances of `rows` under s, on the host.
std::vector<double> distances_host(const Mat& z, const std::vector<std::size_t>& rows, const Moments& s) {
  std::vector<double> d(rows.size());
  const auto L = s.llt.matrixL();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Vec c = z.row(static_cast<Eigen::Index>(rows[i])).transpose() - s.mean;
    d[i] = L.solve(c).squaredNorm();
  }
  return d;
}

// The full-data distances on the device: z uploaded once, mu and L^-1 per step.
class DeviceDistances {
 public:
  DeviceDistances(const Queue& q, const Mat& z) : q_(q), ci_(q.context().impl()), n_(z.rows()), p_(z.cols()) {
    const std::string opt = build::base_options(*ci_, true, kOp) + " -DMAXP=" + std::to_string(kMaxP);
    std::size_t wg = 0;
    prog_ = build::program_for_wg(*ci_, "robust/mcd_distances", opt, "mcd_distances", 128, wg);
    wg_ = wg;
    x_ = cl::Buffer(ci_->context, CL_MEM_READ_ONLY, static_cast<std::size_t>(n_ * p_) * sizeof(double));
    ::clstat::detail::write_wait(::clstat::detail::queue_of(q_), x_, 0,
                                 static_cast<std::size_t>(n_ * p_) * sizeof(double), z.data());
  }
  std::vector<double> operator()(const Moments& s) {
    const std::size_t n = static_cast<std::size_t>(n_), p = static_cast<std::size_t>(p_);
    const Mat linv = s.llt.matrixL().solve(Mat::Identity(p_, p_));
    cl::Buffer mu = ::clstat::detail::staged(q_, McdScratch::mu, s.mean.data(), p * sizeof(double));
    cl::Buffer li = ::clstat::detail::staged(q_, McdScratch::linv, linv.data(), p * p * sizeof(double));
    cl::Buffer d = ::clstat::detail::scratch(q_, McdScratch::distances, n * sizeof(double));
    cl::Kernel k = build::kernel(*prog_, "mcd_distances", q_.index());
    k.setArg(0, x_);
    k.setArg(1, static_cast<cl_ulong>(n));
    k.setArg(2, static_cast<cl_uint>(p));
    k.setArg(3, mu);
    k.setArg(4, li);
    k.setArg(5, d);
    ::clstat::detail::launch(q_, k, cl::NDRange((n + wg_ - 1) / wg_ * wg_), cl::NDRange(wg_), {}, kOp);
    std::vector<double> out(n);
    ::clstat::detail::read_wait(::clstat::detail::queue_of(q_), d, 0, n * sizeof(double), out.data());
    return out;
  }

 private:
  Queue q_;
  std::shared_ptr<::clstat::detail::ContextImpl> ci_;
  Eigen::Index n_, p_;
  std::shared_ptr<::clstat::detail::BuiltProgram> prog_;
  std::size_t wg_ = 64;
  cl::Buffer x_;
};

struct Run {
  std::vector<std::size_t> subset;
  Moments m;
  std::size_t start = 0;
  int steps = 0;
  bool converged = false;
};

// `m` distinct rows of 0..n-1 (Philox stream 1, a partial Fisher-Yates shuffle), ascending.
std::vector<std::size_t> random_rows(std::size_t n, std::size_t m, std::uint64_t seed) {
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  PhiloxStream rng(seed, 1, 0);
  for (std::size_t i = 0; i < m; ++i) std::swap(all[i], all[i + rng.below(n - i)]);
  all.resize(m);
  std::sort(all.begin(), all.end());
  return all;
}

// A start: a random (p + 1)-subset of `rows` (Philox stream 2, item k), grown by random rows
// while its covariance is singular.
Run start_of(const Mat& z, const std::vector<std::size_t>& rows, std::size_t k, std::uint64_t seed, bool& grew) {
  const std::size_t p = static_cast<std::size_t>(z.cols()), m = rows.size();
  PhiloxStream rng(seed, 2, k);
  std::vector<std::size_t> pick;
  std::unordered_set<std::size_t> used;
  auto add = [&] {
    std::size_t j;
    do j = rng.below(m);
    while (!used.insert(j).second);
    pick.push_back(rows[j]);
  };
  for (std::size_t i = 0; i <= p; ++i) add();
  Run r;
  r.start = k;
  r.m = moments(z, pick);
  grew = false;
  while (r.m.singular && pick.size() < m) {
    add();
    r.m = moments(z, pick);
    grew = true;
  }
  std::sort(pick.begin(), pick.end());
  r.subset = pick;
  return r;
}

// C-steps of r over `rows` with coverage h: at most `steps`, or until the determinant stops
// decreasing (or the covariance becomes singular: an exact fit).
template <class Dist>
void csteps(Run& r, const Mat& z, const std::vector<std::size_t>& rows, std::size_t h, int steps, Dist&& dist) {
  for (int s = 0; s < steps; ++s) {
    if (r.m.singular) return;
    const std::vector<double> d = dist(r.m);
    std::vector<std::size_t> next = smallest(d, rows, h);
    if (next == r.subset) {
      r.converged = true;
      return;
    }
    Moments m = moments(z, next);
    ++r.steps;
    // Determinants compare between h-subsets only: a start's first step always counts.
    if (r.subset.size() == h && !(m.logdet < r.m.logdet) && !m.singular) {
      r.converged = true;
      return;
    }
    r.subset = std::move(next);
    r.m = std::move(m);
  }
}

bool better(const Run& a, const Run& b) {
  if (a.m.singular != b.m.singular) return a.m.singular;  // an exact fit is the minimum
  return a.m.logdet < b.m.logdet || (a.m.logdet == b.m.logdet && a.start < b.start);
}

// p = 1: the best h-subset is h consecutive sorted values; the run of least variance (the first
// among equals).
std::vector<std::size_t> univariate_best(const Mat& z, std::size_t h) {
  const std::size_t n = static_cast<std::size_t>(z.rows());
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return z(a, 0) < z(b, 0); });
  long double s = 0, s2 = 0;
  for (std::size_t i = 0; i < h; ++i) {
    s += z(order[i], 0);
    s2 += static_cast<long double>(z(order[i], 0)) * z(order[i], 0);
  }
  long double best = s2 - s * s / h;
  std::size_t at = 0;
  for (std::size_t i = 1; i + h <= n; ++i) {
    const long double out = z(order[i - 1], 0), in = z(order[i + h - 1], 0);
    s += in - out;
    s2 += in * in - out * out;
    const long double v = s2 - s * s / h;
    if (v < best) best = v, at = i;
  }
  std::vector<std::size_t> rows(order.begin() + static_cast<std::ptrdiff_t>(at),
                                order.begin() + static_cast<std::ptrdiff_t>(at + h));
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

McdFit mcd(const Context& ctx, const double* x, std::size_t n, std::size_t p, const McdOptions& o) {
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const std::string op = kOp;
  if (n == 0 || !x) throw std::invalid_argument(op + ": empty input or null pointer");
  if (p == 0 || p > kMaxP)
    throw std::invalid_argument(op + ": p = " + std::to_string(p) + " variables (1 to " + std::to_string(kMaxP) + ")");
  if (n <= 2 * p)
    throw std::invalid_argument(op + ": n = " + std::to_string(n) + " observations; need more than twice as many as the " +
                                std::to_string(p) + " variables");
  if (!(o.alpha >= 0.5 && o.alpha <= 1))
    throw std::invalid_argument(op + ": alpha = " + std::to_string(o.alpha) + " is outside [0.5, 1]");
  if (o.nsamp == 0) throw std::invalid_argument(op + ": nsamp = 0 random subsets");
  if (o.max_csteps < 1) throw std::invalid_argument(op + ": max_csteps must be at least 1");
  if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "the MCD needs a device with fp64");
  // Standardised data.
  Mat z(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  std::vector<double> mean(p, 0), sd(p, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      const double v = x[i * p + j];
      if (!std::isfinite(v))
        throw std::invalid_argument(op + ": x[" + std::to_string(i) + ", " + std::to_string(j) + "] = " +
                                    std::to_string(v) + " is not finite (row " + std::to_string(i) + ")");
      mean[j] += v;
    }
  for (auto& m : mean) m /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < p; ++j) sd[j] += (x[i * p + j] - mean[j]) * (x[i * p + j] - mean[j]);
  for (std::size_t j = 0; j < p; ++j) {
    sd[j] = std::sqrt(sd[j] / static_cast<double>(n - 1));
    if (!(sd[j] > 0)) throw std::invalid_argument(op + ": column " + std::to_string(j) + " is constant");
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < p; ++j) z(i, j) = (x[i * p + j] - mean[j]) / sd[j];

  McdFit f;
  f.n = n;
  f.p = p;
  f.h = lts_coverage(o.alpha, n, p);
  const std::size_t h = f.h;
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);

  Run win;
  if (h >= n) {  // alpha = 1: the classical estimates
    win.subset = all;
    win.m = moments(z, all);
    win.converged = true;
  } else if (p == 1) {
    win.subset = univariate_best(z, h);
    win.m = moments(z, win.subset);
    win.converged = true;
  } else {
    const std::vector<std::size_t> rows = n <= kSmall ? all : random_rows(n, std::min(n, kStartRows), o.seed);
    const std::size_t hm = rows.size() == n ? h : std::min(rows.size(), std::max(p + 1, (rows.size() * h + n - 1) / n));
    auto host = [&](const Moments& m) { return distances_host(z, rows, m); };
    std::vector<Run> runs;
    for (std::size_t k = 0; k < o.nsamp; ++k) {
      bool grew = false;
      Run r = start_of(z, rows, k, o.seed, grew);
      f.singular_starts += grew;
      ++f.starts;
      csteps(r, z, rows, hm, 2, host);
      runs.push_back(std::move(r));
    }
    std::sort(runs.begin(), runs.end(), better);
    runs.resize(std::min(kKeep, runs.size()));
    DeviceDistances device(lease.queue(), z);
    auto full = [&](const Moments& m) { return device(m); };
    bool first = true;
    for (Run& r : runs) {
      r.steps = 0;
      r.converged = false;
      if (rows.size() != n && !r.m.singular) {
        // From the subsample's h_m rows to all n: one step that takes the h nearest of all rows.
        r.subset = smallest(full(r.m), all, h);
        r.m = moments(z, r.subset);
      }
      csteps(r, z, all, h, o.max_csteps, full);
      if (first || better(r, win)) win = r;
      first = false;
    }
  }
  f.best = win.subset;
  f.csteps = win.steps;
  f.converged = win.converged;
  f.exact_fit = win.m.singular;

  // Back to the data's units.
  auto to_data = [&](const Vec& c, const Mat& s, std::vector<double>& center, std::vector<double>& cov) {
    center.resize(p);
    cov.resize(p * p);
    for (std::size_t j = 0; j < p; ++j) center[j] = mean[j] + sd[j] * c(j);
    for (std::size_t a = 0; a < p; ++a)
      for (std::size_t b = 0; b < p; ++b) cov[a * p + b] = sd[a] * sd[b] * s(a, b);
  };
  double logsd = 0;
  for (double s : sd) logsd += 2 * std::log(s);
  f.crit = win.m.logdet + logsd;
  f.cutoff = chi_square_quantile(0.975, p);
  const double nd = static_cast<double>(n);
  if (f.exact_fit) {
    to_data(win.m.mean, win.m.cov, f.raw_center, f.raw_cov);
    f.center = f.raw_center;
    f.cov = f.raw_cov;
    f.crit = -std::numeric_limits<double>::infinity();
    f.raw_weights.assign(n, 0);
    for (std::size_t r : f.best) f.raw_weights[r] = 1;
    f.weights = f.raw_weights;
    for (std::size_t i = 0; i < n; ++i)
      if (!f.weights[i]) f.outliers.push_back(i);
    return f;
  }
  f.raw_cnp2[0] = mcd_consistency(p, static_cast<double>(h) / nd);
  f.raw_cnp2[1] = o.use_correction ? mcd_small_sample_raw(p, n, o.alpha) : 1;
  Moments raw = win.m;
  raw.cov *= f.raw_cnp2[0] * f.raw_cnp2[1];
  raw.llt.compute(raw.cov);
  f.raw_mahalanobis = distances_host(z, all, raw);
  f.raw_weights.resize(n);
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < n; ++i) {
    f.raw_weights[i] = f.raw_mahalanobis[i] <= f.cutoff;
    if (f.raw_weights[i]) kept.push_back(i);
  }
  to_data(raw.mean, raw.cov, f.raw_center, f.raw_cov);
  // Reweighted (robustbase: cov.wt of the rows within the cutoff, divisor sum - 1).
  Moments rew = moments(z, kept);
  f.cnp2[0] = mcd_consistency(p, static_cast<double>(kept.size()) / nd);
  f.cnp2[1] = o.use_correction ? mcd_small_sample_reweighted(p, n, o.alpha) : 1;
  rew.cov *= f.cnp2[0] * f.cnp2[1];
  rew.llt.compute(rew.cov);
  to_data(rew.mean, rew.cov, f.center, f.cov);
  f.mahalanobis = distances_host(z, all, rew);
  f.weights.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    f.weights[i] = f.mahalanobis[i] <= f.cutoff;
    if (!f.weights[i]) f.outliers.push_back(i);
  }
  return f;
}

Future<McdFit> mcd_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const McdOptions& o,
                         const std::vector<Event>& wait) {
  if (n > 0 && !x) throw std::invalid_argument("clstat::robust::mcd_async: null input");
  return ::clstat::detail::host_task<McdFit>(q, wait, [=] { return mcd(q.context(), x, n, p, o); });
}

}  // namespace clstat::robust
