"""One page of a table's rows as the explorer's grid shows it, from any Arrow data (an Iceberg scan,
a Delta table): ``{columns: [{name, type}], rows, offset, limit, total}``, each cell JSON that the
browser reads exactly (a number only when JavaScript holds it exactly, else display text).

Memory stays bounded: without a sort, batches are read only as far as the page needs, and past
``MAX_ROWS`` / ``MAX_BYTES`` of Arrow data the earliest are let go; a sort needs every row, so it is
refused beyond that cap with a message saying to filter first.
"""

from __future__ import annotations

import math
import struct
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pyarrow as pa

from ..commands.actions import UsageError

MAX_ROWS = 1_000_000
MAX_BYTES = 256 * 2**20
MAX_LIMIT = 10_000
BINARY_SHOWN = 32  # bytes of a binary cell shown before the ellipsis

# JavaScript numbers hold integers exactly up to 2**53: beyond, a cell is the integer's text.
_JS_SAFE_INTEGER = 2**53 - 1

Sort = list[tuple[str, bool]]  # (column, ascending)


def parse_sort(text: str | None, columns: list[str]) -> Sort:
    """``"col:asc,col2:desc"`` (the direction defaults to ascending) -> ``[("col", True), ("col2", False)]``."""
    sort: Sort = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        name, _, direction = item.rpartition(":")
        if not name or direction.lower() not in ("asc", "desc"):
            name, direction = item, "asc"
        if name not in columns:
            raise UsageError(f"cannot sort by {name!r}: no such column (the columns are {', '.join(columns)})")
        sort.append((name, direction.lower() == "asc"))
    return sort


def _float_cell(value: float, arrow_type: pa.DataType) -> float | str:
    if math.isnan(value) or math.isinf(value):
        return str(value).replace("inf", "Infinity").replace("nan", "NaN")
    if pa.types.is_float32(arrow_type) or pa.types.is_float16(arrow_type):
        # the shortest decimal that is the same float32 (0.1, not 0.10000000149011612)
        packed = struct.pack("<f", value)
        for digits in range(6, 10):
            shorter = float(f"{value:.{digits}g}")
            if struct.pack("<f", shorter) == packed:
                return shorter
    return value


def _binary_text(value: bytes) -> str:
    shown = value[:BINARY_SHOWN].hex()
    return f"0x{shown}…" if len(value) > BINARY_SHOWN else f"0x{shown}"


def _scalar_text(value: Any) -> str | None:
    """The display text of a value that is not a JSON number or boolean, or None if it is."""
    if hasattr(value, "isoformat"):  # datetime, date, time (and pandas' Timestamp for nanoseconds)
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _binary_text(bytes(value))
    if isinstance(value, (uuid.UUID, timedelta)):
        return str(value)
    return None


def _base_type(arrow_type: pa.DataType) -> pa.DataType:
    if isinstance(arrow_type, pa.ExtensionType):
        return arrow_type.storage_type
    if pa.types.is_dictionary(arrow_type):
        return arrow_type.value_type
    return arrow_type


def _nested_text(value: Any, arrow_type: pa.DataType) -> str:
    """A value inside a list, map or struct, as compact text: strings quoted, the rest as their cell."""
    if value is None:
        return "null"
    arrow_type = _base_type(arrow_type)
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or pa.types.is_string_view(arrow_type):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    cell = render_cell(value, arrow_type)
    if isinstance(cell, bool):
        return "true" if cell else "false"
    return str(cell)


def render_cell(value: Any, arrow_type: pa.DataType) -> Any:
    """A cell as JSON the browser reads exactly: null, a boolean, a number (only when exact in
    JavaScript), or display text: decimals and big integers as their exact text, dates and times in
    ISO 8601, binary as ``0x`` hex (its first 32 bytes, then ``…``), lists ``[1, 2]``, structs
    ``{a: 1, b: "x"}``, maps ``{k → v}``."""
    if value is None:
        return None
    arrow_type = _base_type(arrow_type)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if abs(value) <= _JS_SAFE_INTEGER else str(value)
    if isinstance(value, float):
        return _float_cell(value, arrow_type)
    if isinstance(value, str):
        return value
    text = _scalar_text(value)
    if text is not None:
        return text
    if pa.types.is_map(arrow_type):
        entries = (f"{_nested_text(k, arrow_type.key_type)} → {_nested_text(v, arrow_type.item_type)}" for k, v in value)
        return "{" + ", ".join(entries) + "}"
    if pa.types.is_struct(arrow_type):
        fields = (f"{field.name}: {_nested_text(value.get(field.name), field.type)}" for field in arrow_type)
        return "{" + ", ".join(fields) + "}"
    if isinstance(value, (list, tuple)):
        element = arrow_type.value_type if hasattr(arrow_type, "value_type") else pa.null()
        return "[" + ", ".join(_nested_text(item, element) for item in value) + "]"
    return str(value)


def render_table(table: pa.Table) -> list[list[Any]]:
    """Every row of ``table`` as rendered cells, a column at a time."""
    columns = [[render_cell(value, column.type) for value in column.to_pylist()] for column in table.columns]
    return [list(row) for row in zip(*columns, strict=True)] if columns else [[] for _ in range(table.num_rows)]


def column_types(schema: pa.Schema) -> list[dict[str, str]]:
    return [{"name": field.name, "type": str(field.type)} for field in schema]


def _too_much(rows: int, nbytes: int, what: str) -> UsageError:
    return UsageError(f"{what} needs more than {MAX_ROWS:,} rows or {MAX_BYTES // 2**20} MiB of data "
                      f"(read so far: {rows:,} rows, {nbytes / 2**20:.0f} MiB): filter the rows first")


class BufferedRows:
    """The rows of a Table or a RecordBatchReader, read only as far as asked and kept, so the next
    page, or a sort, does not read them again (a cache may keep one of these between requests).

    Past the cap, paging forward lets go of the earliest batches; a page before them, or a sort,
    then reads again from a new reader of the same rows, which ``reopen`` gives (without it: refused).
    """

    def __init__(self, source: pa.Table | pa.RecordBatchReader,
                 reopen: Callable[[], pa.RecordBatchReader] | None = None):
        self.schema = source.schema
        self._reopen = reopen
        self._start(source)
        self._sorted: tuple[tuple, pa.Table] | None = None
        self._lock = threading.Lock()  # two pages of the same scan may be asked at once

    def _start(self, source: pa.Table | pa.RecordBatchReader) -> None:
        self._reader: Iterator[pa.RecordBatch] | None = None
        self._first_row = 0  # the row number of the first batch kept
        if isinstance(source, pa.Table):
            self._batches, self._rows, self._bytes = source.to_batches(), source.num_rows, source.nbytes
        else:
            self._batches, self._rows, self._bytes = [], 0, 0
            self._reader = iter(source)

    def _restart(self, what: str) -> None:
        if self._reopen is None:
            raise UsageError(f"{what} needs rows this view has let go of: filter the rows first")
        self._start(self._reopen())

    @property
    def complete(self) -> bool:
        return self._reader is None

    @property
    def total(self) -> int | None:
        """The number of rows, once all were read."""
        return self._first_row + self._rows if self.complete else None

    def _read_until(self, end: int, what: str, keep_from: int = 0) -> None:
        """Read until ``end`` rows were seen; over the cap, let go of batches before row ``keep_from``."""
        while self._reader is not None and self._first_row + self._rows < end:
            batch = next(self._reader, None)
            if batch is None:
                self._reader = None
                break
            self._batches.append(batch)
            self._rows += batch.num_rows
            self._bytes += batch.nbytes
            while (self._rows > MAX_ROWS or self._bytes > MAX_BYTES) and len(self._batches) > 1 \
                    and self._first_row + self._batches[0].num_rows <= keep_from:
                dropped = self._batches.pop(0)
                self._first_row += dropped.num_rows
                self._rows -= dropped.num_rows
                self._bytes -= dropped.nbytes
            if self._rows > MAX_ROWS or self._bytes > MAX_BYTES:
                raise _too_much(self._rows, self._bytes, what)

    def window(self, offset: int, limit: int) -> pa.Table:
        """Rows ``offset`` to ``offset + limit`` (fewer at the end)."""
        what = f"the page of rows {offset:,} to {offset + limit:,}"
        with self._lock:
            if offset < self._first_row:
                self._restart(what)
            self._read_until(offset + limit, what, keep_from=offset)
            return pa.Table.from_batches(self._batches, self.schema).slice(offset - self._first_row, limit)

    def whole(self, what: str) -> pa.Table:
        with self._lock:
            if self._first_row > 0:
                self._restart(what)
            self._read_until(MAX_ROWS + 1, what)
            return pa.Table.from_batches(self._batches, self.schema)

    def sorted_by(self, sort: Sort) -> pa.Table:
        key = tuple(sort)
        if self._sorted is not None and self._sorted[0] == key:
            return self._sorted[1]
        table = self.whole("sorting")
        try:
            result = table.sort_by([(name, "ascending" if ascending else "descending") for name, ascending in sort])
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            names = ", ".join(name for name, _ in sort)
            raise UsageError(f"cannot sort by {names}: {exc}") from None
        self._sorted = (key, result)
        return result


def check_window(offset: int, limit: int) -> None:
    if offset < 0:
        raise UsageError("offset must be zero or more")
    if not 0 <= limit <= MAX_LIMIT:
        raise UsageError(f"limit must be between 0 and {MAX_LIMIT:,}")


def page(table_or_reader: pa.Table | pa.RecordBatchReader | BufferedRows, offset: int, limit: int,
         sort: Sort | None = None) -> dict:
    """Rows ``offset`` to ``offset + limit`` (in ``sort`` order, if given) of the data, rendered.
    ``total`` is the number of rows when all were read, else None."""
    check_window(offset, limit)
    rows = table_or_reader if isinstance(table_or_reader, BufferedRows) else BufferedRows(table_or_reader)
    window = rows.sorted_by(sort).slice(offset, limit) if sort else rows.window(offset, limit)
    return {
        "columns": column_types(rows.schema),
        "rows": render_table(window),
        "offset": offset,
        "limit": limit,
        "total": rows.total,
    }
