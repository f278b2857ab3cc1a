"""The background job that applies lifecycle rules: ``run_once`` walks every bucket that has a
lifecycle configuration (the service calls it every ``lifecycle_interval_seconds``, off the event loop).

Work is bounded: a run looks at no more than ``batch_size`` versions and ``batch_size`` multipart
uploads per bucket, and stores where it stopped (state.py), so the next run, on this server or
another, after a restart or not, continues from there; a walk that reaches the end starts over at
the next run. Each bucket's last run is reported (``report``): what it removed, and each file it left
because a live table holds it (live_tables.py), with the reason.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from ..store import (
    NoSuchBucket,
    NoSuchKey,
    NoSuchUpload,
    NoSuchVersion,
    ObjectLocked,
    ObjectStore,
    ObjectVersion,
    PreconditionFailed,
    WriteCondition,
)
from .evaluation import DELETE_NONCURRENT, EXPIRE_CURRENT, Action, key_actions, upload_due
from .live_tables import LiveTables, protection
from .rules import Configuration, Rule
from .state import bucket_states
from .xml_config import parse

log = logging.getLogger(__name__)

CONFIG_NAME = "lifecycle"  # the bucket configuration document the S3 API stores
MAX_SKIPS_LISTED = 100  # skipped files named in a report; the count covers them all
_COUNTERS = {EXPIRE_CURRENT: "expired", DELETE_NONCURRENT: "noncurrentDeleted"}


class LifecycleRunner:
    def __init__(self, store: ObjectStore, live_tables: LiveTables, *, day_seconds: float = 86400,
                 batch_size: int = 1000, clock: Callable[[], float] = time.time):
        self.store = store
        self.live_tables = live_tables
        self.day_seconds = day_seconds
        self.batch_size = batch_size
        self.clock = clock
        self.states = bucket_states(store, clock)

    def run_once(self) -> None:
        for bucket in self.store.list_buckets():
            try:
                document = self.store.get_bucket_config(bucket.name, CONFIG_NAME)
                if document is not None:
                    self.run_bucket(bucket.name, parse(document))
            except NoSuchBucket:
                continue  # deleted meanwhile
            except Exception:  # one bucket's failure (its tables unreadable, ...) must not stop the others
                log.exception("lifecycle run of bucket %s failed; the next run tries again", bucket.name)

    def report(self, bucket: str) -> dict | None:
        """The last run's report and where the walk stands, None before any run."""
        state = self.states.read(bucket)
        return None if state is None else {k: v for k, v in state.items() if k != "lease"}

    def run_bucket(self, bucket: str, configuration: Configuration) -> None:
        claimed = self.states.claim(bucket)
        if claimed is None:
            return  # another server is on it
        state, etag = claimed
        rules = configuration.enabled_rules()
        run = _Run(bucket, self.clock(), self.live_tables.protected_prefixes(bucket))
        cursor = state.get("cursor") or {}
        try:
            keys_done = self._walk_versions(run, rules, cursor.get("key", ""))
            uploads_done = self._walk_uploads(run, rules, cursor.get("uploadKey", ""), cursor.get("uploadId", ""))
        except BaseException:
            self.states.release(bucket, state, etag)  # the next run starts again where this one did
            raise
        next_cursor = {}
        if keys_done is not None:
            next_cursor["key"] = keys_done
        if uploads_done is not None:
            next_cursor["uploadKey"], next_cursor["uploadId"] = uploads_done
        report = run.report(self.clock(), complete=not next_cursor)
        if not self.states.release(bucket, {**state, "cursor": next_cursor, "lastRun": report}, etag):
            log.warning("lifecycle lease of bucket %s was lost during a run", bucket)
        for skipped in report["skippedFiles"]:
            log.info("lifecycle left %s/%s (rule %s): %s", bucket, skipped["key"], skipped["rule"], skipped["reason"])

    # -- versions ----------------------------------------------------------------------------
    def _walk_versions(self, run: _Run, rules: list[Rule], start_after: str) -> str | None:
        """Apply the rules to the keys after ``start_after``, at most a batch of versions; the last key
        done when the batch ran out, None when the walk reached the end."""
        if not any(r.expiration or r.noncurrent_expiration for r in rules):
            return None
        needs_tags = not self.store.lists_tags and any(rule.has_tags for rule in rules)
        for versions in self._keys(run.bucket, start_after):
            if needs_tags:
                versions = self._with_tags(run.bucket, versions)
            for action in key_actions(rules, versions, run.started, self.day_seconds):
                self._apply(run, action)
            run.scanned += len(versions)
            if run.scanned >= self.batch_size:
                return versions[0].info.key
        return None

    def _keys(self, bucket: str, start_after: str) -> Iterator[list[ObjectVersion]]:
        """All versions of each key after ``start_after``, a key at a time."""
        key_marker, version_marker = start_after, ""
        group: list[ObjectVersion] = []
        while True:
            page = self.store.list_object_versions(bucket, key_marker=key_marker, version_id_marker=version_marker,
                                                   max_keys=min(self.batch_size, 1000))
            for entry in page.versions:
                if group and entry.info.key != group[0].info.key:
                    yield group
                    group = []
                group.append(entry)
            if not page.is_truncated or not page.next_key_marker:
                break
            key_marker, version_marker = page.next_key_marker, page.next_version_id_marker or ""
        if group:
            yield group

    def _with_tags(self, bucket: str, versions: list[ObjectVersion]) -> list[ObjectVersion]:
        """A key's versions with their tags read one by one, for a store whose listings lack them."""
        tagged = []
        for entry in versions:
            if not entry.is_delete_marker:
                try:
                    tags = self.store.tagged_object_info(bucket, entry.info.key, entry.info.version_id).tags
                    entry = replace(entry, info=replace(entry.info, tags=tags))
                except (NoSuchKey, NoSuchVersion):
                    pass  # removed meanwhile: no tag rule matches it, and the next run looks again
            tagged.append(entry)
        return tagged

    def _apply(self, run: _Run, action: Action) -> None:
        why = protection(run.protected, action.key)
        if why is not None:
            run.skip(action, why)
            return
        try:
            if action.kind == EXPIRE_CURRENT:
                # Only the version judged: one written since is not expired by this run.
                self.store.delete_object(run.bucket, action.key, WriteCondition(if_match=action.etag))
            else:
                self.store.delete_object(run.bucket, action.key, version_id=action.version_id)
        except (PreconditionFailed, NoSuchKey):
            return  # changed meanwhile; the next run judges it again
        except ObjectLocked as exc:
            run.skip(action, f"object lock: {exc}")  # a rule never bypasses a retention or legal hold
            return
        run.count(_COUNTERS.get(action.kind, "deleteMarkersRemoved"))

    # -- multipart uploads -------------------------------------------------------------------
    def _walk_uploads(self, run: _Run, rules: list[Rule], key_marker: str,
                      upload_marker: str) -> tuple[str, str] | None:
        if not any(r.abort_after_days for r in rules):
            return None
        page = self.store.list_multipart_uploads(run.bucket, key_marker=key_marker, upload_id_marker=upload_marker,
                                                 max_uploads=self.batch_size)
        for upload in page.uploads:
            rule = upload_due(rules, upload, run.started, self.day_seconds)
            if rule is None:
                continue
            try:
                self.store.abort_multipart_upload(run.bucket, upload.key, upload.upload_id)
            except NoSuchUpload:
                continue  # completed or aborted meanwhile
            run.count("uploadsAborted")
        if page.is_truncated and page.next_key_marker:
            return page.next_key_marker, page.next_upload_id_marker or ""
        return None


class _Run:
    """The tallies of one run over one bucket."""

    def __init__(self, bucket: str, started: float, protected: list[tuple[str, str]]):
        self.bucket = bucket
        self.started = started
        self.protected = protected
        self.scanned = 0
        self.counts = {"expired": 0, "noncurrentDeleted": 0, "deleteMarkersRemoved": 0, "uploadsAborted": 0,
                       "skipped": 0}
        self.skipped: list[dict] = []

    def count(self, name: str) -> None:
        self.counts[name] += 1

    def skip(self, action: Action, why: str) -> None:
        self.count("skipped")
        if len(self.skipped) < MAX_SKIPS_LISTED:
            self.skipped.append({"key": action.key, "versionId": action.version_id, "action": action.kind,
                                 "rule": action.rule_id, "reason": why})

    def report(self, finished: float, *, complete: bool) -> dict:
        return {"started": self.started, "finished": finished, "scanned": self.scanned, **self.counts,
                "skippedFiles": self.skipped, "walkComplete": complete}
