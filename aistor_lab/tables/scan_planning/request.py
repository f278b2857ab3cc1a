"""A planTableScan request read into PyIceberg's own model of it (``PlanTableScanRequest``: the filter
as a PyIceberg expression, the spec's rules on which snapshot fields go together), and checked
against the table before any manifest is read: the filter binds, the selected and stats fields
exist, the snapshots are the table's."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError
from pyiceberg.catalog.rest.scan_planning import PlanTableScanRequest
from pyiceberg.expressions import AlwaysTrue, BooleanExpression
from pyiceberg.expressions.visitors import bind
from pyiceberg.schema import Schema
from pyiceberg.table.metadata import TableMetadata
from pyiceberg.table.snapshots import Snapshot, is_parent_ancestor_of

from ..errors import BadRequestException


@dataclass(frozen=True)
class ScanRequest:
    """What to plan: a point-in-time scan of ``snapshot`` (None: the table is empty), or the files
    appended after ``start_snapshot_id`` up to ``snapshot`` when ``incremental``."""

    snapshot: Snapshot | None
    schema: Schema
    row_filter: BooleanExpression
    case_sensitive: bool
    stats_field_ids: frozenset[int]
    incremental: bool = False
    start_snapshot_id: int | None = None


def parse_request(body: dict) -> PlanTableScanRequest:
    """The body as PyIceberg's model; a malformed filter or a wrong mix of snapshot fields is a 400."""
    try:
        return PlanTableScanRequest.model_validate(body)
    except (ValidationError, ValueError, TypeError) as exc:
        # A filter of an unknown type fails inside PyIceberg's expression parsing as a TypeError.
        raise BadRequestException(f"Invalid scan planning request: {_first_line(exc)}") from None


def resolve(request: PlanTableScanRequest, metadata: TableMetadata) -> ScanRequest:
    """The request checked against the table's metadata."""
    incremental = request.end_snapshot_id is not None
    snapshot_id = request.end_snapshot_id if incremental else request.snapshot_id
    if snapshot_id is None:
        snapshot = metadata.current_snapshot()
    else:
        snapshot = metadata.snapshot_by_id(snapshot_id)
        if snapshot is None:
            raise BadRequestException(f"Snapshot does not exist: {snapshot_id}")
    if incremental and request.start_snapshot_id is not None and not is_parent_ancestor_of(
        snapshot.snapshot_id, request.start_snapshot_id, metadata
    ):
        raise BadRequestException(
            f"start-snapshot-id {request.start_snapshot_id} is not an ancestor of end-snapshot-id {snapshot_id}"
        )
    schema = metadata.schema()
    # Time travel reads with the schema the snapshot was written with, when the client asks for it.
    if request.use_snapshot_schema and snapshot is not None and snapshot.schema_id is not None:
        schema = metadata.schema_by_id(snapshot.schema_id) or schema
    row_filter = request.filter if request.filter is not None else AlwaysTrue()
    case_sensitive = request.case_sensitive
    try:
        bind(schema, row_filter, case_sensitive)
        if request.select:
            schema.select(*request.select, case_sensitive=case_sensitive)
        stats_ids = frozenset(
            _field_id(schema, name, case_sensitive) for name in request.stats_fields or ()
        )
    except ValueError as exc:
        raise BadRequestException(f"Invalid scan planning request: {_first_line(exc)}") from None
    return ScanRequest(snapshot, schema, row_filter, case_sensitive, stats_ids,
                       incremental=incremental, start_snapshot_id=request.start_snapshot_id)


def _field_id(schema: Schema, name: str, case_sensitive: bool) -> int:
    field = schema.find_field(name, case_sensitive=case_sensitive)
    return field.field_id


def _first_line(exc: Exception) -> str:
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]  # pydantic's own first line names only the model
        where = ".".join(str(part) for part in error["loc"])
        return f"{where + ': ' if where else ''}{error['msg']}"[:300]
    return str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
