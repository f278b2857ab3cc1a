"""The sharing service's pieces on their own: table specs, predicate evaluation, presigned URLs
(checked by the S3 API's own verifier), page tokens, and the Delta log reader on a real local store."""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from aistor_lab.auth import AuthError, verify_request
from aistor_lab.auth.canonical import aws_encode
from aistor_lab.sharing import predicates
from aistor_lab.sharing.delta_log import DeltaLogSource
from aistor_lab.sharing.errors import InternalError, InvalidParameter, NotFound, UnsupportedOperation
from aistor_lab.sharing.presign import Presigner
from aistor_lab.sharing.protocol import Capabilities, PageTokens
from aistor_lab.sharing.shares import TableSpec
from aistor_lab.sharing.source import FileAction
from aistor_lab.sharing.tokens import parse_duration
from aistor_lab.store import LocalStore
from aistor_lab.store.locations import Scope


def test_table_specs():
    delta = TableSpec.parse("employees:delta:analytics:employees/")
    assert (delta.kind, delta.bucket, delta.path, delta.location) == ("delta", "analytics", "employees",
                                                                     "s3://analytics/employees")
    uniform = TableSpec.parse("revenue:uniform:warehouse-bucket:analytics.sales:revenue")
    assert (uniform.warehouse, uniform.namespace, uniform.table) == ("warehouse-bucket", ("analytics", "sales"),
                                                                      "revenue")
    assert uniform.spec() == "revenue:uniform:warehouse-bucket:analytics.sales:revenue"
    assert TableSpec.parse_with_schema("tpch:customer:uniform:testice:tpch:customer")[0] == "tpch"
    schema, orders = TableSpec.parse_with_schema("tpch:orders:delta:testdelta:tpch/orders")
    assert (schema, orders.name, orders.path) == ("tpch", "orders", "tpch/orders")
    for bad in ("t:delta:b", "t:delta:Bad_Bucket:p", "t:iceberg:w:n:t", "t.x:delta:bucket:p", "t:uniform:w:a..b:t", 7,
                "t:delta:bucket:a/../b", "t:delta:bucket:./t", "t:delta:bucket:t/.."):
        with pytest.raises(InvalidParameter):
            TableSpec.parse(bad)


def _file(partition: dict | None = None, stats: dict | None = None) -> FileAction:
    return FileAction("add", "s3://b/t/f.parquet", 1, partition or {}, json.dumps(stats) if stats else None)


def _column(name: str, kind: str) -> dict:
    return {"op": "column", "name": name, "valueType": kind}


def _literal(value: str, kind: str) -> dict:
    return {"op": "literal", "value": value, "valueType": kind}


def _may_match(tree: dict, action: FileAction, partitions=("d",)) -> bool:
    return predicates.Evaluator(tree, list(partitions), {}).may_match(action)


def test_predicates_on_partitions_and_stats():
    day = _file({"d": "2021-04-29"}, {"numRecords": 10, "minValues": {"id": 5}, "maxValues": {"id": 9},
                                      "nullCount": {"id": 0}})
    equal_day = {"op": "equal", "children": [_column("d", "date"), _literal("2021-04-29", "date")]}
    assert _may_match(equal_day, day)
    assert not _may_match({**equal_day, "children": [_column("d", "date"), _literal("2021-04-30", "date")]}, day)
    below = {"op": "lessThan", "children": [_column("id", "int"), _literal("5", "int")]}
    assert not _may_match(below, day)
    assert _may_match({**below, "op": "lessThanOrEqual"}, day)
    assert not _may_match({"op": "greaterThan", "children": [_literal("5", "int"), _column("id", "int")]}, day)
    # NOT of a comparison that only may hold must not prune: the file can hold other values.
    inside = {"op": "equal", "children": [_column("id", "int"), _literal("7", "int")]}
    assert _may_match({"op": "not", "children": [inside]}, day)
    # ... but NOT of one that holds for every row prunes.
    assert not _may_match({"op": "not", "children": [equal_day]}, day)
    assert not _may_match({"op": "and", "children": [equal_day, below]}, day)
    assert _may_match({"op": "or", "children": [below, inside]}, day)
    null_day = _file({"d": None})
    assert _may_match({"op": "isNull", "children": [_column("d", "date")]}, null_day)
    assert not _may_match(equal_day, null_day)
    assert not _may_match({"op": "isNull", "children": [_column("id", "int")]}, day)


def test_one_evaluator_judges_each_partition_of_many_files():
    """The evaluator keeps each partition's verdict: files met later, in any order of their partition
    values, with nulls, must still get their own partition's verdict."""
    in_range = {"op": "and", "children": [
        {"op": "greaterThanOrEqual", "children": [_column("d", "int"), _literal("3", "int")]},
        {"op": "lessThan", "children": [_column("d", "int"), _literal("5", "int")]}]}
    evaluator = predicates.Evaluator(in_range, ["d", "e"], {})
    files = [_file({"d": str(d % 7), "e": "x"}) for d in range(70)] + [_file({"e": "x", "d": "4"}),
                                                                        _file({"d": None, "e": "x"})]
    kept = [f.partition_values["d"] for f in files if evaluator.may_match(f)]
    assert kept == ["3", "4"] * 10 + ["4"]
    with_stats = {"op": "and", "children": [in_range, {"op": "lessThan", "children": [_column("id", "int"),
                                                                                    _literal("5", "int")]}]}
    evaluator = predicates.Evaluator(with_stats, ["d"], {})
    low, high = ({"numRecords": 1, "minValues": {"id": v}, "maxValues": {"id": v}} for v in (1, 9))
    assert [evaluator.may_match(_file({"d": d}, stats)) for d, stats in
            (("3", low), ("3", high), ("5", low), ("4", low), ("5", low), ("4", high))] == [
        True, False, False, True, False, False]


def test_predicates_that_cannot_be_judged_keep_files():
    no_stats = _file({"d": "x"})
    assert _may_match({"op": "equal", "children": [_column("id", "int"), _literal("1", "int")]}, no_stats)
    wrong_type = {"op": "equal", "children": [_column("d", "int"), _literal("1", "int")]}
    assert _may_match(wrong_type, no_stats)
    assert _may_match({"op": "frobnicate", "children": []}, no_stats)
    timestamps = _file(stats={"numRecords": 1, "minValues": {"ts": "2021-04-28T23:33:57.955Z"},
                              "maxValues": {"ts": "2021-04-28T23:33:57.955Z"}, "nullCount": {"ts": 0}})
    # Stats are truncated to milliseconds: a microsecond later may still be in the file.
    later = {"op": "equal", "children": [_column("ts", "timestamp"), _literal("2021-04-28T23:33:57.955500Z",
                                                                               "timestamp")]}
    assert _may_match(later, timestamps, partitions=())
    assert predicates.parse("{bad") is None
    assert predicates.parse(json.dumps({"op": "equal", "children": [_column("a", "int")]})) is None
    assert predicates.parse(json.dumps({"op": "column", "name": "a", "valueType": "bool"})) is not None


def test_presigned_urls_verify_with_the_s3_verifier():
    presigner = Presigner("http://localhost:9000/delta-sharing", "minioadmin", "minioadmin", expiry_seconds=600)
    signer = presigner.signer(Scope("bucket", "dir"), now=1_700_000_000)
    url = signer.url("s3://bucket/dir/part=a b/ünï+code.parquet")
    parts = urlsplit(url)
    assert parts.netloc == "localhost:9000" and "X-Amz-Signature=" in parts.query
    assert signer.expiration_ms == (1_700_000_000 + 600) * 1000
    secrets = {"minioadmin": "minioadmin"}.get
    headers = {"host": "localhost:9000"}
    result = verify_request("GET", parts.path, parts.query, headers, secrets, service="s3", now=1_700_000_100)
    assert result.access_key == "minioadmin"
    for method, now in (("HEAD", 1_700_000_100), ("GET", 1_700_000_601)):
        with pytest.raises(AuthError):
            verify_request(method, parts.path, parts.query, headers, secrets, service="s3", now=now)
    assert urlsplit(Presigner("https://example.com:443", "a", "b").signer(Scope("b", "t")).url("s3://b/t/k")
                    ).netloc == "example.com"
    # The signer holds the server's own credentials: it signs nothing outside the table's scope.
    for outside in ("s3://bucket/dir2/x", "s3://other/dir/x", "s3://bucket/dir/../x", "s3://bucket/dir/", "/dir/x"):
        with pytest.raises(UnsupportedOperation, match="outside its location"):
            signer.url(outside)


def test_presigned_paths_are_the_sigv4_encoding_of_the_keys():
    signer = Presigner("http://localhost:9000", "minioadmin", "minioadmin").signer(Scope("bucket", "dir"),
                                                                                   now=1_700_000_000)
    every_ascii = "".join(chr(c) for c in range(1, 128) if chr(c) != "/")
    for key in (f"dir/{every_ascii}", "dir/day=7/part-0.snappy.parquet", "dir/plain/x.parquet", "dir/ünï/a b"):
        parts = urlsplit(signer.url(f"s3://bucket/{key}"))
        assert parts.path == aws_encode(f"/bucket/{key}", keep_slash=True)
        result = verify_request("GET", parts.path, parts.query, {"host": "localhost:9000"},
                                {"minioadmin": "minioadmin"}.get, service="s3", now=1_700_000_100)
        assert result.access_key == "minioadmin"


def test_page_tokens_and_capabilities():
    tokens = PageTokens(b"secret")
    token = tokens.encode({"k": "query", "o": 5})
    assert tokens.decode(token, "query")["o"] == 5
    for bad in (token + "x", token.replace(".", ""), None, 5, PageTokens(b"other").encode({"k": "query"})):
        with pytest.raises(InvalidParameter):
            tokens.decode(bad, "query")
    with pytest.raises(InvalidParameter):
        tokens.decode(token, "changes")
    caps = Capabilities.parse("responseformat=delta,parquet;readerfeatures=deletionvectors,ColumnMapping")
    assert caps.formats == ("delta", "parquet") and caps.reader_features == {"deletionvectors", "columnmapping"}
    assert Capabilities.parse(None).formats == ("parquet",)
    assert Capabilities.parse("includeEndStreamAction=true").include_end_stream
    assert parse_duration("30d") == 30 * 86400 and parse_duration("12h") == 43200 and parse_duration("90") == 90


@pytest.fixture
def store(tmp_path):
    store = LocalStore(tmp_path / "store")
    store.create_bucket("b")
    yield store
    store.close()


def _commit(store, version: int, *actions: dict, root: str = "t") -> None:
    store.put_bytes("b", f"{root}/_delta_log/{version:020d}.json", "\n".join(map(json.dumps, actions)).encode())


PROTOCOL = {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}
METADATA = {"metaData": {"id": "x", "format": {"provider": "parquet"}, "partitionColumns": [],
                         "schemaString": '{"type":"struct","fields":[]}', "configuration": {}}}


def test_delta_log_paths_and_reconciliation(store):
    _commit(store, 0, PROTOCOL, METADATA, {"add": {"path": "a%20b.parquet", "size": 1, "partitionValues": {},
                                                   "modificationTime": 0, "dataChange": True}})
    _commit(store, 1, {"add": {"path": "c.parquet", "size": 2, "partitionValues": {}, "dataChange": True}},
            {"remove": {"path": "a%20b.parquet", "dataChange": True}})
    source = DeltaLogSource(store, "b", "t")
    assert [f.path for f in source.table_version(0).files] == ["s3://b/t/a b.parquet"]
    assert [f.path for f in source.table_version(1).files] == ["s3://b/t/c.parquet"]
    assert source.version_timestamp(1) > source.version_timestamp(0)
    changes = list(source.changes(0))
    assert [[a.kind for a in c.actions] for c in changes] == [["add"], ["add", "remove"]]
    with pytest.raises(InvalidParameter):
        source.table_version(2)
    with pytest.raises(NotFound):
        DeltaLogSource(store, "b", "nothing-here").latest_version()


def test_delta_log_refuses_files_outside_the_table(store):
    _commit(store, 0, PROTOCOL, METADATA, {"add": {"path": "s3://b/elsewhere/secret.parquet", "size": 1,
                                                   "partitionValues": {}, "dataChange": True}})
    with pytest.raises(UnsupportedOperation):
        DeltaLogSource(store, "b", "t").table_version()


@pytest.mark.parametrize("sidecar", ["../../elsewhere/secret.parquet", "s3://b/elsewhere/secret.parquet",
                                     "s3://b/t2/_delta_log/_sidecars/x.parquet"])
def test_delta_checkpoint_sidecars_outside_the_table_are_not_read(store, sidecar):
    actions = [PROTOCOL, METADATA, {"checkpointMetadata": {"version": 0}},
               {"sidecar": {"path": sidecar, "sizeInBytes": 1, "modificationTime": 0}}]
    store.put_bytes("b", f"t/_delta_log/{0:020d}.checkpoint.{'0' * 8}-{'0' * 4}-{'0' * 4}-{'0' * 4}-{'0' * 12}.json",
                    "\n".join(map(json.dumps, actions)).encode())
    with pytest.raises(UnsupportedOperation, match="outside its location"):
        DeltaLogSource(store, "b", "t").table_version()


def test_parquet_checkpoints_are_read_without_pandas(tmp_path):
    """pyarrow's read_table imports pyarrow.dataset and with it pandas, some 50 MiB the server would
    keep for good: a checkpoint is read without them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    store = LocalStore(tmp_path / "store")
    store.create_bucket("b")
    add = {"path": "a.parquet", "size": 1, "partitionValues": [], "modificationTime": 0, "dataChange": True}
    columns = {"protocol": [PROTOCOL["protocol"], None, None],
               "metaData": [None, {**METADATA["metaData"], "configuration": []}, None], "add": [None, None, add]}
    checkpoint = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pydict(columns), checkpoint)
    store.put_bytes("b", f"t/_delta_log/{0:020d}.checkpoint.parquet", checkpoint.getvalue().to_pybytes())
    store.close()
    script = ("import sys; from pathlib import Path; import aistor_lab.service.app; "
              "from aistor_lab.store import LocalStore; from aistor_lab.sharing.delta_log import DeltaLogSource; "
              f"files = DeltaLogSource(LocalStore(Path({str(tmp_path / 'store')!r})), 'b', 't').table_version().files; "
              "print([f.path for f in files], 'pandas' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert result.stdout.split() == ["['s3://b/t/a.parquet']", "False"], result.stderr


def test_delta_log_with_a_gap_and_no_checkpoint_is_an_error(store):
    _commit(store, 0, PROTOCOL, METADATA)
    _commit(store, 2, {"add": {"path": "c.parquet", "size": 2, "partitionValues": {}, "dataChange": True}})
    with pytest.raises(InternalError):
        DeltaLogSource(store, "b", "t").table_version()
