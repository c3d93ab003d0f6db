"""clstat's Python package against NumPy and SciPy on the same inputs (run by ctest as
python.pytest). Seeds are fixed: every test is deterministic."""
import threading

import numpy as np
import pytest
import scipy.special
import scipy.stats

import clstat


def test_devices_and_context():
    assert len(clstat.devices()) >= 1
    ctx = clstat.Context()
    assert "clstat.Context on" in repr(ctx)
    assert clstat.median(np.arange(5.0), ctx=ctx) == 2.0


def test_gaussian_kde_equals_scipy():
    rng = np.random.default_rng(1)
    data = rng.normal(size=(2, 400))
    pts = rng.normal(size=(2, 50))
    for bw in (None, "silverman", 0.3):
        ours = clstat.gaussian_kde(data, bw_method=bw)
        ref = scipy.stats.gaussian_kde(data, bw_method=bw)
        np.testing.assert_allclose(ours.covariance, ref.covariance, rtol=1e-13)
        np.testing.assert_allclose(ours(pts), ref(pts), rtol=1e-12)
        np.testing.assert_allclose(ours.logpdf(pts), ref.logpdf(pts), rtol=1e-12)
    w = rng.random(400)
    np.testing.assert_allclose(clstat.gaussian_kde(data, weights=w)(pts),
                               scipy.stats.gaussian_kde(data, weights=w)(pts), rtol=1e-12)
    one = clstat.gaussian_kde(data[0])
    assert one.integrate_box_1d(-1, 0.5) == pytest.approx(scipy.stats.gaussian_kde(data[0]).integrate_box_1d(-1, 0.5),
                                                          rel=1e-12)
    r = clstat.gaussian_kde(data[0]).resample(20000, seed=3)
    assert r.shape == (1, 20000)
    assert abs(r.mean() - data[0].mean()) < 0.05


def test_kde_forms():
    x = np.random.default_rng(2).normal(size=1000)
    y = np.linspace(-3, 3, 13)
    f = clstat.kde(x, y, bandwidth=0.3)
    ref = np.exp(-0.5 * ((y[:, None] - x[None, :]) / 0.3) ** 2).sum(1) / (1000 * 0.3 * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(f, ref, rtol=1e-12)
    np.testing.assert_allclose(clstat.kde(x, y, bandwidth=0.3, log=True), np.log(ref), rtol=1e-12)
    f32 = clstat.kde(x, y, bandwidth=0.3, precision="float32")
    np.testing.assert_allclose(f32, ref, rtol=1e-5)
    loo = clstat.kde(x, bandwidth=0.3, loo=True)
    assert loo.shape == (1000,)


def test_bandwidths():
    x = np.random.default_rng(3).normal(size=(500, 2))
    kde = scipy.stats.gaussian_kde(x.T)
    np.testing.assert_allclose(clstat.bandwidth.scott(x), kde.covariance, rtol=1e-12)
    h = clstat.bandwidth.plugin(x[:, 0])
    assert h.shape == (1,) and 0.1 < h[0] < 0.6
    r = clstat.bandwidth.lscv_h(x[:, 0])
    assert r.h[0] > 0 and not r.at_boundary
    assert clstat.bandwidth.silverman(x).shape == (2,)


def _hpi_golden():
    """The sets of tests/data/bandwidth_hpi.txt (tools/golden/bandwidth_hpi.R): name -> tag -> list."""
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "bandwidth_hpi.txt"
    sets = {}
    for line in path.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        tag, name, *rest = line.split()
        sets.setdefault(name, {})[tag] = rest
    return sets


def test_plugin_H_against_ks():
    g = _hpi_golden()
    for name, pilot in (("d3", "dscalar"), ("d2", "samse-ks"), ("d2", "samse")):
        e = g[name]
        n, d = int(e["data"][0]), int(e["data"][1])
        x = np.array(e["data"][2:], dtype=float).reshape(n, d)
        r = clstat.bandwidth.plugin_H(x, pilot=pilot)
        want = np.array(e["fix_H" if pilot == "samse" else "ref_H"], dtype=float).reshape(d, d)
        assert r.converged and r.pilot == pilot
        np.testing.assert_allclose(r.H, want, atol=1e-6 * np.abs(want).max())
        assert r.criterion <= float(e["ks_PI"][0]) * (1 + 1e-13) or pilot == "samse"
    with pytest.raises(ValueError):
        clstat.bandwidth.plugin_H(np.zeros((10, 2)) + np.arange(10)[:, None], pilot="ks")
    with pytest.raises(ValueError):
        clstat.bandwidth.plugin_H(np.random.default_rng(1).normal(size=(50, 1)))


def test_scv_H_against_ks():
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "bandwidth_hscv.txt"
    sets = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            tag, name, *rest = line.split()
            sets.setdefault(name, {})[tag] = rest
    e = sets["d3"]
    n, d = int(e["data"][0]), int(e["data"][1])
    x = np.array(e["data"][2:], dtype=float).reshape(n, d)
    r = clstat.bandwidth.scv_H(x, pilot="dscalar")
    want = np.array(e["ref_H"], dtype=float).reshape(d, d)
    assert r.converged and r.criterion <= float(e["ks_SCV"][0]) * (1 + 1e-13)
    np.testing.assert_allclose(r.H, want, atol=1e-6 * np.abs(want).max())
    with pytest.raises(ValueError):
        clstat.bandwidth.scv_H(x, pilot="samse-ks")


def test_weighted_quantile_along_an_axis():
    g = np.random.default_rng(11)
    a = np.round(g.normal(size=(4, 50, 3)) * 8) / 2
    w = g.uniform(0, 3, size=a.shape)
    got = clstat.quantile(a, [0.2, 0.5], axis=1, method="inverted_cdf", weights=w)
    assert got.shape == (2, 4, 3)
    for i in range(4):
        for k in range(3):
            want = clstat.quantile(a[i, :, k], [0.2, 0.5], method="inverted_cdf", weights=w[i, :, k])
            np.testing.assert_array_equal(got[:, i, k], want)
    lin = clstat.quantile(a, 0.5, axis=-1, method="linear", weights=w)
    assert lin.shape == (4, 50)
    assert lin[3, 7] == clstat.quantile(a[3, 7], 0.5, method="linear", weights=w[3, 7])


def test_stable_against_scipy():
    # Not at x = loc: there SciPy 1.10's default pdf is wrong (0.1602 for alpha 1.5, beta 0.5,
    # where the derivative of both libraries' cdf is 0.12706, clstat's pdf).
    x = np.linspace(-5, 5, 20)
    scipy.stats.levy_stable.parameterization = "S1"
    for alpha, beta in ((1.5, 0.5), (0.8, -0.3), (1.9, 1.0)):
        ref_pdf = scipy.stats.levy_stable.pdf(x, alpha, beta, loc=0.5, scale=2)
        ref_cdf = scipy.stats.levy_stable.cdf(x, alpha, beta, loc=0.5, scale=2)
        ours_pdf = clstat.stable.pdf(x, alpha, beta, loc=0.5, scale=2, parameterization="S1")
        ours_cdf = clstat.stable.cdf(x, alpha, beta, loc=0.5, scale=2, parameterization="S1")
        np.testing.assert_allclose(ours_pdf, ref_pdf, rtol=1e-8)
        np.testing.assert_allclose(ours_cdf, ref_cdf, rtol=1e-8, atol=1e-12)
    q = clstat.stable.ppf([0.01, 0.5, 0.99], 1.5, 0.5)
    np.testing.assert_allclose(clstat.stable.cdf(q, 1.5, 0.5), [0.01, 0.5, 0.99], atol=1e-12)
    assert isinstance(clstat.stable.pdf(0.0, 1.5, 0.0), float)


def test_stable_sample_and_fit():
    y = clstat.stable.rvs(1.5, 0.5, size=4000, seed=7)
    np.testing.assert_array_equal(y, clstat.stable.rvs(1.5, 0.5, size=4000, seed=7))
    r = clstat.stable.fit_result(y)
    assert r.converged
    assert abs(r.alpha - 1.5) < 5 * r.se_alpha and abs(r.beta - 0.5) < 5 * r.se_beta
    assert len(clstat.stable.fit(y, method="mcculloch")) == 4


def test_stable_log_likelihood():
    x = clstat.stable.rvs(1.5, 0.5, size=500, seed=11)
    laws = [(1.5, 0.5, 0.0, 1.0), (1.2, -0.3, 1.0, 2.0), (0.8, 1.0, 5.0, 1.0)]
    ll = clstat.stable.log_likelihood(x, laws)
    assert ll.shape == (3,)
    for k, (a, b, loc, scale) in enumerate(laws[:2]):
        ref = np.sum(clstat.stable.logpdf(x, a, b, loc, scale))
        np.testing.assert_allclose(ll[k], ref, rtol=1e-13)
    assert ll[2] == -np.inf  # the support of (0.8, 1) S0 from loc 5 misses most values
    assert clstat.stable.log_likelihood(x, [laws[1]])[0] == ll[1]
    with pytest.raises(ValueError):
        clstat.stable.log_likelihood(x, [(1.5, 0.5, 0.0)])
    with pytest.raises(ValueError):
        clstat.stable.log_likelihood([0.1, np.nan], laws)


def r_type3(a, p):
    """R's quantile(type = 3): the order statistic nearest n p, ties to the even one (1-based)."""
    x = np.sort(a)
    n = len(x)
    j = int(np.floor(n * p - 0.5))
    g = n * p - 0.5 - j
    k = j if (g == 0 and j % 2 == 0) else j + 1
    return x[min(max(k, 1), n) - 1]


@pytest.mark.parametrize("method", sorted(clstat._METHODS))
def test_quantile_against_numpy(method):
    a = np.random.default_rng(4).exponential(size=1001)
    q = [0.0, 0.013, 0.25, 0.5, 0.77, 1.0]
    ours = clstat.quantile(a, q, method=method)
    if method == "closest_observation":
        # clstat is R's type 3; NumPy 1.x picks another order statistic at some p.
        np.testing.assert_array_equal(ours, [r_type3(a, p) for p in q])
    elif method in ("inverted_cdf", "averaged_inverted_cdf", "linear"):
        np.testing.assert_array_equal(ours, np.quantile(a, q, method=method))
    else:
        # The interpolating types agree to rounding (R's formula, which clstat follows bit for
        # bit, and NumPy's order the same operations differently).
        np.testing.assert_allclose(ours, np.quantile(a, q, method=method), rtol=2e-15)


def test_weighted_quantile():
    rng = np.random.default_rng(11)
    a = rng.normal(size=20001)
    w = rng.exponential(size=a.size)
    q = [0.0, 0.01, 0.25, 0.5, 0.9, 1.0]
    ours = clstat.quantile(a, q, method="inverted_cdf", weights=w)
    try:  # NumPy >= 2.0
        want = np.quantile(a, q, method="inverted_cdf", weights=w)
    except TypeError:  # NumPy's definition: the first sorted value whose cdf reaches q
        o = np.argsort(a, kind="stable")
        cdf = np.cumsum(w[o]) / w.sum()
        want = a[o][np.minimum(np.searchsorted(cdf, q, side="left"), a.size - 1)]
    np.testing.assert_array_equal(ours, want)
    # Whole-number weights, linear: the quantiles of the values repeated.
    k = rng.integers(0, 4, size=a.size)
    np.testing.assert_allclose(clstat.quantile(a, q, method="linear", weights=k),
                               np.quantile(np.repeat(a, k), q), rtol=0, atol=1e-15)
    assert clstat.quantile(a.astype(np.float32), 0.5, method="inverted_cdf", weights=np.ones(a.size)) == \
        clstat.quantile(a.astype(np.float32), 0.5, method="inverted_cdf")
    with pytest.raises(ValueError):
        clstat.quantile(a, 0.5, method="hazen", weights=w)
    with pytest.raises(ValueError):
        clstat.quantile(a, 0.5, weights=w[:-1])
    with pytest.raises(ValueError):
        clstat.quantile(a, 0.5, weights=-w)


def test_order_statistics():
    rng = np.random.default_rng(5)
    a = rng.normal(size=100001)
    assert clstat.median(a) == np.median(a)
    f = a.astype(np.float32)
    assert clstat.median(f) == np.median(f.astype(np.float64))  # float32 data, exact median
    assert clstat.partition_kth(f, 9).dtype == np.float32
    assert clstat.partition_kth(a, 9) == np.partition(a, 9)[9]
    vals, idx = clstat.topk(a, 5)
    np.testing.assert_array_equal(vals, np.sort(a)[::-1][:5])
    np.testing.assert_array_equal(a[idx], vals)
    i = rng.integers(-1000, 1000, size=999).astype(np.int64)
    assert clstat.median(i) == np.median(i)
    nan = a.copy()
    nan[3] = np.nan
    assert np.isnan(clstat.median(nan))
    assert clstat.median(nan, nan="omit") == np.nanmedian(nan)
    with pytest.raises(ValueError, match="method 'nearest'"):
        clstat.quantile(a, 0.5, method="nearest")


def test_robust_regression():
    rng = np.random.default_rng(6)
    n = 1000
    X = rng.uniform(0, 10, size=(n, 2))
    y = 1 + X @ [2.0, -1.0] + rng.normal(0, 0.5, n)
    X[:200, 0] += 20
    y[:200] -= 40
    fit = clstat.robust.lts(X, y)
    np.testing.assert_allclose(fit.coefficients, [1, 2, -1], atol=0.15)
    assert set(range(200)) <= set(fit.outliers.tolist())
    m = clstat.robust.lms(X, y)
    np.testing.assert_allclose(m.coefficients, [1, 2, -1], atol=0.5)


def test_mcd_stackloss_as_robustbase():
    # robustbase::covMcd(stackloss, use.correction = FALSE) (tests/data/robust/mcd_r.txt).
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "robust", "stackloss.csv")
    X = np.loadtxt(path, delimiter=",", skiprows=1)
    fit = clstat.robust.mcd(X, use_correction=False)
    np.testing.assert_allclose(fit.center, [56.142857142857139, 20.214285714285712, 85.142857142857139,
                                            13.285714285714285], rtol=1e-12)
    assert fit.cov.shape == (4, 4)
    assert abs(fit.crit - 6.3976334475405547) < 1e-9
    assert fit.outliers.tolist() == [0, 1, 2, 3, 12, 20]
    with pytest.raises(ValueError):
        clstat.robust.mcd(X[:6])


def test_mm_stackloss_as_lmrob():
    # robustbase::lmrob(stack.loss ~ ., stackloss) (tests/data/robust/mm_r.txt).
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "robust", "stackloss.csv")
    d = np.loadtxt(path, delimiter=",", skiprows=1)
    fit = clstat.robust.mm(d[:, :3], d[:, 3])
    np.testing.assert_allclose(fit.coefficients, [-41.5246, 0.93885, 0.57955, -0.11292], rtol=1e-4)
    np.testing.assert_allclose(fit.std_errors, [5.2978, 0.11743, 0.26296, 0.069890], rtol=1e-4)
    assert fit.outliers.tolist() == [20]
    assert fit.cov.shape == (4, 4)


def test_grid_integrates_to_one():
    x = np.random.default_rng(7).normal(size=(5000, 2))
    g = clstat.grid(x, [-6, -6], [6, 6], [121, 121])
    assert g.shape == (121, 121)
    assert abs(g.sum() * (12 / 120) ** 2 - 1) < 1e-3


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="NaN|nan|finite"):
        clstat.kde(np.array([0.0, np.nan, 1.0]), np.zeros(2), bandwidth=0.5)
    with pytest.raises(ValueError, match="alpha"):
        clstat.stable.pdf([0.0], 2.5, 0.0)
    with pytest.raises(ValueError, match="kernel"):
        clstat.kde(np.zeros(3), np.zeros(2), kernel="box")


def test_threads_share_a_context():
    ctx = clstat.Context()
    rng = np.random.default_rng(8)
    sets = [rng.normal(size=3000) for _ in range(8)]
    y = np.linspace(-3, 3, 257)
    serial = [clstat.kde(s, y, bandwidth=0.2, ctx=ctx) for s in sets]
    out = [None] * 8

    def work(i):
        out[i] = clstat.kde(sets[i], y, bandwidth=0.2, ctx=ctx)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(out, serial):
        np.testing.assert_array_equal(a, b)


def test_median_and_quantile_along_an_axis():
    a = np.random.default_rng(9).normal(size=(7, 301))
    np.testing.assert_array_equal(clstat.median(a, axis=1), np.median(a, axis=1))
    np.testing.assert_array_equal(clstat.median(a, axis=0), np.median(a, axis=0))
    np.testing.assert_allclose(clstat.quantile(a, [0.1, 0.9], axis=1), np.quantile(a, [0.1, 0.9], axis=1), rtol=2e-15)
    np.testing.assert_allclose(clstat.quantile(a, 0.3, axis=0), np.quantile(a, 0.3, axis=0), rtol=2e-15)


def test_kernel_density_protocol():
    rng = np.random.default_rng(10)
    X = rng.normal(size=(500, 2))
    kd = clstat.KernelDensity(bandwidth=0.4).fit(X)
    pts = rng.normal(size=(20, 2))
    # The Gaussian product kernel with h = 0.4 is scikit-learn's radial one: check against the sum.
    d2 = ((pts[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    direct = np.log(np.exp(-0.5 * d2 / 0.16).mean(1) / (2 * np.pi * 0.16))
    np.testing.assert_allclose(kd.score_samples(pts), direct, rtol=1e-12)
    assert kd.score(pts) == pytest.approx(direct.sum(), rel=1e-12)
    assert kd.set_params(bandwidth="scott").get_params()["bandwidth"] == "scott"
    assert kd.fit(X).bandwidth_ == pytest.approx(500 ** (-1 / 6))
    assert kd.sample(100, random_state=1).shape == (100, 2)
    with pytest.raises(ValueError, match="product kernels"):
        clstat.KernelDensity(kernel="epanechnikov").fit(X)


def test_levy_stable_object():
    ls = clstat.stable.levy_stable
    assert ls.parameterization == "S1"
    x = np.array([-1.0, 0.3, 2.0])
    np.testing.assert_allclose(ls.pdf(x, 1.5, 0.5, loc=1, scale=2),
                               clstat.stable.pdf(x, 1.5, 0.5, loc=1, scale=2, parameterization="S1"), rtol=0)
    assert ls.rvs(1.5, 0.5, size=(3, 4), random_state=5).shape == (3, 4)


def test_float64_input_is_not_copied():
    a = np.random.default_rng(11).normal(size=(1000, 3))
    assert clstat._clstat._float64_address(a) == a.ctypes.data          # used in place
    t = a.T                                                               # not C-contiguous
    assert clstat._clstat._float64_address(t) != t.ctypes.data           # converted once
    f = a.astype(np.float32)
    assert clstat._clstat._float64_address(f) != f.ctypes.data           # converted once


def test_default_context_built_by_many_threads_at_once():
    # In a fresh interpreter, so that the first calls build the default context concurrently.
    import subprocess
    import sys
    code = ("import threading, numpy as np, clstat\n"
            "x = np.arange(1001.0); out = []\n"
            "ts = [threading.Thread(target=lambda: out.append(clstat.median(x))) for _ in range(8)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\n"
            "assert out == [500.0] * 8, out\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


def test_device_array_order_statistics():
    rng = np.random.default_rng(11)
    for a in (rng.normal(size=30001).astype(np.float32), rng.normal(size=(40, 50)),
              rng.integers(-1000, 1000, size=7777, dtype=np.int64)):
        d = clstat.to_device(a)
        assert d.shape == a.shape and d.dtype == a.dtype and d.size == a.size and d.nbytes == a.nbytes
        assert np.array_equal(d.get(), a)
        flat = a.ravel()
        assert clstat.median(d) == clstat.median(flat) == np.median(flat)
        assert np.array_equal(clstat.quantile(d, [0.05, 0.5, 0.95]), clstat.quantile(flat, [0.05, 0.5, 0.95]))
        assert np.array_equal(clstat.partition_kth(d, [0, 17, -1]), np.sort(flat)[[0, 17, -1]])
        values, indices = clstat.topk(d, 5, largest=False)
        assert np.array_equal(values, np.sort(flat)[:5]) and np.array_equal(flat[indices], values)
    with pytest.raises(ValueError, match="axis"):
        clstat.median(clstat.to_device(np.ones((3, 3))), axis=0)
    with pytest.raises(ValueError, match="empty"):
        clstat.to_device(np.zeros(0))


def test_topk_along_an_axis_against_torch_order():
    # torch.topk(a, k, dim) with the k values last: sorted values, the lower index first among
    # ties; NaNs above +Inf (NumPy's sort order).
    rng = np.random.default_rng(21)
    a = rng.integers(0, 20, size=(6, 500, 3)).astype(np.float64)
    a[2, 7, 1] = np.nan
    for largest in (True, False):
        values, indices = clstat.topk(a, 9, largest=largest, axis=1)
        assert values.shape == (6, 3, 9) and indices.shape == (6, 3, 9)
        moved = np.moveaxis(a, 1, -1)
        order = np.argsort(-moved if largest else moved, axis=-1, kind="stable")
        if largest:  # NaN first: argsort of -a puts it last
            nan_first = np.argsort(~np.isnan(moved), axis=-1, kind="stable")
            order = np.where(np.isnan(moved).any(axis=-1, keepdims=True),
                             np.concatenate([nan_first[..., :1], order[..., :-1]], axis=-1), order)
        want = order[..., :9]
        assert np.array_equal(indices, want)
        assert np.array_equal(values, np.take_along_axis(moved, want, axis=-1), equal_nan=True)
    with pytest.raises(ValueError, match="axis"):
        clstat.topk(clstat.to_device(np.ones(9)), 2, axis=0)


def test_device_group_order_statistics():
    # The default device twice (two contexts), unequal weights: the single-device values.
    dev = clstat.default_context().device
    g = clstat.DeviceGroup([clstat.Context(dev), clstat.Context(dev)], weights=[1, 3])
    assert len(g) == 2 and g.weights == [1.0, 3.0] and g.split(10) == [2, 8]
    rng = np.random.default_rng(12)
    for a in (rng.normal(size=100001), rng.normal(size=20000).astype(np.float32),
              rng.integers(-50, 50, size=9999, dtype=np.int32)):
        assert clstat.median(a, ctx=g) == np.median(a)
        q = [0.0, 0.3, 1.0]
        assert np.array_equal(clstat.quantile(a, q, ctx=g), clstat.quantile(a, q))  # one device's values
        assert np.allclose(clstat.quantile(a, q, ctx=g), np.quantile(a, q), rtol=1e-6)  # NumPy: float32 math
        assert np.array_equal(clstat.partition_kth(a, [0, 7, -1], ctx=g), np.sort(a)[[0, 7, -1]])
    # Along an axis the slices are split across the members: the single-device values.
    m = rng.normal(size=(7, 300, 5))
    m[2, 10, 3] = np.nan
    assert np.array_equal(clstat.median(m, axis=1, ctx=g), np.median(m, axis=1), equal_nan=True)
    assert np.array_equal(clstat.quantile(m, [0.1, 0.9], axis=1, nan="omit", ctx=g),
                          clstat.quantile(m, [0.1, 0.9], axis=1, nan="omit"))
    w = rng.integers(-9, 9, size=(4, 5, 200)).astype(np.int64)
    assert np.array_equal(clstat.partition_kth(w, [0, 150], axis=2, ctx=g), np.sort(w, axis=2)[..., [0, 150]])
    with pytest.raises(ValueError, match="DeviceArray"):
        clstat.median(clstat.to_device(np.ones(9)), ctx=g)
    # KDE and its distribution function with the points split: the single-device values.
    x = rng.normal(size=(800, 2))
    y = rng.normal(size=(301, 2))
    assert np.array_equal(clstat.kde(x, y, bandwidth=0.4, ctx=g), clstat.kde(x, y, bandwidth=0.4))
    assert np.array_equal(clstat.kde_cdf(x[:, 0], y[:, 0], bandwidth=0.4, ctx=g),
                          clstat.kde_cdf(x[:, 0], y[:, 0], bandwidth=0.4))
    with pytest.raises(ValueError, match="give points"):
        clstat.kde(x, bandwidth=0.4, ctx=g)
    # The plug-in's pair sums split by tiles: the single-device bandwidths.
    big = rng.normal(size=(3001, 2))
    assert np.array_equal(clstat.bandwidth.plugin(big, ctx=g), clstat.bandwidth.plugin(big))
    small = big[:300]
    got, want = clstat.bandwidth.lscv_H(small, ctx=g), clstat.bandwidth.lscv_H(small)
    assert np.array_equal(got.H, want.H) and got.objective == want.objective
    # LSCV over h with the pair triangle's rows split, and LTS with its survivors' C-steps shared out.
    got, want = clstat.bandwidth.lscv_h(big[:1500], ctx=g), clstat.bandwidth.lscv_h(big[:1500])
    assert abs(got.objective - want.objective) <= 1e-12 * abs(want.objective)
    assert np.allclose(got.h, want.h, rtol=1e-5, atol=0)
    X = rng.normal(size=(3000, 2))
    yv = 1 + X @ np.array([2.0, -1.0]) + 0.1 * rng.normal(size=3000)
    yv[::7] += 15
    lg, l1 = clstat.robust.lts(X, yv, ctx=g), clstat.robust.lts(X, yv)
    assert np.array_equal(lg.best, l1.best) and np.array_equal(lg.coefficients, l1.coefficients)
    # The grid's rows split: the single-device grid.
    assert np.array_equal(clstat.grid(big, [-3, -3], [3, 3], [41, 37], ctx=g), clstat.grid(big, [-3, -3], [3, 3], [41, 37]))
    with pytest.raises(ValueError, match="weights"):
        clstat.DeviceGroup([clstat.Context(dev)], weights=[0])
    # The stable functions, draws and fit on the group: the single-device values (the fit to its
    # tolerance: its likelihoods are summed over the members' shares).
    pts = np.linspace(-6, 6, 2001)
    assert np.array_equal(clstat.stable.pdf(pts, 1.4, 0.3, ctx=g), clstat.stable.pdf(pts, 1.4, 0.3))
    assert np.array_equal(clstat.stable.rvs(1.4, 0.3, size=999, seed=5, ctx=g), clstat.stable.rvs(1.4, 0.3, size=999, seed=5))
    data = clstat.stable.rvs(1.6, -0.2, size=300, seed=9)
    one, two = clstat.stable.fit_result(data), clstat.stable.fit_result(data, ctx=g)
    assert abs(one.alpha - two.alpha) < 1e-8 and abs(one.loglik - two.loglik) < 1e-9 * abs(one.loglik)


def test_stable_into_caller_memory():
    # out= takes the values (x itself allowed) and is returned; the same bits as a new array.
    x = np.linspace(-10, 10, 40001)
    want = clstat.stable.cdf(x, 1.3, -0.5, 1, 2)
    out = np.full_like(x, np.nan)
    assert clstat.stable.cdf(x, 1.3, -0.5, 1, 2, out=out) is out
    assert np.array_equal(out, want)
    y = x.copy()
    clstat.stable.logpdf(y, 0.9, 1.0, out=y)
    assert np.array_equal(y, clstat.stable.logpdf(x, 0.9, 1.0))
    with pytest.raises(ValueError, match="x's size"):
        clstat.stable.pdf(x, 1.3, 0, out=np.empty(5))
    with pytest.raises(ValueError, match="C-contiguous"):
        clstat.stable.pdf(x[:20000], 1.3, 0, out=np.empty(40000)[::2])
    with pytest.raises(ValueError, match="out is for"):
        clstat.stable.ppf([0.5], 1.3, 0, out=np.empty(1))


def test_kernel_density_against_scikit_learn():
    neighbors = pytest.importorskip("sklearn.neighbors")
    rng = np.random.default_rng(5)
    x1 = rng.standard_gamma(2.0, size=(700, 1))
    at1 = np.linspace(-1, 12, 57).reshape(-1, 1)
    # 1-d: every kernel clstat shares with scikit-learn is the same function. scikit-learn's
    # tree sums with atol = rtol = 0 are exact up to rounding, as clstat's.
    for kernel in ("gaussian", "tophat", "epanechnikov", "linear", "cosine"):
        ours = clstat.KernelDensity(bandwidth=0.4, kernel=kernel).fit(x1).score_samples(at1)
        theirs = neighbors.KernelDensity(bandwidth=0.4, kernel=kernel).fit(x1).score_samples(at1)
        inside = np.isfinite(theirs)
        assert np.array_equal(inside, np.isfinite(ours)), kernel
        assert np.allclose(ours[inside], theirs[inside], rtol=0, atol=1e-10), kernel
    # d = 3, Gaussian (radial = product), with weights and Scott's rule. Far in the tails
    # scikit-learn's tree sums drift from the exact sum (over 40 seeds: 3e-8 at log density -20,
    # 3e-5 at -37), so they are compared where the log density is above -20; clstat's equal the
    # direct log-sum-exp to rounding everywhere.
    x3 = rng.normal(size=(500, 3))
    at3 = rng.normal(size=(40, 3)) * 1.5
    w = rng.uniform(0.5, 2.0, size=500)
    ours = clstat.KernelDensity(bandwidth="scott").fit(x3, sample_weight=w)
    theirs = neighbors.KernelDensity(bandwidth="scott").fit(x3, sample_weight=w)
    h = 500 ** (-1 / 7)
    d2 = ((at3[:, None, :] - x3[None, :, :]) ** 2).sum(-1)
    exact = scipy.special.logsumexp(-d2 / (2 * h * h), b=w / w.sum(), axis=1) - 1.5 * np.log(2 * np.pi * h * h)
    assert np.allclose(ours.score_samples(at3), exact, rtol=0, atol=1e-12)
    body = at3[exact > -20]
    assert np.allclose(ours.score_samples(body), theirs.score_samples(body), rtol=0, atol=1e-6)
    assert abs(ours.score(body) - theirs.score(body)) < 1e-5


def test_partition_kth_along_an_axis():
    rng = np.random.default_rng(17)
    for a in (rng.normal(size=(30, 500)).astype(np.float32), rng.integers(-50, 50, size=(4, 7, 3000)),
              rng.normal(size=(6, 9000))):
        for axis in range(a.ndim):
            want = np.sort(a, axis=axis)
            n = a.shape[axis]
            got = clstat.partition_kth(a, [0, n // 3, -1], axis=axis)
            assert got.dtype == a.dtype
            for j, k in enumerate([0, n // 3, n - 1]):
                assert np.array_equal(got[..., j], np.take(want, k, axis=axis))
            k = min(5, n - 1)
            assert np.array_equal(clstat.partition_kth(a, k, axis=axis), np.take(want, k, axis=axis))
    with pytest.raises(ValueError, match="out of range"):
        clstat.partition_kth(np.ones((3, 4)), 4, axis=1)


def test_kde_cdf_against_scipy_and_closed_forms():
    rng = np.random.default_rng(11)
    x = rng.gamma(2.0, size=700)
    y = np.linspace(-1, 12, 60)
    k = scipy.stats.gaussian_kde(x, bw_method=0.3)
    h = float(np.sqrt(k.covariance[0, 0]))
    ref = np.array([k.integrate_box_1d(-np.inf, v) for v in y])
    np.testing.assert_allclose(clstat.kde_cdf(x, y, bandwidth=h), ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(clstat.kde_cdf(x, y, bandwidth=h, log=True)[ref > 0], np.log(ref[ref > 0]),
                               rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(clstat.kde_cdf(x, y, bandwidth=h, precision="float32"), ref, rtol=2e-5, atol=1e-6)
    w = rng.random(700)
    u = np.clip((y[:, None] - x[None, :]) / 0.4, -1, 1)
    epa = ((0.5 + 0.75 * u - 0.25 * u ** 3) * w).sum(1) / w.sum()
    np.testing.assert_allclose(clstat.kde_cdf(x, y, kernel="epanechnikov", bandwidth=0.4, weights=w), epa,
                               rtol=1e-12, atol=1e-15)
    with pytest.raises(ValueError):
        clstat.kde_cdf(x, y, bandwidth=-1.0)


def test_kde_on_a_bounded_support():
    rng = np.random.default_rng(12)
    x = rng.uniform(size=400) ** 2
    g = np.linspace(0, 1, 4001)
    for method in ("reflection", "renormalisation"):
        f = clstat.kde(x, g, kernel="epanechnikov", bandwidth=0.1, boundary=method, lower=[0.0], upper=[1.0])
        assert abs(np.trapz(f, g) - 1) < 1e-4
        assert clstat.kde(x, [-0.1, 1.1], bandwidth=0.1, boundary=method, lower=[0.0], upper=[1.0]).tolist() == [0, 0]
    u = g[:, None] - x[None, :]
    refl = (np.exp(-0.5 * (u / 0.1) ** 2) + np.exp(-0.5 * ((g[:, None] + x) / 0.1) ** 2)
            + np.exp(-0.5 * ((g[:, None] - 2 + x) / 0.1) ** 2)).sum(1) / (400 * 0.1 * np.sqrt(2 * np.pi))
    np.testing.assert_allclose(clstat.kde(x, g, bandwidth=0.1, boundary="reflection", lower=[0.0], upper=[1.0]),
                               refl, rtol=1e-12)
    pos = x + 0.01
    lg = clstat.kde(pos, [0.5], bandwidth=0.3, boundary="log", lower=[0.0])
    np.testing.assert_allclose(lg * 0.5, clstat.kde(np.log(pos), [np.log(0.5)], bandwidth=0.3), rtol=1e-12)
    with pytest.raises(ValueError):
        clstat.kde(x, g, bandwidth=0.1, boundary="reflection", lower=[0.5], upper=[1.0])


def test_kde_sample():
    rng = np.random.default_rng(13)
    x = rng.normal(size=300)
    y = clstat.kde_sample(x, 50000, seed=5, bandwidth=0.4)
    assert y.shape == (50000,)
    np.testing.assert_array_equal(y[:100], clstat.kde_sample(x, 100, seed=5, bandwidth=0.4))
    ks = scipy.stats.kstest(np.sort(y), lambda v: clstat.kde_cdf(x, np.atleast_1d(v), bandwidth=0.4))
    assert ks.statistic < 6 / np.sqrt(50000)
    x2 = rng.normal(size=(200, 2))
    assert clstat.kde_sample(x2, 10, seed=1, kernel="epanechnikov", bandwidth=[0.2, 0.3]).shape == (10, 2)
