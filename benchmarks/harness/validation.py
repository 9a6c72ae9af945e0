"""Validation of a variant's result against the NumPy reference."""

from __future__ import annotations

import numpy as np

# Relative L2 error tolerances by result dtype (integer results must match exactly).
RTOL = {np.dtype("float64"): 1e-9, np.dtype("float32"): 1e-5}


def validate(got, ref) -> dict:
    """Relative L2 error per output component (float), exact match (integer); the worst counts."""
    got_t = got if isinstance(got, tuple) else (got,)
    ref_t = ref if isinstance(ref, tuple) else (ref,)
    if len(got_t) != len(ref_t):
        return {"passed": False, "error": None, "detail": f"{len(got_t)} outputs, expected {len(ref_t)}"}
    worst, passed, details = 0.0, True, []
    for i, (g, r) in enumerate(zip(got_t, ref_t)):
        g, r = np.asarray(g), np.asarray(r)
        if g.shape != r.shape:
            passed = False
            details.append(f"output {i}: shape {g.shape}, expected {r.shape}")
            continue
        if r.dtype.kind == "f":
            tol = RTOL.get(r.dtype, 1e-5)
            norm = float(np.linalg.norm(r.ravel()))
            err = float(np.linalg.norm((g.astype(r.dtype) - r).ravel())) / (norm if norm > 0 else 1.0)
            method = "rel_l2"
        else:
            tol, err, method = 0.0, float(np.mean(g != r)) if r.size else 0.0, "mismatch_fraction"
        ok = bool(np.isfinite(err) and err <= tol)
        passed &= ok
        worst = max(worst, err) if np.isfinite(err) else float("nan")
        details.append(f"output {i}: {method} {err:.2e} (tol {tol:g})")
    return {"passed": passed, "error": worst, "detail": "; ".join(details)}
