"""Placement layer: the compute-follows-data rules.

Owns: queue equivalence and inference from the data, the USM type of results (precedence
device < shared < host), ``offload_to`` (an explicit queue for NumPy data) and the call planner
that applies these rules to the arguments of a call (jitted functions, kernels and eager
operations all use it).

May import: ``numba_ext.arrays``, ``numba_ext.devices``, ``numba_ext.errors`` and
``numba_ext._core``.
"""

from .calls import CallPlan, common_case_queue, plan_call
from .offload import current_offload_queue, offload_active, offload_to
from .rules import coerce_usm_types, common_queue, execution_queue

__all__ = [
    "CallPlan",
    "coerce_usm_types",
    "common_case_queue",
    "common_queue",
    "current_offload_queue",
    "execution_queue",
    "offload_active",
    "offload_to",
    "plan_call",
]
