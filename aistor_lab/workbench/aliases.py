"""Named services, as ``mc alias`` keeps them: ``aistor alias set myaistor URL ACCESS SECRET``.

Aliases live in ``~/.aistor/config.json`` (or ``$AISTOR_CONFIG_DIR/config.json``), readable by the
owner only since they hold secrets. One more alias, ``local``, is the service the environment
names (``AISTOR_ENDPOINT`` and credentials, as the Jupyter extension exports them to kernels and
terminals); an alias of the same name in the file takes precedence.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict
from pathlib import Path

from .client import AIStorError, ServiceConfig

ENV_ALIAS = "local"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")


class UnknownAlias(AIStorError):
    exit_code = 2


def config_path() -> Path:
    directory = os.environ.get("AISTOR_CONFIG_DIR") or Path.home() / ".aistor"
    return Path(directory) / "config.json"


def _load() -> dict[str, dict]:
    try:
        document = json.loads(config_path().read_text())
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise AIStorError(f"{config_path()} is not valid JSON: {exc}") from None
    return document.get("aliases", {}) if isinstance(document, dict) else {}


def _save(aliases: dict[str, dict]) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.with_suffix(".tmp")
    # Created owner-only before any secret is written into it.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        json.dump({"version": 1, "aliases": aliases}, out, indent=2)
    temporary.replace(path)


def set_alias(name: str, config: ServiceConfig) -> None:
    if not _NAME.fullmatch(name):
        raise UnknownAlias(f"invalid alias name {name!r}: use letters, digits, '_', '.' and '-'")
    aliases = _load()
    aliases[name] = {k: v for k, v in asdict(config).items() if v is not None}
    _save(aliases)


def remove_alias(name: str) -> None:
    aliases = _load()
    if name not in aliases:
        raise UnknownAlias(f"no alias {name!r} in {config_path()}")
    del aliases[name]
    _save(aliases)


def list_aliases() -> dict[str, ServiceConfig]:
    """Every alias: the environment's ``local`` (when set) and the file's."""
    found = {}
    env = ServiceConfig.from_env()
    if env is not None:
        found[ENV_ALIAS] = env
    found.update((name, ServiceConfig(**entry)) for name, entry in _load().items())
    return found


def resolve(name: str) -> ServiceConfig:
    config = list_aliases().get(name)
    if config is None:
        hint = "set one with: aistor alias set NAME URL ACCESS_KEY SECRET_KEY"
        if name == ENV_ALIAS:
            hint = "AISTOR_ENDPOINT is not set; " + hint
        raise UnknownAlias(f"unknown alias {name!r} ({hint})")
    return config
