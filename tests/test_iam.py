"""IAM: the policy grammar and its evaluation, users/keys/named policies on a real LocalStore, and
several IAM instances sharing one store."""

from __future__ import annotations

import json
import threading

import pytest

from aistor_lab.iam import (
    BUILTIN_POLICIES,
    IAM,
    IAMError,
    InvalidArgument,
    MalformedPolicy,
    NoSuchPolicy,
    NoSuchUser,
    Policy,
    PolicyInUse,
    UserAlreadyExists,
    is_allowed,
    s3_arn,
    table_arn,
    warehouse_arn,
)
from aistor_lab.settings import DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USER
from aistor_lab.store.types import SYSTEM_BUCKET

from .conftest import admin_call

ROOT, ROOT_SECRET = "rootadmin", "rootsecret123"
SERVER_ROOT = (DEFAULT_ROOT_USER, DEFAULT_ROOT_PASSWORD)  # what the conftest server runs with


def policy(*statements: dict) -> Policy:
    return Policy.parse(json.dumps({"Version": "2012-10-17", "Statement": list(statements)}))


def allow(action, resource="*", **extra) -> dict:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def deny(action, resource="*", **extra) -> dict:
    return {"Effect": "Deny", "Action": action, "Resource": resource, **extra}


# -- evaluation ---------------------------------------------------------------------------------
def test_allow_matches_only_the_granted_action_and_resource():
    p = policy(allow("s3:GetObject", "arn:aws:s3:::data/*"))
    assert is_allowed([p], "s3:GetObject", s3_arn("data", "a/b.csv"))
    assert not is_allowed([p], "s3:PutObject", s3_arn("data", "a/b.csv"))
    assert not is_allowed([p], "s3:GetObject", s3_arn("other", "a/b.csv"))
    assert not is_allowed([p], "s3:GetObject", s3_arn("data"))  # the bucket itself is not "data/*"
    assert not is_allowed([], "s3:GetObject", s3_arn("data", "x"))  # no policy: implicit deny


def test_explicit_deny_beats_allow_within_and_across_policies():
    broad = policy(allow("s3:*", "arn:aws:s3:::*"))
    no_secrets = policy(deny("s3:GetObject", "arn:aws:s3:::data/secret/*"))
    assert not is_allowed([broad, no_secrets], "s3:GetObject", s3_arn("data", "secret/k"))
    assert not is_allowed([no_secrets, broad], "s3:GetObject", s3_arn("data", "secret/k"))
    assert is_allowed([broad, no_secrets], "s3:GetObject", s3_arn("data", "public/k"))
    one = policy(allow("s3:*"), deny("s3:DeleteObject"))
    assert not is_allowed([one], "s3:DeleteObject", s3_arn("b", "k"))
    assert is_allowed([one], "s3:PutObject", s3_arn("b", "k"))


@pytest.mark.parametrize(
    ("pattern", "action", "expected"),
    [
        ("s3:*", "s3:GetObject", True),
        ("s3:*", "s3tables:GetTable", False),
        ("s3:Get*", "s3:GetObjectTagging", True),
        ("s3:Get*", "s3:PutObject", False),
        ("s3:?etObject", "s3:GetObject", True),
        ("s3:?etObject", "s3:GGetObject", False),
        ("s3:getobject", "S3:GetObject", True),  # action names are case-insensitive
        ("*", "admin:CreateUser", True),
        ("s3tables:*", "s3tables:GetTable", True),
    ],
)
def test_action_wildcards(pattern, action, expected):
    assert is_allowed([policy(allow(pattern))], action, "arn:aws:s3:::b") is expected


@pytest.mark.parametrize(
    ("pattern", "resource", "expected"),
    [
        ("arn:aws:s3:::bucket/key*", "arn:aws:s3:::bucket/key", True),
        ("arn:aws:s3:::bucket/key*", "arn:aws:s3:::bucket/keys/deep/x", True),  # * crosses "/"
        ("arn:aws:s3:::bucket/key*", "arn:aws:s3:::bucket/other", False),
        ("arn:aws:s3:::bucket/k?y", "arn:aws:s3:::bucket/key", True),
        ("arn:aws:s3:::bucket/k?y", "arn:aws:s3:::bucket/ky", False),
        ("arn:aws:s3:::Bucket/*", "arn:aws:s3:::bucket/x", False),  # resources are case-sensitive
        ("arn:aws:s3:::b/[x]", "arn:aws:s3:::b/[x]", True),  # brackets are literal, unlike fnmatch
        ("arn:aws:s3:::b/[x]", "arn:aws:s3:::b/x", False),
        ("arn:aws:s3:::b/a.c", "arn:aws:s3:::b/abc", False),  # "." is literal
        ("arn:aws:s3:::*", "arn:aws:s3:::any/key", True),
        ("*", "arn:aws:s3tables:::bucket/wh", True),
    ],
)
def test_resource_wildcards(pattern, resource, expected):
    assert is_allowed([policy(allow("s3:GetObject", pattern))], "s3:GetObject", resource) is expected


def test_not_action_and_not_resource():
    everything_but_delete = policy({"Effect": "Allow", "NotAction": ["s3:Delete*"], "Resource": "*"})
    assert is_allowed([everything_but_delete], "s3:GetObject", s3_arn("b", "k"))
    assert not is_allowed([everything_but_delete], "s3:DeleteObject", s3_arn("b", "k"))

    only_inside_home = policy(
        allow("s3:*", "arn:aws:s3:::*"),
        {"Effect": "Deny", "Action": "s3:*", "NotResource": ["arn:aws:s3:::home", "arn:aws:s3:::home/*"]},
    )
    assert is_allowed([only_inside_home], "s3:PutObject", s3_arn("home", "x"))
    assert is_allowed([only_inside_home], "s3:ListBucket", s3_arn("home"))
    assert not is_allowed([only_inside_home], "s3:PutObject", s3_arn("elsewhere", "x"))


def test_string_like_on_s3_prefix():
    p = policy(allow("s3:ListBucket", "arn:aws:s3:::shared",
                     Condition={"StringLike": {"s3:prefix": ["home/alice/*", "public/"]}}))
    bucket = s3_arn("shared")
    assert is_allowed([p], "s3:ListBucket", bucket, {"s3:prefix": "home/alice/notes/"})
    assert is_allowed([p], "s3:ListBucket", bucket, {"s3:prefix": "public/"})
    assert not is_allowed([p], "s3:ListBucket", bucket, {"s3:prefix": "home/bob/"})
    assert not is_allowed([p], "s3:ListBucket", bucket, {"s3:prefix": "public/x"})
    assert not is_allowed([p], "s3:ListBucket", bucket)  # a positive operator needs the key
    # Context keys are case-insensitive, values are not.
    assert is_allowed([p], "s3:ListBucket", bucket, {"S3:Prefix": "home/alice/x"})
    assert not is_allowed([p], "s3:ListBucket", bucket, {"s3:prefix": "HOME/alice/x"})


def test_string_equals_is_literal_and_if_exists_accepts_absence():
    exact = policy(allow("s3:ListBucket", Condition={"StringEquals": {"s3:prefix": "a*"}}))
    assert is_allowed([exact], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "a*"})
    assert not is_allowed([exact], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "abc"})

    if_exists = policy(allow("s3:ListBucket", Condition={"StringEqualsIfExists": {"s3:delimiter": "/"}}))
    assert is_allowed([if_exists], "s3:ListBucket", "arn:aws:s3:::b")
    assert is_allowed([if_exists], "s3:ListBucket", "arn:aws:s3:::b", {"s3:delimiter": "/"})
    assert not is_allowed([if_exists], "s3:ListBucket", "arn:aws:s3:::b", {"s3:delimiter": "|"})

    ignore_case = policy(allow("s3:ListBucket", Condition={"StringEqualsIgnoreCase": {"s3:prefix": "ABC"}}))
    assert is_allowed([ignore_case], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "abc"})


def test_negated_operators_hold_when_the_key_is_absent():
    not_equals = policy(allow("s3:ListBucket", Condition={"StringNotEquals": {"s3:prefix": "private/"}}))
    assert is_allowed([not_equals], "s3:ListBucket", "arn:aws:s3:::b")
    assert is_allowed([not_equals], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "public/"})
    assert not is_allowed([not_equals], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "private/"})

    outside_ok = {"StringNotLike": {"s3:prefix": "ok/*"}}
    not_like = policy(allow("s3:*"), deny("s3:ListBucket", Condition=outside_ok))
    assert is_allowed([not_like], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "ok/1"})
    assert not is_allowed([not_like], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "bad/1"})
    assert not is_allowed([not_like], "s3:ListBucket", "arn:aws:s3:::b")  # absent: the Deny applies


def test_null_condition_and_several_conditions_are_anded():
    must_have_prefix = policy(allow("s3:ListBucket", Condition={"Null": {"s3:prefix": "false"}}))
    assert is_allowed([must_have_prefix], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": ""})
    assert not is_allowed([must_have_prefix], "s3:ListBucket", "arn:aws:s3:::b")

    both = policy(allow("s3:ListBucket", Condition={
        "StringLike": {"s3:prefix": "data/*"},
        "StringEquals": {"s3:delimiter": "/"},
    }))
    assert is_allowed([both], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "data/x", "s3:delimiter": "/"})
    assert not is_allowed([both], "s3:ListBucket", "arn:aws:s3:::b", {"s3:prefix": "data/x"})


def test_policy_variables_in_resources_and_conditions():
    home = policy(
        allow("s3:*", "arn:aws:s3:::home/${aws:username}/*"),
        allow("s3:ListBucket", "arn:aws:s3:::home",
              Condition={"StringLike": {"s3:prefix": "${aws:username}/*"}}),
    )
    alice = {"aws:username": "alice"}
    assert is_allowed([home], "s3:PutObject", s3_arn("home", "alice/x"), alice)
    assert not is_allowed([home], "s3:PutObject", s3_arn("home", "bob/x"), alice)
    assert not is_allowed([home], "s3:PutObject", s3_arn("home", "alice/x"))  # no user, no match
    assert is_allowed([home], "s3:ListBucket", s3_arn("home"), {**alice, "s3:prefix": "alice/docs/"})
    assert not is_allowed([home], "s3:ListBucket", s3_arn("home"), {**alice, "s3:prefix": "bob/"})
    # A substituted value is literal: a user name cannot smuggle in a wildcard.
    assert not is_allowed([home], "s3:PutObject", s3_arn("home", "bob/x"), {"aws:username": "*"})
    literal_star = policy(allow("s3:GetObject", "arn:aws:s3:::b/${*}"))
    assert is_allowed([literal_star], "s3:GetObject", "arn:aws:s3:::b/*")
    assert not is_allowed([literal_star], "s3:GetObject", "arn:aws:s3:::b/x")


READ_ONLY_WAREHOUSE = (
    '{"Version":"2012-10-17","Statement":[{"Sid":"S3TablesReadOnlyWarehouse","Effect":"Allow","Action":'
    '["s3tables:GetTableBucket","s3tables:ListNamespaces","s3tables:GetNamespace","s3tables:ListTables",'
    '"s3tables:GetTable"],"Resource":["arn:aws:s3tables:::bucket/my-warehouse",'
    '"arn:aws:s3tables:::bucket/my-warehouse/table/*"]}]}'
)


def test_s3tables_read_only_warehouse_policy_from_the_docs():
    p = Policy.parse(READ_ONLY_WAREHOUSE)
    wh = warehouse_arn("my-warehouse")
    for action in ("s3tables:GetTableBucket", "s3tables:ListNamespaces", "s3tables:GetNamespace",
                   "s3tables:ListTables"):
        assert is_allowed([p], action, wh), action
    assert is_allowed([p], "s3tables:GetTable", table_arn("my-warehouse", "sales", "orders"))
    assert not is_allowed([p], "s3tables:CreateTable", table_arn("my-warehouse", "sales", "new"))
    assert not is_allowed([p], "s3tables:DeleteTable", table_arn("my-warehouse", "sales", "orders"))
    assert not is_allowed([p], "s3tables:CreateNamespace", wh)
    assert not is_allowed([p], "s3tables:GetTable", table_arn("other-warehouse", "sales", "orders"))
    assert not is_allowed([p], "s3tables:GetTable", table_arn("my-warehouse-2", "sales", "orders"))
    assert not is_allowed([p], "s3:GetObject", s3_arn("my-warehouse", "x"))


def test_admin_actions_are_not_scoped_by_resource():
    admin_only = policy({"Effect": "Allow", "Action": ["admin:ListUsers"]})  # no Resource: admin-only
    assert is_allowed([admin_only], "admin:ListUsers", "*")
    assert not is_allowed([admin_only], "admin:CreateUser", "*")
    assert not is_allowed([admin_only], "s3:GetObject", "arn:aws:s3:::b/k")
    scoped = policy(allow(["admin:*", "s3:*"], "arn:aws:s3:::*"))
    assert is_allowed([scoped], "admin:CreateUser", "*")


def test_builtin_policies():
    consoleadmin, readonly = BUILTIN_POLICIES["consoleAdmin"], BUILTIN_POLICIES["readonly"]
    assert is_allowed([consoleadmin], "admin:CreateUser", "*")
    assert is_allowed([consoleadmin], "s3tables:CreateTable", table_arn("w", "n", "t"))
    assert is_allowed([readonly], "s3:GetObject", s3_arn("b", "k"))
    assert is_allowed([readonly], "s3:ListBucket", s3_arn("b"))
    assert not is_allowed([readonly], "s3:PutObject", s3_arn("b", "k"))
    assert is_allowed([BUILTIN_POLICIES["writeonly"]], "s3:PutObject", s3_arn("b", "k"))
    assert not is_allowed([BUILTIN_POLICIES["writeonly"]], "s3:GetObject", s3_arn("b", "k"))
    assert is_allowed([BUILTIN_POLICIES["readwrite"]], "s3:DeleteObject", s3_arn("b", "k"))
    assert not is_allowed([BUILTIN_POLICIES["readwrite"]], "admin:CreateUser", "*")


# -- validation -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ({"Version": "2012-10-17"}, "Statement is required"),
        ({"Statement": []}, "Statement is required"),
        ({"Version": "2020-01-01", "Statement": [allow("s3:*")]}, "Version must be"),
        ({"Statement": [{"Effect": "Alow", "Action": "s3:*", "Resource": "*"}]}, 'Effect must be "Allow"'),
        ({"Statement": [{"Effect": "Allow", "Resource": "*"}]}, "Action or NotAction is required"),
        ({"Statement": [{"Effect": "Allow", "Action": "s3:GetObject"}]},
         "Resource or NotResource is required"),
        ({"Statement": [{"Effect": "Allow", "Action": [], "Resource": "*"}]}, "Action must be a non-empty"),
        ({"Statement": [allow("s3:*", Principal="*")]}, "Principal is not allowed"),
        ({"Statement": [allow("s3:*", NotAction="s3:Get*")]}, "not both"),
        ({"Statement": [allow("s3GetObject")]}, "is not an action"),
        ({"Statement": [allow("s3:GetObject", "bucket/*")]}, "is not an ARN"),
        ({"Statement": [allow("s3:*", Condition={"DateLessThan": {"aws:CurrentTime": "2030-01-01T00:00:00Z"}})]},
         "unsupported condition operator 'DateLessThan'"),
        ({"Statement": [allow("s3:*", Condition={"NullIfExists": {"s3:prefix": "true"}})]},
         "unsupported condition operator"),
        ({"Statement": [allow("s3:*", Condition={"Null": {"s3:prefix": "maybe"}})]}, "Null takes one value"),
        ({"Statement": [allow("s3:*", Sid="a"), allow("s3:*", Sid="a")]}, "Sid values must be unique"),
        ({"Statement": [allow("s3:*", Sids="a")]}, "unknown element(s) Sids"),
        ({"Statement": {"Effect": "Allow", "Action": "s3:*", "Resource": "*"}, "Extra": 1},
         "unknown policy element(s) Extra"),
    ],
)
def test_malformed_policies_are_refused_with_a_clear_message(document, message):
    with pytest.raises(MalformedPolicy) as caught:
        Policy.parse(document if isinstance(document, str) else json.dumps(document))
    assert message in caught.value.message
    assert caught.value.code == "MalformedPolicy" and caught.value.status == 400


def test_statement_may_be_a_single_object():
    p = Policy.parse('{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}')
    assert is_allowed([p], "s3:GetObject", "arn:aws:s3:::b/k")


# -- users, keys and named policies on a real store -------------------------------------------------
@pytest.fixture
def store(tmp_path):
    from aistor_lab.store.local import LocalStore

    local = LocalStore(tmp_path / "data")
    yield local
    local.close()


@pytest.fixture
def iam(store):
    return IAM(store, ROOT, ROOT_SECRET)


def test_root_user_may_do_everything_and_cannot_be_changed(iam):
    assert iam.is_root(ROOT) and not iam.is_root("alice")
    assert iam.secret_for(ROOT) == ROOT_SECRET
    assert iam.is_allowed(ROOT, "admin:DeleteUser", "*")
    assert iam.is_allowed(ROOT, "s3:DeleteBucket", s3_arn("anything"))
    with pytest.raises(UserAlreadyExists):
        iam.create_user(ROOT, "whatever-secret")
    for change in (iam.delete_user, lambda ak: iam.set_user_status(ak, "disabled"),
                   lambda ak: iam.attach_policy(ak, "readonly")):
        with pytest.raises(InvalidArgument):
            change(ROOT)
    assert iam.secret_for(ROOT) == ROOT_SECRET
    assert all(user["accessKey"] != ROOT for user in iam.list_users())


def test_user_lifecycle(iam, store):
    info = iam.create_user("alice", "alice-secret", ["readonly"])
    assert info["accessKey"] == "alice" and info["status"] == "enabled" and info["policies"] == ["readonly"]
    assert "secretKey" not in info
    assert iam.secret_for("alice") == "alice-secret"
    assert iam.is_allowed("alice", "s3:GetObject", s3_arn("b", "k"))
    assert not iam.is_allowed("alice", "s3:PutObject", s3_arn("b", "k"))

    iam.attach_policy("alice", "readwrite")
    iam.attach_policy("alice", "readwrite")  # attaching again changes nothing
    assert iam.get_user("alice")["policies"] == ["readonly", "readwrite"]
    assert iam.is_allowed("alice", "s3:PutObject", s3_arn("b", "k"))
    iam.detach_policy("alice", "readwrite")
    assert not iam.is_allowed("alice", "s3:PutObject", s3_arn("b", "k"))

    assert iam.set_user_status("alice", "disabled")["status"] == "disabled"
    assert iam.secret_for("alice") is None
    assert not iam.is_allowed("alice", "s3:GetObject", s3_arn("b", "k"))
    iam.set_user_status("alice", "enabled")
    assert iam.secret_for("alice") == "alice-secret"
    with pytest.raises(InvalidArgument):
        iam.set_user_status("alice", "paused")

    iam.create_user("bob", "bob-secret-1")
    listed = iam.list_users()
    assert [u["accessKey"] for u in listed] == ["alice", "bob"]
    assert "secret" not in json.dumps(listed)  # no secret, under any name, in listings

    # The state is a JSON document in the system bucket (the secret sealed), which a fresh instance reads.
    _, raw = store.get_bytes(SYSTEM_BUCKET, "iam/users/alice.json")
    assert json.loads(raw)["accessKey"] == "alice" and b"alice-secret" not in raw
    assert IAM(store, ROOT, ROOT_SECRET).secret_for("bob") == "bob-secret-1"

    iam.delete_user("alice")
    assert iam.secret_for("alice") is None
    assert not iam.is_allowed("alice", "s3:GetObject", s3_arn("b", "k"))
    with pytest.raises(NoSuchUser):
        iam.get_user("alice")
    with pytest.raises(NoSuchUser):
        iam.delete_user("alice")
    with pytest.raises(NoSuchUser):
        iam.attach_policy("alice", "readonly")


@pytest.mark.parametrize(
    ("access_key", "secret_key"),
    [("ab", "long-enough"), ("a" * 129, "long-enough"), ("has/slash", "long-enough"),
     ("has space", "long-enough"), ("alice", "short"), ("alice", "has space in it"), (None, "long-enough")],
)
def test_invalid_keys_are_refused(iam, access_key, secret_key):
    with pytest.raises(InvalidArgument):
        iam.create_user(access_key, secret_key)
    assert iam.list_users() == []


def test_create_user_conflicts_and_unknown_policies_change_nothing(iam):
    iam.create_user("carol", "carol-secret")
    with pytest.raises(UserAlreadyExists):
        iam.create_user("carol", "another-secret")
    assert iam.secret_for("carol") == "carol-secret"
    with pytest.raises(NoSuchPolicy):
        iam.create_user("dave", "dave-secret", ["no-such-policy"])
    with pytest.raises(NoSuchUser):
        iam.get_user("dave")


def test_unknown_or_forged_access_keys_are_simply_unknown(iam):
    for forged in ("nobody", "../../etc/passwd", "", "a" * 500):
        assert iam.secret_for(forged) is None
        assert not iam.is_allowed(forged, "s3:GetObject", s3_arn("b", "k"))


def test_named_policy_lifecycle(iam):
    names = {p["name"]: p["builtin"] for p in iam.list_policies()}
    assert {"readwrite", "readonly", "writeonly", "consoleAdmin"} <= {n for n, b in names.items() if b}

    created = iam.put_policy("warehouse-ro", READ_ONLY_WAREHOUSE)
    assert created["policy"]["Statement"][0]["Sid"] == "S3TablesReadOnlyWarehouse"
    assert iam.get_policy("warehouse-ro")["policy"] == json.loads(READ_ONLY_WAREHOUSE)
    assert {"name": "warehouse-ro", "builtin": False} in iam.list_policies()

    iam.create_user("erin", "erin-secret", ["warehouse-ro"])
    assert iam.is_allowed("erin", "s3tables:GetTable", table_arn("my-warehouse", "n", "t"))
    assert not iam.is_allowed("erin", "s3:GetObject", s3_arn("my-warehouse", "k"))

    # A malformed replacement is refused and the stored policy stays as it was.
    with pytest.raises(MalformedPolicy):
        iam.put_policy("warehouse-ro", '{"Statement": [{"Effect": "Allow"}]}')
    assert iam.is_allowed("erin", "s3tables:GetTable", table_arn("my-warehouse", "n", "t"))

    iam.put_policy("warehouse-ro", {"Version": "2012-10-17", "Statement": [allow("s3:GetObject")]})
    assert iam.is_allowed("erin", "s3:GetObject", s3_arn("my-warehouse", "k"))
    assert not iam.is_allowed("erin", "s3tables:GetTable", table_arn("my-warehouse", "n", "t"))

    with pytest.raises(PolicyInUse) as in_use:
        iam.delete_policy("warehouse-ro")
    assert "erin" in in_use.value.message and in_use.value.status == 409
    iam.detach_policy("erin", "warehouse-ro")
    iam.delete_policy("warehouse-ro")
    with pytest.raises(NoSuchPolicy):
        iam.get_policy("warehouse-ro")
    with pytest.raises(NoSuchPolicy):
        iam.delete_policy("warehouse-ro")
    with pytest.raises(NoSuchPolicy):
        iam.attach_policy("erin", "warehouse-ro")


def test_builtin_policies_cannot_be_replaced_or_deleted(iam):
    for change in (lambda: iam.put_policy("readwrite", READ_ONLY_WAREHOUSE),
                   lambda: iam.delete_policy("consoleAdmin")):
        with pytest.raises(InvalidArgument):
            change()
    assert iam.get_policy("readwrite")["builtin"] is True
    with pytest.raises(InvalidArgument):
        iam.put_policy("bad/name", READ_ONLY_WAREHOUSE)


# -- several instances on one store ------------------------------------------------------------------
class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_two_instances_converge_after_the_ttl(store):
    clock = Clock()
    a = IAM(store, ROOT, ROOT_SECRET, cache_ttl=2.0, clock=clock)
    b = IAM(store, ROOT, ROOT_SECRET, cache_ttl=2.0, clock=clock)

    assert b.secret_for("frank") is None  # b now remembers that frank is unknown
    a.create_user("frank", "frank-secret", ["readonly"])
    assert a.secret_for("frank") == "frank-secret"  # the writer sees its own write at once
    assert b.secret_for("frank") is None  # b serves from its cache within the TTL...
    clock.now += 2.5
    assert b.secret_for("frank") == "frank-secret"  # ...and converges after it

    assert not b.is_allowed("frank", "s3:PutObject", s3_arn("b", "k"))
    a.attach_policy("frank", "readwrite")
    a.set_user_status("frank", "disabled")
    clock.now += 2.5
    assert b.secret_for("frank") is None
    a.set_user_status("frank", "enabled")
    clock.now += 2.5
    assert b.is_allowed("frank", "s3:PutObject", s3_arn("b", "k"))

    a.put_policy("only-logs", {"Statement": [allow("s3:GetObject", "arn:aws:s3:::logs/*")]})
    a.attach_policy("frank", "only-logs")
    a.detach_policy("frank", "readwrite")
    a.detach_policy("frank", "readonly")
    clock.now += 2.5
    assert b.is_allowed("frank", "s3:GetObject", s3_arn("logs", "x"))
    assert not b.is_allowed("frank", "s3:GetObject", s3_arn("data", "x"))
    a.put_policy("only-logs", {"Statement": [allow("s3:GetObject", "arn:aws:s3:::data/*")]})
    clock.now += 2.5
    assert b.is_allowed("frank", "s3:GetObject", s3_arn("data", "x"))

    b.delete_user("frank")
    clock.now += 2.5
    assert a.secret_for("frank") is None


def test_concurrent_attachments_from_two_instances_are_all_kept(store):
    a, b = IAM(store, ROOT, ROOT_SECRET), IAM(store, ROOT, ROOT_SECRET)
    a.create_user("gina", "gina-secret")
    names = [f"p{i}" for i in range(12)]
    for name in names:
        a.put_policy(name, {"Statement": [allow("s3:GetObject", f"arn:aws:s3:::{name}/*")]})
    errors: list[Exception] = []

    def attach_all(instance: IAM, mine: list[str]) -> None:
        try:
            for name in mine:
                instance.attach_policy("gina", name)
        except IAMError as exc:  # pragma: no cover - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=attach_all, args=(a, names[0::2])),
               threading.Thread(target=attach_all, args=(b, names[1::2]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(a.get_user("gina")["policies"]) == sorted(names)


# -- the admin HTTP API, against a real server ---------------------------------------------------------
def unique(prefix: str) -> str:
    import uuid

    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_admin_api_user_and_policy_lifecycle(server):
    user, policy_name = unique("user"), unique("pol")
    status, created = admin_call(server, "POST", "/users",
                                 {"accessKey": user, "secretKey": "user-secret-1", "policies": ["readonly"]})
    assert status == 201 and created["accessKey"] == user and created["policies"] == ["readonly"]
    assert "secretKey" not in created

    status, listed = admin_call(server, "GET", "/users")
    assert status == 200 and user in [u["accessKey"] for u in listed]
    assert "user-secret-1" not in json.dumps(listed)
    assert admin_call(server, "GET", f"/users/{user}")[1]["status"] == "enabled"
    status, error = admin_call(server, "POST", "/users", {"accessKey": user, "secretKey": "other-secret"})
    assert (status, error["code"]) == (409, "UserAlreadyExists")

    status, error = admin_call(server, "PUT", f"/policies/{policy_name}", '{"Statement": [{"Effect": "?"}]}')
    assert (status, error["code"]) == (400, "MalformedPolicy") and "Effect" in error["message"]
    status, stored = admin_call(server, "PUT", f"/policies/{policy_name}", READ_ONLY_WAREHOUSE)
    assert status == 200 and stored["name"] == policy_name
    fetched = admin_call(server, "GET", f"/policies/{policy_name}")[1]
    assert fetched["policy"] == json.loads(READ_ONLY_WAREHOUSE)
    names = {p["name"] for p in admin_call(server, "GET", "/policies")[1]}
    assert {policy_name, "readwrite", "consoleAdmin"} <= names

    status, attached = admin_call(server, "POST", f"/users/{user}/policies/{policy_name}")
    assert status == 200 and attached["policies"] == ["readonly", policy_name]
    status, error = admin_call(server, "DELETE", f"/policies/{policy_name}")
    assert (status, error["code"]) == (409, "PolicyInUse")
    detached = admin_call(server, "DELETE", f"/users/{user}/policies/{policy_name}")[1]
    assert detached["policies"] == ["readonly"]
    assert admin_call(server, "DELETE", f"/policies/{policy_name}") == (204, None)
    assert admin_call(server, "GET", f"/policies/{policy_name}")[0] == 404

    status, changed = admin_call(server, "PUT", f"/users/{user}/status", {"status": "disabled"})
    assert status == 200 and changed["status"] == "disabled"
    assert admin_call(server, "PUT", f"/users/{user}/status", {"status": "off"})[0] == 400
    assert admin_call(server, "DELETE", f"/users/{user}") == (204, None)
    status, error = admin_call(server, "GET", f"/users/{user}")
    assert (status, error["code"]) == (404, "NoSuchUser")


def test_admin_api_requires_a_valid_signature_and_admin_permission(server):
    status, error = admin_call(server, "GET", "/users", credentials=(DEFAULT_ROOT_USER, "wrong-secret"))
    assert status == 403 and error["code"] and error["message"]

    reader = unique("reader")
    admin_call(server, "POST", "/users", {"accessKey": reader, "secretKey": "reader-secret"})
    status, error = admin_call(server, "GET", "/users", credentials=(reader, "reader-secret"))
    assert (status, error["code"]) == (403, "AccessDenied")

    # A user allowed to list and create users, but not to grant policies.
    helper, helper_policy = unique("helper"), unique("user-admin")
    admin_call(server, "PUT", f"/policies/{helper_policy}",
               {"Statement": [{"Effect": "Allow", "Action": ["admin:ListUsers", "admin:CreateUser"]}]})
    admin_call(server, "POST", "/users",
               {"accessKey": helper, "secretKey": "helper-secret", "policies": [helper_policy]})
    as_helper = (helper, "helper-secret")
    assert admin_call(server, "GET", "/users", credentials=as_helper)[0] == 200
    assert admin_call(server, "POST", "/users", {"accessKey": unique("u"), "secretKey": "some-secret"},
                      credentials=as_helper)[0] == 201
    escalation = {"accessKey": unique("u"), "secretKey": "some-secret", "policies": ["consoleAdmin"]}
    status, error = admin_call(server, "POST", "/users", escalation, credentials=as_helper)
    assert (status, error["code"]) == (403, "AccessDenied")
    assert admin_call(server, "DELETE", f"/users/{reader}", credentials=as_helper)[0] == 403

    # A disabled user's key no longer authenticates.
    admin_call(server, "PUT", f"/users/{helper}/status", {"status": "disabled"})
    status, error = admin_call(server, "GET", "/users", credentials=as_helper)
    assert status == 403 and error["code"] != "AccessDenied"  # refused at authentication


def test_admin_api_errors_are_json(server):
    status, error = admin_call(server, "GET", "/no-such-thing")
    assert (status, error["code"]) == (404, "NotFound")
    status, error = admin_call(server, "PATCH", "/users")
    assert status == 405 and error["code"] == "MethodNotAllowed"
    status, error = admin_call(server, "POST", "/users", b"not json")
    assert (status, error["code"]) == (400, "InvalidArgument")
