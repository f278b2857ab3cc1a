"""Row-level deletes of an Iceberg snapshot as Delta deletion vectors.

v3 deletion vectors (Puffin ``deletion-vector-v1`` blobs) and v2 position delete files (Parquet) both
become Delta deletion vectors: a data file's applicable deletes are collected into one Delta DV file,
written once next to the table under a name derived from the data file and the delete files (see
iceberg_dv for why the Puffin bytes cannot be served in place). A single DV blob is copied unchanged;
several delete files (a v2 table, or v2 position deletes left over after an upgrade to v3) are merged.
Equality deletes have no Delta equivalent: a table with live equality deletes is refused.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from pyroaring import BitMap64

from . import iceberg_dv
from .errors import InternalError, UnsupportedOperation
from .iceberg_files import EQUALITY_DELETES, ManifestRow, ScopedFiles

DV_FOLDER = "delta-sharing-dv"


class DeleteIndex:
    """A snapshot's live delete files, by the data file they apply to."""

    def __init__(self, rows: Iterable[ManifestRow], files: ScopedFiles):
        self._by_data_file: dict[str, list[ManifestRow]] = {}
        for row in rows:
            if row.content == EQUALITY_DELETES:
                raise UnsupportedOperation(
                    "The table has equality deletes, which Delta Sharing cannot express; "
                    "rewrite the affected data files (compaction) to share it"
                )
            if row.referenced_data_file is not None:
                self._add(row.referenced_data_file, row)
            elif row.file_format == "PARQUET":
                # a v2 position delete file may name many data files: its rows say which
                for data_file in files.position_deletes(row.path):
                    self._add(data_file, row)
            else:
                raise UnsupportedOperation(f"Unsupported {row.file_format} position delete file")

    def _add(self, data_file: str, row: ManifestRow) -> None:
        self._by_data_file.setdefault(data_file, []).append(row)

    def data_files(self) -> set[str]:
        return set(self._by_data_file)

    def naming(self, data_file: str) -> tuple[ManifestRow, ...]:
        """The delete files that name a data file, whatever their sequence numbers."""
        return tuple(self._by_data_file.get(data_file, ()))

    def applicable(self, data_file: ManifestRow) -> tuple[ManifestRow, ...]:
        """The delete files that apply to a data file: those naming it with a data sequence number at
        or above the data file's (spec: "Scan Planning")."""
        return tuple(
            d
            for d in self._by_data_file.get(data_file.path, ())
            if d.sequence_number is None
            or data_file.sequence_number is None
            or d.sequence_number >= data_file.sequence_number
        )


def _identity(deletes: tuple[ManifestRow, ...]) -> list[str]:
    return sorted(f"{d.path}@{d.content_offset}+{d.content_size}" for d in deletes)


def same_deletes(a: tuple[ManifestRow, ...], b: tuple[ManifestRow, ...]) -> bool:
    return _identity(a) == _identity(b)


class DeletionVectors:
    """Makes the Delta deletion vector descriptors of one table's data files."""

    def __init__(self, files: ScopedFiles, table_location: str):
        self._files = files
        self._folder = f"{table_location.rstrip('/')}/{DV_FOLDER}"

    def descriptor(self, data_file: str, deletes: tuple[ManifestRow, ...]) -> dict | None:
        """The Delta DV of a data file given its applicable delete files (None when there are none)."""
        if not deletes:
            return None
        digest = hashlib.sha256("\n".join([data_file, *_identity(deletes)]).encode()).hexdigest()[:40]
        location = f"{self._folder}/deletion_vector_{digest}.bin"

        def make() -> tuple[bytes, dict]:
            blob, cardinality = self._blob(data_file, deletes)
            return iceberg_dv.delta_file(blob), iceberg_dv.descriptor(location, blob, cardinality)

        return dict(self._files.derived(location, make))

    def _blob(self, data_file: str, deletes: tuple[ManifestRow, ...]) -> tuple[bytes, int]:
        if len(deletes) == 1 and deletes[0].file_format == "PUFFIN":
            return self._puffin_blob(deletes[0]), deletes[0].record_count
        merged = BitMap64()
        for delete in deletes:
            if delete.file_format == "PUFFIN":
                merged |= iceberg_dv.positions(self._puffin_blob(delete))
            else:
                merged.update(self._files.position_deletes(delete.path).get(data_file, ()))
        return iceberg_dv.frame(merged), len(merged)

    def _puffin_blob(self, delete: ManifestRow) -> bytes:
        if delete.content_offset is None or delete.content_size is None:
            raise InternalError("A deletion vector of the table has no offset or size in its manifest")
        blob = self._files.read(delete.path, delete.content_offset, delete.content_offset + delete.content_size)
        try:
            return iceberg_dv.check_frame(blob)
        except ValueError as exc:
            raise InternalError(f"A deletion vector of the table is unreadable: {exc}") from exc
