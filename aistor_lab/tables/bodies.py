"""The shapes of the catalog's request bodies, as the REST spec's request schemas give them: every
field of the right JSON type at every level, names and identifiers valid, before a request is
authorized or acted on (api/handlers.py checks the body first). What a shape cannot say (a schema that
fits the table, a requirement that holds) is checked where the body is applied.

Optional fields may be absent or null; unknown fields are ignored, as the spec allows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

from ..common.json_input import json_type
from . import schemas
from .errors import BadRequestException
from .names import check_name, check_namespace, check_warehouse_name

# A check takes the value and its path in the body (for the message); it raises BadRequestException.
Check = Callable[[object, str], None]


def _fail(path: str, expected: str, value: object) -> NoReturn:
    raise BadRequestException(f"Invalid request body: {path} must be {expected}, not {json_type(value)}")


def _typed(kind: type, expected: str) -> Check:
    def check(value: object, path: str) -> None:
        # JSON true/false are Python ints too: they are never numbers here.
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            _fail(path, expected, value)

    return check


STRING = _typed(str, "a string")
INTEGER = _typed(int, "an integer")
BOOLEAN = _typed(bool, "a boolean")


def _anything(value: object, path: str) -> None:
    """Carried as is (only logged or stored, never interpreted)."""


def nullable(check: Check) -> Check:
    """A required field whose value may be null."""
    return lambda value, path: None if value is None else check(value, path)


def list_of(item: Check) -> Check:
    def check(value: object, path: str) -> None:
        if not isinstance(value, list):
            _fail(path, "an array", value)
        for index, element in enumerate(value):
            item(element, f"{path}[{index}]")

    return check


def map_of(item: Check) -> Check:
    def check(value: object, path: str) -> None:
        if not isinstance(value, dict):
            _fail(path, "an object", value)
        for key, element in value.items():
            item(element, f"{path}.{key[:64]}")

    return check


def obj(required: dict[str, Check] | None = None, optional: dict[str, Check] | None = None) -> Check:
    def check(value: object, path: str) -> None:
        if not isinstance(value, dict):
            _fail(path, "an object", value)
        for key, field in (required or {}).items():
            if key not in value:
                raise BadRequestException(f"Invalid request body: {path}.{key} is required")
            field(value[key], f"{path}.{key}")
        for key, field in (optional or {}).items():
            if value.get(key) is not None:
                field(value[key], f"{path}.{key}")

    return check


def tagged(tag: str, variants: dict[str, Check], what: str) -> Check:
    """A union told apart by the string field ``tag`` (an update's action, a requirement's type)."""

    def check(value: object, path: str) -> None:
        if not isinstance(value, dict):
            _fail(path, "an object", value)
        kind = value.get(tag)
        if not isinstance(kind, str):
            _fail(f"{path}.{tag}", "a string", kind)
        if kind not in variants:
            raise BadRequestException(f"Unknown {what} at {path}: {kind[:64]!r}")
        variants[kind](value, path)

    return check


def _name(value: object, path: str) -> None:
    check_name(value, path)


def _namespace(value: object, _path: str) -> None:
    check_namespace(value)


def _warehouse(value: object, _path: str) -> None:
    check_warehouse_name(value)


def _schema(value: object, _path: str) -> None:
    # Nested types are checked for the newest format; a table's own version is applied with the table.
    schemas.check_schema(value, 3)


STRINGS = list_of(STRING)
INTEGERS = list_of(INTEGER)
STRING_MAP = map_of(STRING)
IDENTIFIER = obj({"namespace": _namespace, "name": _name})
_SOURCES = {"source-id": INTEGER, "source-ids": INTEGERS}
PARTITION_SPEC = obj(
    {"fields": list_of(obj({"name": STRING, "transform": STRING}, {"field-id": INTEGER, **_SOURCES}))},
    {"spec-id": INTEGER},
)
SORT_ORDER = obj(
    {"fields": list_of(obj({"transform": STRING, "direction": STRING, "null-order": STRING}, _SOURCES))},
    {"order-id": INTEGER},
)
SNAPSHOT = obj(
    {"snapshot-id": INTEGER, "timestamp-ms": INTEGER},
    {
        "parent-snapshot-id": INTEGER,
        "sequence-number": INTEGER,
        "manifest-list": STRING,
        "summary": STRING_MAP,
        "schema-id": INTEGER,
        "first-row-id": INTEGER,
        "added-rows": INTEGER,
    },
)
STATISTICS = obj(
    {"snapshot-id": INTEGER, "statistics-path": STRING},
    {
        "file-size-in-bytes": INTEGER,
        "file-footer-size-in-bytes": INTEGER,
        "blob-metadata": list_of(
            obj({"type": STRING, "snapshot-id": INTEGER, "sequence-number": INTEGER, "fields": INTEGERS},
                {"properties": STRING_MAP})
        ),
    },
)
PARTITION_STATISTICS = obj({"snapshot-id": INTEGER, "statistics-path": STRING}, {"file-size-in-bytes": INTEGER})
ENCRYPTION_KEY = obj(
    {"key-id": STRING, "encrypted-key-metadata": STRING}, {"encrypted-by-id": STRING, "properties": STRING_MAP}
)
VIEW_VERSION = obj(
    {
        "version-id": INTEGER,
        "schema-id": INTEGER,
        "representations": list_of(obj({"type": STRING, "sql": STRING, "dialect": STRING})),
        "default-namespace": list_of(STRING),
    },
    {"timestamp-ms": INTEGER, "summary": STRING_MAP, "default-catalog": STRING},
)

# Updates that tables and views share.
_COMMON_UPDATES = {
    "assign-uuid": obj({"uuid": STRING}),
    "upgrade-format-version": obj({"format-version": INTEGER}),
    "add-schema": obj({"schema": _schema}, {"last-column-id": INTEGER}),
    "set-location": obj({"location": STRING}),
    "set-properties": obj({"updates": STRING_MAP}),
    "remove-properties": obj({"removals": STRINGS}),
}
TABLE_UPDATE = tagged(
    "action",
    {
        **_COMMON_UPDATES,
        "set-current-schema": obj({"schema-id": INTEGER}),
        "remove-schemas": obj({"schema-ids": INTEGERS}),
        "add-spec": obj({"spec": PARTITION_SPEC}),
        "set-default-spec": obj({"spec-id": INTEGER}),
        "remove-partition-specs": obj({"spec-ids": INTEGERS}),
        "add-sort-order": obj({"sort-order": SORT_ORDER}),
        "set-default-sort-order": obj({"sort-order-id": INTEGER}),
        "add-snapshot": obj({"snapshot": SNAPSHOT}),
        "set-snapshot-ref": obj(
            {"ref-name": STRING, "type": STRING, "snapshot-id": INTEGER},
            {"max-ref-age-ms": INTEGER, "max-snapshot-age-ms": INTEGER, "min-snapshots-to-keep": INTEGER},
        ),
        "remove-snapshot-ref": obj({"ref-name": STRING}),
        "remove-snapshots": obj({"snapshot-ids": INTEGERS}),
        "set-statistics": obj({"statistics": STATISTICS}, {"snapshot-id": INTEGER}),
        "remove-statistics": obj({"snapshot-id": INTEGER}),
        "set-partition-statistics": obj({"partition-statistics": PARTITION_STATISTICS}),
        "remove-partition-statistics": obj({"snapshot-id": INTEGER}),
        "add-encryption-key": obj({"encryption-key": ENCRYPTION_KEY}),
        "remove-encryption-key": obj({"key-id": STRING}),
    },
    "table update action",
)
_ID_REQUIREMENT = {
    "assert-last-assigned-field-id": "last-assigned-field-id",
    "assert-current-schema-id": "current-schema-id",
    "assert-last-assigned-partition-id": "last-assigned-partition-id",
    "assert-default-spec-id": "default-spec-id",
    "assert-default-sort-order-id": "default-sort-order-id",
}
TABLE_REQUIREMENT = tagged(
    "type",
    {
        "assert-create": obj(),
        "assert-table-uuid": obj({"uuid": STRING}),
        "assert-ref-snapshot-id": obj({"ref": STRING, "snapshot-id": nullable(INTEGER)}),
        **{kind: obj({field: INTEGER}) for kind, field in _ID_REQUIREMENT.items()},
    },
    "table requirement",
)
VIEW_UPDATE = tagged(
    "action",
    {
        **_COMMON_UPDATES,
        "add-view-version": obj({"view-version": VIEW_VERSION}),
        "set-current-view-version": obj({"view-version-id": INTEGER}),
    },
    "view update action",
)
VIEW_REQUIREMENT = tagged("type", {"assert-view-uuid": obj({"uuid": STRING})}, "view requirement")

_TABLE_CHANGES = {"requirements": list_of(TABLE_REQUIREMENT), "updates": list_of(TABLE_UPDATE)}

# The bodies, one per route that takes one.
CREATE_WAREHOUSE = obj({"name": _warehouse}, {"properties": STRING_MAP, "upgrade-existing": BOOLEAN})
CREATE_NAMESPACE = obj({"namespace": _namespace}, {"properties": STRING_MAP})
UPDATE_NAMESPACE_PROPERTIES = obj(optional={"updates": STRING_MAP, "removals": STRINGS})
CREATE_TABLE = obj(
    {"name": _name, "schema": _schema},
    {
        "location": STRING,
        "partition-spec": PARTITION_SPEC,
        "write-order": SORT_ORDER,
        "stage-create": BOOLEAN,
        "properties": STRING_MAP,
    },
)
REGISTER_TABLE = obj({"name": _name, "metadata-location": STRING}, {"overwrite": BOOLEAN})
REGISTER_VIEW = obj({"name": _name, "metadata-location": STRING})
COMMIT_TABLE = obj(optional={"identifier": IDENTIFIER, **_TABLE_CHANGES})
COMMIT_TRANSACTION = obj({"table-changes": list_of(obj({"identifier": IDENTIFIER}, _TABLE_CHANGES))})
RENAME = obj({"source": IDENTIFIER, "destination": IDENTIFIER})
REPORT_METRICS = obj({"report-type": STRING}, {"table-name": STRING, "snapshot-id": INTEGER, "metrics": _anything})
CREATE_VIEW = obj(
    {"name": _name, "schema": _schema, "view-version": VIEW_VERSION},
    {"location": STRING, "properties": STRING_MAP},
)
COMMIT_VIEW = obj(
    optional={"identifier": IDENTIFIER, "requirements": list_of(VIEW_REQUIREMENT), "updates": list_of(VIEW_UPDATE)}
)



def _setting_value(value: object, path: str) -> None:
    if value is not None and not isinstance(value, (str, int)):  # bool is an int
        _fail(path, "a string, number, boolean or null", value)


# The maintenance API (api/maintenance_handlers.py): settings to set (null removes one), and a run.
MAINTENANCE_SETTINGS = obj({"settings": map_of(_setting_value)})
MAINTENANCE_RUN = obj(optional={"operations": STRINGS, "dry-run": BOOLEAN})


def check(shape: Check, body: object) -> dict:
    """``body`` when it has ``shape``; raises BadRequestException saying where it does not."""
    shape(body, "body")
    return body  # type: ignore[return-value]
