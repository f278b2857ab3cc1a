"""What the disk under the data directories does with plain ``dd``: a yardstick for the big object.

The read-back is not preceded by dropping caches (that needs root and disturbs the machine), so
it most likely measures the page cache rather than the device.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

MiB = 1024 * 1024
BLOCK = "8M"
BLOCK_MIB = 8
# GNU dd's summary line: "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 0.52 s, 2.1 GB/s".
_SUMMARY = re.compile(r"^(\d+) bytes .*copied, ([0-9.]+) s", re.MULTILINE)


@dataclass(frozen=True)
class DiskRates:
    mib: int
    write_mib_s: float  # dd from /dev/zero with conv=fdatasync: includes the flush to the device
    read_mib_s: float  # dd to /dev/null right after: likely served from the page cache


def _dd(*args: str) -> float:
    """Run dd and return its rate in MiB/s, from the bytes and seconds it reports."""
    done = subprocess.run(
        ["dd", *args], capture_output=True, text=True, check=True, env={**os.environ, "LC_ALL": "C"}
    )
    match = _SUMMARY.search(done.stderr)
    if match is None:
        raise RuntimeError(f"cannot parse dd output: {done.stderr!r}")
    return int(match[1]) / MiB / float(match[2])


def measure(path: Path, mib: int) -> DiskRates:
    """Write ``mib`` MiB to ``path`` with fdatasync, read it back with bs=8M, delete it."""
    count = max(1, mib // BLOCK_MIB)
    try:
        write = _dd("if=/dev/zero", f"of={path}", f"bs={BLOCK}", f"count={count}", "conv=fdatasync")
        read = _dd(f"if={path}", "of=/dev/null", f"bs={BLOCK}")
    finally:
        path.unlink(missing_ok=True)
    return DiskRates(count * BLOCK_MIB, write, read)
