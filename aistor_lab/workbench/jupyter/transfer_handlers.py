"""The panel's downloads and uploads: object bytes streamed through Jupyter in chunks, never held
whole. A download is GetObject's body relayed as it is read; an upload is the request body fed, as
it arrives, to a ``StreamedUpload`` (S3 multipart in 8 MiB parts), aborted if anything fails or the
browser goes away."""

from __future__ import annotations

import json
from urllib.parse import quote

from tornado import web
from tornado.ioloop import IOLoop
from tornado.iostream import StreamClosedError

from ..browse.buckets import check_bucket, check_key
from ..browse.uploads import StreamedUpload
from ..client import AIStorError
from ..objects import ObjectClient, object_client
from .handlers import API, AIStorAPIHandler, _error_status

CHUNK = 1024 * 1024
MAX_UPLOAD = 5 * 1024**4  # S3's largest object; Jupyter's own body limit is for JSON requests


def _attachment(key: str) -> str:
    """``Content-Disposition`` naming the key's last segment: plain ASCII for old browsers, RFC 5987
    UTF-8 for the rest."""
    name = key.rstrip("/").rsplit("/", 1)[-1] or "download"
    ascii_name = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in name)
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


class _ObjectsHandler(AIStorAPIHandler):
    @property
    def objects(self) -> ObjectClient:
        return object_client(self.app.service)

    def fail(self, exc: AIStorError) -> None:
        self.set_status(_error_status(exc))
        self.finish(json.dumps({"error": exc.message}))


class DownloadHandler(_ObjectsHandler):
    @web.authenticated
    async def get(self, bucket: str) -> None:
        run = IOLoop.current().run_in_executor
        try:
            key = check_key(self.get_argument("key", ""))
            answer = await run(None, self.objects.get, check_bucket(bucket), key)
        except AIStorError as exc:
            self.fail(exc)
            return
        body = answer["Body"]
        # Always plain bytes to save, whatever type the object claims: never a page of this origin.
        content_type = "application/octet-stream"
        try:
            self.set_header("Content-Type", content_type)
            self.set_header("Content-Length", str(answer["ContentLength"]))
            self.set_header("Content-Disposition", _attachment(key))
            while chunk := await run(None, body.read, CHUNK):
                self.write(chunk)
                await self.flush()  # waits for the browser: no more than a chunk is held here
            self.finish(set_content_type=content_type)
        except StreamClosedError:
            pass  # the browser went away
        finally:
            body.close()


@web.stream_request_body
class UploadHandler(_ObjectsHandler):
    upload: StreamedUpload | None = None
    failure: AIStorError | None = None

    async def prepare(self) -> None:
        await super().prepare()
        if self.request.method != "PUT":
            return
        if not self.current_user:  # the body must not be taken before the caller is known
            raise web.HTTPError(403)
        self.request.connection.set_max_body_size(MAX_UPLOAD)
        bucket = self.path_args[0]
        try:
            self.upload = StreamedUpload(self.objects, bucket, self.get_argument("key", ""))
        except AIStorError as exc:
            self.fail(exc)

    async def data_received(self, chunk: bytes) -> None:
        if self.upload is None or self.failure is not None:
            return
        part = self.upload.take(chunk)
        if part is None:
            return
        try:  # awaited: tornado reads no more of the body meanwhile, so memory stays bounded
            await IOLoop.current().run_in_executor(None, self.upload.send, part)
        except AIStorError as exc:
            self.failure = exc
            await self._abort()

    async def _abort(self) -> None:
        if self.upload is not None:
            upload, self.upload = self.upload, None
            try:
                await IOLoop.current().run_in_executor(None, upload.abort)
            except AIStorError as exc:
                self.log.warning("aistor-lab | could not abort the upload of %s: %s", upload.key, exc.message)

    def on_connection_close(self) -> None:
        if self.upload is not None and not self._finished:
            IOLoop.current().spawn_callback(self._abort)

    @web.authenticated
    async def put(self, bucket: str) -> None:
        if self.failure is not None:
            self.fail(self.failure)
            return
        upload = self.upload
        if upload is None:
            return

        def finish() -> dict:
            try:
                return upload.finish()
            except AIStorError:
                upload.abort()
                raise

        self.upload = None
        await self.answer(finish)


def routes() -> list[tuple[str, type[AIStorAPIHandler]]]:
    return [
        (rf"{API}/buckets/([^/]+)/download", DownloadHandler),
        (rf"{API}/buckets/([^/]+)/upload", UploadHandler),
    ]
