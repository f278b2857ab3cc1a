"""Data keys sealed per mode (SSE-S3, SSE-KMS, SSE-C), the SSE request headers, and what is stored
with an encrypted object: each opens only for its object, mode, key and context, with S3's errors."""

from __future__ import annotations

import base64
import hashlib
import json
import os

import pytest
from tornado.httputil import HTTPHeaders

from aistor_lab.s3.encryption import bucket_config
from aistor_lab.s3.encryption.headers import (
    COPY_SOURCE_CUSTOMER,
    customer_key_of,
    read_request,
    response_headers,
    write_request,
)
from aistor_lab.s3.errors import S3Error
from aistor_lab.settings import Settings, parse_kms_keys
from aistor_lab.store import StoreError
from aistor_lab.store.encryption import (
    AES256,
    AWS_KMS,
    SSE_C,
    BucketDefault,
    CustomerKey,
    EncryptionRequest,
    MasterKeys,
    StoredEncryption,
    bucket_default,
    object_data_key,
    refuse_reserved_metadata,
    user_metadata,
)
from aistor_lab.store.encryption.keys import kms_key_name

SECRET = base64.b64encode(os.urandom(32)).decode()
OTHER = base64.b64encode(os.urandom(32)).decode()
CUSTOMER = CustomerKey(os.urandom(32))


def ring(default: str | None = "main", **extra: bytes) -> MasterKeys:
    keys = {"main": b"m" * 32, "archive": b"a" * 32, **extra}
    return MasterKeys(b"r" * 32, keys, default)


def error_code(call, *args, **kwargs) -> tuple[str, int]:
    # Header parsing raises S3 errors, the store's encryption store errors; both answer as S3Error does.
    with pytest.raises((S3Error, StoreError)) as caught:
        call(*args, **kwargs)
    error = S3Error.from_exception(caught.value)
    return error.code, error.status


REQUESTS = [
    EncryptionRequest(AES256),
    EncryptionRequest(AWS_KMS),
    EncryptionRequest(AWS_KMS, "archive", {"project": "x"}),
    EncryptionRequest(SSE_C, customer_key=CUSTOMER),
]


@pytest.mark.parametrize("request_", REQUESTS, ids=["sse-s3", "kms-default", "kms-named", "sse-c"])
def test_each_mode_opens_only_for_its_object(request_):
    keys = ring()
    data_key, sealed = keys.new_data_key(request_, "bucket", "dir/object")
    assert len(data_key) == 32 and data_key not in sealed.ciphertext
    customer = CUSTOMER if request_.mode == SSE_C else None
    assert keys.open(sealed, "bucket", "dir/object", customer) == data_key
    # Another object, bucket, or mode does not open it.
    for bucket, key in (("bucket", "dir/other"), ("other", "dir/object")):
        assert error_code(keys.open, sealed, bucket, key, customer)[1] in (403, 500)
    # Two objects never share a data key.
    assert keys.new_data_key(request_, "bucket", "dir/object")[0] != data_key


def test_sse_s3_records_the_master_key_so_a_kms_key_set_later_keeps_objects_readable():
    without_kms = MasterKeys(b"r" * 32, {})
    data_key, sealed = without_kms.new_data_key(EncryptionRequest(AES256), "b", "k")
    assert sealed.key_id == "root-credentials"
    with_kms = ring()
    assert with_kms.open(sealed, "b", "k", None) == data_key
    data_key, sealed = with_kms.new_data_key(EncryptionRequest(AES256), "b", "k")
    assert sealed.key_id == "kms:main"
    # The old default moved to the named keys when another key became the default: still opens.
    assert (
        MasterKeys(b"r" * 32, {"main": b"m" * 32, "new": b"n" * 32}, "new").open(sealed, "b", "k", None)
        == data_key
    )
    assert error_code(MasterKeys(b"r" * 32, {}).open, sealed, "b", "k", None) == (
        "KMS.NotFoundException",
        400,
    )


def test_other_root_credentials_do_not_open_sse_s3():
    _, sealed = MasterKeys(b"r" * 32, {}).new_data_key(EncryptionRequest(AES256), "b", "k")
    assert error_code(MasterKeys(b"x" * 32, {}).open, sealed, "b", "k", None) == ("InternalError", 500)


def test_sse_c_checks_the_key_a_request_gives():
    keys = ring()
    data_key, sealed = keys.new_data_key(EncryptionRequest(SSE_C, customer_key=CUSTOMER), "b", "k")
    assert sealed.key_id == "" and CUSTOMER.key not in sealed.ciphertext
    assert error_code(keys.open, sealed, "b", "k", CustomerKey(os.urandom(32))) == ("AccessDenied", 403)
    assert error_code(keys.open, sealed, "b", "k", None) == ("InvalidRequest", 400)
    stored = StoredEncryption(sealed, plain_size=5)
    # What is stored holds neither the key nor its MD5.
    assert not any(CUSTOMER.key_md5 in value for value in stored.to_metadata().values())
    assert object_data_key(keys, stored, "b", "k", CUSTOMER) == data_key


def test_an_sse_c_key_for_an_object_that_is_not_sse_c_is_refused():
    keys = ring()
    _, sealed = keys.new_data_key(EncryptionRequest(AES256), "b", "k")
    assert error_code(keys.open, sealed, "b", "k", CUSTOMER) == ("InvalidRequest", 400)
    assert error_code(object_data_key, keys, None, "b", "k", CUSTOMER) == ("InvalidRequest", 400)
    assert object_data_key(keys, None, "b", "k", None) is None


def test_kms_key_ids_and_unknown_keys():
    keys = ring()
    for key_id in (
        "archive",
        "arn:aws:kms:archive",
        "arn:aws:kms:us-east-1:123456789012:key/archive",
        "arn:aws:kms:us-east-1:123456789012:alias/archive",
    ):
        assert keys.resolve_kms_key(key_id) == "archive"
    assert kms_key_name(" archive ") == "archive"
    assert keys.resolve_kms_key(None) == "main"
    request = EncryptionRequest(AWS_KMS, "missing")
    assert error_code(keys.new_data_key, request, "b", "k") == ("KMS.NotFoundException", 400)
    no_default = MasterKeys(b"r" * 32, {"archive": b"a" * 32})
    assert error_code(no_default.new_data_key, EncryptionRequest(AWS_KMS), "b", "k") == (
        "KMS.NotFoundException",
        400,
    )
    # A key removed from the ring: its objects answer the same error rather than garbage.
    _, sealed = keys.new_data_key(EncryptionRequest(AWS_KMS, "archive"), "b", "k")
    assert (
        error_code(MasterKeys(b"r" * 32, {"main": b"m" * 32}, "main").open, sealed, "b", "k", None)[0]
        == "KMS.NotFoundException"
    )


def test_the_kms_context_is_bound():
    keys = ring()
    data_key, sealed = keys.new_data_key(EncryptionRequest(AWS_KMS, "archive", {"team": "a"}), "b", "k")
    assert keys.open(sealed, "b", "k", None) == data_key
    for context in ({"team": "b"}, {}, None):
        altered = type(sealed)(sealed.mode, sealed.key_id, sealed.ciphertext, context)
        assert error_code(keys.open, altered, "b", "k", None) == ("InternalError", 500)
    # Nor does a seal open as another mode or key.
    as_s3 = type(sealed)(AES256, "kms:archive", sealed.ciphertext, sealed.kms_context)
    assert error_code(keys.open, as_s3, "b", "k", None) == ("InternalError", 500)
    as_main = type(sealed)(AWS_KMS, "main", sealed.ciphertext, sealed.kms_context)
    assert error_code(keys.open, as_main, "b", "k", None) == ("InternalError", 500)


def test_the_key_ring_from_settings():
    settings = Settings(
        kms_key=("main", b"m" * 32), kms_keys=parse_kms_keys(f"archive:{SECRET}, other:{OTHER}")
    )
    keys = MasterKeys.from_key_ring(settings.root_user, settings.root_password, settings.kms_keys, settings.kms_key)
    assert keys.default_kms_key == "main"
    assert {keys.resolve_kms_key(name) for name in ("main", "archive", "other")} == {
        "main",
        "archive",
        "other",
    }
    clash = Settings(kms_key=("main", b"m" * 32), kms_keys={"main": b"x" * 32})
    with pytest.raises(ValueError):
        MasterKeys.from_key_ring(clash.root_user, clash.root_password, clash.kms_keys, clash.kms_key)


@pytest.mark.parametrize("text", ["archive", "archive:short", f"bad name:{SECRET}", f"a:{SECRET},a:{OTHER}"])
def test_malformed_kms_keys_settings_are_refused_without_echoing_a_key(text):
    with pytest.raises(ValueError) as caught:
        parse_kms_keys(text)
    assert SECRET not in str(caught.value) and OTHER not in str(caught.value)


def test_kms_keys_from_the_environment(monkeypatch):
    monkeypatch.setenv("AISTOR_KMS_KEYS", f"archive:{SECRET},other:{OTHER}")
    assert Settings.from_env().kms_keys == {
        "archive": base64.b64decode(SECRET),
        "other": base64.b64decode(OTHER),
    }
    monkeypatch.delenv("AISTOR_KMS_KEYS")
    assert Settings.from_env().kms_keys == {}


# -- headers ----------------------------------------------------------------------------------


def customer_headers(
    key: bytes = CUSTOMER.key, prefix: str = "x-amz-server-side-encryption-customer-", md5: str | None = None
) -> dict[str, str]:
    return {
        prefix + "algorithm": "AES256",
        prefix + "key": base64.b64encode(key).decode(),
        prefix + "key-MD5": md5 or base64.b64encode(hashlib.md5(key).digest()).decode(),
    }


def headers(**values: str) -> HTTPHeaders:
    return HTTPHeaders(values)


def test_write_requests_per_mode():
    assert write_request(headers()) is None
    assert write_request(headers(**{"x-amz-server-side-encryption": "AES256"})) == EncryptionRequest(AES256)
    context = base64.b64encode(json.dumps({"a": "b"}).encode()).decode()
    kms = write_request(
        headers(
            **{
                "x-amz-server-side-encryption": "aws:kms",
                "x-amz-server-side-encryption-aws-kms-key-id": "archive",
                "x-amz-server-side-encryption-context": context,
                "x-amz-server-side-encryption-bucket-key-enabled": "true",
            }
        )
    )
    assert kms == EncryptionRequest(AWS_KMS, "archive", {"a": "b"}, bucket_key_enabled=True)
    sse_c = write_request(HTTPHeaders(customer_headers()))
    assert sse_c.mode == SSE_C and sse_c.customer_key == CUSTOMER


def test_a_bucket_default_applies_only_when_a_write_asks_for_nothing():
    default = BucketDefault(AWS_KMS, "archive", bucket_key_enabled=True)
    assert write_request(headers(), default) == EncryptionRequest(AWS_KMS, "archive", bucket_key_enabled=True)
    assert write_request(headers(**{"x-amz-server-side-encryption": "AES256"}), default).mode == AES256
    assert write_request(HTTPHeaders(customer_headers()), default).mode == SSE_C


BAD_WRITES = {
    "unknown algorithm": ({"x-amz-server-side-encryption": "AES128"}, "InvalidArgument"),
    "dsse": ({"x-amz-server-side-encryption": "aws:kms:dsse"}, "NotImplemented"),
    "key id without kms": ({"x-amz-server-side-encryption-aws-kms-key-id": "archive"}, "InvalidArgument"),
    "key id with AES256": (
        {"x-amz-server-side-encryption": "AES256", "x-amz-server-side-encryption-aws-kms-key-id": "archive"},
        "InvalidArgument",
    ),
    "context not json": (
        {"x-amz-server-side-encryption": "aws:kms", "x-amz-server-side-encryption-context": "bm90IGpzb24="},
        "InvalidArgument",
    ),
    "context not an object of strings": (
        {"x-amz-server-side-encryption": "aws:kms", "x-amz-server-side-encryption-context": "eyJhIjogMX0="},
        "InvalidArgument",
    ),
    "bucket key not boolean": (
        {"x-amz-server-side-encryption": "AES256", "x-amz-server-side-encryption-bucket-key-enabled": "yes"},
        "InvalidArgument",
    ),
    "sse-c and sse-s3": ({**customer_headers(), "x-amz-server-side-encryption": "AES256"}, "InvalidArgument"),
    "sse-c bad md5": (customer_headers(md5="AAAAAAAAAAAAAAAAAAAAAA=="), "InvalidArgument"),
    "sse-c no md5": (
        {k: v for k, v in customer_headers().items() if not k.endswith("MD5")},
        "InvalidArgument",
    ),
    "sse-c no key": ({"x-amz-server-side-encryption-customer-algorithm": "AES256"}, "InvalidArgument"),
    "sse-c no algorithm": (
        {k: v for k, v in customer_headers().items() if not k.endswith("algorithm")},
        "InvalidArgument",
    ),
    "sse-c short key": (customer_headers(key=b"x" * 16), "InvalidArgument"),
}


@pytest.mark.parametrize("case", BAD_WRITES, ids=list(BAD_WRITES))
def test_bad_write_headers_get_s3_errors(case):
    values, code = BAD_WRITES[case]
    assert error_code(write_request, HTTPHeaders(values))[0] == code


def test_reads_take_only_an_sse_c_key():
    assert read_request(headers()) is None
    assert read_request(HTTPHeaders(customer_headers())) == CUSTOMER
    assert error_code(read_request, headers(**{"x-amz-server-side-encryption": "aws:kms"})) == (
        "InvalidArgument",
        400,
    )
    copy_source = HTTPHeaders(customer_headers(prefix="x-amz-copy-source-server-side-encryption-customer-"))
    assert customer_key_of(copy_source, COPY_SOURCE_CUSTOMER) == CUSTOMER
    assert read_request(copy_source) is None


# -- what is stored ---------------------------------------------------------------------------


@pytest.mark.parametrize("request_", REQUESTS, ids=["sse-s3", "kms-default", "kms-named", "sse-c"])
def test_stored_entries_round_trip_and_stay_hidden(request_):
    keys = ring()
    data_key, sealed = keys.new_data_key(request_, "b", "k")
    stored = StoredEncryption(sealed, plain_size=12345, bucket_key_enabled=request_.mode != SSE_C)
    entries = stored.to_metadata()
    assert all(name.startswith("aistor-internal-") for name in entries)
    assert StoredEncryption.from_metadata({"owner": "me", **entries}) == stored
    assert user_metadata({"owner": "me", **entries}) == {"owner": "me"}
    customer = CUSTOMER if request_.mode == SSE_C else None
    assert object_data_key(keys, StoredEncryption.from_metadata(entries), "b", "k", customer) == data_key
    public = stored.public()
    answer = response_headers(
        public.mode,
        kms_key_id=public.kms_key_id,
        kms_context=public.kms_context,
        customer_key=customer,
        bucket_key_enabled=public.bucket_key_enabled,
    )
    if request_.mode == SSE_C:
        assert answer == {
            "x-amz-server-side-encryption-customer-algorithm": "AES256",
            "x-amz-server-side-encryption-customer-key-md5": CUSTOMER.key_md5,
        }
    else:
        assert answer["x-amz-server-side-encryption"] == request_.mode
        assert answer["x-amz-server-side-encryption-bucket-key-enabled"] == "true"
    if request_.kms_context:
        sent = answer["x-amz-server-side-encryption-context"]
        assert json.loads(base64.b64decode(sent)) == request_.kms_context
    if request_.mode == AWS_KMS:
        assert answer["x-amz-server-side-encryption-aws-kms-key-id"] == (request_.kms_key_id or "main")


def test_objects_in_the_clear_and_unreadable_entries():
    assert StoredEncryption.from_metadata({"owner": "me"}) is None
    _, sealed = ring().new_data_key(EncryptionRequest(AES256), "b", "k")
    entries = StoredEncryption(sealed).to_metadata()
    for broken in (
        {**entries, "aistor-internal-sse-format": "9"},
        {**entries, "aistor-internal-sse-sealed-key": "%"},
        {**entries, "aistor-internal-sse-package-size": "0"},
    ):
        assert error_code(StoredEncryption.from_metadata, broken) == ("InternalError", 500)


def test_clients_cannot_set_reserved_metadata():
    refuse_reserved_metadata({"owner": "me"})
    assert (
        error_code(refuse_reserved_metadata, {"aistor-internal-sse-mode": "AES256"})[0] == "InvalidArgument"
    )


# -- the bucket default -----------------------------------------------------------------------


def config(algorithm: str, key_id: str | None = None, extra: str = "") -> bytes:
    key = f"<KMSMasterKeyID>{key_id}</KMSMasterKeyID>" if key_id is not None else ""
    return (
        f'<ServerSideEncryptionConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule>'
        f"<ApplyServerSideEncryptionByDefault><SSEAlgorithm>{algorithm}</SSEAlgorithm>{key}"
        f"</ApplyServerSideEncryptionByDefault>{extra}</Rule></ServerSideEncryptionConfiguration>"
    ).encode()


def test_bucket_defaults_round_trip():
    for body, expected in (
        (config("AES256"), BucketDefault(AES256)),
        (
            config("aws:kms", "archive", "<BucketKeyEnabled>true</BucketKeyEnabled>"),
            BucketDefault(AWS_KMS, "archive", True),
        ),
    ):
        parsed = bucket_config.parse(body)
        assert parsed == expected
        assert bucket_default.from_document(bucket_config.to_xml(parsed)) == expected
    assert bucket_default.from_document(None) is None


@pytest.mark.parametrize(
    "body, code",
    [
        (config("AES128"), "MalformedXML"),
        (config("aws:kms:dsse"), "NotImplemented"),
        (config("AES256", "archive"), "InvalidArgument"),
        (config("AES256", extra="<BucketKeyEnabled>maybe</BucketKeyEnabled>"), "MalformedXML"),
        (
            config(
                "AES256",
                extra="<BlockedEncryptionTypes><EncryptionType>SSE-C</EncryptionType>"
                "</BlockedEncryptionTypes>",
            ),
            "NotImplemented",
        ),
        (b"<ServerSideEncryptionConfiguration/>", "MalformedXML"),
        (b"<ServerSideEncryptionConfiguration><Rule/></ServerSideEncryptionConfiguration>", "MalformedXML"),
        (b"not xml", "MalformedXML"),
    ],
)
def test_bad_bucket_defaults_are_refused(body, code):
    assert error_code(bucket_config.parse, body)[0] == code
