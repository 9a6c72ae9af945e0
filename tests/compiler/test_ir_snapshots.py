"""The LLVM IR emitted for four canonical kernels, kept as snapshot files next to this test
(``snapshots/<kernel>.<target>.ll``) so they read as documentation of what the compiler produces:

* ``elementwise_chain``: ``np.sqrt(a * b + c) - 1.0`` in ``@numba_ext.jit`` -> one fused kernel, one
  work-item per element, no temporaries;
* ``reduction``: a ``prange`` sum -> a grid-stride loop over private partials combined with one atomic
  per work-item (GPUs); ``reduction_blocked``: the same on CPUs, one contiguous run per work-item;
* ``prange_nest``: two nested ``prange`` loops over a 2-D array -> one flat iteration space;
* ``local_barrier``: a ``@numba_ext.kernel`` staging a tile in local memory between two barriers.

The IR of each target (SPIR-V for OpenCL IL devices, PTX for NVIDIA's OpenCL) is generated from the
kernel description the front end hands to the Rust compiler, without a device of that kind. Set
``NUMBA_EXT_UPDATE_SNAPSHOTS=1`` to rewrite the files after an intended change, then review the diff.
"""

import dataclasses
import os
import pathlib

import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from numba_ext import _core
from numba_ext.compiler import parfor_offload

from ..checks import check

SNAPSHOTS = pathlib.Path(__file__).parent / "snapshots"
TARGETS = ["spirv", "ptx"]
UPDATE = os.environ.get("NUMBA_EXT_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture
def recorded(monkeypatch):
    """The kernel descriptions compiled while the test runs, in order."""
    specs = []
    for name in ("compile_kernel", "compile_function"):
        real = getattr(_core, name)

        def record(spec, device, real=real, name=name):
            specs.append((name, spec))
            return real(spec, device)

        monkeypatch.setattr(_core, name, record)
    return specs


def _ir(kind: str, spec, target: str) -> str:
    if kind == "compile_kernel":
        return _core.kernel_llvm_ir(spec, target)
    return _core.function_llvm_ir(spec, target)


def _compare(name: str, specs) -> None:
    assert len(specs) == 1, f"{name}: expected one kernel, the front end compiled {len(specs)}"
    kind, spec = specs[0]
    # the front end names kernels by a hash of their type signature and device, and results by
    # Numba's temporaries (which depend on the Python version's bytecode): name both here
    spec = dataclasses.replace(spec, name=name)
    for key in ("params", "arrays"):  # ArrayParam / ScalarParam of KernelSpec, ArrayDecl of Function
        if hasattr(spec, key):
            named = [
                dataclasses.replace(p, name=f"out{i}") if getattr(p, "name", "").startswith("$") else p
                for i, p in enumerate(getattr(spec, key))
            ]
            spec = dataclasses.replace(spec, **{key: tuple(named)})
    for target in TARGETS:
        text = _ir(kind, spec, target)
        path = SNAPSHOTS / f"{name}.{target}.ll"
        if UPDATE or not path.exists():
            path.write_text(text)
        assert text == path.read_text(), (
            f"the {target} IR of {name} changed; if intended, rerun with NUMBA_EXT_UPDATE_SNAPSHOTS=1 "
            f"and review the diff of {path}"
        )


def test_elementwise_chain(rng, recorded):
    @nx.jit
    def chain(a, b, c):
        return np.sqrt(a * b + c) - 1.0

    hs = [rng.random(64) for _ in range(3)]
    check(chain(*[nx.asarray(h) for h in hs]), np.sqrt(hs[0] * hs[1] + hs[2]) - 1.0)
    _compare("elementwise_chain", recorded)


@pytest.mark.parametrize("blocked", [False, True])
def test_reduction(rng, recorded, monkeypatch, blocked):
    # either form on any device (the device's own is the default)
    monkeypatch.setattr(parfor_offload, "reduction_unroll", lambda device: 8 if blocked else 1)

    @nx.jit
    def total(a):
        s = 0.0
        for i in prange(a.shape[0]):
            s += a[i]
        return s

    h = rng.random(1000)
    assert total(nx.asarray(h)) == pytest.approx(h.sum(), rel=1e-12)
    _compare("reduction_blocked" if blocked else "reduction", recorded)


def test_prange_nest(rng, recorded):
    @nx.jit
    def scale_rows(a, w, out):
        for i in prange(a.shape[0]):
            for j in prange(a.shape[1]):
                out[i, j] = a[i, j] * w[i]

    h, hw = rng.random((7, 9)), rng.random(7)
    out = nx.full((7, 9), np.nan)
    scale_rows(nx.asarray(h), nx.asarray(hw), out)
    check(out, h * hw[:, None])
    _compare("prange_nest", recorded)


TILE = 16


@nx.kernel
def reverse_tiles(a, out):
    i = nx.get_global_id(0)
    li = nx.get_local_id(0)
    tile = nx.local.array(TILE, np.float32)
    tile[li] = a[i]
    nx.barrier(nx.LOCAL_MEM_FENCE)
    out[i] = tile[TILE - 1 - li]
    nx.barrier(nx.LOCAL_MEM_FENCE)


def test_local_barrier(rng, recorded):
    h = rng.random(4 * TILE).astype(np.float32)
    out = nx.full(h.size, np.nan, dtype=np.float32)
    reverse_tiles[nx.NdRange((h.size,), (TILE,))](nx.asarray(h), out)
    check(out, h.reshape(-1, TILE)[:, ::-1].reshape(-1))
    _compare("local_barrier", recorded)
