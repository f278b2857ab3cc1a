"""Crash safety of the local store: SIGKILL a writer at random moments, then check what it left.

After every kill, a fresh LocalStore (whose startup sweep removes a dead writer's leftovers) must
list only whole objects whose bytes match their ETag, and the data dir must hold no temp file and
no data file that the index does not reference (and every reference must point at a file).
"""

from __future__ import annotations

import hashlib
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from contextlib import closing
from pathlib import Path

from aistor_lab.store.local import LocalStore
from aistor_lab.store.local.files import OBJECTS_DIR, OWNERS_DIR, TMP_DIR
from aistor_lab.store.local.index import INDEX_FILE, load_segments

REPO_ROOT = Path(__file__).resolve().parents[1]

# Overwrites, multipart completions (some left pending or aborted), copies and deletes on a few
# keys, forever. Every object's content is random bytes from the seed kept in its metadata.
_WRITER = """
import random, sys
from pathlib import Path
from aistor_lab.store import MIN_PART_SIZE, NoSuchKey
from aistor_lab.store.local import LocalStore

data_dir, seed = Path(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
store = LocalStore(data_dir)
KEYS = [f"k{i}" for i in range(6)]

def new_content(sizes):
    content_seed, size = rng.getrandbits(32), rng.choice(sizes)
    return random.Random(content_seed).randbytes(size), {"seed": str(content_seed), "size": str(size)}

def put(key):
    data, metadata = new_content([100, 70_000, 1_500_000, 3_000_000])
    staging = store.stage()
    for start in range(0, len(data), 256 * 1024):
        staging.write(data[start : start + 256 * 1024])
    store.put_object("crash", key, staging, metadata=metadata)

def multipart(key):
    data, metadata = new_content([MIN_PART_SIZE + 10, 2 * MIN_PART_SIZE + 2_000_000])
    upload = store.create_multipart_upload("crash", key, metadata={**metadata, "part-size": str(MIN_PART_SIZE)})
    parts = []
    for number, start in enumerate(range(0, len(data), MIN_PART_SIZE), 1):
        staging = store.stage()
        staging.write(data[start : start + MIN_PART_SIZE])
        parts.append((number, store.upload_part("crash", key, upload.upload_id, number, staging).etag))
    fate = rng.random()
    if fate < 0.15:
        return  # left pending, as S3 keeps an upload nobody completes
    if fate < 0.3:
        store.abort_multipart_upload("crash", key, upload.upload_id)
    else:
        store.complete_multipart_upload("crash", key, upload.upload_id, parts)

def copy(key):
    try:
        store.copy_object("crash", rng.choice(KEYS), "crash", key)
    except NoSuchKey:
        pass

def delete(key):
    store.delete_object("crash", key)

put(KEYS[0])
print("ready", flush=True)
while True:
    rng.choice([put, put, multipart, multipart, copy, delete])(rng.choice(KEYS))
"""


def _spawn(script: str, *args: object) -> subprocess.Popen:
    child = subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() in ("ready", "staged")
    return child


def _kill(child: subprocess.Popen) -> None:
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    child.stdout.close()


def _expected_etag(data: bytes, part_size: str | None) -> str:
    if part_size is None:
        return hashlib.md5(data).hexdigest()
    chunks = [data[i : i + int(part_size)] for i in range(0, len(data), int(part_size))]
    digest = hashlib.md5(b"".join(hashlib.md5(chunk).digest() for chunk in chunks)).hexdigest()
    return f"{digest}-{len(chunks)}"


def _assert_objects_whole(store: LocalStore) -> int:
    objects = store.list_objects("crash").objects
    for info in objects:
        _, data = store.get_bytes("crash", info.key)
        expected = random.Random(int(info.metadata["seed"])).randbytes(int(info.metadata["size"]))
        assert data == expected, info.key
        assert info.etag == _expected_etag(data, info.metadata.get("part-size")), info.key
    return len(objects)


def _assert_no_garbage(data_dir: Path) -> None:
    assert list((data_dir / TMP_DIR).iterdir()) == []
    assert len(list((data_dir / OWNERS_DIR).iterdir())) == 1  # the open store's own lock
    on_disk = {path.name for path in (data_dir / OBJECTS_DIR).glob("*/*")}
    with closing(sqlite3.connect(data_dir / INDEX_FILE)) as index:
        refs = dict(index.execute("SELECT name, refs FROM files"))
        uses = Counter(
            name
            for (text,) in index.execute(
                "SELECT segments FROM objects WHERE segments IS NOT NULL UNION ALL SELECT segments FROM parts"
            )
            for name, _, _ in load_segments(text)
        )
    assert on_disk == set(refs)
    assert refs == dict(uses)


def test_sigkill_never_leaves_torn_objects_or_garbage(tmp_path):
    data_dir = tmp_path / "store"
    store = LocalStore(data_dir)
    store.create_bucket("crash")
    store.close()
    rng = random.Random(20240607)
    listed = 0
    for round_number in range(10):
        child = _spawn(_WRITER, data_dir, round_number)
        time.sleep(rng.uniform(0.05, 1.2))
        _kill(child)
        store = LocalStore(data_dir)
        try:
            listed += _assert_objects_whole(store)
            _assert_no_garbage(data_dir)
        finally:
            store.close()
    assert listed > 0


_STAGER = """
import sys, time
from pathlib import Path
from aistor_lab.store.local import LocalStore

store = LocalStore(Path(sys.argv[1]))
writing = store.stage()
writing.write(b"x" * 200_000)  # spilled to a temp file
committing = store.stage()
committing.write(b"y" * 200_000)
committing.publish()  # a data file whose transaction has not committed yet
print("staged", flush=True)
time.sleep(600)
"""


def _leftovers(data_dir: Path) -> tuple[int, int]:
    return len(list((data_dir / TMP_DIR).iterdir())), len(list((data_dir / OBJECTS_DIR).glob("*/*")))


def test_startup_sweep_spares_live_writers_and_clears_dead_ones(tmp_path):
    data_dir = tmp_path / "store"
    LocalStore(data_dir).close()
    child = _spawn(_STAGER, data_dir)
    try:
        LocalStore(data_dir).close()
        assert _leftovers(data_dir) == (1, 1)
    finally:
        _kill(child)
    store = LocalStore(data_dir)
    store.close()
    assert _leftovers(data_dir) == (0, 0)


def test_a_second_store_in_one_process_spares_the_first_ones_writes(tmp_path):
    first = LocalStore(tmp_path / "store")
    first.create_bucket("b")
    staging = first.stage()
    staging.write(b"z" * 300_000)
    second = LocalStore(tmp_path / "store")
    try:
        first.put_object("b", "k", staging)
        assert second.get_bytes("b", "k")[1] == b"z" * 300_000
    finally:
        first.close()
        second.close()
