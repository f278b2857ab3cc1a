"""Unreferenced-file removal (Iceberg's ``remove_orphan_files``, S3 Tables' unreferenced file removal):
objects under a table's location that its metadata does not reference are marked, then deleted once
they have stayed unreferenced for the deletion delay.

A run lists the objects under the table's location (paged) and sorts each one:
- referenced (reachable_files.py: every metadata file of the log, every snapshot's manifest list,
  manifests, data, delete and deletion-vector files, statistics files): kept, its mark dropped;
- under the location of another table nested inside this one: that table's business, never touched;
- modified less than the grace period ago: never marked (an engine may be between writing it and
  committing it);
- otherwise marked, with the run's time, unless already marked; a mark older than the deletion delay
  makes the file due. A mark whose file is gone, referenced again, or rewritten since is dropped.
The marks are the caller's to keep between runs (the runner stores them with the table's state).

Why this is safe against concurrent writers. A writer (an engine, or compaction) first writes its new
files, then commits metadata that references them; a commit can only reference files the writer
wrote before it, and no writer takes longer than the grace period between writing a file and
committing it. So a file older than the grace period that no committed metadata references will
never be referenced by anyone, and only such files are marked. Deletion waits the deletion delay on
top, and right before deleting, the table's current metadata is loaded again and every due file is
checked against it: a commit that landed since the listing (even one that took longer than assumed)
is seen, and its files are kept. A commit that lands after that re-check can only reference files
its writer wrote within the grace period, which are never marked, let alone due. Each deletion is
conditional on the object's ETag as listed, so an object rewritten in the meantime is a new file,
judged afresh by the next run. Files are only ever listed under the table's own location (never a
bucket's root, never the service's own bucket), the current metadata file and every file referenced
are kept, a table whose location lies inside (or is) another table's location is skipped (the outer
table's metadata, which may reference files there, is not read here), so is a location that also
holds a Delta log (Delta's files are not Iceberg's to judge), and a dry run deletes nothing
and returns the marks unchanged. A metadata file that cannot be read makes the run fail, deleting
nothing: an incomplete view of the references must never pass for the table's.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyiceberg.table import Table

from ...store import NoSuchBucket, NoSuchKey, ObjectInfo, ObjectLocked, ObjectStore, PreconditionFailed
from ...store.locations import OutsideScope, Scope, split_location, table_scope
from ...store.types import WriteCondition
from .reachable_files import ReachableFiles
from .report import FileEntry, OperationReport
from .settings import MaintenanceSettings

OPERATION = "remove-unreferenced-files"
# New marks stop here: bounds the run's memory and the state document; the rest are marked later.
MAX_MARKS = 10_000


def remove_unreferenced(
    table: Table,
    store: ObjectStore,
    settings: MaintenanceSettings,
    marks: dict[str, int],
    *,
    dry_run: bool,
    now_ms: int,
    other_locations: Sequence[str] = (),
) -> tuple[OperationReport, dict[str, int]]:
    """Mark and delete the unreferenced files of ``table``. ``marks``: ``s3://bucket/key`` -> epoch ms
    it was marked, from the last run; ``other_locations``: the locations of every other table whose
    files may share the bucket (the warehouse's other tables, not this one; Delta tables some share
    holds). Returns the report and the marks to keep (``marks`` itself in a dry run)."""
    report = OperationReport(OPERATION, dry_run)
    try:
        scope = table_scope(store, table.location())
    except OutsideScope as exc:
        report.skipped = f"the table's location is not a folder its files can be listed under: {exc}"
        return report, marks
    others = _scopes(other_locations, scope.bucket)
    enclosing = [other.root for other in others if _inside(scope, other)]
    if enclosing:
        report.skipped = (f"the table's location lies inside another table's ({enclosing[0]}), whose "
                          "metadata may reference files under it")
        return report, marks
    nested = [f"{other.folder}/" for other in others if _inside(other, scope)]
    if store.list_objects(scope.bucket, prefix=f"{scope.folder}/_delta_log/", max_keys=1).objects:
        report.skipped = ("the table's location also holds a Delta log (a UniForm table, say): the files "
                          "Delta references cannot be told from unreferenced ones here")
        return report, marks

    reachable = ReachableFiles(table.io)
    reachable.add(table.metadata, table.metadata_location)
    counts = {"listed": 0, "referenced": 0, "other-tables": 0, "young": 0, "not-marked-yet": 0, "kept-locked": 0}
    new_marks: dict[str, int] = {}
    due: list[ObjectInfo] = []
    for obj in store.iter_objects(scope.bucket, f"{scope.folder}/"):
        counts["listed"] += 1
        path = f"s3://{obj.bucket}/{obj.key}"
        if obj.key.startswith(tuple(nested)):
            counts["other-tables"] += 1
        elif path in reachable:
            counts["referenced"] += 1
        elif now_ms - obj.last_modified * 1000 < settings.unreferenced_grace_ms:
            counts["young"] += 1
        elif path not in marks and len(new_marks) >= MAX_MARKS:  # marks kept keep their age
            counts["not-marked-yet"] += 1
        else:
            marked_ms = marks.get(path)
            if marked_ms is None or marked_ms < obj.last_modified * 1000:  # unmarked, or rewritten since
                new_marks[path] = now_ms
                report.marked_files.append(FileEntry(path, obj.size))
            else:
                new_marks[path] = marked_ms
                if now_ms - marked_ms >= settings.unreferenced_delay_ms:
                    due.append(obj)

    if due:
        # The re-check: the files of whatever was committed since the listing are neither marked nor deleted.
        table.refresh()
        reachable.add(table.metadata, table.metadata_location)
        new_marks = {path: marked_ms for path, marked_ms in new_marks.items() if path not in reachable}
        report.marked_files = [entry for entry in report.marked_files if entry.path not in reachable]
        for obj in due:
            path = f"s3://{obj.bucket}/{obj.key}"
            if path not in new_marks:
                continue
            outcome = "would-delete" if dry_run else _delete(store, obj)
            if outcome == "locked":
                counts["kept-locked"] += 1
                continue
            if outcome in ("deleted", "would-delete"):
                report.removed_files.append(FileEntry(path, obj.size))
            del new_marks[path]
    report.details = {**counts, "marked-total": len(new_marks)}
    if not report.marked_files and not report.removed_files:
        report.skipped = (f"nothing to mark or delete: {counts['listed']} files listed, {counts['referenced']} "
                          f"referenced, {counts['young']} inside the grace period, {len(new_marks)} marked")
    return report, (marks if dry_run else new_marks)


def _delete(store: ObjectStore, obj: ObjectInfo) -> str:
    """Delete the object if it is still the one listed: deleted, changed (rewritten or gone since the
    listing: a new file is judged afresh by the next run), or locked (its mark stays)."""
    try:
        store.delete_object(obj.bucket, obj.key, WriteCondition(if_match=obj.etag))
    except (PreconditionFailed, NoSuchKey, NoSuchBucket):
        return "changed"
    except ObjectLocked:
        return "locked"
    return "deleted"


def _scopes(locations: Sequence[str], bucket: str) -> list[Scope]:
    """The folders of ``bucket`` the locations name (a bucket's root is the folder "")."""
    scopes = []
    for location in locations:
        try:
            other_bucket, key = split_location(location)
        except OutsideScope:
            continue  # not an object location: nothing of the store's lies under it
        if other_bucket == bucket:
            scopes.append(Scope(bucket, key.strip("/")))
    return scopes


def _inside(inner: Scope, outer: Scope) -> bool:
    """Whether ``inner``'s folder is ``outer``'s or lies under it (same bucket)."""
    return not outer.folder or f"{inner.folder}/".startswith(f"{outer.folder}/")
