"""S3 listing semantics over key-ordered index rows: prefix, markers, delimiter roll-up, paging.

Keys are UTF-8 bytes here. Every row a scan returns becomes one item of the page (an entry, or a
new common prefix), because after a key rolls up into a common prefix the walk jumps past all keys
under it with a fresh range query. So a page costs O(items) index seeks, however many keys hide
under its common prefixes, and a scan never needs more rows than the items still wanted plus one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")

# (bound, inclusive, limit) -> up to ``limit`` (key, entry) rows with key > bound (>= if inclusive),
# in key order, all under the listing's prefix.
Scan = Callable[[bytes, bool, int], list[tuple[bytes, T]]]

# Greater than every UTF-8 continuation of a prefix: 0xFF never occurs in UTF-8.
PAST = b"\xff"


@dataclass(frozen=True)
class RolledPage(Generic[T]):
    entries: list[T]
    common_prefixes: list[str]
    is_truncated: bool
    last_key: str | None  # the key of the last item returned (an entry or a common prefix)
    last_entry: T | None  # that item, when it is an entry


def common_prefix(key: bytes, prefix: bytes, delimiter: bytes) -> bytes | None:
    """``prefix + X + delimiter`` when ``key`` rolls up into it, else None."""
    if not delimiter:
        return None
    found = key.find(delimiter, len(prefix))
    return None if found < 0 else key[: found + len(delimiter)]


def start_bound(marker: bytes, prefix: bytes, delimiter: bytes) -> tuple[bytes, bool]:
    """Where a listing resumes: after ``marker`` (past every key under it when the marker is a common
    prefix this listing returned), and never before ``prefix``. Returns (bound, inclusive)."""
    if marker.startswith(prefix) and common_prefix(marker, prefix, delimiter) == marker:
        marker += PAST
    return (prefix, True) if not marker or marker < prefix else (marker, False)


def roll_up(
    first: Iterable[tuple[bytes, T]], scan: Scan, prefix: bytes, delimiter: bytes, limit: int
) -> RolledPage[T]:
    """Walk ``first`` (the rows from the start bound, at least ``limit + 1`` when there are that many),
    then ``scan`` after each common prefix, until ``limit`` items are taken and one more is seen."""
    entries: list[T] = []
    prefixes: list[str] = []
    last: tuple[bytes, T | None] | None = None
    rows = first if limit > 0 else ()
    while True:
        for key, entry in rows:
            if len(entries) + len(prefixes) == limit:
                return _page(entries, prefixes, True, last)
            rolled = common_prefix(key, prefix, delimiter)
            if rolled is None:
                entries.append(entry)
                last = (key, entry)
                continue
            prefixes.append(rolled.decode())
            last = (rolled, None)
            rows = scan(rolled + PAST, False, limit - len(entries) - len(prefixes) + 1)
            break
        else:
            return _page(entries, prefixes, False, last)


def resume(
    marker_rows: list[tuple[bytes, T]], scan: Scan, prefix: bytes, delimiter: bytes, marker: bytes, limit: int
) -> RolledPage[T]:
    """A page resuming after ``marker``: ``marker_rows`` (the marker key's own entries after a second
    marker, as the version id of ListObjectVersions) first, then the keys after it."""
    first = marker_rows + scan(*start_bound(marker, prefix, delimiter), limit + 1)
    return roll_up(first, scan, prefix, delimiter, limit)


def _page(
    entries: list[T], prefixes: list[str], truncated: bool, last: tuple[bytes, T | None] | None
) -> RolledPage[T]:
    if last is None:
        return RolledPage(entries, prefixes, truncated, None, None)
    return RolledPage(entries, prefixes, truncated, last[0].decode(), last[1])
