"""Table maintenance over HTTP, beside the catalog it belongs to (AIStor Tables' maintenance
configuration and job status, in this catalog's routes and error model):

    GET  /_iceberg/v1/warehouses/{warehouse}/maintenance        the warehouse's configuration
                                                  s3tables:GetWarehouseMaintenanceConfiguration
    PUT  (same)  {"settings": {name: value or null}}            set or remove warehouse settings
                                                  s3tables:PutWarehouseMaintenanceConfiguration
    GET  /_iceberg/v1/{warehouse}/namespaces/{ns}/tables/{table}/maintenance
         each setting's value and source, the table's health, its last run
                                                  s3tables:GetTableMaintenanceConfiguration
    PUT  (same)  {"settings": {...}}              the table's overrides (table properties)
                                                  s3tables:PutTableMaintenanceConfiguration
    POST .../maintenance/runs  {"operations": [...], "dry-run": true|false}
         a dry run (GetTableMaintenanceConfiguration) or a run (PutTableMaintenanceConfiguration)
    GET  .../maintenance/runs  the table's run history   s3tables:GetTableMaintenanceJobStatus

Runs happen on the thread pool; a run that changes the table answers when it is done.
"""

from __future__ import annotations

from ...iam import TABLE, warehouse_arn
from .. import bodies
from .handlers import CatalogHandler, split_namespace

GET_WAREHOUSE = "s3tables:GetWarehouseMaintenanceConfiguration"
PUT_WAREHOUSE = "s3tables:PutWarehouseMaintenanceConfiguration"
GET_TABLE = "s3tables:GetTableMaintenanceConfiguration"
PUT_TABLE = "s3tables:PutTableMaintenanceConfiguration"
JOB_STATUS = "s3tables:GetTableMaintenanceJobStatus"


class WarehouseMaintenanceHandler(CatalogHandler):
    SUPPORTED_METHODS = ("GET", "PUT")

    async def get(self, warehouse: str) -> None:
        self.authorize(GET_WAREHOUSE, warehouse_arn(warehouse))
        self.reply(await self.call(self.services.maintenance.warehouse_settings, warehouse))

    async def put(self, warehouse: str) -> None:
        body = self.json_body(bodies.MAINTENANCE_SETTINGS)
        self.authorize(PUT_WAREHOUSE, warehouse_arn(warehouse))
        self.reply(await self.call(self.services.maintenance.set_warehouse_settings, warehouse, body["settings"]))


class TableMaintenanceHandler(CatalogHandler):
    SUPPORTED_METHODS = ("GET", "PUT")

    async def get(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry(GET_TABLE, warehouse, namespace, table, TABLE)
        self.reply(await self.call(self.services.maintenance.table_settings, warehouse, namespace, table))

    async def put(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.MAINTENANCE_SETTINGS)
        await self.authorize_entry(PUT_TABLE, warehouse, namespace, table, TABLE)
        self.reply(await self.call(self.services.maintenance.set_table_settings, warehouse, namespace, table,
                                   body["settings"]))


class MaintenanceRunsHandler(CatalogHandler):
    SUPPORTED_METHODS = ("GET", "POST")

    async def get(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        await self.authorize_entry(JOB_STATUS, warehouse, namespace, table, TABLE)
        self.reply(await self.call(self.services.maintenance.history, warehouse, namespace, table))

    async def post(self, warehouse: str, joined_namespace: str, table: str) -> None:
        namespace = split_namespace(joined_namespace)
        body = self.json_body(bodies.MAINTENANCE_RUN)
        dry_run = bool(body.get("dry-run"))
        await self.authorize_entry(GET_TABLE if dry_run else PUT_TABLE, warehouse, namespace, table, TABLE)
        self.reply(await self.call(self.services.maintenance.run, warehouse, namespace, table,
                                   body.get("operations"), dry_run=dry_run))


def routes(services) -> list:
    """URL specs; they must come before the catalog's catch-all for unknown endpoints."""
    table = r"/_iceberg/v1/(?P<warehouse>[^/]+)/namespaces/(?P<joined_namespace>[^/]+)/tables/(?P<table>[^/]+)"
    kwargs = {"services": services}
    return [
        (r"/_iceberg/v1/warehouses/(?P<warehouse>[^/]+)/maintenance", WarehouseMaintenanceHandler, kwargs),
        (table + "/maintenance", TableMaintenanceHandler, kwargs),
        (table + "/maintenance/runs", MaintenanceRunsHandler, kwargs),
    ]
