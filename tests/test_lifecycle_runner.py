"""The lifecycle runner in a real server whose "day" lasts a second and whose rules run twice a second:
expiration of current versions (by days and by date, with a prefix filter leaving other keys),
noncurrent versions with NewerNoncurrentVersions, expired delete markers, old multipart uploads, work
bounded per run and resumed across restarts, and the files of an Iceberg table and of a shared Delta
table left alone, the skips reported by the admin API."""

from __future__ import annotations

import time
import uuid

import pandas as pd
import pytest
from deltalake import DeltaTable, write_deltalake
from pyiceberg.catalog import load_catalog

from aistor_lab.lifecycle.live_tables import LiveTables
from aistor_lab.lifecycle.runner import CONFIG_NAME as LIFECYCLE_CONFIG
from aistor_lab.lifecycle.runner import LifecycleRunner
from aistor_lab.store import VERSIONING_ENABLED
from aistor_lab.store.remote import RemoteS3Store
from aistor_lab.workbench.jupyter.process import ServiceProcess

from .conftest import (
    ROOT_PASSWORD,
    ROOT_USER,
    admin_call,
    catalog_call,
    make_s3_client,
    make_user,
    seed_catalog_properties,
    service_with,
)
from .sharing_support import create_share, storage_options
from .test_catalog_pyiceberg import SCHEMA, rows

FAST = {"AISTOR_LIFECYCLE_INTERVAL_SECONDS": "0.5", "AISTOR_LIFECYCLE_DAY_SECONDS": "1"}
PATIENCE = 30  # seconds a rule may take to be applied


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with service_with(tmp_path_factory, FAST) as service:
        yield service


@pytest.fixture(scope="module")
def s3(server):
    return make_s3_client(server.endpoint)


def new_bucket(s3, versioned: bool = False) -> str:
    name = f"lc-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=name)
    if versioned:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    return name


def put_rules(s3, bucket: str, *rules: dict) -> None:
    s3.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": list(rules)})


def keys(s3, bucket: str) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=bucket).get("Contents", [])]


def versions(s3, bucket: str) -> tuple[list[dict], list[dict]]:
    listed = s3.list_object_versions(Bucket=bucket)
    return listed.get("Versions", []), listed.get("DeleteMarkers", [])


def report(server, bucket: str) -> dict:
    status, body = admin_call(server, "GET", f"/lifecycle/{bucket}")
    assert status == 200, body
    return body


def eventually(condition, what: str, timeout: float = PATIENCE):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := condition():
            return result
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_current_versions_expire_by_days_and_date_within_their_prefix(server, s3):
    bucket = new_bucket(s3)
    for key in ("logs/a", "logs/b", "dated/c", "future/d", "keep/e", "other"):
        s3.put_object(Bucket=bucket, Key=key, Body=b"x")
    s3.put_object(Bucket=bucket, Key="tagged/f", Body=b"x", Tagging="k=v&other=1")
    s3.put_object(Bucket=bucket, Key="tagged/g", Body=b"x", Tagging="k=w")
    s3.put_object(Bucket=bucket, Key="tagged/h", Body=b"x")
    put_rules(s3, bucket,
              {"ID": "logs", "Filter": {"Prefix": "logs/"}, "Status": "Enabled", "Expiration": {"Days": 1}},
              # Only the object with tag k=v goes.
              {"ID": "tagged", "Filter": {"And": {"Prefix": "tagged/", "Tags": [{"Key": "k", "Value": "v"}]}},
               "Status": "Enabled", "Expiration": {"Days": 1}},
              {"ID": "dated", "Prefix": "dated/", "Status": "Enabled", "Expiration": {"Date": "2015-01-01"}},
              {"ID": "future", "Prefix": "future/", "Status": "Enabled", "Expiration": {"Date": "2100-01-01"}},
              {"ID": "off", "Prefix": "keep/", "Status": "Disabled", "Expiration": {"Days": 1}})
    eventually(lambda: keys(s3, bucket) == ["future/d", "keep/e", "other", "tagged/g", "tagged/h"],
               "logs/, dated/ and the tagged object expire")
    last = report(server, bucket)["lastRun"]
    assert last["walkComplete"] and last["skipped"] == 0


def test_expiring_in_a_versioned_bucket_adds_a_delete_marker(server, s3):
    bucket = new_bucket(s3, versioned=True)
    written = s3.put_object(Bucket=bucket, Key="data/a", Body=b"x")["VersionId"]
    put_rules(s3, bucket, {"ID": "r", "Prefix": "data/", "Status": "Enabled", "Expiration": {"Days": 1}})
    eventually(lambda: versions(s3, bucket)[1], "a delete marker")
    kept, markers = versions(s3, bucket)
    assert [v["VersionId"] for v in kept] == [written] and not kept[0]["IsLatest"]
    assert len(markers) == 1 and markers[0]["IsLatest"]


def test_noncurrent_versions_expire_but_the_newer_ones_kept(server, s3):
    bucket = new_bucket(s3, versioned=True)
    written = [s3.put_object(Bucket=bucket, Key="k", Body=f"v{i}".encode())["VersionId"] for i in range(6)]
    s3.put_object(Bucket=bucket, Key="elsewhere/k", Body=b"old")
    s3.put_object(Bucket=bucket, Key="elsewhere/k", Body=b"new")
    put_rules(s3, bucket, {"ID": "r", "Filter": {"Prefix": "k"}, "Status": "Enabled",
                           "NoncurrentVersionExpiration": {"NoncurrentDays": 1, "NewerNoncurrentVersions": 2}})
    eventually(lambda: len([v for v in versions(s3, bucket)[0] if v["Key"] == "k"]) == 3, "3 versions of k left")
    kept = [v["VersionId"] for v in versions(s3, bucket)[0] if v["Key"] == "k"]
    assert kept == written[::-1][:3]  # the current one and the two newest noncurrent ones
    assert len([v for v in versions(s3, bucket)[0] if v["Key"] == "elsewhere/k"]) == 2


def test_expired_delete_markers_are_removed(server, s3):
    bucket = new_bucket(s3, versioned=True)
    s3.put_object(Bucket=bucket, Key="gone/a", Body=b"x")
    s3.delete_object(Bucket=bucket, Key="gone/a")  # a marker over a version
    s3.delete_object(Bucket=bucket, Key="gone/b")  # a marker alone
    s3.put_object(Bucket=bucket, Key="live/c", Body=b"x")
    s3.delete_object(Bucket=bucket, Key="live/c")
    put_rules(s3, bucket,
              {"ID": "markers", "Prefix": "gone/", "Status": "Enabled",
               "Expiration": {"ExpiredObjectDeleteMarker": True}, "NoncurrentVersionExpiration": {"NoncurrentDays": 1}})
    # The noncurrent version goes after a day, then its marker is alone and goes too.
    eventually(lambda: not [e for entries in versions(s3, bucket) for e in entries if e["Key"].startswith("gone/")],
               "nothing left under gone/")
    kept, markers = versions(s3, bucket)
    assert [v["Key"] for v in kept] == ["live/c"] and [m["Key"] for m in markers] == ["live/c"]
    assert report(server, bucket)["lastRun"]["walkComplete"]


def test_tag_filters_judge_each_version_by_its_own_tags(server, s3):
    bucket = new_bucket(s3, versioned=True)
    temporary = s3.put_object(Bucket=bucket, Key="k", Body=b"old", Tagging="class=temp")["VersionId"]
    kept = s3.put_object(Bucket=bucket, Key="k", Body=b"older")["VersionId"]
    s3.put_object(Bucket=bucket, Key="k", Body=b"now", Tagging="class=temp")
    put_rules(s3, bucket, {"ID": "temp", "Filter": {"Tag": {"Key": "class", "Value": "temp"}}, "Status": "Enabled",
                           "NoncurrentVersionExpiration": {"NoncurrentDays": 1}})
    eventually(lambda: temporary not in [v["VersionId"] for v in versions(s3, bucket)[0]], "the tagged version goes")
    assert [v["VersionId"] for v in versions(s3, bucket)[0]][1:] == [kept]
    assert not versions(s3, bucket)[1]  # the current version, tagged, has no Expiration to meet


def test_a_store_whose_listings_lack_tags_has_them_read_for_tag_rules(server):
    """The remote backend lists versions without tags: the runner reads each version's tags."""
    store = RemoteS3Store(server.endpoint, ROOT_USER, ROOT_PASSWORD, bucket_prefix=f"r{uuid.uuid4().hex[:8]}-")
    try:
        assert not store.lists_tags
        store.create_bucket("tagged")
        store.set_versioning("tagged", VERSIONING_ENABLED)
        for key, tags in (("go", {"class": "temp"}), ("stay", {"class": "keep"}), ("plain", None)):
            staging = store.stage()
            staging.write(b"x")
            store.put_object("tagged", key, staging, tags=tags)
        rule = (b"<LifecycleConfiguration><Rule><ID>temp</ID><Status>Enabled</Status><Filter><Tag><Key>class</Key>"
                b"<Value>temp</Value></Tag></Filter><Expiration><Days>1</Days></Expiration></Rule>"
                b"</LifecycleConfiguration>")
        store.put_bucket_config("tagged", LIFECYCLE_CONFIG, rule)
        runner = LifecycleRunner(store, LiveTables(None, None), clock=lambda: time.time() + 3 * 86400)
        runner.run_once()
        assert runner.report("tagged")["lastRun"]["expired"] == 1
        latest = {v.info.key: v.is_delete_marker for v in store.list_object_versions("tagged").versions if v.is_latest}
        assert latest == {"go": True, "plain": False, "stay": False}
    finally:
        store.close()


def test_old_multipart_uploads_are_aborted(server, s3):
    bucket = new_bucket(s3)
    old = s3.create_multipart_upload(Bucket=bucket, Key="tmp/big")["UploadId"]
    kept = s3.create_multipart_upload(Bucket=bucket, Key="keep/big")["UploadId"]
    put_rules(s3, bucket, {"ID": "uploads", "Prefix": "tmp/", "Status": "Enabled",
                           "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}})

    def uploads() -> list[str]:
        return [u["UploadId"] for u in s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])]

    eventually(lambda: old not in uploads(), "the old upload aborted")
    assert uploads() == [kept]
    assert report(server, bucket)["lastRun"]["uploadsAborted"] >= 1


def test_a_live_iceberg_tables_files_survive_a_rule_that_matches_them(server, s3):
    warehouse = f"wh-{uuid.uuid4().hex[:8]}"
    assert catalog_call(server, "POST", "/v1/warehouses", {"name": warehouse})[0] == 200
    catalog = load_catalog("lifecycle", **seed_catalog_properties(server, warehouse))
    catalog.create_namespace("ns")
    table = catalog.create_table("ns.events", schema=SCHEMA)
    table.append(rows([1, 2]))
    table.append(rows([3]))
    files = sorted(keys(s3, warehouse))
    s3.put_object(Bucket=warehouse, Key="scratch/old.csv", Body=b"x")
    put_rules(s3, warehouse, {"ID": "everything", "Filter": {}, "Status": "Enabled", "Expiration": {"Days": 1}})
    eventually(lambda: "scratch/old.csv" not in keys(s3, warehouse), "the scratch file expires")
    assert sorted(keys(s3, warehouse)) == files
    assert sorted(catalog.load_table("ns.events").scan().to_arrow().column("id").to_pylist()) == [1, 2, 3]
    last = report(server, warehouse)["lastRun"]
    assert last["skipped"] == len(files)
    skipped = {entry["key"]: entry for entry in last["skippedFiles"]}
    assert sorted(skipped) == files
    assert all("Iceberg table" in e["reason"] and e["rule"] == "everything" for e in skipped.values())


def test_a_shared_delta_tables_files_survive_a_rule_that_matches_them(server, s3):
    bucket = new_bucket(s3)
    uri = f"s3://{bucket}/tables/events"
    frame = pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b", "c"]})
    write_deltalake(uri, frame, storage_options=storage_options(server))
    write_deltalake(uri, frame.assign(id=frame["id"] + 3), mode="append", storage_options=storage_options(server))
    create_share(server, "lc", [f"events:delta:{bucket}:tables/events"])
    files = sorted(keys(s3, bucket))
    assert any("_delta_log/" in key for key in files) and any(key.endswith(".parquet") for key in files)
    s3.put_object(Bucket=bucket, Key="tables/eventsX/not-the-table", Body=b"x")  # same prefix, not the table
    put_rules(s3, bucket, {"ID": "all", "Prefix": "", "Status": "Enabled", "Expiration": {"Days": 1}})
    eventually(lambda: "tables/eventsX/not-the-table" not in keys(s3, bucket), "the other file expires")
    assert sorted(keys(s3, bucket)) == files
    assert DeltaTable(uri, storage_options=storage_options(server)).to_pyarrow_table().num_rows == 6
    last = report(server, bucket)["lastRun"]
    assert sorted(e["key"] for e in last["skippedFiles"]) == files
    assert all("Delta table in a share" in e["reason"] for e in last["skippedFiles"])


def test_the_report_is_authorized_per_bucket(server, s3):
    mine, theirs = new_bucket(s3), new_bucket(s3)
    reader = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetLifecycleConfiguration"], "Resource": [f"arn:aws:s3:::{mine}"]}]})
    status, body = admin_call(server, "GET", f"/lifecycle/{mine}", credentials=reader)
    assert (status, body) == (200, {"bucket": mine})  # never run: no rules
    status, body = admin_call(server, "GET", f"/lifecycle/{theirs}", credentials=reader)
    assert status == 403 and body["code"] == "AccessDenied"
    status, body = admin_call(server, "GET", "/lifecycle/no-such-bucket-here")
    assert status == 404 and body["code"] == "NoSuchBucket"
    assert admin_call(server, "GET", "/lifecycle/.aistor-system")[0] == 404


def test_work_is_bounded_per_run_and_resumed_after_a_restart(tmp_path):
    """Twelve keys the rule does not match come first, and a run looks at three: a walk that started
    over at each restart would never reach the keys the rule matches."""
    env = {**FAST, "AISTOR_LIFECYCLE_INTERVAL_SECONDS": "1", "AISTOR_LIFECYCLE_BATCH_SIZE": "3"}
    data, log = tmp_path / "data", tmp_path / "server.log"
    with ServiceProcess(data, env=env, log_path=log) as service:
        s3 = make_s3_client(service.endpoint)
        bucket = new_bucket(s3)
        for i in range(12):
            s3.put_object(Bucket=bucket, Key=f"a/keep-{i:02}", Body=b"x")
        for i in range(3):
            s3.put_object(Bucket=bucket, Key=f"z/expire-{i}", Body=b"x")
        put_rules(s3, bucket, {"ID": "z", "Prefix": "z/", "Status": "Enabled", "Expiration": {"Days": 1}})
    cursors, left = [], None
    for _ in range(8):  # a start, (about) one run, a stop
        with ServiceProcess(data, env=env, log_path=log) as service:
            s3 = make_s3_client(service.endpoint)
            before = report(service, bucket).get("lastRun", {}).get("finished")
            state = eventually(lambda b=before: (found := report(service, bucket)).get("lastRun", {}).get("finished")
                               not in (None, b) and found, "a run after the restart")
            assert state["lastRun"]["scanned"] <= 3
            cursors.append(state["cursor"].get("key"))
            left = keys(s3, bucket)
        if not any(key.startswith("z/") for key in left):
            break
    assert left == [f"a/keep-{i:02}" for i in range(12)], cursors
    walked = [cursor for cursor in cursors if cursor is not None]
    assert walked == sorted(set(walked)) and walked, cursors  # each run went on from the last
