"""The signature of a browser-upload form (S3's POST Object): the form signs its base64 policy
document, not the request.

SigV4 forms carry ``x-amz-algorithm``, ``x-amz-credential``, ``x-amz-date`` and ``x-amz-signature``
(the hex HMAC-SHA256 of the policy under the credential scope's signing key); SigV2 forms
``AWSAccessKeyId`` and ``signature`` (the base64 HMAC-SHA1 of the policy). The policy's expiration,
not ``x-amz-date``, bounds how long a form is good for.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import AuthError
from .signing import (
    ALGORITHM,
    Secrets,
    lookup_secret,
    same_signature,
    sign_hex,
    signature_mismatch,
    signing_key,
)
from .sigv2 import sign_v2
from .sigv4 import _credential_scope, _parse_amz_date

SIGV4_FIELDS = ("x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-signature")
SIGV2_FIELDS = ("awsaccesskeyid", "signature")
# The fields that sign a form: a policy condition need not name them.
SIGNATURE_FIELDS = frozenset({"x-amz-signature", "awsaccesskeyid", "signature"})


def is_signed_form(fields: Mapping[str, str]) -> bool:
    """Whether a form (field names in lower case) carries credentials or a policy at all."""
    return "policy" in fields or any(name in fields for name in SIGV4_FIELDS + SIGV2_FIELDS)


def verify_form(fields: Mapping[str, str], secrets: Secrets, *, service: str = "s3") -> str:
    """The access key whose secret signed the form's policy (field names in lower case); AuthError
    otherwise: 400 for a form that lacks a field, 403 for unknown keys and wrong signatures."""
    sigv4 = any(name in fields for name in SIGV4_FIELDS)
    for name in ("policy", *(SIGV4_FIELDS if sigv4 else SIGV2_FIELDS)):
        if not fields.get(name):
            raise AuthError("InvalidArgument", f"Bucket POST must contain a field named '{name}'. "
                            "If it is specified, please check the order of the fields.", 400)
    policy = fields["policy"]
    if not sigv4:
        access_key = fields["awsaccesskeyid"]
        expected = sign_v2(lookup_secret(secrets, access_key), policy)
        if not same_signature(expected, fields["signature"]):
            raise signature_mismatch()
        return access_key
    if fields["x-amz-algorithm"] != ALGORITHM:
        raise AuthError("InvalidArgument", f'x-amz-algorithm only supports "{ALGORITHM}".', 400)
    amz_date = fields["x-amz-date"]
    if _parse_amz_date(amz_date) is None:
        raise AuthError("InvalidArgument", "x-amz-date must be of the form YYYYMMDDTHHMMSSZ.", 400)
    access_key, date, region = _credential_scope(fields["x-amz-credential"], amz_date, service, "InvalidArgument")
    key = signing_key(lookup_secret(secrets, access_key), date, region, service)
    if not same_signature(sign_hex(key, policy), fields["x-amz-signature"]):
        raise signature_mismatch()
    return access_key
