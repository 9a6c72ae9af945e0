"""Indexing in the loops of jitted functions as in Numba: negative indices wrap in ``prange`` bodies
(read and write, 1-d and 2-d, views), and ``jit(boundscheck=True)`` or ``NUMBA_BOUNDSCHECK=1`` checks
every access of the offloaded loops, skipping those out of bounds and raising IndexError (naming the
loop, the array, the index and the extent) after the loop."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numba import prange

import numba_ext as nx
from tests.checks import check, poison, sum_tol


@nx.jit
def roll_read(a, k):
    out = nx.empty_like(a)
    for i in prange(a.shape[0]):
        out[i] = a[i - k]
    return out


@nx.jit
def roll_write(a, out, k):
    for i in prange(a.shape[0]):
        out[i - k] = a[i]


@nx.jit
def rows_2d(a, k):
    out = nx.empty_like(a)
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            out[i - k, j] = a[-1 - i, j - k]
    return out


@nx.jit
def view_ends(a):
    out = nx.empty(a.shape[0], dtype=a.dtype)
    for i in prange(a.shape[0]):
        row = a[i]
        out[i] = row[-1] - row[i - a.shape[1]]
    return out


@pytest.mark.parametrize("k", [1, 7])
def test_prange_negative_indices_wrap(rng, k):
    h = rng.standard_normal(30)
    poison(30, "float64")
    check(roll_read(nx.asarray(h), k), np.roll(h, k))
    out = nx.empty(30)
    roll_write(nx.asarray(h), out, k)
    check(out, np.roll(h, -k))


def test_prange_negative_indices_wrap_2d_and_views(rng):
    h = rng.standard_normal((5, 8))
    want = np.empty_like(h)
    for i in range(5):
        for j in range(8):
            want[i - 2, j] = h[-1 - i, j - 2]
    check(rows_2d(nx.asarray(h), 2), want)
    check(view_ends(nx.asarray(h)), h[:, -1] - h[np.arange(5), np.arange(5) - 8])


@nx.jit(boundscheck=True)
def checked_shift(a, out, k):
    for i in prange(out.shape[0]):
        out[i] = a[i + k]


@nx.jit(boundscheck=True)
def checked_sum(a, k):
    s = 0.0
    for i in prange(a.shape[0]):
        s += a[i + k]
    return s


def test_jit_boundscheck_raises_and_skips(rng):
    h = rng.standard_normal(40)
    out = nx.asarray(np.full(40, -3.0))
    with pytest.raises(IndexError) as e:
        checked_shift(nx.asarray(h), out, 5)
    msg = str(e.value)
    assert "of checked_shift" in msg and "array 'a'" in msg and "for axis 0 with size 40" in msg, msg
    assert "prange loop at line" in msg and "read" in msg, msg
    got = nx.asnumpy(out)
    np.testing.assert_array_equal(got[:35], h[5:])
    np.testing.assert_array_equal(got[35:], 0.0)  # a skipped read gives 0


def test_jit_boundscheck_in_bounds_identical(rng):
    h = rng.standard_normal(50)
    out = nx.empty(45)
    checked_shift(nx.asarray(h), out, 5)
    check(out, h[5:])
    np.testing.assert_allclose(checked_sum(nx.asarray(h), 0), h.sum(), **sum_tol(h))
    with pytest.raises(IndexError, match="index 5[0-9] is out of bounds for axis 0 with size 50"):
        checked_sum(nx.asarray(h), 10)


def test_jit_boundscheck_array_expressions_unchanged(rng):
    @nx.jit(boundscheck=True)
    def expr(a, b):
        return np.sqrt(np.abs(a)) * b + 1.0

    h1, h2 = rng.standard_normal(33), rng.standard_normal(33)
    check(expr(nx.asarray(h1), nx.asarray(h2)), np.sqrt(np.abs(h1)) * h2 + 1.0)


_CHILD = """
import numpy as np, numba_ext as nx
from numba import prange

@nx.jit
def shift(a, out, k):
    for i in prange(out.shape[0]):
        out[i] = a[i + k]

out = nx.zeros(10)
try:
    shift(nx.arange(10.0), out, 3)
    print("no error")
except IndexError as e:
    print("IndexError", e)
print(nx.asnumpy(out)[:7].tolist() == list(range(3, 10)))
"""


def test_numba_boundscheck_env_checks_jitted_loops():
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1")
    r = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CHILD)], capture_output=True, text=True, env=env, timeout=300
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "IndexError prange loop at line" in r.stdout and "size 10 (read of array 'a')" in r.stdout, (
        r.stdout
    )
    assert r.stdout.strip().endswith("True"), r.stdout


@nx.jit(boundscheck=True)
def view_in_loop(a, k):
    out = nx.empty(a.shape[0], dtype=a.dtype)
    for i in prange(a.shape[0]):
        row = a[i, 1:4]  # 3 of the row's elements
        out[i] = row[k]
    return out


def test_jit_views_made_in_the_loop_are_checked(rng):
    h = rng.standard_normal((5, 7))
    check(view_in_loop(nx.asarray(h), 2), h[:, 3])
    check(view_in_loop(nx.asarray(h), -1), h[:, 3])
    with pytest.raises(
        IndexError, match=r"index 3 is out of bounds for axis 0 with size 3 \(read of a view of array 'a'\)"
    ):
        view_in_loop(nx.asarray(h), 3)  # row[3] is a[i, 4]: inside the row, outside the view
