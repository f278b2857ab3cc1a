"""Canned ACLs with boto3 and unsigned requests: on bucket and object creation, through PutBucketAcl
and PutObjectAcl, answered by GetBucketAcl/GetObjectAcl, and mapped onto the same decisions as
bucket policies; ObjectOwnership and PublicAccessBlock's ACL switches."""

from __future__ import annotations

import uuid

import boto3
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from .conftest import ROOT_USER, make_s3_client, make_user, service_with

ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTHENTICATED = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"


@pytest.fixture(scope="module")
def anonymous(server):
    return boto3.client("s3", endpoint_url=server.endpoint, region_name="us-east-1",
                        config=Config(signature_version=UNSIGNED, s3={"addressing_style": "path"},
                                      retries={"max_attempts": 1}))


@pytest.fixture(scope="module")
def reader(server):
    """A signed user with no rights of its own on other buckets."""
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:ListAllMyBuckets", "Resource": "*"}]})
    return make_s3_client(server.endpoint, user, secret)


def grants(response) -> set[tuple[str, str]]:
    return {(g["Grantee"].get("URI") or g["Grantee"]["ID"], g["Permission"]) for g in response["Grants"]}


def code(excinfo) -> str:
    return excinfo.value.response["Error"]["Code"]


def new_bucket(s3, **options) -> str:
    name = f"acl-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name, **options)
    return name


def test_the_creator_owns_a_private_bucket(s3, bucket):
    response = s3.get_bucket_acl(Bucket=bucket)
    assert response["Owner"]["ID"] == ROOT_USER
    assert grants(response) == {(ROOT_USER, "FULL_CONTROL")}


def test_a_user_who_creates_a_bucket_owns_it(server):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    name = new_bucket(client)
    assert client.get_bucket_acl(Bucket=name)["Owner"]["ID"] == user


def test_public_read_bucket_lists_for_anyone_but_objects_stay_private(s3, anonymous):
    name = new_bucket(s3, ACL="public-read")
    s3.put_object(Bucket=name, Key="k", Body=b"v")
    assert grants(s3.get_bucket_acl(Bucket=name)) == {(ROOT_USER, "FULL_CONTROL"), (ALL_USERS, "READ")}
    assert [o["Key"] for o in anonymous.list_objects_v2(Bucket=name)["Contents"]] == ["k"]
    with pytest.raises(ClientError) as excinfo:
        anonymous.get_object(Bucket=name, Key="k")
    assert code(excinfo) == "AccessDenied"
    with pytest.raises(ClientError):
        anonymous.put_object(Bucket=name, Key="new", Body=b"x")


def test_public_read_write_bucket_takes_anonymous_writes(s3, anonymous):
    name = new_bucket(s3)
    s3.put_bucket_acl(Bucket=name, ACL="public-read-write")
    anonymous.put_object(Bucket=name, Key="dropped", Body=b"x")
    assert s3.get_object(Bucket=name, Key="dropped")["Body"].read() == b"x"
    s3.put_bucket_acl(Bucket=name, ACL="private")
    with pytest.raises(ClientError):
        anonymous.put_object(Bucket=name, Key="again", Body=b"x")


def test_object_acls_on_write_and_through_put_object_acl(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="open", Body=b"o", ACL="public-read")
    s3.put_object(Bucket=bucket, Key="closed", Body=b"c")
    assert grants(s3.get_object_acl(Bucket=bucket, Key="open")) == {(ROOT_USER, "FULL_CONTROL"), (ALL_USERS, "READ")}
    assert grants(s3.get_object_acl(Bucket=bucket, Key="closed")) == {(ROOT_USER, "FULL_CONTROL")}
    assert anonymous.get_object(Bucket=bucket, Key="open")["Body"].read() == b"o"
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="closed")
    before = s3.head_object(Bucket=bucket, Key="closed")
    s3.put_object_acl(Bucket=bucket, Key="closed", ACL="public-read")
    assert anonymous.get_object(Bucket=bucket, Key="closed")["Body"].read() == b"c"
    after = s3.head_object(Bucket=bucket, Key="closed")
    assert (after["ETag"], after["LastModified"]) == (before["ETag"], before["LastModified"])
    s3.put_object_acl(Bucket=bucket, Key="open", ACL="private")
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="open")
    # The ACL is not metadata a client sees.
    assert s3.head_object(Bucket=bucket, Key="closed")["Metadata"] == {}


def test_a_new_write_is_private_again(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"1", ACL="public-read")
    s3.put_object(Bucket=bucket, Key="k", Body=b"2")
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="k")


def test_a_copy_does_not_inherit_a_public_acl(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="src", Body=b"s", ACL="public-read", Metadata={"kept": "yes"})
    s3.copy_object(Bucket=bucket, Key="copy", CopySource={"Bucket": bucket, "Key": "src"})
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="copy")
    assert s3.head_object(Bucket=bucket, Key="copy")["Metadata"] == {"kept": "yes"}
    s3.copy_object(Bucket=bucket, Key="copy2", CopySource={"Bucket": bucket, "Key": "src"}, ACL="public-read")
    assert anonymous.get_object(Bucket=bucket, Key="copy2")["Body"].read() == b"s"


def test_multipart_upload_with_an_acl(s3, anonymous, bucket):
    upload = s3.create_multipart_upload(Bucket=bucket, Key="mp", ACL="public-read")
    part = s3.upload_part(Bucket=bucket, Key="mp", UploadId=upload["UploadId"], PartNumber=1, Body=b"m" * 10)
    s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload["UploadId"],
                                 MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    assert anonymous.get_object(Bucket=bucket, Key="mp")["Body"].read() == b"m" * 10


def test_authenticated_read_is_for_signed_callers(s3, anonymous, reader, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v", ACL="authenticated-read")
    assert grants(s3.get_object_acl(Bucket=bucket, Key="k")) == {(ROOT_USER, "FULL_CONTROL"), (AUTHENTICATED, "READ")}
    assert reader.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=bucket, Key="k")


def test_acl_bodies_of_canned_grants_are_taken_others_refused(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    owner = {"ID": ROOT_USER, "DisplayName": ROOT_USER}
    public = {"Owner": owner, "Grants": [
        {"Grantee": {"Type": "CanonicalUser", "ID": ROOT_USER}, "Permission": "FULL_CONTROL"},
        {"Grantee": {"Type": "Group", "URI": ALL_USERS}, "Permission": "READ"}]}
    s3.put_object_acl(Bucket=bucket, Key="k", AccessControlPolicy=public)
    assert anonymous.get_object(Bucket=bucket, Key="k")["Body"].read() == b"v"
    odd = {"Owner": owner, "Grants": [{"Grantee": {"Type": "CanonicalUser", "ID": ROOT_USER}, "Permission": "READ"}]}
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy=odd)
    assert code(excinfo) == "NotImplemented"
    unknown = {"Owner": owner, "Grants": [{"Grantee": {"Type": "CanonicalUser", "ID": "nobody-at-all"},
                                           "Permission": "READ"}]}
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy=unknown)
    assert code(excinfo) == "InvalidArgument"
    by_mail = {"Owner": owner, "Grants": [{"Grantee": {"Type": "AmazonCustomerByEmail", "EmailAddress": "a@b.c"},
                                           "Permission": "READ"}]}
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_acl(Bucket=bucket, AccessControlPolicy=by_mail)
    assert code(excinfo) == "UnresolvableGrantByEmailAddress"
    s3.put_object(Bucket=bucket, Key="by-header", Body=b"h", GrantRead=f'uri="{ALL_USERS}"')
    assert anonymous.get_object(Bucket=bucket, Key="by-header")["Body"].read() == b"h"
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_acl(Bucket=bucket, ACL="world-writable")
    assert code(excinfo) in ("InvalidArgument", "ParamValidation")


def test_block_and_ignore_public_acls(s3, anonymous, bucket):
    s3.put_object(Bucket=bucket, Key="open", Body=b"o", ACL="public-read")
    s3.put_public_access_block(Bucket=bucket, PublicAccessBlockConfiguration={
        "BlockPublicAcls": True, "IgnorePublicAcls": True})
    for call in (
        lambda: s3.put_object(Bucket=bucket, Key="k", Body=b"x", ACL="public-read"),
        lambda: s3.put_object_acl(Bucket=bucket, Key="open", ACL="public-read-write"),
        lambda: s3.put_bucket_acl(Bucket=bucket, ACL="public-read"),
    ):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert code(excinfo) == "AccessDenied"
    with pytest.raises(ClientError):  # the object's public ACL stands, but is ignored
        anonymous.get_object(Bucket=bucket, Key="open")
    s3.delete_public_access_block(Bucket=bucket)
    assert anonymous.get_object(Bucket=bucket, Key="open")["Body"].read() == b"o"


def test_object_ownership_controls(s3, anonymous):
    name = new_bucket(s3)
    with pytest.raises(ClientError) as excinfo:
        s3.get_bucket_ownership_controls(Bucket=name)
    assert code(excinfo) == "OwnershipControlsNotFoundError"
    s3.put_bucket_ownership_controls(Bucket=name, OwnershipControls={"Rules": [{"ObjectOwnership": "ObjectWriter"}]})
    rules = s3.get_bucket_ownership_controls(Bucket=name)["OwnershipControls"]["Rules"]
    assert rules == [{"ObjectOwnership": "ObjectWriter"}]
    s3.delete_bucket_ownership_controls(Bucket=name)
    with pytest.raises(ClientError):
        s3.get_bucket_ownership_controls(Bucket=name)


def test_bucket_owner_enforced_turns_acls_off(s3, anonymous):
    name = new_bucket(s3, ObjectOwnership="BucketOwnerEnforced")
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=name, Key="k", Body=b"x", ACL="public-read")
    assert code(excinfo) == "AccessControlListNotSupported"
    s3.put_object(Bucket=name, Key="k", Body=b"x", ACL="bucket-owner-full-control")
    with pytest.raises(ClientError):
        anonymous.get_object(Bucket=name, Key="k")
    public = new_bucket(s3, ACL="public-read")
    with pytest.raises(ClientError) as excinfo:
        s3.put_bucket_ownership_controls(Bucket=public, OwnershipControls={
            "Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]})
    assert code(excinfo) == "InvalidBucketAclWithObjectOwnership"


def test_acl_operations_need_their_permissions(reader, s3, bucket):
    s3.put_object(Bucket=bucket, Key="k", Body=b"v")
    for call in (
        lambda: reader.get_bucket_acl(Bucket=bucket),
        lambda: reader.put_bucket_acl(Bucket=bucket, ACL="public-read"),
        lambda: reader.get_object_acl(Bucket=bucket, Key="k"),
        lambda: reader.put_object_acl(Bucket=bucket, Key="k", ACL="public-read"),
        lambda: reader.put_bucket_ownership_controls(Bucket=bucket, OwnershipControls={
            "Rules": [{"ObjectOwnership": "ObjectWriter"}]}),
    ):
        with pytest.raises(ClientError) as excinfo:
            call()
        assert code(excinfo) == "AccessDenied"
    assert grants(s3.get_object_acl(Bucket=bucket, Key="k")) == {(ROOT_USER, "FULL_CONTROL")}


def test_clients_cannot_set_the_reserved_metadata(s3, bucket):
    with pytest.raises(ClientError) as excinfo:
        s3.put_object(Bucket=bucket, Key="k", Body=b"v", Metadata={"aistor-internal-acl": "public-read"})
    assert code(excinfo) == "InvalidArgument"


@pytest.fixture(scope="module")
def writer(server):
    """A user with every S3 right, who writes into buckets the root user owns."""
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
    return user, make_s3_client(server.endpoint, user, secret)


def owner_of(s3, bucket: str, key: str) -> str:
    return s3.get_object_acl(Bucket=bucket, Key=key)["Owner"]["ID"]


def test_the_writer_owns_an_object_unless_the_bucket_owner_takes_it(s3, writer):
    user, client = writer
    plain = new_bucket(s3)
    client.put_object(Bucket=plain, Key="k", Body=b"v")
    assert owner_of(s3, plain, "k") == user
    assert s3.list_objects(Bucket=plain)["Contents"][0]["Owner"]["ID"] == user
    assert s3.list_objects_v2(Bucket=plain, FetchOwner=True)["Contents"][0]["Owner"]["ID"] == user
    client.put_object(Bucket=plain, Key="full", Body=b"v", ACL="bucket-owner-full-control")
    assert grants(s3.get_object_acl(Bucket=plain, Key="full")) == {(user, "FULL_CONTROL"), (ROOT_USER, "FULL_CONTROL")}
    upload = client.create_multipart_upload(Bucket=plain, Key="mp")
    listed = s3.list_multipart_uploads(Bucket=plain)["Uploads"][0]
    assert listed["Initiator"]["ID"] == listed["Owner"]["ID"] == user
    assert s3.list_parts(Bucket=plain, Key="mp", UploadId=upload["UploadId"])["Owner"]["ID"] == user

    enforced = new_bucket(s3, ObjectOwnership="BucketOwnerEnforced")
    client.put_object(Bucket=enforced, Key="k", Body=b"v")
    assert owner_of(s3, enforced, "k") == ROOT_USER
    with pytest.raises(ClientError) as excinfo:
        client.put_object(Bucket=enforced, Key="p", Body=b"v", ACL="private")
    assert code(excinfo) == "AccessControlListNotSupported"

    preferred = new_bucket(s3, ObjectOwnership="BucketOwnerPreferred")
    client.put_object(Bucket=preferred, Key="mine", Body=b"v")
    client.put_object(Bucket=preferred, Key="theirs", Body=b"v", ACL="bucket-owner-full-control")
    assert (owner_of(s3, preferred, "mine"), owner_of(s3, preferred, "theirs")) == (user, ROOT_USER)


def test_list_buckets_names_the_caller_as_owner(s3, writer):
    user, client = writer
    assert client.list_buckets()["Owner"]["ID"] == user
    assert s3.list_buckets()["Owner"]["ID"] == ROOT_USER


def test_a_public_acl_makes_the_bucket_public(s3):
    name = new_bucket(s3, ACL="public-read")
    assert s3.get_bucket_policy_status(Bucket=name)["PolicyStatus"]["IsPublic"] is True


def test_missing_things_in_public_and_missing_buckets(s3, anonymous):
    name = new_bucket(s3, ACL="public-read")
    with pytest.raises(ClientError) as excinfo:  # may list, so may learn the key is not there
        anonymous.get_object(Bucket=name, Key="never-written")
    assert code(excinfo) == "NoSuchKey"
    private = new_bucket(s3)
    with pytest.raises(ClientError) as excinfo:
        anonymous.get_object(Bucket=private, Key="never-written")
    assert code(excinfo) == "AccessDenied"
    with pytest.raises(ClientError) as excinfo:
        anonymous.get_object(Bucket=f"missing-{uuid.uuid4().hex[:8]}", Key="k")
    assert code(excinfo) == "NoSuchBucket"


def test_a_bucket_owner_has_full_control_of_it_and_no_more(server, s3):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:CreateBucket", "s3:ListAllMyBuckets"], "Resource": "*"},
        {"Effect": "Deny", "Action": "s3:DeleteBucket", "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    mine = new_bucket(client)
    client.put_object(Bucket=mine, Key="k", Body=b"mine")
    assert client.get_object(Bucket=mine, Key="k")["Body"].read() == b"mine"
    client.put_bucket_versioning(Bucket=mine, VersioningConfiguration={"Status": "Enabled"})
    client.delete_object(Bucket=mine, Key="k")
    with pytest.raises(ClientError) as excinfo:  # an explicit Deny of the owner's own policies still wins
        client.delete_bucket(Bucket=mine)
    assert code(excinfo) == "AccessDenied"
    theirs = new_bucket(s3)
    with pytest.raises(ClientError) as excinfo:
        client.put_object(Bucket=theirs, Key="k", Body=b"x")
    assert code(excinfo) == "AccessDenied"


def test_an_object_owner_reads_its_object_and_acl_in_a_bucket_it_may_write(server, s3):
    user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": ["s3:ListAllMyBuckets"], "Resource": "*"}]})
    client = make_s3_client(server.endpoint, user, secret)
    shared = new_bucket(s3, ACL="public-read-write")
    client.put_object(Bucket=shared, Key="mine", Body=b"m", ACL="bucket-owner-read")
    assert client.get_object(Bucket=shared, Key="mine")["Body"].read() == b"m"
    assert grants(client.get_object_acl(Bucket=shared, Key="mine")) == {(user, "FULL_CONTROL"), (ROOT_USER, "READ")}
    s3.put_object(Bucket=shared, Key="root's", Body=b"r")
    with pytest.raises(ClientError) as excinfo:
        client.get_object(Bucket=shared, Key="root's")
    assert code(excinfo) == "AccessDenied"


def test_acls_and_owners_on_an_existing_s3_cluster(server, tmp_path_factory):
    """A front on a cluster keeps an object's ACL and owner with the object there, under names the
    cluster takes from a client (this server refuses its own reserved names from clients)."""
    with service_with(tmp_path_factory, {"AISTOR_STORE_ENDPOINT": server.endpoint,
                                         "AISTOR_STORE_SYSTEM_BUCKET": f"front-{uuid.uuid4().hex[:8]}"}) as front:
        s3 = make_s3_client(front.endpoint)
        name = new_bucket(s3)
        s3.put_object(Bucket=name, Key="open", Body=b"o", ACL="public-read")
        anonymous = boto3.client("s3", endpoint_url=front.endpoint, region_name="us-east-1",
                                 config=Config(signature_version=UNSIGNED, s3={"addressing_style": "path"}))
        assert anonymous.get_object(Bucket=name, Key="open")["Body"].read() == b"o"
        assert grants(s3.get_object_acl(Bucket=name, Key="open")) == {(ROOT_USER, "FULL_CONTROL"), (ALL_USERS, "READ")}
        assert s3.head_object(Bucket=name, Key="open")["Metadata"] == {}
        with pytest.raises(ClientError) as excinfo:  # the cluster changes metadata only by copying
            s3.put_object_acl(Bucket=name, Key="open", ACL="private")
        assert code(excinfo) == "NotImplemented"


def test_a_bucket_owner_reads_others_objects_only_where_their_acl_or_ownership_says(server):
    def user_client(statement: dict):
        user, secret = make_user(server, {"Version": "2012-10-17", "Statement": [statement]})
        return make_s3_client(server.endpoint, user, secret)

    owner = user_client({"Effect": "Allow", "Action": ["s3:CreateBucket", "s3:ListAllMyBuckets"], "Resource": "*"})
    writer = user_client({"Effect": "Allow", "Action": ["s3:PutObject"], "Resource": "*"})
    shared = new_bucket(owner)
    writer.put_object(Bucket=shared, Key="writers", Body=b"w")
    writer.put_object(Bucket=shared, Key="readable", Body=b"r", ACL="bucket-owner-read")
    with pytest.raises(ClientError) as excinfo:
        owner.get_object(Bucket=shared, Key="writers")
    assert code(excinfo) == "AccessDenied"
    assert owner.get_object(Bucket=shared, Key="readable")["Body"].read() == b"r"
    owner.delete_object(Bucket=shared, Key="writers")  # deleting is the bucket owner's, whoever wrote it
    enforced = new_bucket(owner, ObjectOwnership="BucketOwnerEnforced")
    writer.put_object(Bucket=enforced, Key="k", Body=b"e")
    assert owner.get_object(Bucket=enforced, Key="k")["Body"].read() == b"e"
