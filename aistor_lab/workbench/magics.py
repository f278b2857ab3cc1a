"""``%aistor`` and ``%%aistor``: the commands of the ``aistor`` CLI in notebooks (``%load_ext aistor_lab``).

    %aistor warehouse create analytics
    %aistor table list analytics sales
    tables = %aistor table list analytics sales --json      # plain Python data

    %%aistor table create analytics sales orders
    id long not null, customer string, total decimal(10, 2)

    %%aistor
    namespace create analytics hr
    table create analytics hr people --schema 'id long not null, name string'

The alias argument of the CLI is left out when the environment names the service (inside
JupyterLab it does). Results render as tables; a failure shows one line, never a traceback,
and stops the cell; bad arguments show the usage. Lines are taken literally: ``{...}`` and
``$name`` are not expanded, so Iceberg JSON schemas pass unchanged.
"""

from __future__ import annotations

import shlex
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.display import display

from .client import AIStorError
from .commands.registry import HelpRequested, UsageError, execute, notebook_front


class AIStorMagicError(Exception):
    """A command failed: IPython shows ``_render_traceback_``'s lines instead of a traceback."""

    def __init__(self, message: str, usage: str = ""):
        super().__init__(message)
        self.message = message
        self.usage = usage

    def _render_traceback_(self) -> list[str]:
        lines = self.usage.rstrip("\n").splitlines() if self.usage else []
        return [*lines, f"\x1b[31maistor: {self.message}\x1b[0m"]


def command_lines(cell: str) -> list[str]:
    """The command lines of a cell: backslash continuations joined, blanks and ``#`` comments skipped."""
    joined = cell.replace("\\\r\n", " ").replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


@magics_class
class AIStorMagics(Magics):
    @no_var_expand
    @line_cell_magic
    def aistor(self, line: str, cell: str | None = None) -> Any:
        """Run an aistor command (``%aistor --help`` lists them). In a cell, the line is the command and
        the body its schema (``table create``); with an empty line, each body line is a command."""
        if cell is None or line.strip():
            return self.run(line, body=cell)
        for command_line in command_lines(cell):
            result = self.run(command_line)
            if result is not None:
                display(result)
        return None

    def run(self, line: str, body: str | None = None) -> Any:
        """One command: its result (``--json``: its data), or AIStorMagicError with a short message."""
        try:
            argv = shlex.split(line)
        except ValueError as exc:
            raise AIStorMagicError(f"cannot split the line into arguments: {exc}") from None
        try:
            args, result = execute(argv, notebook_front(), namespace=self.shell.user_ns, body=body)
        except HelpRequested as help_text:
            print(help_text.text, end="")
            return None
        except UsageError as exc:
            raise AIStorMagicError(exc.message, exc.usage) from None
        except AIStorError as exc:
            raise AIStorMagicError(exc.message) from None
        return result.data() if args.json else result


def load_ipython_extension(ipython) -> None:
    ipython.register_magics(AIStorMagics)
