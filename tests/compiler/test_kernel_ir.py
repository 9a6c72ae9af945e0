"""The kernel IR handed to the Rust compiler (numba_ext/ir/kernel_ir.py): the versions of both
sides agree, builders produce typed objects, and Rust refuses malformed ones with clear errors."""

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

from numba_ext import _core
from numba_ext.compiler.function_builder import FunctionBuilder, const
from numba_ext.compiler.kernelspec import SpecBuilder
from numba_ext.devices import device_by_filter
from numba_ext.errors import KernelSpecError
from numba_ext.ir import kernel_ir as kir

from ..conftest import DEV


def _axpy() -> kir.KernelSpec:
    b = SpecBuilder(1)
    x = b.node(kir.Load("float64", b.array_param("x", "float64", 1, True)))
    a = b.node(kir.ScalarArg("float64", b.scalar_param("a", "float64")))
    y = b.node(kir.Load("float32", b.array_param("y", "float32", 1, False)))
    v = b.node(
        kir.Binary(
            "float64", "add", b.node(kir.Binary("float64", "mul", a, x)), b.cast(y, "float32", "float64")
        )
    )
    b.node(kir.Store("float64", b.array_param("out", "float64", 1, True), v))
    return b.spec()


def _copy_function() -> kir.Function:
    fb = FunctionBuilder("copy")
    src = fb.array_param("src", "int32", 1, True)
    dst = fb.array_param("dst", "int32", 1, True)
    i, v = fb.new_local("int64"), fb.new_local("int32")
    entry = fb.new_block()
    fb.emit(
        entry,
        kir.WorkItem(i, "get_global_id", 0),
        kir.LoadInst(v, src, (kir.Local(i),)),
        kir.StoreInst(dst, (kir.Local(i),), kir.Local(v)),
    )
    fb.terminate(entry, kir.Return())
    return fb.function()


def test_versions_agree():
    assert kir.KERNEL_IR_VERSION == _core.KERNEL_IR_VERSION
    assert _axpy().version == _copy_function().version == kir.KERNEL_IR_VERSION


def test_builders_produce_typed_objects():
    spec = _axpy()
    assert [type(p) for p in spec.params] == [kir.ArrayParam, kir.ScalarParam, kir.ArrayParam, kir.ArrayParam]
    assert isinstance(spec.nodes[-1], kir.Store) and spec.name.startswith("nx_k")
    b = SpecBuilder(1)
    assert b.const("int64", 3) == b.const("int64", 3)  # hash-consed
    assert b.nodes == [kir.Const("int64", 3)]
    assert const("bool", 1) == kir.Imm("bool", True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.name = "other"  # type: ignore[misc]


def test_spec_compiles_to_llvm_ir():
    ir = _core.kernel_llvm_ir(_axpy(), "spirv")
    assert "fmul" in ir and "fadd" in ir


def test_function_compiles():
    k = _core.compile_function(_copy_function(), device_by_filter(DEV))
    assert k.name == "copy"


def test_version_mismatch_names_both_versions():
    old = dataclasses.replace(_axpy(), version=kir.KERNEL_IR_VERSION + 1)
    with pytest.raises(
        ValueError, match=rf"version {kir.KERNEL_IR_VERSION + 1}.*version {kir.KERNEL_IR_VERSION}"
    ):
        _core.kernel_llvm_ir(old, "spirv")
    f = dataclasses.replace(_copy_function(), version=0)
    with pytest.raises(ValueError, match="version mismatch"):
        _core.compile_function(f, device_by_filter(DEV))


def test_wrong_top_level_objects():
    with pytest.raises(ValueError, match="expected a KernelSpec, got dict"):
        _core.kernel_llvm_ir({"name": "k", "ndim": 1, "params": [], "nodes": []}, "spirv")
    with pytest.raises(ValueError, match="expected a Function, got KernelSpec"):
        _core.compile_function(_axpy(), device_by_filter(DEV))


@dataclass(frozen=True)
class _Strange:
    tag: ClassVar[str] = "strange"
    dtype: str = "float64"


@dataclass(frozen=True)
class _Untagged:
    dtype: str = "float64"


@dataclass(frozen=True)
class _LoadWithoutParam:
    tag: ClassVar[str] = "load"
    dtype: str = "float64"


@pytest.mark.parametrize(
    "node, message",
    [
        (_Strange(), "unknown node _Strange .tag 'strange'."),
        (_Untagged(), "_Untagged is not a kernel IR object"),
        (_LoadWithoutParam(), "_LoadWithoutParam has no field 'param'"),
        (kir.Load("float64", -1), "field 'param' of Load"),
        (kir.Unary("float64", "sqrt", "zero"), "field 'arg' of Unary"),
    ],
)
def test_malformed_nodes(node, message):
    spec = _axpy()
    bad = dataclasses.replace(spec, nodes=(*spec.nodes[:-1], node))
    with pytest.raises(ValueError, match=f"malformed kernel IR: {message}"):
        _core.kernel_llvm_ir(bad, "spirv")


def test_malformed_function():
    f = _copy_function()
    block = f.blocks[0]
    bad = dataclasses.replace(
        f, blocks=(dataclasses.replace(block, insts=(*block.insts, kir.Load("int32", 0))),)
    )
    with pytest.raises(ValueError, match="Load has no field 'dst'"):
        _core.compile_function(bad, device_by_filter(DEV))
    bad = dataclasses.replace(f, blocks=(dataclasses.replace(block, term=kir.Const("int64", 0)),))
    with pytest.raises(ValueError, match="unknown terminator Const"):
        _core.compile_function(bad, device_by_filter(DEV))
    bad = dataclasses.replace(f, arrays=(dataclasses.replace(f.arrays[0], space="shared"),))
    with pytest.raises(ValueError, match="unknown memory space 'shared'"):
        _core.compile_function(bad, device_by_filter(DEV))


def test_unsupported_dtype_and_operation():
    spec = _axpy()
    with pytest.raises(KernelSpecError, match="unsupported dtype 'bfloat16'"):
        _core.kernel_llvm_ir(dataclasses.replace(spec, params=(kir.ScalarParam("a", "bfloat16"),)), "spirv")
    bad = dataclasses.replace(spec, nodes=(*spec.nodes[:-1], kir.Unary("float64", "gamma", 0)))
    with pytest.raises(KernelSpecError, match="unsupported unary operation 'gamma'"):
        _core.kernel_llvm_ir(bad, "spirv")
