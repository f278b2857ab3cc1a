"""The panel's search over everything the service holds: warehouses, their namespaces (all levels),
tables and views; shares and their tables; buckets. The service has no search of its own, so this
walks it, a few catalog calls at a time, within a budget of calls and of time; an answer cut short
says so (``complete: false``). Names match case-insensitively anywhere; exact names come first,
then names that start with the text, then the rest."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from ..client import AIStorClient, AIStorError
from ..objects import ObjectClient
from . import BadRequest

MAX_CALLS = 300  # service calls one search may make
TIME_BUDGET = 8.0  # seconds
MAX_RESULTS = 200
_THREADS = 4
_KIND_ORDER = ["warehouse", "namespace", "table", "view", "share", "shared-table", "bucket"]


def _rank(query: str, name: str, label: str) -> int | None:
    """0 an exact name, 1 a name starting with the text, 2 the text in the name, 3 in the label
    (a namespace's parents, a table's namespace); None: no match."""
    name, label = name.lower(), label.lower()
    if name == query:
        return 0
    if name.startswith(query):
        return 1
    if query in name:
        return 2
    return 3 if query in label else None


class _Walk:
    """One search: the calls in flight, the matches found, and whether anything was left out."""

    def __init__(self, client: AIStorClient, objects: ObjectClient, query: str, max_calls: int, budget: float):
        self.client, self.objects, self.query = client, objects, query.lower()
        self.calls_left = max_calls
        self.deadline = time.monotonic() + budget
        self.complete = True
        self.found: list[tuple[int, int, str, dict]] = []
        self.pending: dict[Future, Callable[[Any], None]] = {}
        self.pool = ThreadPoolExecutor(_THREADS)

    def match(self, kind: str, name: str, label: str, **where: str) -> None:
        rank = _rank(self.query, name, label)
        if rank is not None:
            self.found.append((rank, _KIND_ORDER.index(kind), label.lower(), {"kind": kind, "label": label, **where}))

    def ask(self, then: Callable[[Any], None], call: Callable, *args: Any) -> None:
        if self.calls_left <= 0:
            self.complete = False
            return
        self.calls_left -= 1
        self.pending[self.pool.submit(call, *args)] = then

    def run(self) -> None:
        try:
            while self.pending:
                left = self.deadline - time.monotonic()
                done, _ = wait(self.pending, timeout=max(left, 0), return_when=FIRST_COMPLETED)
                if not done:
                    self.complete = False
                    return
                for future in done:
                    then = self.pending.pop(future)
                    try:
                        result = future.result()
                    except AIStorError:  # a part the caller may not see, or that went away meanwhile
                        self.complete = False
                        continue
                    then(result)
        finally:
            self.pool.shutdown(wait=False, cancel_futures=True)

    # -- the catalog --------------------------------------------------------------------------

    def warehouses(self, names: list[str]) -> None:
        for warehouse in names:
            self.match("warehouse", warehouse, warehouse, warehouse=warehouse)
            self.ask(lambda levels, w=warehouse: self.namespaces(w, levels), self.client.list_namespaces, warehouse)

    def namespaces(self, warehouse: str, namespaces: list[list[str]]) -> None:
        for levels in namespaces:
            dotted = ".".join(levels)
            self.match("namespace", levels[-1], f"{warehouse}.{dotted}", warehouse=warehouse, namespace=dotted)
            self.ask(lambda found, w=warehouse: self.namespaces(w, found), self.client.list_namespaces, warehouse,
                     levels)
            self.ask(lambda names, w=warehouse, n=dotted: self.entries("table", w, n, names), self.client.list_tables,
                     warehouse, levels)
            self.ask(lambda names, w=warehouse, n=dotted: self.entries("view", w, n, names), self.client.list_views,
                     warehouse, levels)

    def entries(self, kind: str, warehouse: str, namespace: str, names: list[str]) -> None:
        for name in names:
            self.match(kind, name, f"{warehouse}.{namespace}.{name}", warehouse=warehouse, namespace=namespace,
                       **{kind: name})

    # -- shares and buckets -------------------------------------------------------------------

    def shares(self, shares: list[dict]) -> None:
        for share in shares:
            self.match("share", share["name"], share["name"], share=share["name"])
            if share.get("tables"):
                self.ask(self.share_tables, self.client.get_share, share["name"])

    def share_tables(self, info: dict) -> None:
        for schema in info.get("schemas") or []:
            for table in schema["tables"]:
                self.match("shared-table", table["name"], f"{info['name']}.{schema['name']}.{table['name']}",
                           share=info["name"], schema=schema["name"], table=table["name"])

    def buckets(self, buckets: list[dict]) -> None:
        for bucket in buckets:
            self.match("bucket", bucket["Name"], bucket["Name"], bucket=bucket["Name"], path="")


def search(client: AIStorClient, objects: ObjectClient, query: str, limit: int = 50, *,
           max_calls: int = MAX_CALLS, budget: float = TIME_BUDGET) -> dict:
    """``{query, results: [{kind, label, warehouse?, namespace?, table?, view?, share?, schema?,
    bucket?, path?}], complete}``, the best ``limit`` matches first."""
    text = query.strip()
    if not text:
        raise BadRequest("nothing to search for: add ?q=TEXT")
    if not 1 <= limit <= MAX_RESULTS:
        raise BadRequest(f"limit must be from 1 to {MAX_RESULTS}")
    walk = _Walk(client, objects, text, max_calls, budget)
    walk.ask(walk.warehouses, client.list_warehouses)
    walk.ask(walk.shares, client.list_shares)
    walk.ask(walk.buckets, objects.buckets)
    walk.run()
    walk.found.sort(key=lambda found: found[:3])
    return {"query": text, "results": [result for *_, result in walk.found[:limit]], "complete": walk.complete}
