"""Keeps the service alive next to Jupyter: the child ``aistor-lab server`` (process.py) is started,
watched, restarted when it dies and stopped with Jupyter, without blocking Jupyter's event loop."""

from __future__ import annotations

import asyncio
import atexit
import subprocess

from tornado.ioloop import IOLoop, PeriodicCallback

from .process import ServiceProcess


class Supervisor:
    """Keeps one ``aistor-lab server`` child alive: starts it, restarts it when it dies, stops it."""

    def __init__(self, process: ServiceProcess, log, *, startup_timeout: float, stop_timeout: float,
                 watch_interval: float):
        self.process = process
        self.log = log
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.restarts = 0
        self._stopping = False
        self._restarting = False
        self._watch = PeriodicCallback(self._check, watch_interval * 1000)

    @property
    def running(self) -> bool:
        proc = self.process.proc
        return proc is not None and proc.poll() is None

    async def start(self) -> None:
        await IOLoop.current().run_in_executor(None, self.process.start, self.startup_timeout)
        atexit.register(self.process.kill)  # a Jupyter that exits without its stop hooks leaves no orphan
        self._watch.start()
        self.log.info("aistor-lab | service running at %s (pid %s)", self.process.endpoint, self.process.proc.pid)

    async def _check(self) -> None:
        if self._stopping or self._restarting or self.running:
            return
        code = self.process.proc.returncode if self.process.proc else None
        self.log.warning("aistor-lab | service exited (code %s); restarting", code)
        self._restarting = True
        self.restarts += 1
        try:
            await IOLoop.current().run_in_executor(None, self.process.start, self.startup_timeout)
            self.log.info("aistor-lab | service restarted at %s", self.process.endpoint)
        except (RuntimeError, OSError) as exc:  # the next check tries again
            self.log.error("aistor-lab | restart failed: %s", exc)
            self.process.kill()
        finally:
            self._restarting = False

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL; never raises and never waits much longer than ``stop_timeout``."""
        self._stopping = True
        self._watch.stop()
        try:
            stopping = IOLoop.current().run_in_executor(None, self.process.stop, self.stop_timeout)
            await asyncio.wait_for(stopping, self.stop_timeout + 5)
        except (OSError, subprocess.SubprocessError) as exc:  # TimeoutError is an OSError
            self.log.error("aistor-lab | stopping the service failed: %r; killing it", exc)
            try:
                self.process.kill()
            except OSError as kill_error:
                self.log.error("aistor-lab | killing the service failed: %r", kill_error)
        atexit.unregister(self.process.kill)
        self.log.info("aistor-lab | service stopped")
