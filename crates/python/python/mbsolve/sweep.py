"""Parameter sweeps on a local process pool, a Dask cluster or a Ray cluster.

Every variant is shipped as plain text — the dataset, the command file and
its list of changes — and run by `run_variant`, so a worker needs only the
mbsolve wheel, never a pickled Rust object."""

from __future__ import annotations

import multiprocessing
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from . import _core
from .model import Model, Result, format_value

# Summary columns of every variant (besides the parameters), in order. Wall
# clock is left out so that tables from different engines compare equal.
SUMMARY = ["status", "frames", "t_end", "steps", "rejected_steps", "jacobian_evaluations", "error"]


def run_variant(spec: Dict[str, Any]) -> Dict[str, Any]:
    """Run one variant from its text; never raises for a model problem.
    Status: "ok", "failed" (the run stopped; partial frames kept) or
    "invalid" (the changed model cannot be read or assembled)."""
    try:
        d = _core.run(spec)
    except (_core.ModelError, ValueError) as e:
        return {"status": "invalid", "error": str(e), "columns": [], "rows": 0, "data": b"",
                "log": [], "stats": [], "reports": [], "dof": 0}
    d["status"] = "ok" if d["error"] is None else "failed"
    return d


@dataclass
class SweepResult:
    """`rows`: one dict per variant (parameters, then SUMMARY columns);
    `results`: each variant's Result (partial for a failed one, empty for
    an invalid one); `table`: the rows as a pandas DataFrame."""

    keys: List[str]
    rows: List[Dict[str, Any]]
    results: List[Result]

    @property
    def table(self):
        import pandas as pd

        return pd.DataFrame(self.rows, columns=["variant"] + self.keys + SUMMARY)

    def failed(self) -> List[Dict[str, Any]]:
        return [r for r in self.rows if r["status"] != "ok"]


def _summary(i: int, values: Dict[str, str], d: Dict[str, Any]) -> "tuple[Dict[str, Any], Result]":
    res = Result.from_core(d) if d["status"] != "invalid" else Result(columns=[], data=np.zeros((0, 0)), error=d["error"])
    stats = d["stats"]
    row: Dict[str, Any] = {"variant": i}
    row.update(values)
    row.update({
        "status": d["status"],
        "frames": int(res.data.shape[0]),
        "t_end": float(res.data[-1, 0]) if res.data.shape[0] else float("nan"),
        "steps": int(sum(s["steps"] for s in stats)),
        "rejected_steps": int(sum(s["rejected_steps"] for s in stats)),
        "jacobian_evaluations": int(sum(s["jacobian_evaluations"] for s in stats)),
        "error": d["error"] or "",
    })
    return row, res


def sweep(model: Model, params: Mapping[str, Sequence[Any]], engine: str = "local",
          mode: str = "product", workers: Optional[int] = None, client: Any = None,
          address: Optional[str] = None) -> SweepResult:
    """Run `model` once per variant of `params` ({"PART/2.MASS": [1, 2],
    "SFORCE/1.FUNCTION": ["...", "..."]}): every combination (mode="product",
    the first key varying slowest) or the lists side by side (mode="zip").

    engine="local": a process pool of `workers` processes (default: CPUs).
    engine="dask": `client`, else a Client on `address`, else the current
    default client (distributed.get_client()).
    engine="ray": the running Ray instance, else ray.init(address=address).
    Keys and values are checked before anything is submitted (ValueError)."""
    keys = list(params)
    table = [(k, [format_value(v) for v in params[k]]) for k in keys]
    variants = _core.variants(table, mode)
    specs = [model.spec(v) for v in variants]
    if engine == "local":
        outs = _local(specs, workers)
    elif engine == "dask":
        outs = _dask(specs, client, address)
    elif engine == "ray":
        outs = _ray(specs, address)
    else:
        raise ValueError(f"engine {engine!r}: expected 'local', 'dask' or 'ray'")
    rows, results = [], []
    for i, (v, d) in enumerate(zip(variants, outs)):
        values = {f"{e}.{a}": val for (e, a, val) in v}
        row, res = _summary(i, values, d)
        rows.append(row)
        results.append(res)
    return SweepResult(keys=[f"{e}.{a}" for (e, a, _) in variants[0]], rows=rows, results=results)


def _local(specs: List[Dict[str, Any]], workers: Optional[int]) -> List[Dict[str, Any]]:
    from concurrent.futures import ProcessPoolExecutor

    n = workers or os.cpu_count() or 1
    if n < 1:
        raise ValueError(f"workers = {n}: need at least one")
    if n == 1:
        return [run_variant(s) for s in specs]
    # fork where the platform has it: workers then need no importable
    # __main__, so a plain script (no `if __name__ == "__main__"`) works.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(max_workers=min(n, len(specs)), mp_context=ctx) as pool:
        return list(pool.map(run_variant, specs))


def _dask(specs, client, address):
    try:
        import distributed
    except ImportError as e:
        raise ImportError("engine='dask' needs dask[distributed]: pip install 'dask[distributed]'") from e
    if client is None:
        client = distributed.Client(address) if address else distributed.get_client()
    futures = client.map(run_variant, specs, pure=False)
    return client.gather(futures)


def _ray(specs, address):
    try:
        import ray
    except ImportError as e:
        raise ImportError("engine='ray' needs ray: pip install ray") from e
    if not ray.is_initialized():
        ray.init(address=address)
    remote = ray.remote(run_variant)
    return ray.get([remote.remote(s) for s in specs])
