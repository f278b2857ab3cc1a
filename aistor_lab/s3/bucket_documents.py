"""The answer every ``GET /BUCKET?<configuration>`` gives: the document as stored, or the
configuration's own not-found error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import S3Error

if TYPE_CHECKING:
    from .handler import S3Handler


async def send_document(req: S3Handler, name: str, missing_code: str, missing_message: str) -> None:
    document = await req.run_read(req.store.get_bucket_config, req.bucket, name)
    if document is None:
        raise S3Error(missing_code, missing_message, 404)
    req.send_xml(document)
