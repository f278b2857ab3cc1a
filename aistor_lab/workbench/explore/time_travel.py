"""Which snapshot of an Iceberg table a request means: the current one, a snapshot id, the one
current at a time (``asOf``), or a branch or tag (``ref``). On PyIceberg's parsed TableMetadata."""

from __future__ import annotations

from datetime import UTC, datetime

from ..commands.actions import UsageError


def parse_time_ms(text: str) -> int:
    """An ISO-8601 time (a naive one is UTC) or milliseconds since the epoch -> epoch milliseconds."""
    text = text.strip()
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{text!r} is not a time: give ISO 8601 (2024-05-01T12:00:00Z) "
                         "or milliseconds since the epoch") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def snapshot_as_of(metadata, as_of_ms: int) -> int:
    """The snapshot that was current at ``as_of_ms``: the latest of the table's snapshot log (its
    history of current snapshots) at or before it."""
    history = [(entry.timestamp_ms, entry.snapshot_id) for entry in metadata.snapshot_log]
    if not history:
        history = [(snapshot.timestamp_ms, snapshot.snapshot_id) for snapshot in metadata.snapshots]
    history.sort()
    earlier = [snapshot_id for timestamp, snapshot_id in history if timestamp <= as_of_ms]
    if not earlier:
        if not history:
            raise UsageError("the table has no snapshots yet: there is nothing to travel back to")
        raise UsageError(f"{_iso(as_of_ms)} is before the table's first snapshot ({_iso(history[0][0])}): "
                         "give a later time")
    return earlier[-1]


def resolve_snapshot(metadata, snapshot: str | None = None, as_of: str | None = None,
                     ref: str | None = None) -> int | None:
    """The snapshot id to read (None: the table has no snapshot yet). At most one of ``snapshot``,
    ``as_of`` and ``ref`` may be given; an unknown one is a UsageError naming what exists."""
    given = [name for name, value in (("snapshot", snapshot), ("asOf", as_of), ("ref", ref)) if value]
    if len(given) > 1:
        raise UsageError(f"give one of snapshot, asOf and ref, not {' and '.join(given)}")
    if snapshot:
        try:
            snapshot_id = int(snapshot)
        except ValueError:
            raise UsageError(f"snapshot must be a snapshot id (a number), not {snapshot!r}") from None
        if metadata.snapshot_by_id(snapshot_id) is None:
            raise UsageError(f"the table has no snapshot {snapshot_id}: see its snapshots for the ids it has")
        return snapshot_id
    if as_of:
        return snapshot_as_of(metadata, parse_time_ms(as_of))
    if ref:
        if ref not in metadata.refs:
            known = ", ".join(sorted(metadata.refs)) or "none"
            raise UsageError(f"the table has no branch or tag {ref!r} (it has: {known})")
        return metadata.refs[ref].snapshot_id
    return metadata.current_snapshot_id


def rows_as_of(client, warehouse: str, namespace: str, table: str, limit: int, snapshot: str | None = None,
               as_of: str | None = None):
    """The first ``limit`` rows (a pyarrow Table) of the snapshot a ``snapshot`` id or an ``as_of``
    time names, or of the current one: one catalog call, then S3 reads."""
    loaded = client.load_table(warehouse, namespace, table)
    snapshot_id = resolve_snapshot(client.table_scan(loaded).table_metadata, snapshot=snapshot, as_of=as_of)
    return client.first_rows(table, loaded, limit, snapshot_id)
