"""The import rules of ARCHITECTURE.md, read from the source: every module's imports (relative ones
resolved, those inside functions included) are checked against the arrows the layout allows, so a
shortcut across the tree fails here rather than slowly blurring it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import aistor_lab

PACKAGE = Path(aistor_lab.__file__).parent
TOP = "aistor_lab"

# Where tornado, and the HTTP helpers built on it, may be imported: the HTTP layers only.
HTTP_LAYERS = ("service", "s3", "admin", "http", "tables.api", "sharing.api", "workbench.jupyter")
# What the workbench may import of the package besides itself: it reaches the service over HTTP.
WORKBENCH_MAY_USE = ("workbench", "settings", "tls")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def find_modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


MODULES = find_modules()


def imported_by(name: str, path: Path) -> set[str]:
    """The absolute names of the modules ``name`` imports; ``from X import y`` counts as X and, when
    y is a module of the package, as X.y too."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found.add(source)
            found |= {f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in MODULES}
    return found


IMPORTS = {name: imported_by(name, path) for name, path in MODULES.items()}


def within(name: str, *packages: str) -> bool:
    """Whether module ``name`` is one of ``aistor_lab.<package>`` or inside it."""
    return any(name == f"{TOP}.{p}" or name.startswith(f"{TOP}.{p}.") for p in packages)


def ours(name: str) -> bool:
    return name == TOP or name.startswith(f"{TOP}.")


def violations(rule) -> list[str]:
    return sorted(f"{importer} imports {imported}" for importer, names in IMPORTS.items()
                  for imported in names if rule(importer, imported))


def workbench_reaches_into_the_service(importer: str, imported: str) -> bool:
    return (within(importer, "workbench") and ours(imported) and imported != TOP
            and not within(imported, *WORKBENCH_MAY_USE))


def crosses_between_tables_and_sharing(importer: str, imported: str) -> bool:
    """Either may use the other's facade (its ``__init__``), never a module inside it."""
    return ((within(importer, "tables") and within(imported, "sharing") and imported != f"{TOP}.sharing")
            or (within(importer, "sharing") and within(imported, "tables") and imported != f"{TOP}.tables"))


def uses_iam_internals(importer: str, imported: str) -> bool:
    return within(importer, "tables", "sharing") and within(imported, "iam") and imported != f"{TOP}.iam"


def store_looks_up(importer: str, imported: str) -> bool:
    """The store is the floor: it imports nothing of the package above it, and no HTTP."""
    return within(importer, "store") and (
        (ours(imported) and imported != TOP and not within(imported, "store"))
        or imported.split(".")[0] == "tornado")


def http_outside_the_http_layers(importer: str, imported: str) -> bool:
    is_http = imported.split(".")[0] == "tornado" or within(imported, "http")
    return is_http and not within(importer, *HTTP_LAYERS)


def s3_imports_the_catalog(importer: str, imported: str) -> bool:
    """The S3 API reaches table protection through s3.protection.ProtectedTables, which the app wires."""
    return within(importer, "s3") and within(imported, "tables")


def lifecycle_reaches_past_the_store(importer: str, imported: str) -> bool:
    """Lifecycle rules run over the store; the catalog and sharing reach them through Protocols."""
    return (within(importer, "lifecycle") and ours(imported) and imported != TOP
            and not within(imported, "lifecycle", "store", "common"))


def imports_the_service(importer: str, imported: str) -> bool:
    """Only the package's ``__main__`` sits above the service."""
    return (within(imported, "service") and not within(importer, "service")
            and importer != f"{TOP}.__main__")


RULES = [
    workbench_reaches_into_the_service,
    crosses_between_tables_and_sharing,
    uses_iam_internals,
    store_looks_up,
    http_outside_the_http_layers,
    s3_imports_the_catalog,
    lifecycle_reaches_past_the_store,
    imports_the_service,
]


@pytest.mark.parametrize("rule", RULES, ids=[rule.__name__ for rule in RULES])
def test_import_rule(rule):
    assert violations(rule) == []


def test_the_walk_sees_the_imports_it_checks():
    """Without this, a walk that found nothing would pass every rule."""
    assert len(MODULES) > 100
    assert "tornado.web" in IMPORTS[f"{TOP}.s3.handler"]
    assert f"{TOP}.tables" in IMPORTS[f"{TOP}.sharing.iceberg_source"]  # a relative import, resolved
    assert f"{TOP}.common.json_input" in IMPORTS[f"{TOP}.iam.policy"]  # ``from ..common import json_input``
    assert f"{TOP}.workbench.client" in IMPORTS[f"{TOP}.workbench.commands.actions"]


@pytest.mark.parametrize("importer, imported, rule", [
    (f"{TOP}.workbench.client", f"{TOP}.store", workbench_reaches_into_the_service),
    (f"{TOP}.workbench.magics", f"{TOP}.http.limits", workbench_reaches_into_the_service),
    (f"{TOP}.sharing.iceberg_files", f"{TOP}.tables.json_files", crosses_between_tables_and_sharing),
    (f"{TOP}.tables.catalog", f"{TOP}.sharing.shares", crosses_between_tables_and_sharing),
    (f"{TOP}.sharing.shares", f"{TOP}.iam.documents", uses_iam_internals),
    (f"{TOP}.store.documents", f"{TOP}.iam.keyring", store_looks_up),
    (f"{TOP}.store.local.store", "tornado.ioloop", store_looks_up),
    (f"{TOP}.tables.catalog", "tornado.web", http_outside_the_http_layers),
    (f"{TOP}.sharing.service", f"{TOP}.http.small_body", http_outside_the_http_layers),
    (f"{TOP}.s3.protection", f"{TOP}.tables.errors", s3_imports_the_catalog),
    (f"{TOP}.tables.api.handlers", f"{TOP}.service.app", imports_the_service),
    (f"{TOP}.lifecycle.live_tables", f"{TOP}.tables", lifecycle_reaches_past_the_store),
    (f"{TOP}.lifecycle.runner", f"{TOP}.s3.errors", lifecycle_reaches_past_the_store),
])
def test_each_rule_catches_what_it_forbids(importer, imported, rule):
    assert rule(importer, imported)


@pytest.mark.parametrize("importer, imported", [
    (f"{TOP}.workbench.spark.sessions", f"{TOP}.tls"),
    (f"{TOP}.sharing.iceberg_source", f"{TOP}.tables"),
    (f"{TOP}.tables.api.handlers", f"{TOP}.iam"),
    (f"{TOP}.store.documents", f"{TOP}.store.keyring"),
    (f"{TOP}.tables.api.handlers", "tornado.ioloop"),
    (f"{TOP}.__main__", f"{TOP}.service.cli"),
    (f"{TOP}.lifecycle.state", f"{TOP}.store.documents"),
])
def test_allowed_arrows_pass(importer, imported):
    assert not any(rule(importer, imported) for rule in RULES)
