// Least median of squares, generalised to the h-th order statistic (Rousseeuw 1984), with MASS's
// per-subset intercept adjustment and scales.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "clstat/robust.hpp"
#include "runtime/lease.hpp"
#include "robust/consistency.hpp"
#include "robust/csteps.hpp"
#include "robust/design.hpp"
#include "robust/least_squares.hpp"
#include "robust/starts.hpp"

namespace clstat::robust {

using namespace detail;

namespace {

// The shortest window of h sorted residuals (Rousseeuw's LMS location, MASS's adjustment):
// its middle and its width. O(n log n) for the sort.
std::pair<double, double> shortest_window(std::vector<double> r, std::size_t h) {
  std::sort(r.begin(), r.end());
  std::size_t j = 0;
  for (std::size_t t = 1; t + h <= r.size(); ++t)
    if (r[t + h - 1] - r[t] < r[j + h - 1] - r[j]) j = t;
  return {0.5 * (r[j + h - 1] + r[j]), r[j + h - 1] - r[j]};
}

}  // namespace

LmsFit lms(const Context& ctx, const double* x, std::size_t n, std::size_t p, const double* y, const LmsOptions& o) {
  // One queue for the whole fit: every pass below runs on it (runtime/lease.hpp).
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const char* op = "clstat::robust::lms";
  if (!o.exact && o.nsamp == 0) throw std::invalid_argument(std::string(op) + ": nsamp = 0 random subsets");
  const Design d = make_design(op, x, n, p, y, o.intercept, 2);
  const std::size_t q = d.q;
  const std::size_t h = o.h ? o.h : (n + q + 1) / 2;
  if (h <= q || h > n)
    throw std::invalid_argument(std::string(op) + ": h = " + std::to_string(h) + " is outside " +
                                std::to_string(q + 1) + ".." + std::to_string(n) + " (q + 1 to n)");
  const bool adjust = o.adjust && o.intercept;
  LmsFit f;
  f.n = n;
  f.q = q;
  f.h = h;
  f.exhaustive = o.exact || choose(n, q) <= o.nsamp;
  std::vector<std::uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0u);
  // The criterion of every start, on the full data.
  auto evaluate = [&](const Starts& st) {
    std::vector<double> crit;
    if (n <= kBlockRows) {
      std::vector<std::uint32_t> sb(st.size(), 0);
      crit = run_blocks(ctx, d, {Block{all, h}}, sb, st.beta, 0,
                        adjust ? BlockMode::lms_adjust : BlockMode::lms_plain, op)
                 .obj;
    } else {
      std::vector<double> vb;
      std::vector<std::size_t> which;
      for (std::size_t i = 0; i < st.size(); ++i)
        if (st.valid[i]) {
          vb.insert(vb.end(), st.beta.begin() + i * q, st.beta.begin() + (i + 1) * q);
          which.push_back(i);
        }
      const auto c = lms_full(ctx, d, h, vb, adjust, op);
      crit.assign(st.size(), INFINITY);
      for (std::size_t k = 0; k < which.size(); ++k) crit[which[k]] = c[k];
    }
    return crit;
  };
  // The best valid start (ties to the earlier one), or st.size() when every start is singular.
  auto winner = [&](const Starts& st, const std::vector<double>& crit) {
    std::size_t best = st.size();
    for (std::size_t i = 0; i < st.size(); ++i)
      if (st.valid[i] && std::isfinite(crit[i]) && (best == st.size() || crit[i] < crit[best])) best = i;
    return best;
  };
  Starts st;
  std::vector<double> crit;
  if (f.exhaustive) {
    st = all_starts(d, op);
    crit = evaluate(st);
  } else {
    // Two stages, nsamp subsets in all (MASS::lqs draws nsamp from all rows). The first half is
    // drawn from all rows; the second from the h rows that the first stage's best fit fits best.
    // Once that fit is near the LMS fit, those rows are the bulk of the data, so nearly every
    // second-stage subset lies in it, where with a fraction e of outliers only (1 - e)^q of the
    // first stage's do (12% for q = 6 and e = 0.3): the search concentrates on the good region,
    // as the C-steps of FAST-LTS do for LTS. With few subsets (or h close to n) the second stage
    // is skipped. Every criterion is still evaluated on all n rows.
    const bool two_stage = o.nsamp >= 20 && h < n;
    const std::size_t first = two_stage ? (o.nsamp + 1) / 2 : o.nsamp;
    st = random_starts(d, all, first, o.seed, 3, 0, false);
    crit = evaluate(st);
    const std::size_t b1 = winner(st, crit);
    if (two_stage && b1 < st.size()) {
      std::vector<std::uint32_t> rows1(st.subset.begin() + b1 * q, st.subset.begin() + (b1 + 1) * q);
      std::vector<std::size_t> rows1s(rows1.begin(), rows1.end());
      const auto coef = least_squares_rows(x, p, o.intercept, y, rows1s);
      if (!coef.empty()) {
        const auto r = residuals_of(x, n, p, o.intercept, y, coef);
        // The h rows of smallest |r - m|, m the middle of the shortest window of h residuals
        // (the adjusted intercept) or 0 without adjustment.
        const double mid = adjust ? shortest_window(r, h).first : 0.0;
        std::vector<std::uint32_t> pool(all);
        std::nth_element(pool.begin(), pool.begin() + (h - 1), pool.end(), [&](std::uint32_t a, std::uint32_t b) {
          const double da = std::fabs(r[a] - mid), db = std::fabs(r[b] - mid);
          return da < db || (da == db && a < b);
        });
        pool.resize(h);
        std::sort(pool.begin(), pool.end());
        Starts st2 = random_starts(d, pool, o.nsamp - first, o.seed, 4, 0, false);
        const std::vector<double> crit2 = evaluate(st2);
        st.beta.insert(st.beta.end(), st2.beta.begin(), st2.beta.end());
        st.subset.insert(st.subset.end(), st2.subset.begin(), st2.subset.end());
        st.valid.insert(st.valid.end(), st2.valid.begin(), st2.valid.end());
        st.singular += st2.singular;
        crit.insert(crit.end(), crit2.begin(), crit2.end());
      }
    }
  }
  f.starts = st.size();
  f.singular_starts = st.singular;
  const std::size_t best = winner(st, crit);
  if (best == st.size()) throw std::invalid_argument(std::string(op) + ": every p-subset was singular");
  f.best.assign(st.subset.begin() + best * q, st.subset.begin() + (best + 1) * q);
  std::sort(f.best.begin(), f.best.end());
  // The winner again, in the data's units: its exact fit, then the intercept moved to the middle
  // of the shortest window of h residuals.
  f.coefficients = least_squares_rows(x, p, o.intercept, y, f.best);
  if (f.coefficients.empty()) throw std::logic_error(std::string(op) + ": the best p-subset is singular");
  std::vector<double> r = residuals_of(x, n, p, o.intercept, y, f.coefficients);
  if (adjust) {
    const auto [mid, w] = shortest_window(r, h);
    f.coefficients[0] += mid;
    f.crit = 0.25 * w * w;
    r = residuals_of(x, n, p, o.intercept, y, f.coefficients);
  } else {
    std::vector<double> r2(n);
    for (std::size_t i = 0; i < n; ++i) r2[i] = r[i] * r[i];
    std::nth_element(r2.begin(), r2.begin() + (h - 1), r2.end());
    f.crit = r2[h - 1];
  }
  f.residuals = r;
  // MASS::lqs's scales: the consistency factor 1 / qnorm((n + h) / 2n) on sqrt(crit), then the
  // residual standard deviation of the points within 2.5 times that.
  f.scale[0] = std::sqrt(f.crit) / normal_quantile((static_cast<double>(n) + h) / (2.0 * n));
  double ss = 0;
  std::size_t in = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::fabs(r[i]) <= 2.5 * f.scale[0]) {
      ss += r[i] * r[i];
      ++in;
    } else {
      f.outliers.push_back(i);
    }
  }
  f.scale[1] = in > q ? std::sqrt(ss / static_cast<double>(in - q)) : NAN;
  return f;
}

Future<LmsFit> lms_async(const Queue& q, const double* x, std::size_t n, std::size_t p, const double* y,
                         const LmsOptions& o, const std::vector<Event>& wait) {
  if (n > 0 && (!x || !y)) throw std::invalid_argument("clstat::robust::lms_async: null input");
  return ::clstat::detail::host_task<LmsFit>(q, wait, [=] { return lms(q.context(), x, n, p, y, o); });
}

}  // namespace clstat::robust
