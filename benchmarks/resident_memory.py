"""A server's resident memory while a workload runs: its VmRSS sampled every 50 ms by a thread.

VmHWM (``peers.peak_rss_mib``) is the peak over the process's whole life; the sampler gives the peak
of each phase of a run, and the resident size just before it.
"""

from __future__ import annotations

import threading

from peers import memory_mib

INTERVAL = 0.05


def rss_mib(pid: int) -> float | None:
    """The process's resident set now (VmRSS), in MiB."""
    return memory_mib(pid, "VmRSS")


class RssSampler:
    """Samples one process's VmRSS in a daemon thread; ``phase()`` starts a new phase, whose
    ``baseline`` (the RSS when it started) and ``peak`` (the most sampled since) it then reports."""

    def __init__(self, pid: int, interval: float = INTERVAL):
        self.pid = pid
        self._interval = interval
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.baseline = self.peak = rss_mib(pid) or 0.0
        self._thread = threading.Thread(target=self._run, name=f"rss-{pid}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def phase(self) -> None:
        with self._lock:
            self.baseline = self.peak = rss_mib(self.pid) or 0.0

    def sample(self) -> bool:
        """One reading (the thread's, or the caller's at the end of a phase); False once the process is gone."""
        rss = rss_mib(self.pid)
        if rss is None:
            return False
        with self._lock:
            self.peak = max(self.peak, rss)
        return True

    def _run(self) -> None:
        while not self._stop.wait(self._interval) and self.sample():
            pass
