"""Bandwidth selectors. Every result is in data units: h per dimension, or H as a (d, d) matrix.

normal_scale and scott are ks::Hns and SciPy's 'silverman' / 'scott' kernel covariances;
silverman is R's bw.nrd0 per column; plugin is the exact Wand-Jones direct plug-in
(KernSmooth::dpik, ks::hpi); scv_h is smoothed cross-validation per column (ks::hscv);
plugin_H and scv_H are the exact unconstrained plug-in and smoothed
cross-validation matrices (ks::Hpi and ks::Hscv with binned = FALSE); lscv_h and lscv_H minimise least-squares cross-validation over H = m^2 S and over
full H (ks::hlscv, ks::Hlscv).
"""
from types import SimpleNamespace as _NS

import numpy as _np

from . import _clstat


def normal_scale(x):
    """The normal-scale bandwidth matrix, ks::Hns.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)

    Returns
    -------
    ndarray, shape (d, d)
        H = (4 / ((d + 2) n))^(2 / (d + 4)) S, S the sample covariance (n - 1 denominator).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> clstat.bandwidth.normal_scale(x).round(4)
    array([[0.0962]])
    """
    return _clstat.bw_normal_scale(x)


def scott(x):
    """Scott's rule as a bandwidth matrix: SciPy gaussian_kde's default covariance.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)

    Returns
    -------
    ndarray, shape (d, d)
        H = n^(-2 / (d + 4)) S.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> clstat.bandwidth.scott(x).round(4)
    array([[0.0857]])
    """
    return _clstat.bw_scott(x)


def silverman(x):
    """Silverman's rule of thumb per column, R's bw.nrd0.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)

    Returns
    -------
    ndarray, shape (d,)
        0.9 min(sd, IQR / 1.34) n^(-1/5) for each column (h in data units).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> clstat.bandwidth.silverman(x).round(4)
    array([0.2635])
    """
    return _clstat.bw_silverman(x)


def plugin(x, stages=2, scale="minim", ctx=None):
    """The direct plug-in bandwidth of Wand and Jones per column, computed exactly.

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
    stages : int
        Functional-estimation stages (KernSmooth::dpik's level; 2 as its default).
    scale : {'minim', 'stdev', 'iqr'}
        The scale estimate of the normal reference, as dpik's scalest.
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: the pair sums split across its devices (the first
        device's value, bit for bit on devices of one type).

    Returns
    -------
    ndarray, shape (d,)
        h per column in data units: KernSmooth::dpik's value without its binning (equal to
        ks::hpi's exact form to 1e-10). Cost O(stages n^2 d / 2) on the device.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> clstat.bandwidth.plugin(x).round(4)
    array([0.3096])
    """
    return _np.asarray(_clstat.bw_plugin(x, stages, scale, ctx))


def lscv_h(x, grid=150, ctx=None):
    """Least-squares cross-validation over H = m^2 S (ks::hlscv for d = 1).

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
    grid : int
        Multipliers tried on a log grid before the minimum is refined; the grid is widened
        geometrically while its minimum lies at an end.
    ctx : Context or DeviceGroup, optional
        A group deals the rows of the pair triangle to its members (the objective is one
        device's to rounding, h to about 1e-6).

    Returns
    -------
    namespace
        h (per dimension, data units: sqrt(H_ii)), H, multiplier (m), objective (the LSCV
        value, exact sums) and at_boundary (True only when the minimum lies at the limit of
        what can be computed).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> r = clstat.bandwidth.lscv_h(x)
    >>> r.h.round(4), r.at_boundary
    (array([0.3489]), False)
    """
    return _NS(**_clstat.bw_lscv_h(x, grid, ctx))


def lscv_H(x, ctx=None):
    """Least-squares cross-validation over full bandwidth matrices, ks::Hlscv.

    Parameters
    ----------
    x : array_like, shape (n, d)
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: every evaluation's pair sums split across its devices
        (the first device's H, bit for bit on devices of one type).

    Returns
    -------
    namespace
        H (d, d), objective and converged: Nelder-Mead over the Cholesky factor of H from the
        normal-scale H, over every H whose eigenvalues relative to it lie in [1e-6, 1e6].

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=(300, 2))
    >>> r = clstat.bandwidth.lscv_H(x)
    >>> r.H.shape, r.converged
    ((2, 2), True)
    """
    return _NS(**_clstat.bw_lscv_H(x, ctx))


def plugin_H(x, stages=2, pilot="auto", ctx=None):
    """The unconstrained plug-in bandwidth matrix, exact: ks::Hpi(x, binned=FALSE).

    Parameters
    ----------
    x : array_like, shape (n, d), 2 <= d <= 6
    stages : int
        1 or 2 pilot stages (ks's nstage).
    pilot : str
        'auto' (ks's choice: 'samse' for d = 2, 'dscalar' above), 'samse', 'dscalar', or
        'samse-ks': ks 1.14's two-stage SAMSE pilot, which reads psi_6 at the wrong entries (about
        15% off in H at d = 2); it reproduces ks::Hpi's numbers.
    ctx : Context, optional

    Returns
    -------
    namespace
        H (d, d) in data units; H_sphered, with H = S^(1/2) H_sphered S^(1/2); criterion, the
        minimised AMISE estimate PI (ks's PI.star); pilot_g, the psi_4 pilot (sphered units);
        pilot, iterations (Newton steps) and converged. The minimiser is exact to rounding;
        ks's own search stops up to about 1e-4 of H's scale short of it.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=(400, 3))
    >>> r = clstat.bandwidth.plugin_H(x)
    >>> r.H.shape, r.pilot, r.converged
    ((3, 3), 'dscalar', True)
    """
    return _NS(**_clstat.bw_plugin_H(x, stages, pilot, ctx))


def scv_H(x, stages=2, pilot="auto", ctx=None):
    """Smoothed cross-validation over full bandwidth matrices, exact: ks::Hscv(x, binned=FALSE).

    Parameters
    ----------
    x : array_like, shape (n, d), 2 <= d <= 6
    stages : int
        1 or 2 pilot stages (ks's nstage).
    pilot : str
        'auto' (ks's choice: 'samse' for d = 2, 'dscalar' above), 'samse' or 'dscalar'. The samse
        pilot's own pilot matrix is the exact one-stage plug-in (ks bins that one).
    ctx : Context, optional

    Returns
    -------
    namespace
        H (d, d) in data units; H_sphered; criterion, the minimised SCV (ks's SCV.star); pilot_g;
        pilot; iterations (BFGS steps) and converged. The minimiser is exact to about 1e-8 of H;
        ks's own search stops up to about 3e-3 of H's scale short of it.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=(300, 2))
    >>> r = clstat.bandwidth.scv_H(x)
    >>> r.H.shape, r.pilot, r.converged
    ((2, 2), 'samse', True)
    """
    return _NS(**_clstat.bw_scv_H(x, stages, pilot, ctx))


def scv_h(x, stages=2, ctx=None):
    """Smoothed cross-validation, one bandwidth per column, exact: ks::hscv(x, binned=FALSE).

    Parameters
    ----------
    x : array_like, shape (n,) or (n, d)
    stages : int
        1 or 2 stages for the pilot's functionals (ks's nstage).
    ctx : Context, optional

    Returns
    -------
    ndarray, shape (d,)
        The minimiser of SCV(h) over [0.1, 2] h_NS to 1e-10 of h (hscv's search stops at 1.2e-4).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=400)
    >>> h = clstat.bandwidth.scv_h(x)
    >>> h.shape, bool(0.1 < h[0] < 1)
    ((1,), True)
    """
    return _np.asarray(_clstat.bw_scv_h(x, stages, ctx))
