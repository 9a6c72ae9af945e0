"""Black-Scholes at 2^22 options in every preset: the size of the performance goals (numba_ext jit
time <= numba parallel's, >= 10x faster than NumPy; see RESULTS.md), so that the default command
(preset S) reports them. The same sources and variants as ``black_scholes``; at most 5 timed samples
(a NumPy call takes about a second on the 2-core reference machine)."""

from workloads import black_scholes as bs

SIZES = {preset: {"n": 1 << 22} for preset in ("S", "M", "L")}
MAX_REPS = 5
BYTES = bs.BYTES
make_inputs = bs.make_inputs
reference = bs.reference
VARIANTS = bs.VARIANTS
