"""The ceiling of the Delta Sharing client on this machine: a server, in a process of its own, that
answers a table query with the lines aistor-lab answered (the same files, ids, sizes and stats)
but with URLs to itself, and answers those URLs with the files' bytes held in memory, checking
nothing. What ``delta_sharing.load_as_pandas`` reaches against it, no sharing server here can beat;
``sharing_bench.py`` prints the share of it that aistor-lab reaches.

It answers the requests the client sends to any sharing server over S3 as S3 answers them: a HEAD of
a URL presigned for GET is refused (403, the signature covers the method), so the client asks for the
size with a GET, as it does of aistor-lab.

    python benchmarks/null_share.py ANSWER DIR   # prints its port, then serves until killed
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from null_server import NullHandler, child_server


class _ShareHandler(NullHandler):
    def body(self) -> bytes:
        return self.server.files[self._name()]  # type: ignore[attr-defined]

    def _name(self) -> str:
        return urlsplit(self.path).path.rsplit("/", 1)[-1]

    def do_GET(self) -> None:
        if self._name() not in self.server.files:  # type: ignore[attr-defined]
            self.send_error(404, "not a file of the answer this null share serves")
            return
        super().do_GET()

    def do_HEAD(self) -> None:
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        answer: bytes = self.server.answer  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson; charset=utf-8")
        self.send_header("Delta-Table-Version", self.server.version)  # type: ignore[attr-defined]
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """Quiet: the client drops the GETs it sends only to learn a file's size."""


def own_urls(answer: str, base: str) -> bytes:
    """The query answer with each file's URL pointing at ``base``/its file name."""
    lines = []
    for line in answer.splitlines():
        action = json.loads(line)
        if "file" in action:
            action["file"]["url"] = f"{base}/{urlsplit(action['file']['url']).path.rsplit('/', 1)[-1]}"
        lines.append(json.dumps(action, separators=(",", ":")))
    return "".join(f"{line}\n" for line in lines).encode()


@contextmanager
def null_share(answer: Path, version: int, files: list[Path]) -> Iterator[str]:
    """The endpoint (to put in a profile) of a null share answering ``answer`` (a query answer of
    version ``version``) and the bytes of ``files``, running while the block runs."""
    with child_server(__file__, [str(answer), str(version), *map(str, files)]) as base:
        yield f"{base}/delta-sharing"


def main() -> None:
    server = _Server(("127.0.0.1", 0), _ShareHandler)
    answer, version, *files = sys.argv[1:]
    server.version = version  # type: ignore[attr-defined]
    server.files = {Path(f).name: Path(f).read_bytes() for f in files}  # type: ignore[attr-defined]
    port = server.server_address[1]
    server.answer = own_urls(Path(answer).read_text(), f"http://127.0.0.1:{port}")  # type: ignore[attr-defined]
    print(port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
