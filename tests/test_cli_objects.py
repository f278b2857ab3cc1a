"""The object commands of the ``aistor`` CLI (mc's ``mb rb ls cp rm cat stat tree anonymous version tag
ilm``) as a subprocess against a real server, checked with boto3 and unsigned ``requests``; and the
bucket policies ``anonymous`` writes, against the documents minio-go's (so mc's) canned policies are."""
# ruff: noqa: F811  (the CLI's fixtures come from test_cli, and tests take them as arguments)

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import pytest
import requests
from botocore.exceptions import ClientError

from aistor_lab.workbench.commands import anonymous_policy
from aistor_lab.workbench.commands.object_actions import human_size
from aistor_lab.workbench.jupyter.process import free_port

from .conftest import ROOT_PASSWORD, ROOT_USER, make_user, signed_call
from .test_cli import aistor, alias, as_json, env, failed, ok, unique  # noqa: F401  (fixtures among them)


def ndjson(result) -> list[dict]:
    """mc --json's output: one JSON document a line."""
    return [json.loads(line) for line in ok(result).splitlines()]


@pytest.fixture
def lab(alias):
    alias("lab")
    return "lab"


@pytest.fixture
def new_bucket(aistor, lab, s3):
    name = unique("objects")
    ok(aistor("mb", f"lab/{name}"))
    return name


def make_tree(root) -> dict[str, bytes]:
    files = {"a.txt": b"hello a\n", "sub/b.csv": b"x,y\n1,2\n", "sub/deep/c.bin": os.urandom(70_000)}
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return files


def test_recursive_copy_up_and_back_listings_stat_and_cat(aistor, new_bucket, s3, tmp_path):
    files = make_tree(tmp_path / "data")
    copied = ndjson(aistor("cp", "--recursive", "data", f"lab/{new_bucket}/in/", "--json"))
    assert sorted(c["target"] for c in copied) == sorted(f"lab/{new_bucket}/in/data/{f}" for f in files)
    assert all(c["status"] == "success" for c in copied)
    stored = {o["Key"]: o["Size"] for o in s3.list_objects_v2(Bucket=new_bucket)["Contents"]}
    assert stored == {f"in/data/{f}": len(content) for f, content in files.items()}
    assert s3.head_object(Bucket=new_bucket, Key="in/data/sub/b.csv")["ContentType"] == "text/csv"

    # a trailing slash copies a folder's contents; the copy back matches byte for byte
    ok(aistor("cp", "-r", f"lab/{new_bucket}/in/data/", "back/"))
    assert {f: (tmp_path / "back" / f).read_bytes() for f in files} == files

    listing = ndjson(aistor("ls", f"lab/{new_bucket}/in/data/", "--json"))
    assert [(e["key"], e["type"]) for e in listing] == [("a.txt", "file"), ("sub/", "folder")]
    assert listing[0]["size"] == 8 and listing[0]["etag"] and listing[0]["lastModified"].endswith("Z")
    text = ok(aistor("ls", "-r", f"lab/{new_bucket}/in/data/")).splitlines()
    assert text[-1].endswith(f"{human_size(70_000)} STANDARD sub/deep/c.bin")
    assert [e["key"] for e in ndjson(aistor("ls", "lab", "--json")) if e["key"] == f"{new_bucket}/"]

    assert ok(aistor("tree", f"lab/{new_bucket}")).splitlines() == [
        f"lab/{new_bucket}", "└─ in", "   └─ data", "      └─ sub", "         └─ deep"]
    assert ok(aistor("tree", "-f", f"lab/{new_bucket}/in/data/")).splitlines() == [
        f"lab/{new_bucket}/in/data/", "├─ a.txt", "└─ sub", "   ├─ b.csv", "   └─ deep", "      └─ c.bin"]

    assert ok(aistor("cat", f"lab/{new_bucket}/in/data/a.txt")) == "hello a\n"
    s3.put_object(Bucket=new_bucket, Key="meta.txt", Body=b"m", Metadata={"owner": "ana"}, Tagging="k=v")
    info = as_json(aistor("stat", f"lab/{new_bucket}/meta.txt", "--json"))
    assert info["size"] == 1 and info["type"] == "file" and info["tags"] == {"k": "v"}
    assert info["metadata"]["X-Amz-Meta-Owner"] == "ana" and info["etag"] == "6f8f57715090da2632453988d9a1501b"
    text = ok(aistor("stat", f"lab/{new_bucket}/meta.txt"))
    assert "Tags:" in text and "k=v" in text and "X-Amz-Meta-Owner: ana" in text


def test_server_side_copy_and_a_copy_between_two_services(aistor, new_bucket, s3, server, tmp_path):
    s3.put_object(Bucket=new_bucket, Key="src/one.txt", Body=b"one")
    ok(aistor("cp", f"lab/{new_bucket}/src/one.txt", f"lab/{new_bucket}/copies/"))
    assert s3.get_object(Bucket=new_bucket, Key="copies/one.txt")["Body"].read() == b"one"
    # another alias (another identity): the bytes pass through the CLI
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": [f"arn:aws:s3:::{new_bucket}", f"arn:aws:s3:::{new_bucket}/*"]}]})
    ok(aistor("alias", "set", "other", server.endpoint, user, secret))
    ok(aistor("cp", f"lab/{new_bucket}/src/one.txt", f"other/{new_bucket}/streamed.txt"))
    assert s3.get_object(Bucket=new_bucket, Key="streamed.txt")["Body"].read() == b"one"


def test_progress_bar_in_text_and_none_under_json(aistor, new_bucket, tmp_path):
    (tmp_path / "big.bin").write_bytes(os.urandom(300_000))
    shown = aistor("cp", "big.bin", f"lab/{new_bucket}/")
    assert shown.returncode == 0 and "%|" in shown.stderr and "B/s" in shown.stderr
    assert ok(shown).splitlines()[-1] == f"Copied 1 object, {human_size(300_000)}."
    quiet = aistor("cp", "big.bin", f"lab/{new_bucket}/again.bin", "--json")
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert json.loads(quiet.stdout)["target"] == f"lab/{new_bucket}/again.bin"


def test_versions_listed_and_removed_one_by_one(aistor, lab, s3):
    bucket = unique("versioned")
    assert as_json(aistor("mb", f"lab/{bucket}", "--with-versioning", "--json"))["bucket"] == f"lab/{bucket}"
    assert ok(aistor("version", "info", f"lab/{bucket}")).strip() == f"lab/{bucket} versioning is enabled"
    first = s3.put_object(Bucket=bucket, Key="doc.txt", Body=b"v1")["VersionId"]
    second = s3.put_object(Bucket=bucket, Key="doc.txt", Body=b"v2")["VersionId"]
    versions = ndjson(aistor("ls", "--versions", f"lab/{bucket}", "--json"))
    assert [(v["versionId"], v["versionOrdinal"], v["isLatest"]) for v in versions] == [
        (second, 2, True), (first, 1, False)]
    assert f"{first} v1 PUT doc.txt" in ok(aistor("ls", "--versions", f"lab/{bucket}"))
    assert ok(aistor("cat", f"lab/{bucket}/doc.txt", "--version-id", first)) == "v1"

    removed = ndjson(aistor("rm", f"lab/{bucket}/doc.txt", "--version-id", first, "--json"))
    assert removed == [{"status": "success", "key": f"lab/{bucket}/doc.txt", "size": 0, "versionID": first}]
    left = s3.list_object_versions(Bucket=bucket)["Versions"]
    assert [v["VersionId"] for v in left] == [second]

    marker = ndjson(aistor("rm", f"lab/{bucket}/doc.txt", "--json"))[0]  # a delete marker on top
    assert marker["isDeleteMarker"] and ok(aistor("ls", f"lab/{bucket}")) == "\n"
    assert "DEL doc.txt" in ok(aistor("ls", "--versions", f"lab/{bucket}"))
    ok(aistor("rm", "--versions", f"lab/{bucket}/doc.txt"))
    answer = s3.list_object_versions(Bucket=bucket)
    assert not answer.get("Versions") and not answer.get("DeleteMarkers")

    ok(aistor("version", "suspend", f"lab/{bucket}"))
    assert s3.get_bucket_versioning(Bucket=bucket)["Status"] == "Suspended"
    s3.put_object(Bucket=bucket, Key="keep/a", Body=b"a")
    s3.put_object(Bucket=bucket, Key="keep/b", Body=b"b")
    assert "BucketNotEmpty" in failed(aistor("rb", f"lab/{bucket}"), 1)
    ok(aistor("rb", "--force", f"lab/{bucket}"))
    assert bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]


def test_recursive_removal_needs_force_and_removes_only_the_prefix(aistor, new_bucket, s3):
    for key in ("logs/1", "logs/2", "logs/deep/3", "keep"):
        s3.put_object(Bucket=new_bucket, Key=key, Body=b".")
    assert "--force" in failed(aistor("rm", "-r", f"lab/{new_bucket}/logs/"), 2)
    removed = ndjson(aistor("rm", "-r", "--force", f"lab/{new_bucket}/logs/", "--json"))
    assert sorted(r["key"] for r in removed) == [f"lab/{new_bucket}/logs/{k}" for k in ("1", "2", "deep/3")]
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=new_bucket)["Contents"]] == ["keep"]
    assert "Object does not exist" in failed(aistor("rm", f"lab/{new_bucket}/nothing"), 1)


def test_tags_of_objects_and_buckets(aistor, new_bucket, s3):
    s3.put_object(Bucket=new_bucket, Key="t.txt", Body=b"t")
    ok(aistor("tag", "set", f"lab/{new_bucket}/t.txt", "project=lake&team=data%20eng"))
    tags = s3.get_object_tagging(Bucket=new_bucket, Key="t.txt")["TagSet"]
    assert {t["Key"]: t["Value"] for t in tags} == {"project": "lake", "team": "data eng"}
    listed = as_json(aistor("tag", "list", f"lab/{new_bucket}/t.txt", "--json"))
    assert listed["tagset"] == {"project": "lake", "team": "data eng"}
    ok(aistor("tag", "remove", f"lab/{new_bucket}/t.txt"))
    assert s3.get_object_tagging(Bucket=new_bucket, Key="t.txt")["TagSet"] == []

    ok(aistor("tag", "set", f"lab/{new_bucket}", "cost=42"))
    assert s3.get_bucket_tagging(Bucket=new_bucket)["TagSet"] == [{"Key": "cost", "Value": "42"}]
    assert as_json(aistor("tag", "ls", f"lab/{new_bucket}", "--json"))["tagset"] == {"cost": "42"}
    ok(aistor("tag", "rm", f"lab/{new_bucket}"))
    assert as_json(aistor("tag", "ls", f"lab/{new_bucket}", "--json"))["tagset"] == {}
    assert "InvalidTag" in failed(aistor("tag", "set", f"lab/{new_bucket}/t.txt", "&".join(
        f"k{i}=v" for i in range(11))), 1)
    assert "key=value" in failed(aistor("tag", "set", f"lab/{new_bucket}/t.txt", "novalue"), 2)


def _lifecycle_xml(server, bucket: str) -> ET.Element:
    response = signed_call(server, "GET", f"/{bucket}?lifecycle")
    assert response.status_code == 200
    return ET.fromstring(response.content)


def test_ilm_rules_add_list_export_import_remove(aistor, new_bucket, s3, server, tmp_path):
    ok(aistor("version", "enable", f"lab/{new_bucket}"))
    added = as_json(aistor("ilm", "rule", "add", f"lab/{new_bucket}", "--id", "logs", "--prefix", "logs/",
                           "--tags", "tier=cold&team=a", "--expire-days", "30", "--json"))
    assert added["ilmID"] == "logs"
    ok(aistor("ilm", "rule", "add", f"lab/{new_bucket}", "--id", "old", "--noncurrent-expire-days", "7",
              "--noncurrent-expire-newer", "3", "--expire-delete-marker"))

    ns = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
    rules = {r.findtext("s3:ID", namespaces=ns): r for r in _lifecycle_xml(server, new_bucket).findall("s3:Rule", ns)}
    logs = rules["logs"]
    assert logs.findtext("s3:Status", namespaces=ns) == "Enabled"
    assert logs.findtext("s3:Expiration/s3:Days", namespaces=ns) == "30"
    assert logs.findtext("s3:Filter/s3:And/s3:Prefix", namespaces=ns) == "logs/"
    assert {(t.findtext("s3:Key", namespaces=ns), t.findtext("s3:Value", namespaces=ns))
            for t in logs.findall("s3:Filter/s3:And/s3:Tag", ns)} == {("tier", "cold"), ("team", "a")}
    old = rules["old"]
    assert old.findtext("s3:NoncurrentVersionExpiration/s3:NoncurrentDays", namespaces=ns) == "7"
    assert old.findtext("s3:NoncurrentVersionExpiration/s3:NewerNoncurrentVersions", namespaces=ns) == "3"
    assert old.findtext("s3:Expiration/s3:ExpiredObjectDeleteMarker", namespaces=ns) == "true"

    listed = as_json(aistor("ilm", "rule", "ls", f"lab/{new_bucket}", "--json"))
    assert [r["ID"] for r in listed["config"]["Rules"]] == ["logs", "old"]
    text = ok(aistor("ilm", "rule", "ls", f"lab/{new_bucket}"))
    assert "logs/" in text and "tier=cold&team=a" in text and "30 days" in text and "7 days, newest 3 kept" in text

    exported = ok(aistor("ilm", "export", f"lab/{new_bucket}"))
    (tmp_path / "ilm.json").write_text(exported)
    ok(aistor("ilm", "rule", "rm", f"lab/{new_bucket}", "--all"))
    with pytest.raises(ClientError, match="NoSuchLifecycleConfiguration"):
        s3.get_bucket_lifecycle_configuration(Bucket=new_bucket)
    ok(aistor("ilm", "import", f"lab/{new_bucket}", "ilm.json"))
    assert json.loads(ok(aistor("ilm", "export", f"lab/{new_bucket}"))) == json.loads(exported)

    ok(aistor("ilm", "rule", "rm", f"lab/{new_bucket}", "--id", "logs"))
    assert [r["ID"] for r in s3.get_bucket_lifecycle_configuration(Bucket=new_bucket)["Rules"]] == ["old"]
    assert "no rule with ID 'gone'" in failed(aistor("ilm", "rule", "rm", f"lab/{new_bucket}", "--id", "gone"), 2)
    assert "needs an action" in failed(aistor("ilm", "rule", "add", f"lab/{new_bucket}", "--prefix", "x/"), 2)
    assert "cannot read missing.json" in failed(aistor("ilm", "import", f"lab/{new_bucket}", "missing.json"), 2)
    (tmp_path / "wrong.json").write_text('{"rules": []}')
    assert 'expected {"Rules"' in failed(aistor("ilm", "import", f"lab/{new_bucket}", "wrong.json"), 2)


def test_anonymous_download_lets_unsigned_reads_in(aistor, new_bucket, s3, server):
    s3.put_object(Bucket=new_bucket, Key="public/hello.txt", Body=b"hello world")
    url = f"{server.endpoint}/{new_bucket}/public/hello.txt"
    assert requests.get(url, timeout=10).status_code == 403
    assert ok(aistor("anonymous", "get", f"lab/{new_bucket}")).strip() == f"Access permission for `lab/{new_bucket}` is `private`"

    done = as_json(aistor("anonymous", "set", "download", f"lab/{new_bucket}", "--json"))
    assert done == {"operation": "set", "status": "success", "bucket": f"lab/{new_bucket}", "permission": "download"}
    policy = json.loads(s3.get_bucket_policy(Bucket=new_bucket)["Policy"])
    assert policy["Statement"] == [
        {"Action": ["s3:GetBucketLocation", "s3:ListBucket"], "Effect": "Allow", "Principal": {"AWS": ["*"]},
         "Resource": [f"arn:aws:s3:::{new_bucket}"], "Sid": ""},
        {"Action": ["s3:GetObject"], "Effect": "Allow", "Principal": {"AWS": ["*"]},
         "Resource": [f"arn:aws:s3:::{new_bucket}/*"], "Sid": ""}]
    answer = requests.get(url, timeout=10)
    assert answer.status_code == 200 and answer.content == b"hello world"
    assert requests.put(url, data=b"overwrite", timeout=10).status_code == 403
    assert ok(aistor("anonymous", "list", f"lab/{new_bucket}")).strip() == f"{new_bucket}/* => readonly"

    ok(aistor("anonymous", "set", "none", f"lab/{new_bucket}"))
    assert requests.get(url, timeout=10).status_code == 403
    with pytest.raises(ClientError, match="NoSuchBucketPolicy"):
        s3.get_bucket_policy(Bucket=new_bucket)


def test_admin_policy_spelled_as_mc(aistor, lab, tmp_path):
    name = unique("policy")
    document = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": ["arn:aws:s3:::shared/*"]}]}
    (tmp_path / "p.json").write_text(json.dumps(document))
    ok(aistor("admin", "policy", "create", "lab", name, "p.json"))
    assert as_json(aistor("admin", "policy", "info", "lab", name, "--json"))["policy"]["Statement"] == document["Statement"]
    assert name in ok(aistor("admin", "policy", "list", "lab"))
    ok(aistor("admin", "policy", "remove", "lab", name))
    assert name not in ok(aistor("admin", "policy", "ls", "lab"))


@pytest.mark.parametrize(("args", "message", "code"), [
    (["ls", "nosuch/bucket"], "unknown alias 'nosuch'", 2),
    (["cat", "lab/bucket"], "names no object", 2),
    (["mb", "lab"], "names no bucket", 2),
    (["cp", "only-one"], "required: TARGET", 2),
    (["cp", "missing-dir", "lab/bucket/"], "'missing-dir' does not exist", 2),
    (["rm", "lab/b/k", "--version-id", "v", "--versions"], "--version-id names one version", 2),
    (["anonymous", "set", "everyone", "lab/b"], "invalid choice: 'everyone'", 2),
    (["ilm", "rule", "rm", "lab/b"], "either --id ID or --all", 2),
    (["ls", "lab/no-such-bucket-here"], "NoSuchBucket", 1),
    (["cat", "lab/no-such-bucket-here/key"], "NoSuchBucket", 1),
])
def test_bad_paths_and_arguments(aistor, lab, args, message, code):
    assert message in failed(aistor(*args), code)


def test_a_folder_needs_recursive(aistor, new_bucket, tmp_path):
    make_tree(tmp_path / "data")
    assert "--recursive" in failed(aistor("cp", "data", f"lab/{new_bucket}/"), 2)


def test_service_down_exits_3(aistor):
    port = free_port()
    ok(aistor("alias", "set", "down", f"http://127.0.0.1:{port}", ROOT_USER, ROOT_PASSWORD))
    for args in (["ls", "down"], ["mb", "down/bucket"], ["cat", "down/bucket/key"]):
        assert f"cannot reach the AIStor service at http://127.0.0.1:{port}" in failed(aistor(*args), 3)


# -- the documents `anonymous set` writes, as minio-go's SetPolicy writes them -----------------------


def _set(document: str | None, permission: str, bucket: str, prefix: str) -> str | None:
    statements = anonymous_policy.set_policy(anonymous_policy.parse(document), permission, bucket, prefix)
    return anonymous_policy.render(statements)


def test_canned_policies_of_a_prefix_and_their_removal():
    upload = json.loads(_set(None, "writeonly", "b", "in/"))
    assert upload["Statement"] == [
        {"Action": ["s3:GetBucketLocation", "s3:ListBucketMultipartUploads"], "Effect": "Allow",
         "Principal": {"AWS": ["*"]}, "Resource": ["arn:aws:s3:::b"], "Sid": ""},
        {"Action": ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:ListMultipartUploadParts", "s3:PutObject"],
         "Effect": "Allow", "Principal": {"AWS": ["*"]}, "Resource": ["arn:aws:s3:::b/in/*"], "Sid": ""}]
    download = json.loads(_set(None, "readonly", "b", "pub/"))
    assert download["Statement"][1] == {
        "Action": ["s3:ListBucket"], "Condition": {"StringEquals": {"s3:prefix": ["pub/"]}}, "Effect": "Allow",
        "Principal": {"AWS": ["*"]}, "Resource": ["arn:aws:s3:::b"], "Sid": ""}
    both = _set(json.dumps(download), "readwrite", "b", "in/")
    statements = anonymous_policy.parse(both)
    assert anonymous_policy.get_policies(statements, "b") == {"b/in/*": "readwrite", "b/pub/*": "readonly"}
    assert anonymous_policy.get_policy(statements, "b", "other/") == "none"
    # removing both prefixes leaves no policy at all; a statement that is no canned grant stays as it was
    foreign = {"Effect": "Deny", "Principal": "*", "Action": "s3:DeleteObject", "Resource": "arn:aws:s3:::b/x"}
    with_foreign = json.dumps({**json.loads(both), "Statement": [*json.loads(both)["Statement"], foreign]})
    assert _set(_set(both, "none", "b", "in/"), "none", "b", "pub/") is None
    left = anonymous_policy.parse(_set(_set(with_foreign, "none", "b", "in/"), "none", "b", "pub/"))
    assert foreign in [s.to_json() for s in left] and set(anonymous_policy.get_policies(left, "b").values()) == {"none"}
    assert anonymous_policy.get_access(json.dumps({"Statement": [foreign]}), "b", "") == "custom"
