"""NumPy and SciPy on the host's CPU cores, for the CPU rows of clstat-bench (a PoCL device):
numpy.median, numpy.quantile (five quantiles) and numpy.partition (the k-th smallest, k = n/10) of
2^24 doubles; scipy.stats.gaussian_kde (1-d, Scott's bandwidth) at n = m = 2^12 and 2^14; and
numpy's sum, min + max and mean + var of 2^27 doubles; along the rows of a matrix (clstat's
median_rows, quantiles_rows and top_k_rows): numpy.median(axis=1) of 4096 x 4096,
numpy.quantile(five, axis=1) of 65536 x 2048 and the top 8 of each row of 4096 x 4096 with their
columns (numpy.argpartition, then a sort of the 8). Best of three after a warm call; prints one
line each. No arguments.
"""
import time, numpy as np, scipy, scipy.stats
rng = np.random.default_rng(1)
x = rng.standard_normal(1 << 24)
for name, f in [("numpy.median 2^24 f64", lambda: np.median(x)),
                ("numpy.quantile x5 2^24 f64", lambda: np.quantile(x, [0.01, 0.1, 0.5, 0.9, 0.99])),
                ("numpy.partition kth n/10 2^24 f64", lambda: np.partition(x, (1 << 24) // 10)[(1 << 24) // 10])]:
    f()
    ts = []
    for _ in range(3):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    print(f"{name}: {min(ts) * 1e3:.1f} ms")
for n in (1 << 12, 1 << 14):
    s = rng.standard_normal(n); y = rng.standard_normal(n)
    k = scipy.stats.gaussian_kde(s); k(y[:16])
    t0 = time.perf_counter(); k(y); dt = time.perf_counter() - t0
    print(f"scipy.stats.gaussian_kde n=m={n} f64: {dt * 1e3:.1f} ms, {n * n / dt / 1e9:.4f} Gpairs/s")
x27 = rng.standard_normal(1 << 27)
for name, f in [("numpy.sum 2^27 f64", lambda: x27.sum()), ("numpy min+max 2^27 f64", lambda: (x27.min(), x27.max())),
                ("numpy mean+var 2^27 f64", lambda: (x27.mean(), x27.var()))]:
    f(); ts = []
    for _ in range(3):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    print(f"{name}: {min(ts) * 1e3:.1f} ms")
m4 = x27[: 1 << 24].reshape(4096, 4096)
m2 = x27.reshape(65536, 2048)
def top8(a):
    i = np.argpartition(-a, 8, axis=1)[:, :8]
    v = np.take_along_axis(a, i, axis=1)
    o = np.argsort(-v, axis=1, kind="stable")
    return np.take_along_axis(v, o, axis=1), np.take_along_axis(i, o, axis=1)
for name, f in [("numpy.median axis=1 4096x4096 f64", lambda: np.median(m4, axis=1)),
                ("numpy.quantile x5 axis=1 65536x2048 f64", lambda: np.quantile(m2, [0.01, 0.1, 0.5, 0.9, 0.99], axis=1)),
                ("numpy top 8 axis=1 4096x4096 f64", lambda: top8(m4))]:
    f(); ts = []
    for _ in range(3):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    print(f"{name}: {min(ts) * 1e3:.1f} ms")
print("numpy", np.__version__, "scipy", scipy.__version__)
