"""S3 Object Lock through the S3 API, with boto3 and the minio SDK: buckets created with Object Lock,
the lock configuration and its default retention, retention and legal hold of versions (on writes and
through ?retention / ?legal-hold), the lock headers of reads, deletes refused by a lock and the
governance bypass with its permission, and the refusals S3 gives."""

from __future__ import annotations

import io
import time
import uuid
from datetime import UTC, datetime, timedelta
from urllib.parse import urlparse

import pytest
from botocore.exceptions import ClientError
from minio import Minio
from minio.commonconfig import GOVERNANCE
from minio.error import S3Error as MinioError
from minio.retention import Retention

from aistor_lab.lifecycle.live_tables import LiveTables
from aistor_lab.lifecycle.runner import CONFIG_NAME as LIFECYCLE_CONFIG
from aistor_lab.lifecycle.runner import LifecycleRunner
from aistor_lab.store import NoSuchVersion, ObjectLock
from aistor_lab.store.local import LocalStore

from .conftest import ROOT_PASSWORD, ROOT_USER, make_s3_client, make_user
from .test_store_contract import put

LATER = datetime(2099, 1, 1, tzinfo=UTC)
LOCKED_MESSAGE = "Access Denied because object protected by object lock."


def error_of(call, *args, **kwargs) -> tuple[int, str, str]:
    """Status, code and message of a call that must fail."""
    with pytest.raises(ClientError) as excinfo:
        call(*args, **kwargs)
    response = excinfo.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"], response["Error"]["Message"]


@pytest.fixture
def locked_bucket(s3):
    """A fresh bucket created with Object Lock."""
    name = f"lock-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    return name


def versions_of(s3, bucket: str, key: str) -> list[str]:
    return [v["VersionId"] for v in s3.list_object_versions(Bucket=bucket, Prefix=key).get("Versions", [])]


# -- the bucket's configuration --------------------------------------------------------------------
def test_a_bucket_created_with_object_lock_is_versioned_and_keeps_its_configuration(s3, locked_bucket):
    assert s3.get_bucket_versioning(Bucket=locked_bucket)["Status"] == "Enabled"
    assert s3.get_object_lock_configuration(Bucket=locked_bucket)["ObjectLockConfiguration"] == {
        "ObjectLockEnabled": "Enabled"}
    for retention in ({"Mode": "GOVERNANCE", "Days": 1}, {"Mode": "COMPLIANCE", "Years": 2}):
        configuration = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": retention}}
        s3.put_object_lock_configuration(Bucket=locked_bucket, ObjectLockConfiguration=configuration)
        assert s3.get_object_lock_configuration(Bucket=locked_bucket)["ObjectLockConfiguration"] == configuration
    # Object Lock keeps versions: suspending versioning would let writes replace the null version.
    assert error_of(s3.put_bucket_versioning, Bucket=locked_bucket,
                    VersioningConfiguration={"Status": "Suspended"})[:2] == (409, "InvalidBucketState")
    assert s3.get_bucket_versioning(Bucket=locked_bucket)["Status"] == "Enabled"


@pytest.mark.parametrize("retention,code", [
    ({"Mode": "GOVERNANCE", "Days": 1, "Years": 1}, "MalformedXML"),
    ({"Mode": "GOVERNANCE"}, "MalformedXML"),
    ({"Mode": "governance", "Days": 1}, "MalformedXML"),
    ({"Mode": "abc", "Years": 1}, "MalformedXML"),
    ({"Mode": "GOVERNANCE", "Days": 0}, "InvalidRetentionPeriod"),
    ({"Mode": "COMPLIANCE", "Years": -1}, "InvalidRetentionPeriod"),
    ({"Mode": "COMPLIANCE", "Years": 101}, "InvalidRetentionPeriod"),
])
def test_malformed_lock_configurations_are_refused_and_change_nothing(s3, locked_bucket, retention, code):
    configuration = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": retention}}
    assert error_of(s3.put_object_lock_configuration, Bucket=locked_bucket,
                    ObjectLockConfiguration=configuration)[:2] == (400, code)
    assert "Rule" not in s3.get_object_lock_configuration(Bucket=locked_bucket)["ObjectLockConfiguration"]


def test_object_lock_is_enabled_on_an_existing_bucket_only_while_it_is_versioned(s3, bucket):
    assert error_of(s3.get_object_lock_configuration, Bucket=bucket)[:2] == (404, "ObjectLockConfigurationNotFoundError")
    configuration = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 1}}}
    for status in (None, "Suspended", "Enabled"):
        if status:
            s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": status})
        if status != "Enabled":
            assert error_of(s3.put_object_lock_configuration, Bucket=bucket,
                            ObjectLockConfiguration=configuration)[:2] == (409, "InvalidBucketState")
    s3.put_object_lock_configuration(Bucket=bucket, ObjectLockConfiguration=configuration)
    assert s3.get_object_lock_configuration(Bucket=bucket)["ObjectLockConfiguration"] == configuration
    assert error_of(s3.put_object_lock_configuration, Bucket=bucket,
                    ObjectLockConfiguration={"ObjectLockEnabled": "Disabled"})[:2] == (400, "MalformedXML")


# -- locks given by writes -------------------------------------------------------------------------
def test_the_default_retention_locks_new_versions_and_headers_override_it(s3, locked_bucket):
    s3.put_object_lock_configuration(Bucket=locked_bucket, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 2}}})
    before = datetime.now(UTC)
    version = s3.put_object(Bucket=locked_bucket, Key="k", Body=b"v1")["VersionId"]
    retention = s3.get_object_retention(Bucket=locked_bucket, Key="k", VersionId=version)["Retention"]
    assert retention["Mode"] == "GOVERNANCE"
    assert before + timedelta(days=2) - timedelta(seconds=1) <= retention["RetainUntilDate"] <= (
        datetime.now(UTC) + timedelta(days=2, seconds=1))
    s3.put_object(Bucket=locked_bucket, Key="k", Body=b"v2", ObjectLockMode="COMPLIANCE",
                  ObjectLockRetainUntilDate=LATER)
    head = s3.head_object(Bucket=locked_bucket, Key="k")
    assert (head["ObjectLockMode"], head["ObjectLockRetainUntilDate"]) == ("COMPLIANCE", LATER)
    assert "ObjectLockLegalHoldStatus" not in head


def test_put_copy_and_multipart_uploads_lock_what_they_write(s3, locked_bucket):
    lock = {"ObjectLockMode": "GOVERNANCE", "ObjectLockRetainUntilDate": LATER, "ObjectLockLegalHoldStatus": "ON"}
    s3.put_object(Bucket=locked_bucket, Key="put", Body=b"data", **lock)
    s3.copy_object(Bucket=locked_bucket, Key="copy", CopySource={"Bucket": locked_bucket, "Key": "put"}, **lock)
    upload = s3.create_multipart_upload(Bucket=locked_bucket, Key="multi", **lock)["UploadId"]
    etag = s3.upload_part(Bucket=locked_bucket, Key="multi", UploadId=upload, PartNumber=1, Body=b"part")["ETag"]
    s3.complete_multipart_upload(Bucket=locked_bucket, Key="multi", UploadId=upload,
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
    for key in ("put", "copy", "multi"):
        for read in (s3.head_object, s3.get_object):
            answer = read(Bucket=locked_bucket, Key=key)
            assert (answer["ObjectLockMode"], answer["ObjectLockRetainUntilDate"],
                    answer["ObjectLockLegalHoldStatus"]) == ("GOVERNANCE", LATER, "ON"), key
        assert s3.get_object_legal_hold(Bucket=locked_bucket, Key=key)["LegalHold"] == {"Status": "ON"}
        version = answer["VersionId"]
        # A legal hold gives way to nothing, not even the governance bypass.
        assert error_of(s3.delete_object, Bucket=locked_bucket, Key=key, VersionId=version,
                        BypassGovernanceRetention=True) == (403, "AccessDenied", LOCKED_MESSAGE)
    # A copy takes the lock its request gives, never its source's.
    s3.copy_object(Bucket=locked_bucket, Key="plain-copy", CopySource={"Bucket": locked_bucket, "Key": "put"})
    head = s3.head_object(Bucket=locked_bucket, Key="plain-copy")
    assert "ObjectLockMode" not in head and "ObjectLockLegalHoldStatus" not in head
    s3.delete_object(Bucket=locked_bucket, Key="plain-copy", VersionId=head["VersionId"])


@pytest.mark.parametrize("options,code", [
    ({"ObjectLockMode": "GOVERNANCE"}, "InvalidArgument"),
    ({"ObjectLockRetainUntilDate": LATER}, "InvalidArgument"),
    ({"ObjectLockMode": "WORM", "ObjectLockRetainUntilDate": LATER}, "InvalidArgument"),
    ({"ObjectLockMode": "GOVERNANCE", "ObjectLockRetainUntilDate": datetime(2001, 1, 1, tzinfo=UTC)},
     "InvalidArgument"),
    ({"ObjectLockLegalHoldStatus": "MAYBE"}, "InvalidArgument"),
])
def test_malformed_lock_headers_are_refused_and_store_nothing(s3, locked_bucket, options, code):
    s3.put_object(Bucket=locked_bucket, Key="src", Body=b"source")
    calls = [
        lambda: s3.put_object(Bucket=locked_bucket, Key="h", Body=b"data", **options),
        lambda: s3.copy_object(Bucket=locked_bucket, Key="h", CopySource={"Bucket": locked_bucket, "Key": "src"},
                               **options),
        lambda: s3.create_multipart_upload(Bucket=locked_bucket, Key="h", **options),
    ]
    for call in calls:
        assert error_of(call)[:2] == (400, code)
    assert versions_of(s3, locked_bucket, "h") == []
    assert s3.list_multipart_uploads(Bucket=locked_bucket).get("Uploads", []) == []


# -- retention and legal hold of versions ----------------------------------------------------------
def test_retention_can_be_extended_but_not_shortened_without_the_bypass(s3, locked_bucket):
    version = s3.put_object(Bucket=locked_bucket, Key="k", Body=b"v")["VersionId"]
    assert error_of(s3.get_object_retention, Bucket=locked_bucket, Key="k")[:2] == (
        404, "NoSuchObjectLockConfiguration")
    first = datetime(2098, 1, 3, tzinfo=UTC)
    s3.put_object_retention(Bucket=locked_bucket, Key="k", Retention={"Mode": "GOVERNANCE", "RetainUntilDate": first})
    s3.put_object_retention(Bucket=locked_bucket, Key="k", VersionId=version,
                            Retention={"Mode": "GOVERNANCE", "RetainUntilDate": LATER})
    shorter = {"Mode": "GOVERNANCE", "RetainUntilDate": first}
    assert error_of(s3.put_object_retention, Bucket=locked_bucket, Key="k", Retention=shorter)[:2] == (
        403, "AccessDenied")
    assert s3.get_object_retention(Bucket=locked_bucket, Key="k")["Retention"]["RetainUntilDate"] == LATER
    s3.put_object_retention(Bucket=locked_bucket, Key="k", Retention=shorter, BypassGovernanceRetention=True)
    assert s3.get_object_retention(Bucket=locked_bucket, Key="k", VersionId=version)["Retention"] == shorter
    # GOVERNANCE may become COMPLIANCE with the bypass; COMPLIANCE never becomes GOVERNANCE.
    compliance = {"Mode": "COMPLIANCE", "RetainUntilDate": first}
    assert error_of(s3.put_object_retention, Bucket=locked_bucket, Key="k", Retention=compliance)[:2] == (
        403, "AccessDenied")
    s3.put_object_retention(Bucket=locked_bucket, Key="k", Retention=compliance, BypassGovernanceRetention=True)
    assert error_of(s3.put_object_retention, Bucket=locked_bucket, Key="k", Retention=shorter,
                    BypassGovernanceRetention=True)[:2] == (403, "AccessDenied")
    assert error_of(s3.put_object_retention, Bucket=locked_bucket, Key="k",
                    Retention={"Mode": "governance", "RetainUntilDate": LATER})[:2] == (400, "MalformedXML")
    assert s3.get_object_retention(Bucket=locked_bucket, Key="k")["Retention"] == compliance


def test_a_legal_hold_is_set_and_lifted(s3, locked_bucket):
    version = s3.put_object(Bucket=locked_bucket, Key="k", Body=b"v")["VersionId"]
    s3.put_object_legal_hold(Bucket=locked_bucket, Key="k", LegalHold={"Status": "ON"})
    assert s3.get_object_legal_hold(Bucket=locked_bucket, Key="k", VersionId=version)["LegalHold"] == {"Status": "ON"}
    assert error_of(s3.delete_object, Bucket=locked_bucket, Key="k", VersionId=version)[:2] == (403, "AccessDenied")
    assert error_of(s3.put_object_legal_hold, Bucket=locked_bucket, Key="k",
                    LegalHold={"Status": "on"})[:2] == (400, "MalformedXML")
    s3.put_object_legal_hold(Bucket=locked_bucket, Key="k", VersionId=version, LegalHold={"Status": "OFF"})
    assert s3.get_object_legal_hold(Bucket=locked_bucket, Key="k")["LegalHold"] == {"Status": "OFF"}
    assert s3.delete_object(Bucket=locked_bucket, Key="k", VersionId=version)["ResponseMetadata"][
        "HTTPStatusCode"] == 204
    assert versions_of(s3, locked_bucket, "k") == []


def test_a_bucket_without_object_lock_refuses_locks(s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    retention = {"Mode": "GOVERNANCE", "RetainUntilDate": LATER}
    calls = [
        lambda: s3.put_object_retention(Bucket=bucket, Key="k", Retention=retention),
        lambda: s3.get_object_retention(Bucket=bucket, Key="k"),
        lambda: s3.put_object_legal_hold(Bucket=bucket, Key="k", LegalHold={"Status": "ON"}),
        lambda: s3.get_object_legal_hold(Bucket=bucket, Key="k"),
        lambda: s3.put_object(Bucket=bucket, Key="k", Body=b"locked?", ObjectLockLegalHoldStatus="ON"),
    ]
    for call in calls:
        assert error_of(call) == (400, "InvalidRequest", "Bucket is missing Object Lock Configuration")
    assert s3.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"


# -- deletes ---------------------------------------------------------------------------------------
def test_governance_gives_way_only_to_a_bypass_its_caller_may_use(server, s3, locked_bucket):
    version = s3.put_object(Bucket=locked_bucket, Key="g", Body=b"g", ObjectLockMode="GOVERNANCE",
                            ObjectLockRetainUntilDate=LATER)["VersionId"]
    assert error_of(s3.delete_object, Bucket=locked_bucket, Key="g", VersionId=version) == (
        403, "AccessDenied", LOCKED_MESSAGE)
    # A delete without a version id hides the version behind a delete marker; it stays readable.
    marker = s3.delete_object(Bucket=locked_bucket, Key="g")
    assert marker["DeleteMarker"] is True
    assert s3.get_object(Bucket=locked_bucket, Key="g", VersionId=version)["Body"].read() == b"g"
    s3.delete_object(Bucket=locked_bucket, Key="g", VersionId=marker["VersionId"])
    # A user allowed everything but s3:BypassGovernanceRetention asks for the bypass in vain.
    everything = {"Effect": "Allow", "Action": "s3:*", "Resource": [f"arn:aws:s3:::{locked_bucket}",
                                                                     f"arn:aws:s3:::{locked_bucket}/*"]}
    deny_bypass = {"Effect": "Deny", "Action": "s3:BypassGovernanceRetention", "Resource": "*"}
    user = make_s3_client(server.endpoint, *make_user(server, {"Version": "2012-10-17",
                                                               "Statement": [everything, deny_bypass]}))
    assert error_of(user.delete_object, Bucket=locked_bucket, Key="g", VersionId=version,
                    BypassGovernanceRetention=True)[:2] == (403, "AccessDenied")
    batch = user.delete_objects(Bucket=locked_bucket, BypassGovernanceRetention=True,
                                Delete={"Objects": [{"Key": "g", "VersionId": version}]})
    assert [(e["Key"], e["VersionId"], e["Code"]) for e in batch["Errors"]] == [("g", version, "AccessDenied")]
    assert versions_of(s3, locked_bucket, "g") == [version]
    assert s3.delete_object(Bucket=locked_bucket, Key="g", VersionId=version, BypassGovernanceRetention=True)[
        "ResponseMetadata"]["HTTPStatusCode"] == 204
    assert versions_of(s3, locked_bucket, "g") == []


def test_compliance_gives_way_to_no_one_and_batch_deletes_report_each_version(s3, locked_bucket):
    complied = s3.put_object(Bucket=locked_bucket, Key="c", Body=b"c", ObjectLockMode="COMPLIANCE",
                             ObjectLockRetainUntilDate=LATER)["VersionId"]
    governed = s3.put_object(Bucket=locked_bucket, Key="g", Body=b"g", ObjectLockMode="GOVERNANCE",
                             ObjectLockRetainUntilDate=LATER)["VersionId"]
    free = s3.put_object(Bucket=locked_bucket, Key="f", Body=b"f")["VersionId"]
    assert error_of(s3.delete_object, Bucket=locked_bucket, Key="c", VersionId=complied,
                    BypassGovernanceRetention=True)[:2] == (403, "AccessDenied")
    objects = [{"Key": "c", "VersionId": complied}, {"Key": "g", "VersionId": governed},
               {"Key": "f", "VersionId": free}]
    batch = s3.delete_objects(Bucket=locked_bucket, Delete={"Objects": objects})
    assert [(d["Key"], d["VersionId"]) for d in batch["Deleted"]] == [("f", free)]
    assert {(e["Key"], e["Code"], e["Message"]) for e in batch["Errors"]} == {
        ("c", "AccessDenied", LOCKED_MESSAGE), ("g", "AccessDenied", LOCKED_MESSAGE)}
    batch = s3.delete_objects(Bucket=locked_bucket, BypassGovernanceRetention=True, Delete={"Objects": objects[:2]})
    assert [(d["Key"], d["VersionId"]) for d in batch["Deleted"]] == [("g", governed)]
    assert [(e["Key"], e["VersionId"]) for e in batch["Errors"]] == [("c", complied)]
    assert versions_of(s3, locked_bucket, "c") == [complied]


# -- reads -----------------------------------------------------------------------------------------
def test_lock_headers_go_only_to_callers_allowed_to_read_the_lock(server, s3, locked_bucket):
    s3.put_object(Bucket=locked_bucket, Key="k", Body=b"v", ObjectLockMode="GOVERNANCE",
                  ObjectLockRetainUntilDate=LATER, ObjectLockLegalHoldStatus="ON")
    reader = make_s3_client(server.endpoint, *make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{locked_bucket}/*"}]}))
    head = reader.head_object(Bucket=locked_bucket, Key="k")
    assert not {"ObjectLockMode", "ObjectLockRetainUntilDate", "ObjectLockLegalHoldStatus"} & set(head)
    assert error_of(reader.get_object_retention, Bucket=locked_bucket, Key="k")[:2] == (403, "AccessDenied")
    raw = s3.head_object(Bucket=locked_bucket, Key="k")["ResponseMetadata"]["HTTPHeaders"]
    # ISO 8601, as S3 sends it.
    assert raw["x-amz-object-lock-retain-until-date"] == "2099-01-01T00:00:00.000Z"


def test_the_minio_sdk_locks_and_reads_locks(server):
    client = Minio(urlparse(server.endpoint).netloc, access_key=ROOT_USER, secret_key=ROOT_PASSWORD, secure=False)
    name = f"lock-minio-{uuid.uuid4().hex[:8]}"
    client.make_bucket(name, object_lock=True)
    until = datetime.now(UTC).replace(microsecond=0) + timedelta(days=1)
    result = client.put_object(name, "k", io.BytesIO(b"data"), 4, retention=Retention(GOVERNANCE, until),
                               legal_hold=True)
    retention = client.get_object_retention(name, "k", version_id=result.version_id)
    assert (retention.mode, retention.retain_until_date) == (GOVERNANCE, until)
    assert client.is_object_legal_hold_enabled(name, "k")
    assert client.get_object_lock_config(name).mode is None
    with pytest.raises(MinioError) as excinfo:
        client.remove_object(name, "k", version_id=result.version_id)
    assert excinfo.value.code == "AccessDenied"


# -- lifecycle -------------------------------------------------------------------------------------
def test_lifecycle_rules_leave_locked_versions_and_report_them(tmp_path):
    """A noncurrent version under a legal hold is due by its rule, yet stays: the run reports the skip."""
    store = LocalStore(tmp_path / "store")
    try:
        store.create_bucket("locked", object_lock=True)
        held = put(store, "locked", "k", b"old", lock=ObjectLock(legal_hold=True))
        free = put(store, "locked", "other", b"old")
        put(store, "locked", "k", b"new")
        put(store, "locked", "other", b"new")
        rule = (b"<LifecycleConfiguration><Rule><ID>old</ID><Filter><Prefix></Prefix></Filter><Status>Enabled"
                b"</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays>"
                b"</NoncurrentVersionExpiration></Rule></LifecycleConfiguration>")
        store.put_bucket_config("locked", LIFECYCLE_CONFIG, rule)
        runner = LifecycleRunner(store, LiveTables(None, None), clock=lambda: time.time() + 3 * 86400)
        runner.run_once()
        last = runner.report("locked")["lastRun"]
        assert (last["noncurrentDeleted"], last["skipped"]) == (1, 1)
        assert [(s["key"], s["versionId"]) for s in last["skippedFiles"]] == [("k", held.version_id)]
        assert last["skippedFiles"][0]["reason"].startswith("object lock")
        assert store.get_object_info("locked", "k", held.version_id).lock.legal_hold
        with pytest.raises(NoSuchVersion):
            store.get_object_info("locked", "other", free.version_id)
    finally:
        store.close()
