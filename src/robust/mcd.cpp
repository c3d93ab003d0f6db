// FAST-MCD (Rousseeuw & Van Driessen 1999) with robustbase's covMcd raw and reweighted estimates.
// The search runs in standardised units (each column centred on its mean and divided by its
// standard deviation): the MCD is affine equivariant, so the h-subsets found there are those of
// the data, and the moments are better conditioned. Estimates are recomputed in the data's units.
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

#include "build/program_cache.hpp"
#include "clstat/order.hpp"
#include "clstat/robust.hpp"
#include "robust/consistency.hpp"
#include "robust/csteps.hpp"
#include "robust/philox.hpp"
#include "robust/row_blocks.hpp"
#include "runtime/host_parallel.hpp"
#include "runtime/launch.hpp"
#include "runtime/lease.hpp"

namespace clstat::robust {

using namespace detail;

namespace {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;
constexpr std::size_t kStartRows = 1500, kSmall = 600, kKeep = 10, kMaxP = 32;
constexpr const char* kOp = "clstat::robust::mcd";
enum class McdScratch { mu, linv, shift };

// A subset's mean, covariance (divisor m - 1) and the Cholesky factor of the covariance.
struct Moments {
  Vec mean;
  Mat cov;
  Eigen::LLT<Mat> llt;
  double logdet = std::numeric_limits<double>::infinity();
  bool singular = true;
};

// The Cholesky factor, log-determinant and singularity of s.cov.
void finish(Moments& s) {
  s.llt.compute(s.cov);
  s.singular = true;
  s.logdet = std::numeric_limits<double>::infinity();
  if (s.llt.info() != Eigen::Success) return;
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
}

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
  finish(s);
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

// The full-data C-steps on the device (cl/robust/mcd_distances.cl): z uploaded once; per step
// the distances, their h-th smallest (clstat::order) and the next subset's sums, so that only
// p + p (p + 1) / 2 sums a chunk of 1024 rows come back (the host's selection and moments took
// 150 ms a step at n = 10^6, p = 10, and a fit 12 s on the H100).
class DeviceMcd {
 public:
  DeviceMcd(const Queue& q, const Mat& z)
      : q_(q), ci_(q.context().impl()), n_(static_cast<std::size_t>(z.rows())), p_(static_cast<std::size_t>(z.cols())),
        d_(q.context(), std::max<std::size_t>(1, n_)) {
    const std::string base = build::base_options(*ci_, true, kOp);
    std::size_t wg = 0;
    dist_ = build::program_for_wg(*ci_, "robust/mcd_distances", base + " -DMAXP=" + std::to_string(kMaxP),
                                  "mcd_distances", 128, wg);
    dist_wg_ = wg;
    const std::size_t nx = p_ + p_ * (p_ + 1) / 2 + 3;
    AccArg acc{nx};
    sums_ = build::program_for_wg(*ci_, "robust/mcd_distances",
                                  base + " -DMAXP=" + std::to_string(kMaxP) + " -DQ=" + std::to_string(p_ - 1) +
                                      " -DTILE=" + std::to_string(kTile) + " -DCH=" + std::to_string(kChunk),
                                  "mcd_sums", 256, wg, nacc_option, &acc);
    sums_wg_ = wg;
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    x_ = cl::Buffer(ci_->context, CL_MEM_READ_ONLY, n_ * p_ * sizeof(double));
    ::clstat::detail::write_wait(cq, x_, 0, n_ * p_ * sizeof(double), z.data());
    for (auto& m : mask_) m = cl::Buffer(ci_->context, CL_MEM_READ_WRITE, std::max<std::size_t>(1, n_));
    part_ = cl::Buffer(ci_->context, CL_MEM_READ_WRITE, groups() * nx * sizeof(double));
  }

  // Every row's squared distance under s, left on the device; read() brings them back.
  void distances(const Moments& s) {
    const Mat linv = s.llt.matrixL().solve(Mat::Identity(static_cast<Eigen::Index>(p_), static_cast<Eigen::Index>(p_)));
    cl::Buffer mu = ::clstat::detail::staged(q_, McdScratch::mu, s.mean.data(), p_ * sizeof(double));
    cl::Buffer li = ::clstat::detail::staged(q_, McdScratch::linv, linv.data(), p_ * p_ * sizeof(double));
    cl::Kernel k = build::kernel(*dist_, "mcd_distances", q_.index());
    k.setArg(0, x_);
    k.setArg(1, static_cast<cl_ulong>(n_));
    k.setArg(2, static_cast<cl_uint>(p_));
    k.setArg(3, mu);
    k.setArg(4, li);
    k.setArg(5, d_.raw().impl()->buffer);
    ::clstat::detail::launch(q_, k, cl::NDRange((n_ + dist_wg_ - 1) / dist_wg_ * dist_wg_), cl::NDRange(dist_wg_), {},
                             kOp);
  }
  std::vector<double> read() {
    std::vector<double> out(n_);
    ::clstat::detail::read_wait(::clstat::detail::queue_of(q_), d_.raw().impl()->buffer, 0, n_ * sizeof(double),
                                out.data());
    return out;
  }

  // The next subset from the distances: with h > 0 the h smallest (ties to lower rows, as the
  // host's smallest()), else those <= cut. Its moments (shifted by `shift`), into mask `next`;
  // `changed` counts the rows whose membership differs from mask `cur`'s.
  Moments select(std::size_t h, double cut, const Vec& shift, int cur, int next, std::size_t& changed) {
    const double t = h > 0 ? order::kth_smallest_async<double>(q_, d_, 0, n_, std::vector<std::uint64_t>{h}).get()[0] : cut;
    std::vector<double> s = sums(t, n_, shift, cur, next);
    const std::size_t nx = s.size(), lt = static_cast<std::size_t>(s[nx - 3]), eq = static_cast<std::size_t>(s[nx - 2]);
    if (h > 0 && lt + eq > h) {  // more ties at t than the subset takes: the lower rows first
      const std::vector<double> d = read();
      std::size_t need = h - lt, i = 0;
      for (; i < n_; ++i)
        if (d[i] == t && --need == 0) break;
      s = sums(t, i + 1, shift, cur, next);
    }
    const std::size_t m = h > 0 ? h : lt + eq;
    changed = static_cast<std::size_t>(s[nx - 1]);
    Moments r;
    const auto P = static_cast<Eigen::Index>(p_);
    Vec s1(P);
    for (Eigen::Index j = 0; j < P; ++j) s1(j) = s[static_cast<std::size_t>(j)];
    r.mean = shift + s1 / static_cast<double>(m);
    r.cov = Mat(P, P);
    std::size_t e = p_;
    for (Eigen::Index a = 0; a < P; ++a)
      for (Eigen::Index b = a; b < P; ++b, ++e)
        r.cov(a, b) = r.cov(b, a) = (s[e] - s1(a) * s1(b) / static_cast<double>(m)) / static_cast<double>(m - 1);
    finish(r);
    return r;
  }

  // Mask `which` as uploaded rows (ascending), or its rows read back.
  void set_mask(int which, const std::vector<std::size_t>& rows) {
    std::vector<unsigned char> m(n_, 0);
    for (std::size_t r : rows) m[r] = 1;
    ::clstat::detail::write_wait(::clstat::detail::queue_of(q_), mask_[which], 0, n_, m.data());
  }
  std::vector<std::size_t> rows_of(int which) {
    std::vector<unsigned char> m(n_);
    ::clstat::detail::read_wait(::clstat::detail::queue_of(q_), mask_[which], 0, n_, m.data());
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < n_; ++i)
      if (m[i]) rows.push_back(i);
    return rows;
  }

 private:
  static constexpr std::size_t kChunk = 1024, kTile = 32;
  std::size_t groups() const { return std::max<std::size_t>(1, (n_ + kChunk - 1) / kChunk); }

  // The chunks' sums added in order: NE shifted sums, the products, #{d < t}, #{d == t}, #{changed}.
  std::vector<double> sums(double t, std::size_t tau, const Vec& shift, int cur, int next) {
    const std::size_t nx = p_ + p_ * (p_ + 1) / 2 + 3, g = groups();
    const cl::CommandQueue& cq = ::clstat::detail::queue_of(q_);
    cl::Buffer sh = ::clstat::detail::staged(q_, McdScratch::shift, shift.data(), p_ * sizeof(double));
    cl::Kernel k = build::kernel(*sums_, "mcd_sums", q_.index());
    k.setArg(0, x_);
    k.setArg(1, static_cast<cl_ulong>(n_));
    k.setArg(2, d_.raw().impl()->buffer);
    k.setArg(3, t);
    k.setArg(4, static_cast<cl_ulong>(tau));
    k.setArg(5, sh);
    k.setArg(6, mask_[cur]);
    k.setArg(7, mask_[next]);
    k.setArg(8, part_);
    ::clstat::detail::launch(q_, k, cl::NDRange(g * sums_wg_), cl::NDRange(sums_wg_), {}, kOp);
    std::vector<double> part(g * nx), out(nx, 0.0);
    ::clstat::detail::read_wait(cq, part_, 0, part.size() * sizeof(double), part.data());
    for (std::size_t c = 0; c < g; ++c)
      for (std::size_t e = 0; e < nx; ++e) out[e] += part[c * nx + e];
    return out;
  }

  Queue q_;
  std::shared_ptr<::clstat::detail::ContextImpl> ci_;
  std::size_t n_, p_;
  Buffer<double> d_;
  std::shared_ptr<::clstat::detail::BuiltProgram> dist_, sums_;
  std::size_t dist_wg_ = 64, sums_wg_ = 64;
  cl::Buffer x_, part_;
  cl::Buffer mask_[3];
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

// C-steps of r on all rows, on the device: from a subsample's subset (from_subsample) one step to
// the h nearest of all rows first; then at most `steps` C-steps, or until the subset repeats or
// its determinant stops decreasing (as csteps). r.subset ends as the last accepted subset.
void full_csteps(Run& r, DeviceMcd& dev, bool from_subsample, std::size_t h, int steps) {
  int cur = 0, next = 1;
  std::size_t changed = 0;
  std::size_t size = r.subset.size();
  if (from_subsample && !r.m.singular) {
    dev.distances(r.m);
    r.m = dev.select(h, 0, r.m.mean, cur, cur, changed);  // its own mask: the comparison is moot
    size = h;
  } else {
    dev.set_mask(cur, r.subset);
  }
  for (int s = 0; s < steps; ++s) {
    if (r.m.singular) break;
    dev.distances(r.m);
    Moments m = dev.select(h, 0, r.m.mean, cur, next, changed);
    if (changed == 0) {
      r.converged = true;
      break;
    }
    ++r.steps;
    // Determinants compare between h-subsets only: a start's first step always counts.
    if (size == h && !(m.logdet < r.m.logdet) && !m.singular) {
      r.converged = true;
      break;
    }
    r.m = std::move(m);
    size = h;
    std::swap(cur, next);
  }
  r.subset = dev.rows_of(cur);
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
  // Standardised data, by blocks of rows on the host's threads (robust/row_blocks.hpp), each
  // block's sums in its own slot, added in block order.
  Mat z(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> bad(row_blocks(n), kNone);  // a block's first non-finite element
  for_row_blocks(n, [&](std::size_t b, std::size_t first, std::size_t last) {
    for (std::size_t e = first * p; e < last * p; ++e)
      if (!std::isfinite(x[e])) {
        bad[b] = e;
        return;
      }
  });
  for (std::size_t e : bad)  // the first in row order
    if (e != kNone)
      throw std::invalid_argument(op + ": x[" + std::to_string(e / p) + ", " + std::to_string(e % p) + "] = " +
                                  std::to_string(x[e]) + " is not finite (row " + std::to_string(e / p) + ")");
  const auto P = static_cast<Eigen::Index>(p);
  const Vec m = sum_rows(n, P, [&](Vec& acc, std::size_t i) { acc += Eigen::Map<const Vec>(x + i * p, P); }) /
                static_cast<double>(n);
  const Vec ss = sum_rows(n, P, [&](Vec& acc, std::size_t i) {
    acc += (Eigen::Map<const Vec>(x + i * p, P) - m).array().square().matrix();
  });
  std::vector<double> mean(m.data(), m.data() + p), sd(ss.data(), ss.data() + p);
  for (std::size_t j = 0; j < p; ++j) {
    sd[j] = std::sqrt(sd[j] / static_cast<double>(n - 1));
    if (!(sd[j] > 0)) throw std::invalid_argument(op + ": column " + std::to_string(j) + " is constant");
  }
  for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i)
      for (std::size_t j = 0; j < p; ++j)
        z(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = (x[i * p + j] - mean[j]) / sd[j];
  });

  McdFit f;
  f.n = n;
  f.p = p;
  f.h = lts_coverage(o.alpha, n, p);
  const std::size_t h = f.h;
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  DeviceMcd dev(lease.queue(), z);

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
    // The starts are independent (start k draws from its own Philox stream): they run on the
    // host's threads, each into its own slot (532 starts at p = 10 took 0.4 s on one thread).
    std::vector<Run> runs(o.nsamp);
    std::vector<char> grew(o.nsamp, 0);
    std::vector<std::exception_ptr> errors(o.nsamp);
    ::clstat::detail::parallel_tasks(o.nsamp, std::thread::hardware_concurrency(), [&](std::size_t k) {
      try {
        bool g = false;
        runs[k] = start_of(z, rows, k, o.seed, g);
        grew[k] = g;
        csteps(runs[k], z, rows, hm, 2, host);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
    for (std::size_t k = 0; k < o.nsamp; ++k) {
      if (errors[k]) std::rethrow_exception(errors[k]);
      f.singular_starts += grew[k];
      ++f.starts;
    }
    std::sort(runs.begin(), runs.end(), better);
    runs.resize(std::min(kKeep, runs.size()));
    bool first = true;
    for (Run& r : runs) {
      r.steps = 0;
      r.converged = false;
      full_csteps(r, dev, rows.size() != n, h, o.max_csteps);
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
  dev.distances(raw);
  f.raw_mahalanobis = dev.read();
  f.raw_weights.resize(n);
  for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) f.raw_weights[i] = f.raw_mahalanobis[i] <= f.cutoff;
  });
  to_data(raw.mean, raw.cov, f.raw_center, f.raw_cov);
  // Reweighted (robustbase: cov.wt of the rows within the cutoff, divisor sum - 1).
  std::size_t changed = 0;
  Moments rew = dev.select(0, f.cutoff, raw.mean, 0, 1, changed);
  const std::size_t kept = static_cast<std::size_t>(std::count(f.raw_weights.begin(), f.raw_weights.end(), static_cast<unsigned char>(1)));
  f.cnp2[0] = mcd_consistency(p, static_cast<double>(kept) / nd);
  f.cnp2[1] = o.use_correction ? mcd_small_sample_reweighted(p, n, o.alpha) : 1;
  rew.cov *= f.cnp2[0] * f.cnp2[1];
  rew.llt.compute(rew.cov);
  to_data(rew.mean, rew.cov, f.center, f.cov);
  dev.distances(rew);
  f.mahalanobis = dev.read();
  f.weights.resize(n);
  for_row_blocks(n, [&](std::size_t, std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) f.weights[i] = f.mahalanobis[i] <= f.cutoff;
  });
  f.outliers = rows_where(n, [&](std::size_t i) { return !f.weights[i]; });
  return f;
}

Future<McdFit> mcd_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const McdOptions& o,
                         const std::vector<Event>& wait) {
  if (n > 0 && !x) throw std::invalid_argument("clstat::robust::mcd_async: null input");
  return ::clstat::detail::host_task<McdFit>(q, wait, [=] { return mcd(q.context(), x, n, p, o); });
}

}  // namespace clstat::robust
