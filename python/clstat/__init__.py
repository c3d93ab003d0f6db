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

from ._clstat import (BuildError, Context, DeviceArray, DeviceError, DeviceGroup,  # noqa: F401
                      UnsupportedFeature, __version__, default_context, devices)
from . import _clstat
from . import bandwidth, robust, stable  # noqa: F401
from ._scipy_kde import gaussian_kde  # noqa: F401
from ._sklearn_kde import KernelDensity  # noqa: F401

def kde(samples, points=None, kernel="gaussian", bandwidth=1.0, weights=None, precision="float64",
        log=False, loo=False, ctx=None, boundary="none", lower=None, upper=None):
    """Kernel density estimate at points, by the exact sum over all samples.

    Parameters
    ----------
    samples : array_like, shape (n,) or (n, d)
        The data, row-major.
    points : array_like, shape (m,) or (m, d), optional
        Where to evaluate; None evaluates at the samples themselves.
    kernel : str
        gaussian, epanechnikov, biweight, triweight, triangular, uniform or cosine (product
        kernels for d > 1, each of unit variance scale h as in Wand and Jones).
    bandwidth : float, array_like (d,) or array_like (d, d)
        h for every dimension, h per dimension, or the full bandwidth matrix H (data units).
    weights : array_like (n,), optional
        Non-negative sample weights (normalised to sum 1); default 1/n each.
    precision : {'float64', 'float32'}
        The device arithmetic; float64 results are exact to a few ulp, float32 to about 1e-6
        relative where the density is above 1e-25.
    log : bool
        Return log densities (exact where the density underflows).
    loo : bool
        Leave-one-out at the samples (points must be None).
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: the points split across its devices, each point's value
        its own device's (points must be given).
    boundary : {'none', 'reflection', 'renormalisation', 'log'}
        A bounded support [lower, upper] per dimension and its correction: mirrored samples,
        each kernel cut at the box and scaled to mass 1, or the estimate of log(x - lower) mapped
        back. The first two need a scalar or per-dimension bandwidth. The result is 0 outside the
        box and integrates to 1 over it.
    lower, upper : array_like (d,), optional
        The bounds (-inf / inf: open); default open.

    Returns
    -------
    ndarray, shape (m,)
        The densities. Cost: n m kernel evaluations on the device (reflection: n m copies).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> clstat.kde(x, [0.0, 1.0], bandwidth=0.3).round(4)
    array([0.3654, 0.2477])
    """
    return _clstat.kde(samples, points, kernel, bandwidth, weights, precision, log, loo, ctx, boundary, lower, upper)


def kde_sample(samples, count, seed=0, kernel="gaussian", bandwidth=1.0, weights=None, ctx=None):
    """count draws from the kernel density estimate of samples (shape (n,) or (n, d)).

    Each draw picks a sample (by weight) and adds kernel noise scaled by the bandwidth (a full
    matrix H for the Gaussian; scalar or per-dimension h for the bounded kernels), as
    scipy.stats.gaussian_kde.resample. Draw i comes from its own Philox4x32-10 stream of
    (seed, i), so a seed gives the same values on every device.

    Returns
    -------
    ndarray, shape (count,) for 1-d samples, else (count, d).

    Examples
    --------
    >>> import clstat
    >>> clstat.kde_sample([0.0, 10.0], 4, seed=1, kernel="uniform", bandwidth=0.5).shape
    (4,)
    """
    x = _np.asarray(samples, dtype=float)
    out = _clstat.kde_sample(_np.ascontiguousarray(x if x.ndim > 1 else x.reshape(-1, 1)), int(count), int(seed),
                             kernel, bandwidth, weights, ctx)
    return out[:, 0] if x.ndim == 1 else out


def kde_cdf(samples, points, kernel="gaussian", bandwidth=1.0, weights=None, precision="float64", log=False,
            ctx=None):
    """Kernel estimate of the distribution function of 1-d data, as R's ks::kcde.

    F(y) = sum_j w_j Kbar((y - x_j) / h), Kbar the integrated kernel: the normal CDF for the
    Gaussian (so it equals scipy's ``gaussian_kde(x).integrate_box_1d(-inf, y)`` when h is that
    estimate's standard deviation), the integrated polynomial or cosine for the bounded kernels.

    Parameters
    ----------
    samples, points : array_like, shape (n,) and (m,)
        The data and where to evaluate.
    kernel : str
        As in `kde`.
    bandwidth : float
        h, in the data's units.
    weights : array_like (n,), optional
        Non-negative sample weights (normalised to sum 1).
    precision : {'float64', 'float32'}
        float64 within 1e-12 relative of the exact sum; float32 within 2e-5 (1e-6 absolute).
    log : bool
        Return log F.
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: the points split across its devices.

    Returns
    -------
    ndarray, shape (m,)
        F at the points, in [0, 1]. Cost: n m integrated-kernel evaluations on the device.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> clstat.kde_cdf([0.0, 1.0, 2.0, 3.0], [0.0, 1.5], bandwidth=0.5, kernel="epanechnikov")
    array([0.125, 0.5  ])
    """
    x = _np.ascontiguousarray(_np.asarray(samples, dtype=float).ravel())
    y = _np.ascontiguousarray(_np.asarray(points, dtype=float).ravel())
    return _clstat.kde_cdf(x, y, kernel, float(bandwidth), weights, precision, log, ctx)


def grid(samples, lower, upper, size, kernel="epanechnikov", h=None, ctx=None):
    """Density on a regular grid (KernSmooth::bkde2D's output, without binning), any dimension.

    Parameters
    ----------
    samples : array_like, shape (n,) or (n, d)
        The data.
    lower, upper : sequence of d floats
        The grid's first and last node in each dimension.
    size : sequence of d ints
        Nodes per dimension.
    kernel : str
        As in `kde`; the bounded kernels are evaluated sample-wise (only the nodes within a
        sample's support), the Gaussian point-wise.
    h : float, optional
        H = h^2 S with S the sample covariance (default: the normal-scale rule for the kernel).
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup: the first dimension's nodes split across its devices (the
        single-device grid, bit for bit on devices of one type).

    Returns
    -------
    ndarray, shape size
        The densities at the nodes, C order (the last dimension fastest).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> x = np.random.default_rng(0).normal(size=500)
    >>> g = clstat.grid(x, [-4], [4], [9], kernel="gaussian", h=0.3)
    >>> g.shape, round(float(g.sum()), 3)  # nodes 1 apart: the sum approximates the integral
    ((9,), 0.999)
    """
    return _clstat.grid(samples, list(lower), list(upper), list(size), kernel, h, ctx)


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


def to_device(a, ctx=None):
    """Copy an array to a device, for repeated order statistics on the same data.

    Parameters
    ----------
    a : array_like
        float32, float64, int32 and int64 keep their type; anything else becomes float64.
    ctx : Context, optional
        The device (default: the module's default context).

    Returns
    -------
    DeviceArray
        With ``shape``, ``dtype``, ``size``, ``nbytes`` and ``get()`` (a NumPy copy, as
        ``cupy.ndarray.get``). `median`, `quantile`, `partition_kth` and `topk` take it in place
        of a NumPy array (flattened; no axis) and read it where it is, without a copy.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> d = clstat.to_device(np.arange(10, dtype=np.float32))
    >>> clstat.median(d)
    4.5
    """
    return _clstat.to_device(a, ctx)


def _device(a, axis, what, ctx=None):
    """True when a is a DeviceArray (which takes no axis). A DeviceGroup as ctx takes a host
    array: whole (axis None, the values split) or along an axis (the slices split)."""
    if isinstance(ctx, DeviceGroup) and isinstance(a, DeviceArray):
        raise ValueError(f"{what}: a DeviceGroup splits a host array, not a DeviceArray")
    if not isinstance(a, DeviceArray):
        return False
    if axis is not None:
        raise ValueError(f"{what}: a DeviceArray is read flattened; axis must be None")
    return True


def median(a, axis=None, nan="propagate", ctx=None):
    """The exact median, as ``numpy.median(a, axis)``.

    Parameters
    ----------
    a : array_like or DeviceArray
        float32, float64, int32 and int64 are read as they are; other types become float64.
    axis : None or int
        None: the median of the flattened array; an int: along that axis.
    nan : {'propagate', 'omit', 'raise'}
        Any NaN gives NaN (numpy.median), NaNs are dropped (numpy.nanmedian), or ValueError.
    ctx : Context or DeviceGroup, optional
        The device (a DeviceArray's own context is used for it), or a DeviceGroup: a host array
        split across its devices (its values, or its slices along axis), the same values.

    Returns
    -------
    float or ndarray
        The middle value for an odd count, the mean of the two middle ones for an even count,
        exact: equal to NumPy's result (for float64 data, (a + b) / 2 correctly rounded).
        Cost: a few passes over the data on the device (radix selection), plus the copy to
        the device for host arrays.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> clstat.median(np.array([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]]), axis=1)
    array([2., 4.])
    """
    if _device(a, axis, "median", ctx):
        return _clstat.median_device(a, nan)
    if axis is None:
        return _clstat.median(_np.ravel(a), nan, ctx)
    rows, rest = _rows(a, axis)
    return _clstat.median_rows(rows, nan, ctx).reshape(rest)


def quantile(a, q, axis=None, method="linear", nan="propagate", ctx=None, weights=None):
    """Exact sample quantiles, with numpy.quantile's method names and axis.

    Parameters
    ----------
    a : array_like or DeviceArray
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
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup for a host array (its values, or its slices along axis,
        split across the devices): the same values.
    weights : array_like, optional
        One finite weight >= 0 per value (a's shape; a host array, one device; along an axis each
        slice with its own weights, one slice after another). With
        method 'inverted_cdf': the smallest value whose weighted CDF reaches q, as
        ``numpy.quantile(a, q, weights=weights, method='inverted_cdf')`` (NumPy >= 2.0) with exact
        cumulative sums; with 'linear': R's ``Hmisc::wtd.quantile(a, weights, q)`` (frequency
        weights: whole-number weights give the quantiles of a with each value repeated that many
        times). Other methods raise ValueError.

    Returns
    -------
    float or ndarray
        The quantiles, in double, equal bit for bit to R's quantile(a, q, type). NumPy agrees
        to rounding (a few ulp for the interpolating methods); NumPy 1.x's closest_observation
        picks another order statistic than R's type 3 at some q.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> clstat.quantile(np.arange(11.0), [0.1, 0.5], method="linear")
    array([1., 5.])
    >>> clstat.quantile([1.0, 2.0, 3.0], 0.5, method="inverted_cdf", weights=[1, 1, 3])
    3.0
    """
    if method not in _METHODS:
        raise ValueError(f"method {method!r} is not one of {sorted(_METHODS)}")
    scalar = _np.ndim(q) == 0
    probs = _np.atleast_1d(_np.asarray(q, dtype=float)).ravel().tolist()
    if weights is not None:
        if method not in ("inverted_cdf", "linear"):
            raise ValueError("weights take method 'inverted_cdf' or 'linear'")
        if isinstance(a, DeviceArray) or isinstance(ctx, DeviceGroup):
            raise ValueError("weights take a host array and one device")
        a = _np.asarray(a)
        w = _np.asarray(weights, dtype=float)
        if w.shape != a.shape:
            raise ValueError(f"weights have shape {w.shape}, a has {a.shape}")
        if axis is None:
            out = _clstat.weighted_quantiles(_np.ravel(a), _np.ravel(w), probs, _METHODS[method], nan, ctx)
            return float(out[0]) if scalar else out.reshape(_np.shape(q))
        rows, rest = _rows(a, axis)
        wrows, _ = _rows(w, axis)
        out = _clstat.weighted_quantiles_rows(rows, wrows, probs, _METHODS[method], nan, ctx)
        out = _np.moveaxis(out.reshape(rest + (len(probs),)), -1, 0)
        return out[0] if scalar else out.reshape(_np.shape(q) + rest)
    if _device(a, axis, "quantile", ctx):
        out = _clstat.quantiles_device(a, probs, _METHODS[method], nan)
        return float(out[0]) if scalar else out.reshape(_np.shape(q))
    if axis is None:
        out = _clstat.quantiles(_np.ravel(a), probs, _METHODS[method], nan, ctx)
        return float(out[0]) if scalar else out.reshape(_np.shape(q))
    rows, rest = _rows(a, axis)
    out = _clstat.quantiles_rows(rows, probs, _METHODS[method], nan, ctx).reshape(rest + (len(probs),))
    out = _np.moveaxis(out, -1, 0)
    return out[0] if scalar else out.reshape(_np.shape(q) + rest)


def partition_kth(a, kth, axis=None, ctx=None):
    """The values that ``numpy.partition(a, kth, axis)`` puts at the positions kth.

    Parameters
    ----------
    a : array_like or DeviceArray
        The data (float32, float64, int32 and int64 keep their type).
    kth : int or sequence of int
        0-based positions in sorted order (0 is the minimum); negative counts from the end.
    axis : None or int
        None: of the flattened array (a DeviceArray is always read flattened); an int: along
        that axis, all slices in one batched call.
    ctx : Context or DeviceGroup, optional
        The device, or a DeviceGroup for a host array (its values, or its slices along axis,
        split across the devices): the same values.

    Returns
    -------
    scalar or ndarray
        ``numpy.sort(a, axis)[..., kth]`` (with axis None: of ``a.ravel()``), found by radix
        selection (or, for slices of at most a few thousand values, one work-group sort per
        slice) without sorting the whole array. Along an axis the result's last dimension is
        kth's (dropped for a scalar kth).

    Examples
    --------
    >>> import numpy as np, clstat
    >>> clstat.partition_kth(np.array([5, 1, 4, 2, 3]), [0, -1])
    array([1, 5])
    >>> clstat.partition_kth(np.array([[3, 1, 2], [9, 7, 8]]), 1, axis=1)
    array([2, 8])
    """
    scalar = _np.ndim(kth) == 0
    if _device(a, axis, "partition_kth", ctx) or axis is None:
        n = a.size if isinstance(a, DeviceArray) else _np.size(a)
    else:
        n = _np.shape(a)[axis]
    k = _np.atleast_1d(_np.asarray(kth)).astype(_np.int64).ravel()
    if _np.any(k < -n) or _np.any(k >= n):
        raise ValueError(f"partition_kth: kth out of range for {n} values")
    ks = (_np.where(k < 0, k + n, k) + 1).astype(_np.uint64).tolist()  # the library's k is 1-based
    if isinstance(a, DeviceArray):
        out = _clstat.kth_smallest_device(a, ks)
    elif axis is None:
        out = _clstat.kth_smallest(_np.ravel(a), ks, ctx)
    else:
        rows, rest = _rows(a, axis)
        out = _clstat.kth_smallest_rows(rows, ks, ctx).reshape(rest + (len(ks),))
        return out[..., 0] if scalar else out
    return out[0] if scalar else out


def topk(a, k, largest=True, axis=None, ctx=None):
    """The k largest (or smallest) values and their indices, as torch.topk.

    Parameters
    ----------
    a : array_like or DeviceArray
        The data: flattened (axis None; a DeviceArray always), or slices along an axis.
    k : int
        How many values (1 <= k <= the size of a slice).
    largest : bool
        The largest (True) or the smallest.
    axis : None or int
        None: of the flattened array; an int: of every slice along that axis, all slices in
        one batched call (torch.topk(a, k, dim=axis) with the k values last).

    Returns
    -------
    (ndarray, ndarray)
        The values, sorted (descending for largest), and their int64 indices (in the flattened
        array, or along the axis); ties are broken by the lower index; NaNs rank above +Inf.
        Along an axis both have the shape of a without the axis, then k.

    Examples
    --------
    >>> import numpy as np, clstat
    >>> clstat.topk(np.array([3.0, 9.0, 1.0, 7.0]), 2)
    (array([9., 7.]), array([1, 3]))
    >>> clstat.topk(np.array([[3, 9, 1], [4, 0, 8]]), 1, axis=1)
    (array([[9],
           [8]]), array([[1],
           [2]]))
    """
    if isinstance(a, DeviceArray):
        if axis is not None:
            raise ValueError("topk: a DeviceArray is read flattened; axis must be None")
        return _clstat.topk_device(a, int(k), bool(largest))
    if axis is None:
        return _clstat.topk(_np.ravel(a), int(k), bool(largest), ctx)
    rows, rest = _rows(a, axis)
    values, indices = _clstat.topk_rows(rows, int(k), bool(largest), ctx)
    return values.reshape(rest + (int(k),)), indices.reshape(rest + (int(k),))
