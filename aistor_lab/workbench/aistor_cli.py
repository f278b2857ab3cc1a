"""The ``aistor`` command: ``mc table ...`` for AIStor-lab, from a terminal or a script.

    aistor alias set myaistor http://127.0.0.1:9000 minioadmin minioadmin
    aistor warehouse create myaistor mywarehouse
    aistor share token create myaistor/analytics-share --expires 90d --json | jq -r '.profile' > profile.share

Text by default, JSON with ``--json``. Exit codes: 0 success, 1 the service refused (the message
says why), 2 bad arguments or an unknown alias, 3 the service cannot be reached.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .client import AIStorError
from .commands.registry import HelpRequested, UsageError, cli_front, execute
from .commands.results import Content, Result


def _show(result: Result, as_json: bool) -> None:
    if isinstance(result, Content) and not as_json:
        for chunk in result.chunks:  # an object's bytes as they are, as they arrive (aistor cat)
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.flush()
    else:
        print(result.json() if as_json else result.text())


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args, result = execute(argv, cli_front())
        _show(result, args.json)
    except HelpRequested as help_text:
        print(help_text.text, end="")
        return 0
    except UsageError as exc:
        print(f"{exc.usage}aistor: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except AIStorError as exc:
        print(f"aistor: {exc.message}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
