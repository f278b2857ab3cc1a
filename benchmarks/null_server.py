"""The ceiling of the S3 client and the loopback on this machine: an HTTP server, in a process of its
own, that answers every HEAD and GET (ranges too) with one file's bytes held in memory and checks
nothing. What boto3 reaches against it, no S3 server here can beat; ``s3_bench.py`` prints the big
GET of each server as a share of it.

    python benchmarks/null_server.py FILE     # prints its port, then serves until killed
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RANGE = re.compile(r"bytes=(\d+)-(\d*)")


class NullHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as S3 servers answer

    def log_message(self, *args) -> None:
        pass

    def body(self) -> bytes:
        """The bytes this request is answered with (subclasses pick them by path)."""
        return self.server.body  # type: ignore[attr-defined]

    def _answer(self, with_body: bool) -> None:
        body = self.body()
        first, last, status = 0, len(body) - 1, 200
        wanted = RANGE.fullmatch(self.headers.get("Range", ""))
        if wanted:
            first, last, status = int(wanted[1]), min(int(wanted[2] or last), last), 206
        self.send_response(status)
        self.send_header("Content-Length", str(last - first + 1))
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("ETag", '"null"')
        self.send_header("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT")
        if status == 206:
            self.send_header("Content-Range", f"bytes {first}-{last}/{len(body)}")
        self.end_headers()
        if with_body:
            self.wfile.write(memoryview(body)[first:last + 1])

    def do_HEAD(self) -> None:
        self._answer(with_body=False)

    def do_GET(self) -> None:
        self._answer(with_body=True)


@contextmanager
def child_server(script: str, args: list[str]) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of ``script`` run with ``args`` in a process of its own (a server that
    prints its port first), running while the block runs: its work never shares the client's GIL."""
    child = subprocess.Popen([sys.executable, script, *args], stdout=subprocess.PIPE, text=True)
    try:
        port = child.stdout.readline().strip()
        if not port.isdigit():
            raise RuntimeError(f"{Path(script).name} did not start")
        yield f"http://127.0.0.1:{port}"
    finally:
        child.kill()
        child.wait()


def null_server(path: Path) -> AbstractContextManager[str]:
    """The endpoint of a null server answering ``path``'s bytes, running while the block runs."""
    return child_server(__file__, [str(path)])


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), NullHandler)
    server.daemon_threads = True
    server.body = Path(sys.argv[1]).read_bytes()  # type: ignore[attr-defined]
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
