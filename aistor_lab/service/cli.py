"""The ``aistor-lab`` command: run the service."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from ..settings import DEFAULT_ADDRESS, Settings
from ..store import ConditionalWritesIgnored
from ..tls import CertificateError, create_certificates
from ..workbench.sample_data import add_commands as add_sample_data_commands
from ..workbench.spark.jars.subcommands import add_commands as add_spark_jars_commands


def _server(args: argparse.Namespace) -> int:
    from .app import serve

    try:
        settings = Settings.from_env(address=args.address, data_dir=args.data)
    except ValueError as exc:
        print(f"aistor-lab: {exc}", file=sys.stderr)
        return 2
    if args.certs_dir:
        settings.certs_dir = Path(args.certs_dir)
    settings.data_dir.mkdir(parents=True, exist_ok=True)

    def ready(s: Settings) -> None:
        print(f"aistor-lab ready: S3 {s.endpoint}  (root user {s.root_user!r}, data {s.data_dir})", flush=True)

    try:
        asyncio.run(serve(settings, ready=ready))
    except (CertificateError, ConditionalWritesIgnored) as exc:
        print(f"aistor-lab: {exc}", file=sys.stderr)
        return 2
    return 0


def _certs_create(args: argparse.Namespace) -> int:
    try:
        made = create_certificates(Path(args.dir), args.host, new_ca=args.new_ca)
    except (CertificateError, OSError) as exc:
        print(f"aistor-lab: {exc}", file=sys.stderr)
        return 2
    print(f"Certificate {made.certificate} (key {made.key}) for {', '.join(made.hosts)},")
    print(f"signed by the local CA {made.trust.ca}. Serve it with:")
    where = made.certificate.parent
    print(f"  aistor-lab server --certs-dir {where}    (or AISTOR_CERTS_DIR={where})")
    print(made.trust.instructions())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aistor-lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    server = commands.add_parser("server", help="run the S3 / Iceberg / Delta Sharing service")
    server.add_argument("--address", default=None, help=f"HOST:PORT to listen on (default {DEFAULT_ADDRESS})")
    server.add_argument("--data", default=None, help="data directory (default .data, or $AISTOR_DATA_DIR)")
    server.add_argument("--certs-dir", default=None,
                        help="serve HTTPS with public.crt and private.key of DIR (or $AISTOR_CERTS_DIR)")
    server.set_defaults(run=_server)
    certs = commands.add_parser("certs", help="TLS certificates for labs and tests").add_subparsers(
        dest="certs_command", required=True)
    create = certs.add_parser("create", help="make a local CA and a server certificate, say how to trust it")
    create.add_argument("--dir", required=True, help="the certs directory (what --certs-dir takes)")
    create.add_argument("--host", action="extend", nargs="+", default=[], metavar="NAME",
                        help="host names and IP addresses to certify (localhost, 127.0.0.1 and ::1 always)")
    create.add_argument("--new-ca", action="store_true",
                        help="replace the directory's CA instead of reusing it")
    create.set_defaults(run=_certs_create)
    add_spark_jars_commands(commands)
    add_sample_data_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
