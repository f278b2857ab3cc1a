"""Start the S3 servers under comparison as child processes on loopback, and stop them.

Every server gets free 127.0.0.1 ports and its own data directory under one scratch
directory; nothing listens on another interface.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import boto3
from botocore.client import BaseClient
from botocore.config import Config

HOST = "127.0.0.1"
ACCESS_KEY = "minioadmin"
SECRET_KEY = "minioadmin"
REGION = "us-east-1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def s3_client(endpoint: str, pool: int = 10, **config) -> BaseClient:
    """A boto3 S3 client as the workloads use it: path-style, SigV4, default checksums."""
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
        region_name=REGION,
        config=Config(
            signature_version="s3v4",
            s3={"addressing_style": "path"},
            max_pool_connections=pool,
            **config,
        ),
    )


def _script(name: str) -> str:
    """A console script of this Python environment (the venv's bin), else one on PATH."""
    candidate = Path(sysconfig.get_path("scripts")) / name
    found = str(candidate) if candidate.exists() else shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"{name} not found in {candidate.parent} nor on PATH")
    return found


@dataclass
class ServerProcess:
    """One S3 server child: its command, its S3 endpoint and where its output goes."""

    name: str
    command: list[str]
    endpoint: str
    log_path: Path
    version: str
    catalog_uri: str | None = None  # its Iceberg REST catalog, if it serves one
    env: dict[str, str] = field(default_factory=dict)
    # Files it makes outside its work dir and may leave behind when stopped early; removed after it.
    leftovers: list[Path] = field(default_factory=list)
    proc: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            # A session of its own: Ctrl-C reaches only the benchmark, which then stops the
            # servers itself, after the workers have finished their current request.
            self.proc = subprocess.Popen(
                self.command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **self.env},
                start_new_session=True,
            )

    def wait_ready(self, timeout: float) -> None:
        """Wait until ListBuckets succeeds with our credentials (S3 and auth both up)."""
        probe = s3_client(
            self.endpoint, connect_timeout=1, read_timeout=5, retries={"total_max_attempts": 1}
        )
        deadline = time.monotonic() + timeout
        last_error: Exception | None = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with code {self.proc.returncode}\n{self.log_tail()}")
            try:
                probe.list_buckets()
                return
            except Exception as exc:  # noqa: BLE001 - any failure means "not ready yet"
                last_error = exc
                time.sleep(0.2)
        raise TimeoutError(f"{self.name} not answering S3 after {timeout} s: {last_error}\n{self.log_tail()}")

    def wait_listening(self, timeout: float) -> None:
        """Wait until the endpoint's port accepts connections."""
        host, port = self.endpoint.removeprefix("http://").split(":")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with code {self.proc.returncode}\n{self.log_tail()}")
            with socket.socket() as sock:
                if sock.connect_ex((host, int(port))) == 0:
                    return
            time.sleep(0.2)
        raise TimeoutError(f"{self.name} not listening after {timeout} s\n{self.log_tail()}")

    def signal(self, sig: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def stop_all(servers: list[ServerProcess], timeout: float = 15) -> None:
    """SIGTERM every server at once, then SIGKILL whatever is still running at the deadline."""
    for server in servers:
        server.signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for server in servers:
        if server.proc is None:
            continue
        try:
            server.proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            server.signal(signal.SIGKILL)
            server.proc.wait()
        for path in server.leftovers:
            path.unlink(missing_ok=True)


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


def aistor_lab(workdir: Path) -> ServerProcess:
    """Ours: ``aistor-lab server`` (the same as ``python -m aistor_lab server``)."""
    port = free_port()
    data = workdir / "data"
    data.mkdir(parents=True)
    endpoint = f"http://{HOST}:{port}"
    return ServerProcess(
        name="aistor-lab",
        command=[sys.executable, "-m", "aistor_lab", "server", "--address", f"{HOST}:{port}", "--data", str(data)],
        endpoint=endpoint,
        log_path=workdir / "server.log",
        version=_version("aistor-lab"),
        catalog_uri=f"{endpoint}/_iceberg",
        env={"AISTOR_ROOT_USER": ACCESS_KEY, "AISTOR_ROOT_PASSWORD": SECRET_KEY},
    )


def moto(workdir: Path) -> ServerProcess:
    """moto's standalone server (keeps objects in memory, or in temp files when large; accepts any
    credentials)."""
    port = free_port()
    tmp = workdir / "tmp"
    tmp.mkdir(parents=True)
    return ServerProcess(
        name="moto",
        command=[_script("moto_server"), "-H", HOST, "-p", str(port)],
        endpoint=f"http://{HOST}:{port}",
        log_path=workdir / "server.log",
        version=_version("moto"),
        env={"TMPDIR": str(tmp)},
    )


# Every listener of `weed mini` gets a free loopback port (gRPC ports would otherwise default to
# HTTP port + 10000). The admin server listens even with its UI off, and its maintenance worker
# dials the admin's HTTP port + 10000 whatever -admin.port.grpc says.
_WEED_ROLES = ("master", "volume", "filer", "s3", "admin")
_WEED_GRPC_OFFSET = 10000
# weed mini also makes a unix socket per gRPC port in /tmp, whatever TMPDIR says; it removes
# them on a normal stop but not when stopped during startup.
_WEED_SOCKET = "/tmp/seaweedfs-{role}-grpc-{port}.sock"


def _free_port_pair(offset: int) -> int:
    """A free port ``p`` such that ``p + offset`` is free too."""
    while True:
        with socket.socket() as first, socket.socket() as second:
            first.bind((HOST, 0))
            port = first.getsockname()[1]
            if port + offset > 65535:
                continue
            try:
                second.bind((HOST, port + offset))
            except OSError:
                continue
            return port


def seaweedfs(workdir: Path, table_bucket: str | None = None) -> ServerProcess:
    """SeaweedFS all-in-one (``weed mini``: master, volume, filer and S3 gateway in one process).

    With ``table_bucket`` it also serves its Iceberg REST catalog (on a free port, the same
    identities) and creates that S3 Tables bucket at startup: the catalog's warehouse.
    """
    weed = _script("weed")
    data, tmp = workdir / "data", workdir / "tmp"
    data.mkdir(parents=True)
    tmp.mkdir()
    identities = _identities(workdir)
    ports = {role: free_port() for role in _WEED_ROLES}
    ports["admin"] = _free_port_pair(_WEED_GRPC_OFFSET)
    grpc_ports = {role: free_port() for role in _WEED_ROLES}
    grpc_ports["admin"] = ports["admin"] + _WEED_GRPC_OFFSET
    iceberg_port = free_port() if table_bucket else 0
    command = [
        weed, "mini", f"-dir={data}", f"-ip={HOST}", f"-ip.bind={HOST}", f"-s3.config={identities}",
        f"-s3.port.iceberg={iceberg_port}", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
        "-master.telemetry=false",
        f"-filer.localSocket={workdir / 'filer.sock'}", f"-s3.localSocket={workdir / 's3.sock'}",
    ]
    if table_bucket:
        command.append(f"-tableBucket={table_bucket}")
    command += [f"-{role}.port={port}" for role, port in ports.items()]
    command += [f"-{role}.port.grpc={port}" for role, port in grpc_ports.items()]
    # "version 8000GB 4.48 pypi linux amd64"
    version = subprocess.run([weed, "version"], check=False, capture_output=True, text=True, timeout=30).stdout.split()
    return ServerProcess(
        name="seaweedfs",
        command=command,
        endpoint=f"http://{HOST}:{ports['s3']}",
        log_path=workdir / "server.log",
        version=version[2] if len(version) > 2 else "?",
        catalog_uri=f"http://{HOST}:{iceberg_port}" if table_bucket else None,
        env={"TMPDIR": str(tmp)},  # where its glog files go
        leftovers=[Path(_WEED_SOCKET.format(role=role, port=port)) for role, port in grpc_ports.items()],
    )


def _identities(workdir: Path) -> Path:
    """The S3 gateway's identity file: our benchmark keys, allowed everything."""
    path = workdir / "s3.json"
    path.write_text(json.dumps({"identities": [{
        "name": "bench",
        "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
        "actions": ["Admin", "Read", "Write", "List", "Tagging"],
    }]}))
    return path


def seaweedfs_cluster(workdir: Path, volumes: int = 2) -> list[ServerProcess]:
    """SeaweedFS as a cluster runs it, one process per role: a master, ``volumes`` volume servers, a
    filer and the S3 gateway, in the order they must start; the gateway (last) is the cluster's S3
    endpoint. Each role's gRPC port is its HTTP port + 10000, weed's default, on free ports."""
    weed = _script("weed")
    _, _, version, *_ = subprocess.run([weed, "version"], check=False, capture_output=True, text=True,
                                       timeout=30).stdout.split() + ["?"] * 3
    identities = _identities(workdir)

    def role(name: str, *args: str) -> ServerProcess:
        port = _free_port_pair(_WEED_GRPC_OFFSET)
        directory = workdir / name
        directory.mkdir(parents=True)
        return ServerProcess(
            name=f"seaweedfs-{name}",
            command=[weed, *args, f"-port={port}", f"-port.grpc={port + _WEED_GRPC_OFFSET}", f"-ip.bind={HOST}"],
            endpoint=f"http://{HOST}:{port}",
            log_path=workdir / f"{name}.log",
            version=version,
            env={"TMPDIR": str(directory)},  # where its glog files go
        )

    def address(server: ServerProcess) -> str:
        return server.endpoint.removeprefix("http://")

    master = role("master", "master", f"-ip={HOST}", f"-mdir={workdir / 'master'}", "-volumeSizeLimitMB=64",
                  "-defaultReplication=000", "-telemetry=false")
    # Every bucket is a collection with volumes of its own; the master grows 7 at once by default,
    # which fills the volume servers' slots after a few dozen buckets (writes then fail with
    # InternalError, "No writable volumes"). One at a time suffices for a test or benchmark's load.
    master.env["WEED_MASTER_VOLUME_GROWTH_COPY_1"] = "1"
    stores = [role(f"volume{i}", "volume", f"-ip={HOST}", f"-dir={workdir / f'volume{i}'}", "-max=256",
                   f"-master={address(master)}") for i in range(1, volumes + 1)]
    filer = role("filer", "filer", f"-ip={HOST}", f"-master={address(master)}",
                 f"-defaultStoreDir={workdir / 'filer'}")
    # Its Iceberg and Lance listeners default to fixed ports (8181, 9101), which two clusters on one
    # machine would both take: the S3 endpoint is all the cluster is for.
    gateway = role("s3", "s3", f"-filer={address(filer)}", f"-config={identities}", "-port.iceberg=0",
                   "-port.lance=0")
    return [master, *stores, filer, gateway]


def start_cluster(servers: list[ServerProcess], timeout: float = 120) -> None:
    """Start each process once the one before it answers: the last one's S3, the others' HTTP port.
    On failure every started process is stopped."""
    try:
        for server in servers:
            server.start()
            if server is servers[-1]:
                server.wait_ready(timeout)
            else:
                server.wait_listening(timeout)
    except BaseException:
        stop_all(servers)
        raise


SERVERS: dict[str, Callable[[Path], ServerProcess]] = {
    "aistor-lab": aistor_lab,
    "moto": moto,
    "seaweedfs": seaweedfs,
}
OURS = "aistor-lab"


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def memory_mib(pid: int, field: str) -> float | None:
    """A memory figure of a live process from Linux's /proc/PID/status (``VmRSS``, ``VmHWM``), in MiB;
    None once it is gone, or elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user and system) a live process has used so far, from /proc/PID/stat; None once
    it is gone, or elsewhere."""
    try:
        # The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mib(pid: int) -> float | None:
    """The most memory a live process has held resident (VmHWM), in MiB."""
    return memory_mib(pid, "VmHWM")


def report_peak_memory(name: str, servers: list[tuple[str, int | None]]) -> None:
    """Prints each server's peak resident memory over the run (the service should stay under 300 MiB)."""
    for server, pid in servers:
        peak = peak_rss_mib(pid) if pid else None
        if peak is not None:
            print(f"{name}: peak memory of {server}: {peak:.0f} MiB (VmHWM)")


def add_run_options(parser: argparse.ArgumentParser, what: str) -> None:
    """The options every side-by-side benchmark takes: where its scratch directory goes, whether to
    keep it, and how long ``what`` (a server, a catalog) may take to answer once started."""
    parser.add_argument("--workdir", type=Path, help="parent of the scratch directory (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory (data and server logs)")
    parser.add_argument("--start-timeout", type=float, default=60, help=f"seconds a {what} may take to answer")


def settle_args(parser: argparse.ArgumentParser, args: argparse.Namespace, preset: dict,
                lists: dict[str, tuple[str, ...]]) -> None:
    """Fill the options left unset from ``preset`` (the quick or the full run's values), and turn each
    comma-separated option named in ``lists`` into a list, refusing names it does not know."""
    for name, value in preset.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    for name, known in lists.items():
        given = [item.strip() for item in getattr(args, name).split(",") if item.strip()]
        unknown = sorted(set(given) - set(known))
        if unknown:
            parser.error(f"unknown {name}: {', '.join(unknown)} (known: {', '.join(known)})")
        setattr(args, name, given)


def run_with_servers(name: str, workdir: str | None, keep: bool,
                     benchmark: Callable[[Path, list[ServerProcess]], int]) -> int:
    """Run ``benchmark(scratch_dir, started_servers)``; whatever happens (Ctrl-C, SIGTERM, errors),
    stop every server it started and remove the scratch directory unless ``keep``."""
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    root = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=workdir))
    started: list[ServerProcess] = []
    try:
        return benchmark(root, started)
    except KeyboardInterrupt:
        print(f"{name}: interrupted; stopping the servers", file=sys.stderr)
        return 130
    finally:
        report_peak_memory(name, [(server.name, server.proc and server.proc.pid) for server in started])
        stop_all(started)
        if keep:
            print(f"{name}: kept {root}", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
