#!/usr/bin/env python3
"""clstat's Python package against the Python functions it replaces, on the data clstat-bench wrote.

The bench's `python` suite writes each workload's data to raw files, times the same call through
the C++ library, and runs this script to time, on the same data and device:
  kde     clstat.gaussian_kde(x)(y) and scipy.stats.gaussian_kde(x)(y)      (float64, 1-d)
  median  clstat.median(DeviceArray), cupy.median and torch.median on the GPU (--dtype float32 or
          float64, resident), or numpy.median on the host for a CPU device
  stable  clstat.stable.pdf(x, 1.5, 0.5) and scipy.stats.levy_stable.pdf in S0 (float64);
          SciPy on the first --peer-points points only (about a millisecond a point), its rate
          per point reported
  threads clstat.stable.pdf on 8 chunks: 8 calls one after another, then 8 Python threads at once
Each clstat call is timed with time.perf_counter after a warm-up, median of --repeats; the peers
once (SciPy) or median of --repeats (CuPy, PyTorch, synchronised).

usage: python_api.py --workload kde|median|stable|threads --x FILE [--y FILE] --device SPEC
       [--repeats R] [--peer-points K] [--dtype float32|float64] [--gpu]
Prints one JSON object: "clstat_ms" and "<peer>_ms" for each peer that ran, "<peer>_error" for
each that could not, and the versions. Exit code 3 when clstat cannot be imported.
"""
import argparse
import json
import statistics
import sys
import threading
import time


def timed(fn, repeats, warm=True):
    """Median wall time in ms of `repeats` calls, after a warm-up call unless warm is False."""
    if warm:
        fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", required=True, choices=["kde", "median", "stable", "threads"])
    ap.add_argument("--x", required=True)
    ap.add_argument("--y")
    ap.add_argument("--device", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--peer-points", type=int, default=1000)
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32",
                    help="the median's element type (the file holds raw values of it)")
    ap.add_argument("--gpu", action="store_true", help="the device is a GPU: the median's peers are CuPy "
                    "and PyTorch on the GPU; otherwise numpy.median on the host")
    a = ap.parse_args()
    try:
        import numpy as np
        import clstat
    except ImportError as e:
        print(f"cannot import clstat: {e}", file=sys.stderr)
        sys.exit(3)
    ctx = clstat.Context(a.device)
    res = {"workload": a.workload, "clstat_version": clstat.__version__, "numpy_version": np.__version__,
           "device": ctx.device}
    if a.workload == "kde":
        x, y = np.fromfile(a.x, dtype=np.float64), np.fromfile(a.y, dtype=np.float64)
        res["clstat_ms"] = timed(lambda: clstat.gaussian_kde(x, ctx=ctx)(y), a.repeats)
        try:
            import scipy
            import scipy.stats
            res["scipy_version"] = scipy.__version__
            res["scipy.gaussian_kde_ms"] = timed(lambda: scipy.stats.gaussian_kde(x)(y), 1, warm=False)
        except Exception as e:  # noqa: BLE001 - a peer that fails says why
            res["scipy.gaussian_kde_error"] = repr(e)
    elif a.workload == "median":
        x = np.fromfile(a.x, dtype=np.dtype(a.dtype))
        d = clstat.to_device(x, ctx=ctx)
        res["clstat_ms"] = timed(lambda: clstat.median(d), a.repeats)
        if not a.gpu:
            res["numpy.median_ms"] = timed(lambda: np.median(x), a.repeats)
            print(json.dumps(res))
            return
        try:
            import cupy
            cx = cupy.asarray(x)
            sync = cupy.cuda.Device().synchronize
            res["cupy_version"] = cupy.__version__
            res["cupy.median_ms"] = timed(lambda: (cupy.median(cx), sync()), a.repeats)
            del cx
        except Exception as e:  # noqa: BLE001
            res["cupy.median_error"] = repr(e)
        try:
            import torch
            tx = torch.from_numpy(x).cuda()
            res["torch_version"] = torch.__version__
            # torch.median is the lower median; the mean of the two middle values costs one
            # more kthvalue, so this is the cheaper half of what clstat and cupy compute.
            res["torch.median_ms"] = timed(lambda: (torch.median(tx), torch.cuda.synchronize()), a.repeats)
            del tx
        except Exception as e:  # noqa: BLE001
            res["torch.median_error"] = repr(e)
    elif a.workload == "stable":
        x = np.fromfile(a.x, dtype=np.float64)
        res["clstat_ms"] = timed(lambda: clstat.stable.pdf(x, 1.5, 0.5, ctx=ctx), a.repeats)
        try:
            import scipy
            from scipy.stats import levy_stable
            levy_stable.parameterization = "S0"
            k = min(a.peer_points, x.size)
            res["scipy_version"] = scipy.__version__
            res["scipy.levy_stable_points"] = k
            res["scipy.levy_stable.pdf_ms"] = timed(lambda: levy_stable.pdf(x[:k], 1.5, 0.5), 1, warm=False) * x.size / k
        except Exception as e:  # noqa: BLE001
            res["scipy.levy_stable.pdf_error"] = repr(e)
    else:
        x = np.fromfile(a.x, dtype=np.float64)
        chunks = np.array_split(x, 8)
        call = lambda c: clstat.stable.pdf(c, 1.5, 0.5, ctx=ctx)  # noqa: E731
        want = [call(c) for c in chunks]
        res["clstat_ms"] = timed(lambda: [call(c) for c in chunks], a.repeats)
        got = [None] * 8

        def eight_threads():
            def one(i):
                got[i] = call(chunks[i])
            ts = [threading.Thread(target=one, args=(i,)) for i in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        res["clstat_8_threads_ms"] = timed(eight_threads, a.repeats)
        res["threads_equal"] = all(np.array_equal(g, w) for g, w in zip(got, want))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
