"""Background jobs of the service (lifecycle rules, ...): blocking work run every so often on the
service's thread pool, never on the event loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor

log = logging.getLogger(__name__)


async def every(interval: float, job: Callable[[], None], executor: Executor, stopping: asyncio.Event) -> None:
    """Run ``job`` ``interval`` seconds after the service starts and after each run ends, until
    ``stopping`` is set. A failed run is logged; the next one comes on time."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            await asyncio.wait_for(stopping.wait(), timeout=interval)
            return
        except TimeoutError:
            pass
        try:
            await loop.run_in_executor(executor, job)
        except Exception:  # a failed run must not end the service's jobs
            log.exception("background job %s failed", getattr(job, "__qualname__", job))
