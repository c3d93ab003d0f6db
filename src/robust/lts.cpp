// FAST-LTS (Rousseeuw & Van Driessen 2006) with robustbase's raw and reweighted fits.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "clstat/robust.hpp"
#include "runtime/lease.hpp"
#include "robust/consistency.hpp"
#include "robust/csteps.hpp"
#include "robust/design.hpp"
#include "robust/least_squares.hpp"
#include "robust/philox.hpp"
#include "robust/starts.hpp"

namespace clstat::robust {

using namespace detail;

std::size_t lts_coverage(double alpha, std::size_t n, std::size_t q) {
  if (!(alpha >= 0.5 && alpha <= 1))
    throw std::invalid_argument("clstat::robust::lts_coverage: alpha = " + std::to_string(alpha) + " is outside [0.5, 1]");
  if (q > n)
    throw std::invalid_argument("clstat::robust::lts_coverage: q = " + std::to_string(q) + " coefficients for n = " +
                                std::to_string(n) + " observations");
  const std::size_t n2 = (n + q + 1) / 2;
  return static_cast<std::size_t>(
      std::floor(static_cast<double>(2 * n2) - static_cast<double>(n) + 2.0 * static_cast<double>(n - n2) * alpha));
}

namespace {

constexpr std::size_t kNestedRows = 1500, kNestedBlocks = 5, kKeep = 10;

// The indices of the `keep` smallest objectives among valid runs (ties by index).
std::vector<std::size_t> best_runs(const Runs& r, const std::vector<char>& valid, std::size_t keep) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < r.obj.size(); ++i)
    if (valid[i] && std::isfinite(r.obj[i])) idx.push_back(i);
  auto less = [&](std::size_t a, std::size_t b) { return r.obj[a] < r.obj[b] || (r.obj[a] == r.obj[b] && a < b); };
  keep = std::min(keep, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + keep, idx.end(), less);
  idx.resize(keep);
  return idx;
}

// `m` distinct rows of 0..n-1 in random order: a partial Fisher-Yates shuffle (Philox stream 1).
std::vector<std::uint32_t> random_rows(std::size_t n, std::size_t m, std::uint64_t seed) {
  std::unordered_map<std::size_t, std::size_t> moved;
  auto at = [&](std::size_t i) {
    auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  PhiloxStream rng(seed, 1, 0);
  std::vector<std::uint32_t> out(m);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t j = i + rng.below(n - i);
    const std::size_t vi = at(i), vj = at(j);
    moved[j] = vi;
    out[i] = static_cast<std::uint32_t>(vj);
  }
  return out;
}

std::size_t block_coverage(std::size_t m, std::size_t h, std::size_t n, std::size_t q) {
  const std::size_t hb = (m * h + n - 1) / n;  // h/n of the block, rounded up
  return std::min(m, std::max(hb, q + 1));
}

struct Search {
  std::vector<double> beta;  // standardised
  std::size_t starts = 0, singular = 0;
  int csteps = 0;
  bool converged = false;
};

// The winning run of r (smallest objective among valid runs) into s; false when there is none.
bool take_best(Search& s, const Runs& r, const std::vector<char>& valid, std::size_t q) {
  const auto best = best_runs(r, valid, 1);
  if (best.empty()) return false;
  const std::size_t b = best[0];
  s.beta.assign(r.beta.begin() + b * q, r.beta.begin() + (b + 1) * q);
  s.csteps = static_cast<int>(r.steps[b]);
  s.converged = r.converged[b];
  return true;
}

Search search(const Context& ctx, const Design& d, std::size_t h, const LtsOptions& o, const char* op) {
  const std::size_t q = d.q, n = d.n;
  Search s;
  if (n <= kBlockRows) {
    // Every start C-stepped to convergence on all rows: one work-group each.
    std::vector<std::uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0u);
    Starts st = o.exact ? all_starts(d, op) : random_starts(d, all, o.nsamp, o.seed, 0, 0, true);
    s.starts = st.size();
    s.singular = st.singular;
    std::vector<std::uint32_t> sb(st.size(), 0);
    Runs r = run_blocks(ctx, d, {Block{all, h}}, sb, std::move(st.beta), static_cast<unsigned>(o.max_csteps),
                        BlockMode::lts_csteps, op);
    if (!take_best(s, r, st.valid, q)) throw std::invalid_argument(std::string(op) + ": every p-subset was singular");
    return s;
  }
  if (o.exact)
    throw std::invalid_argument(std::string(op) + ": exact enumeration is for n <= " + std::to_string(kBlockRows) +
                                " (n = " + std::to_string(n) + "); use random subsets (nsamp)");
  // The nested extension (sec. 3.3): 5 disjoint blocks of 300 random rows, merged into 1500.
  const auto merged = random_rows(n, kNestedRows, o.seed);
  const std::size_t per_block = kNestedRows / kNestedBlocks;
  const std::size_t starts_per = (o.nsamp + kNestedBlocks - 1) / kNestedBlocks;
  std::vector<Block> blocks;
  std::vector<double> beta;
  std::vector<std::uint32_t> sb;
  std::vector<char> valid;
  for (std::size_t b = 0; b < kNestedBlocks; ++b) {
    Block bl{std::vector<std::uint32_t>(merged.begin() + b * per_block, merged.begin() + (b + 1) * per_block),
             block_coverage(per_block, h, n, q)};
    Starts st = random_starts(d, bl.rows, starts_per, o.seed, 2, b * starts_per, true);
    s.starts += st.size();
    s.singular += st.singular;
    beta.insert(beta.end(), st.beta.begin(), st.beta.end());
    valid.insert(valid.end(), st.valid.begin(), st.valid.end());
    sb.insert(sb.end(), st.size(), static_cast<std::uint32_t>(b));
    blocks.push_back(std::move(bl));
  }
  Runs r1 = run_blocks(ctx, d, blocks, sb, std::move(beta), 2, BlockMode::lts_csteps, op);
  // The 10 best of each block go on to the merged rows.
  std::vector<double> beta2;
  for (std::size_t b = 0; b < kNestedBlocks; ++b) {
    Runs part;
    std::vector<char> pv;
    for (std::size_t i = 0; i < sb.size(); ++i) {
      part.obj.push_back(sb[i] == b ? r1.obj[i] : INFINITY);
      pv.push_back(sb[i] == b && valid[i]);
    }
    for (std::size_t i : best_runs(part, pv, kKeep))
      beta2.insert(beta2.end(), r1.beta.begin() + i * q, r1.beta.begin() + (i + 1) * q);
  }
  if (beta2.empty()) throw std::invalid_argument(std::string(op) + ": every p-subset was singular");
  const std::size_t c2 = beta2.size() / q;
  Runs r2 = run_blocks(ctx, d, {Block{merged, block_coverage(kNestedRows, h, n, q)}},
                       std::vector<std::uint32_t>(c2, 0), std::move(beta2), 2, BlockMode::lts_csteps, op);
  std::vector<double> beta3;
  for (std::size_t i : best_runs(r2, std::vector<char>(c2, 1), kKeep))
    beta3.insert(beta3.end(), r2.beta.begin() + i * q, r2.beta.begin() + (i + 1) * q);
  // The survivors C-stepped to convergence on all n rows.
  Runs r3 = run_full(ctx, d, h, std::move(beta3), static_cast<unsigned>(o.max_csteps), op);
  if (!take_best(s, r3, std::vector<char>(r3.obj.size(), 1), q))
    throw std::runtime_error(std::string(op) + ": no finite objective in the final C-steps");
  return s;
}

// The h rows with the smallest squared residuals of the standardised fit, ties by lower row.
std::vector<std::size_t> h_subset(const Design& d, const std::vector<double>& beta, std::size_t h) {
  const std::size_t n = d.n, q = d.q;
  std::vector<double> r2(n);
  for (std::size_t i = 0; i < n; ++i) {
    double r = d.ys[i];
    for (std::size_t j = 0; j < q; ++j) r -= d.z[i * q + j] * beta[j];
    r2[i] = r * r;
  }
  // The h-th smallest value by a selection on the values themselves (contiguous, where one on
  // indices compared through r2 missed the cache), then the rows below it and, in row order, as
  // many rows equal to it as h takes.
  std::vector<double> v(r2);
  std::nth_element(v.begin(), v.begin() + (h - 1), v.end());
  const double t = v[h - 1];
  std::size_t below = 0;
  for (double r : r2) below += r < t;
  std::vector<std::size_t> idx;
  idx.reserve(h);
  std::size_t ties = h - below;
  for (std::size_t i = 0; i < n; ++i)
    if (r2[i] < t || (r2[i] == t && ties > 0 && ties--)) idx.push_back(i);
  return idx;
}

// The scale robustbase's Fortran divides y by, so that crit_robustbase matches its crit: the
// median absolute deviation from the median (with intercept) or from 0 (without), times 1.4826
// rounded to single precision, as that code holds it.
double robustbase_y_scale(const double* y, std::size_t n, bool intercept) {
  std::vector<double> v(y, y + n);
  auto median = [](std::vector<double>& a) {
    const std::size_t m = a.size() / 2;
    std::nth_element(a.begin(), a.begin() + m, a.end());
    double hi = a[m];
    if (a.size() % 2) return hi;
    return 0.5 * (hi + *std::max_element(a.begin(), a.begin() + m));
  };
  const double med = intercept ? median(v) : 0.0;
  for (std::size_t i = 0; i < n; ++i) v[i] = std::fabs(y[i] - med);
  return median(v) * static_cast<double>(1.4826f);
}

}  // namespace

LtsFit lts(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y, const LtsOptions& o) {
  // One queue for the whole fit: every pass below runs on it (runtime/lease.hpp).
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const char* op = "clstat::robust::lts";
  if (!(o.alpha >= 0.5 && o.alpha <= 1))
    throw std::invalid_argument(std::string(op) + ": alpha = " + std::to_string(o.alpha) + " is outside [0.5, 1]");
  if (!o.exact && o.nsamp == 0) throw std::invalid_argument(std::string(op) + ": nsamp = 0 random subsets");
  if (o.max_csteps < 1) throw std::invalid_argument(std::string(op) + ": max_csteps must be at least 1");
  const Design d = make_design(op, x, n, p, y, o.intercept, 2);
  const std::size_t q = d.q, h = lts_coverage(o.alpha, n, q);
  const double cw = normal_quantile(0.9875);  // robustbase's "01.original" weights
  LtsFit f;
  f.n = n;
  f.q = q;
  f.h = h;
  std::vector<double> resid;
  if (h >= n) {  // alpha = 1: least squares, as robustbase
    f.best.resize(n);
    std::iota(f.best.begin(), f.best.end(), 0);
    f.raw_coefficients = least_squares_rows(x, p, o.intercept, y, f.best);
    resid = residuals_of(x, n, p, o.intercept, y, f.raw_coefficients);
    double ss = 0;
    for (double r : resid) ss += r * r;
    f.objective = ss;
    f.raw_scale = std::sqrt(ss / static_cast<double>(n - q));
    f.converged = true;
  } else {
    Search s = search(ctx, d, h, o, op);
    f.starts = s.starts;
    f.singular_starts = s.singular;
    f.csteps = s.csteps;
    f.converged = s.converged;
    f.best = h_subset(d, s.beta, h);
    f.raw_coefficients = least_squares_rows(x, p, o.intercept, y, f.best);
    if (f.raw_coefficients.empty())
      throw std::invalid_argument(std::string(op) + ": the best h-subset does not determine the coefficients");
    resid = residuals_of(x, n, p, o.intercept, y, f.raw_coefficients);
    std::vector<double> r2(n);
    for (std::size_t i = 0; i < n; ++i) r2[i] = resid[i] * resid[i];
    f.objective = sum_smallest(r2, h);
    const double correct = o.use_correction ? small_sample_raw(q, o.intercept, n, o.alpha) : 1.0;
    f.raw_cnp2[1] = correct;
    f.raw_scale = std::sqrt(f.objective / static_cast<double>(h)) *
                  asymptotic_factor(static_cast<double>(h), static_cast<double>(n)) * correct;
  }
  const double mad = robustbase_y_scale(y, n, o.intercept);
  f.crit_robustbase = mad > 0 ? f.objective / (mad * mad) : NAN;
  f.raw_weights.assign(n, 0);
  f.weights.assign(n, 0);
  if (std::fabs(f.raw_scale) < 1e-7) {  // an exact fit: h points on a hyperplane
    f.exact_fit = true;
    for (std::size_t i = 0; i < n; ++i) f.raw_weights[i] = f.weights[i] = std::fabs(resid[i]) <= 1e-7;
    f.raw_scale = f.scale = 0;
    f.coefficients = f.raw_coefficients;
    f.residuals = resid;
  } else {
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < n; ++i)
      if (std::fabs(resid[i] / f.raw_scale) <= cw) {
        f.raw_weights[i] = 1;
        keep.push_back(i);
      }
    f.coefficients = least_squares_rows(x, p, o.intercept, y, keep);
    if (f.coefficients.empty())
      throw std::invalid_argument(std::string(op) + ": the reweighted rows do not determine the coefficients");
    f.residuals = residuals_of(x, n, p, o.intercept, y, f.coefficients);
    const double sw = static_cast<double>(keep.size());
    double ss = 0;
    for (std::size_t i : keep) ss += f.residuals[i] * f.residuals[i];
    f.scale = std::sqrt(ss / (sw - 1));
    if (keep.size() != n) {
      const double cdelta = asymptotic_factor(sw, static_cast<double>(n));
      const double correct =
          (h < n && o.use_correction) ? small_sample_reweighted(q, o.intercept, n, o.alpha) : 1.0;
      if (h < n) {
        f.cnp2[0] = cdelta;
        f.cnp2[1] = correct;
      }
      f.scale *= cdelta * correct;
    }
    for (std::size_t i = 0; i < n; ++i) f.weights[i] = std::fabs(f.residuals[i] / f.scale) <= cw;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!f.weights[i]) f.outliers.push_back(i);
  return f;
}

Future<LtsFit> lts_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                         const LtsOptions& o, const std::vector<Event>& wait) {
  if (n > 0 && (!x || !y)) throw std::invalid_argument("clstat::robust::lts_async: null input");
  return ::clstat::detail::host_task<LtsFit>(q, wait, [=] { return lts(q.context(), x, n, p, y, o); });
}

}  // namespace clstat::robust
