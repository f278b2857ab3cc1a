"""The ``aistor-lab`` command: run the service."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from .settings import DEFAULT_ADDRESS, Settings
from .sparkjars.cli import add_commands as add_spark_jars_commands


def _server(args: argparse.Namespace) -> int:
    from .server import serve

    try:
        settings = Settings.from_env(address=args.address, data_dir=args.data)
    except ValueError as exc:
        print(f"aistor-lab: {exc}", file=sys.stderr)
        return 2
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    def ready(s: Settings) -> None:
        print(f"aistor-lab ready: S3 {s.endpoint}  (root user {s.root_user!r}, data {s.data_dir})", flush=True)

    asyncio.run(serve(settings, ready=ready))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aistor-lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    server = commands.add_parser("server", help="run the S3 / Iceberg / Delta Sharing service")
    server.add_argument("--address", default=None, help=f"HOST:PORT to listen on (default {DEFAULT_ADDRESS})")
    server.add_argument("--data", default=None, help="data directory (default .data, or $AISTOR_DATA_DIR)")
    server.set_defaults(run=_server)
    add_spark_jars_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
