"""Many servers, one truth: three ``aistor-lab server`` processes in front of one SeaweedFS cluster.

Commits through any of them land on one table without loss (the table pointer is a conditional write
on the shared store), a commit that lost a race on one server is refused and retried, what one server
changes in IAM and sharing the others honour within the stated cache bound, and a server killed in
the middle of commits loses no acknowledged commit and leaves no table pointing at a missing file.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest
import requests
from pyiceberg.catalog import Catalog, load_catalog
from pyiceberg.table import Table

from aistor_lab.store.cache import SHARED_STATE_SECONDS
from aistor_lab.workbench import spark as aistor_spark
from aistor_lab.workbench.jupyter.process import ServiceProcess
from aistor_lab.workbench.service_config import ServiceConfig
from aistor_lab.workbench.spark.jars import ensure_kit

from .conftest import (
    NO_BACKGROUND_MAINTENANCE,
    ROOT_PASSWORD,
    ROOT_USER,
    admin_call,
    catalog_call,
    make_s3_client,
    make_user,
    seed_catalog_properties,
)
from .peer_servers import ACCESS_KEY, SECRET_KEY
from .sharing_support import create_share, create_token
from .spark_support import run_spark_sql

SERVERS = 3
# What one server changes, another honours within the cache bound; the margin covers a loaded machine.
PROPAGATION_DEADLINE = SHARED_STATE_SECONDS + 5
# PyIceberg's commit retries (read from the table's properties): enough for three servers racing.
RETRIES = {"commit.retry.num-retries": "50", "commit.retry.min-wait-ms": "10", "commit.retry.max-wait-ms": "300"}
SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("writer", pa.string())])


def remote_env(endpoint: str) -> dict[str, str]:
    return {**NO_BACKGROUND_MAINTENANCE, "AISTOR_STORE_ENDPOINT": endpoint,
            "AISTOR_STORE_ACCESS_KEY": ACCESS_KEY, "AISTOR_STORE_SECRET_KEY": SECRET_KEY}


def start_server(seaweedfs: str, directory: Path) -> ServiceProcess:
    return ServiceProcess(directory, env=remote_env(seaweedfs), log_path=directory.with_suffix(".log")).start(60)


@pytest.fixture(scope="module")
def servers(seaweedfs, tmp_path_factory) -> Iterator[list[ServiceProcess]]:
    root = tmp_path_factory.mktemp("many-servers")
    started: list[ServiceProcess] = []
    try:
        for number in range(SERVERS):
            started.append(start_server(seaweedfs, root / f"server-{number}"))
        yield started
    finally:
        for server in started:
            server.stop()


@contextmanager
def shared_warehouse(servers: list[ServiceProcess]) -> Iterator[str]:
    """A warehouse created through the first server, with a namespace; force-deleted at the end."""
    name = f"many-{uuid.uuid4().hex[:8]}"
    status, body = catalog_call(servers[0], "POST", "/v1/warehouses", {"name": name})
    assert status == 200, body
    try:
        assert catalog_call(servers[0], "POST", f"/v1/{name}/namespaces", {"namespace": ["ns"]})[0] == 200
        yield name
    finally:
        assert catalog_call(servers[-1], "DELETE", f"/v1/warehouses/{name}?force=true")[0] == 204


def catalog_of(server: ServiceProcess, warehouse: str, name: str) -> Catalog:
    return load_catalog(name, **seed_catalog_properties(server, warehouse))


def rows(ids: range, writer: str) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "writer": [writer] * len(ids)}, schema=SCHEMA)


def run_threads(targets: list) -> None:
    threads = [threading.Thread(target=target) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


class Commits:
    """The first ids of the commits writers attempted and of those their server acknowledged."""

    def __init__(self) -> None:
        self.attempted: list[int] = []
        self.acknowledged: list[int] = []

    def append(self, table: Table, first: int, writer: str) -> None:
        self.attempted.append(first)
        table.append(rows(range(first, first + 10), writer))
        self.acknowledged.append(first)

    def check_landed(self, table: Table) -> set[int]:
        """Every acknowledged commit is in the table, whole, once; nothing that was not attempted is.
        Returns the first ids of the commits that landed (an unanswered one may have)."""
        ids = table.scan(selected_fields=("id",)).to_arrow()["id"].to_pylist()
        assert len(ids) == len(set(ids))
        landed = {i - i % 10 for i in ids}
        assert set(self.acknowledged) <= landed <= set(self.attempted)
        assert len(ids) == 10 * len(landed)  # whole commits only
        assert len(table.snapshots()) == len(landed)
        return landed


def test_concurrent_appends_through_three_servers_lose_no_commit(servers):
    commits = 6
    with shared_warehouse(servers) as warehouse:
        catalog_of(servers[0], warehouse, "creator").create_table("ns.appends", SCHEMA, properties=RETRIES)
        gate = threading.Barrier(SERVERS)
        errors: list[BaseException] = []
        made = Commits()

        def writer(number: int):
            table = catalog_of(servers[number], warehouse, f"writer-{number}").load_table("ns.appends")
            gate.wait()
            try:
                for commit in range(commits):
                    made.append(table, (number * commits + commit) * 10, f"server-{number}")
            except Exception as exc:  # noqa: BLE001 - asserted below
                errors.append(exc)

        run_threads([lambda n=n: writer(n) for n in range(SERVERS)])
        for server in servers:  # every server answers the same table
            table = catalog_of(server, warehouse, "reader").load_table("ns.appends")
            made.check_landed(table)
        check_no_missing_file(servers[0], table)
        assert errors == []
        assert len(made.acknowledged) == SERVERS * commits


def test_a_spark_job_and_pyiceberg_writers_append_through_different_servers(servers):
    """Spark (Iceberg's Java library) commits through the third server while PyIceberg writers commit
    through the other two, all to one table, until Spark's job is over: every commit of each lands,
    whole, once."""
    inserts, most = 4, 50
    with shared_warehouse(servers) as warehouse:
        catalog_of(servers[0], warehouse, "creator").create_table("ns.mixed", SCHEMA, properties=RETRIES)
        made = Commits()
        errors: list[BaseException] = []
        spark_firsts = [1000 + 10 * n for n in range(inserts)]

        def spark_job() -> None:
            conf = aistor_spark.spark_conf(warehouse, service=ServiceConfig(servers[2].endpoint, ROOT_USER,
                                                                            ROOT_PASSWORD), kit=ensure_kit())
            values = [", ".join(f"({i}, 'spark')" for i in range(first, first + 10)) for first in spark_firsts]
            made.attempted.extend(spark_firsts)
            try:
                run_spark_sql(conf, [f"INSERT INTO ns.mixed VALUES {v}" for v in values])
                made.acknowledged.extend(spark_firsts)
            except BaseException as exc:  # noqa: BLE001 - asserted below
                errors.append(exc)
            finally:
                spark_done.set()

        def writer(number: int) -> None:
            table = catalog_of(servers[number], warehouse, f"writer-{number}").load_table("ns.mixed")
            try:
                for commit in range(most):  # ids below Spark's 1000
                    if spark_done.is_set():
                        return
                    made.append(table, (number * most + commit) * 10, f"server-{number}")
            except Exception as exc:  # noqa: BLE001 - asserted below
                errors.append(exc)

        spark_done = threading.Event()
        run_threads([spark_job, lambda: writer(0), lambda: writer(1)])
        assert errors == []
        table = catalog_of(servers[1], warehouse, "reader").load_table("ns.mixed")
        assert made.check_landed(table) == set(made.attempted)
        assert set(spark_firsts) <= set(made.acknowledged) and len(made.acknowledged) > inserts
        check_no_missing_file(servers[0], table)


def test_a_commit_that_lost_a_race_on_another_server_is_refused_and_retried(servers, caplog):
    with shared_warehouse(servers) as warehouse:
        first = catalog_of(servers[0], warehouse, "first")
        first.create_table("ns.race", SCHEMA, properties=RETRIES)
        first_table = first.load_table("ns.race")
        late_table = catalog_of(servers[1], warehouse, "late").load_table("ns.race")  # stale after the next commit

        first_table.append(rows(range(5), "first"))
        winner = first_table.current_snapshot().snapshot_id
        # Raw: a third server refuses a commit whose requirement the winner made stale, changes nothing.
        status, error = catalog_call(servers[2], "POST", f"/v1/{warehouse}/namespaces/ns/tables/race", {
            "requirements": [{"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None}],
            "updates": [{"action": "set-properties", "updates": {"lost": "race"}}],
        })
        assert status == 409 and error["error"]["type"] == "CommitFailedException", error
        assert "lost" not in catalog_of(servers[2], warehouse, "check").load_table("ns.race").properties

        # PyIceberg: the stale table's append (its requirement: no snapshot yet) is refused, and
        # PyIceberg refreshes the table and commits it again over the winner's snapshot.
        with caplog.at_level("WARNING", logger="pyiceberg.table"):
            late_table.append(rows(range(5, 10), "late"))
        assert [r.message for r in caplog.records if "concurrent update, retrying" in r.message] != []
        table = catalog_of(servers[2], warehouse, "reader").load_table("ns.race")
        assert sorted(table.scan().to_arrow()["id"].to_pylist()) == list(range(10))
        assert table.snapshots()[0].snapshot_id == winner
        assert table.current_snapshot().parent_snapshot_id == winner


def wait_until(condition, deadline: float = PROPAGATION_DEADLINE) -> float:
    """Seconds until ``condition()`` held; fails at ``deadline``."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < deadline, f"not seen within {deadline} s"
        time.sleep(0.1)
    return time.monotonic() - start


def lists_buckets(server: ServiceProcess, key: str, secret: str) -> bool:
    try:
        make_s3_client(server.endpoint, key, secret).list_buckets()
        return True
    except Exception:  # noqa: BLE001 - refused: not (yet) a user there, or disabled
        return False


def test_iam_changes_on_one_server_are_honoured_by_the_others_within_the_bound(servers):
    one, two, three = servers
    everything = {"Version": "2012-10-17",
                  "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::*"}]}
    user, secret = make_user(one, everything)
    for other in (two, three):
        wait_until(lambda other=other: lists_buckets(other, user, secret))

    # Disabled on the second server: refused everywhere within the bound.
    assert admin_call(two, "PUT", f"/users/{user}/status", {"status": "disabled"})[0] == 200
    for server in servers:
        wait_until(lambda server=server: not lists_buckets(server, user, secret))

    # Enabled again, then its policy changed to deny listing on the third: the others follow.
    assert admin_call(three, "PUT", f"/users/{user}/status", {"status": "enabled"})[0] == 200
    wait_until(lambda: lists_buckets(one, user, secret))
    policy = admin_call(one, "GET", f"/users/{user}")[1]["policies"][0]
    denied = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "s3:*", "Resource": "arn:aws:s3:::*"},
        {"Effect": "Deny", "Action": "s3:ListAllMyBuckets", "Resource": "*"}]}
    assert admin_call(three, "PUT", f"/policies/{policy}", denied)[0] in (200, 201)
    for server in servers:
        wait_until(lambda server=server: not lists_buckets(server, user, secret))
    assert admin_call(one, "DELETE", f"/users/{user}")[0] == 204
    assert admin_call(one, "DELETE", f"/policies/{policy}")[0] in (200, 204)


def lists_shares(server: ServiceProcess, token: str) -> int:
    return requests.get(f"{server.endpoint}/delta-sharing/shares", timeout=30,
                        headers={"Authorization": f"Bearer {token}"}).status_code


def test_shares_and_tokens_made_on_one_server_are_honoured_by_the_others(servers):
    one, two, three = servers
    share = create_share(one, "sales", [])
    token = create_token(one, share, expires="1d")["token"]
    for server in servers:
        wait_until(lambda server=server: lists_shares(server, token) == 200)
    assert admin_call(two, "GET", f"/shares/{share}")[1]["name"] == share

    token_id = admin_call(three, "GET", f"/shares/{share}/tokens")[1][0]["id"]
    assert admin_call(two, "DELETE", f"/shares/{share}/tokens/{token_id}")[0] == 200
    for server in servers:
        wait_until(lambda server=server: lists_shares(server, token) == 401)
    assert admin_call(three, "DELETE", f"/shares/{share}")[0] == 200


def test_catalog_tokens_and_vended_credentials_of_one_server_work_on_the_others(servers):
    """Both are sealed with the key every server shares: accepted at once, nothing to propagate."""
    one, two, three = servers
    with shared_warehouse(servers) as warehouse:
        issued = requests.post(f"{one.endpoint}/_iceberg/v1/oauth/tokens", timeout=30, data={
            "grant_type": "client_credentials", "client_id": ACCESS_KEY, "client_secret": SECRET_KEY})
        assert issued.status_code == 200, issued.text
        listed = requests.get(f"{two.endpoint}/_iceberg/v1/{warehouse}/namespaces", timeout=30,
                              headers={"Authorization": f"Bearer {issued.json()['access_token']}"})
        assert listed.status_code == 200 and ["ns"] in listed.json()["namespaces"], listed.text

        catalog_of(one, warehouse, "creator").create_table("ns.vended", SCHEMA)
        status, loaded = catalog_call(one, "GET", f"/v1/{warehouse}/namespaces/ns/tables/vended",
                                      headers={"X-Iceberg-Access-Delegation": "vended-credentials"})
        assert status == 200, loaded
        vended = loaded["config"]
        location = loaded["metadata"]["location"].removeprefix("s3://")
        bucket, prefix = location.split("/", 1)
        s3 = make_s3_client(three.endpoint, vended["s3.access-key-id"], vended["s3.secret-access-key"],
                            vended["s3.session-token"])
        s3.put_object(Bucket=bucket, Key=f"{prefix}/data/through-three.txt", Body=b"vended elsewhere")
        assert s3.get_object(Bucket=bucket, Key=f"{prefix}/data/through-three.txt")["Body"].read() == b"vended elsewhere"


def check_no_missing_file(server: ServiceProcess, table: Table) -> None:
    """Every metadata file of the table's log, and every manifest list, manifest and data file of its
    snapshots, exists in the store."""
    s3 = make_s3_client(server.endpoint)

    def exists(location: str) -> None:
        bucket, key = location.removeprefix("s3://").split("/", 1)
        s3.head_object(Bucket=bucket, Key=key)  # raises on a missing file

    for entry in table.metadata.metadata_log:
        exists(entry.metadata_file)
    exists(table.metadata_location)
    for snapshot in table.snapshots():
        exists(snapshot.manifest_list)
        for manifest in snapshot.manifests(table.io):
            exists(manifest.manifest_path)
            for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
                exists(entry.data_file.file_path)


def test_a_server_killed_during_commits_loses_no_acknowledged_commit(servers, seaweedfs, tmp_path):
    victim = start_server(seaweedfs, tmp_path / "victim")
    try:
        with shared_warehouse(servers) as warehouse:
            catalog_of(servers[0], warehouse, "creator").create_table("ns.killed", SCHEMA, properties=RETRIES)
            made = Commits()
            stop = threading.Event()

            def writer(number: int):
                table = catalog_of(victim, warehouse, f"victim-writer-{number}").load_table("ns.killed")
                commit = 0
                while not stop.is_set():
                    try:
                        made.append(table, (number * 1000 + commit) * 10, f"victim-{number}")
                    except Exception:  # noqa: BLE001 - the server died under this commit
                        return
                    commit += 1

            def killer():
                deadline = time.monotonic() + 120
                while len(made.acknowledged) < 6 and time.monotonic() < deadline:
                    time.sleep(0.02)
                victim.proc.kill()  # SIGKILL, whatever the writers are in the middle of
                victim.proc.wait()
                stop.set()

            run_threads([lambda: writer(0), lambda: writer(1), killer])
            assert len(made.acknowledged) >= 6

            survivor = catalog_of(servers[1], warehouse, "survivor")
            table = survivor.load_table("ns.killed")
            landed = made.check_landed(table)
            check_no_missing_file(servers[1], table)

            table.append(rows(range(10**6, 10**6 + 10), "after"))  # the table still takes commits
            assert len(survivor.load_table("ns.killed").snapshots()) == len(landed) + 1
    finally:
        victim.stop()
