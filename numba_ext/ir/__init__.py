"""The kernel IR: the typed structure every compiled kernel crosses into Rust in (``kernel_ir``), the
builder of its dataflow form with NumPy's ufunc semantics (``spec_builder``, with the ufuncs that are
several nodes in ``ufunc_compose`` and complex arithmetic in ``complex_lowering``), NumPy's loop
selection as Numba makes it (``numba_loops``), and reductions along an axis: NumPy's result dtypes
and their kernel in the control-flow form (``reductions``).

May import: ``numba_ext.errors`` and NumPy. Never Numba: the eager library and jitted array-expression
functions build kernels through it without loading Numba.
"""
