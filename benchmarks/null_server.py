"""The ceiling of the S3 client and the loopback on this machine: HTTP servers, each in a process of
its own, that check nothing and keep everything in memory. What boto3 reaches against them, no S3
server here can beat; ``s3_bench.py`` prints each server's figures as a share of them.

- ``null_server(FILE)`` answers every HEAD and GET (ranges too) with one file's bytes: the big GET.
- ``memory_server()`` keeps each PUT's body and Content-Type by path (query included) and answers a
  GET of that path with them, on a bare asyncio protocol (a few microseconds a request): the small
  PUTs and GETs, and a catalog's recorded answers replayed (``catalog_bench.py``'s load_table).

    python benchmarks/null_server.py FILE        # prints its port, then serves until killed
    python benchmarks/null_server.py --memory    # the same for the in-memory server
"""

from __future__ import annotations

import asyncio
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


def memory_server() -> AbstractContextManager[str]:
    """The endpoint of an in-memory null server, running while the block runs."""
    return child_server(__file__, ["--memory"])


class MemoryProtocol(asyncio.Protocol):
    """HTTP/1.1 keep-alive, one request at a time, as boto3 sends them: PUT keeps the body under the
    request's path, GET answers it (or nothing), anything else gets an empty 200."""

    def __init__(self, objects: dict[bytes, tuple[bytes, bytes]]) -> None:
        self.objects = objects
        self.buffer = bytearray()
        self.continued = False  # 100 Continue sent for the request in the buffer

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = bytes(self.buffer[:end]).split(b"\r\n")
            method, path, _ = head[0].split(b" ", 2)
            fields = dict(_field(line) for line in head[1:])
            length = int(fields.get(b"content-length", 0))
            if len(self.buffer) < end + 4 + length:
                if not self.continued and fields.get(b"expect", b"").lower() == b"100-continue":
                    self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # boto3 asks on every PUT
                    self.continued = True
                return
            self.continued = False
            body = bytes(self.buffer[end + 4:end + 4 + length])
            del self.buffer[:end + 4 + length]
            self.answer(method, path, body, fields.get(b"content-type", b"application/octet-stream"))

    def answer(self, method: bytes, path: bytes, body: bytes, content_type: bytes) -> None:
        reply, reply_type = b"", b"application/octet-stream"
        if method == b"PUT":
            self.objects[path] = (body, content_type)
        elif method == b"GET":
            reply, reply_type = self.objects.get(path, (reply, reply_type))
        self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nETag: \"null\"\r\n"
                             b"Content-Type: %s\r\n\r\n%s"
                             % (len(reply), reply_type, reply if method != b"HEAD" else b""))


def _field(line: bytes) -> tuple[bytes, bytes]:
    name, _, value = line.partition(b":")
    return name.strip().lower(), value.strip()


async def serve_memory() -> None:
    objects: dict[bytes, tuple[bytes, bytes]] = {}
    server = await asyncio.get_running_loop().create_server(lambda: MemoryProtocol(objects), "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


def main() -> None:
    if sys.argv[1] == "--memory":
        asyncio.run(serve_memory())
        return
    server = ThreadingHTTPServer(("127.0.0.1", 0), NullHandler)
    server.daemon_threads = True
    server.body = Path(sys.argv[1]).read_bytes()  # type: ignore[attr-defined]
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
