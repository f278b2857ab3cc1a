"""The explorer's grid (workbench/explore/grid.py): how cells render, how pages are cut and sorted,
and that it reads no more of a reader than a page needs."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time
from decimal import Decimal

import pyarrow as pa
import pytest

from aistor_lab.workbench.commands.actions import UsageError
from aistor_lab.workbench.explore import grid
from aistor_lab.workbench.explore.grid import page, parse_sort, render_cell


@pytest.mark.parametrize(("value", "arrow_type", "cell"), [
    (None, pa.int64(), None),
    (True, pa.bool_(), True),
    (2**53 - 1, pa.int64(), 2**53 - 1),
    (2**53 + 1, pa.int64(), "9007199254740993"),
    (-(2**63), pa.int64(), "-9223372036854775808"),
    (2**64 - 1, pa.uint64(), "18446744073709551615"),
    (1.5, pa.float64(), 1.5),
    (0.10000000149011612, pa.float32(), 0.1),
    (float("nan"), pa.float64(), "NaN"),
    (float("-inf"), pa.float64(), "-Infinity"),
    (Decimal("12345678901234567890.12"), pa.decimal128(22, 2), "12345678901234567890.12"),
    (Decimal("1.50"), pa.decimal128(5, 2), "1.50"),
    (datetime(2024, 3, 1, 12, 30, 5, 123456), pa.timestamp("us"), "2024-03-01T12:30:05.123456"),
    (datetime(2024, 3, 1, 12, 30, tzinfo=UTC), pa.timestamp("us", "UTC"), "2024-03-01T12:30:00+00:00"),
    (date(2024, 3, 1), pa.date32(), "2024-03-01"),
    (time(8, 15), pa.time64("us"), "08:15:00"),
    (b"\x00\xff", pa.binary(), "0x00ff"),
    (bytes(range(40)), pa.binary(), "0x" + bytes(range(32)).hex() + "…"),
    (uuid.UUID(int=1), pa.uuid(), "00000000-0000-0000-0000-000000000001"),
    ("plain", pa.string(), "plain"),
    ([1, None, 2**60], pa.list_(pa.int64()), "[1, null, 1152921504606846976]"),
    (["a", 'q"'], pa.list_(pa.string()), '["a", "q\\""]'),
    ({"a": 1, "b": "x", "c": None}, pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.bool_())]),
     '{a: 1, b: "x", c: null}'),
    ([("k", 1), ("j", 2)], pa.map_(pa.string(), pa.int64()), '{"k" → 1, "j" → 2}'),
    ([{"d": Decimal("0.5"), "t": [True]}], pa.list_(pa.struct([("d", pa.decimal128(3, 1)), ("t", pa.list_(pa.bool_()))])),
     "[{d: 0.5, t: [true]}]"),
])
def test_render_cell(value, arrow_type, cell):
    assert render_cell(value, arrow_type) == cell


def test_cells_of_arrow_data_render_as_the_browser_needs():
    table = pa.table({
        "id": pa.array([2**62, 1], pa.int64()),
        "at": pa.array([datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), None], pa.timestamp("us", "UTC")),
        "tags": pa.array([{"k": "v"}, {}], pa.map_(pa.string(), pa.string())),
    })
    answer = page(table, 0, 10)
    assert answer["columns"] == [{"name": "id", "type": "int64"}, {"name": "at", "type": "timestamp[us, tz=UTC]"},
                                 {"name": "tags", "type": "map<string, string>"}]
    assert answer["rows"] == [[str(2**62), "2024-01-02T03:04:05+00:00", '{"k" → "v"}'], [1, None, "{}"]]
    assert answer["total"] == 2


def test_parse_sort():
    columns = ["id", "name", "a:b"]
    assert parse_sort("id:desc, name", columns) == [("id", False), ("name", True)]
    assert parse_sort("a:b:asc", columns) == [("a:b", True)]
    assert parse_sort("", columns) == []
    with pytest.raises(UsageError, match="cannot sort by 'nope': no such column"):
        parse_sort("nope:asc", columns)


def counting_reader(batches: int, rows_per_batch: int):
    """A reader of ``batches`` batches that records how many were read."""
    read = []

    def generate():
        for number in range(batches):
            read.append(number)
            start = number * rows_per_batch
            yield pa.record_batch({"n": pa.array(range(start, start + rows_per_batch), pa.int64())})

    schema = pa.schema([("n", pa.int64())])
    return pa.RecordBatchReader.from_batches(schema, generate()), read


def test_a_page_reads_only_the_batches_it_needs():
    reader, read = counting_reader(batches=10, rows_per_batch=100)
    answer = page(reader, 150, 20)
    assert [row[0] for row in answer["rows"]] == list(range(150, 170))
    assert answer["total"] is None
    assert len(read) == 2


def test_later_pages_and_sorts_reuse_what_was_read():
    reader, read = counting_reader(batches=5, rows_per_batch=10)
    rows = grid.BufferedRows(reader)
    assert [r[0] for r in page(rows, 0, 3)["rows"]] == [0, 1, 2]
    assert [r[0] for r in page(rows, 45, 10)["rows"]] == [45, 46, 47, 48, 49]
    descending = page(rows, 0, 3, [("n", False)])
    assert [r[0] for r in descending["rows"]] == [49, 48, 47]
    assert descending["total"] == 50
    assert page(rows, 48, 5)["total"] == 50
    assert len(read) == 5


def test_sort_with_nulls_and_two_keys():
    table = pa.table({"g": ["b", "a", None, "a"], "n": [1, 2, 3, 4]})
    assert page(table, 0, 4, [("g", True), ("n", False)])["rows"] == [["a", 4], ["a", 2], ["b", 1], [None, 3]]


def test_a_sort_beyond_the_cap_says_to_filter(monkeypatch):
    monkeypatch.setattr(grid, "MAX_ROWS", 25)
    reader, _ = counting_reader(batches=5, rows_per_batch=10)
    with pytest.raises(UsageError, match="sorting needs more than 25 rows.*filter the rows first"):
        page(reader, 0, 10, [("n", True)])


def test_paging_past_the_cap_lets_go_of_the_earliest_rows_and_reads_again_for_them(monkeypatch):
    monkeypatch.setattr(grid, "MAX_ROWS", 25)
    readers = []

    def reopen():
        reader, read = counting_reader(batches=10, rows_per_batch=10)
        readers.append(read)
        return reader

    rows = grid.BufferedRows(reopen(), reopen=reopen)
    assert [r[0] for r in page(rows, 80, 5)["rows"]] == [80, 81, 82, 83, 84]
    assert page(rows, 95, 10)["total"] == 100 and len(readers) == 1
    assert [r[0] for r in page(rows, 3, 2)["rows"]] == [3, 4]  # before what is kept: a new reader
    assert len(readers) == 2 and readers[1] == [0]
    with pytest.raises(UsageError, match="sorting needs more than 25 rows"):
        page(rows, 0, 5, [("n", False)])


def test_without_a_way_to_read_again_an_earlier_page_is_refused(monkeypatch):
    monkeypatch.setattr(grid, "MAX_ROWS", 25)
    reader, _ = counting_reader(batches=10, rows_per_batch=10)
    rows = grid.BufferedRows(reader)
    assert [r[0] for r in page(rows, 60, 2)["rows"]] == [60, 61]
    with pytest.raises(UsageError, match="the page of rows 0 to 5 needs rows this view has let go of"):
        page(rows, 0, 5)


def test_a_column_that_cannot_be_sorted_is_a_usage_error():
    table = pa.table({"l": pa.array([[1], [2]], pa.list_(pa.int64()))})
    with pytest.raises(UsageError, match="cannot sort by l"):
        page(table, 0, 10, [("l", True)])


@pytest.mark.parametrize(("offset", "limit"), [(-1, 10), (0, -1), (0, grid.MAX_LIMIT + 1)])
def test_bad_windows_are_usage_errors(offset, limit):
    with pytest.raises(UsageError):
        page(pa.table({"n": [1]}), offset, limit)
