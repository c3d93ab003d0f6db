"""Bandwidth selectors. Every result is in data units: h per dimension, or H as a (d, d) matrix.

normal_scale and scott are ks::Hns and SciPy's 'silverman' / 'scott' kernel covariances;
silverman is R's bw.nrd0 per column; plugin is the exact Wand-Jones direct plug-in
(KernSmooth::dpik, ks::hpi); lscv_h and lscv_H minimise least-squares cross-validation over
H = m^2 S and over full H (ks::hlscv, ks::Hlscv).
"""
from types import SimpleNamespace as _NS

import numpy as _np

from . import _clstat


def normal_scale(x):
    """H = (4 / ((d + 2) n))^(2 / (d + 4)) S for x of shape (n,) or (n, d); a (d, d) array."""
    return _clstat.bw_normal_scale(x)


def scott(x):
    """H = n^(-2 / (d + 4)) S, SciPy gaussian_kde's default covariance; a (d, d) array."""
    return _clstat.bw_scott(x)


def silverman(x):
    """0.9 min(sd, IQR / 1.34) n^(-1/5) per column, R's bw.nrd0; an array of d values."""
    return _clstat.bw_silverman(x)


def plugin(x, stages=2, scale="minim", ctx=None):
    """The exact Wand-Jones direct plug-in bandwidth per column (KernSmooth::dpik without its
    binning); an array of d values. O(stages n^2 d / 2) on the device."""
    return _np.asarray(_clstat.bw_plugin(x, stages, scale, ctx))


def lscv_h(x, grid=150, ctx=None):
    """LSCV over H = m^2 S. Returns an object with h (per dimension), H, multiplier, objective
    and at_boundary (the minimum is still at an end of the search)."""
    return _NS(**_clstat.bw_lscv_h(x, grid, ctx))


def lscv_H(x, ctx=None):
    """LSCV over full H by Nelder-Mead. Returns an object with H, objective and converged."""
    return _NS(**_clstat.bw_lscv_H(x, ctx))
