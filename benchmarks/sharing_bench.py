"""Delta Sharing benchmark: how fast aistor-lab answers queries on a big shared table, and what
reading a table through the share costs against reading its Parquet files from local disk.

Starts ``aistor-lab server`` on a free loopback port with a scratch data directory, then:

1. Many files: deltalake writes a table of ``--files`` (10,000) small files into the server's S3,
   in ``--commits`` (100) commits of files partitioned by ``day`` (100 values). The table is shared
   and queried with raw protocol requests (as the released client sends them):
   a full query (every file, presigned), a query pruned to one partition by ``jsonPredicateHints``,
   and one pruned to a partition and an ``id`` range (partition pruning plus data skipping on
   stats). Each is timed ``--repeat`` times after one untimed warm-up; the table shows medians.
2. Big table: deltalake writes ``--gib`` (1) GiB of Parquet (random doubles, incompressible) into
   the server; the same Parquet files are downloaded to local disk. Then ``delta_sharing.
   load_as_pandas`` through the share against ``pyarrow.dataset`` reading the local files
   ``.to_table().to_pandas()``; both give the same DataFrame (checked by row count and a column sum).
   The ceiling beside them: the same ``load_as_pandas`` against ``null_share.py``, which answers the
   query with the lines aistor-lab answered, and the files' bytes from memory (what the client itself
   costs: it reads the files one after the other, then concatenates and reorders the frames). The
   runs take turns (share, ceiling, disk, in an order rotating each round), so noise falls on all
   three alike.

Prints each figure and the ratios; ``--json`` writes them too.

    .venv/bin/python benchmarks/sharing_bench.py [--quick] [--files 10000] [--gib 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import boto3
import delta_sharing
import numpy as np
import pandas as pd
import pyarrow.dataset as ds
import requests
from botocore.config import Config
from deltalake import DeltaTable, write_deltalake
from null_share import null_share
from peers import report_peak_memory

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from aistor_lab.workbench.jupyter.process import ServiceProcess

USER = PASSWORD = "minioadmin"
BUCKET = "bench"
GiB = 1024**3


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1,000 files and 0.1 GiB (explicit options win)")
    parser.add_argument("--files", type=int, help="files of the many-files table (default 10000)")
    parser.add_argument("--commits", type=int, default=100, help="commits writing them (default 100)")
    parser.add_argument("--gib", type=float, help="size of the big table in GiB (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each query (default 5)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    parser.add_argument("--workdir", type=Path, help="parent of the scratch directory (default: system temp)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args(argv)
    args.files = args.files or (1000 if args.quick else 10_000)
    args.gib = args.gib if args.gib is not None else (0.1 if args.quick else 1.0)
    return args


def storage_options(endpoint: str) -> dict:
    return {"AWS_ACCESS_KEY_ID": USER, "AWS_SECRET_ACCESS_KEY": PASSWORD, "AWS_ENDPOINT_URL": endpoint,
            "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1"}


def admin(endpoint: str, method: str, path: str, body: dict) -> dict:
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    request = AWSRequest(method=method, url=f"{endpoint}/_aistor/admin/v1{path}", data=json.dumps(body))
    S3SigV4Auth(Credentials(USER, PASSWORD), "s3", "us-east-1").add_auth(request)
    response = requests.request(method, request.url, data=request.body, headers=dict(request.headers), timeout=60)
    response.raise_for_status()
    return response.json()


def timed(functions: dict, repeat: int) -> dict[str, tuple[float, object]]:
    """Name -> (median seconds of ``repeat`` runs after one untimed warm-up, last result). The
    functions take turns, so that noise from the rest of the machine falls on all of them alike, in
    an order that rotates each round: a big read runs slower right after another (the load following
    pyarrow's local read measured 20-45% slower than in another place), and no function may always pay it."""
    results = {name: function() for name, function in functions.items()}
    samples: dict[str, list[float]] = {name: [] for name in functions}
    names = list(functions)
    for round_number in range(repeat):
        turn = round_number % len(names)
        for name in names[turn:] + names[:turn]:
            start = time.perf_counter()
            results[name] = functions[name]()
            samples[name].append(time.perf_counter() - start)
    return {name: (statistics.median(samples[name]), results[name]) for name in functions}


def many_files(server: ServiceProcess, args: argparse.Namespace, profile: dict, share: str) -> dict:
    options = storage_options(server.endpoint)
    uri = f"s3://{BUCKET}/many"
    days = min(100, args.files)
    per_commit = max(1, args.files // args.commits)
    started = time.perf_counter()
    for commit in range(args.commits):
        ids = np.arange(commit * per_commit, (commit + 1) * per_commit)
        frame = pd.DataFrame({"id": ids, "day": ids % days, "value": np.random.default_rng(commit).random(len(ids))})
        write_deltalake(uri, frame, partition_by=["day"], mode="append", storage_options=options)
    written = time.perf_counter() - started
    files = len(DeltaTable(uri, storage_options=options).file_uris())
    admin(server.endpoint, "PATCH", f"/shares/{share}", {"add": [f"s:many:delta:{BUCKET}:many"]})
    query_url = f"{profile['endpoint']}/shares/{share}/schemas/s/tables/many/query"
    headers = {"Authorization": f"Bearer {profile['bearerToken']}"}
    one_day = {"op": "equal", "children": [{"op": "column", "name": "day", "valueType": "int"},
                                           {"op": "literal", "value": "7", "valueType": "int"}]}
    low_ids = {"op": "lessThan", "children": [{"op": "column", "name": "id", "valueType": "long"},
                                              {"op": "literal", "value": str(per_commit), "valueType": "long"}]}
    queries = {
        "full": {},
        "one partition": {"jsonPredicateHints": json.dumps(one_day)},
        "partition + id range": {"jsonPredicateHints": json.dumps({"op": "and", "children": [one_day, low_ids]})},
    }
    def query(body: dict) -> int:
        response = requests.post(query_url, json=body, headers=headers, timeout=600)
        response.raise_for_status()
        return sum(1 for line in response.iter_lines() if line.startswith(b'{"file"'))

    timings = timed({name: functools.partial(query, body) for name, body in queries.items()}, args.repeat)
    return {"files": files, "commits": args.commits, "write_seconds": round(written, 2),
            "queries": {name: {"seconds": seconds, "files": returned} for name, (seconds, returned) in timings.items()}}


def big_table(server: ServiceProcess, args: argparse.Namespace, profile_path: Path, profile: dict, share: str,
              scratch: Path) -> dict:
    options = storage_options(server.endpoint)
    uri = f"s3://{BUCKET}/big"
    columns = 8
    rows_total = int(args.gib * GiB / 8 / columns)
    batch = 4_000_000
    rng = np.random.default_rng(1)
    for start in range(0, rows_total, batch):
        count = min(batch, rows_total - start)
        frame = pd.DataFrame({f"c{i}": rng.random(count) for i in range(columns)})
        write_deltalake(uri, frame, mode="append", storage_options=options)
    admin(server.endpoint, "PATCH", f"/shares/{share}", {"add": [f"s:big:delta:{BUCKET}:big"]})
    # The very files the share serves, on local disk.
    local = scratch / "big-local"
    local.mkdir()
    s3 = boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=USER, aws_secret_access_key=PASSWORD,
                      region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))
    paths = []
    for uri_of_file in DeltaTable(uri, storage_options=options).file_uris():
        key = uri_of_file.split(f"s3://{BUCKET}/", 1)[1]
        paths.append(local / Path(key).name)
        s3.download_file(BUCKET, key, str(paths[-1]))
    size = sum(p.stat().st_size for p in paths)

    # The query answer the client gets (parquet format: it sends no capabilities), for the ceiling.
    answer = requests.post(f"{profile['endpoint']}/shares/{share}/schemas/s/tables/big/query", json={},
                           headers={"Authorization": f"Bearer {profile['bearerToken']}"}, timeout=60)
    answer.raise_for_status()
    answer_path = scratch / "big-answer.ndjson"
    answer_path.write_bytes(answer.content)

    def summary(frame: pd.DataFrame) -> tuple[int, float]:
        return len(frame), float(frame["c0"].sum())  # not the frame: three of 1 GiB would be held at once

    def load(profile_file: Path) -> tuple[int, float]:
        return summary(delta_sharing.load_as_pandas(f"{profile_file}#{share}.s.big", use_delta_format=False))

    def from_disk() -> tuple[int, float]:
        return summary(ds.dataset([str(p) for p in paths], format="parquet").to_table().to_pandas())

    with null_share(answer_path, int(answer.headers["Delta-Table-Version"]), paths) as null_endpoint:
        null_profile = scratch / "null.share"
        null_profile.write_text(json.dumps({**profile, "endpoint": null_endpoint}))
        timings = timed({"share": functools.partial(load, profile_path),
                         "ceiling": functools.partial(load, null_profile), "disk": from_disk},
                        max(1, min(args.repeat, 3)))
    (rows, total), (direct_rows, direct_total) = timings["share"][1], timings["disk"][1]
    assert rows == direct_rows == timings["ceiling"][1][0] == rows_total, (rows, direct_rows, rows_total)
    assert abs(total - direct_total) < 1e-6 * rows_total
    seconds = {name: median for name, (median, _) in timings.items()}
    return {"bytes": size, "files": len(paths), "rows": rows_total, "share_seconds": seconds["share"],
            "ceiling_seconds": seconds["ceiling"], "disk_seconds": seconds["disk"],
            **{f"{name}_mib_s": size / 2**20 / value for name, value in seconds.items()}}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="sharing-bench-", dir=args.workdir))
    try:
        with ServiceProcess(scratch / "data", log_path=scratch / "server.log") as server:
            boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=USER, aws_secret_access_key=PASSWORD,
                         region_name="us-east-1").create_bucket(Bucket=BUCKET)
            share = "bench"
            admin(server.endpoint, "POST", "/shares", {"name": share, "schema": "s", "tables": []})
            profile = admin(server.endpoint, "POST", f"/shares/{share}/tokens", {"expires": "1d"})["profile"]
            profile_path = scratch / "bench.share"
            profile_path.write_text(json.dumps(profile))
            results = {"many_files": many_files(server, args, profile, share),
                       "big_table": big_table(server, args, profile_path, profile, share, scratch)}
            report_peak_memory("sharing_bench", [("aistor-lab", server.proc.pid)])
        report(results)
        if args.json:
            args.json.write_text(json.dumps(results, indent=2))
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


def report(results: dict) -> None:
    many = results["many_files"]
    print(f"\nMany files: {many['files']} files in {many['commits']} commits "
          f"(written by deltalake in {many['write_seconds']} s)")
    full = many["queries"]["full"]["seconds"]
    print(f"  {'query':<24}{'files returned':>16}{'median ms':>12}{'full/this':>12}")
    for name, figure in many["queries"].items():
        print(f"  {name:<24}{figure['files']:>16}{figure['seconds'] * 1000:>12.1f}{full / figure['seconds']:>12.1f}")
    big = results["big_table"]
    print(f"\nBig table: {big['bytes'] / GiB:.2f} GiB of Parquet in {big['files']} files, {big['rows']:,} rows")
    print(f"  load_as_pandas through the share : {big['share_seconds']:8.2f} s  ({big['share_mib_s']:.0f} MiB/s)")
    print(f"  the same from the null share     : {big['ceiling_seconds']:8.2f} s  ({big['ceiling_mib_s']:.0f} MiB/s)"
          "  (the client's ceiling)")
    print(f"  pyarrow from local disk          : {big['disk_seconds']:8.2f} s  ({big['disk_mib_s']:.0f} MiB/s)")
    print(f"  ratio share/local                : {big['share_seconds'] / big['disk_seconds']:8.2f}x"
          f"  (the ceiling: {big['ceiling_seconds'] / big['disk_seconds']:.2f}x)")
    print(f"  share of the ceiling reached     : {big['ceiling_seconds'] / big['share_seconds']:8.0%}")


if __name__ == "__main__":
    sys.exit(main())
