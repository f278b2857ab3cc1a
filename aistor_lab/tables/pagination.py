"""List pagination as the REST spec asks: without a ``pageToken`` every result comes back in one
response (``next-page-token`` null); with one (the empty string starts), pages of ``pageSize``
results come back with the token of the next page, null on the last page.

A token is the opaque (base64url) store key of the last entry returned; listings resume after it,
so pages stay consistent while entries are added or removed elsewhere in the listing.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator
from typing import TypeVar

from .errors import BadRequestException
from .json_files import Documents

T = TypeVar("T")
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def _encode(key: str) -> str:
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def _decode(token: str, prefix: str) -> str:
    try:
        key = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise BadRequestException("Invalid page token") from exc
    if not key.startswith(prefix):
        raise BadRequestException("Invalid page token for this listing")
    return key


def _entries(docs: Documents, prefix: str, delimiter: str, start_after: str) -> Iterator[str]:
    """Keys and common prefixes under ``prefix`` in key order, after ``start_after``."""
    while True:
        page = docs.list(prefix, delimiter=delimiter, start_after=start_after)
        yield from sorted([obj.key for obj in page.objects] + list(page.common_prefixes))
        if not page.is_truncated or not page.next_marker:
            return
        start_after = page.next_marker


def list_page(
    docs: Documents,
    prefix: str,
    select: Callable[[str], T | None],
    page_token: str | None,
    page_size: int | None,
    *,
    delimiter: str = "",
) -> tuple[list[T], str | None]:
    """The selected entries of one page and the next page's token (None at the end)."""
    if page_size is not None and (not isinstance(page_size, int) or page_size < 1):
        raise BadRequestException("Invalid page size: must be a positive integer")
    limit = min(page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE) if page_token is not None else None
    start_after = _decode(page_token, prefix) if page_token else ""
    items: list[T] = []
    last = ""
    for entry in _entries(docs, prefix, delimiter, start_after):
        item = select(entry)
        if item is None:
            continue
        if limit is not None and len(items) == limit:
            return items, _encode(last)  # one more exists: there is a next page
        items.append(item)
        last = entry
    return items, None
