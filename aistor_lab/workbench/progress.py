"""Progress for long work in the workbench's Python API: tqdm.auto's bars (a widget in a notebook kernel,
a line on a terminal), shown only where someone watches."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any


def interactive() -> bool:
    """A notebook kernel or a terminal, where a bar is seen: not a script's redirected output or a test."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if getattr(shell, "kernel", None) is not None:
        return True
    return sys.stderr.isatty()


def progress_bar(enabled: bool | None = None, **options: Any):
    """A tqdm.auto bar on stderr that disappears when closed; ``enabled`` None: when ``interactive()``."""
    from tqdm.auto import tqdm

    enabled = interactive() if enabled is None else enabled
    return tqdm(file=sys.stderr, leave=False, dynamic_ncols=True, disable=not enabled, **options)


@contextlib.contextmanager
def ticking(bar, interval: float = 0.5) -> Iterator[None]:
    """Refresh ``bar`` every ``interval`` seconds while the block runs, so its elapsed time moves during
    one long step that reports nothing (a JVM starting, say)."""
    if bar.disable:
        yield
        return
    done = threading.Event()

    def tick() -> None:
        while not done.wait(interval):
            bar.refresh()

    thread = threading.Thread(target=tick, name="progress-tick", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


@contextlib.contextmanager
def shown_when_slow(description: str, enabled: bool | None = None, after: float = 1.0) -> Iterator[None]:
    """A bar with ``description`` and the time elapsed, shown only once the block has run ``after``
    seconds (a quick command shows nothing) and gone when it ends. A thread watches the clock: the
    block may be one call that reports nothing (in a kernel, what the thread shows lands in the cell
    that runs the block)."""
    if not (interactive() if enabled is None else enabled):
        yield
        return
    done = threading.Event()

    def watch() -> None:
        if done.wait(after):
            return
        with progress_bar(True, desc=description, bar_format="{desc}: {elapsed}") as bar:
            while not done.wait(0.5):
                bar.refresh()

    thread = threading.Thread(target=watch, name="progress-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
