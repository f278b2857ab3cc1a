"""What a command returns: one value that renders as text (terminals), JSON (``--json``, scripts,
the side panel) or HTML (notebooks, through IPython's ``_repr_html_``)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any


class Result:
    """Base: subclasses give ``text()``, ``data()`` and ``html()``."""

    def text(self) -> str:
        raise NotImplementedError

    def data(self) -> Any:
        """The JSON-serializable value behind the result."""
        raise NotImplementedError

    def html(self) -> str:
        return f"<pre>{html.escape(self.text())}</pre>"

    def json(self) -> str:
        return json.dumps(self.data(), indent=2, default=str)

    def _repr_html_(self) -> str:
        return self.html()

    def _repr_pretty_(self, printer, cycle: bool) -> None:
        printer.text(self.text())

    def __str__(self) -> str:
        return self.text()


# JupyterLab's notebook CSS right-aligns table cells; text reads better left-aligned, as in a terminal.
# Inline, so that it holds in every front end and in exported HTML.
_LEFT = ' style="text-align: left"'


def _th(text: str) -> str:
    return f"<th{_LEFT}>{html.escape(text)}</th>"


def _td(text: str) -> str:
    return f"<td{_LEFT}>{html.escape(text)}</td>"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, default=str)
    return str(value)


class Message(Result):
    """One line of text, such as ``Warehouse 'sales' created.``"""

    def __init__(self, text: str, data: Any = None):
        self._text = text
        self._data = data

    def text(self) -> str:
        return self._text

    def data(self) -> Any:
        return self._data if self._data is not None else {"status": "success", "message": self._text}

    def html(self) -> str:
        return f"<p>{html.escape(self._text)}</p>"


class Rows(Result):
    """A table of rows. ``data()`` is a list of dicts keyed by the column names unless given."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], data: Any = None,
                 empty: str = "(none)"):
        self.columns = list(columns)
        self.rows = [[_cell(v) for v in row] for row in rows]
        self._data = data
        self.empty = empty

    def text(self) -> str:
        if not self.rows:
            return self.empty
        widths = [max(len(c), *(len(r[i]) for r in self.rows)) for i, c in enumerate(self.columns)]
        lines = [self.columns, *self.rows]
        return "\n".join("  ".join(v.ljust(w) for v, w in zip(line, widths, strict=True)).rstrip() for line in lines)

    def data(self) -> Any:
        if self._data is not None:
            return self._data
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def html(self) -> str:
        if not self.rows:
            return f"<p><em>{html.escape(self.empty)}</em></p>"
        head = "".join(_th(c) for c in self.columns)
        body = "".join("<tr>" + "".join(_td(v) for v in row) + "</tr>" for row in self.rows)
        return f'<table class="aistor-result"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


class Fields(Result):
    """Labelled values, one per line: ``Token ID:    238f...``."""

    def __init__(self, pairs: Sequence[tuple[str, Any]], data: Any = None):
        self.pairs = [(label, _cell(value)) for label, value in pairs]
        self._data = data

    def text(self) -> str:
        width = max((len(label) for label, _ in self.pairs), default=0) + 1
        return "\n".join(f"{label + ':':<{width}} {value}".rstrip() for label, value in self.pairs)

    def data(self) -> Any:
        return self._data if self._data is not None else dict(self.pairs)

    def html(self) -> str:
        body = "".join(f"<tr>{_th(label)}{_td(value)}</tr>" for label, value in self.pairs)
        return f'<table class="aistor-result">{body}</table>'


class Text(Result):
    """Preformatted text (a tree, a notice) with the data it shows; in notebooks ``table`` when given."""

    def __init__(self, text: str, data: Any, table: Result | None = None):
        self._text = text
        self._data = data
        self._table = table

    def text(self) -> str:
        return self._text

    def data(self) -> Any:
        return self._data

    def html(self) -> str:
        return self._table.html() if self._table is not None else super().html()


class Sections(Result):
    """Several results under headings; ``data()`` is the whole value they were drawn from."""

    def __init__(self, parts: Sequence[tuple[str | None, Result]], data: Any):
        self.parts = list(parts)
        self._data = data

    def text(self) -> str:
        blocks = [(f"{title}:\n" if title else "") + part.text() for title, part in self.parts]
        return "\n\n".join(blocks)

    def data(self) -> Any:
        return self._data

    def html(self) -> str:
        return "".join(
            (f"<h4>{html.escape(title)}</h4>" if title else "") + part.html() for title, part in self.parts
        )


class Records(Result):
    """The several results of one object command, as mc prints them: a line of text each, and with
    ``--json`` one JSON document a line (``data()`` is their list). ``table``: the notebook's view."""

    def __init__(self, lines: Sequence[str], records: Sequence[Any], table: Result | None = None,
                 empty: str = ""):
        self.lines = list(lines)
        self.records = list(records)
        self._table = table
        self.empty = empty

    def text(self) -> str:
        return "\n".join(self.lines) if self.lines else self.empty

    def data(self) -> Any:
        return self.records

    def json(self) -> str:
        return "\n".join(json.dumps(record, default=str) for record in self.records)

    def html(self) -> str:
        return self._table.html() if self._table is not None else super().html()


class Content(Result):
    """An object's bytes (``cat``): the CLI writes them as they are, as they arrive; elsewhere they show
    as text. ``data()`` reads them too: one reading, whichever comes first."""

    def __init__(self, chunks: Iterable[bytes], about: dict):
        self.chunks = iter(chunks)
        self._about = about
        self._read: bytes | None = None

    def raw(self) -> bytes:
        if self._read is None:
            self._read = b"".join(self.chunks)
        return self._read

    def text(self) -> str:
        return self.raw().decode("utf-8", "replace")

    def data(self) -> Any:
        return {**self._about, "content": self.text()}
