"""Server-side scan planning over HTTP, in the catalog's routes and error model:

    POST   .../namespaces/{ns}/tables/{table}/plan            planTableScan
    GET    .../namespaces/{ns}/tables/{table}/plan/{plan-id}  fetchPlanningResult
    DELETE .../namespaces/{ns}/tables/{table}/plan/{plan-id}  cancelPlanning
    POST   .../namespaces/{ns}/tables/{table}/tasks           fetchScanTasks

Planning reads what loading the table reveals (its files), so every one of them needs what loadTable
needs: s3tables:GetTable on the table. A plan belongs to the caller that made it. A completed plan
carries storage credentials when the client asks for vended credentials: read-only, for the table's
location, whatever else the caller may do.
"""

from __future__ import annotations

from ...iam import TABLE
from ..scan_planning import FETCH_SCAN_TASKS, PLAN_TABLE_SCAN, Owner, PlanAnswer
from ..vending import wants_vended_credentials
from .handlers import CatalogHandler, split_namespace

LOAD_TABLE = "s3tables:GetTable"


class PlanningHandler(CatalogHandler):
    async def authorized_owner(self, warehouse: str, joined_namespace: str, table: str) -> Owner:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry(LOAD_TABLE, warehouse, namespace, table, TABLE)
        return Owner(self.access_key, warehouse, tuple(namespace), table)

    async def reply_plan(self, answer: PlanAnswer, owner: Owner) -> None:
        if answer.status == "completed" and wants_vended_credentials(self.request.headers):
            location = await self.table_location(owner)
            credentials = self.vendor.storage_credentials(self.access_key, location, writable=False) if location else []
            if credentials:
                answer = answer.with_fields(**{"storage-credentials": credentials})
        self.finish(answer.encoded())

    async def table_location(self, owner: Owner) -> str:
        result = await self.load_table(owner.warehouse, list(owner.namespace), owner.table, snapshots="refs")
        return result.body["metadata"].get("location", "")


class PlanHandler(PlanningHandler):
    async def post(self, warehouse: str, joined_namespace: str, table: str) -> None:
        body = self.json_body(PLAN_TABLE_SCAN)
        owner = await self.authorized_owner(warehouse, joined_namespace, table)
        await self.reply_plan(await self.call(self.catalog.scan_planning.plan, owner, body), owner)


class PlanResultHandler(PlanningHandler):
    async def get(self, warehouse: str, joined_namespace: str, table: str, plan_id: str) -> None:
        owner = await self.authorized_owner(warehouse, joined_namespace, table)
        await self.reply_plan(await self.call(self.catalog.scan_planning.result, owner, plan_id), owner)

    async def delete(self, warehouse: str, joined_namespace: str, table: str, plan_id: str) -> None:
        owner = await self.authorized_owner(warehouse, joined_namespace, table)
        self.catalog.scan_planning.cancel(owner, plan_id)
        self.reply(None, 204)


class TasksHandler(PlanningHandler):
    async def post(self, warehouse: str, joined_namespace: str, table: str) -> None:
        body = self.json_body(FETCH_SCAN_TASKS)
        owner = await self.authorized_owner(warehouse, joined_namespace, table)
        self.finish(self.catalog.scan_planning.tasks(owner, body["plan-task"]).encoded())


def routes(services) -> list:
    """URL specs; they must come before the catalog's catch-all for unknown endpoints."""
    table = r"/_iceberg/v1/(?P<warehouse>[^/]+)/namespaces/(?P<joined_namespace>[^/]+)/tables/(?P<table>[^/]+)"
    kwargs = {"services": services}
    return [
        (table + "/plan", PlanHandler, kwargs),
        (table + "/plan/(?P<plan_id>[^/]+)", PlanResultHandler, kwargs),
        (table + "/tasks", TasksHandler, kwargs),
    ]
