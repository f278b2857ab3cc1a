"""Side-by-side S3 benchmark: aistor-lab against moto and SeaweedFS, all on 127.0.0.1.

Starts every server at once (free ports, temporary data directories), then runs each workload
against each server in turn, so slow drifts of the machine touch every server alike. Prints one
table with the ratio ours/peer (throughputs: higher is better) and can write the same as JSON.
With ``--repeat N`` the whole sequence runs N times and the table shows medians.

    .venv/bin/python benchmarks/s3_bench.py [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import re
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import boto3
import disk_reference
from null_server import memory_server, null_server
from peers import (
    OURS,
    SERVERS,
    ServerProcess,
    add_run_options,
    cpu_seconds,
    run_with_servers,
    s3_client,
    settle_args,
    stop_all,
)
from workloads import BigFile, MiB, SmallObjects, get_big, get_small, put_big, put_small

BUCKET = "bench"
FULL = {"objects": 1000, "big_mib": 256, "dd_mib": 1024}
QUICK = {"objects": 100, "big_mib": 32, "dd_mib": 128}


class Target(Protocol):
    """What a workload runs against: a server, or the in-memory null server of the ceiling."""

    name: str
    endpoint: str


@dataclass(frozen=True)
class Endpoint:
    name: str
    endpoint: str


@dataclass(frozen=True)
class Workload:
    key: str  # the name in the JSON output
    label: str
    unit: str
    run: Callable[[Target], float]
    needs: str | None = None  # the workload whose data this one reads
    requests: int = 0  # for the small objects: requests made, so the server's CPU per request is known


def parse_size(text: str) -> int:
    """Bytes from ``4096``, ``4K``, ``4KiB``, ``1M`` or ``1MiB``."""
    match = re.fullmatch(r"(\d+)\s*([KkMm]?)(?:i?B)?", text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    return int(match[1]) * {"": 1, "k": 1024, "m": MiB}[match[2].lower()]


def human_size(size: int) -> str:
    for unit, factor in (("MiB", MiB), ("KiB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"small run: {QUICK['objects']} objects, {QUICK['big_mib']} MiB big object, "
                             f"{QUICK['dd_mib']} MiB dd file (explicit options still win)")
    parser.add_argument("--objects", type=int, help=f"small objects per run (default {FULL['objects']})")
    parser.add_argument("--size", type=parse_size, default=4096, help="small object size (default 4KiB)")
    parser.add_argument("--threads", type=int, default=8, help="client threads of the parallel runs (default 8)")
    parser.add_argument("--big-mib", type=int, help=f"big object size in MiB (default {FULL['big_mib']})")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds of the whole sequence; the table shows each figure's median (default 1)")
    parser.add_argument("--dd-mib", type=int, help=f"dd reference file in MiB, 0 to skip (default {FULL['dd_mib']})")
    parser.add_argument("--servers", default=",".join(SERVERS),
                        help=f"comma-separated subset of {', '.join(SERVERS)} (default all)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results as JSON here")
    add_run_options(parser, "server")
    args = parser.parse_args(argv)
    settle_args(parser, args, QUICK if args.quick else FULL, {"servers": tuple(SERVERS)})
    if args.threads < 2:
        parser.error("--threads must be at least 2 (a 1-thread run is always made)")
    if args.size < 8 or min(args.objects, args.big_mib, args.repeat) < 1 or args.dd_mib < 0:
        parser.error("--size must be >= 8 bytes, --objects, --big-mib and --repeat >= 1, --dd-mib >= 0")
    return args


def define_workloads(args: argparse.Namespace, scratch: Path, big: BigFile, tag: str) -> list[Workload]:
    """One round of the workloads in run order. ``tag`` keeps each round's keys apart, so every
    PUT creates new objects rather than overwriting the previous round's."""
    small = SmallObjects.random(f"{tag}/small-1t", args.objects, args.size)
    small_n = dataclasses.replace(small, prefix=f"{tag}/small-{args.threads}t")
    big_key = f"{tag}/big"
    what = f"{args.objects} x {human_size(args.size)}"
    n = args.threads
    return [
        Workload("put_small_1t", f"PUT {what}, 1 thread", "ops/s",
                 lambda s: put_small(s.endpoint, BUCKET, small, 1), requests=args.objects),
        Workload(f"put_small_{n}t", f"PUT {what}, {n} threads", "ops/s",
                 lambda s: put_small(s.endpoint, BUCKET, small_n, n), requests=args.objects),
        Workload("get_small_1t", f"GET {what}, 1 thread", "ops/s",
                 lambda s: get_small(s.endpoint, BUCKET, small, 1), needs="put_small_1t", requests=args.objects),
        Workload(f"get_small_{n}t", f"GET {what}, {n} threads", "ops/s",
                 lambda s: get_small(s.endpoint, BUCKET, small, n), needs="put_small_1t", requests=args.objects),
        Workload("put_big", f"PUT {args.big_mib} MiB, multipart 8 MiB parts", "MiB/s",
                 lambda s: put_big(s.endpoint, BUCKET, big_key, big)),
        Workload("get_big", f"GET {args.big_mib} MiB, 8 MiB ranges", "MiB/s",
                 lambda s: get_big(s.endpoint, BUCKET, big_key, big, scratch / f"big-download-{s.name}"),
                 needs="put_big"),
    ]


def start_servers(names: list[str], root: Path, started: list[ServerProcess], timeout: float) -> dict[str, str]:
    """Start every server (appending to ``started`` so the caller can stop them), wait until each
    answers S3 and has the bucket; returns why each server that is not usable failed."""
    failures: dict[str, str] = {}
    for name in names:
        workdir = root / name
        workdir.mkdir()
        try:
            server = SERVERS[name](workdir)
            server.start()
        except Exception as exc:  # noqa: BLE001 - one server missing must not stop the others
            failures[name] = f"not started: {exc}"
            continue
        started.append(server)
    for server in started:
        try:
            server.wait_ready(timeout)
            s3_client(server.endpoint).create_bucket(Bucket=BUCKET)
        except Exception as exc:  # noqa: BLE001
            failures[server.name] = f"not ready: {exc}"
            stop_all([server])
    return failures


Samples = dict[str, dict[str, list[float] | str]]


def run_rounds(rounds: list[list[Workload]], servers: list[ServerProcess]) -> tuple[Samples, Samples]:
    """Each round's workloads, each on every server in turn. A server's entry for a workload is its
    throughputs so far, or the error that ended them (later rounds then skip it). Also returns, for
    the small objects, each server's CPU milliseconds per request (from /proc: its process only)."""
    samples: Samples = {}
    cpu: Samples = {}
    for number, workloads in enumerate(rounds, 1):
        for workload in workloads:
            row = samples.setdefault(workload.key, {})
            for server in servers:
                if isinstance(row.get(server.name), str):
                    continue
                if workload.needs and isinstance(samples[workload.needs].get(server.name), str):
                    row[server.name] = f"skipped: {workload.needs} failed"
                    continue
                try:
                    before = cpu_seconds(server.proc.pid)
                    value = workload.run(server)
                    after = cpu_seconds(server.proc.pid)
                    row.setdefault(server.name, []).append(value)
                    shown = f"{value:.1f} {workload.unit}"
                    if workload.requests and before is not None and after is not None:
                        per_request = (after - before) * 1000 / workload.requests
                        cpu.setdefault(workload.key, {}).setdefault(server.name, []).append(per_request)
                        shown += f", server CPU {per_request:.2f} ms/request"
                except Exception as exc:  # noqa: BLE001 - record it, go on with the other servers
                    shown = row[server.name] = f"error: {type(exc).__name__}: {exc}"
                where = f"round {number}  " if len(rounds) > 1 else ""
                print(f"  {where}{workload.label:<40} {server.name:<11} {shown}", flush=True)
    return samples, cpu


def medians(samples: Samples) -> dict[str, dict[str, float | str]]:
    return {
        key: {name: statistics.median(got) if isinstance(got, list) else got for name, got in row.items()}
        for key, row in samples.items()
    }


def ratios(results: dict[str, dict[str, float | str]], peers: list[str]) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {}
    for key, row in results.items():
        ours = row.get(OURS)
        table[key] = {
            peer: ours / row[peer]
            for peer in peers
            if isinstance(ours, float) and isinstance(row.get(peer), float) and row[peer] > 0
        }
    return table


def render_table(
    workloads: list[Workload],
    names: list[str],
    results: dict[str, dict[str, float | str]],
    ratio: dict[str, dict[str, float]],
    references: dict[str, str],
) -> str:
    peers = [name for name in names if name != OURS] if OURS in names else []
    header = ["workload", "unit", *names, *(f"{OURS}/{peer}" for peer in peers), "reference"]
    rows = [header]
    for workload in workloads:
        row = results.get(workload.key, {})
        values = [f"{row[n]:,.1f}" if isinstance(row.get(n), float) else "ERR" if n in row else "-" for n in names]
        shares = [f"{ratio[workload.key][p]:.2f}x" if p in ratio.get(workload.key, {}) else "-" for p in peers]
        rows.append([workload.label, workload.unit, *values, *shares, references.get(workload.key, "")])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for index, cells in enumerate(rows):
        text = [cells[0].ljust(widths[0]), cells[1].ljust(widths[1])]
        text += [cell.rjust(width) for cell, width in zip(cells[2:-1], widths[2:-1])]
        lines.append("  ".join([*text, cells[-1]]).rstrip())
        if index == 0:
            lines.append("-" * len(lines[0]))
    return "\n".join(lines)


def environment() -> dict[str, object]:
    return {
        "python": platform.python_version(),
        "boto3": boto3.__version__,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
    }


def small_ceilings(rounds: list[list[Workload]]) -> dict[str, float]:
    """Each small-object workload's ops/s against the in-memory null server (median over the rounds):
    the most this client reaches on this machine, whatever the server."""
    samples: dict[str, list[float]] = {}
    with memory_server() as endpoint:
        for workloads in rounds:
            for workload in workloads:
                if workload.requests:
                    samples.setdefault(workload.key, []).append(workload.run(Endpoint("null", endpoint)))
    return {key: statistics.median(values) for key, values in samples.items()}


def ceiling_notes(results: dict[str, dict[str, float | str]], ceilings: dict[str, float],
                  names: list[str]) -> dict[str, str]:
    """The reference column of the small rows: the ceiling and each server's share of it."""
    notes = {}
    for key, ceiling in ceilings.items():
        shares = ", ".join(f"{name} {results[key][name] / ceiling:.0%}" for name in names
                           if isinstance(results.get(key, {}).get(name), float))
        notes[key] = f"ceiling (in-memory null server) {ceiling:,.0f} ops/s; {shares}"
    return notes


def render_cpu_table(workloads: list[Workload], names: list[str], cpu: dict[str, dict[str, float | str]]) -> str:
    """Server CPU per small request, ms (lower is better), and the ratio peer/ours (above 1: ours
    spends less)."""
    peers = [name for name in names if name != OURS] if OURS in names else []
    rows = [["server CPU per request, ms", *names, *(f"{peer}/{OURS}" for peer in peers)]]
    for workload in workloads:
        row = cpu.get(workload.key)
        if not row:
            continue
        ours = row.get(OURS)
        rows.append([workload.label, *(f"{row[n]:.2f}" if isinstance(row.get(n), float) else "-" for n in names),
                     *(f"{row[p] / ours:.2f}x" if isinstance(ours, float) and isinstance(row.get(p), float) and ours > 0
                       else "-" for p in peers)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join([r[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(r[1:], widths[1:]))]) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def null_ceiling(big: BigFile, root: Path, repeat: int) -> float:
    """The big GET's MiB/s against a server that does nothing but send the bytes (median of ``repeat``):
    the ceiling of the client and the loopback."""
    with null_server(big.path) as endpoint:
        return statistics.median(get_big(endpoint, BUCKET, "big", big, root / "null-download")
                                 for _ in range(repeat))


def benchmark(args: argparse.Namespace, root: Path, started: list[ServerProcess]) -> int:
    env = environment()
    print(f"s3_bench: {env['cpus']} CPUs shared by client and servers; scratch in {root}", flush=True)
    disk = None
    if args.dd_mib:
        disk = disk_reference.measure(root / "dd-reference", args.dd_mib)
        print(f"  dd {disk.mib} MiB: write (fdatasync) {disk.write_mib_s:,.0f} MiB/s, "
              f"read {disk.read_mib_s:,.0f} MiB/s (likely cached)", flush=True)
    big = BigFile.random(root / "big-source", args.big_mib * MiB)
    rounds = [define_workloads(args, root, big, f"r{number}") for number in range(1, args.repeat + 1)]
    workloads = rounds[0]
    failures = start_servers(args.servers, root, started, args.start_timeout)
    for name, why in failures.items():
        print(f"  {name}: {why}", file=sys.stderr, flush=True)
    ready = [server for server in started if server.name not in failures]
    for server in ready:
        print(f"  {server.name} {server.version} at {server.endpoint}", flush=True)
    samples, cpu_samples = run_rounds(rounds, ready)
    results = medians(samples)
    cpu = medians(cpu_samples)
    peers = [name for name in args.servers if name != OURS]
    ratio = ratios(results, peers)
    references = {}
    if disk is not None:
        references = {
            "put_big": f"dd write {disk.mib} MiB, fdatasync: {disk.write_mib_s:,.0f} MiB/s",
            "get_big": f"dd read {disk.mib} MiB, bs=8M: {disk.read_mib_s:,.0f} MiB/s (likely cached)",
        }
    ceilings = small_ceilings(rounds)
    references.update(ceiling_notes(results, ceilings, args.servers))
    ceiling = null_ceiling(big, root, args.repeat)
    ours = results.get("get_big", {}).get(OURS)
    share = f"; {OURS} reaches {ours / ceiling:.0%} of it" if isinstance(ours, float) else ""
    references["get_big"] = "; ".join(filter(None, [
        references.get("get_big"), f"null server answering from memory: {ceiling:,.0f} MiB/s{share}"]))
    print()
    if args.repeat > 1:
        print(f"medians of {args.repeat} rounds")
    print(render_table(workloads, args.servers, results, ratio, references))
    print()
    print(render_cpu_table(workloads, args.servers, cpu))
    errors = {f"{key} on {name}": value for key, row in results.items() for name, value in row.items()
              if isinstance(value, str)}
    for where, what in {**failures, **errors}.items():
        print(f"  {where}: {what.splitlines()[0]}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({
            "settings": {"objects": args.objects, "size": args.size, "threads": args.threads,
                         "big_mib": args.big_mib, "dd_mib": args.dd_mib, "repeat": args.repeat},
            "environment": env,
            "servers": {s.name: {"version": s.version, "endpoint": s.endpoint} for s in ready},
            "failures": failures,
            "workloads": {w.key: {"label": w.label, "unit": w.unit} for w in workloads},
            "results": results,
            "samples": samples,
            "small_ceilings": ceilings,
            "server_cpu_ms_per_request": cpu,
            "ratios": {f"{OURS}/{peer}": {key: r[peer] for key, r in ratio.items() if peer in r} for peer in peers},
            "disk_reference": dataclasses.asdict(disk) if disk else None,
        }, indent=2) + "\n")
    return 1 if failures or errors else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    return run_with_servers("s3_bench", args.workdir, args.keep, lambda root, started: benchmark(args, root, started))


if __name__ == "__main__":
    sys.exit(main())
