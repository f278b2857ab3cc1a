"""What the catalog workloads share: the rows they write, how a catalog's outcome is recorded, and the
catalogs taking turns so that noise from the rest of the machine falls on all of them alike."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pyarrow as pa
from peers import OURS
from pyiceberg.table import Table

# A figure that does not apply to a catalog (a REST client against SqlCatalog): shown as "n/a", not an error.
NOT_APPLICABLE = "n/a"

# A catalog's figures from one workload, or why it has none (an error, or NOT_APPLICABLE).
Outcome = dict[str, float] | str


class WrongResult(Exception):
    """A catalog returned a table that does not hold what was committed."""


def batch(rows: int, first_id: int = 0) -> pa.Table:
    """``rows`` rows of the benchmark tables' schema (``id`` long, ``name`` string), ids from ``first_id``."""
    ids = range(first_id, first_id + rows)
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": pa.array([f"row-{i}" for i in ids], pa.string()),
    })


def total_records(table: Table) -> int:
    snapshot = table.current_snapshot()
    return int(snapshot.summary["total-records"]) if snapshot and snapshot.summary else 0


def failure(exc: BaseException) -> str:
    return f"error: {type(exc).__name__}: {exc}"


def take_turns(operations: dict[str, Callable[[], object]], count: int) -> dict[str, list[float] | str]:
    """Run every catalog's operation ``count`` times, the catalogs taking turns, so that noise from
    the rest of the machine falls on all of them alike; per catalog the seconds of each run, or
    the error that stopped it."""
    seconds: dict[str, list[float] | str] = {name: [] for name in operations}
    for _ in range(count):
        for name, operation in operations.items():
            if isinstance(seconds[name], str):
                continue
            start = time.perf_counter()
            try:
                operation()
            except Exception as exc:  # noqa: BLE001 - record it, go on with the other catalogs
                seconds[name] = failure(exc)
                continue
            seconds[name].append(time.perf_counter() - start)
    return seconds


def json_report(settings: dict, env: dict, catalogs: list, failures: dict, figures: list, results: dict,
                samples: dict, ratio: dict, peers: list[str], **more) -> str:
    """What a catalog benchmark writes with ``--json``: every figure, sample and ratio, and where it ran."""
    return json.dumps({
        "settings": settings,
        "environment": env,
        "catalogs": {c.name: {"version": c.version, "where": c.where} for c in catalogs},
        **more,
        "failures": failures,
        "figures": {f.key: {"label": f.label, "unit": f.unit, "higher_is_better": f.higher_is_better}
                    for f in figures},
        "results": results,
        "samples": samples,
        "ratios": {f"{OURS} vs {peer}": {key: r[peer] for key, r in ratio.items() if peer in r} for peer in peers},
    }, indent=2) + "\n"
