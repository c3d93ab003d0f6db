// Internal: the factors that make the LTS scales consistent at the normal model, as robustbase's
// ltsReg applies them. The asymptotic factor is 1 / sqrt(1 - 2n/(h/c) phi(c)) with
// c = qnorm((h + n) / (2n)), the variance of the standard normal truncated to its central h/n
// (Croux & Rousseeuw 1992). The small-sample factors are the fitted curves of Pison, Van Aelst &
// Willems (2002, Metrika 55, sec. 3 and 4), for the raw (LTScnp2) and the reweighted
// (LTScnp2.rew) scale; their coefficients are those the paper reports and robustbase uses.
#pragma once

#include <cstddef>

namespace clstat::robust::detail {

/// 1 / sqrt(1 - (2 n) / (h / c) phi(c)), c = qnorm((h + n) / (2 n)): the asymptotic consistency
/// factor of the root mean of the h smallest of n squared normal residuals.
double asymptotic_factor(double h, double n);

/// The small-sample factor of the raw LTS scale for q coefficients (intercept among them when
/// `intercept`), n observations and coverage alpha in [0.5, 1].
double small_sample_raw(std::size_t q, bool intercept, std::size_t n, double alpha);

/// The same for the reweighted scale.
double small_sample_reweighted(std::size_t q, bool intercept, std::size_t n, double alpha);

/// MCD: robustbase's MCDcons(p, a) = a / F_{p+2}(qchisq(a, p)), F the chi-square CDF with p + 2
/// degrees of freedom (Croux & Haesbroeck 1999), and the small-sample curves MCDcnp2 and
/// MCDcnp2.rew of Pison, Van Aelst & Willems (2002) for p variables.
double mcd_consistency(std::size_t p, double a);
double mcd_small_sample_raw(std::size_t p, std::size_t n, double alpha);
double mcd_small_sample_reweighted(std::size_t p, std::size_t n, double alpha);
/// qchisq(a, p).
double chi_square_quantile(double a, std::size_t p);

/// qnorm(p) and dnorm(x) of the standard normal.
double normal_quantile(double p);
double normal_density(double x);

}  // namespace clstat::robust::detail
