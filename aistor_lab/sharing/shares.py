"""Shares, their schemas and tables, kept as one JSON document per share in the system bucket.

Table specs are written exactly as ``mc table share`` takes them:

    NAME:delta:BUCKET:PATH/TO/TABLE                 a Delta table under s3://BUCKET/PATH/TO/TABLE
    NAME:uniform:WAREHOUSE:NAMESPACE:TABLE          an Iceberg table of the catalog; NAMESPACE may be
                                                    dotted for nested namespaces (analytics.sales)

``share update --add`` prefixes a schema (``SCHEMA:NAME:delta:...``) and ``--remove`` names
``SCHEMA/TABLE``. Names are case-insensitive (as the protocol says) but keep the case they were
created with. Every change is a conditional replace of the share's document, so concurrent
updates never lose one another; a rejected change leaves the share as it was.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..store.base import ObjectStore
from ..store.documents import DocumentStore
from ..store.errors import PreconditionFailed
from ..store.locations import has_dot_segments
from .errors import AlreadyExists, InvalidParameter, NotFound

DELTA, UNIFORM = "delta", "uniform"
# Share names may hold dots; schema and table names may not (the protocol's rule for names).
SHARE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}")
OBJECT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,254}")
_BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_UPDATE_ATTEMPTS = 8


def _accept(spec: TableSpec) -> None:
    """The default vetting of a table put in a share: none."""


def check_name(kind: str, name: object, pattern: re.Pattern[str] = OBJECT_NAME) -> str:
    if not isinstance(name, str) or not pattern.fullmatch(name):
        extra = "" if pattern is SHARE_NAME else ", no dots"
        raise InvalidParameter(f"invalid {kind} name {name!r}: use letters, digits, _ and -{extra}")
    return name


@dataclass(frozen=True)
class TableSpec:
    """Where a shared table lives: a Delta table in a bucket or an Iceberg table of the catalog."""

    name: str
    kind: str  # DELTA | UNIFORM
    bucket: str = ""  # delta
    path: str = ""  # delta: the table's root under the bucket, no slashes at either end
    warehouse: str = ""  # uniform
    namespace: tuple[str, ...] = ()  # uniform
    table: str = ""  # uniform
    id: str = field(default_factory=lambda: str(uuid.uuid4()), compare=False)

    @classmethod
    def parse(cls, text: object) -> TableSpec:
        """``NAME:delta:BUCKET:PATH`` or ``NAME:uniform:WAREHOUSE:NAMESPACE:TABLE``."""
        if not isinstance(text, str):
            raise InvalidParameter(f"a table spec must be a string, got {text!r}")
        parts = text.split(":")
        if len(parts) == 4 and parts[1] == DELTA:
            name, _, bucket, path = parts
            path = path.strip("/")
            if not _BUCKET_NAME.fullmatch(bucket) or not path or has_dot_segments(path):
                raise InvalidParameter(f"bad Delta table spec {text!r}: expected NAME:delta:BUCKET:PATH/TO/TABLE")
            return cls(check_name("table", name), DELTA, bucket=bucket, path=path)
        if len(parts) == 5 and parts[1] == UNIFORM:
            name, _, warehouse, dotted_namespace, table = parts
            namespace = tuple(dotted_namespace.split("."))
            if not warehouse or not table or not all(namespace):
                raise InvalidParameter(
                    f"bad UniForm table spec {text!r}: expected NAME:uniform:WAREHOUSE:NAMESPACE:TABLE"
                )
            return cls(check_name("table", name), UNIFORM, warehouse=warehouse, namespace=namespace, table=table)
        raise InvalidParameter(
            f"bad table spec {text!r}: expected NAME:delta:BUCKET:PATH/TO/TABLE or "
            "NAME:uniform:WAREHOUSE:NAMESPACE:TABLE"
        )

    @classmethod
    def parse_with_schema(cls, text: object) -> tuple[str, TableSpec]:
        """``SCHEMA:NAME:delta:...`` or ``SCHEMA:NAME:uniform:...`` (``share update --add``)."""
        if not isinstance(text, str) or ":" not in text:
            raise InvalidParameter(f"bad table spec {text!r}: expected SCHEMA:NAME:delta|uniform:...")
        schema, _, rest = text.partition(":")
        return check_name("schema", schema), cls.parse(rest)

    @property
    def location(self) -> str:
        if self.kind == DELTA:
            return f"s3://{self.bucket}/{self.path}"
        return f"{self.warehouse}:{'.'.join(self.namespace)}:{self.table}"

    def spec(self) -> str:
        """The spec string again, as the admin wrote it."""
        if self.kind == DELTA:
            return f"{self.name}:delta:{self.bucket}:{self.path}"
        return f"{self.name}:uniform:{self.warehouse}:{'.'.join(self.namespace)}:{self.table}"

    def document(self) -> dict:
        return {"id": self.id, "spec": self.spec()}

    @classmethod
    def from_document(cls, document: dict) -> TableSpec:
        return replace(cls.parse(document["spec"]), id=document["id"])

    def info(self) -> dict:
        """What ``share info`` shows of the table."""
        if self.kind == DELTA:
            return {"name": self.name, "id": self.id, "kind": DELTA, "bucket": self.bucket, "location": self.path}
        return {"name": self.name, "id": self.id, "kind": UNIFORM, "warehouse": self.warehouse,
                "namespace": ".".join(self.namespace), "table": self.table}


@dataclass(frozen=True)
class Share:
    id: str
    name: str
    description: str
    created: float
    updated: float
    # schema name -> table name -> spec, in the order they were added
    schemas: dict[str, dict[str, TableSpec]]

    def schema(self, name: str) -> tuple[str, dict[str, TableSpec]]:
        """The schema (its stored name and tables) named ``name`` in any case; NotFound otherwise."""
        for stored, tables in self.schemas.items():
            if stored.lower() == name.lower():
                return stored, tables
        raise NotFound(f"schema {name!r} does not exist in share {self.name!r}")

    def table(self, schema: str, name: str) -> tuple[str, TableSpec]:
        stored_schema, tables = self.schema(schema)
        for stored, spec in tables.items():
            if stored.lower() == name.lower():
                return stored_schema, spec
        raise NotFound(f"table {name!r} does not exist in schema {stored_schema!r} of share {self.name!r}")

    def all_tables(self) -> list[tuple[str, TableSpec]]:
        return [(schema, spec) for schema, tables in self.schemas.items() for spec in tables.values()]

    def document(self) -> dict:
        return {
            "id": self.id, "name": self.name, "description": self.description,
            "created": self.created, "updated": self.updated,
            "schemas": {schema: [spec.document() for spec in tables.values()]
                        for schema, tables in self.schemas.items()},
        }

    @classmethod
    def from_document(cls, document: dict) -> Share:
        schemas = {}
        for schema, tables in document.get("schemas", {}).items():
            specs = [TableSpec.from_document(t) for t in tables]
            schemas[schema] = {spec.name: spec for spec in specs}
        return cls(document["id"], document["name"], document.get("description", ""),
                   document.get("created", 0.0), document.get("updated", 0.0), schemas)

    def info(self) -> dict:
        """The tree ``share info`` prints: schemas with their tables, kinds and locations."""
        return {
            "name": self.name, "id": self.id, "description": self.description,
            "created": _iso(self.created), "updated": _iso(self.updated),
            "schemas": [{"name": schema, "tables": [spec.info() for spec in tables.values()]}
                        for schema, tables in self.schemas.items()],
        }

    def summary(self) -> dict:
        """What ``share list`` shows."""
        return {"name": self.name, "id": self.id, "description": self.description,
                "created": _iso(self.created), "updated": _iso(self.updated),
                "schemas": len(self.schemas), "tables": len(self.all_tables())}


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


Vet = Callable[[TableSpec], None]


class ShareRegistry:
    """Create, read, change and delete shares. Thread-safe; processes sharing a store agree."""

    def __init__(self, store: ObjectStore, clock=time.time):
        self._documents = DocumentStore(store, "sharing/shares/", re.compile(r"[a-z0-9_][a-z0-9_.-]{0,254}"))
        self._clock = clock

    def get(self, name: str) -> Share:
        found = self._documents.read(name.lower()) if isinstance(name, str) else None
        if found is None:
            raise NotFound(f"share {name!r} does not exist")
        return Share.from_document(found[0])

    def list(self) -> list[Share]:
        shares = []
        for key in sorted(self._documents.names()):
            found = self._documents.read(key)
            if found is not None:
                shares.append(Share.from_document(found[0]))
        return shares

    def create(self, name: str, schema: str, specs: list[str], description: str = "",
               vet: Vet = _accept) -> Share:
        """A new share of ``specs``; ``vet`` may refuse a table (by raising) before anything is written."""
        check_name("share", name, SHARE_NAME)
        check_name("schema", schema)
        if not isinstance(description, str):
            raise InvalidParameter("the description must be a string")
        if not isinstance(specs, list):
            raise InvalidParameter("tables must be a list of table specs")
        tables: dict[str, TableSpec] = {}
        for spec in map(TableSpec.parse, specs):
            _add_table(tables, schema, spec)
        for spec in tables.values():
            vet(spec)
        now = self._clock()
        share = Share(str(uuid.uuid4()), name, description, now, now, {schema: tables} if tables else {})
        if not self._documents.create(name.lower(), share.document()):
            raise AlreadyExists(f"share {name!r} exists already")
        return share

    def update(self, name: str, add: list[str] = (), remove: list[str] = (),
               description: str | None = None, vet: Vet = _accept) -> Share:
        """Add ``SCHEMA:NAME:kind:...`` tables and remove ``SCHEMA/TABLE`` ones, all or nothing; ``vet``
        may refuse an added table (by raising) before anything is written."""
        if not isinstance(add, list | tuple) or not isinstance(remove, list | tuple):
            raise InvalidParameter("add and remove must be lists")
        if description is not None and not isinstance(description, str):
            raise InvalidParameter("the description must be a string")
        additions = [TableSpec.parse_with_schema(text) for text in add]
        removals = [_parse_removal(text) for text in remove]
        if additions:
            self.get(name)  # an unknown share is reported as such, before the tables are vetted
        for _, spec in additions:
            vet(spec)
        for _ in range(_UPDATE_ATTEMPTS):
            found = self._documents.read(name.lower()) if isinstance(name, str) else None
            if found is None:
                raise NotFound(f"share {name!r} does not exist")
            share = Share.from_document(found[0])
            schemas = {schema: dict(tables) for schema, tables in share.schemas.items()}
            for schema, table in removals:
                _remove_table(share, schemas, schema, table)
            for schema, spec in additions:
                stored = next((s for s in schemas if s.lower() == schema.lower()), schema)
                _add_table(schemas.setdefault(stored, {}), stored, spec)
            changed = replace(share, schemas=schemas, updated=self._clock(),
                              description=share.description if description is None else description)
            try:
                self._documents.replace(name.lower(), changed.document(), etag=found[1])
            except PreconditionFailed:
                continue  # changed by someone else meanwhile: apply ours to the new version
            return changed
        raise AlreadyExists(f"share {name!r} is being changed concurrently; try again")

    def delete(self, name: str) -> Share:
        share = self.get(name)
        self._documents.delete(name.lower())
        return share


def _add_table(tables: dict[str, TableSpec], schema: str, spec: TableSpec) -> None:
    if any(existing.lower() == spec.name.lower() for existing in tables):
        raise AlreadyExists(f"table {spec.name!r} exists already in schema {schema!r}")
    tables[spec.name] = spec


def _parse_removal(text: object) -> tuple[str, str]:
    if not isinstance(text, str) or text.count("/") != 1:
        raise InvalidParameter(f"bad table to remove {text!r}: expected SCHEMA/TABLE")
    schema, table = text.split("/")
    return check_name("schema", schema), check_name("table", table)


def _remove_table(share: Share, schemas: dict[str, dict[str, TableSpec]], schema: str, table: str) -> None:
    stored_schema = next((s for s in schemas if s.lower() == schema.lower()), None)
    tables = schemas.get(stored_schema) if stored_schema is not None else None
    stored_table = next((t for t in tables or () if t.lower() == table.lower()), None)
    if stored_table is None:
        raise NotFound(f"table {schema}/{table} is not in share {share.name!r}")
    del tables[stored_table]
    if not tables:
        del schemas[stored_schema]  # a schema lives as long as it has tables
