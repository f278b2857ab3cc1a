"""Run ``aistor-lab server`` as a child process: used by the Jupyter extension, tests and benchmarks."""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Self


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _liveness_context() -> ssl.SSLContext:
    """TLS for asking whether our own child is up, not who it is: its certificate may name other hosts
    than the loopback address we ask at, and its CA may be one this process does not trust."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class ServiceProcess:
    """One ``aistor-lab server`` child on a loopback port, with its data directory."""

    def __init__(
        self,
        data_dir: Path,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        env: dict[str, str] | None = None,
        log_path: Path | None = None,
        certs_dir: Path | None = None,
    ):
        """``certs_dir`` (else ``AISTOR_CERTS_DIR`` of the child's environment): serve HTTPS with its
        ``public.crt`` and ``private.key`` (see ``aistor_lab.tls``)."""
        self.data_dir = Path(data_dir)
        self.host = host
        self.port = port or free_port(host)
        # The child stops by itself if this process dies without stopping it (settings.parent_pid).
        self.env = {**os.environ, **(env or {}), "AISTOR_PARENT_PID": str(os.getpid())}
        certs_dir = certs_dir or self.env.get("AISTOR_CERTS_DIR")
        self.certs_dir = Path(certs_dir) if certs_dir else None
        self.log_path = log_path
        self.proc: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"{'https' if self.certs_dir else 'http'}://{self.host}:{self.port}"

    def start(self, timeout: float = 30) -> Self:
        command = [
            sys.executable, "-m", "aistor_lab", "server",
            "--address", f"{self.host}:{self.port}", "--data", str(self.data_dir),
        ]
        if self.certs_dir:
            command += ["--certs-dir", str(self.certs_dir)]
        if self.log_path:
            with open(self.log_path, "ab") as output:
                self.proc = subprocess.Popen(command, env=self.env, stdout=output, stderr=subprocess.STDOUT)
        else:
            self.proc = subprocess.Popen(command, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.wait_healthy(timeout)
        return self

    def healthy(self) -> bool:
        url, context = self.endpoint + "/_aistor/health", _liveness_context() if self.certs_dir else None
        try:
            with urllib.request.urlopen(url, timeout=2, context=context) as response:
                return response.status == 200
        except OSError:
            return False

    def wait_healthy(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"aistor-lab server exited with code {self.proc.returncode}")
            if self.healthy():
                return
            time.sleep(0.1)
        raise TimeoutError(f"aistor-lab server not healthy at {self.endpoint} after {timeout} s")

    def stop(self, timeout: float = 10) -> int | None:
        """SIGTERM, then SIGKILL if it has not exited in time; returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> Self:
        return self.start() if self.proc is None else self

    def __exit__(self, *exc) -> None:
        self.stop()
