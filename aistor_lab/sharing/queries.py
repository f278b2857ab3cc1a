"""The table operations of the protocol, on any ``TableSource``: version, metadata, query (snapshot
or streaming from a version) and the change data feed.

Version rules, as the reference server applies them: ``version``/``timestamp``/``startingVersion``
are mutually exclusive; a version outside the table's history, or a timestamp before its first
commit, is INVALID_PARAMETER_VALUE (but a ``version`` that is the snapshot id of one of an Iceberg
table's versions chooses that version: AIStor's time travel by snapshot id); ``startingTimestamp``
means the first version committed at or after it. The response format is the one asked for; when the client accepts both, parquet unless
the table's protocol needs a newer reader. A table that needs a reader feature the client did not
declare (column mapping, deletion vectors actually in use) is refused in a clear error rather than
served wrong. Hints (predicates, limit) only ever drop files that cannot matter.

Refresh tokens (``includeRefreshToken``, then ``refreshToken``, in snapshot queries of the latest
version): a long read asks again for new presigned URLs of the very version it started on. The token
is signed as page tokens are, names that version, is bound to the share, table, predicates, limit and
formats of the query, and expires.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..store.locations import Scope
from . import predicates
from .errors import InvalidParameter, MalformedRequest, UnsupportedOperation
from .presign import Presigner
from .protocol import (
    DELTA,
    PARQUET,
    Capabilities,
    PageTokens,
    fingerprint,
    parse_bool,
    parse_flag,
    parse_int,
    parse_timestamp,
)
from .responses import ResponseLines
from .source import FileAction, TableSource, VersionChanges

_COLUMN_MAPPING = "delta.columnMapping.mode"
_CDF = "delta.enableChangeDataFeed"
# As the reference server's default: long enough for a long read to refresh its URLs several times.
REFRESH_TOKEN_LIFETIME_MS = 60 * 60 * 1000


@dataclass
class Answer:
    """An NDJSON answer: its lines, the version for ``Delta-Table-Version``, the format used, and
    what the audit log records."""

    version: int
    format: str
    lines: list[dict]
    include_end_stream: bool = False
    audit: dict = field(default_factory=dict)


# One item of an answer's body, rendered (and its URLs signed) only if it lands on the page served.
_Item = Callable[[ResponseLines], dict]


class TableQueries:
    def __init__(self, presigner: Presigner, page_tokens: PageTokens, *, clock: Callable[[], float] = time.time):
        self._presigner = presigner
        self._tokens = page_tokens
        self._clock = clock

    # -- version ------------------------------------------------------------------------------
    def version(self, source: TableSource, starting_timestamp: str | None) -> int:
        if starting_timestamp is None:
            return source.latest_version()
        return version_at_or_after(source, parse_timestamp(starting_timestamp, "startingTimestamp"))

    # -- metadata -----------------------------------------------------------------------------
    def metadata(self, source: TableSource, params: dict[str, str], caps: Capabilities) -> Answer:
        version = parse_int(params.get("version"), "version")
        timestamp = params.get("timestamp")
        if version is not None and timestamp is not None:
            raise InvalidParameter("give either version or timestamp, not both")
        resolved = _snapshot_version(source, version, timestamp)
        table = source.table_version(resolved)
        response_format, plain = choose_format(caps, table.protocol, needed_features(table.metadata, []))
        lines = ResponseLines(response_format, self._presigner.signer(source.scope))
        explicit = resolved if version is not None or timestamp is not None else None
        body = [lines.protocol(table.protocol, plain=plain),
                lines.metadata(table.metadata, version=explicit, size=sum(f.size for f in table.files),
                               num_files=len(table.files))]
        return Answer(resolved, response_format, body, audit={"version": resolved})

    # -- query --------------------------------------------------------------------------------
    def query(self, source: TableSource, table_id: str, body: object, caps: Capabilities,
              file_id_hash: str | None = None) -> Answer:
        if not isinstance(body, dict):
            raise MalformedRequest("the query body must be a JSON object")
        version = parse_int(body.get("version"), "version")
        timestamp = body.get("timestamp")
        starting = parse_int(body.get("startingVersion"), "startingVersion")
        ending = parse_int(body.get("endingVersion"), "endingVersion")
        limit = parse_int(body.get("limitHint"), "limitHint")
        max_files = parse_int(body.get("maxFiles"), "maxFiles", minimum=1)
        if sum(x is not None for x in (version, timestamp, starting)) > 1:
            raise InvalidParameter("give only one of version, timestamp and startingVersion")
        if starting is not None and ending is not None and starting > ending:
            raise InvalidParameter(f"startingVersion ({starting}) must not be after endingVersion ({ending})")
        query_id = fingerprint({"table": table_id, "version": version, "timestamp": timestamp,
                                "startingVersion": starting, "endingVersion": ending, "limitHint": limit,
                                "jsonPredicateHints": body.get("jsonPredicateHints"),
                                "formats": caps.formats, "features": sorted(caps.reader_features)})
        include_refresh = parse_flag(body.get("includeRefreshToken"), "includeRefreshToken")
        refresh_of = fingerprint({"query": query_id, "predicateHints": body.get("predicateHints")})
        refreshed = self._refreshed_version(body, refresh_of, include_refresh, version, timestamp, starting)
        pinned, offset = self._page(body.get("pageToken"), "query", query_id)
        if starting is not None:
            return self._stream(source, starting, ending, caps, file_id_hash, max_files, query_id, pinned, offset)
        resolved = pinned if pinned is not None else refreshed
        if resolved is None:
            resolved = _snapshot_version(source, version, timestamp)
        table = source.table_version(resolved)
        files = table.files
        tree = predicates.parse(body.get("jsonPredicateHints"))
        if tree is not None:
            evaluator = predicates.Evaluator(tree, table.metadata.get("partitionColumns", []),
                                             physical_names(table.metadata))
            files = [f for f in files if evaluator.may_match(f)]
        if limit is not None:
            files = _within_limit(files, limit)
        response_format, plain = choose_format(caps, table.protocol, needed_features(table.metadata, files))
        explicit = version is not None or timestamp is not None
        stamp = {"version": resolved, "timestamp": table.timestamp} if explicit else {}
        head = [lambda r: r.protocol(table.protocol, plain=plain),
                lambda r: r.metadata(table.metadata, version=resolved if explicit else None,
                                     size=sum(f.size for f in table.files), num_files=len(table.files))]
        items = [_snapshot_item(f, stamp) for f in files]
        refresh = self._refresh_token(refresh_of, resolved) if include_refresh else None
        return self._answer(resolved, response_format, file_id_hash, caps, head, items, max_files, query_id,
                            offset, scope=source.scope, audit={"version": resolved}, refresh=refresh)

    def _refreshed_version(self, body: dict, refresh_of: str, include_refresh: bool, version: int | None,
                           timestamp: object, starting: int | None) -> int | None:
        """The version a ``refreshToken`` names, after checking it may be used here (None without one)."""
        token = body.get("refreshToken")
        if not include_refresh and token is None:
            return None
        if version is not None or timestamp is not None or starting is not None:
            raise InvalidParameter("includeRefreshToken and refreshToken are for queries of the latest version, "
                                   "not with version, timestamp or startingVersion")
        if body.get("pageToken") is not None:
            raise InvalidParameter("includeRefreshToken and refreshToken go with the first page request only")
        if token is None:
            return None
        payload = self._tokens.decode(token, "refresh")
        if payload.get("q") != refresh_of:
            raise InvalidParameter("the refresh token belongs to another query (table, predicates or limit differ)")
        if int(payload["e"]) < self._clock() * 1000:
            raise InvalidParameter("the refresh token has expired: start the query again")
        return int(payload["v"])

    def _refresh_token(self, refresh_of: str, version: int) -> str:
        expires = int(self._clock() * 1000) + REFRESH_TOKEN_LIFETIME_MS
        return self._tokens.encode({"k": "refresh", "q": refresh_of, "v": version, "e": expires})

    def _stream(self, source: TableSource, starting: int, ending: int | None, caps: Capabilities,
                file_id_hash: str | None, max_files: int | None, query_id: str, pinned: int | None,
                offset: int) -> Answer:
        """A query from ``startingVersion``: the data-changing adds and removes of each commit, with
        metadata changes, as streaming readers ask for."""
        start, end = _version_range(source, starting, ending if pinned is None else pinned)
        first = source.table_version(start)
        commits = list(source.changes(start, end))
        actions = [a for c in commits for a in c.actions if a.kind != "cdc" and a.data_change]
        protocol = _last(commits, "protocol") or first.protocol
        response_format, plain = choose_format(caps, protocol, needed_features(first.metadata, actions))
        head = [lambda r: r.protocol(protocol, plain=plain),
                lambda r: r.metadata(first.metadata, version=start)]
        items: list[_Item] = []
        for commit in commits:
            if commit.metadata is not None and commit.version > start:
                items.append(_metadata_item(commit.metadata, commit.version))
            items += [_change_item(a, commit) for a in commit.actions if a.kind != "cdc" and a.data_change]
        return self._answer(start, response_format, file_id_hash, caps, head, items, max_files, query_id,
                            offset, pin=end, scope=source.scope,
                            audit={"startingVersion": start, "endingVersion": end})

    # -- change data feed ---------------------------------------------------------------------
    def changes(self, source: TableSource, table_id: str, params: dict[str, str], caps: Capabilities,
                file_id_hash: str | None = None) -> Answer:
        starting_version = parse_int(params.get("startingVersion"), "startingVersion")
        ending_version = parse_int(params.get("endingVersion"), "endingVersion")
        starting_ts, ending_ts = params.get("startingTimestamp"), params.get("endingTimestamp")
        max_files = parse_int(params.get("maxFiles"), "maxFiles", minimum=1)
        historical = parse_bool(params.get("includeHistoricalMetadata"))
        if (starting_version is None) == (starting_ts is None):
            raise InvalidParameter("give exactly one of startingVersion and startingTimestamp")
        if ending_version is not None and ending_ts is not None:
            raise InvalidParameter("give at most one of endingVersion and endingTimestamp")
        query_id = fingerprint({"table": table_id, **{k: v for k, v in params.items() if k not in
                                                      ("pageToken", "maxFiles")},
                                "formats": caps.formats, "features": sorted(caps.reader_features)})
        pinned, offset = self._page(params.get("pageToken"), "changes", query_id)
        if starting_version is None:
            starting_version = version_at_or_after(source, parse_timestamp(starting_ts, "startingTimestamp"))
        if ending_ts is not None:
            ending_version = source.version_at(parse_timestamp(ending_ts, "endingTimestamp"))
        start, end = _version_range(source, starting_version, ending_version if pinned is None else pinned)
        first = source.table_version(start)
        commits = list(source.changes(start, end))
        for version, metadata in [(start, first.metadata)] + [(c.version, c.metadata) for c in commits
                                                              if c.metadata is not None]:
            if metadata.get("configuration", {}).get(_CDF, "false").lower() != "true":
                raise InvalidParameter(f"the change data feed is not enabled on the table at version {version} "
                                       f"(table property {_CDF})")
        protocol = _last(commits, "protocol") or first.protocol
        metadata = _last(commits, "metadata") or first.metadata
        served = {c.version: _cdf_actions(c) for c in commits}
        all_actions = [a for actions in served.values() for a in actions]
        response_format, plain = choose_format(caps, protocol, needed_features(metadata, all_actions))
        if response_format == DELTA:
            # Delta readers replay the log from the starting version: they need its metadata there.
            head = [lambda r: r.protocol(protocol, plain=plain), lambda r: r.metadata(first.metadata, version=start)]
        else:
            head = [lambda r: r.protocol(protocol), lambda r: r.metadata(metadata)]
        items: list[_Item] = []
        for commit in commits:
            if historical and commit.metadata is not None and commit.version > start:
                items.append(_metadata_item(commit.metadata, commit.version))
            items += [_change_item(a, commit) for a in served[commit.version]]
        return self._answer(start, response_format, file_id_hash, caps, head, items, max_files, query_id,
                            offset, pin=end, kind="changes", scope=source.scope,
                            audit={"startingVersion": start, "endingVersion": end})

    # -- paging and rendering ------------------------------------------------------------------
    def _page(self, token: object, kind: str, query_id: str) -> tuple[int | None, int]:
        if token is None:
            return None, 0
        payload = self._tokens.decode(token, kind)
        if payload.get("q") != query_id:
            raise InvalidParameter("the page token belongs to another query")
        return int(payload["v"]), int(payload["o"])

    def _answer(self, version: int, response_format: str, file_id_hash: str | None, caps: Capabilities,
                head: list[_Item], items: list[_Item], max_files: int | None, query_id: str, offset: int, *,
                pin: int | None = None, kind: str = "query", scope: Scope, audit: dict,
                refresh: str | None = None) -> Answer:
        if offset > len(items):
            raise InvalidParameter("the page token is past the end of the answer")
        end = len(items) if max_files is None else min(len(items), offset + max_files)
        lines = ResponseLines(response_format, self._presigner.signer(scope), file_id_hash)
        body = [render(lines) for render in head] + [render(lines) for render in items[offset:end]]
        if max_files is not None or caps.include_end_stream or refresh:
            next_token = None
            if end < len(items):
                next_token = self._tokens.encode({"k": kind, "q": query_id, "o": end,
                                                  "v": version if pin is None else pin})
            body.append(lines.end_stream(next_token, refresh))
        files = sum(1 for line in body[2:] if "file" in line or "add" in line or "remove" in line or "cdf" in line)
        return Answer(version, response_format, body, caps.include_end_stream,
                      audit={**audit, "files": files, "format": response_format})


def version_at_or_after(source: TableSource, timestamp_ms: int) -> int:
    """The first version committed at or after the timestamp; the earliest one for a timestamp
    before the table's history; an error after its latest commit."""
    latest = source.latest_version()
    if timestamp_ms > source.version_timestamp(latest):
        raise InvalidParameter("the timestamp is after the latest version of the table")
    try:
        version = source.version_at(timestamp_ms)
    except InvalidParameter:
        return source.earliest_version()
    return version if source.version_timestamp(version) >= timestamp_ms else version + 1


def choose_format(caps: Capabilities, protocol: dict, needed: set[str]) -> tuple[str, bool]:
    """(response format, whether to show a plain protocol) for a table needing ``needed`` features."""
    missing = needed - caps.reader_features
    if missing:
        raise UnsupportedOperation(
            f"the table needs the reader features {', '.join(sorted(missing))}: ask for "
            f"responseformat=delta with readerfeatures={','.join(sorted(needed))}"
        )
    if len(caps.formats) == 1:
        response_format = caps.formats[0]
    else:
        reader = protocol.get("minReaderVersion", 1) if caps.reader_features else 1
        response_format = PARQUET if reader == 1 and PARQUET in caps.formats else DELTA
    if response_format == PARQUET and needed:
        raise UnsupportedOperation(f"the table needs the reader features {', '.join(sorted(needed))}, "
                                   "which the parquet response format cannot carry: ask for responseformat=delta")
    return response_format, response_format == DELTA and not caps.reader_features


def needed_features(metadata: dict, files: list[FileAction]) -> set[str]:
    needed = set()
    if metadata.get("configuration", {}).get(_COLUMN_MAPPING, "none").lower() in ("name", "id"):
        needed.add("columnmapping")
    if any(f.deletion_vector for f in files):
        needed.add("deletionvectors")
    return needed


def physical_names(metadata: dict) -> dict[str, str]:
    """Column name -> physical name, for tables with column mapping (stats use physical names)."""
    if metadata.get("configuration", {}).get(_COLUMN_MAPPING, "none").lower() not in ("name", "id"):
        return {}
    fields = json.loads(metadata["schemaString"]).get("fields", [])
    return {f["name"]: f["metadata"]["delta.columnMapping.physicalName"] for f in fields
            if "delta.columnMapping.physicalName" in (f.get("metadata") or {})}


def _snapshot_version(source: TableSource, version: int | None, timestamp: object) -> int:
    if timestamp is not None:
        return source.version_at(parse_timestamp(timestamp, "timestamp"))
    if version is None:
        return source.latest_version()
    earliest, latest = source.earliest_version(), source.latest_version()
    if not earliest <= version <= latest:
        of_snapshot = source.version_of_snapshot(version)
        if of_snapshot is None:
            raise InvalidParameter(f"version {version} is out of range: the table has versions {earliest} to {latest}")
        return of_snapshot
    return version


def _version_range(source: TableSource, start: int, end: int | None) -> tuple[int, int]:
    earliest, latest = source.earliest_version(), source.latest_version()
    if not earliest <= start <= latest:
        raise InvalidParameter(f"starting version {start} is out of range: the table has versions "
                               f"{earliest} to {latest}")
    end = latest if end is None else min(end, latest)
    if start > end:
        raise InvalidParameter(f"the starting version {start} is after the ending version {end}")
    return start, end


def _within_limit(files: list[FileAction], limit: int) -> list[FileAction]:
    """Files in order until their rows (from stats, less deleted rows) reach ``limit``."""
    kept, rows = [], 0
    for action in files:
        kept.append(action)
        rows += _live_rows(action)
        if rows >= limit:
            break
    return kept


def _live_rows(action: FileAction) -> int:
    try:
        records = int(json.loads(action.stats or "{}").get("numRecords", 0))
    except (ValueError, TypeError, AttributeError):
        return 0
    return records - int((action.deletion_vector or {}).get("cardinality", 0))


def _cdf_actions(commit: VersionChanges) -> list[FileAction]:
    """What a commit contributes to the change feed: its cdc files when it wrote any (they hold the
    exact row changes), else its data-changing adds (inserts) and removes (deletes)."""
    cdc = [a for a in commit.actions if a.kind == "cdc"]
    return cdc or [a for a in commit.actions if a.kind in ("add", "remove") and a.data_change]


def _last(commits: list[VersionChanges], attribute: str) -> dict | None:
    return next((getattr(c, attribute) for c in reversed(commits) if getattr(c, attribute) is not None), None)


def _snapshot_item(action: FileAction, stamp: dict) -> _Item:
    return lambda r: r.snapshot_file(action, **stamp)


def _change_item(action: FileAction, commit: VersionChanges) -> _Item:
    return lambda r: r.change(action, commit.version, commit.timestamp)


def _metadata_item(metadata: dict, version: int) -> _Item:
    return lambda r: r.metadata(metadata, version=version)
