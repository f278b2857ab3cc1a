"""The planning operations of the REST spec, each taking the spec's JSON and answering it as a
PlanAnswer (answers.py):

- ``plan`` (planTableScan): the plan runs on the planning threads; when it is done within
  ``wait_s`` the answer is ``completed`` with the first page of file scan tasks and a plan-task token
  for every other page, else ``submitted`` with a plan id to poll;
- ``result`` (fetchPlanningResult) and ``cancel`` (cancelPlanning) of a plan id;
- ``tasks`` (fetchScanTasks): one page by its plan-task token, from the plan this server holds or
  planned again from the token's recipe (tokens.py), so that any server in front of the store
  answers it.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from cachetools import LRUCache
from pyiceberg.table.metadata import TableMetadata, TableMetadataUtil

from ..context import CatalogContext
from ..errors import IcebergError, ServiceFailureException
from ..maintenance.service_catalog import StoreFileIO
from ..table_metadata import normalize, serialize
from ..tables import Tables
from .answers import PlanAnswer
from .manifest_cache import ManifestCache
from .planner import plan_files
from .plans import NoSuchPlanTaskException, Owner, Plans, new_plan_id
from .request import ScanRequest, parse_request, resolve
from .tokens import TaskToken, encode_recipe, parse_task_token, task_token
from .wire import TaskEncoder

log = logging.getLogger(__name__)
PAGE_TASKS = 1_000  # file scan tasks per page: one answer stays a few hundred KiB
WAIT_S = 20.0
PLANNING_THREADS = 2


class ScanPlanning:
    def __init__(self, ctx: CatalogContext, tables: Tables, *, wait_s: float = WAIT_S,
                 page_tasks: int = PAGE_TASKS, plans: Plans | None = None):
        self._ctx = ctx
        self._tables = tables
        self._io = StoreFileIO(ctx.store)
        self.manifests = ManifestCache(self._io)
        self.plans = plans or Plans()
        self._wait_s = wait_s
        self._page_tasks = page_tasks
        self._metadata: LRUCache = LRUCache(maxsize=32)  # parsed metadata by location: it never changes
        self._metadata_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=PLANNING_THREADS, thread_name_prefix="scan-planning")

    def plan(self, owner: Owner, body: dict) -> PlanAnswer:
        """PlanTableScanResult (CompletedPlanningWithIDResult or AsyncPlanningResult)."""
        request = parse_request(body)
        location, metadata = self._load(owner)
        scan = resolve(request, metadata)  # a bad request fails here, before any planning
        recipe = encode_recipe(location, body)
        future = self._pool.submit(self._pages, owner, metadata, scan)
        try:
            pages = future.result(timeout=self._wait_s)
        except FutureTimeout:
            plan_id = self.plans.add(owner, future=future, recipe=recipe)
            future.add_done_callback(lambda done: self._settle(plan_id, done))
            return PlanAnswer({"status": "submitted", "plan-id": plan_id})
        except IcebergError:
            raise
        except Exception as exc:  # the spec's answer to a plan that fails is a "failed" status
            log.exception("scan planning failed for %s", owner)
            return _failed(exc)
        plan_id = self.plans.add(owner, pages=pages, recipe=recipe) if len(pages) > 1 else new_plan_id()
        return self._completed(plan_id, pages, recipe)

    def result(self, owner: Owner, plan_id: str) -> PlanAnswer:
        """FetchPlanningResult of a plan id."""
        plan = self.plans.get(plan_id, owner)
        future = plan.future
        if future is not None:
            if not future.done():
                return PlanAnswer({"status": "submitted"})
            if future.cancelled():
                return PlanAnswer({"status": "cancelled"})
            if (error := future.exception()) is not None:
                return _failed(error)
            self.plans.complete(plan_id, future.result())
        return self._completed(plan_id, plan.pages, plan.recipe)

    def cancel(self, owner: Owner, plan_id: str) -> None:
        self.plans.remove(plan_id, owner)

    def tasks(self, owner: Owner, plan_task: str) -> PlanAnswer:
        """FetchScanTasksResult of one plan-task token: from the plan held, else planned again."""
        token = parse_task_token(plan_task)
        try:
            return PlanAnswer({}, self.plans.page(token.plan_id, token.page, owner))
        except NoSuchPlanTaskException:
            pages = self._replan(owner, token)
        if not 0 < token.page < len(pages):
            raise NoSuchPlanTaskException(f"No such plan task: page {token.page} of {token.plan_id}")
        recipe = encode_recipe(token.metadata_location, token.request)
        self.plans.add(owner, pages=pages, plan_id=token.plan_id, recipe=recipe)  # the next pages from memory
        return PlanAnswer({}, pages[token.page])

    def _pages(self, owner: Owner, metadata: TableMetadata, scan: ScanRequest) -> list[str]:
        """The plan's pages of file scan tasks, each encoded once."""
        check_location = self._ctx.location_checker(owner.warehouse)
        tasks = plan_files(metadata, self._io, scan, self.manifests, check_location)
        encoder = TaskEncoder(metadata, scan.schema, scan.stats_field_ids)
        size = self._page_tasks
        return [json.dumps(encoder.page(tasks[start:start + size])) for start in range(0, max(len(tasks), 1), size)]

    def _replan(self, owner: Owner, token: TaskToken) -> list[str]:
        """The pages of a plan another server made (or this one let go), from its token's recipe: the
        same version of the table, the same request, so the same pages. The version must be the
        table's, current or in its metadata log."""
        current = self._tables.load(owner.warehouse, list(owner.namespace), owner.table).body
        versions = {current["metadata-location"]}
        versions.update(entry.get("metadata-file") for entry in current["metadata"].get("metadata-log", ()))
        if token.metadata_location not in versions:
            raise NoSuchPlanTaskException(f"No such plan task: page {token.page} of {token.plan_id}")
        metadata = self._parsed(token.metadata_location, lambda: self._read_version(owner, token.metadata_location))
        return self._pages(owner, metadata, resolve(parse_request(token.request), metadata))

    def _read_version(self, owner: Owner, location: str) -> dict:
        self._ctx.location_checker(owner.warehouse)(location)
        return serialize(normalize(self._ctx.files.read_json_or_fail(location)))

    def _completed(self, plan_id: str, pages: list[str], recipe: str) -> PlanAnswer:
        fields: dict = {"status": "completed", "plan-id": plan_id}
        if len(pages) > 1:
            fields["plan-tasks"] = [task_token(plan_id, number, recipe) for number in range(1, len(pages))]
        return PlanAnswer(fields, pages[0])

    def _settle(self, plan_id: str, future) -> None:
        if not future.cancelled() and future.exception() is None:
            self.plans.complete(plan_id, future.result())

    def _load(self, owner: Owner) -> tuple[str, TableMetadata]:
        """The table's current metadata location and its parsed metadata."""
        result = self._tables.load(owner.warehouse, list(owner.namespace), owner.table)
        location = result.body["metadata-location"]
        return location, self._parsed(location, lambda: result.body["metadata"])

    def _parsed(self, location: str, metadata: Callable[[], dict]) -> TableMetadata:
        """A version's metadata as PyIceberg's model, parsed once: a metadata file never changes."""
        with self._metadata_lock:
            parsed = self._metadata.get(location)
        if parsed is None:
            parsed = TableMetadataUtil.parse_obj(metadata())
            with self._metadata_lock:
                self._metadata[location] = parsed
        return parsed


def _failed(exc: BaseException) -> PlanAnswer:
    error = exc if isinstance(exc, IcebergError) else ServiceFailureException(f"Scan planning failed: {exc}")
    return PlanAnswer({"status": "failed", **error.to_json()})


