#!/usr/bin/env python3
"""Draws the figures of docs/ from clstat's own output.

Every number plotted comes from the `clstat` command line (or, for the device figure, from a
clstat-bench result file); NumPy only makes the input data and matplotlib only draws. Run it after
a build and commit the SVG files it writes:

    python3 tools/figures/make_figures.py build/release/tools/clstat/clstat docs/figures

Needs python3-numpy and python3-matplotlib (Debian packages). Deterministic: fixed seeds.
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

plt.rcParams.update({"svg.hashsalt": "clstat", "font.size": 9, "figure.dpi": 100})
# matplotlib writes the date into SVG metadata unless told not to: keep the files reproducible.
SAVE = {"metadata": {"Date": None}}


def run(clstat, *args):
    out = subprocess.run([clstat, *args], check=True, capture_output=True, text=True)
    return out.stdout, out.stderr


def table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], np.array([[float(v) for v in r] for r in rows[1:]])


def write_column(path, name, values):
    with open(path, "w") as f:
        f.write(name + "\n" + "\n".join(repr(float(v)) for v in values) + "\n")


def mixture(n, seed):
    rng = np.random.default_rng(seed)
    pick = rng.random(n) < 1 / 3
    return np.where(pick, rng.normal(-2, 0.5, n), rng.normal(1, 1, n))


def mixture_files(tmp):
    """The sample of the KDE and bandwidth figures and the 401 points they are drawn at, as files."""
    x = mixture(2000, 1)
    data, at = os.path.join(tmp, "mix.csv"), os.path.join(tmp, "at.csv")
    write_column(data, "x", x)
    grid = np.linspace(-5, 5, 401)
    write_column(at, "x", grid)
    return x, data, at, grid


def kde_figure(clstat, tmp, out):
    x, data, at, grid = mixture_files(tmp)
    h = float(json.loads(run(clstat, "bandwidth", "--data", data, "--method", "plugin", "--json")[0])["h"][0])
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.hist(x, bins=60, density=True, color="#ddd", label="histogram, n = 2000")
    for kernel, colour in (("gaussian", "#1f77b4"), ("epanechnikov", "#d62728"), ("uniform", "#2ca02c")):
        # The same bandwidth in each kernel's standard deviation: clstat's h is the kernel's scale,
        # so the bounded kernels take h times their canonical factor (Wand & Jones table 2.1 ratio).
        factor = {"gaussian": 1.0, "epanechnikov": np.sqrt(5.0), "uniform": np.sqrt(3.0)}[kernel]
        _, v = table(run(clstat, "kde", "--data", data, "--at", at, "--kernel", kernel,
                         "--bandwidth", repr(h * factor))[0])
        ax.plot(v[:, 0], v[:, 1], color=colour, lw=1.4, label=f"{kernel}")
    truth = (1 / 3) * np.exp(-0.5 * ((grid + 2) / 0.5) ** 2) / (0.5 * np.sqrt(2 * np.pi)) + \
            (2 / 3) * np.exp(-0.5 * (grid - 1) ** 2) / np.sqrt(2 * np.pi)
    ax.plot(grid, truth, "k--", lw=1, label="true density")
    ax.set_title(f"clstat kde: three kernels at the plug-in bandwidth (h = {h:.3f}, kernel sd)")
    ax.set_xlabel("x")
    ax.set_ylabel("density")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "kde_kernels.svg"), **SAVE)
    plt.close(fig)


def bandwidth_figure(clstat, tmp, out):
    x, data, at, grid = mixture_files(tmp)
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    ax.hist(x, bins=60, density=True, color="#ddd", label="histogram, n = 2000")
    for method, colour in (("silverman", "#2ca02c"), ("plugin", "#1f77b4"), ("lscv-h", "#d62728")):
        h = float(json.loads(run(clstat, "bandwidth", "--data", data, "--method", method, "--json")[0])["h"][0])
        _, v = table(run(clstat, "kde", "--data", data, "--at", at, "--bandwidth", repr(h))[0])
        ax.plot(v[:, 0], v[:, 1], color=colour, lw=1.4, label=f"{method}: h = {h:.3f}")
    ax.set_title("clstat bandwidth: rule of thumb, plug-in and LSCV on a normal mixture")
    ax.set_xlabel("x")
    ax.set_ylabel("Gaussian KDE")
    ax.legend(frameon=False)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bandwidth_choices.svg"), **SAVE)
    plt.close(fig)


def stable_figure(clstat, out):
    xs = np.linspace(-6, 6, 481)
    pts = ",".join(repr(float(v)) for v in xs)
    fig, axes = plt.subplots(1, 2, figsize=(7.6, 3.2), sharey=True)
    for ax, beta in zip(axes, (0.0, 0.8)):
        for alpha, colour in ((0.5, "#9467bd"), (1.0, "#d62728"), (1.5, "#1f77b4"), (2.0, "#2ca02c")):
            _, v = table(run(clstat, "stable", "pdf", "--alpha", str(alpha), "--beta", str(beta), "--x", pts)[0])
            ax.plot(v[:, 0], v[:, 1], color=colour, lw=1.4, label=f"alpha = {alpha}")
        ax.set_title(f"S0 densities, beta = {beta}, scale 1, location 0")
        ax.set_xlabel("x")
    axes[0].set_ylabel("pdf")
    axes[0].legend(frameon=False)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "stable_densities.svg"), **SAVE)
    plt.close(fig)


def grid_figure(clstat, tmp, out):
    rng = np.random.default_rng(4)
    n = 20000
    a = rng.normal(size=(n, 2)) @ np.array([[1.0, 0.0], [0.7, 0.5]])
    b = rng.normal(size=(n // 2, 2)) * 0.6 + np.array([3.0, -2.0])
    x = np.vstack([a, b])
    data = os.path.join(tmp, "pts.csv")
    with open(data, "w") as f:
        f.write("u,v\n" + "\n".join(f"{p[0]!r},{p[1]!r}" for p in x) + "\n")
    res = os.path.join(tmp, "grid.csv")
    _, summary = run(clstat, "grid", "--data", data, "--lower", "-4,-5", "--upper", "6,4", "--size", "201,181",
                     "--out", res)
    _, v = table(open(res).read())
    f = v[:, 2].reshape(201, 181)
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    im = ax.imshow(f.T, origin="lower", extent=(-4, 6, -5, 4), aspect="auto", cmap="viridis")
    ax.contour(np.linspace(-4, 6, 201), np.linspace(-5, 4, 181), f.T, levels=8, colors="white", linewidths=0.5)
    fig.colorbar(im, ax=ax, label="density")
    ax.set_title(f"clstat grid: {len(x)} samples on 201 x 181 points")
    ax.set_xlabel("u")
    ax.set_ylabel("v")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "grid_density.svg"), **SAVE)
    plt.close(fig)


def order_figure(clstat, tmp, out):
    x = np.array([2.1, 3.4, 3.9, 5.0, 5.2, 6.8, 7.7, 9.1])
    data = os.path.join(tmp, "small.csv")
    write_column(data, "x", x)
    probs = np.linspace(0, 1, 201)
    fig, ax = plt.subplots(figsize=(6.0, 3.4))
    for t, colour in ((1, "#d62728"), (4, "#2ca02c"), (7, "#1f77b4"), (9, "#9467bd")):
        _, v = table(run(clstat, "select", "quantile", "--data", data, "--type", str(t),
                         "--p", ",".join(repr(float(p)) for p in probs))[0])
        ax.plot(v[:, 0], v[:, 1], color=colour, lw=1.3, label=f"type {t}" + (" (R, NumPy default)" if t == 7 else ""))
    ax.plot((np.arange(1, 9) - 0.5) / 8, np.sort(x), "ko", ms=3, label="the 8 values at (k - 0.5) / n")
    ax.set_title("clstat select quantile: Hyndman-Fan types on 8 values")
    ax.set_xlabel("probability p")
    ax.set_ylabel("quantile")
    ax.legend(frameon=False, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "order_quantile_types.svg"), **SAVE)
    plt.close(fig)


def robust_figure(clstat, tmp, out):
    rng = np.random.default_rng(5)
    n, bad = 300, 60
    x = rng.uniform(0, 10, n)
    y = 1 + 2 * x + rng.normal(0, 0.8, n)
    x[:bad] = 14 + rng.uniform(0, 3, bad)
    y[:bad] = rng.normal(-4, 1.5, bad)
    data = os.path.join(tmp, "line.csv")
    with open(data, "w") as f:
        f.write("x,y\n" + "\n".join(f"{a!r},{b!r}" for a, b in zip(x, y)) + "\n")
    fit = json.loads(run(clstat, "robust", "lts", "--data", data, "--response", "y", "--json")[0])
    b0, b1 = fit["coefficients"]["(Intercept)"], fit["coefficients"]["x"]
    flagged = np.array(fit["outliers"], dtype=int) - 1  # 1-based in the output, as R
    ls = np.polyfit(x, y, 1)
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    keep = np.ones(n, bool)
    keep[flagged] = False
    ax.plot(x[keep], y[keep], "o", ms=3, color="#1f77b4", label="weight 1")
    ax.plot(x[~keep], y[~keep], "x", ms=4, color="#d62728", label=f"flagged by LTS ({(~keep).sum()})")
    u = np.linspace(0, 17.5, 10)
    ax.plot(u, b0 + b1 * u, color="#1f77b4", lw=1.6, label=f"LTS: {b0:.2f} + {b1:.2f} x")
    ax.plot(u, ls[1] + ls[0] * u, color="#7f7f7f", lw=1.2, ls="--", label=f"least squares: {ls[1]:.2f} + {ls[0]:.2f} x")
    ax.set_title("clstat robust lts: 20% bad leverage points (true line 1 + 2 x)")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.legend(frameon=False, loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "robust_lts.svg"), **SAVE)
    plt.close(fig)


def runtime_figure(result_jsons, out):
    devices = [dev for f in result_jsons for dev in json.load(open(f))["devices"]]
    fig, ax = plt.subplots(figsize=(6.4, 3.4))
    for dev, colour in zip(devices, ("#1f77b4", "#d62728", "#2ca02c")):
        rows = [r for r in dev["rows"] if r["suite"] == "kde" and r["workload"] == "gaussian d=1"]
        for prec, style in (("f32", "-o"), ("f64", "--s")):
            pts = sorted((r["n"], r["throughput"]) for r in rows if r["precision"] == prec)
            if pts:
                ax.loglog(*zip(*pts), style, color=colour, ms=3, label=f"{dev['device'][:32]} {prec}")
            peer = sorted((r["n"], r["peer_throughput"]) for r in rows
                          if r["precision"] == prec and r.get("peer_throughput", 0) > 0)
            if peer:
                ax.loglog(*zip(*peer), ":", color=colour, alpha=0.6, label=f"torch beside it, {prec}")
    ax.set_title("the same call on each device (clstat-bench, 1-d Gaussian KDE, n = m)")
    ax.set_xlabel("n")
    ax.set_ylabel("Gpairs/s")
    ax.legend(frameon=False, fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "runtime_devices.svg"), **SAVE)
    plt.close(fig)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    clstat, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    np.random.seed(0)
    with tempfile.TemporaryDirectory() as tmp:
        kde_figure(clstat, tmp, out)
        bandwidth_figure(clstat, tmp, out)
        stable_figure(clstat, out)
        grid_figure(clstat, tmp, out)
        order_figure(clstat, tmp, out)
        robust_figure(clstat, tmp, out)
    here = os.path.dirname(os.path.abspath(__file__))
    results = os.path.join(here, "..", "..", "bench", "results")
    runtime_figure([os.path.join(results, "2026-11-24-h100-nvidia-kde-stable-order.json"),
                    os.path.join(results, "2026-11-24-h100-pocl-kde-stable-order-runtime-python.json")], out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
