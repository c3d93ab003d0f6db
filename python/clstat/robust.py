"""High-breakdown regression: lts (FAST-LTS, robustbase::ltsReg's raw and reweighted fits) and
lms (least median of squares, MASS::lqs). X is (n, p) without a column of ones; coefficients are
intercept first. Indices (outliers, best) are 0-based."""
from types import SimpleNamespace as _NS

from . import _clstat


def lts(X, y, alpha=0.5, intercept=True, nsamp=500, seed=0x5EED5EED, ctx=None):
    """Returns an object with coefficients, scale, raw_coefficients, raw_scale, residuals,
    weights, outliers, best (the h-subset), h and objective."""
    return _NS(**_clstat.lts(X, y, alpha, intercept, nsamp, seed, ctx))


def lms(X, y, h=0, intercept=True, nsamp=3000, seed=0x5EED5EED, ctx=None):
    """Returns an object with coefficients, crit (the h-th smallest squared residual), scale
    (MASS's two), residuals, outliers, best and h; h = 0 means floor((n + q + 1) / 2)."""
    return _NS(**_clstat.lms(X, y, h, intercept, nsamp, seed, ctx))
