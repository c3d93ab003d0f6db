"""Alpha-stable laws with scipy.stats.levy_stable's argument order, (x, alpha, beta, loc=0,
scale=1), in Nolan's S0 parameterisation by default (parameterization="S1" as SciPy's default).

pdf, logpdf, cdf, sf, ppf, isf and rvs evaluate on the device (Nolan's integrals, adaptive
Gauss-Kronrod; Nolan's tables are matched to 4e-13); fit is maximum likelihood with standard
errors (or McCulloch's quantile method, or Koutrouvelis's regression).
"""
from types import SimpleNamespace as _NS

import numpy as _np

from . import _clstat


_COMMON = """
    Parameters
    ----------
    {arg}
    alpha : float
        Stability index in (0, 2].
    beta : float
        Skewness in [-1, 1].
    loc, scale : float
        Location and scale (scale > 0) in the chosen parameterisation.
    parameterization : {{'S0', 'S1'}}
        Nolan's S0 (continuous in alpha; the default) or S1 (SciPy's default for levy_stable).
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: the points split across its devices.{out}

    Returns
    -------
    float or ndarray
        {ret} Accuracy: about 1e-13 relative (pdf) and 1e-14 absolute (cdf, sf) away from
        alpha = 1, and within 5e-12 / 2e-13 near it (stated bounds, checked against 40-digit
        references); quantiles to 1e-11 relative. NaN in gives NaN out.
"""

_OUT = """
    out : ndarray, optional
        A writeable C-contiguous float64 array of x's size (x itself allowed): the values are
        written there and it is returned; nothing else is allocated."""

_DOCS = {
    "pdf": """The density of the stable law S(alpha, beta, scale, loc) at x.
""" + _COMMON.format(out=_OUT, arg="x : array_like\n        Where to evaluate.", ret="The density, x's shape.") + """
    Examples
    --------
    >>> import clstat
    >>> round(clstat.stable.pdf(0.0, 1.5, 0.5), 6)
    0.284284
    """,
    "logpdf": """The log density of the stable law at x (finite far into the tails, where pdf underflows).
""" + _COMMON.format(out=_OUT, arg="x : array_like\n        Where to evaluate.", ret="The log density, x's shape.") + """
    Examples
    --------
    >>> import math, clstat
    >>> math.isclose(clstat.stable.logpdf(0.0, 1.5, 0.5), math.log(clstat.stable.pdf(0.0, 1.5, 0.5)))
    True
    """,
    "cdf": """The distribution function P(X <= x) of the stable law.
""" + _COMMON.format(out=_OUT, arg="x : array_like\n        Where to evaluate.", ret="P(X <= x), x's shape.") + """
    Examples
    --------
    >>> import clstat
    >>> round(clstat.stable.cdf(0.0, 1.5, 0.5), 6)
    0.462187
    """,
    "sf": """The survival function P(X > x) of the stable law, exact in the upper tail (not 1 - cdf).
""" + _COMMON.format(out=_OUT, arg="x : array_like\n        Where to evaluate.", ret="P(X > x), x's shape.") + """
    Examples
    --------
    >>> import clstat
    >>> round(clstat.stable.sf(0.0, 1.5, 0.5) + clstat.stable.cdf(0.0, 1.5, 0.5), 12)
    1.0
    """,
    "ppf": """Quantiles: the x with P(X <= x) = q.
""" + _COMMON.format(out="", arg="q : array_like\n        Probabilities in [0, 1].", ret="The quantiles, q's shape.") + """
    Examples
    --------
    >>> import clstat
    >>> round(clstat.stable.ppf(0.5, 1.5, 0.5), 6)
    0.133853
    """,
    "isf": """Upper quantiles: the x with P(X > x) = q (exact for small q, unlike ppf(1 - q)).
""" + _COMMON.format(out="", arg="q : array_like\n        Probabilities in [0, 1].", ret="The upper quantiles, q's shape.") + """
    Examples
    --------
    >>> import clstat
    >>> round(clstat.stable.isf(0.5, 1.5, 0.5), 6)
    0.133853
    """,
}


def _f(name):
    fn = getattr(_clstat, "stable_" + name)

    def call(x, alpha, beta, loc=0.0, scale=1.0, parameterization="S0", ctx=None, out=None):
        got = fn(_np.asarray(x, dtype=float), alpha, beta, loc, scale, parameterization, ctx, out)
        if out is not None:
            return out
        # The binding answers a 0-d input with a 1-element array; NumPy 2 refuses float() of it.
        return float(got.reshape(-1)[0]) if _np.ndim(x) == 0 else got

    call.__name__ = name
    call.__doc__ = _DOCS[name]
    return call


pdf, logpdf, cdf, sf, ppf, isf = (_f(n) for n in ("pdf", "logpdf", "cdf", "sf", "ppf", "isf"))


def rvs(alpha, beta, loc=0.0, scale=1.0, size=1, seed=1, parameterization="S0", ctx=None):
    """Random numbers from the stable law (Chambers-Mallows-Stuck, Philox counters).

    Parameters
    ----------
    alpha, beta, loc, scale : float
        The law, as in pdf.
    size : int
        How many.
    seed : int
        The Philox key: the same seed gives the same numbers on every device and queue.
    parameterization : {'S0', 'S1'}
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: the draws split by counter (the same stream).

    Returns
    -------
    ndarray, shape (size,)
        Exact to about 1e-15 relative except near alpha = 1 (about 2e-16 |zeta| scale absolute).

    Examples
    --------
    >>> import clstat
    >>> clstat.stable.rvs(1.5, 0.5, size=3, seed=1).round(4)
    array([2.2915, 0.0657, 0.588 ])
    """
    return _clstat.stable_rvs(alpha, beta, loc, scale, int(size), int(seed), parameterization, ctx)


def fit(data, method="mle", parameterization="S0", ctx=None):
    """Fit a stable law to data, as scipy.stats.levy_stable.fit.

    Parameters
    ----------
    data : array_like
        The sample (flattened).
    method : {'mle', 'mcculloch', 'koutrouvelis'}
        Maximum likelihood (exact likelihoods on the device, Newton steps from McCulloch's
        estimate), McCulloch's quantile method, or Koutrouvelis's regression.
    parameterization : {'S0', 'S1'}
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: each likelihood split across its devices' shares of data.

    Returns
    -------
    tuple
        (alpha, beta, loc, scale). fit_result gives the standard errors and the log-likelihood.

    Examples
    --------
    >>> import clstat
    >>> x = clstat.stable.rvs(1.7, -0.3, size=3000, seed=3)
    >>> [round(v, 1) for v in clstat.stable.fit(x, method="mcculloch")]
    [1.7, -0.3, 0.0, 1.0]
    """
    r = _clstat.stable_fit(_np.asarray(data, dtype=float).ravel(), method, parameterization, ctx)
    return r["alpha"], r["beta"], r["loc"], r["scale"]


def log_likelihood(data, laws, parameterization="S0", ctx=None):
    """Log-likelihoods of data under each of several laws: sum(logpdf(data)) per law.

    Parameters
    ----------
    data : array_like
        The sample (flattened); no NaN.
    laws : sequence of (alpha, beta, loc, scale)
        The laws, in SciPy's order of the parameters.
    parameterization : {'S0', 'S1'}
    ctx : Context, optional
        The device.

    Returns
    -------
    ndarray, shape (len(laws),)
        -inf for a law whose support misses a value. The data go to the device once for all
        laws; from 2^15 values each law's logpdf comes from its interpolant, built together with
        the others' (clstat/stable.hpp). A law's value does not depend on the other laws asked.

    Raises
    ------
    ValueError
        For NaN in data, a law that is not four numbers or is out of range (alpha in (0, 2],
        beta in [-1, 1], scale > 0), or an unknown parameterization.
    TypeError
        For a DeviceGroup as ctx.

    Cost: len(laws) * len(data) logpdf evaluations on the device, plus a few thousand quadrature
    points per law when interpolated. Thread-safe; releases the GIL.

    Examples
    --------
    >>> import clstat
    >>> x = clstat.stable.rvs(1.5, 0.5, size=1000, seed=2)
    >>> ll = clstat.stable.log_likelihood(x, [(1.5, 0.5, 0.0, 1.0), (1.9, 0.0, 0.0, 1.0)])
    >>> bool(ll[0] > ll[1])
    True
    """
    laws = [tuple(float(v) for v in law) for law in laws]
    for law in laws:
        if len(law) != 4:
            raise ValueError("each law is (alpha, beta, loc, scale)")
    return _clstat.stable_log_likelihood(_np.asarray(data, dtype=float).ravel(), laws, parameterization, ctx)


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
