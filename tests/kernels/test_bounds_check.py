"""Indexing in kernels as in Numba: negative indices wrap (read and write, 1-d and 2-d, views,
local and private arrays; unsigned indices do not), and ``boundscheck=True`` (on ``kernel`` or
``func``) or ``NUMBA_BOUNDSCHECK`` turns on checks that skip an access out of bounds and raise
IndexError after the launch, naming the kernel, the array, the index and the extent."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import kernel_api as kapi
from tests.checks import check, poison


# -- negative indices wrap ----------------------------------------------------------------------
@nx.kernel
def shifted_read(a, c, k):
    i = nx.get_global_id(0)
    c[i] = a[i - k]  # negative for i < k: counts from the end


@nx.kernel
def shifted_write(a, c, k):
    i = nx.get_global_id(0)
    c[i - k] = a[i]


@nx.kernel
def last_elements(a, c):
    i = nx.get_global_id(0)
    c[i] = a[-1] + a[-2]
    c[-1] = a[-3]


@pytest.mark.parametrize("k", [1, 5, 37])
def test_negative_index_read_and_write_wrap_1d(rng, k):
    n = 40
    h = rng.standard_normal(n)
    a = nx.asarray(h)
    poison(n, "float64")
    c = nx.empty(n)
    shifted_read[n](a, c, k)
    check(c, np.roll(h, k))
    c = nx.empty(n)
    shifted_write[n](a, c, k)
    check(c, np.roll(h, -k))


def test_constant_negative_indices(rng):
    h = rng.standard_normal(16)
    c = nx.empty(16)
    last_elements[15](nx.asarray(h), c)  # the last work-item's c[-1] is written by every one
    want = np.full(16, h[-1] + h[-2])
    want[-1] = h[-3]
    check(c, want)


@nx.kernel
def wrap_2d(a, c, k):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    c[i - k, j] = a[i, -1 - j] * 2.0 + a[-i - 1, j - k]


def test_negative_index_wrap_2d(rng):
    h = rng.standard_normal((6, 9))
    c = nx.empty((6, 9))
    wrap_2d[nx.Range(6, 9)](nx.asarray(h), c, 2)
    want = np.empty_like(h)
    for i in range(6):
        for j in range(9):
            want[i - 2, j] = h[i, -1 - j] * 2.0 + h[-i - 1, j - 2]
    check(c, want)


@nx.kernel
def wrap_views(a, c, k):
    i = nx.get_global_id(0)
    row = a[i]  # a view: its own indices wrap by its own length
    tail = a[i, 3:]
    c[i, 0] = row[-1 - k]
    c[i, 1] = tail[k - 2]
    c[i, 2] = a[i - k][k - 4]


def test_negative_index_wrap_in_views(rng):
    h = rng.standard_normal((5, 10))
    c = nx.empty((5, 3))
    wrap_views[5](nx.asarray(h), c, 1)
    want = np.stack([h[:, -2], h[:, 3:][:, -1], np.roll(h, 1, axis=0)[:, -3]], axis=1)
    check(c, want)


@nx.kernel
def wrap_private_and_local(a, c, k):
    i = nx.get_global_id(0)
    li = nx.get_local_id(0)
    p = nx.private.array(4, np.float64)
    s = nx.local.array(8, np.float64)
    for j in range(4):
        p[j] = a[i] + j
    s[li] = a[i]
    nx.barrier(nx.LOCAL_MEM_FENCE)
    c[i] = p[-k] + s[li - k]


def test_negative_index_wrap_private_and_local_arrays(rng):
    h = rng.standard_normal(16)
    c = nx.empty(16)
    wrap_private_and_local[16, 8](nx.asarray(h), c, 1)
    g = h.reshape(2, 8)
    want = (h + 3) + np.roll(g, 1, axis=1).reshape(-1)
    check(c, want)


@nx.kernel
def unsigned_index(a, idx, c):
    i = nx.get_global_id(0)
    c[i] = a[idx[i]]


def test_unsigned_and_narrow_indices(rng):
    h = rng.standard_normal(50)
    for dt in ("uint8", "uint32", "int32", "int16"):
        lo = 0 if dt.startswith("u") else -50
        ix = rng.integers(lo, 50, 30).astype(dt)
        c = nx.empty(30)
        unsigned_index[30](nx.asarray(h), nx.asarray(ix), c)
        check(c, h[ix], dt)


def test_global_id_index_costs_nothing():
    """A kernel indexing with the global id compiles to the code it had before indices wrapped."""
    a, c = nx.empty(8), nx.empty(8)
    ir = shifted_read.inspect_llvm(a, c, 0)
    assert "select" in ir  # i - k may be negative

    @nx.kernel
    def plain(a, c):
        i = nx.get_global_id(0)
        c[i] = a[i] * 2.0

    ir = plain.inspect_llvm(a, c)
    assert "select" not in ir and "icmp" not in ir and "cmpxchg" not in ir, ir


# -- bounds checking ----------------------------------------------------------------------------
@nx.kernel(boundscheck=True)
def checked_read(a, c, k):
    i = nx.get_global_id(0)
    c[i] = a[i + k]


@nx.kernel(boundscheck=True)
def checked_write(c, k):
    i = nx.get_global_id(0)
    if i % 2 == 0:
        c[i] = 1.5
    else:
        c[i + k] = 2.5


def test_out_of_bounds_read_raises_and_skips(rng):
    n = 64
    h = rng.standard_normal(n)
    poison(n, "float64")
    c = nx.empty(n)
    with pytest.raises(IndexError) as e:
        checked_read[n](nx.asarray(h), c, 3)
    msg = str(e.value)
    assert "kernel checked_read" in msg and "'a'" in msg and "read" in msg, msg
    assert "for axis 0 with size 64" in msg and "index 6" in msg, msg  # 61..63 + 3: 64..66
    got = nx.asnumpy(c)
    np.testing.assert_array_equal(got[: n - 3], h[3:])  # in-bounds reads are exact
    np.testing.assert_array_equal(got[n - 3 :], 0.0)  # a skipped read gives 0


def test_out_of_bounds_write_raises_and_writes_nothing_else(rng):
    n = 64
    init = rng.standard_normal(n)
    c = nx.asarray(init)
    with pytest.raises(
        IndexError, match=r"kernel checked_write: index \d+ is out of bounds for axis 0 with size 64"
    ):
        checked_write[n](c, n)
    want = init.copy()
    want[::2] = 1.5  # the odd elements keep their values: their writes went out of bounds
    check(c, want)


def test_in_bounds_results_identical_with_and_without_checks(rng):
    n = 97
    h = rng.standard_normal(n + 5)
    c1, c2 = nx.empty(n), nx.empty(n)
    checked_read[n](nx.asarray(h), c1, 5)

    @nx.kernel
    def unchecked_read(a, c, k):
        i = nx.get_global_id(0)
        c[i] = a[i + k]

    unchecked_read[n](nx.asarray(h), c2, 5)
    np.testing.assert_array_equal(nx.asnumpy(c1), nx.asnumpy(c2))
    check(c1, h[5:])


def test_negative_index_past_the_start_is_reported_as_written(rng):
    h = rng.standard_normal(10)
    c = nx.empty(10)
    with pytest.raises(IndexError, match=r"index -(1[1-9]|20) is out of bounds for axis 0 with size 10"):
        checked_read[10](nx.asarray(h), c, -20)


@nx.kernel(boundscheck=True)
def checked_2d(a, c):
    i = nx.get_global_id(0)
    j = nx.get_global_id(1)
    c[i, j] = a[i, j + 1]


def test_2d_names_the_axis(rng):
    h = rng.standard_normal((4, 6))
    c = nx.empty((4, 6))
    with pytest.raises(
        IndexError, match=r"index 6 is out of bounds for axis 1 with size 6 \(read of argument 'a'\)"
    ):
        checked_2d[nx.Range(4, 6)](nx.asarray(h), c)
    got = nx.asnumpy(c)
    np.testing.assert_array_equal(got[:, :5], h[:, 1:])


@nx.kernel(boundscheck=True)
def checked_view_read(a, c, k):
    i = nx.get_global_id(0)
    w = a[2:9:2]  # 4 elements: a[2], a[4], a[6], a[8]
    c[i] = w[i + k]


@nx.kernel(boundscheck=True)
def checked_view_write_2d(a, c, k):
    i = nx.get_global_id(0)
    row = c[i, 1:4]  # 3 elements of a 6-element row
    row[i + k] = a[i]


def test_views_made_in_the_kernel_are_checked_against_their_own_extent(rng):
    h = rng.standard_normal(12)  # the view's base has room: only the view's extent is exceeded
    c = nx.asarray(np.full(4, -7.0))
    checked_view_read[4](nx.asarray(h), c, 0)
    check(c, h[2:9:2])
    c = nx.asarray(np.full(4, -7.0))
    with pytest.raises(
        IndexError,
        match=r"kernel checked_view_read: index [45] is out of bounds for axis 0 with size 4 "
        r"\(read of a view of argument 'a'\)",
    ):
        checked_view_read[4](nx.asarray(h), c, 1)
    got = nx.asnumpy(c)
    np.testing.assert_array_equal(got[:3], h[4:9:2])
    assert got[3] == 0.0  # the skipped read gives 0, not a[10]
    with pytest.raises(IndexError, match=r"index -(5|6|7|8) is out of bounds for axis 0 with size 4"):
        checked_view_read[4](nx.asarray(h), c, -8)  # wrapped once by the view's length: still < 0


def test_writes_through_a_view_are_checked_and_skipped(rng):
    h = rng.standard_normal(4)
    init = rng.standard_normal((4, 6))
    c = nx.asarray(init)
    with pytest.raises(
        IndexError,
        match=r"index [3-6] is out of bounds for axis 0 with size 3 \(write of a view of argument 'c'\)",
    ):
        checked_view_write_2d[4](nx.asarray(h), c, 0)  # work-item 3 writes row[3]
    want = init.copy()
    for i in range(3):
        want[i, 1 + i] = h[i]  # work-item 3's write (c[3, 4], inside the row) was skipped
    check(c, want)


@nx.kernel
def unchecked_view_read(a, c, k):
    i = nx.get_global_id(0)
    w = a[2:9:2]
    c[i] = w[i + k]


def test_view_indices_unchecked_without_boundscheck(rng):
    h = rng.standard_normal(12)
    c = nx.empty(4)
    unchecked_view_read[4](nx.asarray(h), c, 1)  # w[4] is a[10]: inside the base, as Numba reads it
    check(c, h[4:11:2])


@nx.kernel(boundscheck=True)
def checked_atomic_and_local(acc, c, k):
    i = nx.get_global_id(0)
    li = nx.get_local_id(0)
    s = nx.local.array(4, np.float64)
    nx.atomic.add(acc, i + k, 1)
    s[li + k] = 1.0
    c[i] = 1.0


def test_atomic_and_local_array_accesses_are_checked():
    acc, c = nx.zeros(8, dtype=np.int64), nx.zeros(4)
    with pytest.raises(IndexError, match=r"(atomic of argument 'acc'|write of local array)"):
        checked_atomic_and_local[4, 4](acc, c, 6)
    got = nx.asnumpy(acc)
    np.testing.assert_array_equal(got, [0] * 6 + [1, 1])
    check(c, np.ones(4))


@nx.func(boundscheck=True)
def read_at(a, i):
    return a[i]


@nx.kernel
def calls_checked_func(a, c, k):
    i = nx.get_global_id(0)
    c[i] = read_at(a, i + k)


def test_device_function_boundscheck_checks_its_kernels(rng):
    h = rng.standard_normal(8)
    c = nx.empty(8)
    with pytest.raises(IndexError, match="kernel calls_checked_func.*size 8"):
        calls_checked_func[8](nx.asarray(h), c, 1)
    check(nx.asarray(nx.asnumpy(c)[:7]), h[1:])


def test_async_launch_raises_on_wait(rng):
    h = rng.standard_normal(16)
    c = nx.empty(16)
    ev, _ = nx.call_kernel_async(checked_read, 16, [], nx.asarray(h), c, 1)
    with pytest.raises(IndexError, match="kernel checked_read"):
        ev.wait()
    ev, _ = nx.call_kernel_async(checked_read, 15, [], nx.asarray(h), c, 1)
    ev.wait()
    check(nx.asarray(nx.asnumpy(c)[:15]), h[1:])


def test_item_style_kernel_is_checked(rng):
    @nx.kernel(boundscheck=True)
    def item_read(item: kapi.Item, a, c):
        i = item.get_id(0)
        c[i] = a[i + 2]

    h = rng.standard_normal(10)
    c = nx.empty(10)
    with pytest.raises(IndexError, match=r"kernel item_read: index 1[01] is out of bounds"):
        nx.call_kernel(item_read, kapi.Range(10), nx.asarray(h), c)
    np.testing.assert_array_equal(nx.asnumpy(c)[:8], h[2:])


def test_checked_kernel_ir_has_the_record():
    a, c = nx.empty(8), nx.empty(8)
    assert "cmpxchg" in checked_read.inspect_llvm(a, c, 0)


# -- the environment variable and the cases that used to crash: in a child process ------------------
_CHILD = """
import numpy as np, numba_ext as nx
h = np.arange(64.0)

@nx.kernel
def k(a, c, m):
    i = nx.get_global_id(0)
    c[i + m] = a[i]

@nx.kernel(boundscheck=True)
def explicit(a, c, m):
    i = nx.get_global_id(0)
    c[i + m] = a[i]

c = nx.zeros(64)
k[64](nx.asarray(h), c, -64)  # c[-64 + i]: wraps, in bounds
assert (nx.asnumpy(c) == h).all()
for kern in (k, explicit):
    checked = "cmpxchg" in kern.inspect_llvm(nx.asarray(h), c, 0)
    print(kern.__name__, "checked" if checked else "unchecked")
    if checked:  # unchecked, the launch below would write past the array
        try:
            kern[64](nx.asarray(h), nx.zeros(64), 64)
            print(kern.__name__, "no error")
        except IndexError as e:
            print(kern.__name__, "IndexError", e)
"""


def _child(env_value):
    env = dict(os.environ)
    env.pop("NUMBA_BOUNDSCHECK", None)
    if env_value is not None:
        env["NUMBA_BOUNDSCHECK"] = env_value
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CHILD)], capture_output=True, text=True, env=env, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_numba_boundscheck_env_turns_checks_on():
    out = _child("1")
    # every work-item writes out of bounds (c[i + 64]); which one is recorded first depends on the
    # device's scheduling
    found = re.search(
        r"k IndexError kernel k: index (\d+) is out of bounds for axis 0 with size 64 "
        r"\(write of argument 'c'\)",
        out,
    )
    assert found and 64 <= int(found.group(1)) < 128, out
    assert "explicit IndexError" in out


def test_without_the_env_only_the_option_checks():
    out = _child(None)
    assert "k unchecked" in out and "explicit checked" in out and "explicit IndexError" in out, out


def test_numba_boundscheck_env_zero_overrides_the_option():
    out = _child("0")
    assert "k unchecked" in out and "explicit unchecked" in out, out  # as in Numba
