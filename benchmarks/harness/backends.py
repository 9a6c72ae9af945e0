"""Backends: where a variant's data lives (``host``, ``numba_ext``, ``dpnp``, ``cupy``, ``numba_cuda``),
how its inputs get there, how a sample waits for its results and how they come back. A backend's
library is imported only when one of its variants runs; one that cannot be imported (or has no device)
turns its variants into n/a rows."""

from __future__ import annotations

import numpy as np

# -- optional libraries --------------------------------------------------------------------------


class Missing:
    """Stands for a library that cannot be imported: attribute access, calls and decorators all give
    a Missing again, so workload modules define their variants unconditionally; the harness lists
    every variant of that backend as n/a with ``reason``."""

    def __init__(self, name: str, reason: str):
        self._name, self.reason = name, reason

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return self

    def __call__(self, *args, **kwargs):
        return self

    def __getitem__(self, key):
        return self

    def __bool__(self):
        return False

    def __repr__(self):
        return f"<missing {self._name}: {self.reason}>"


def _import_numba_ext():
    try:
        import numba_ext

        return numba_ext
    except Exception as e:  # ImportError, or OSError for a missing OpenCL/LLVM library
        return Missing("numba_ext", f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")


# numba_ext (or a Missing): workload modules use ``from harness import nx`` and decorate kernels with it.
nx = _import_numba_ext()
# numba_ext's kernel API in numba-dpex's spelling (``from numba_dpex import kernel_api as kapi``): the
# item-style kernel variants use it (a Missing where numba_ext is)
kapi = nx.kernel_api


def walk(obj):
    """Every leaf of a result (results may be nested tuples or lists)."""
    if isinstance(obj, (tuple, list)):
        for o in obj:
            yield from walk(o)
    else:
        yield obj


class Backend:
    """Where a variant's data lives: how to copy inputs there, wait for results and copy them back."""

    name = "host"
    label = "host"

    def __init__(self):
        self._loaded, self.module, self.reason, self.importable = False, None, None, True
        self.shims: list[str] = []  # compatibility shims applied when loading (reported with every result)

    def _load(self):  # -> module; raises when unavailable
        return None

    def load(self):
        if not self._loaded:
            self._loaded = True
            try:
                self.module = self._load()
            except Exception as e:
                self.module, self.reason = None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
                self.importable = not isinstance(e, ImportError)
        return self.module

    def unavailable(self) -> str | None:
        """None when the backend can run, else the text of its n/a rows."""
        self.load()
        if self.reason is None:
            return None
        return f"n/a ({self.label} {'unavailable' if self.importable else 'not importable'}: {self.reason})"

    def to_device(self, args: tuple) -> tuple:
        return args

    def sync(self, obj) -> None:
        pass

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return np.asarray(obj)

    def info(self) -> dict:
        return {}


class NumbaExtBackend(Backend):
    name = label = "numba_ext"

    def _load(self):
        if isinstance(nx, Missing):
            raise ImportError(nx.reason)
        nx.default_queue()  # the device named by NUMBA_EXT_DEVICE (or the default) must exist
        return nx

    def to_device(self, args):
        dev = tuple(nx.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def sync(self, obj):
        for o in walk(obj):
            q = getattr(o, "sycl_queue", None)
            if q is not None:
                q.wait()

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return nx.asnumpy(obj) if isinstance(obj, nx.ndarray) else np.asarray(obj)

    def info(self):
        dev = nx.default_queue().device
        return {
            "version": nx.__version__,
            "device": dev.name,
            "filter_string": dev.filter_string,
            "vendor": dev.vendor,
            "driver_version": dev.driver_version,
            "max_compute_units": dev.max_compute_units,
            "target": str(dev.target),
        }


class DpnpBackend(NumbaExtBackend):
    """dpnp arrays on dpctl's default device (the Intel OpenCL CPU device with ``setup_dpnp_env.sh``)."""

    name = label = "dpnp"

    def _load(self):
        import dpctl  # noqa: F401
        import dpnp

        return dpnp

    def to_device(self, args):
        dev = tuple(self.module.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return self.module.asnumpy(obj) if hasattr(obj, "sycl_queue") else np.asarray(obj)

    def info(self):
        import dpctl

        dev = dpctl.select_default_device()
        return {
            "version": self.module.__version__,
            "dpctl": dpctl.__version__,
            "device": dev.name,
            "filter_string": dev.filter_string,
            "driver_version": dev.driver_version,
            "max_compute_units": dev.max_compute_units,
        }


class CupyBackend(Backend):
    name = label = "cupy"

    def _load(self):
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        return cupy

    def to_device(self, args):
        dev = tuple(self.module.asarray(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def sync(self, obj):
        self.module.cuda.Device().synchronize()

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return self.module.asnumpy(obj)

    def info(self):
        cp = self.module
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        return {
            "version": cp.__version__,
            "device": props["name"].decode(),
            "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
            "driver": cp.cuda.runtime.driverGetVersion(),
        }


class NumbaCudaBackend(Backend):
    name = label = "numba_cuda"

    def _load(self):
        import warnings

        if not hasattr(np, "row_stack"):
            # COMPATIBILITY SHIM (benchmarks only, never in numba_ext): numba-cuda refers to
            # np.row_stack, an alias of np.vstack that NumPy 2.5 removed, so `from numba import cuda`
            # fails with AttributeError under NumPy >= 2.5. Restoring the alias before the import is
            # all it needs; it is reported in the backend info and in the note of every numba_cuda
            # result, so numbers taken with it are marked.
            np.row_stack = np.vstack
            self.shims.append(
                f"np.row_stack = np.vstack (NumPy {np.__version__} has no row_stack; numba-cuda refers to it)"
            )
        from numba import cuda

        warnings.filterwarnings(
            "ignore", message=".*Grid size .* will likely result in GPU under-utilization"
        )
        if not cuda.is_available():
            raise RuntimeError("no CUDA device: numba.cuda.is_available() is False")
        return cuda

    def to_device(self, args):
        dev = tuple(self.module.to_device(a) if isinstance(a, np.ndarray) else a for a in args)
        self.sync(dev)
        return dev

    def sync(self, obj):
        self.module.synchronize()

    def to_host(self, obj):
        if isinstance(obj, (tuple, list)):
            return tuple(self.to_host(o) for o in obj)
        return obj.copy_to_host() if hasattr(obj, "copy_to_host") else np.asarray(obj)

    def info(self):
        dev = self.module.get_current_device()
        try:
            from importlib.metadata import version

            ver = version("numba-cuda")
        except Exception:
            ver = None
        info = {
            "version": ver,
            "device": dev.name.decode() if isinstance(dev.name, bytes) else dev.name,
            "compute_capability": list(dev.compute_capability),
        }
        if self.shims:
            info["shims"] = list(self.shims)
        return info


BACKENDS = {
    b.name: b for b in (Backend(), NumbaExtBackend(), DpnpBackend(), CupyBackend(), NumbaCudaBackend())
}


def backend_module(name: str):
    """The imported module of a backend (raises when unavailable); for ``make`` factories."""
    b = BACKENDS[name]
    if b.load() is None:
        raise ImportError(b.reason)
    return b.module


# -- device helpers (numba_ext; kept for callers of the previous API) -----------------------------


def to_device(args: tuple) -> tuple:
    return BACKENDS["numba_ext"].to_device(args)


def sync(obj) -> None:
    BACKENDS["numba_ext"].sync(obj)


def to_host(obj):
    return BACKENDS["numba_ext"].to_host(obj)
