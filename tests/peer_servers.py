"""The peer servers the benchmarks start (benchmarks/peers.py), for tests that need one: SeaweedFS
as a cluster (the distributed backend of the scale-out tests) and moto's server."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_PEERS = Path(__file__).resolve().parents[1] / "benchmarks" / "peers.py"
_spec = importlib.util.spec_from_file_location("benchmark_peers", _PEERS)
peers = sys.modules[_spec.name] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peers)

ACCESS_KEY, SECRET_KEY = peers.ACCESS_KEY, peers.SECRET_KEY
# SeaweedFS's filer does not always stop on SIGTERM: it is killed after this long.
STOP_GRACE_SECONDS = 5


@contextmanager
def seaweedfs_cluster(workdir: Path) -> Iterator[str]:
    """A master, two volume servers, a filer and the S3 gateway as separate processes on loopback;
    yields the gateway's S3 endpoint."""
    workdir.mkdir(parents=True, exist_ok=True)
    servers = peers.seaweedfs_cluster(workdir)
    peers.start_cluster(servers)
    try:
        yield servers[-1].endpoint
    finally:
        peers.stop_all(servers, timeout=STOP_GRACE_SECONDS)


@contextmanager
def moto_server(workdir: Path) -> Iterator[str]:
    workdir.mkdir(parents=True, exist_ok=True)
    server = peers.moto(workdir)
    server.start()
    try:
        server.wait_ready(60)
        yield server.endpoint
    finally:
        peers.stop_all([server], timeout=STOP_GRACE_SECONDS)
