"""View metadata JSON (view spec v1): creating a view and applying ViewUpdate actions with the Java
reference's semantics (ViewMetadata.Builder): schema and version id reuse, ``-1`` for the last
added, version log upkeep, version expiry and the dropped-dialect check."""

from __future__ import annotations

import copy
from collections.abc import Callable

from . import schemas
from .errors import BadRequestException
from .table_metadata import check_properties

VIEW_FORMAT_VERSION = 1
LAST_ADDED = -1
_HISTORY_SIZE = "version.history.num-entries"
_HISTORY_SIZE_DEFAULT = 10
_DROP_DIALECT_ALLOWED = "replace.drop-dialect.allowed"
# View schemas may use every type the newest table format allows.
_SCHEMA_TYPES_VERSION = 3


def _check_version(version: object, now_ms: int) -> dict:
    if not isinstance(version, dict):
        raise BadRequestException("Invalid view version: must be an object")
    # Optional fields sent as null are left out, as absent ones are.
    version = {key: value for key, value in copy.deepcopy(version).items() if value is not None}
    version.setdefault("timestamp-ms", now_ms)
    version.setdefault("summary", {})
    for key in ("version-id", "schema-id", "timestamp-ms"):
        if not isinstance(version.get(key), int) or isinstance(version.get(key), bool):
            raise BadRequestException(f"Invalid view version: {key} must be an integer")
    if not isinstance(version.get("default-namespace"), list):
        raise BadRequestException("Invalid view version: default-namespace is required")
    reps = version.get("representations")
    if not isinstance(reps, list) or not all(
        isinstance(r, dict) and isinstance(r.get("type"), str) for r in reps
    ):
        raise BadRequestException("Invalid view version: representations must be a list of typed objects")
    dialects = set()
    for rep in reps:
        # SQL is the only representation the spec defines; another would be served to clients that
        # cannot read it.
        if rep["type"] != "sql":
            raise BadRequestException(f"Unsupported view representation type: {rep['type'][:64]!r}")
        if not isinstance(rep.get("sql"), str) or not isinstance(rep.get("dialect"), str):
            raise BadRequestException("Invalid SQL representation: sql and dialect are required")
        dialect = rep["dialect"].lower()
        if dialect in dialects:
            raise BadRequestException(
                f"Invalid view version: Cannot add multiple queries for dialect {dialect}"
            )
        dialects.add(dialect)
    return version


def _dialects(version: dict) -> set[str]:
    return {r["dialect"].lower() for r in version["representations"] if r.get("type") == "sql"}


def _same_version(one: dict, two: dict) -> bool:
    keys = ("summary", "representations", "default-catalog", "default-namespace", "schema-id")
    return all(one.get(key) == two.get(key) for key in keys)


def serialize_view(m: dict) -> dict:
    keys = (
        "view-uuid",
        "format-version",
        "location",
        "schemas",
        "current-version-id",
        "versions",
        "version-log",
    )
    out = {key: m[key] for key in keys}
    out["properties"] = m["properties"]
    return out


def normalize_view(raw: dict) -> dict:
    m = dict(raw)
    if m.get("format-version") != VIEW_FORMAT_VERSION:
        raise BadRequestException(f"Unsupported view format version: {m.get('format-version')!r}")
    for key in ("view-uuid", "location", "current-version-id", "versions", "schemas"):
        if key not in m:
            raise BadRequestException(f"Invalid view metadata: {key} is required")
    m["version-log"] = list(m.get("version-log") or [])
    m["properties"] = dict(m.get("properties") or {})
    return m


class ViewMetadataBuilder:
    def __init__(self, base: dict | None, *, now_ms: Callable[[], int], check_location: Callable[[str], str]):
        self.base = base
        self.m = (
            copy.deepcopy(base)
            if base
            else {
                "view-uuid": None,
                "format-version": VIEW_FORMAT_VERSION,
                "location": None,
                "schemas": [],
                "current-version-id": None,
                "versions": [],
                "version-log": [],
                "properties": {},
            }
        )
        self._now_ms = now_ms
        self._check_location = check_location
        self.changed = False
        self._added_versions: set[int] = set()
        self._last_added_schema: int | None = None
        self._last_added_version: int | None = None
        self._history_entry: dict | None = None

    def apply_all(self, updates: object) -> None:
        if not isinstance(updates, list):
            raise BadRequestException("Invalid commit: updates must be a list")
        for update in updates:
            action = update.get("action") if isinstance(update, dict) else update
            if not isinstance(action, str) or action not in _VIEW_HANDLERS:
                raise BadRequestException(f"Unknown view update action: {action!r}")
        for update in updates:
            _VIEW_HANDLERS[update["action"]](self, update)

    def _assign_uuid(self, update: dict) -> None:
        new_uuid = update.get("uuid")
        if not isinstance(new_uuid, str):
            raise BadRequestException("Invalid assign-uuid update: uuid is required")
        if self.m["view-uuid"] not in (None, new_uuid):
            raise BadRequestException("Cannot reassign uuid")
        if self.m["view-uuid"] != new_uuid:
            self.m["view-uuid"] = new_uuid
            self.changed = True

    def _upgrade_format_version(self, update: dict) -> None:
        version = update.get("format-version")
        if version != VIEW_FORMAT_VERSION:
            raise BadRequestException(f"Unsupported view format version: {version!r}")

    def _add_schema(self, update: dict) -> None:
        self.add_schema(update.get("schema"))

    def add_schema(self, schema: object) -> int:
        schema = copy.deepcopy(schemas.check_schema(schema, _SCHEMA_TYPES_VERSION))
        new_id = 0
        for existing in self.m["schemas"]:
            if schemas.same_schema(existing, schema):
                return existing["schema-id"]
            new_id = max(new_id, existing["schema-id"] + 1)
        schema["schema-id"] = new_id
        schema.setdefault("type", "struct")
        self.m["schemas"].append(schema)
        self._last_added_schema = new_id
        self.changed = True
        return new_id

    def _set_location(self, update: dict) -> None:
        location = update.get("location")
        if not isinstance(location, str):
            raise BadRequestException("Invalid set-location update: location is required")
        location = self._check_location(location)
        if location != self.m["location"]:
            self.m["location"] = location
            self.changed = True

    def _set_properties(self, update: dict) -> None:
        updates = check_properties(update.get("updates"))
        if updates:
            self.m["properties"].update(updates)
            self.changed = True

    def _remove_properties(self, update: dict) -> None:
        removals = update.get("removals")
        if not isinstance(removals, list):
            raise BadRequestException("Invalid remove-properties update: removals must be a list")
        if removals:
            for key in removals:
                self.m["properties"].pop(key, None)
            self.changed = True

    def _add_view_version(self, update: dict) -> None:
        self.add_version(update.get("view-version"))

    def add_version(self, version: object) -> int:
        version = _check_version(version, self._now_ms())
        new_id = version["version-id"]
        for existing in self.m["versions"]:
            if _same_version(existing, version):
                new_id = existing["version-id"]
                break
            new_id = max(new_id, existing["version-id"] + 1)
        if any(v["version-id"] == new_id for v in self.m["versions"]):
            self._last_added_version = new_id if new_id in self._added_versions else None
            return new_id
        version["version-id"] = new_id
        if version["schema-id"] == LAST_ADDED:
            if self._last_added_schema is None:
                raise BadRequestException("Cannot set last added schema: no schema has been added")
            version["schema-id"] = self._last_added_schema
        if not any(s["schema-id"] == version["schema-id"] for s in self.m["schemas"]):
            raise BadRequestException(f"Cannot add version with unknown schema: {version['schema-id']}")
        self.m["versions"].append(version)
        self._added_versions.add(new_id)
        self._last_added_version = new_id
        self.changed = True
        return new_id

    def _set_current_view_version(self, update: dict) -> None:
        version_id = update.get("view-version-id")
        if not isinstance(version_id, int):
            raise BadRequestException("Invalid set-current-view-version update: view-version-id is required")
        self.set_current_version(version_id)

    def set_current_version(self, version_id: int) -> None:
        if version_id == LAST_ADDED:
            if self._last_added_version is None:
                raise BadRequestException("Cannot set last version id: no current version id has been set")
            version_id = self._last_added_version
        if version_id == self.m["current-version-id"]:
            return
        version = next((v for v in self.m["versions"] if v["version-id"] == version_id), None)
        if version is None:
            raise BadRequestException(f"Cannot set current version to unknown version: {version_id}")
        self.m["current-version-id"] = version_id
        when = version["timestamp-ms"] if version_id in self._added_versions else self._now_ms()
        self._history_entry = {"timestamp-ms": when, "version-id": version_id}
        self.changed = True

    def build(self) -> dict | None:
        if not self.changed:
            return None
        m = self.m
        if m["location"] is None or not m["versions"] or m["current-version-id"] is None:
            raise BadRequestException("Invalid view: a location and a current version are required")
        if self._history_entry is not None:
            m["version-log"].append(self._history_entry)
        current = next(v for v in m["versions"] if v["version-id"] == m["current-version-id"])
        if self.base is not None and m["properties"].get(_DROP_DIALECT_ALLOWED, "false").lower() != "true":
            previous = next(
                v for v in self.base["versions"] if v["version-id"] == self.base["current-version-id"]
            )
            if not _dialects(previous) <= _dialects(current):
                raise BadRequestException(
                    f"Cannot replace view due to loss of view dialects ({_DROP_DIALECT_ALLOWED}=false): "
                    f"previous dialects {sorted(_dialects(previous))}, "
                    f"new dialects {sorted(_dialects(current))}"
                )
        self._expire_versions(current)
        return m

    def _expire_versions(self, current: dict) -> None:
        m = self.m
        try:
            history_size = int(m["properties"].get(_HISTORY_SIZE, _HISTORY_SIZE_DEFAULT))
        except ValueError:
            history_size = 0
        if history_size <= 0:
            raise BadRequestException(f"{_HISTORY_SIZE} must be positive")
        keep = max(len(self._added_versions | {current["version-id"]}), history_size)
        if len(m["versions"]) <= keep:
            return
        newest_first = sorted((v["version-id"] for v in m["versions"] if v is not current), reverse=True)
        kept_ids = {current["version-id"], *newest_first[: keep - 1]}
        m["versions"] = [v for v in m["versions"] if v["version-id"] in kept_ids]
        log: list[dict] = []
        for entry in m["version-log"]:
            if entry["version-id"] in kept_ids:
                log.append(entry)
            else:
                log.clear()  # no gaps: forget the history before an expired version
        m["version-log"] = log


_VIEW_HANDLERS: dict[str, Callable[[ViewMetadataBuilder, dict], None]] = {
    "assign-uuid": ViewMetadataBuilder._assign_uuid,
    "upgrade-format-version": ViewMetadataBuilder._upgrade_format_version,
    "add-schema": ViewMetadataBuilder._add_schema,
    "set-location": ViewMetadataBuilder._set_location,
    "set-properties": ViewMetadataBuilder._set_properties,
    "remove-properties": ViewMetadataBuilder._remove_properties,
    "add-view-version": ViewMetadataBuilder._add_view_version,
    "set-current-view-version": ViewMetadataBuilder._set_current_view_version,
}


def new_view_metadata(request: dict, location: str, view_uuid: str, now_ms: int) -> dict:
    """The first metadata of a view from a CreateViewRequest: schema id 0, version id 1."""
    builder = ViewMetadataBuilder(None, now_ms=lambda: now_ms, check_location=lambda loc: loc)
    builder.m.update(
        {
            "view-uuid": view_uuid,
            "location": location,
            "properties": check_properties(request.get("properties")),
        }
    )
    schema_id = builder.add_schema(request.get("schema"))
    version = request.get("view-version")
    if not isinstance(version, dict):
        raise BadRequestException("Invalid view: view-version is required")
    builder.set_current_version(builder.add_version({**version, "version-id": 1, "schema-id": schema_id}))
    return builder.build()  # type: ignore[return-value]
