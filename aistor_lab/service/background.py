"""Background jobs of the service (lifecycle rules, ...): blocking work run every so often on the
service's thread pool, never on the event loop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Executor

log = logging.getLogger(__name__)


# The first run comes this soon after the service starts (or after one interval, if shorter): a
# service restarted more often than its interval (a notebook server's child) still runs its jobs.
FIRST_RUN_SECONDS = 60.0


async def every(interval: float, job: Callable[[], None], executor: Executor, stopping: asyncio.Event) -> None:
    """Run ``job`` soon after the service starts, then ``interval`` seconds after each run ends, until
    ``stopping`` is set. A failed run is logged; the next one comes on time."""
    loop = asyncio.get_running_loop()
    wait = min(interval, FIRST_RUN_SECONDS)
    while True:
        try:
            await asyncio.wait_for(stopping.wait(), timeout=wait)
            return
        except TimeoutError:
            wait = interval
        try:
            await loop.run_in_executor(executor, job)
        except Exception:  # a failed run must not end the service's jobs
            log.exception("background job %s failed", getattr(job, "__qualname__", job))
