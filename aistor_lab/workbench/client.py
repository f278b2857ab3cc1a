"""The Python client of the service's catalog and admin APIs, SigV4-signed as real clients sign.

The Iceberg REST catalog (``/_iceberg``) is signed with the signing name ``s3tables``, the admin API
(``/_aistor/admin/v1``) with ``s3``, as MinIO's admin clients do. Every failure is an
``AIStorError`` with a one-line message: the service's own error text, never a stack trace.

``ServiceConfig.from_env()`` (service_config.py) reads what the Jupyter extension exports to kernels,
so ``AIStorClient.from_env()`` and ``load_catalog()`` need no arguments inside JupyterLab.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.exceptions import ConnectionError as BotocoreConnectionError
from botocore.exceptions import HTTPClientError
from botocore.exceptions import SSLError as BotocoreSSLError
from botocore.httpsession import URLLib3Session

from .service_config import CATALOG_SIGNING_NAME, ServiceConfig, catalog_properties

CATALOG_PREFIX = "/_iceberg/v1"
ADMIN_PREFIX = "/_aistor/admin/v1"
HEALTH_PATH = "/_aistor/health"
NAMESPACE_SEPARATOR = "\x1f"  # multi-level namespaces travel as one path segment joined by %1F


class AIStorError(Exception):
    """A failure to show the user as one line; ``exit_code`` is what the CLI exits with."""

    exit_code = 1

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ServiceError(AIStorError):
    """The service answered with an error (``code`` is its error type, ``status`` the HTTP status)."""

    def __init__(self, message: str, status: int = 0, code: str = ""):
        super().__init__(message)
        self.status = status
        self.code = code


class ServiceUnreachable(AIStorError):
    """Nothing answers at the endpoint (not started, stopped, or the wrong address)."""

    exit_code = 3


def load_catalog(warehouse: str | None = None, name: str = "aistor", *, service: ServiceConfig | None = None,
                 **overrides: str):
    """A PyIceberg catalog of the service the environment names (inside JupyterLab: no arguments), or of
    ``service`` when given."""
    from pyiceberg.catalog import load_catalog as pyiceberg_load_catalog

    config = service or ServiceConfig.from_env()
    if config is None:
        raise AIStorError("no AIStor service is configured: AISTOR_ENDPOINT is not set")
    return pyiceberg_load_catalog(name, **{**catalog_properties(config, warehouse), **overrides})


def namespace_levels(namespace: str | list[str] | tuple[str, ...]) -> list[str]:
    """``"a.b"`` or ``["a", "b"]`` -> ``["a", "b"]``."""
    levels = namespace.split(".") if isinstance(namespace, str) else list(namespace)
    if not levels or not all(levels):
        raise AIStorError(f"invalid namespace {namespace!r}")
    return levels


def _segment(value: str) -> str:
    return quote(value, safe="")


def _error_message(status: int, content: bytes) -> tuple[str, str]:
    """(code, message) from any of the service's error bodies: Iceberg, admin or Delta Sharing."""
    try:
        body = json.loads(content)
    except ValueError:
        body = None
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        code = inner.get("type") or inner.get("code") or inner.get("errorCode") or ""
        message = inner.get("message") or ""
        if message:
            return str(code), str(message)
    text = content.decode("utf-8", "replace").strip()
    return "", text[:200] or f"HTTP {status}"


class AIStorClient:
    """Catalog and admin operations against one service, as one identity."""

    def __init__(self, config: ServiceConfig, timeout: float = 60):
        self.config = config
        self._credentials = Credentials(config.access_key, config.secret_key)
        self._http = URLLib3Session(timeout=timeout, verify=config.verify)

    @classmethod
    def from_env(cls) -> AIStorClient:
        config = ServiceConfig.from_env()
        if config is None:
            raise AIStorError("no AIStor service is configured: AISTOR_ENDPOINT is not set")
        return cls(config)

    # -- HTTP ---------------------------------------------------------------------------------

    def _send(self, method: str, path: str, body: Any = None, *, query: dict | None = None,
              service: str | None = None) -> tuple[int, Any]:
        """One request; ``service`` is the SigV4 signing name (None: unsigned). Returns
        (status, decoded JSON or None); error statuses raise ServiceError."""
        url = self.config.endpoint + path + (f"?{urlencode(query)}" if query else "")
        data = b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"} if data else {}
        request = AWSRequest(method=method, url=url, data=data, headers=headers)
        if service == "s3":
            S3SigV4Auth(self._credentials, service, self.config.region).add_auth(request)
        elif service:
            SigV4Auth(self._credentials, service, self.config.region).add_auth(request)
        try:
            response = self._http.send(request.prepare())
        except BotocoreSSLError as exc:  # a ConnectionError too, but "is it running?" would mislead
            raise ServiceUnreachable(f"cannot verify the TLS certificate of {self.config.endpoint}: {exc} "
                                     "(set AISTOR_CA_BUNDLE to a PEM file with its CA)") from None
        except BotocoreConnectionError:
            raise ServiceUnreachable(f"cannot reach the AIStor service at {self.config.endpoint}: is it running?") from None
        except HTTPClientError as exc:
            raise ServiceUnreachable(f"the AIStor service at {self.config.endpoint} did not answer: {exc}") from None
        if response.status_code >= 400:
            code, message = _error_message(response.status_code, response.content)
            raise ServiceError(message, response.status_code, code)
        return response.status_code, (json.loads(response.content) if response.content else None)

    def catalog_call(self, method: str, path: str, body: Any = None, query: dict | None = None) -> Any:
        return self._send(method, CATALOG_PREFIX + path, body, query=query, service=CATALOG_SIGNING_NAME)[1]

    def admin_call(self, method: str, path: str, body: Any = None, query: dict | None = None) -> Any:
        return self._send(method, ADMIN_PREFIX + path, body, query=query, service="s3")[1]

    def _pages(self, path: str, key: str, query: dict | None = None) -> Iterator[Any]:
        """Every item of a paged catalog listing."""
        query = dict(query or {})
        while True:
            page = self.catalog_call("GET", path, query=query)
            yield from page.get(key) or []
            token = page.get("next-page-token")
            if not token:
                return
            query["pageToken"] = token

    def health(self) -> dict:
        return self._send("GET", HEALTH_PATH)[1]

    # -- warehouses ---------------------------------------------------------------------------

    def create_warehouse(self, name: str, properties: dict[str, str] | None = None, *,
                         upgrade_existing: bool = False) -> dict:
        """A new warehouse and its bucket; ``upgrade_existing`` makes an existing bucket of that name (not
        yet a warehouse) the warehouse's, which the service refuses otherwise."""
        body = {"name": name, "properties": properties or {}, "upgrade-existing": upgrade_existing}
        return self.catalog_call("POST", "/warehouses", body)

    def get_warehouse(self, name: str) -> dict:
        return self.catalog_call("GET", f"/warehouses/{_segment(name)}")

    def list_warehouses(self) -> list[str]:
        return list(self._pages("/warehouses", "warehouses"))

    def delete_warehouse(self, name: str, force: bool = False) -> None:
        """Delete an empty warehouse; with ``force`` also its namespaces, views and tables (purged),
        which the service does in one call, all or nothing as far as the catalog is concerned."""
        self.catalog_call("DELETE", f"/warehouses/{_segment(name)}", query={"force": "true"} if force else None)

    # -- namespaces ---------------------------------------------------------------------------

    @staticmethod
    def _namespace_path(warehouse: str, namespace: str | list[str]) -> str:
        joined = NAMESPACE_SEPARATOR.join(namespace_levels(namespace))
        return f"/{_segment(warehouse)}/namespaces/{_segment(joined)}"

    def create_namespace(self, warehouse: str, namespace: str | list[str],
                         properties: dict[str, str] | None = None) -> dict:
        body = {"namespace": namespace_levels(namespace), "properties": properties or {}}
        return self.catalog_call("POST", f"/{_segment(warehouse)}/namespaces", body)

    def list_namespaces(self, warehouse: str, parent: str | list[str] | None = None) -> list[list[str]]:
        """The namespaces directly under ``parent`` (None: the top level)."""
        query = {"parent": NAMESPACE_SEPARATOR.join(namespace_levels(parent))} if parent else None
        return list(self._pages(f"/{_segment(warehouse)}/namespaces", "namespaces", query))

    def delete_namespace(self, warehouse: str, namespace: str | list[str]) -> None:
        self.catalog_call("DELETE", self._namespace_path(warehouse, namespace))

    # -- tables -------------------------------------------------------------------------------

    def create_table(self, warehouse: str, namespace: str | list[str], name: str, schema: dict,
                     partition_spec: dict | None = None, properties: dict[str, str] | None = None) -> dict:
        """CreateTable with an Iceberg schema (JSON as the spec writes it); returns the LoadTableResult."""
        body: dict[str, Any] = {"name": name, "schema": schema, "properties": properties or {}}
        if partition_spec:
            body["partition-spec"] = partition_spec
        return self.catalog_call("POST", self._namespace_path(warehouse, namespace) + "/tables", body)

    def list_tables(self, warehouse: str, namespace: str | list[str]) -> list[str]:
        path = self._namespace_path(warehouse, namespace) + "/tables"
        return [identifier["name"] for identifier in self._pages(path, "identifiers")]

    def list_views(self, warehouse: str, namespace: str | list[str]) -> list[str]:
        path = self._namespace_path(warehouse, namespace) + "/views"
        return [identifier["name"] for identifier in self._pages(path, "identifiers")]

    def load_view(self, warehouse: str, namespace: str | list[str], name: str) -> dict:
        """The LoadViewResult: ``metadata-location``, ``metadata`` (versions, schemas, properties)."""
        return self.catalog_call("GET", self._namespace_path(warehouse, namespace) + f"/views/{_segment(name)}")

    def create_view(self, warehouse: str, namespace: str | list[str], name: str, schema: dict,
                    representations: list[dict], properties: dict[str, str] | None = None) -> dict:
        """CreateView: version 1 of a view with SQL ``representations`` ({"type": "sql", "sql", "dialect"})
        whose unqualified names resolve in ``namespace``; returns the LoadViewResult."""
        version = {"version-id": 1, "schema-id": schema.get("schema-id", 0), "timestamp-ms": int(time.time() * 1000),
                   "summary": {"engine-name": "aistor"}, "default-namespace": namespace_levels(namespace),
                   "representations": representations}
        body = {"name": name, "schema": schema, "view-version": version, "properties": properties or {}}
        return self.catalog_call("POST", self._namespace_path(warehouse, namespace) + "/views", body)

    def delete_view(self, warehouse: str, namespace: str | list[str], name: str) -> None:
        self.catalog_call("DELETE", self._namespace_path(warehouse, namespace) + f"/views/{_segment(name)}")

    def rename(self, kind: str, warehouse: str, source: tuple[str | list[str], str],
               destination: tuple[str | list[str], str]) -> None:
        """Rename a table or view (``kind`` "tables" or "views"): (namespace, name) to (namespace, name)."""
        identifiers = {key: {"namespace": namespace_levels(namespace), "name": name}
                       for key, (namespace, name) in (("source", source), ("destination", destination))}
        self.catalog_call("POST", f"/{_segment(warehouse)}/{kind}/rename", identifiers)

    def load_table(self, warehouse: str, namespace: str | list[str], name: str) -> dict:
        """The LoadTableResult: ``metadata-location``, ``metadata`` (schemas, specs, snapshots...)."""
        return self.catalog_call("GET", self._namespace_path(warehouse, namespace) + f"/tables/{_segment(name)}")

    def register_table(self, warehouse: str, namespace: str | list[str], name: str, metadata_location: str,
                       overwrite: bool = False) -> dict:
        """Register a metadata file already in the warehouse as a table (``overwrite``: re-point an existing
        table of that name); returns the LoadTableResult."""
        body = {"name": name, "metadata-location": metadata_location, **({"overwrite": True} if overwrite else {})}
        return self.catalog_call("POST", self._namespace_path(warehouse, namespace) + "/register", body)

    def delete_table(self, warehouse: str, namespace: str | list[str], name: str, purge: bool = False) -> None:
        path = self._namespace_path(warehouse, namespace) + f"/tables/{_segment(name)}"
        self.catalog_call("DELETE", path, query={"purgeRequested": "true"} if purge else None)

    # -- table maintenance (the catalog's: tables/api/maintenance_handlers.py) ------------------

    def warehouse_maintenance(self, warehouse: str) -> dict:
        """A warehouse's maintenance settings as stored, and what a table without overrides gets."""
        return self.catalog_call("GET", f"/warehouses/{_segment(warehouse)}/maintenance")

    def set_warehouse_maintenance(self, warehouse: str, settings: dict[str, str | None]) -> dict:
        """Set settings of the warehouse (a None value removes one)."""
        return self.catalog_call("PUT", f"/warehouses/{_segment(warehouse)}/maintenance", {"settings": settings})

    def _maintenance_path(self, warehouse: str, namespace: str | list[str], name: str) -> str:
        return self._namespace_path(warehouse, namespace) + f"/tables/{_segment(name)}/maintenance"

    def table_maintenance(self, warehouse: str, namespace: str | list[str], name: str) -> dict:
        """Each setting's value and source, the table's health (files, small files, histogram) and last run."""
        return self.catalog_call("GET", self._maintenance_path(warehouse, namespace, name))

    def set_table_maintenance(self, warehouse: str, namespace: str | list[str], name: str,
                              settings: dict[str, str | None]) -> dict:
        """Set the table's overrides, which are table properties (a None value removes one)."""
        return self.catalog_call("PUT", self._maintenance_path(warehouse, namespace, name), {"settings": settings})

    def run_maintenance(self, warehouse: str, namespace: str | list[str], name: str,
                        operations: Sequence[str] = (), dry_run: bool = False) -> dict:
        """Run maintenance operations (default: the table's enabled ones), or preview them (``dry_run``)."""
        body: dict[str, Any] = {"dry-run": dry_run}
        if operations:
            body["operations"] = list(operations)
        return self.catalog_call("POST", self._maintenance_path(warehouse, namespace, name) + "/runs", body)

    def maintenance_history(self, warehouse: str, namespace: str | list[str], name: str) -> list[dict]:
        """The table's maintenance runs, newest first."""
        return self.catalog_call("GET", self._maintenance_path(warehouse, namespace, name) + "/runs")["runs"]

    def preview_table(self, warehouse: str, namespace: str | list[str], name: str, limit: int = 10):
        """The first ``limit`` rows as a pyarrow Table (one catalog call, then S3 reads)."""
        return self.first_rows(name, self.load_table(warehouse, namespace, name), limit)

    def table_scan(self, loaded: dict, **options: Any):
        """A PyIceberg DataScan of a table already loaded (its LoadTableResult): it scans the loaded
        metadata, reading manifests and data files through S3, so the catalog is not asked again.
        ``options`` are DataScan's (``snapshot_id``, ``row_filter``, ``selected_fields``, ``limit``)."""
        from pyiceberg.io import load_file_io
        from pyiceberg.table import DataScan
        from pyiceberg.table.metadata import TableMetadataUtil

        metadata = TableMetadataUtil.parse_obj(loaded["metadata"])
        properties = {**catalog_properties(self.config), **(loaded.get("config") or {})}
        io = load_file_io(properties, loaded.get("metadata-location") or metadata.location)
        return DataScan(metadata, io, **options)

    def first_rows(self, name: str, loaded: dict, limit: int, snapshot_id: int | None = None):
        """The first ``limit`` rows of a table already loaded, as a pyarrow Table (of the current
        snapshot, or of ``snapshot_id``)."""
        try:
            return self.table_scan(loaded, limit=limit, snapshot_id=snapshot_id).to_arrow()
        except OSError as exc:
            raise ServiceError(f"cannot read the data files of {name}: {exc}") from None

    # -- users and policies -------------------------------------------------------------------

    def create_user(self, access_key: str, secret_key: str, policies: list[str] | None = None) -> dict:
        body = {"accessKey": access_key, "secretKey": secret_key, "policies": policies or []}
        return self.admin_call("POST", "/users", body)

    def list_users(self) -> Any:
        return self.admin_call("GET", "/users")

    def delete_user(self, access_key: str) -> None:
        self.admin_call("DELETE", f"/users/{_segment(access_key)}")

    def attach_policy(self, access_key: str, policy: str) -> Any:
        return self.admin_call("POST", f"/users/{_segment(access_key)}/policies/{_segment(policy)}")

    def detach_policy(self, access_key: str, policy: str) -> Any:
        return self.admin_call("DELETE", f"/users/{_segment(access_key)}/policies/{_segment(policy)}")

    def list_policies(self) -> Any:
        return self.admin_call("GET", "/policies")

    def put_policy(self, name: str, document: Any) -> Any:
        return self.admin_call("PUT", f"/policies/{_segment(name)}", document)

    def get_policy(self, name: str) -> Any:
        return self.admin_call("GET", f"/policies/{_segment(name)}")

    def delete_policy(self, name: str) -> None:
        self.admin_call("DELETE", f"/policies/{_segment(name)}")

    # -- Delta Sharing: shares, tokens, audit -------------------------------------------------

    def list_shares(self) -> list[dict]:
        return self.admin_call("GET", "/shares")

    def create_share(self, name: str, schema: str, tables: list[str], description: str = "",
                     require_existing: bool = False) -> dict:
        """``tables`` are specs as ``mc table share`` takes them: ``NAME:delta:BUCKET:PATH`` or
        ``NAME:uniform:WAREHOUSE:NAMESPACE:TABLE``. What they name that does not exist comes back in
        ``warnings``; with ``require_existing``, such a table is refused (a Delta path without a table
        yet, in an existing bucket, is still a warning)."""
        body = {"name": name, "schema": schema, "tables": tables, "description": description,
                **({"requireExisting": True} if require_existing else {})}
        return self.admin_call("POST", "/shares", body)

    def get_share(self, name: str) -> dict:
        """The share with its schemas and tables (kinds and locations)."""
        return self.admin_call("GET", f"/shares/{_segment(name)}")

    def update_share(self, name: str, add: Sequence[str] = (), remove: Sequence[str] = (),
                     description: str | None = None, require_existing: bool = False) -> dict:
        """``add``: ``SCHEMA:NAME:delta|uniform:...`` specs (checked as ``create_share`` checks them);
        ``remove``: ``SCHEMA/TABLE`` names."""
        body: dict[str, Any] = {"add": list(add), "remove": list(remove),
                                **({"requireExisting": True} if require_existing else {})}
        if description is not None:
            body["description"] = description
        return self.admin_call("PATCH", f"/shares/{_segment(name)}", body)

    def remove_share(self, name: str) -> dict:
        """Remove a share with its tokens."""
        return self.admin_call("DELETE", f"/shares/{_segment(name)}")

    def create_token(self, share: str, expires: str | None = None, description: str = "") -> dict:
        """A bearer token: its ``token`` (shown once) and a ready ``profile`` (the profile.share document)."""
        body = {"expires": expires, "description": description}
        return self.admin_call("POST", f"/shares/{_segment(share)}/tokens", body)

    def list_tokens(self, share: str) -> list[dict]:
        return self.admin_call("GET", f"/shares/{_segment(share)}/tokens")

    def revoke_token(self, share: str, token_id: str) -> dict:
        return self.admin_call("DELETE", f"/shares/{_segment(share)}/tokens/{_segment(token_id)}")

    def create_oauth_client(self, share: str, description: str = "") -> dict:
        """An OAuth client of a share: its ``clientSecret`` (shown once) and a ready ``profile``
        (a ``shareCredentialsVersion`` 2 profile.share with the client credentials)."""
        return self.admin_call("POST", f"/shares/{_segment(share)}/clients", {"description": description})

    def list_oauth_clients(self, share: str) -> list[dict]:
        return self.admin_call("GET", f"/shares/{_segment(share)}/clients")

    def remove_oauth_client(self, share: str, client_id: str) -> dict:
        """Delete an OAuth client, revoking the access tokens it was given."""
        return self.admin_call("DELETE", f"/shares/{_segment(share)}/clients/{_segment(client_id)}")

    def shared_table_versions(self, share: str, schema: str, table: str, limit: int = 50) -> dict:
        """``{earliest, latest, versions: [{version, timestamp}]}``: what recipients may read, newest first."""
        path = f"/shares/{_segment(share)}/schemas/{_segment(schema)}/tables/{_segment(table)}/versions"
        return self.admin_call("GET", path, query={"limit": str(limit)})

    def checkpoint_shared_table(self, share: str, schema: str, table: str) -> dict:
        """Write a Delta checkpoint of a shared Delta table's latest version, so its recipients' queries
        read the checkpoint instead of the whole log: ``{version, path, written, addFiles, bytes}``
        (``written`` false when that version had a checkpoint already)."""
        path = f"/shares/{_segment(share)}/schemas/{_segment(schema)}/tables/{_segment(table)}/checkpoint"
        return self.admin_call("POST", path)

    def share_audit(self, share: str, limit: int = 100) -> list[dict]:
        """The newest ``limit`` recipient queries of a share, newest first."""
        return self.admin_call("GET", f"/shares/{_segment(share)}/audit", query={"limit": str(limit)})
