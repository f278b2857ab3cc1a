"""What a remote S3 implementation does differently from S3, where the store must make up for it.

The store learns it from the ``Server`` header of the remote's first answer; a remote it does not
know gets S3's own semantics (no extra requests).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# The greatest character: ``prefix + LAST_CHAR`` sorts after (almost) every key under prefix.
LAST_CHAR = "\U0010ffff"


@dataclass(frozen=True)
class RemoteTraits:
    # A write to a bucket that does not exist creates it (SeaweedFS); S3 answers NoSuchBucket.
    # The store then checks the bucket before each write that can create one.
    writes_create_buckets: bool = False
    # ListParts tells neither the upload's checksum algorithm nor the parts' checksums, which
    # CompleteMultipartUpload must name (SeaweedFS): the store records them (upload_records.py).
    forgets_upload_checksums: bool = False
    # Listings follow the remote's directory tree (SeaweedFS): StartAfter naming a key that is also a
    # "directory" (a, with a/1 under it) skips everything under it, and a page with a delimiter can
    # hold more than MaxKeys entries. The store starts just before the key and trims each page.
    lists_by_directory: bool = False
    # AbortMultipartUpload of an unknown (or aborted) upload succeeds (SeaweedFS); S3 answers
    # NoSuchUpload. The store asks ListParts first.
    aborts_unknown_uploads: bool = False
    # UploadPartCopy's ETag is the MD5 of the part's bytes, as S3 makes it; SeaweedFS makes it from
    # the part's chunks instead (``<md5>-<chunks>``), and a multipart object's ETag from those.
    copied_part_etags_are_md5: bool = True
    # ListMultipartUploads is in upload id order, without common prefixes or a next key marker
    # (SeaweedFS): the store lists the prefix's uploads whole and pages them as S3 does.
    lists_uploads_by_id: bool = False


S3_TRAITS = RemoteTraits()
SEAWEEDFS_TRAITS = RemoteTraits(
    writes_create_buckets=True, forgets_upload_checksums=True, lists_by_directory=True, aborts_unknown_uploads=True,
    copied_part_etags_are_md5=False, lists_uploads_by_id=True,
)


def traits_of(response: Mapping[str, Any]) -> RemoteTraits:
    """The traits of the remote that gave ``response`` (any botocore answer)."""
    server = response.get("ResponseMetadata", {}).get("HTTPHeaders", {}).get("server", "")
    return SEAWEEDFS_TRAITS if server.startswith("SeaweedFS") else S3_TRAITS


def just_before(key: str) -> str:
    """A StartAfter a directory-tree listing (SeaweedFS) resumes from without skipping what lies under
    ``key``: a name in the same "directory" just below the key's own, so the listing enters the key's
    subtree; the few entries up to ``key`` itself must be dropped by the caller."""
    directory, _, name = key.rpartition("/")
    if not name or ord(name[-1]) == 0:
        return key
    below = ord(name[-1]) - 1
    if 0xD800 <= below <= 0xDFFF:  # surrogates are no characters
        below = 0xD7FF
    # A "/" would start a deeper directory; "." sorts just before it.
    last = "." if chr(below) == "/" else chr(below)
    return (directory + "/" if directory else "") + name[:-1] + last + LAST_CHAR
