// The asynchronous host-array forms of the stable area: each runs its plain form in a host task
// that holds the caller's queue, so every device pass inside it goes to that queue
// (runtime/lease.hpp: a plain form called by the holder of a queue runs on it).
#include "clstat/stable.hpp"
#include "clstat/stable_fit.hpp"
#include "runtime/lease.hpp"

namespace clstat::stable {

Future<Values> evaluate_async(const Queue& q, unsigned fns, const double* x, std::size_t n, const Params& p,
                              bool errors, double rel_tol, const std::vector<Event>& wait) {
  check(p);
  if (n > 0 && !x) throw std::invalid_argument("clstat::stable::evaluate_async: null input");
  return detail::host_task<Values>(q, wait, [=] { return evaluate(q.context(), fns, x, n, p, errors, rel_tol); });
}

Future<std::vector<double>> quantile_async(const Queue& q, const double* prob, std::size_t n, const Params& params,
                                           bool upper, double tol, bool nan_for_invalid,
                                           const std::vector<Event>& wait) {
  check(params);
  if (n > 0 && !prob) throw std::invalid_argument("clstat::stable::quantile_async: null input");
  return detail::host_task<std::vector<double>>(q, wait, [=] {
    return upper ? isf(q.context(), prob, n, params, tol, nan_for_invalid)
                 : quantile(q.context(), prob, n, params, tol, nan_for_invalid);
  });
}

Future<FitResult> fit_async(const Queue& q, const double* x, std::size_t n, const FitOptions& options,
                            const std::vector<Event>& wait) {
  if (n > 0 && !x) throw std::invalid_argument("clstat::stable::fit_async: null input");
  return detail::host_task<FitResult>(q, wait, [=] { return fit(q.context(), x, n, options); });
}

Future<std::vector<FitResult>> fit_many_async(const Queue& q, const std::vector<std::vector<double>>& sets,
                                              const FitOptions& options, const std::vector<Event>& wait) {
  return detail::host_task<std::vector<FitResult>>(q, wait, [=] { return fit_many(q.context(), sets, options); });
}

}  // namespace clstat::stable
