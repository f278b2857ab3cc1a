"""POST Object: a browser or HTML-form upload, ``POST /BUCKET`` with a ``multipart/form-data`` body.

The form names the key (``${filename}`` stands for the file's name), carries the object's headers
as fields (Content-Type, Cache-Control, ``x-amz-meta-*``, ``acl``, ``tagging``, the SSE and checksum
fields...) and authenticates itself: a base64 policy document signed with SigV4 or SigV2
(``auth.verify_form``) that says what the form may hold (``post_policy``). A form with neither
policy nor signature is anonymous, allowed where the bucket's policy lets anyone put objects.

The body streams (``form_reader``): once the file part begins, every field is in, so the form is
authenticated, checked against its policy and authorized (``s3:PutObject`` on the key) before a
byte of the file is kept; the file then goes straight into the store's staging, as a PutObject's
body, and is committed by the same code (``object_ops.write_staged``). The answer is 204, or what
``success_action_status`` (200, 201 with a PostResponse document) or ``success_action_redirect``
(303 to the URL with bucket, key and ETag) asks for.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode, urlsplit

from tornado.httputil import HTTPHeaders
from tornado.ioloop import IOLoop

from ..auth import is_signed_form, verify_form
from ..http.limits import DRAIN_LIMIT
from ..store import MAX_PART_SIZE
from . import sse
from .checksums import BodyChecksums
from .errors import S3Error
from .form_reader import FormReader
from .names import check_key
from .object_ops import STORED_HEADERS, write_staged
from .post_policy import PostPolicy
from .tagging_ops import TAGGING_HEADER, parse_tagging_document
from .unsupported_headers import refuse_unsupported_headers
from .virtual_hosts import bucket_of_host
from .xmlio import XmlWriter

if TYPE_CHECKING:
    from .handler import S3Handler

# Fields that authenticate the form rather than describe the object: never taken as headers.
_CREDENTIAL_FIELDS = frozenset({"x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature",
                                "x-amz-security-token"})
_HEADER_FIELDS = frozenset(name.lower() for name in ("Content-Type", *STORED_HEADERS))
# The browser's own headers that policies may name in conditions (aws:UserAgent, aws:Referer).
_KEPT_HEADERS = ("User-Agent", "Referer")


class FormUpload:
    """One POST Object's body as it streams in: the handler feeds it every chunk."""

    def __init__(self, req: S3Handler):
        self.req = req
        self.reader = FormReader(req.request.headers.get("Content-Type", ""))
        self.policy: PostPolicy | None = None
        self.size = 0
        self.received = 0
        length = req.request.headers.get("Content-Length", "")
        self.length = int(length) if length.isdigit() else None  # None: chunked
        self.started = False
        # The fields come first and are small: a client that takes longer than a body may to send
        # them is cut off, authenticated or not (the file itself may then take as long as it needs).
        IOLoop.current().call_later(req.services.settings.body_timeout_seconds, self._fields_overdue)

    async def feed(self, chunk: bytes) -> None:
        self.received += len(chunk)
        pieces = self.reader.feed(chunk)
        if self.reader.filename is not None and not self.started:
            self.started = True
            await self._start()
        for piece in pieces:
            self.size += len(piece)
            if self.size > MAX_PART_SIZE:
                raise S3Error("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.")
            if self.policy is not None:
                self.policy.check_size(self.size, complete=False)
            self.req.checksums.update(piece)
            self.req.staging.write(piece)

    def little_left(self) -> bool:
        """Whether what is left of the body is small enough to read before answering a refusal."""
        return self.length is not None and self.length - self.received <= DRAIN_LIMIT

    def _fields_overdue(self) -> None:
        if not self.started and not self.req._finished:
            self.req.request.connection.stream.close()

    async def _start(self) -> None:
        """Every field is in: authenticate, check the policy, authorize, and open the staging."""
        req, fields = self.req, self.reader.fields
        if "key" not in fields:
            raise S3Error("InvalidArgument", "Bucket POST must contain a field named 'key'. "
                          "If it is specified, please check the order of the fields.")
        key = fields["key"].replace("${filename}", self.reader.filename or "")
        self._authenticate(fields)
        if self.policy is not None:
            self.policy.check({**fields, "bucket": req.bucket, "key": key}, time.time())
        check_key(key)
        req.key = key
        # From here on the form's fields are the request's headers: the condition keys of policies
        # (s3:x-amz-acl, s3:RequestObjectTag/...) and the code of PutObject (metadata, SSE,
        # checksums, lock, tags, ACL) read them as they read a PUT's.
        req.request.headers = _object_headers(fields, req.request.headers)
        req.authorize("s3:PutObject", req.bucket, key)
        refuse_unsupported_headers(req.operation.name, req.request.headers)
        req.sse = await sse.bind(req)
        await req.run_read(req.store.get_bucket, req.bucket)
        req.checksums = BodyChecksums(req.request.headers)
        req.staging = await req.run_read(sse.stage_body, req)

    def _authenticate(self, fields: dict[str, str]) -> None:
        """The form's user (``req.access_key``), or nobody for an anonymous form."""
        if not is_signed_form(fields):
            return
        req = self.req
        token = fields.get("x-amz-security-token")
        req.session = req.services.iam.sessions.open(token) if token else None
        access_key = verify_form(fields, req.session.secret_for if req.session else req.services.iam.secret_for)
        # A session acts for its parent user, within its own policy (the handler's authorize).
        req.access_key = req.session.parent if req.session else access_key
        self.policy = PostPolicy.parse(fields["policy"])


def _object_headers(fields: dict[str, str], request: HTTPHeaders) -> HTTPHeaders:
    """The headers a PutObject of the same object would carry, as the wire carries them (UTF-8
    bytes read as latin-1, see ``auth.header_text``)."""
    headers = HTTPHeaders({name: request[name] for name in _KEPT_HEADERS if name in request})
    for name, value in fields.items():
        if name in _HEADER_FIELDS or (name.startswith("x-amz-") and name not in _CREDENTIAL_FIELDS):
            headers[name] = value.encode().decode("latin-1")
    if "acl" in fields:
        headers["x-amz-acl"] = fields["acl"]
    if "tagging" in fields:
        headers[TAGGING_HEADER] = urlencode(parse_tagging_document(fields["tagging"].encode()))
    return headers


async def post_object(req: S3Handler) -> None:
    form: FormUpload = req.form
    form.reader.finish()
    if not form.reader.file_done:
        raise S3Error("InvalidArgument", "POST requires exactly one file upload per request.")
    if form.policy is not None:
        form.policy.check_size(form.size, complete=True)
    info = await write_staged(req)
    fields = form.reader.fields
    location = _object_url(req)
    req.set_header("Location", location)
    redirect = fields.get("success_action_redirect") or fields.get("redirect")
    if redirect and _is_url(redirect):
        query = urlencode({"bucket": req.bucket, "key": req.key, "etag": f'"{info.etag}"'}, quote_via=quote)
        req.redirect(redirect + ("&" if urlsplit(redirect).query else "?") + query, status=303)
        return
    status = fields.get("success_action_status")
    if status == "201":
        xml = XmlWriter("PostResponse", namespace=None).element("Location", location).element("Bucket", req.bucket)
        req.send_xml(xml.element("Key", req.key).element("ETag", f'"{info.etag}"').to_bytes(), 201)
    else:
        req.send_empty(200 if status == "200" else 204)


def _object_url(req: S3Handler) -> str:
    """Where the object is, in the addressing style the form was posted with."""
    request = req.request
    virtual = bucket_of_host(request.host_name, req.services.settings.domains) is not None
    path = quote(req.key) if virtual else f"{quote(req.bucket)}/{quote(req.key)}"
    return f"{request.protocol}://{request.host}/{path}"


def _is_url(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)
