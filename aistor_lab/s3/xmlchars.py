"""Which characters an S3 XML document can carry, and how they are written.

XML 1.0 has no way at all to carry NUL, the other C0 controls but tab, LF and CR, U+FFFE, U+FFFF
or lone surrogates: not even as character references. A CR written as is comes back as LF from
every parser (line-end normalisation), so CR and LF are written as references, as S3 does.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_LINE_ENDS = {"\r": "&#x0D;", "\n": "&#x0A;"}


def escape_text(value: str) -> str:
    """Element text for ``value``; ValueError when XML 1.0 cannot carry one of its characters."""
    bad = NOT_XML.search(value)
    if bad:
        raise ValueError(f"U+{ord(bad.group()):04X}")
    return escape(value, _LINE_ENDS)


def escape_lossy(value: str) -> str:
    """Element text for ``value`` with the characters XML cannot carry replaced by U+FFFD
    (for error documents, which must be sent whatever the request held)."""
    return escape_text(NOT_XML.sub("\ufffd", value))
