"""Weighted pair counts (dpbench ``gpairs``): for every squared radius r2[k], the sum of w1[i] * w2[j]
over pairs of points (one from each set) with squared distance <= r2[k]. O(n^2) pairs.

``numba_parallel`` and ``numba_ext_prange`` run the same prange source: one iteration per point of the
first set fills its row of an (n, nbins + 1) histogram (linear bin search), then one iteration per bin
adds up the rows' counts up to that bin (cumulative). ``numba_ext_prange`` allocates with
``numba_ext.zeros``/``empty`` inside the jitted function (2 kernels). ``numba_ext_jit`` runs the NumPy
source under ``@numba_ext.jit`` with the histogram from ``numba_ext.zeros`` (``np.zeros`` in jitted code
makes a NumPy array): per block of pairs, broadcast differences, ``np.searchsorted`` (a binary search
per pair), ``np.bincount`` with weights (blocked partial counts, added up per bin), then
``np.cumsum``, all on the device.

``numba_ext_kernel`` is an explicit ``@numba_ext.kernel``, all on the device in one launch: one
work-item per point of the first set keeps a private histogram (the prange loop's linear bin search),
turns it into cumulative counts, the work-group sums those in local memory, and one work-item per bin
adds the group's sum into the result with a float64 atomic (one atomic per group and bin).
``numba_ext_kernel_item`` is that kernel in numba-dpex's item style (an ``NdItem`` argument, a
``LocalAccessor`` for the group's sums, a ``PrivateArray`` histogram, ``group_barrier``,
``AtomicRef.fetch_add``, ``call_kernel`` over an ``NdRange``).
``numba_cuda`` is the same kernel under ``numba.cuda.jit`` (shared memory, ``cuda.atomic.add``) and
``cupy_fused`` the same kernel in CUDA C++ as a ``cupy.RawKernel`` (``__shared__`` memory, ``atomicAdd``
on float64), compiled without FMA contraction (``--fmad=false``) so that the squared distances, and with
them the bins, are those of NumPy's arithmetic."""

import numba
import numpy as np
from harness import Variant, backend_module, eager_variant, kapi, namespace_variant, nx, with_globals

SIZES = {"S": {"n": 1024, "nbins": 20}, "M": {"n": 4096, "nbins": 20}, "L": {"n": 16384, "nbins": 20}}
CHUNK_PAIRS = 1 << 21  # pairs per NumPy block (bounds the temporaries)
WG = 64  # kernel work-group size
MAXBINS = 32  # capacity of the kernel's private and local histograms (nbins + 1 <= MAXBINS)


def make_inputs(rng, n, nbins):
    x1, y1, z1, x2, y2, z2 = (rng.random(n) for _ in range(6))
    w1, w2 = rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n)
    rbins_sq = np.logspace(np.log10(0.001), np.log10(0.5), nbins) ** 2
    return x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq


def gpairs(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    nbins = rbins_sq.shape[0]
    hist = np.zeros(nbins + 1)
    step = max(1, CHUNK_PAIRS // x2.shape[0])
    for i in range(0, x1.shape[0], step):
        s = slice(i, i + step)
        dx, dy, dz = x1[s, None] - x2, y1[s, None] - y2, z1[s, None] - z2
        dsq = dx * dx + dy * dy + dz * dz
        first = np.searchsorted(rbins_sq, dsq.ravel(), side="left")  # first bin with dsq <= r2
        hist += np.bincount(first, weights=(w1[s, None] * w2).ravel(), minlength=nbins + 1)
    return np.cumsum(hist)[:nbins]


reference = gpairs


def gpairs_array(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    # the NumPy source with the histogram from ``zeros`` (numba_ext_jit binds it to numba_ext.zeros)
    nbins = rbins_sq.shape[0]
    hist = zeros(nbins + 1)
    step = max(1, CHUNK_PAIRS // x2.shape[0])
    for i in range(0, x1.shape[0], step):
        s = slice(i, i + step)
        dx, dy, dz = x1[s, None] - x2, y1[s, None] - y2, z1[s, None] - z2
        dsq = dx * dx + dy * dy + dz * dz
        first = np.searchsorted(rbins_sq, dsq.ravel(), side="left")  # first bin with dsq <= r2
        hist += np.bincount(first, weights=(w1[s, None] * w2).ravel(), minlength=nbins + 1)
    return np.cumsum(hist)[:nbins]


zeros, empty = np.zeros, np.empty  # numba_ext_prange binds these to numba_ext.zeros/empty


def _gpairs_prange(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    n1 = x1.shape[0]
    n2 = x2.shape[0]
    nbins = rbins_sq.shape[0]
    rows = zeros((n1, nbins + 1))
    for i in numba.prange(n1):
        for j in range(n2):
            dx = x1[i] - x2[j]
            dy = y1[i] - y2[j]
            dz = z1[i] - z2[j]
            dsq = dx * dx + dy * dy + dz * dz
            k = 0
            while k < nbins and rbins_sq[k] < dsq:
                k += 1
            rows[i, k] += w1[i] * w2[j]
    hist = empty(nbins)
    for b in numba.prange(nbins):  # cumulative: pairs with dsq <= rbins_sq[b]
        s = 0.0
        for i in range(n1):
            for m in range(b + 1):
                s += rows[i, m]
        hist[b] = s
    return hist


gpairs_prange = numba.njit(parallel=True)(_gpairs_prange)


@nx.kernel
def _gpairs_kernel(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist):
    i = nx.get_global_id(0)
    lid = nx.get_local_id(0)
    nbins = rbins_sq.shape[0]
    part = nx.local.array((WG, MAXBINS), np.float64)
    h = nx.private.array(MAXBINS, np.float64)
    for b in range(nbins + 1):
        h[b] = 0.0
    if i < x1.shape[0]:
        px = x1[i]
        py = y1[i]
        pz = z1[i]
        pw = w1[i]
        for j in range(x2.shape[0]):
            dx = px - x2[j]
            dy = py - y2[j]
            dz = pz - z2[j]
            dsq = dx * dx + dy * dy + dz * dz
            k = 0
            while k < nbins and rbins_sq[k] < dsq:
                k += 1
            h[k] += pw * w2[j]
    acc = 0.0
    for b in range(nbins):  # cumulative: pairs with dsq <= rbins_sq[b]
        acc += h[b]
        part[lid, b] = acc
    nx.barrier(nx.LOCAL_MEM_FENCE)
    if lid < nbins:
        t = 0.0
        for m in range(WG):
            t += part[m, lid]
        nx.atomic.add(hist, lid, t)


def gpairs_kernel(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    nbins = rbins_sq.shape[0]
    if nbins + 1 > MAXBINS or nbins > WG:
        raise ValueError(f"gpairs kernel: nbins {nbins} exceeds MAXBINS - 1 = {MAXBINS - 1} or WG = {WG}")
    hist = nx.zeros(nbins, dtype=x1.dtype, sycl_queue=x1.sycl_queue)
    groups = (x1.shape[0] + WG - 1) // WG
    _gpairs_kernel[groups * WG, WG](x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist)
    return hist


@nx.kernel
def _gpairs_item(it: kapi.NdItem, x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist, part):
    # _gpairs_kernel with the group's cumulative counts in `part`, a (WG, MAXBINS) LocalAccessor
    i = it.get_global_id(0)
    lid = it.get_local_id(0)
    nbins = rbins_sq.shape[0]
    h = kapi.PrivateArray(MAXBINS, np.float64)
    for b in range(nbins + 1):
        h[b] = 0.0
    if i < x1.shape[0]:
        px = x1[i]
        py = y1[i]
        pz = z1[i]
        pw = w1[i]
        for j in range(x2.shape[0]):
            dx = px - x2[j]
            dy = py - y2[j]
            dz = pz - z2[j]
            dsq = dx * dx + dy * dy + dz * dz
            k = 0
            while k < nbins and rbins_sq[k] < dsq:
                k += 1
            h[k] += pw * w2[j]
    acc = 0.0
    for b in range(nbins):  # cumulative: pairs with dsq <= rbins_sq[b]
        acc += h[b]
        part[lid, b] = acc
    kapi.group_barrier(it.get_group())
    if lid < nbins:
        t = 0.0
        for m in range(WG):
            t += part[m, lid]
        kapi.AtomicRef(hist, index=lid).fetch_add(t)


def gpairs_kernel_item(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
    nbins = rbins_sq.shape[0]
    if nbins + 1 > MAXBINS or nbins > WG:
        raise ValueError(f"gpairs kernel: nbins {nbins} exceeds MAXBINS - 1 = {MAXBINS - 1} or WG = {WG}")
    hist = nx.zeros(nbins, dtype=x1.dtype, sycl_queue=x1.sycl_queue)
    groups = (x1.shape[0] + WG - 1) // WG
    part = kapi.LocalAccessor((WG, MAXBINS), np.float64)
    nx.call_kernel(
        _gpairs_item, kapi.NdRange(groups * WG, WG), x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist, part
    )
    return hist


def make_cuda(*args):
    cuda = backend_module("numba_cuda")

    @cuda.jit
    def kern(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist):
        i = cuda.grid(1)
        lid = cuda.threadIdx.x
        nbins = rbins_sq.shape[0]
        part = cuda.shared.array((WG, MAXBINS), numba.float64)
        h = cuda.local.array(MAXBINS, numba.float64)
        for b in range(nbins + 1):
            h[b] = 0.0
        if i < x1.shape[0]:
            px = x1[i]
            py = y1[i]
            pz = z1[i]
            pw = w1[i]
            for j in range(x2.shape[0]):
                dx = px - x2[j]
                dy = py - y2[j]
                dz = pz - z2[j]
                dsq = dx * dx + dy * dy + dz * dz
                k = 0
                while k < nbins and rbins_sq[k] < dsq:
                    k += 1
                h[k] += pw * w2[j]
        acc = 0.0
        for b in range(nbins):
            acc += h[b]
            part[lid, b] = acc
        cuda.syncthreads()
        if lid < nbins:
            t = 0.0
            for m in range(WG):
                t += part[m, lid]
            cuda.atomic.add(hist, lid, t)

    def run(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
        nbins = rbins_sq.shape[0]
        if nbins + 1 > MAXBINS or nbins > WG:
            raise ValueError(f"gpairs kernel: nbins {nbins} exceeds MAXBINS - 1 = {MAXBINS - 1} or WG = {WG}")
        hist = cuda.to_device(np.zeros(nbins))
        kern[(x1.shape[0] + WG - 1) // WG, WG](x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq, hist)
        return hist

    return run


_CUPY_SOURCE = r"""
extern "C" __global__ void numba_ext_bench_gpairs(
    const double* x1, const double* y1, const double* z1, const double* w1,
    const double* x2, const double* y2, const double* z2, const double* w2,
    const double* rbins_sq, double* hist, const long long n1, const long long n2, const int nbins)
{
    __shared__ double part[WG][MAXBINS];
    double h[MAXBINS];
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int lid = threadIdx.x;
    for (int b = 0; b <= nbins; ++b) h[b] = 0.0;
    if (i < n1) {
        const double px = x1[i], py = y1[i], pz = z1[i], pw = w1[i];
        for (long long j = 0; j < n2; ++j) {
            const double dx = px - x2[j];
            const double dy = py - y2[j];
            const double dz = pz - z2[j];
            const double dsq = dx * dx + dy * dy + dz * dz;
            int k = 0;
            while (k < nbins && rbins_sq[k] < dsq) ++k;
            h[k] += pw * w2[j];
        }
    }
    double acc = 0.0;
    for (int b = 0; b < nbins; ++b) {  /* cumulative: pairs with dsq <= rbins_sq[b] */
        acc += h[b];
        part[lid][b] = acc;
    }
    __syncthreads();
    if (lid < nbins) {
        double t = 0.0;
        for (int m = 0; m < WG; ++m) t += part[m][lid];
        atomicAdd(&hist[lid], t);
    }
}
"""


def make_cupy_fused(*args):
    cp = backend_module("cupy")
    source = f"#define WG {WG}\n#define MAXBINS {MAXBINS}\n" + _CUPY_SOURCE
    kern = cp.RawKernel(source, "numba_ext_bench_gpairs", options=("--fmad=false",))

    def run(x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq):
        nbins = rbins_sq.shape[0]
        if nbins + 1 > MAXBINS or nbins > WG:
            raise ValueError(f"gpairs kernel: nbins {nbins} exceeds MAXBINS - 1 = {MAXBINS - 1} or WG = {WG}")
        arrays = [
            cp.ascontiguousarray(a, dtype=cp.float64) for a in (x1, y1, z1, w1, x2, y2, z2, w2, rbins_sq)
        ]
        hist = cp.zeros(nbins, dtype=cp.float64)
        n1, n2 = x1.shape[0], x2.shape[0]
        kern(((n1 + WG - 1) // WG,), (WG,), (*arrays, hist, np.int64(n1), np.int64(n2), np.int32(nbins)))
        return hist

    return run


VARIANTS = [
    Variant("numpy", gpairs),
    eager_variant(
        with_globals(gpairs_array, zeros=nx.zeros),
        note="the NumPy source, histogram from numba_ext.zeros; each NumPy call (searchsorted, bincount) "
        "an eager operation",
    ),
    Variant("numba_parallel", gpairs_prange),
    Variant(
        "numba_ext_jit",
        nx.jit(with_globals(gpairs_array, zeros=nx.zeros)),
        backend="numba_ext",
        note="the NumPy source, histogram from numba_ext.zeros; searchsorted, bincount, cumsum on the device",
    ),
    Variant(
        "numba_ext_prange",
        nx.jit(with_globals(_gpairs_prange, zeros=nx.zeros, empty=nx.empty)),
        backend="numba_ext",
    ),
    Variant("numba_ext_kernel", gpairs_kernel, backend="numba_ext"),
    Variant(
        "numba_ext_kernel_item",
        gpairs_kernel_item,
        backend="numba_ext",
        note="the numba_ext_kernel algorithm in item style: LocalAccessor, PrivateArray, AtomicRef, NdRange",
    ),
    namespace_variant("dpnp", gpairs, "dpnp"),
    namespace_variant("cupy", gpairs, "cupy"),
    Variant(
        "cupy_fused",
        backend="cupy",
        make=make_cupy_fused,
        note="the numba_ext_kernel algorithm as a cupy.RawKernel (--fmad=false), 64 threads per block",
    ),
    Variant(
        "numba_cuda",
        backend="numba_cuda",
        make=make_cuda,
        note="the numba_ext_kernel algorithm under numba.cuda.jit, 64 threads per block",
    ),
]
