"""IAM wildcard patterns, compiled once to regular expressions.

``*`` matches any run of characters (``/`` included) and ``?`` exactly one; every other character
is literal. ``fnmatch.translate`` is not used because it treats ``[...]`` as a character class,
which IAM patterns do not have (``arn:aws:s3:::b/[x]`` names the key ``[x]``).

``${key}`` is a policy variable, replaced by the request's context value for ``key`` (for example
``arn:aws:s3:::home/${aws:username}/*``); a pattern whose variable is absent matches nothing.
``${*}``, ``${?}`` and ``${$}`` stand for a literal ``*``, ``?`` and ``$``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence

# Request context as the evaluator sees it: lower-case keys, each with its list of values.
Context = Mapping[str, Sequence[str]]

_TOKEN = re.compile(r"\$\{([^}]*)\}|[*?]|[^$*?]+|\$")
_ESCAPED_VARIABLES = {"*", "?", "$"}
_WILDCARD_REGEX = {"*": ".*", "?": "."}

# A compiled pattern is a sequence of pieces: regex source text, or a variable name to substitute.
_Piece = str | tuple[str]


@functools.lru_cache(maxsize=2048)
def _compile(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


def _pieces(pattern: str, *, wildcards: bool) -> list[_Piece]:
    pieces: list[_Piece] = []
    for token in _TOKEN.finditer(pattern):
        variable, text = token.group(1), token.group(0)
        if variable is None:
            pieces.append(_WILDCARD_REGEX[text] if wildcards and text in _WILDCARD_REGEX else re.escape(text))
        elif variable in _ESCAPED_VARIABLES:
            pieces.append(re.escape(variable))
        else:
            pieces.append((variable.strip().lower(),))
    return pieces


def _render(pieces: list[_Piece], context: Context) -> str | None:
    out = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        values = context.get(piece[0])
        if not values or len(values) != 1:  # absent or multi-valued: nothing to substitute
            return None
        out.append(re.escape(values[0]))
    return "".join(out)


class PatternSet:
    """Matches a value against any of several patterns.

    ``wildcards=False`` makes ``*`` and ``?`` literal (for StringEquals); ``ignore_case`` is for
    action names and the ``...IgnoreCase`` condition operators.
    """

    __slots__ = ("_flags", "_static", "_templates")

    def __init__(self, patterns: Iterable[str], *, wildcards: bool = True, ignore_case: bool = False):
        self._flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
        static: list[list[_Piece]] = []
        self._templates: list[list[_Piece]] = []
        for pattern in patterns:
            pieces = _pieces(pattern, wildcards=wildcards)
            has_variable = any(not isinstance(piece, str) for piece in pieces)
            (self._templates if has_variable else static).append(pieces)
        # Patterns without variables share one regex, built once: the common, fast case.
        self._static = (
            re.compile("|".join(f"(?:{''.join(p)})" for p in static), self._flags) if static else None
        )

    def matches(self, value: str, context: Context) -> bool:
        if self._static is not None and self._static.fullmatch(value):
            return True
        for pieces in self._templates:
            source = _render(pieces, context)
            if source is not None and _compile(source, self._flags).fullmatch(value):
                return True
        return False
