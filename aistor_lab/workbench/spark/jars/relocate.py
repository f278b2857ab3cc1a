"""Copy part of a jar into a new jar, moving some packages to other names (a "relocation").

Used to move shaded classes back to the names the Iceberg Spark runtime expects; see ``kit.py``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .classfile import rewrite_utf8_constants

# Fixed entry times make the output depend only on its input.
ENTRY_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Relocation:
    """Move everything under the package path ``old`` (``a/b/``) to ``new`` (``c/``)."""

    old: str
    new: str

    def __post_init__(self) -> None:
        if not (self.old.endswith("/") and self.new.endswith("/")):
            raise ValueError("relocation prefixes are package paths ending in '/'")


class Renamer:
    """Applies relocations to entry names and to names inside class files, in both the internal form
    (``a/b/C``, in descriptors as ``La/b/C;``) and the binary form (``a.b.C``, in string literals)."""

    def __init__(self, relocations: Sequence[Relocation]):
        self.relocations = tuple(relocations)
        self._pairs = [
            (old.encode(), new.encode())
            for r in self.relocations
            for old, new in ((r.old, r.new), (r.old.replace("/", "."), r.new.replace("/", ".")))
        ]
        # Any name to rename starts with one of these, so most constants are passed over quickly.
        common = _common_prefix([r.old for r in self.relocations])
        self._markers = (common.encode(), common.replace("/", ".").encode()) if common else ()

    def entry_name(self, name: str) -> str | None:
        """The new name of a jar entry, or None when no relocation covers it."""
        for r in self.relocations:
            if name.startswith(r.old):
                return r.new + name[len(r.old):]
        return None

    def text(self, value: bytes) -> bytes:
        if self._markers and not any(marker in value for marker in self._markers):
            return value
        for old, new in self._pairs:
            value = value.replace(old, new)
        return value

    def class_file(self, data: bytes) -> bytes:
        return rewrite_utf8_constants(data, self.text)


def relocate_jar(
    source: Path,
    dest: Path,
    relocations: Sequence[Relocation],
    *,
    keep: Iterable[str] = (),
    drop: Iterable[str] = (),
    manifest: str = "Manifest-Version: 1.0\r\n\r\n",
) -> int:
    """Write ``dest`` with the entries of ``source`` under a relocated prefix (renamed, and their class
    files rewritten) and those under a ``keep`` prefix (as they are, though their class files are still
    rewritten, as they may refer to relocated classes); entries under a ``drop`` prefix are left out.
    Returns the number of entries written."""
    renamer = Renamer(relocations)
    keep, drop = tuple(keep), tuple(drop)
    written = 0
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr(zipfile.ZipInfo("META-INF/MANIFEST.MF", ENTRY_TIME), manifest)
        for info in src.infolist():
            name = info.filename
            if info.is_dir() or name.startswith(drop):
                continue
            new_name = renamer.entry_name(name) or (name if name.startswith(keep) else None)
            if new_name is None:
                continue
            data = src.read(info)
            if name.endswith(".class"):
                data = renamer.class_file(data)
            entry = zipfile.ZipInfo(new_name, ENTRY_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(entry, data)
            written += 1
    return written


def _common_prefix(values: Sequence[str]) -> str:
    if not values:
        return ""
    first, last = min(values), max(values)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return first[:size]
