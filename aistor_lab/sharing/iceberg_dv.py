"""Deletion vector bytes: Iceberg's Puffin ``deletion-vector-v1`` blob and Delta's deletion vector file.

One deletion vector is laid out the same way in both formats (apache/iceberg format/puffin-spec.md,
"deletion-vector-v1"; delta-io/delta PROTOCOL.md, "Deletion Vector Format" and "Deletion Vector File
Storage Format"): the big-endian length of what follows up to the checksum, the magic D1 D3 39 64
(Delta's 1681511377 written little-endian), the positions as a 64-bit Roaring bitmap in the portable
serialization, and a big-endian CRC-32 of magic + bitmap. Puffin chose big-endian length and CRC for
this very compatibility.

What differs is the file around it: a Delta DV file starts with a version byte (1), which readers check
before they seek to a descriptor's offset (delta-kernel does), while a Puffin file starts with "PFA1".
So a Delta reader cannot be pointed into the Puffin file; instead a Delta DV file is written that holds
the blob unchanged after the version byte, and the descriptor points at offset 1.
"""

from __future__ import annotations

import zlib

from pyroaring import BitMap64

MAGIC = (1681511377).to_bytes(4, "little")  # D1 D3 39 64
FILE_VERSION = b"\x01"
OFFSET_IN_FILE = len(FILE_VERSION)
_FRAMING = 8  # the length before the data and the CRC after it


def frame(positions: BitMap64) -> bytes:
    """One deletion vector in the layout both formats share."""
    data = MAGIC + positions.serialize()
    return len(data).to_bytes(4, "big") + data + zlib.crc32(data).to_bytes(4, "big")


def check_frame(blob: bytes) -> bytes:
    """The blob itself if it is a well-formed deletion vector; ValueError otherwise."""
    if len(blob) < _FRAMING + len(MAGIC):
        raise ValueError("deletion vector too short")
    if int.from_bytes(blob[:4], "big") != len(blob) - _FRAMING:
        raise ValueError("deletion vector length does not match its blob")
    data = blob[4:-4]
    if data[: len(MAGIC)] != MAGIC:
        raise ValueError("deletion vector has an unknown magic number")
    if zlib.crc32(data) != int.from_bytes(blob[-4:], "big"):
        raise ValueError("deletion vector checksum mismatch")
    return blob


def positions(blob: bytes) -> BitMap64:
    """The deleted row positions of a checked blob."""
    return BitMap64.deserialize(blob[4 + len(MAGIC) : -4])


def delta_file(blob: bytes) -> bytes:
    """A Delta deletion vector file holding one (checked) deletion vector at OFFSET_IN_FILE."""
    return FILE_VERSION + blob


def descriptor(location: str, blob: bytes, cardinality: int) -> dict:
    """The Delta DeletionVectorDescriptor of a blob stored by ``delta_file`` at an absolute location."""
    return {
        "storageType": "p",
        "pathOrInlineDv": location,
        "offset": OFFSET_IN_FILE,
        "sizeInBytes": len(blob) - _FRAMING,
        "cardinality": cardinality,
    }
