"""High-breakdown regression: lts (FAST-LTS, robustbase::ltsReg's raw and reweighted fits) and
lms (least median of squares, MASS::lqs), mm (MM-regression, robustbase::lmrob); robust location
and scatter: mcd (FAST-MCD,
robustbase::covMcd). X is (n, p) without a column of ones; coefficients are intercept first.
Indices (outliers, best) are 0-based."""
from types import SimpleNamespace as _NS

from . import _clstat


def lts(X, y, alpha=0.5, intercept=True, nsamp=500, seed=0x5EED5EED, ctx=None):
    """Least trimmed squares (FAST-LTS), as robustbase::ltsReg.

    Parameters
    ----------
    X : array_like, shape (n, p)
        Explanatory variables, without a column of ones.
    y : array_like, shape (n,)
    alpha : float
        Coverage in [0.5, 1]: h = robustbase's h.alpha.n(alpha, n, p).
    intercept : bool
    nsamp : int
        Random p-subsets (ltsReg's default 500).
    seed : int
        The Philox seed: the same subsets on every device.
    ctx : Context or DeviceGroup, optional
        A group shares out the C-steps of the starts and of the search's survivors (the same fit).

    Returns
    -------
    namespace
        coefficients, scale (reweighted, intercept first), raw_coefficients, raw_scale,
        residuals, weights (0 for outliers), outliers (0-based rows), best (the h-subset), h
        and objective (the sum of the h smallest squared residuals).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> rng = np.random.default_rng(2)
    >>> X = rng.uniform(0, 10, (200, 1)); y = 1 + 2 * X[:, 0] + rng.normal(0, 0.1, 200); y[:40] += 20
    >>> fit = clstat.robust.lts(X, y)
    >>> fit.coefficients.round(1), len(fit.outliers)
    (array([1., 2.]), 40)
    """
    return _NS(**_clstat.lts(X, y, alpha, intercept, nsamp, seed, ctx))


def lms(X, y, h=0, intercept=True, nsamp=3000, seed=0x5EED5EED, ctx=None):
    """Least median of squares, as MASS::lqs(method = "lms").

    Parameters
    ----------
    X : array_like, shape (n, p)
    y : array_like, shape (n,)
    h : int
        The order statistic minimised; 0 means floor((n + q + 1) / 2).
    intercept : bool
    nsamp : int
        Random subsets (MASS's default 3000), in two stages: half from all rows, half from the
        h rows the first stage's best fit fits best; each fit's intercept is the exact LMS
        intercept for its slopes.
    seed : int
    ctx : Context, optional

    Returns
    -------
    namespace
        coefficients, crit (the h-th smallest squared residual), scale (MASS's two),
        residuals, outliers, best and h.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> rng = np.random.default_rng(2)
    >>> X = rng.uniform(0, 10, (200, 1)); y = 1 + 2 * X[:, 0] + rng.normal(0, 0.1, 200); y[:40] += 20
    >>> fit = clstat.robust.lms(X, y)
    >>> round(float(fit.coefficients[1]), 1), len(fit.outliers)
    (2.0, 40)
    """
    return _NS(**_clstat.lms(X, y, h, intercept, nsamp, seed, ctx))


def mcd(X, alpha=0.5, nsamp=500, seed=0x5EED5EED, use_correction=True, ctx=None):
    """Minimum covariance determinant (FAST-MCD), as robustbase::covMcd.

    Parameters
    ----------
    X : array_like, shape (n, p)
        n > 2 p rows of p variables.
    alpha : float
        Coverage in [0.5, 1]: h = robustbase's h.alpha.n(alpha, n, p).
    nsamp : int
        Random (p + 1)-subsets (covMcd's default 500).
    seed : int
        The Philox seed: the same subsets on every device.
    use_correction : bool
        The small-sample factors (published curves; see the C++ header for robustbase's tables).
    ctx : Context, optional

    Returns
    -------
    namespace
        center, cov (reweighted), raw_center, raw_cov, crit (log det of the best h-subset's
        covariance), mahalanobis and raw_mahalanobis (squared distances), weights (0 past
        cutoff = qchisq(0.975, p)), outliers, best (the h-subset), h, exact_fit.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> rng = np.random.default_rng(3)
    >>> X = rng.normal(size=(300, 3)); X[:45] += 25
    >>> fit = clstat.robust.mcd(X)
    >>> len(fit.outliers) >= 45, bool(np.all(np.abs(fit.center) < 0.5))
    (True, True)
    """
    return _NS(**_clstat.mcd(X, alpha, nsamp, seed, use_correction, ctx))


def mm(X, y, intercept=True, nsamp=500, seed=0x5EED5EED, ctx=None):
    """MM-regression, as robustbase::lmrob with its default control.

    An S-estimate (bisquare, breakdown point 0.5) by fast-S from nsamp random subsets, then the
    IRWLS M-step with its scale fixed (bisquare, 95% efficiency at the normal).

    Parameters
    ----------
    X : array_like, shape (n, p)
        Explanatory variables, without a column of ones.
    y : array_like, shape (n,)
    intercept : bool
    nsamp : int
        Random subsets of fast-S (lmrob's default 500).
    seed : int
    ctx : Context, optional

    Returns
    -------
    namespace
        coefficients and std_errors (intercept first; .vcov.avar1), cov, scale (the S-scale),
        init_coefficients (the S-estimate), residuals, weights (lmrob's rweights), outliers
        (weight below 0.1 / n) and converged.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> rng = np.random.default_rng(4)
    >>> X = rng.normal(5, 2, (400, 1)); y = 1 + 2 * X[:, 0] + rng.normal(0, 0.5, 400)
    >>> X[:60, 0] += 30; y[:60] -= 80
    >>> fit = clstat.robust.mm(X, y)
    >>> fit.coefficients.round(0), bool(set(range(60)) <= set(fit.outliers.tolist()))
    (array([1., 2.]), True)
    """
    return _NS(**_clstat.mm(X, y, intercept, nsamp, seed, ctx))
