#include "bandwidth/nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace clstat::bandwidth_detail {

NelderMeadResult nelder_mead(const std::function<double(const Eigen::VectorXd&)>& f, const Eigen::VectorXd& x0,
                             const Eigen::VectorXd& steps, double rel_tol, std::size_t max_evaluations) {
  const Eigen::Index m = x0.size();
  const auto M = static_cast<std::size_t>(m);
  std::vector<Eigen::VectorXd> p(M + 1, x0);
  std::vector<double> fv(M + 1);
  NelderMeadResult r;
  auto eval = [&](const Eigen::VectorXd& x) {
    ++r.evaluations;
    const double v = f(x);
    return std::isnan(v) ? HUGE_VAL : v;
  };
  for (std::size_t i = 0; i < M; ++i) p[i + 1](static_cast<Eigen::Index>(i)) += steps(static_cast<Eigen::Index>(i));
  for (std::size_t i = 0; i <= M; ++i) fv[i] = eval(p[i]);
  std::vector<std::size_t> order(M + 1);
  while (true) {
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return fv[a] < fv[b]; });
    const std::size_t best = order[0], worst = order[M], second = order[M - 1];
    if (fv[worst] - fv[best] <= rel_tol * std::abs(fv[best]) + 1e-300) {
      r.converged = true;
      break;
    }
    if (r.evaluations >= max_evaluations) break;
    Eigen::VectorXd c = Eigen::VectorXd::Zero(m);
    for (std::size_t i = 0; i <= M; ++i)
      if (i != worst) c += p[i];
    c /= static_cast<double>(M);
    const Eigen::VectorXd xr = c + (c - p[worst]);
    const double fr = eval(xr);
    if (fr < fv[best]) {
      const Eigen::VectorXd xe = c + 2 * (c - p[worst]);
      const double fe = eval(xe);
      if (fe < fr) p[worst] = xe, fv[worst] = fe;
      else p[worst] = xr, fv[worst] = fr;
      continue;
    }
    if (fr < fv[second]) {
      p[worst] = xr, fv[worst] = fr;
      continue;
    }
    // Contraction: outside if the reflection improved on the worst, else inside.
    const bool outside = fr < fv[worst];
    const Eigen::VectorXd xc = outside ? Eigen::VectorXd(c + 0.5 * (xr - c)) : Eigen::VectorXd(c + 0.5 * (p[worst] - c));
    const double fc = eval(xc);
    if (fc < (outside ? fr : fv[worst])) {
      p[worst] = xc, fv[worst] = fc;
      continue;
    }
    for (std::size_t i = 0; i <= M; ++i)
      if (i != best) {
        p[i] = p[best] + 0.5 * (p[i] - p[best]);
        fv[i] = eval(p[i]);
      }
  }
  const std::size_t b = static_cast<std::size_t>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  r.x = p[b];
  r.f = fv[b];
  return r;
}

}  // namespace clstat::bandwidth_detail
