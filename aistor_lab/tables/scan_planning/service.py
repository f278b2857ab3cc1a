"""The planning operations of the REST spec, each taking the spec's JSON and answering it as a
PlanAnswer (answers.py):

- ``plan`` (planTableScan): the plan runs on the planning threads; when it is done within
  ``wait_s`` the answer is ``completed`` with the first page of file scan tasks and a plan-task token
  for every other page, else ``submitted`` with a plan id to poll;
- ``result`` (fetchPlanningResult) and ``cancel`` (cancelPlanning) of a plan id;
- ``tasks`` (fetchScanTasks): one page by its plan-task token.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from cachetools import LRUCache
from pyiceberg.table.metadata import TableMetadata, TableMetadataUtil

from ..context import CatalogContext
from ..errors import IcebergError, ServiceFailureException
from ..maintenance.service_catalog import StoreFileIO
from ..tables import Tables
from .answers import PlanAnswer
from .manifest_cache import ManifestCache
from .planner import plan_files
from .plans import Owner, Plans, task_token
from .request import parse_request, resolve
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
        metadata = self._load(owner)
        scan = resolve(request, metadata)  # a bad request fails here, before any planning
        check_location = self._ctx.location_checker(owner.warehouse)

        def run() -> list[str]:
            tasks = plan_files(metadata, self._io, scan, self.manifests, check_location)
            encoder = TaskEncoder(metadata, scan.schema, scan.stats_field_ids)
            size = self._page_tasks
            return [json.dumps(encoder.page(tasks[start:start + size]))
                    for start in range(0, max(len(tasks), 1), size)]

        future = self._pool.submit(run)
        try:
            pages = future.result(timeout=self._wait_s)
        except FutureTimeout:
            plan_id = self.plans.add(owner, future=future)
            future.add_done_callback(lambda done: self._settle(plan_id, done))
            return PlanAnswer({"status": "submitted", "plan-id": plan_id})
        except IcebergError:
            raise
        except Exception as exc:  # the spec's answer to a plan that fails is a "failed" status
            log.exception("scan planning failed for %s", owner)
            return _failed(exc)
        plan_id = self.plans.add(owner, pages=pages) if len(pages) > 1 else _one_off_id()
        return self._completed(plan_id, pages)

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
        return self._completed(plan_id, plan.pages)

    def cancel(self, owner: Owner, plan_id: str) -> None:
        self.plans.remove(plan_id, owner)

    def tasks(self, owner: Owner, plan_task: str) -> PlanAnswer:
        """FetchScanTasksResult of one plan-task token."""
        return PlanAnswer({}, self.plans.page(plan_task, owner))

    def _completed(self, plan_id: str, pages: list[str]) -> PlanAnswer:
        fields: dict = {"status": "completed", "plan-id": plan_id}
        if len(pages) > 1:
            fields["plan-tasks"] = [task_token(plan_id, number) for number in range(1, len(pages))]
        return PlanAnswer(fields, pages[0])

    def _settle(self, plan_id: str, future) -> None:
        if not future.cancelled() and future.exception() is None:
            self.plans.complete(plan_id, future.result())

    def _load(self, owner: Owner) -> TableMetadata:
        result = self._tables.load(owner.warehouse, list(owner.namespace), owner.table)
        location = result.body["metadata-location"]
        with self._metadata_lock:
            metadata = self._metadata.get(location)
        if metadata is None:
            metadata = TableMetadataUtil.parse_obj(result.body["metadata"])
            with self._metadata_lock:
                self._metadata[location] = metadata
        return metadata


def _failed(exc: BaseException) -> PlanAnswer:
    error = exc if isinstance(exc, IcebergError) else ServiceFailureException(f"Scan planning failed: {exc}")
    return PlanAnswer({"status": "failed", **error.to_json()})


def _one_off_id() -> str:
    """The spec wants a plan id in every completed answer; a plan answered whole holds nothing."""
    return secrets.token_urlsafe(18)
