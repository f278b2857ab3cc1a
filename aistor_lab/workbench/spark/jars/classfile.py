"""Rename classes inside one Java class file by rewriting its constant pool.

Every name a class file uses (its own name, the classes it refers to, field and method descriptors,
generic signatures, annotation types, string literals such as ``Class.forName`` arguments) lives in
a CONSTANT_Utf8 entry of the constant pool; everything else refers to constants by index. So a
relocation only has to rewrite Utf8 entries and re-emit the pool: the rest of the file is copied
byte for byte. This is the part of what jarjar or the Maven shade plugin do that a pure package
rename needs (JVM spec, chapter 4.4).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

MAGIC = b"\xca\xfe\xba\xbe"

CONSTANT_UTF8 = 1
# Size in bytes of the body of every other constant (after its tag byte).
FIXED_SIZES = {
    3: 4,   # Integer
    4: 4,   # Float
    5: 8,   # Long (takes two pool slots)
    6: 8,   # Double (takes two pool slots)
    7: 2,   # Class
    8: 2,   # String
    9: 4,   # Fieldref
    10: 4,  # Methodref
    11: 4,  # InterfaceMethodref
    12: 4,  # NameAndType
    15: 3,  # MethodHandle
    16: 2,  # MethodType
    17: 4,  # Dynamic
    18: 4,  # InvokeDynamic
    19: 2,  # Module
    20: 2,  # Package
}
TWO_SLOT_TAGS = {5, 6}


class ClassFileError(ValueError):
    """The bytes are not a class file this module can read."""


def rewrite_utf8_constants(data: bytes, rewrite: Callable[[bytes], bytes]) -> bytes:
    """Return the class file with ``rewrite`` applied to the bytes of every CONSTANT_Utf8 entry.

    The entries hold modified UTF-8; a rewrite that only replaces ASCII substrings keeps it valid,
    because no byte of a multi-byte sequence is in the ASCII range.
    """
    if data[:4] != MAGIC or len(data) < 10:
        raise ClassFileError("not a class file (bad magic number)")
    (count,) = struct.unpack_from(">H", data, 8)
    out = [data[:10]]
    pos = 10
    index = 1
    try:
        while index < count:
            tag = data[pos]
            if tag == CONSTANT_UTF8:
                (length,) = struct.unpack_from(">H", data, pos + 1)
                text = data[pos + 3:pos + 3 + length]
                if len(text) != length:
                    raise ClassFileError("constant pool truncated")
                new = rewrite(text)
                if len(new) > 0xFFFF:
                    raise ClassFileError("a rewritten constant is longer than 65535 bytes")
                out.append(struct.pack(">BH", tag, len(new)) + new)
                pos += 3 + length
            elif tag in FIXED_SIZES:
                end = pos + 1 + FIXED_SIZES[tag]
                out.append(data[pos:end])
                pos = end
            else:
                raise ClassFileError(f"unknown constant pool tag {tag} at offset {pos}")
            index += 2 if tag in TWO_SLOT_TAGS else 1
    except (IndexError, struct.error) as exc:
        raise ClassFileError("constant pool truncated") from exc
    out.append(data[pos:])
    return b"".join(out)


def utf8_constants(data: bytes) -> list[bytes]:
    """Every CONSTANT_Utf8 value of a class file (for checks and tests)."""
    found: list[bytes] = []

    def collect(text: bytes) -> bytes:
        found.append(text)
        return text

    rewrite_utf8_constants(data, collect)
    return found
