"""A ``multipart/form-data`` body read as it streams: the small fields before the ``file`` part are
kept (64 KiB in all, as S3 caps them), the file's bytes are handed on as they arrive and never kept,
and whatever follows the file is ignored, as S3 ignores it.
"""

from __future__ import annotations

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from .errors import S3Error

MAX_FIELDS_SIZE = 64 * 1024
FILE_FIELD = "file"


def _malformed(detail: str = "") -> S3Error:
    return S3Error("MalformedPOSTRequest",
                   "The body of your POST request is not well-formed multipart/form-data." + detail)


class FormReader:
    """Feed it the body's chunks; it collects ``fields`` (lower-case names) and returns the file's bytes."""

    def __init__(self, content_type: str):
        kind, options = parse_options_header(content_type)
        boundary = options.get(b"boundary")
        if kind != b"multipart/form-data" or not boundary:
            raise _malformed(" A POST to a bucket uploads a form: Content-Type multipart/form-data with a boundary.")
        try:
            self._parser = MultipartParser(boundary, {
                "on_part_begin": self._part_begin, "on_header_field": self._header_field,
                "on_header_value": self._header_value, "on_header_end": self._header_end,
                "on_headers_finished": self._headers_finished, "on_part_data": self._part_data,
                "on_part_end": self._part_end, "on_end": self._end,
            })
        except ValueError as exc:
            raise _malformed(f" {exc}") from None
        self.fields: dict[str, str] = {}
        self.filename: str | None = None  # of the file part, once its headers are in
        self.file_done = False
        self.ended = False
        self._kept = 0  # bytes of the fields and part headers before the file
        self._header: list[bytearray] = [bytearray(), bytearray()]
        self._headers: dict[str, str] = {}
        self._name: str | None = None
        self._value = bytearray()
        self._file_bytes: list[memoryview] = []

    @property
    def in_file(self) -> bool:
        return self.filename is not None and not self.file_done

    def feed(self, chunk: bytes) -> list[memoryview]:
        """Parse one chunk; return the pieces of the file's bytes it held."""
        self._file_bytes = []
        try:
            self._parser.write(chunk)
        except MultipartParseError as exc:
            raise _malformed(f" {exc}") from None
        return self._file_bytes

    def finish(self) -> None:
        """MalformedPOSTRequest unless the body ended with its closing boundary."""
        if not self.ended:
            raise _malformed(" The body ended before its closing boundary.")

    # -- parser callbacks ---------------------------------------------------------------------
    def _keeping(self) -> bool:
        return self.filename is None

    def _count(self, size: int) -> None:
        self._kept += size
        if self._kept > MAX_FIELDS_SIZE:
            raise S3Error("MaxPostPreDataLengthExceeded",
                          "Your POST request fields preceding the upload file were too large.")

    def _part_begin(self) -> None:
        self._headers, self._name, self._value = {}, None, bytearray()

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._collect(0, data, start, end)

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self._collect(1, data, start, end)

    def _collect(self, which: int, data: bytes, start: int, end: int) -> None:
        if self._keeping():
            self._count(end - start)
            self._header[which] += data[start:end]

    def _header_end(self) -> None:
        name, value = (bytes(part).decode("latin-1") for part in self._header)
        self._header = [bytearray(), bytearray()]
        if self._keeping():
            self._headers[name.strip().lower()] = value.strip()

    def _headers_finished(self) -> None:
        if not self._keeping():
            return
        disposition, options = parse_options_header(self._headers.get("content-disposition", ""))
        name = options.get(b"name")
        if disposition != b"form-data" or name is None:
            raise _malformed(" Each part needs a Content-Disposition of form-data with a name.")
        self._name = _text(name).lower()
        if self._name in self.fields:
            raise S3Error("InvalidArgument", f"The form field '{self._name}' is given more than once.")
        if self._name == FILE_FIELD:
            self.filename = _text(options.get(b"filename", b""))

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self.in_file:
            self._file_bytes.append(memoryview(data)[start:end])
        elif self._keeping():
            self._count(end - start)
            self._value += data[start:end]

    def _part_end(self) -> None:
        if self.in_file:
            self.file_done = True
        elif self._keeping() and self._name is not None:
            self.fields[self._name] = _text(bytes(self._value))

    def _end(self) -> None:
        self.ended = True


def _text(raw: bytes) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise _malformed(" Form fields must be UTF-8.") from None
