"""Alpha-stable laws with scipy.stats.levy_stable's argument order, (x, alpha, beta, loc=0,
scale=1), in Nolan's S0 parameterisation by default (parameterization="S1" as SciPy's default).

pdf, logpdf, cdf, sf, ppf, isf and rvs evaluate on the device (Nolan's integrals, adaptive
Gauss-Kronrod; Nolan's tables are matched to 4e-13); fit is maximum likelihood with standard
errors (or McCulloch's quantile method, or Koutrouvelis's regression).
"""
from types import SimpleNamespace as _NS

import numpy as _np

from . import _clstat


def _f(name):
    fn = getattr(_clstat, "stable_" + name)

    def call(x, alpha, beta, loc=0.0, scale=1.0, parameterization="S0", ctx=None):
        out = fn(_np.asarray(x, dtype=float), alpha, beta, loc, scale, parameterization, ctx)
        return float(out) if _np.ndim(x) == 0 else out

    call.__name__ = name
    call.__doc__ = f"{name} of the stable law S(alpha, beta, scale, loc) at x (array or scalar)."
    return call


pdf, logpdf, cdf, sf, ppf, isf = (_f(n) for n in ("pdf", "logpdf", "cdf", "sf", "ppf", "isf"))


def rvs(alpha, beta, loc=0.0, scale=1.0, size=1, seed=1, parameterization="S0", ctx=None):
    """size random numbers (Chambers-Mallows-Stuck driven by Philox): a seed gives the same
    stream on every device."""
    return _clstat.stable_rvs(alpha, beta, loc, scale, int(size), int(seed), parameterization, ctx)


def fit(data, method="mle", parameterization="S0", ctx=None):
    """(alpha, beta, loc, scale), as scipy.stats.levy_stable.fit returns them."""
    r = _clstat.stable_fit(_np.asarray(data, dtype=float).ravel(), method, parameterization, ctx)
    return r["alpha"], r["beta"], r["loc"], r["scale"]


def fit_result(data, method="mle", parameterization="S0", ctx=None):
    """The whole fit: alpha, beta, loc, scale, their standard errors (se_*; MLE only), loglik,
    converged and iterations."""
    return _NS(**_clstat.stable_fit(_np.asarray(data, dtype=float).ravel(), method, parameterization, ctx))


class _LevyStable:
    """An object that behaves like scipy.stats.levy_stable for pdf, logpdf, cdf, sf, ppf, isf,
    rvs and fit, with its `parameterization` attribute ("S1", SciPy's default, or "S0")."""

    def __init__(self):
        self.parameterization = "S1"

    def __getattr__(self, name):
        # pdf, logpdf, cdf, sf, ppf, isf: the module's functions in this object's parameterisation.
        if name not in ("pdf", "logpdf", "cdf", "sf", "ppf", "isf"):
            raise AttributeError(name)
        fn = globals()[name]
        return lambda x, alpha, beta, loc=0.0, scale=1.0: fn(x, alpha, beta, loc, scale,
                                                           parameterization=self.parameterization)

    def rvs(self, alpha, beta, loc=0.0, scale=1.0, size=1, random_state=None):
        seed = random_state if isinstance(random_state, int) else int(_np.random.default_rng(random_state).integers(2**63))
        n = int(_np.prod(size))
        return rvs(alpha, beta, loc, scale, n, seed, self.parameterization).reshape(size)

    def fit(self, data):
        return fit(data, "mle", self.parameterization)


levy_stable = _LevyStable()
