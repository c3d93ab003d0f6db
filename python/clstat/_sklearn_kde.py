"""KernelDensity with scikit-learn's estimator protocol, evaluated exactly by clstat."""
import numpy as _np

from . import _clstat

# scikit-learn's kernel names -> clstat's. For d = 1 they are the same functions; for d > 1
# scikit-learn's kernels are radial and clstat's product kernels, which agree for the Gaussian only.
_KERNELS = {"gaussian": "gaussian", "tophat": "uniform", "epanechnikov": "epanechnikov",
            "linear": "triangular", "cosine": "cosine"}


class KernelDensity:
    """As sklearn.neighbors.KernelDensity: fit(X) then score_samples(X) (log densities),
    score(X) (their sum) and sample(n). bandwidth is a number or "scott" / "silverman" (as
    scikit-learn >= 1.2); kernel one of gaussian, tophat, epanechnikov, linear, cosine
    (exponential is refused). The sums are exact (no tree, no tolerance): atol and rtol are
    accepted and ignored."""

    def __init__(self, *, bandwidth=1.0, kernel="gaussian", atol=0, rtol=0, precision="float64", ctx=None):
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.atol = atol
        self.rtol = rtol
        self.precision = precision
        self.ctx = ctx

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("bandwidth", "kernel", "atol", "rtol", "precision", "ctx")}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self.get_params():
                raise ValueError(f"invalid parameter {k!r} for KernelDensity")
            setattr(self, k, v)
        return self

    def fit(self, X, y=None, sample_weight=None):
        if self.kernel not in _KERNELS:
            raise ValueError(f"kernel {self.kernel!r} is not one of {sorted(_KERNELS)}")
        X = _np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError("X must be 2-d (n_samples, n_features)")
        n, d = X.shape
        if d > 1 and self.kernel != "gaussian":
            raise ValueError("for d > 1 only the gaussian kernel is scikit-learn's (clstat's others are product kernels)")
        if self.bandwidth == "scott":
            self.bandwidth_ = n ** (-1.0 / (d + 4))
        elif self.bandwidth == "silverman":
            self.bandwidth_ = (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))
        else:
            self.bandwidth_ = float(self.bandwidth)
        self.X_ = _np.ascontiguousarray(X)
        self.weights_ = None if sample_weight is None else _np.asarray(sample_weight, dtype=float)
        self.n_features_in_ = d
        return self

    def score_samples(self, X):
        X = _np.ascontiguousarray(_np.asarray(X, dtype=float))
        return _clstat.kde(self.X_, X, _KERNELS[self.kernel], self.bandwidth_, self.weights_, self.precision,
                           True, False, self.ctx)

    def score(self, X, y=None):
        return float(_np.sum(self.score_samples(X)))

    def sample(self, n_samples=1, random_state=None):
        if self.kernel not in ("gaussian", "tophat"):
            raise NotImplementedError("sample() supports the gaussian and tophat kernels, as scikit-learn")
        rng = _np.random.default_rng(random_state)
        p = None if self.weights_ is None else self.weights_ / self.weights_.sum()
        i = rng.choice(len(self.X_), size=n_samples, p=p)
        if self.kernel == "gaussian":
            return self.X_[i] + rng.normal(scale=self.bandwidth_, size=(n_samples, self.n_features_in_))
        return self.X_[i] + rng.uniform(-self.bandwidth_, self.bandwidth_, size=(n_samples, 1))
