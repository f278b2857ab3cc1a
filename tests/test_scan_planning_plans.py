"""Plans held by the service, in process over a real store and catalog: a plan slower than the wait is
``submitted`` and polled to the same answer as a synchronous one; cancelling forgets it; the plan
store expires plans and bounds the bytes it holds; parsed manifests are read once."""

from __future__ import annotations

import base64
import json
import time
import zlib

import pyarrow as pa
import pytest
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType

from aistor_lab.store import LocalStore
from aistor_lab.tables.catalog import Catalog
from aistor_lab.tables.maintenance.service_catalog import ServiceCatalog
from aistor_lab.tables.scan_planning import Owner
from aistor_lab.tables.scan_planning.plans import NoSuchPlanIdException, NoSuchPlanTaskException, Plans
from aistor_lab.tables.scan_planning.service import ScanPlanning

WAREHOUSE = "whouse"
SCHEMA = Schema(NestedField(1, "id", LongType(), required=False), NestedField(2, "name", StringType(), required=False))
OWNER = Owner("alice", WAREHOUSE, ("ns",), "t")


@pytest.fixture
def catalog(tmp_path):
    store = LocalStore(tmp_path)
    catalog = Catalog(store)
    catalog.warehouses.create({"name": WAREHOUSE})
    catalog.namespaces.create(WAREHOUSE, {"namespace": ["ns"]})
    catalog.tables.create(WAREHOUSE, ["ns"], {"name": "t", "schema": json.loads(SCHEMA.model_dump_json())})
    table = ServiceCatalog(catalog.tables, store, WAREHOUSE).load_table(("ns", "t"))
    for start in range(0, 50, 10):
        table.append(pa.table({"id": pa.array(range(start, start + 10), pa.int64()),
                               "name": [f"n{i}" for i in range(start, start + 10)]}))
    return catalog


def body(answer) -> dict:
    """A planning answer as its client reads it."""
    return json.loads(answer.encoded())


def poll(planning: ScanPlanning, plan_id: str) -> dict:
    for _ in range(600):
        answer = body(planning.result(OWNER, plan_id))
        if answer["status"] != "submitted":
            return answer
        time.sleep(0.05)
    raise AssertionError("the plan never completed")


def files(answer: dict) -> list[str]:
    return sorted(task["data-file"]["file-path"] for task in answer["file-scan-tasks"])


def test_a_slow_plan_is_submitted_then_polled(catalog):
    waiting = ScanPlanning(catalog.ctx, catalog.tables, wait_s=0, page_tasks=2)
    submitted = body(waiting.plan(OWNER, {"filter": {"type": "gt", "term": "id", "value": 15}}))
    assert submitted["status"] == "submitted" and submitted["plan-id"]
    completed = poll(waiting, submitted["plan-id"])
    assert completed["status"] == "completed" and len(completed["file-scan-tasks"]) == 2
    pages = [completed] + [body(waiting.tasks(OWNER, token)) for token in completed["plan-tasks"]]
    planned = sorted(path for page in pages for path in files(page))

    direct = body(catalog.scan_planning.plan(OWNER, {"filter": {"type": "gt", "term": "id", "value": 15}}))
    assert direct["status"] == "completed" and "plan-tasks" not in direct
    assert planned == files(direct) and len(planned) == 4  # ids 0-9 pruned by their upper bound

    # Another caller sees no such plan id; a page it may read anyway (it may load the table) is
    # planned again from the token.
    bob = Owner("bob", WAREHOUSE, ("ns",), "t")
    with pytest.raises(NoSuchPlanIdException):
        waiting.result(bob, submitted["plan-id"])
    assert body(waiting.tasks(bob, completed["plan-tasks"][0])) == pages[1]
    waiting.cancel(OWNER, submitted["plan-id"])
    with pytest.raises(NoSuchPlanIdException):
        waiting.result(OWNER, submitted["plan-id"])


def test_another_server_answers_the_tokens_of_a_plan(catalog):
    """Servers in front of one store: a plan made on one is paged through another, which plans it
    again from the tokens (the same table version, the same pages), even after the table moved on."""
    one = ScanPlanning(catalog.ctx, catalog.tables, page_tasks=2)
    other = ScanPlanning(catalog.ctx, catalog.tables, page_tasks=2)
    first = body(one.plan(OWNER, {"filter": {"type": "gt", "term": "id", "value": 5}}))
    assert len(first["plan-tasks"]) == 2
    table = ServiceCatalog(catalog.tables, catalog.ctx.store, WAREHOUSE).load_table(("ns", "t"))
    table.append(pa.table({"id": pa.array([100], pa.int64()), "name": ["late"]}))  # a new version
    for token in first["plan-tasks"]:
        assert body(other.tasks(OWNER, token)) == body(one.tasks(OWNER, token))
    assert other.manifests.reads == 5

    # A token is only good for its table: another table has no such version.
    catalog.tables.create(WAREHOUSE, ["ns"], {"name": "t2", "schema": json.loads(SCHEMA.model_dump_json())})
    with pytest.raises(NoSuchPlanTaskException):
        other.tasks(Owner("alice", WAREHOUSE, ("ns",), "t2"), first["plan-tasks"][0])
    plan_id, _, recipe = first["plan-tasks"][0].split(":")
    for forged in ("nothing", f"{plan_id}:x:{recipe}", f"{plan_id}:1:{recipe[:-8]}", f"{plan_id}:9:{recipe}",
                   f"{plan_id}:1:" + base64.urlsafe_b64encode(zlib.compress(b"0" * 5_000_000)).decode()):
        with pytest.raises(NoSuchPlanTaskException):
            other.tasks(OWNER, forged)


def test_a_cancelled_submitted_plan_is_gone(catalog):
    waiting = ScanPlanning(catalog.ctx, catalog.tables, wait_s=0)
    plan_id = body(waiting.plan(OWNER, {}))["plan-id"]
    waiting.cancel(OWNER, plan_id)
    with pytest.raises(NoSuchPlanIdException):
        waiting.result(OWNER, plan_id)


def test_manifests_are_parsed_once(catalog):
    planning = ScanPlanning(catalog.ctx, catalog.tables)
    first = body(planning.plan(OWNER, {}))
    reads = planning.manifests.reads
    assert reads == 5  # one manifest per append
    again = body(planning.plan(OWNER, {"filter": {"type": "lt", "term": "id", "value": 12}}))
    assert planning.manifests.reads == reads and len(files(again)) == 2 and len(files(first)) == 5


def test_plans_expire_and_their_tasks_are_bounded():
    clock = [0.0]
    page = json.dumps({"file-scan-tasks": [{"data-file": {}}] * 2})
    plans = Plans(lifetime_s=60, max_bytes=3 * len(page), now=lambda: clock[0])
    first = plans.add(OWNER, pages=[page, page])
    second = plans.add(OWNER, pages=[page])
    assert plans.page(first, 1, OWNER) == page
    third = plans.add(OWNER, pages=[page])  # four pages held: the least recently used plan goes
    with pytest.raises(NoSuchPlanIdException):
        plans.get(second, OWNER)
    assert plans.get(first, OWNER) and plans.get(third, OWNER)
    clock[0] = 61
    with pytest.raises(NoSuchPlanIdException):
        plans.get(first, OWNER)
    for plan_id, number in ((third, 0), (third, 1), ("nothing", 1)):
        with pytest.raises(NoSuchPlanTaskException):
            plans.page(plan_id, number, OWNER)


def test_a_plan_that_cannot_read_its_manifests_fails(catalog):
    """The spec's answer to planning that goes wrong is a "failed" status with the error model."""
    table = ServiceCatalog(catalog.tables, catalog.ctx.store, WAREHOUSE).load_table(("ns", "t"))
    manifest = table.current_snapshot().manifests(table.io)[0].manifest_path
    bucket, key = manifest.removeprefix("s3://").split("/", 1)
    catalog.ctx.store.delete_object(bucket, key)
    answer = body(catalog.scan_planning.plan(OWNER, {}))
    assert answer["status"] == "failed" and answer["error"]["type"] == "ServiceFailureException"
    assert answer["error"]["code"] == 500 and "file-scan-tasks" not in answer
