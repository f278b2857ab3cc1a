"""Progress for long work in the workbench's Python API: tqdm.auto's bars (a widget in a notebook kernel,
a line on a terminal), shown only where someone watches."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
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
def _beside(work: Callable[[threading.Event], None]) -> Iterator[None]:
    """Runs ``work(done)`` in a thread while the block runs; ``done`` is set when the block ends."""
    done = threading.Event()
    thread = threading.Thread(target=work, args=(done,), name="progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _refresh_until(done: threading.Event, bar, interval: float = 0.5) -> None:
    while not done.wait(interval):
        bar.refresh()


def ticking(bar, interval: float = 0.5) -> contextlib.AbstractContextManager[None]:
    """Refresh ``bar`` every ``interval`` seconds while the block runs, so its elapsed time moves during
    one long step that reports nothing (a JVM starting, say)."""
    if bar.disable:
        return contextlib.nullcontext()
    return _beside(lambda done: _refresh_until(done, bar, interval))


def shown_when_slow(description: str, enabled: bool | None = None,
                    after: float = 1.0) -> contextlib.AbstractContextManager[None]:
    """A bar with ``description`` and the time elapsed, shown only once the block has run ``after``
    seconds (a quick command shows nothing) and gone when it ends. A thread watches the clock: the
    block may be one call that reports nothing (in a kernel, what the thread shows lands in the cell
    that runs the block)."""
    if not (interactive() if enabled is None else enabled):
        return contextlib.nullcontext()

    def watch(done: threading.Event) -> None:
        if done.wait(after):
            return
        with progress_bar(True, desc=description, bar_format="{desc}: {elapsed}") as bar:
            _refresh_until(done, bar)

    return _beside(watch)
