"""gaussian_kde with the interface of scipy.stats.gaussian_kde, evaluated exactly by clstat."""
import numpy as _np

from . import _clstat


class gaussian_kde:
    """As scipy.stats.gaussian_kde: dataset of shape (d, n) (or (n,) for d = 1), bw_method
    'scott' (default), 'silverman', a scalar factor or a callable of this object, optional
    weights. evaluate / __call__ / logpdf take points of shape (d, m); resample draws from the
    estimate; integrate_box_1d gives its mass on an interval (d = 1). The kernel covariance is the data covariance times factor^2, as SciPy's."""

    def __init__(self, dataset, bw_method=None, weights=None, ctx=None):
        self.dataset = _np.atleast_2d(_np.asarray(dataset, dtype=float))
        self.d, self.n = self.dataset.shape
        if self.n < 2:
            raise ValueError("dataset needs more than one point")
        self.weights = None if weights is None else _np.asarray(weights, dtype=float) / _np.sum(weights)
        self.neff = self.n if self.weights is None else 1.0 / _np.sum(self.weights ** 2)
        self._ctx = ctx
        self._samples = _np.ascontiguousarray(self.dataset.T)
        self.set_bandwidth(bw_method)

    def scotts_factor(self):
        return self.neff ** (-1.0 / (self.d + 4))

    def silverman_factor(self):
        return (self.neff * (self.d + 2) / 4.0) ** (-1.0 / (self.d + 4))

    def set_bandwidth(self, bw_method=None):
        if bw_method is None or bw_method == "scott":
            self.factor = self.scotts_factor()
        elif bw_method == "silverman":
            self.factor = self.silverman_factor()
        elif _np.isscalar(bw_method):
            self.factor = float(bw_method)
        elif callable(bw_method):
            self.factor = float(bw_method(self))
        else:
            raise ValueError("bw_method must be 'scott', 'silverman', a scalar or a callable")
        cov = _np.atleast_2d(_np.cov(self.dataset, rowvar=True, bias=False, aweights=self.weights))
        self.covariance = cov * self.factor ** 2

    def evaluate(self, points):
        pts = _np.atleast_2d(_np.asarray(points, dtype=float))
        if pts.shape[0] != self.d:
            if pts.shape == (1, self.d):
                pts = pts.T
            else:
                raise ValueError(f"points have dimension {pts.shape[0]}, dataset has dimension {self.d}")
        return _clstat.kde(self._samples, _np.ascontiguousarray(pts.T), "gaussian", self.covariance,
                           self.weights, "float64", False, False, self._ctx)

    __call__ = evaluate
    pdf = evaluate

    def logpdf(self, points):
        pts = _np.atleast_2d(_np.asarray(points, dtype=float))
        return _clstat.kde(self._samples, _np.ascontiguousarray(pts.T), "gaussian", self.covariance,
                           self.weights, "float64", True, False, self._ctx)

    def integrate_box_1d(self, low, high):
        """The estimate's mass in [low, high] (d = 1 only), as SciPy's: the weighted mean of the
        normal probabilities of the interval around each data point. On the host, O(n)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d is for 1-d data")
        from scipy.special import ndtr
        sd = float(_np.sqrt(self.covariance[0, 0]))
        x = self.dataset[0]
        mass = ndtr((high - x) / sd) - ndtr((low - x) / sd)
        return float(_np.mean(mass) if self.weights is None else _np.sum(self.weights * mass))

    def resample(self, size=None, seed=None):
        """size draws from the estimate, shape (d, size), as SciPy's."""
        size = self.n if size is None else int(size)
        rng = _np.random.default_rng(seed)
        norm = rng.multivariate_normal(_np.zeros(self.d), self.covariance, size=size).T
        idx = rng.choice(self.n, size=size, p=self.weights)
        return self.dataset[:, idx] + norm
