"""Checksums of multipart objects over boto3: COMPOSITE and FULL_OBJECT uploads, what Complete,
HEAD, GET (whole and ?partNumber) and GetObjectAttributes answer, and the checksums Complete checks."""

from __future__ import annotations

import base64
import hashlib
import os
import zlib

import pytest
from awscrt import checksums as crt
from botocore.exceptions import ClientError

FIVE_MIB = 5 * 1024 * 1024
CRCS = {
    "CRC32": (zlib.crc32, 4),
    "CRC32C": (lambda data: crt.crc32c(data), 4),
    "CRC64NVME": (lambda data: crt.crc64nvme(data), 8),
}


def crc(algorithm: str, data: bytes) -> str:
    function, width = CRCS[algorithm]
    return base64.b64encode(function(data).to_bytes(width, "big")).decode()


def sha256(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


def error_code(excinfo) -> str:
    return excinfo.value.response["Error"]["Code"]


def upload_parts(s3, bucket: str, key: str, algorithm: str, parts: list[bytes], **create) -> tuple[str, list[dict]]:
    """Create an upload with ``algorithm`` and upload ``parts``; returns its id and the part list."""
    upload = s3.create_multipart_upload(Bucket=bucket, Key=key, ChecksumAlgorithm=algorithm, **create)
    listed = []
    for number, data in enumerate(parts, 1):
        answer = s3.upload_part(Bucket=bucket, Key=key, UploadId=upload["UploadId"], PartNumber=number,
                                Body=data, ChecksumAlgorithm=algorithm)
        listed.append({"PartNumber": number, "ETag": answer["ETag"],
                       f"Checksum{algorithm}": answer[f"Checksum{algorithm}"]})
    return upload["UploadId"], listed


@pytest.mark.parametrize("algorithm", sorted(CRCS))
def test_full_object_crc_is_the_crc_of_the_whole_object(s3, bucket, algorithm):
    parts = [os.urandom(FIVE_MIB), os.urandom(1000)]
    whole = crc(algorithm, b"".join(parts))
    created = s3.create_multipart_upload(Bucket=bucket, Key="scratch", ChecksumAlgorithm=algorithm,
                                         ChecksumType="FULL_OBJECT")
    assert created["ChecksumType"] == "FULL_OBJECT"
    s3.abort_multipart_upload(Bucket=bucket, Key="scratch", UploadId=created["UploadId"])

    upload, listed = upload_parts(s3, bucket, "full", algorithm, parts, ChecksumType="FULL_OBJECT")
    listing = s3.list_parts(Bucket=bucket, Key="full", UploadId=upload)
    assert (listing["ChecksumAlgorithm"], listing["ChecksumType"]) == (algorithm, "FULL_OBJECT")
    done = s3.complete_multipart_upload(Bucket=bucket, Key="full", UploadId=upload,
                                        MultipartUpload={"Parts": listed}, **{f"Checksum{algorithm}": whole})
    assert (done[f"Checksum{algorithm}"], done["ChecksumType"]) == (whole, "FULL_OBJECT")
    head = s3.head_object(Bucket=bucket, Key="full", ChecksumMode="ENABLED")
    assert (head[f"Checksum{algorithm}"], head["ChecksumType"]) == (whole, "FULL_OBJECT")
    # boto3 checks a whole-object checksum against the body it reads
    assert s3.get_object(Bucket=bucket, Key="full", ChecksumMode="ENABLED")["Body"].read() == b"".join(parts)
    attributes = s3.get_object_attributes(Bucket=bucket, Key="full", ObjectAttributes=["Checksum", "ObjectParts"])
    assert attributes["Checksum"] == {f"Checksum{algorithm}": whole, "ChecksumType": "FULL_OBJECT"}
    assert [part[f"Checksum{algorithm}"] for part in attributes["ObjectParts"]["Parts"]] == [
        crc(algorithm, data) for data in parts
    ]
    for number, data in enumerate(parts, 1):
        got = s3.get_object(Bucket=bucket, Key="full", PartNumber=number, ChecksumMode="ENABLED")
        assert (got[f"Checksum{algorithm}"], got["ChecksumType"]) == (crc(algorithm, data), "FULL_OBJECT")
        assert got["Body"].read() == data


def test_composite_checksum_and_what_complete_checks(s3, bucket):
    parts = [os.urandom(FIVE_MIB), b"tail"]
    raw = b"".join(base64.b64decode(sha256(data)) for data in parts)
    composite = f"{base64.b64encode(hashlib.sha256(raw).digest()).decode()}-2"
    upload, listed = upload_parts(s3, bucket, "comp", "SHA256", parts)
    assert s3.list_parts(Bucket=bucket, Key="comp", UploadId=upload)["ChecksumType"] == "COMPOSITE"

    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="comp", UploadId=upload, ChecksumSHA256=sha256(b"other"),
                                     MultipartUpload={"Parts": listed})
    assert error_code(excinfo) == "BadDigest"
    wrong_part = [{**listed[0], "ChecksumSHA256": sha256(b"other")}, listed[1]]
    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="comp", UploadId=upload,
                                     MultipartUpload={"Parts": wrong_part})
    assert error_code(excinfo) == "InvalidPart"
    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="comp", UploadId=upload, ChecksumCRC32=crc("CRC32", b""),
                                     MultipartUpload={"Parts": listed})
    assert error_code(excinfo) == "InvalidRequest"
    with pytest.raises(ClientError):
        s3.head_object(Bucket=bucket, Key="comp")  # nothing was written

    done = s3.complete_multipart_upload(Bucket=bucket, Key="comp", UploadId=upload, ChecksumSHA256=composite,
                                        MultipartUpload={"Parts": listed})
    assert (done["ChecksumSHA256"], done["ChecksumType"]) == (composite, "COMPOSITE")
    head = s3.head_object(Bucket=bucket, Key="comp", ChecksumMode="ENABLED")
    assert (head["ChecksumSHA256"], head["ChecksumType"]) == (composite, "COMPOSITE")
    second = s3.get_object(Bucket=bucket, Key="comp", PartNumber=2, ChecksumMode="ENABLED")
    assert (second["ChecksumSHA256"], second["ChecksumType"]) == (sha256(b"tail"), "COMPOSITE")
    attributes = s3.get_object_attributes(Bucket=bucket, Key="comp", ObjectAttributes=["Checksum", "ObjectParts"])
    assert attributes["Checksum"] == {"ChecksumSHA256": composite, "ChecksumType": "COMPOSITE"}
    assert [part["ChecksumSHA256"] for part in attributes["ObjectParts"]["Parts"]] == [sha256(d) for d in parts]


def test_repeated_complete_answers_the_same_object_while_it_is_current(s3, bucket):
    upload, listed = upload_parts(s3, bucket, "again", "SHA256", [b"only part"])
    first = s3.complete_multipart_upload(Bucket=bucket, Key="again", UploadId=upload,
                                         MultipartUpload={"Parts": listed})
    again = s3.complete_multipart_upload(Bucket=bucket, Key="again", UploadId=upload,
                                         MultipartUpload={"Parts": listed})
    assert (again["ETag"], again["ChecksumSHA256"]) == (first["ETag"], first["ChecksumSHA256"])
    s3.put_object(Bucket=bucket, Key="again", Body=b"newer")
    with pytest.raises(ClientError) as excinfo:
        s3.complete_multipart_upload(Bucket=bucket, Key="again", UploadId=upload, MultipartUpload={"Parts": listed})
    assert error_code(excinfo) == "NoSuchUpload"
    assert s3.get_object(Bucket=bucket, Key="again")["Body"].read() == b"newer"


@pytest.mark.parametrize(
    ("create", "message"),
    [
        ({"ChecksumAlgorithm": "SHA256", "ChecksumType": "FULL_OBJECT"}, "does not support"),
        ({"ChecksumAlgorithm": "CRC64NVME", "ChecksumType": "COMPOSITE"}, "does not support"),
        ({"ChecksumType": "FULL_OBJECT"}, "x-amz-checksum-algorithm"),
    ],
)
def test_checksum_types_an_algorithm_lacks_are_refused(s3, bucket, create, message):
    with pytest.raises(ClientError) as excinfo:
        s3.create_multipart_upload(Bucket=bucket, Key="refused", **create)
    assert error_code(excinfo) == "InvalidRequest" and message in excinfo.value.response["Error"]["Message"]
    assert s3.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
