"""DuckDB as a client of an Iceberg REST catalog: its ``iceberg`` extension attaches the catalog (SigV4)
and reads and writes the tables' files over S3 with ``httpfs``.

The extensions come from the installed PyPI packages ``duckdb-extension-iceberg``, ``-httpfs`` and
``-avro`` (one ``.duckdb_extension`` file each, loaded by path; nothing is downloaded).

DuckDB 1.5's SigV4 signer takes the signing name and region from the catalog's host name (as in
``s3tables.us-east-1.amazonaws.com``) and has no option to set them. So the catalog is addressed as
``s3tables.us-east-1.localhost``: curl, DuckDB's HTTP client, resolves every ``*.localhost`` name to
the loopback without asking DNS, and the request is signed for ``s3tables`` in ``us-east-1``.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import duckdb
from peers import ACCESS_KEY, SECRET_KEY, ServerProcess

EXTENSIONS = ("httpfs", "avro", "iceberg")  # iceberg needs the other two loaded first
SIGNED_HOST = "s3tables.us-east-1.localhost"
ALIAS = "lake"


def extension_file(name: str) -> Path:
    """The ``.duckdb_extension`` file of package ``duckdb_extension_<name>`` for this DuckDB version."""
    package = Path(import_module(f"duckdb_extension_{name}").__file__).parent
    path = package / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise FileNotFoundError(f"{path} missing: install duckdb-extension-{name}=={duckdb.__version__}")
    return path


def signed_uri(catalog_uri: str) -> str:
    """``catalog_uri`` with its host replaced by one DuckDB derives the signing name and region from."""
    parts = urlsplit(catalog_uri)
    return urlunsplit(parts._replace(netloc=f"{SIGNED_HOST}:{parts.port}"))


class DuckDBCatalog:
    """One in-memory DuckDB database with ``server``'s catalog attached as ``lake``."""

    def __init__(self, server: ServerProcess, warehouse: str) -> None:
        # No autoloading: every extension is loaded from its file, and a missing one is an error here.
        self.connection = duckdb.connect(config={
            "autoinstall_known_extensions": False, "autoload_known_extensions": False,
        })
        for name in EXTENSIONS:
            self.connection.execute(f"LOAD '{extension_file(name)}'")
        # curl resolves *.localhost itself (the other client, httplib, asks the system resolver).
        self.connection.execute("SET httpfs_client_implementation = 'curl'")
        # The S3 secret signs both the catalog's requests and the data files' GETs and PUTs.
        self.connection.execute(
            f"CREATE SECRET lake_s3 (TYPE s3, KEY_ID '{ACCESS_KEY}', SECRET '{SECRET_KEY}', REGION 'us-east-1', "
            f"ENDPOINT '{urlsplit(server.endpoint).netloc}', URL_STYLE 'path', USE_SSL false)"
        )
        # No vended credentials: the data files are read and written with the secret above.
        self.connection.execute(
            f"ATTACH '{warehouse}' AS {ALIAS} (TYPE iceberg, ENDPOINT '{signed_uri(server.catalog_uri)}', "
            "AUTHORIZATION_TYPE 'sigv4', SECRET lake_s3, ACCESS_DELEGATION_MODE 'none')"
        )

    def version(self) -> str:
        (build,) = self.connection.execute(
            "SELECT extension_version FROM duckdb_extensions() WHERE extension_name = 'iceberg'").fetchone()
        return f"DuckDB {duckdb.__version__}, iceberg extension {build}"

    def count(self, identifier: str) -> int:
        return self.connection.execute(f"SELECT count(*) FROM {ALIAS}.{identifier}").fetchone()[0]

    def insert(self, identifier: str, rows: int) -> None:
        """One commit of ``rows`` new rows (``id`` long, ``name`` string)."""
        self.connection.execute(
            f"INSERT INTO {ALIAS}.{identifier} SELECT range::BIGINT, 'row-' || range FROM range(?)", [rows]
        )

    def close(self) -> None:
        self.connection.close()
