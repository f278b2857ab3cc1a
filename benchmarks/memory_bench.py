"""Memory of big transfers: the resident memory of aistor-lab and SeaweedFS, side by side, while each
takes and serves a big object, multipart and in one request.

Starts both servers (as s3_bench.py does), samples each one's VmRSS every 50 ms in a thread, and runs
every transfer on each server in turn:

1. ``upload_file`` of a ``--gib`` (5) GiB file, multipart with ``--part-mib`` (64) MiB parts, 10 at a
   time; then ``download_file`` of it (ranged GETs of a part each, 10 at a time), checking its SHA-256;
2. the same with boto3's default 8 MiB parts;
3. one PutObject of ``--single-mib`` (1024) MiB streamed from a file, then a GetObject of it read with
   ``iter_chunks`` and hashed;
4. the upload and download of 1. with SSE-S3 (``ServerSideEncryption='AES256'``; aistor-lab is
   started with a KMS key, which SSE-S3 needs).

For each transfer it prints each server's peak RSS, its growth over the RSS just before the transfer
("peak - baseline", also in parts: a server that holds the parts in flight grows by about as many parts
as the client sends at once), and the ratio seaweedfs/aistor-lab of the peaks (above 1: we hold less).
At the end, each server's VmHWM over the whole run.

The big file repeats one random 64 MiB block, so it costs little to make; neither server deduplicates
blocks, so it weighs on them as random data would.

    .venv/bin/python benchmarks/memory_bench.py [--quick] [--gib 5] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from boto3.s3.transfer import TransferConfig
from botocore.client import BaseClient
from peers import (
    OURS,
    SERVERS,
    ServerProcess,
    add_run_options,
    peak_rss_mib,
    run_with_servers,
    s3_client,
    settle_args,
    stop_all,
)
from resident_memory import RssSampler
from workloads import BigFile

MiB = 1024 * 1024
GiB = 1024 * MiB
BUCKET = "memory"
BLOCK = 64 * MiB  # the random block the big file repeats
CONCURRENCY = 10  # boto3's default
DEFAULT_PART_MIB = 8  # boto3's default part size
FULL = {"gib": 5.0, "single_mib": 1024}
QUICK = {"gib": 0.5, "single_mib": 128}
PEER = "seaweedfs"


@dataclass(frozen=True)
class Transfer:
    label: str
    part: int  # the unit its growth is counted in: a part, or the whole body of a single request
    unit: str  # "parts" or "bodies"
    run: Callable[[BaseClient, str], None]  # (client, key)
    reads: bool = False  # reads the object the transfer before it wrote


def transfer_config(part: int) -> TransferConfig:
    # "classic": the pure-Python transfer manager on every machine (never the CRT one).
    return TransferConfig(multipart_threshold=part, multipart_chunksize=part, max_concurrency=CONCURRENCY,
                          preferred_transfer_client="classic")


def define_transfers(args: argparse.Namespace, big: BigFile, single: BigFile, scratch: Path) -> list[Transfer]:
    def upload(part: int, **extra: str) -> Callable[[BaseClient, str], None]:
        def run(client: BaseClient, key: str) -> None:
            client.upload_file(str(big.path), BUCKET, key, ExtraArgs=extra or None, Config=transfer_config(part))
        return run

    def download(part: int) -> Callable[[BaseClient, str], None]:
        def run(client: BaseClient, key: str) -> None:
            target = scratch / "download"
            try:
                client.download_file(BUCKET, key, str(target), Config=transfer_config(part))
                with open(target, "rb") as got:
                    if hashlib.file_digest(got, "sha256").hexdigest() != big.sha256:
                        raise ValueError(f"download_file of {key}: the SHA-256 differs from the uploaded file's")
            finally:
                target.unlink(missing_ok=True)
            client.delete_object(Bucket=BUCKET, Key=key)  # frees the server's disk for the next transfer
        return run

    def put_single(client: BaseClient, key: str) -> None:
        with open(single.path, "rb") as body:
            client.put_object(Bucket=BUCKET, Key=key, Body=body)

    def get_single(client: BaseClient, key: str) -> None:
        digest = hashlib.sha256()
        for chunk in client.get_object(Bucket=BUCKET, Key=key)["Body"].iter_chunks(MiB):
            digest.update(chunk)
        if digest.hexdigest() != single.sha256:
            raise ValueError(f"GetObject of {key}: the SHA-256 differs from the uploaded file's")
        client.delete_object(Bucket=BUCKET, Key=key)

    part, default = args.part_mib * MiB, DEFAULT_PART_MIB * MiB
    size, single_size = f"{big.size / GiB:g} GiB", f"{single.size // MiB} MiB"
    transfers = [
        Transfer(f"upload_file {size}, {args.part_mib} MiB parts", part, "parts", upload(part)),
        Transfer(f"download_file of it, {args.part_mib} MiB ranges", part, "parts", download(part),
                 reads=True),
        Transfer(f"upload_file {size}, {DEFAULT_PART_MIB} MiB parts", default, "parts", upload(default)),
        Transfer(f"download_file of it, {DEFAULT_PART_MIB} MiB ranges", default, "parts",
                 download(default), reads=True),
        Transfer(f"PutObject {single_size} streamed from a file", single.size, "bodies", put_single),
        Transfer("GetObject of it, iter_chunks(1 MiB)", single.size, "bodies", get_single, reads=True),
    ]
    if not args.no_sse:
        transfers += [
            Transfer(f"upload_file {size} SSE-S3, {args.part_mib} MiB parts", part, "parts",
                     upload(part, ServerSideEncryption="AES256")),
            Transfer(f"download_file of it (SSE-S3), {args.part_mib} MiB ranges", part, "parts",
                     download(part), reads=True),
        ]
    return transfers


@dataclass
class Measure:
    baseline: float = 0.0  # MiB resident just before the transfer
    peak: float = 0.0  # the most resident during it
    seconds: float = 0.0
    error: str | None = None

    @property
    def growth(self) -> float:
        return self.peak - self.baseline


def measure(transfer: Transfer, client: BaseClient, key: str, sampler: RssSampler) -> Measure:
    sampler.phase()
    result = Measure(baseline=sampler.baseline)
    start = time.perf_counter()
    try:
        transfer.run(client, key)
    except Exception as exc:  # noqa: BLE001 - recorded; the other servers still run
        result.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    result.seconds = time.perf_counter() - start
    sampler.sample()
    result.peak = sampler.peak
    return result


def run_transfers(transfers: list[Transfer], servers: list[ServerProcess],
                  samplers: dict[str, RssSampler]) -> list[dict[str, Measure]]:
    """Each transfer on every server in turn; a read is skipped where the write before it failed."""
    clients = {server.name: s3_client(server.endpoint, pool=CONCURRENCY + 2) for server in servers}
    rows: list[dict[str, Measure]] = []
    for index, transfer in enumerate(transfers):
        row: dict[str, Measure] = {}
        key = f"object-{index - 1 if transfer.reads else index}"
        for server in servers:
            if transfer.reads and rows[-1][server.name].error:
                row[server.name] = Measure(error="skipped: the upload before it failed")
            else:
                row[server.name] = measure(transfer, clients[server.name], key, samplers[server.name])
            got = row[server.name]
            shown = got.error or (f"peak {got.peak:,.0f} MiB, +{got.growth:,.0f} MiB over {got.baseline:,.0f}, "
                                  f"{got.seconds:,.1f} s (checks included)")
            print(f"  {transfer.label:<48} {server.name:<10} {shown}", flush=True)
        rows.append(row)
    return rows


def render_table(transfers: list[Transfer], names: list[str], rows: list[dict[str, Measure]]) -> str:
    header = ["transfer"]
    for name in names:
        header += [f"{name} peak MiB", "growth MiB", "growth as"]
    if OURS in names and PEER in names:
        header.append(f"peak {PEER}/{OURS}")
    table = [header]
    for transfer, row in zip(transfers, rows):
        cells = [transfer.label]
        for name in names:
            got = row.get(name)
            if got is None or got.error:
                cells += ["ERR", "", ""]
                continue
            share = got.growth * MiB / transfer.part
            cells += [f"{got.peak:,.0f}", f"{got.growth:,.0f}", f"{share:.2f} {transfer.unit}"]
        if len(header) > len(cells):
            ours, peer = row.get(OURS), row.get(PEER)
            usable = ours and peer and not ours.error and not peer.error and ours.peak > 0
            cells.append(f"{peer.peak / ours.peak:.2f}x" if usable else "-")
        table.append(cells)
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = ["  ".join([line[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(line[1:], widths[1:]))])
             for line in table]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def needed_disk(args: argparse.Namespace, servers: int) -> int:
    """The big file, one download of it, the single file, and per server the biggest object it holds
    at once (each transfer's object is deleted once read back; a store may reclaim the space later)."""
    big, single = int(args.gib * GiB), args.single_mib * MiB
    return 2 * big + single + servers * (3 * big + single)


def start_servers(names: list[str], root: Path, started: list[ServerProcess], timeout: float) -> list[ServerProcess]:
    for name in names:
        workdir = root / name
        workdir.mkdir()
        server = SERVERS[name](workdir)
        if name == OURS:
            # SSE-S3 needs the key ring's default key (MinIO's single-key KMS format).
            server.env["AISTOR_KMS_SECRET_KEY"] = "bench-key:" + base64.b64encode(os.urandom(32)).decode()
        server.start()
        started.append(server)
    for server in started:
        server.wait_ready(timeout)
        s3_client(server.endpoint).create_bucket(Bucket=BUCKET)
        print(f"  {server.name} {server.version} at {server.endpoint}, pid {server.proc.pid}", flush=True)
    return started


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    need, free = needed_disk(args, len(args.servers)), shutil.disk_usage(root).free
    if free < need:
        print(f"memory_bench: {root} has {free / GiB:.1f} GiB free, the run needs up to {need / GiB:.1f} GiB; "
              "point --workdir at a bigger disk or lower --gib", file=sys.stderr)
        return 1
    print(f"memory_bench: {os.cpu_count()} CPUs; scratch in {root} ({free / GiB:.0f} GiB free)", flush=True)
    big = BigFile.repeating(root / "big-source", int(args.gib * GiB), BLOCK)
    single = BigFile.repeating(root / "single-source", args.single_mib * MiB, BLOCK)
    transfers = define_transfers(args, big, single, root)
    try:
        servers = start_servers(args.servers, root, started, args.start_timeout)
    except Exception as exc:  # noqa: BLE001 - a server that does not start ends the comparison
        print(f"memory_bench: a server did not start: {exc}", file=sys.stderr)
        stop_all(started)
        return 1
    samplers = {server.name: RssSampler(server.proc.pid) for server in servers}
    for sampler in samplers.values():
        sampler.start()
    try:
        rows = run_transfers(transfers, servers, samplers)
    finally:
        for sampler in samplers.values():
            sampler.stop()
    print()
    print(render_table(transfers, args.servers, rows))
    for server in servers:
        peak = peak_rss_mib(server.proc.pid)
        if peak is not None:
            print(f"  {server.name}: VmHWM over the whole run {peak:,.0f} MiB")
    errors = [f"{t.label} on {name}: {m.error}" for t, row in zip(transfers, rows) for name, m in row.items()
              if m.error]
    for error in errors:
        print(f"  {error}", file=sys.stderr)
    return 1 if errors else 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK['gib']:g} GiB multipart, {QUICK['single_mib']} MiB single (explicit options win)")
    parser.add_argument("--gib", type=float, help=f"the multipart file in GiB (default {FULL['gib']:g})")
    parser.add_argument("--part-mib", type=int, default=64, help="part size of the first upload (default 64)")
    parser.add_argument("--single-mib", type=int, help=f"the single PutObject in MiB (default {FULL['single_mib']})")
    parser.add_argument("--no-sse", action="store_true", help="leave out the SSE-S3 upload and download")
    parser.add_argument("--servers", default=f"{OURS},{PEER}", help=f"comma-separated (default {OURS},{PEER})")
    add_run_options(parser, "server")
    args = parser.parse_args(argv)
    settle_args(parser, args, QUICK if args.quick else FULL, {"servers": tuple(SERVERS)})
    if args.gib <= 0 or args.part_mib < 5 or args.single_mib < 1:
        parser.error("--gib must be above 0, --part-mib at least 5 (S3's minimum part), --single-mib at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_with_servers("memory_bench", args.workdir, args.keep, lambda root, started: benchmark(args, root, started))


if __name__ == "__main__":
    sys.exit(main())
