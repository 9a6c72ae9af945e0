"""Kernels shared by the kernel API tests: ``axpy`` (launch forms, arguments, errors, introspection)
and ``l2_norm_partial``, a work-group reduction in local memory (the l2-norm workload, introspection)."""

import numpy as np

import numba_ext as nx


@nx.kernel
def axpy(a, x, y):
    i = nx.get_global_id(0)
    y[i] = a * x[i] + y[i]


WG = 64


@nx.kernel
def l2_norm_partial(x, partial):
    # one work-group reduces WG rows' squared norms in local memory
    lid = nx.get_local_id(0)
    gid = nx.get_global_id(0)
    scratch = nx.local.array(64, np.float64)
    s = 0.0
    if gid < x.shape[0]:
        for k in range(x.shape[1]):
            s += x[gid, k] * x[gid, k]
    scratch[lid] = s
    nx.barrier(nx.LOCAL_MEM_FENCE)
    stride = 32
    while stride > 0:
        if lid < stride:
            scratch[lid] += scratch[lid + stride]
        nx.barrier(nx.LOCAL_MEM_FENCE)
        stride = stride // 2
    if lid == 0:
        partial[nx.get_group_id(0)] = scratch[0]
