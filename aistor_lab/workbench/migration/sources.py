"""The catalogs a migration reads: an Iceberg REST catalog (OAuth2 or SigV4), a PyIceberg SQL catalog
(SQLite or Postgres), or a directory of Hadoop-style tables (``<table>/metadata/version-hint.text``
naming ``v<N>.metadata.json``). Each yields its tables as ``SourceTable``: where the metadata file is
and the FileIO that reads the table's files."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..client import AIStorError

REST_SCHEMES = ("http", "https")
SQL_SCHEMES = ("sqlite", "postgresql", "postgres")
VERSION_HINT = "version-hint.text"


class MigrationError(AIStorError):
    """A source or table the migration cannot take, said in one line."""


@dataclass(frozen=True)
class SourceTable:
    namespace: tuple[str, ...]
    name: str
    metadata_location: str
    io: Any  # pyiceberg.io.FileIO
    problem: str = ""  # why the source could not load it (then the rest is empty): reported, the others go on

    @property
    def dotted(self) -> str:
        return ".".join((*self.namespace, self.name))


@dataclass
class Source:
    """The tables of one source, and the properties of its namespaces (what the target's get)."""

    description: str
    tables: Iterator[SourceTable]
    namespace_properties: dict[tuple[str, ...], dict[str, str]] = field(default_factory=dict)


def rest_properties(uri: str, warehouse: str | None = None, credential: str | None = None,
                    oauth2_server_uri: str | None = None, scope: str | None = None,
                    sigv4: Sequence[str] | None = None, signing_name: str = "s3tables") -> dict[str, str]:
    """PyIceberg's configuration of a REST catalog: ``credential`` (``CLIENT_ID:SECRET``) for OAuth2's
    client-credentials grant, or ``sigv4`` (access key, secret key, region) for SigV4 signing."""
    properties = {"uri": uri, **({"warehouse": warehouse} if warehouse else {})}
    if credential:
        properties["credential"] = credential
        if oauth2_server_uri:
            properties["oauth2-server-uri"] = oauth2_server_uri
        if scope:
            properties["scope"] = scope
    if sigv4:
        access_key, secret_key, region = sigv4
        properties.update({
            "rest.sigv4-enabled": "true", "rest.signing-name": signing_name, "rest.signing-region": region,
            "client.access-key-id": access_key, "client.secret-access-key": secret_key, "client.region": region,
        })
    return properties


def catalog_source(catalog: Any, description: str, namespaces: Sequence[str] = ()) -> Source:
    """The tables of a PyIceberg catalog, under ``namespaces`` (dotted; empty: every namespace)."""
    chosen = _namespace_tree(catalog, namespaces)
    properties = {level: _namespace_properties(catalog, level) for level in chosen}

    def tables() -> Iterator[SourceTable]:
        for namespace in chosen:
            for identifier in sorted(catalog.list_tables(namespace)):
                try:
                    table = catalog.load_table(identifier)
                except Exception as exc:  # noqa: BLE001 - any catalog's failure to load one table is that table's
                    yield SourceTable(tuple(namespace), identifier[-1], "", None, f"cannot load it: {exc}")
                    continue
                yield SourceTable(tuple(namespace), identifier[-1], table.metadata_location, table.io)

    return Source(description, tables(), properties)


def _namespace_tree(catalog: Any, wanted: Sequence[str]) -> list[tuple[str, ...]]:
    """The namespaces to migrate, each with the namespaces under it, parents first."""
    roots = [tuple(name.split(".")) for name in wanted] or [tuple(n) for n in catalog.list_namespaces()]
    found: list[tuple[str, ...]] = []
    pending = list(roots)
    while pending:
        namespace = pending.pop(0)
        if namespace in found:
            continue
        found.append(namespace)
        children = [tuple(child) for child in catalog.list_namespaces(namespace)]
        # Some catalogs answer the parent itself, or every level: only what lies strictly below.
        pending.extend(c if c[:len(namespace)] == namespace else (*namespace, *c) for c in children
                       if tuple(c) != namespace)
    return found


def _namespace_properties(catalog: Any, namespace: tuple[str, ...]) -> dict[str, str]:
    properties = dict(catalog.load_namespace_properties(namespace))
    properties.pop("location", None)  # the source's storage, not the target's
    properties.pop("exists", None)  # the SQL catalog's own marker
    return properties


def directory_source(root: str, namespaces: Sequence[str] = ()) -> Source:
    """The Hadoop-style tables under a local directory: a table is a folder with
    ``metadata/version-hint.text``; the folders above it (under ``root``) are its namespace."""
    from pyiceberg.io.pyarrow import PyArrowFileIO

    base = Path(urlsplit(root).path if root.startswith("file:") else root).expanduser().resolve()
    if not base.is_dir():
        raise MigrationError(f"no directory of Hadoop tables at {root}")
    wanted = [tuple(name.split(".")) for name in namespaces]
    io = PyArrowFileIO()

    def tables() -> Iterator[SourceTable]:
        for hint in sorted(base.rglob(f"metadata/{VERSION_HINT}")):
            folder = hint.parent.parent
            parts = folder.relative_to(base).parts
            namespace, name = (tuple(parts[:-1]) or ("default",)), parts[-1]
            if wanted and not any(namespace[:len(w)] == w for w in wanted):
                continue
            try:
                location = "file:" + str(_current_metadata(hint))
            except MigrationError as exc:
                yield SourceTable(namespace, name, "", None, exc.message)
                continue
            yield SourceTable(namespace, name, location, io)

    return Source(f"directory {base}", tables())


def _current_metadata(hint: Path) -> Path:
    """The metadata file a version hint names (Hadoop's ``v<N>.metadata.json``, maybe gzipped)."""
    version = hint.read_text().strip()
    if not version.isdigit():
        raise MigrationError(f"{hint}: not a version number: {version!r}")
    for name in (f"v{version}.metadata.json", f"v{version}.gz.metadata.json"):
        if (hint.parent / name).is_file():
            return hint.parent / name
    raise MigrationError(f"{hint} names version {version}, whose metadata file is missing")


def open_source(spec: str, namespaces: Sequence[str], catalog_properties: dict[str, str],
                aliased: dict[str, Any] | None = None, catalog_name: str = "default") -> Source:
    """The source named by ``spec``: a REST catalog URI (``catalog_properties`` has its credentials),
    a SQL catalog URI (``catalog_properties`` may give its ``warehouse``), a directory of Hadoop tables
    (``file:///dir`` or a path), or ``aliased``: the PyIceberg properties of a known service.
    ``catalog_name``: a SQL catalog keeps the tables of each catalog name apart (PyIceberg's
    examples name theirs ``default``)."""
    from pyiceberg.catalog import load_catalog
    from pyiceberg.catalog.sql import SqlCatalog

    scheme = urlsplit(spec).scheme.split("+")[0]
    if aliased is not None:
        return catalog_source(load_catalog("source", **aliased), f"catalog {spec}", namespaces)
    if scheme in REST_SCHEMES:
        properties = {**catalog_properties, "uri": spec}
        return catalog_source(load_catalog("source", **properties), f"REST catalog {spec}", namespaces)
    if scheme in SQL_SCHEMES:
        properties = {"warehouse": f"file://{os.getcwd()}", **catalog_properties, "uri": spec}
        return catalog_source(SqlCatalog(catalog_name, **properties), f"SQL catalog {spec}", namespaces)
    if scheme in ("", "file"):
        return directory_source(spec, namespaces)
    raise MigrationError(f"unknown source {spec!r}: expected a REST catalog (http[s]://...), a SQL catalog "
                         "(sqlite:///FILE, postgresql://...), a directory of Hadoop tables, or ALIAS/WAREHOUSE")
