"""clstat: kernel density estimation, bandwidth selection, alpha-stable laws, order statistics and
robust regression on OpenCL devices (GPUs, and CPUs through PoCL).

NumPy arrays go in and come out. float64 C-contiguous input is used in place; other input is
converted once to float64 (the order statistics keep float32, int32 and int64 as they are).
Every call releases the GIL while the device works, so Python threads run calls in parallel; a
Context may be shared by threads. Bad input raises ValueError with clstat's message; device
failures raise clstat.DeviceError (BuildError, UnsupportedFeature are subclasses).

>>> import numpy as np, clstat
>>> x = np.random.default_rng(1).normal(size=1000)
>>> f = clstat.kde(x, np.linspace(-3, 3, 7), bandwidth=clstat.bandwidth.plugin(x)[0])
"""
import numpy as _np

from ._clstat import (BuildError, Context, DeviceError, UnsupportedFeature, __version__,  # noqa: F401
                      default_context, devices, grid, kde)
from . import _clstat
from . import bandwidth, robust, stable  # noqa: F401
from ._scipy_kde import gaussian_kde  # noqa: F401
from ._sklearn_kde import KernelDensity  # noqa: F401

# NumPy's quantile methods are Hyndman and Fan's types 1..9 (numpy.quantile's documentation).
_METHODS = {"inverted_cdf": 1, "averaged_inverted_cdf": 2, "closest_observation": 3,
            "interpolated_inverted_cdf": 4, "hazen": 5, "weibull": 6, "linear": 7,
            "median_unbiased": 8, "normal_unbiased": 9}


def _rows(a, axis):
    """a with `axis` moved last, as a C-contiguous (rows, cols) array, and the shape of the rest."""
    a = _np.asarray(a)
    moved = _np.moveaxis(a, axis, -1)
    rest = moved.shape[:-1]
    return _np.ascontiguousarray(moved.reshape(-1, moved.shape[-1])), rest


def median(a, axis=None, nan="propagate", ctx=None):
    """The exact median, as numpy.median(a, axis) (the mean of the two middle values for even
    counts). axis=None: of the flattened array; an int: along that axis. nan as in quantile."""
    if axis is None:
        return _clstat.median(_np.ravel(a), nan, ctx)
    rows, rest = _rows(a, axis)
    return _clstat.median_rows(rows, nan, ctx).reshape(rest)


def quantile(a, q, axis=None, method="linear", nan="propagate", ctx=None):
    """Exact sample quantiles, with numpy.quantile's method names and axis.

    Parameters
    ----------
    a : array_like
        The data (float32, float64, int32 and int64 are read as they are).
    q : float or array_like
        Probabilities in [0, 1].
    axis : None or int
        None: of the flattened array; an int: along that axis (the result's first dimensions are
        q's, as NumPy's).
    method : str
        One of NumPy's nine methods that are Hyndman and Fan's types (inverted_cdf, ...,
        linear (the default, R's type 7), median_unbiased, normal_unbiased). NumPy's 'lower',
        'higher', 'nearest' and 'midpoint' are not sample quantile types and raise ValueError.
    nan : {'propagate', 'omit', 'raise'}
        NaN handling: any NaN gives NaN (numpy.quantile), NaNs are dropped (numpy.nanquantile),
        or ValueError.

    Returns
    -------
    float or ndarray
        The quantiles, in double, equal bit for bit to R's quantile(a, q, type). NumPy agrees
        to rounding (a few ulp for the interpolating methods); NumPy 1.x's closest_observation
        picks another order statistic than R's type 3 at some q.
    """
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not one of {sorted(_METHODS)}")
    scalar = _np.ndim(q) == 0
    probs = _np.atleast_1d(_np.asarray(q, dtype=float)).ravel().tolist()
    if axis is None:
        out = _clstat.quantiles(_np.ravel(a), probs, _METHODS[method], nan, ctx)
        return float(out[0]) if scalar else out.reshape(_np.shape(q))
    rows, rest = _rows(a, axis)
    out = _clstat.quantiles_rows(rows, probs, _METHODS[method], nan, ctx).reshape(rest + (len(probs),))
    out = _np.moveaxis(out, -1, 0)
    return out[0] if scalar else out.reshape(_np.shape(q) + rest)


def kth_smallest(a, k, ctx=None):
    """The k-th smallest values of the flattened array, k 1-based (torch.kthvalue's k;
    numpy.partition(a, k - 1)[k - 1]). k may be an int or a list; returns the same shape."""
    scalar = _np.ndim(k) == 0
    out = _clstat.kth_smallest(_np.ravel(a), _np.atleast_1d(k).astype(_np.uint64).tolist(), ctx)
    return out[0] if scalar else out


def topk(a, k, largest=True, ctx=None):
    """The k largest (or smallest) values of the flattened array and their indices, sorted, as
    torch.topk. Returns (values, indices)."""
    return _clstat.topk(_np.ravel(a), int(k), bool(largest), ctx)
