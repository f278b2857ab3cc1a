"""Request authentication shared by every API: AWS SigV4 and SigV2 (header and presigned query),
and aws-chunked streaming bodies.

Interface (used by the S3 API, the admin API and later the Iceberg catalog):

    verify_request(method, raw_path, raw_query, headers, secrets, *, service, now=None,
                   max_skew=900, body=None, resource_path=None) -> AuthResult
        ``raw_path`` is the path exactly as on the wire (percent-encoded, no query);
        ``raw_query`` the raw query string; ``headers`` a case-insensitive mapping;
        ``secrets(access_key) -> secret | None``; ``service`` the expected signing name
        ("s3", "s3tables"). Any non-empty region is accepted. Raises AuthError.
        ``body=`` (optional): the buffered body, for signers that send no
        x-amz-content-sha256 (botocore's SigV4Auth for s3tables); the payload hash is then
        checked here.
        ``resource_path=`` (optional): the ``/BUCKET/KEY`` a SigV2 signer signs when the path is
        not that (virtual-host-style requests); SigV4 always signs the path as sent, and must
        then sign the Host header (which names the bucket).

    body_decoder(auth: AuthResult, headers) -> BodyDecoder
        ``feed(bytes) -> bytes`` returns decoded payload bytes as they arrive;
        ``finish() -> dict`` returns trailing headers (lower-case names) and raises AuthError
        when the payload hash, a chunk signature or the framing is wrong.

    StagedVerification(method, raw_path, raw_query, headers, secrets, *, service, max_skew, has_body)
        verifies what the headers prove (raises AuthError) and ``.finish(body) -> payload`` the rest,
        so that a server reads the body of known callers only (staged.py).

    is_signed(headers, params) -> bool / anonymous_request(headers) -> AuthResult
        whether a request carries credentials; what an unsigned one proves (access key "").

    verify_form(fields, secrets) -> access key / is_signed_form(fields) / SIGNATURE_FIELDS
        the policy signature of a browser-upload form (S3 POST Object), its field names in lower case.

    header_text(value) -> str
        a header value as the text the client sent (UTF-8 bytes that tornado decoded as latin-1).
"""

from .canonical import header_text
from .errors import AuthError
from .payload import BodyDecoder, body_decoder
from .post_form import SIGNATURE_FIELDS, is_signed_form, verify_form
from .sigv4 import AuthResult, anonymous_request, is_signed, verify_request
from .staged import StagedVerification

__all__ = [
    "SIGNATURE_FIELDS", "AuthError", "AuthResult", "BodyDecoder", "StagedVerification", "anonymous_request",
    "body_decoder", "header_text", "is_signed", "is_signed_form", "verify_form", "verify_request",
]
