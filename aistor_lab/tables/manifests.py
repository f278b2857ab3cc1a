"""Reading Iceberg manifest lists (Avro) with PyIceberg's Avro reader, projected onto the few
columns the catalog needs: which manifests a snapshot uses and how many row ids it assigned."""

from __future__ import annotations

from dataclasses import dataclass

DATA_CONTENT = 0


@dataclass(frozen=True)
class ManifestSummary:
    path: str
    content: int
    added_rows: int | None
    existing_rows: int | None
    first_row_id: int | None


def read_manifest_list(location: str, data: bytes) -> list[ManifestSummary]:
    # Imported here: PyIceberg is heavy and only needed when a manifest list is actually read.
    from pyiceberg.avro.file import AvroFile
    from pyiceberg.manifest import MANIFEST_LIST_FILE_SCHEMAS
    from pyiceberg.typedef import Record

    from ..common.bytes_input import BytesInputFile

    schema = MANIFEST_LIST_FILE_SCHEMAS[max(MANIFEST_LIST_FILE_SCHEMAS)]  # the newest: has first_row_id
    at = {field.name: i for i, field in enumerate(schema.fields)}
    with AvroFile[Record](BytesInputFile(location, data), schema, read_types={-1: Record}) as reader:
        return [
            ManifestSummary(
                r[at["manifest_path"]],
                int(r[at["content"]] or DATA_CONTENT),
                r[at["added_rows_count"]],
                r[at["existing_rows_count"]],
                r[at["first_row_id"]],
            )
            for r in reader
        ]


def assigned_row_ids(manifests: list[ManifestSummary], first_row_id: int) -> int:
    """How many row ids a v3 snapshot starting at ``first_row_id`` assigned: up to the end of the
    highest range any data manifest of this snapshot claims (first_row_id + added + existing)."""
    end = first_row_id
    for manifest in manifests:
        if (
            manifest.content == DATA_CONTENT
            and manifest.first_row_id is not None
            and manifest.first_row_id >= first_row_id
        ):
            end = max(end, manifest.first_row_id + (manifest.added_rows or 0) + (manifest.existing_rows or 0))
    return end - first_row_id
