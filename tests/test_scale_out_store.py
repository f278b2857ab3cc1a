"""The service in front of a distributed object store: SeaweedFS run as a cluster of processes, and
the start-up check that refuses a backend whose conditional writes cannot be trusted."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid

import pytest

from aistor_lab.store import ConditionalWritesIgnored, PreconditionFailed, RemoteS3Store, WriteCondition

from .conftest import ROOT_PASSWORD, ROOT_USER
from .peer_servers import ACCESS_KEY, SECRET_KEY, moto_server


def test_a_backend_that_ignores_a_write_condition_is_refused(tmp_path):
    """moto's server ignores If-Match on CompleteMultipartUpload: the store refuses it, naming that, and
    the server does not start (a commit could otherwise overwrite a concurrent one)."""
    with moto_server(tmp_path / "moto") as endpoint:
        with pytest.raises(ConditionalWritesIgnored, match="If-Match on CompleteMultipartUpload") as refused:
            RemoteS3Store(endpoint, ACCESS_KEY, SECRET_KEY)
        assert "If-None-Match: * on PutObject" not in str(refused.value)  # what moto does honour is not named
        env = {**os.environ, "AISTOR_STORE_ENDPOINT": endpoint, "AISTOR_STORE_ACCESS_KEY": ACCESS_KEY,
               "AISTOR_STORE_SECRET_KEY": SECRET_KEY, "AISTOR_ROOT_USER": ROOT_USER,
               "AISTOR_ROOT_PASSWORD": ROOT_PASSWORD}
        started = subprocess.run(
            [sys.executable, "-m", "aistor_lab", "server", "--address", "127.0.0.1:0", "--data", str(tmp_path / "data")],
            env=env, capture_output=True, text=True, timeout=120, check=False)
    assert started.returncode == 2, started.stderr[-2000:]
    assert "does not honour If-Match on CompleteMultipartUpload" in started.stderr
    assert "Traceback" not in started.stderr


def race(store: RemoteS3Store, condition: WriteCondition, name: str, writers: int = 8) -> list[int]:
    """Writers putting one key at once under ``condition``: the ones that won. Each writes bytes of its
    own (``name`` and its number): a writer that put back the object's current bytes would leave its
    ETag as it was, and a second writer's If-Match would then rightly hold."""
    winners, losers = [], []

    def write(n: int) -> None:
        staged = store.stage()
        staged.write(f"{name} {n}".encode())
        try:
            store.put_object("race", "k", staged, condition=condition)
            winners.append(n)
        except PreconditionFailed:
            losers.append(n)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(winners) + len(losers) == writers
    return winners


def test_the_seaweedfs_cluster_decides_racing_writes(seaweedfs):
    """The cluster passes the start-up check, and of eight writers racing to create one key, or to
    replace it from the same ETag, exactly one wins each time."""
    store = RemoteS3Store(seaweedfs, ACCESS_KEY, SECRET_KEY, bucket_prefix=f"t{uuid.uuid4().hex[:8]}-")
    try:
        store.create_bucket("race")
        created = race(store, WriteCondition(if_none_match="*"), "creator")
        assert len(created) == 1
        assert store.get_bytes("race", "k")[1] == f"creator {created[0]}".encode()
        replaced = race(store, WriteCondition(if_match=store.get_object_info("race", "k").etag), "replacer")
        assert len(replaced) == 1
        assert store.get_bytes("race", "k")[1] == f"replacer {replaced[0]}".encode()
    finally:
        store.close()
