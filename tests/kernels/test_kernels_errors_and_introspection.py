"""Errors before a launch (launch ranges, arguments, placement, local memory, unsupported constructs,
kernels that return a value) and introspection: the LLVM IR, the assembly and the device binary of
compiled kernels."""

import numpy as np
import pytest

import numba_ext as nx
from numba_ext import Context, Device, Queue

from ..conftest import DEV, check_device_binary
from .conftest import axpy, l2_norm_partial


# -- errors before launch --------------------------------------------------------------------------
def test_launch_errors(rng):
    x, y = nx.asarray(rng.standard_normal(64)), nx.asarray(rng.standard_normal(64))
    with pytest.raises(nx.LaunchError, match="launch range"):
        axpy(2.0, x, y)
    with pytest.raises(nx.KernelArgumentError, match="takes 3 arguments"):
        axpy[64](x, y)
    with pytest.raises(nx.KernelArgumentError, match="argument 'a' has type str"):
        axpy[64]("2", x, y)
    assert issubclass(nx.KernelArgumentError, TypeError)
    with pytest.raises(nx.LaunchError, match="does not divide"):
        axpy[64, 10](2.0, x, y)
    with pytest.raises(nx.LaunchError, match="different numbers of dimensions"):
        axpy[nx.NdRange((8, 8), (4,))](2.0, x, y)
    limit = Device(DEV).max_work_group_size
    with pytest.raises(nx.LaunchError, match="exceeds the limit"):
        axpy[limit * 2, limit * 2](2.0, nx.zeros(limit * 2), nx.zeros(limit * 2))
    with pytest.raises(nx.ExecutionPlacementError, match="no array argument"):
        nx.kernel(lambda s: None)[4](1.0)
    other = Queue(DEV, context=Context(Device(DEV)))
    with pytest.raises(nx.ExecutionPlacementError, match="'x'.*'y'"):
        axpy[64](2.0, x, nx.asarray(rng.standard_normal(64), sycl_queue=other))
    assert issubclass(nx.LaunchError, nx.NumbaExtError)


def test_kernel_returning_a_value_is_an_error(rng):
    @nx.kernel
    def bad(x):
        return x[0]

    with pytest.raises(nx.UnsupportedError, match="returns a value"):
        bad[1](nx.zeros(1))


def test_local_memory_limit():
    @nx.kernel
    def huge(x):
        buf = nx.local.array(100_000_000, np.float64)
        buf[0] = 1.0
        x[0] = buf[0]

    with pytest.raises(nx.LaunchError, match="bytes of local memory"):
        huge[1](nx.zeros(1))


def test_unsupported_construct_names_line():
    @nx.kernel
    def uses_print(x):
        print(x[0])

    with pytest.raises(nx.UnsupportedError, match="print"):
        uses_print[1](nx.zeros(1))


# -- introspection --------------------------------------------------------------------------------------
def test_inspect_llvm_and_asm(rng, tmp_path):
    x, y = nx.asarray(rng.standard_normal(8)), nx.asarray(rng.standard_normal(8))
    ir = axpy.inspect_llvm(2.0, x, y)
    asm = axpy.inspect_asm(2.0, x, y)
    if x.device.target == "spirv":
        assert "spir_kernel" in ir and "get_global_id" in ir
        assert "OpEntryPoint Kernel" in asm
    else:
        assert "ptx_kernel" in ir and "llvm.nvvm.read.ptx.sreg" in ir
        assert ".entry" in asm and "%ctaid.x" in asm
    for k, args in [(axpy, (2.0, x, y)), (l2_norm_partial, (nx.zeros((64, 3)), nx.zeros(1)))]:
        kern = k._compiled_for(args).kernel
        check_device_binary(kern.format, kern.binary, tmp_path)
