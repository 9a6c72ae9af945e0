"""One computation over several devices with Dask: a compute-bound kernel (a sum of `iters` sines
per element) over a float64 array of 2^k elements in `blocks` blocks, then the sum of the results.

Variants (median ms of 5 after a warm-up that compiles everywhere):
* numba_ext, one device, no Dask: the kernel over the whole array on the default device;
* numba_ext + Dask, `w` workers: ``numba_ext.dask.local_cluster`` (one worker process per device;
  on a CPU, ``split=w`` sub-devices with their own cores), blocks created on the workers' devices
  with the ``numba_ext`` array backend and kept there (``client.persist``) before the timing, as the
  one-device array is; only the 0-d sums travel;
* the same Dask graph with a block function that does no work (Dask's own cost per run);
* NumPy and Dask + NumPy (threads) on the host, as peers on the CPU.
Each result is checked against the one-device result.

Run: python benchmarks/dask_probe.py [--log2n 22] [--iters 100] [--blocks 8] [--workers 1,2]
     [--devices gpu|cpu] [--numpy]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import dask
import dask.array as da
import numpy as np

import numba_ext as nx
import numba_ext.dask as ned


@nx.kernel
def _series(x, out, iters):
    i = nx.get_global_id(0)
    v = x[i]
    acc = 0.0
    for k in range(iters):
        acc += math.sin(v + k * 0.001)
    out[i] = acc


def series_block(x, iters):
    out = nx.empty_like(x)
    _series[x.shape[0]](x, out, iters)
    return out


def first_element(x):
    return x[:1]


def series_numpy(x, iters):
    acc = np.zeros_like(x)
    for k in range(iters):
        acc += np.sin(x + k * 0.001)
    return acc


def med(fn, k=5):
    fn()
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return sorted(ts)[k // 2] * 1e3


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log2n", type=int, default=22)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--workers", default="1,2")
    p.add_argument(
        "--devices",
        default=None,
        help="gpu: one worker per GPU; cpu: the CPU split (default: GPUs, else CPU)",
    )
    p.add_argument("--numpy", action="store_true", help="time NumPy and Dask + NumPy too")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    n, iters = 1 << a.log2n, a.iters
    rows: dict[str, float] = {}

    # one device, no Dask
    x = nx.arange(n, dtype=np.float64) * (1.0 / n)
    ref = float(series_block(x, iters).sum())
    rows["numba_ext, 1 device"] = med(lambda: float(series_block(x, iters).sum()))
    print(f"n=2^{a.log2n} iters={iters} blocks={a.blocks} device={nx.default_queue().device.filter_string}")
    print(f"{'numba_ext, 1 device':40s} {rows['numba_ext, 1 device']:10.2f} ms")

    gpus = [d for d in nx.get_devices() if d.device_type == "gpu" and d.target is not None]
    for w in (int(s) for s in a.workers.split(",")):
        if (a.devices == "gpu" or (a.devices is None and gpus)) and gpus:
            if w > len(gpus):
                print(f"{w} workers: only {len(gpus)} GPUs")
                continue
            kwargs = {"devices": [d.filter_string for d in gpus[:w]]}
        else:
            kwargs = {"devices": ["cpu"], "split": w}
        with ned.local_cluster(dashboard_address=":0", silence_logs=50, **kwargs) as cluster:
            from distributed import Client, wait

            with Client(cluster) as client:
                names = sorted(ned.worker_device_names(client).values())
                with dask.config.set({"array.backend": "numba_ext"}):
                    d = da.arange(n, chunks=n // a.blocks, dtype=np.float64) * (1.0 / n)
                d = client.persist(d)  # the blocks made once, on the workers' devices, as x above
                wait(d)
                total = d.map_blocks(series_block, iters, dtype=np.float64).sum()

                def run(total=total, client=client):
                    return float(client.compute(total).result())

                got = run()
                assert abs(got - ref) <= 1e-9 * abs(ref), (got, ref)
                label = f"numba_ext + Dask, {w} worker{'s' if w > 1 else ''}"
                rows[label] = med(run)
                print(f"{label:40s} {rows[label]:10.2f} ms  ({', '.join(names)})")
                # the same graph with a block function that does no work: Dask's own cost
                empty_total = d.map_blocks(first_element, dtype=np.float64, chunks=(1,)).sum()
                label = f"  same graph, no kernel, {w} worker{'s' if w > 1 else ''}"
                rows[label.strip()] = med(lambda t=empty_total, c=client: float(c.compute(t).result()))
                print(f"{label:40s} {rows[label.strip()]:10.2f} ms")

    if a.numpy:
        h = np.arange(n, dtype=np.float64) * (1.0 / n)
        rows["NumPy"] = med(lambda: float(series_numpy(h, iters).sum()), k=3)
        print(f"{'NumPy':40s} {rows['NumPy']:10.2f} ms")
        dh = da.from_array(h, chunks=n // a.blocks)
        with dask.config.set(scheduler="threads", num_workers=os.cpu_count()):
            rows["Dask + NumPy (threads)"] = med(
                lambda: float(dh.map_blocks(series_numpy, iters, dtype=np.float64).sum().compute()), k=3
            )
        print(f"{'Dask + NumPy (threads)':40s} {rows['Dask + NumPy (threads)']:10.2f} ms")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"n": n, "iters": iters, "blocks": a.blocks, "median_ms": rows}, f, indent=1)


if __name__ == "__main__":
    main()
