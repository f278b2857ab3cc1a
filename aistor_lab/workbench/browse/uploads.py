"""An upload that arrives in pieces (the panel streams a file's bytes through Jupyter) written to an
object with bounded memory: the bytes are held until a part's worth is in, then sent as a part of an
S3 multipart upload; a small body is one PutObject. Whatever goes wrong, ``abort`` leaves no upload
behind."""

from __future__ import annotations

import mimetypes
import threading

from ..objects import ObjectClient
from .buckets import check_bucket, check_key

PART_SIZE = 8 * 1024 * 1024  # S3 wants at least 5 MiB for every part but the last


class StreamedUpload:
    """``take`` the bytes as they come (cheap, no I/O) and ``send`` each part it hands back (blocking
    I/O, off the event loop), then ``finish`` once (or ``abort``)."""

    def __init__(self, objects: ObjectClient, bucket: str, key: str, part_size: int = PART_SIZE):
        self.objects, self.bucket, self.key = objects, check_bucket(bucket), check_key(key)
        self.part_size = part_size
        # As `aistor cp` does: the type the key's extension names, so a CSV is served as text/csv.
        self.content_type = mimetypes.guess_type(self.key)[0] or "application/octet-stream"
        self.size = 0
        self._buffer = bytearray()
        self._upload_id: str | None = None
        self._parts: list[dict] = []
        self._aborted = False
        self._lock = threading.Lock()  # an abort (the browser went away) may come while a part is sent

    def take(self, chunk: bytes) -> bytes | None:
        """Keep ``chunk``; answers a full part to ``send`` when one is in."""
        self._buffer += chunk
        self.size += len(chunk)
        if len(self._buffer) < self.part_size:
            return None
        part = bytes(self._buffer[: self.part_size])
        del self._buffer[: self.part_size]
        return part

    def send(self, part: bytes) -> None:
        with self._lock:
            if self._aborted:
                return
            if self._upload_id is None:
                self._upload_id = self.objects.start_multipart(self.bucket, self.key, self.content_type)
            upload_id = self._upload_id
        self._parts.append(self.objects.upload_part(self.bucket, self.key, upload_id, len(self._parts) + 1, part))

    def finish(self) -> dict:
        """The object written: ``{bucket, key, size, etag}``."""
        rest, self._buffer = bytes(self._buffer), bytearray()
        if self._upload_id is None:
            answer = self.objects.put(self.bucket, self.key, rest, self.content_type)
        else:
            if rest:
                self.send(rest)
            answer = self.objects.complete_multipart(self.bucket, self.key, self._upload_id, self._parts)
            self._upload_id = None
        return {"bucket": self.bucket, "key": self.key, "size": self.size, "etag": (answer.get("ETag") or "").strip('"')}

    def abort(self) -> None:
        """Drop the parts sent so far (nothing to do before the first part, or once finished)."""
        with self._lock:
            self._aborted = True
            upload_id, self._upload_id = self._upload_id, None
        self._buffer = bytearray()
        if upload_id is not None:
            self.objects.abort_multipart(self.bucket, self.key, upload_id)
