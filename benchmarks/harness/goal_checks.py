"""The goals of the suite, each ``met``, ``not met`` or ``not measured`` with the numbers used, as text
and as Markdown."""

from __future__ import annotations

from .report import status_text

BS_GOAL_N = 1 << 22
ITEM_LIMIT = 1.05  # item-style kernels: at most this times the OpenCL-style kernels' median time


def _find(records, workload, variant, size=None):
    for r in records:
        if r["workload"] == workload and r["variant"] == variant and (size is None or r["size"] == size):
            return r
    return None


def _ok(r):
    return r is not None and r["status"] == "ok"


def goals(records: list[dict]) -> list[dict]:
    """The issue's goals, each ``met``, ``not met`` or ``not measured`` (with the numbers used)."""
    size = f"n={BS_GOAL_N}"
    # black_scholes_goal runs 2^22 options in every preset; black_scholes does at preset M
    wl = "black_scholes_goal" if _find(records, "black_scholes_goal", "numpy", size) else "black_scholes"
    return [
        _bs_goal(
            records,
            wl,
            "Black-Scholes 2^22: numba_ext jit time <= 1.0x numba parallel",
            (lambda r: r <= 1.0, lambda r: f"{r:.2f}x numba parallel's time"),
            "numba_parallel",
        ),
        _bs_goal(
            records,
            wl,
            "Black-Scholes 2^22: numba_ext jit >= 10x faster than NumPy",
            (lambda r: r <= 0.1, lambda r: f"{1 / r:.2f}x faster than NumPy"),
            "numpy",
        ),
        _overhead_goal(
            records,
            "cached jit call (16 elements) <= 1.5x a bare OpenCL enqueue+wait",
            "bare_launch",
            1.5,
            lambda r: f"{r:.2f}x the bare launch",
        ),
        _overhead_goal(
            records,
            "cached jit call (16 elements) <= 1/4 of dpnp's a + b",
            "dpnp",
            0.25,
            lambda r: f"{r:.2f}x dpnp's time (goal <= 0.25x)",
        ),
        *_item_goals(records),
    ]


def _bs_goal(records, wl, goal, test, what) -> dict:
    """numba_ext_jit against ``what`` on Black-Scholes at n=2^22 (workload ``wl``): ``test`` is
    (met?, text) of the ratio of their median times."""
    size = f"n={BS_GOAL_N}"
    nxv = [v for v in ("numba_ext_jit", "numba_ext_prange", "numba_ext_kernel", "numba_ext_kernel_item")]
    jit = _find(records, wl, "numba_ext_jit", size)
    peer = _find(records, wl, what, size)
    others = [r for r in (_find(records, wl, v, size) for v in nxv) if _ok(r)]
    if not (_ok(jit) and _ok(peer)):
        why = (
            "Black-Scholes at n=2^22 was not run (workload black_scholes_goal, or black_scholes at preset M)"
            if jit is None and peer is None
            else f"{wl} at n=2^22: "
            + "; ".join(
                f"{name}: {status_text(r) if r else 'not run'}"
                for name, r in (("numba_ext_jit", jit), (what, peer))
                if not _ok(r)
            )
        )
        return {"goal": goal, "status": "not measured", "detail": why}
    ratio = jit["median_ms"] / peer["median_ms"]
    detail = (
        f"numba_ext_jit {jit['median_ms']:.4g} ms, {what} {peer['median_ms']:.4g} ms: "
        + test[1](ratio)
        + "; other numba_ext variants: "
        + ", ".join(
            f"{r['variant']} {r['median_ms']:.4g} ms ({test[1](r['median_ms'] / peer['median_ms'])})"
            for r in others
            if r is not jit
        )
    )
    return {"goal": goal, "status": "met" if test[0](ratio) else "not met", "detail": detail}


def _overhead_goal(records, goal, peer_name, limit, fmt) -> dict:
    """A cached numba_ext_jit call of the call_overhead workload against ``peer_name``: met when the
    ratio of their median times is at most ``limit`` (``fmt`` writes the ratio)."""
    jit, peer = (
        _find(records, "call_overhead", "numba_ext_jit"),
        _find(records, "call_overhead", peer_name),
    )
    if not (_ok(jit) and _ok(peer)):
        why = "; ".join(
            f"{name}: {status_text(r) if r else 'not run'}"
            for name, r in (("numba_ext_jit", jit), (peer_name, peer))
            if not _ok(r)
        )
        return {"goal": goal, "status": "not measured", "detail": f"call_overhead {why}"}
    ratio = jit["median_ms"] / peer["median_ms"]
    return {
        "goal": goal,
        "status": "met" if ratio <= limit else "not met",
        "detail": f"cached numba_ext_jit call {jit['median_ms'] * 1e3:.3g} us, {peer_name} "
        f"{peer['median_ms'] * 1e3:.3g} us: {fmt(ratio)}",
    }


def _item_goals(records) -> list[dict]:
    """Per workload (and size) where either ran: the item-style kernel variant
    (``numba_ext_kernel_item``) against the OpenCL-style one (``numba_ext_kernel``), met when the ratio
    of their median times is at most ITEM_LIMIT."""
    goal = f"item-style kernels within {ITEM_LIMIT - 1:.0%} of the OpenCL style"
    runs = dict.fromkeys(
        (r["workload"], r["size"])
        for r in records
        if r["variant"] in ("numba_ext_kernel", "numba_ext_kernel_item") and r["status"] != "n/a"
    )
    if not runs:
        return [{"goal": goal, "status": "not measured", "detail": "no numba_ext_kernel(_item) variant ran"}]
    out = []
    for wl, size in runs:
        cl = _find(records, wl, "numba_ext_kernel", size)
        item = _find(records, wl, "numba_ext_kernel_item", size)
        g = f"{wl} ({size}): {goal}"
        if not (_ok(cl) and _ok(item)):
            why = "; ".join(
                f"{name}: {status_text(r) if r else 'not run'}"
                for name, r in (("numba_ext_kernel", cl), ("numba_ext_kernel_item", item))
                if not _ok(r)
            )
            out.append({"goal": g, "status": "not measured", "detail": why})
            continue
        ratio = item["median_ms"] / cl["median_ms"]
        out.append(
            {
                "goal": g,
                "status": "met" if ratio <= ITEM_LIMIT else "not met",
                "detail": f"numba_ext_kernel_item {item['median_ms']:.4g} ms, numba_ext_kernel "
                f"{cl['median_ms']:.4g} ms: {ratio:.3f}x (goal <= {ITEM_LIMIT}x; best samples "
                f"{item['min_ms'] / cl['min_ms']:.3f}x)",
            }
        )
    return out


def goals_text(gs: list[dict]) -> str:
    return "\n".join(f"  [{g['status']:>12}] {g['goal']}: {g['detail']}" for g in gs)


def goals_markdown(gs: list[dict]) -> str:
    lines = ["| goal | status | numbers |", "|---|---|---|"]
    lines += [f"| {g['goal']} | **{g['status']}** | {g['detail']} |" for g in gs]
    return "\n".join(lines)
