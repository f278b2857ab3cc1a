"""DuckDB on the service: one connection with the ``httpfs``, ``avro``, ``iceberg`` and ``delta``
extensions loaded from their PyPI packages' files (``duckdb-extension-*``, built for one DuckDB
version each), and the catalog attached as an Iceberg REST catalog.

Nothing is downloaded: autoloading and autoinstalling are off and the extension directory is the
project's own cache, so DuckDB never reaches for its extension repository or ``~/.duckdb``.

The catalog is attached either with OAuth2 (the catalog's token endpoint; the tables' files are then
read and written with the credentials the catalog vends for each table) or with SigV4 (signed as
``s3tables`` with the S3 secret's keys). The S3 secret also lets the connection read the service's
buckets directly: ``delta_scan('s3://bucket/path')``, ``read_parquet('s3://...')``.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

from ..client import AIStorError
from ..service_config import CATALOG_SIGNING_NAME, ServiceConfig
from ..spark.jars.kit import cache_home
from .service import resolve

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

# iceberg needs httpfs and avro loaded before it; delta reads Delta tables in buckets.
EXTENSIONS = ("httpfs", "avro", "iceberg", "delta")
S3_SECRET = "aistor_s3"
OAUTH2_SECRET = "aistor_oauth2"


def extension_file(name: str) -> Path:
    """The ``.duckdb_extension`` file that package ``duckdb-extension-<name>`` ships for this DuckDB."""
    import duckdb

    try:
        package = Path(import_module(f"duckdb_extension_{name}").__file__).parent
    except ImportError:
        raise ImportError(f"the DuckDB extension {name!r} is not installed: "
                          f"pip install duckdb-extension-{name}=={duckdb.__version__}") from None
    path = package / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if not path.is_file():
        raise ImportError(f"duckdb-extension-{name} is not built for DuckDB {duckdb.__version__}: "
                          f"pip install duckdb-extension-{name}=={duckdb.__version__}")
    return path


def _text(value: str) -> str:
    """``value`` as a SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def _s3_secret(service: ServiceConfig) -> str:
    return (f"CREATE SECRET {S3_SECRET} (TYPE s3, KEY_ID {_text(service.access_key)}, "
            f"SECRET {_text(service.secret_key)}, REGION {_text(service.region)}, "
            f"ENDPOINT {_text(urlsplit(service.endpoint).netloc)}, URL_STYLE 'path', "
            f"USE_SSL {str(service.https).lower()})")


def duckdb(
    warehouse: str | None = None,
    *,
    auth: Literal["oauth2", "sigv4"] = "oauth2",
    alias: str = "lake",
    buckets: bool = True,
    service: ServiceConfig | None = None,
) -> DuckDBPyConnection:
    """An in-memory DuckDB connection with ``warehouse`` (else the default one; none known: nothing is
    attached) attached as ``alias``: ``con.sql("SELECT * FROM lake.ns.events")``. ``auth``: how the
    catalog is called, ``"oauth2"`` (tables' files through vended credentials) or ``"sigv4"``.
    ``buckets``: also create an S3 secret for the service's buckets (Delta tables, Parquet files);
    SigV4 always needs it. ``service``: that service instead of the environment's. A warehouse that
    cannot be attached (unknown, refused, unreachable) raises ``AIStorError`` with DuckDB's reason."""
    import duckdb as duckdb_module

    if auth not in ("oauth2", "sigv4"):
        raise ValueError(f"auth must be 'oauth2' or 'sigv4', not {auth!r}")
    if not alias.isidentifier():
        raise ValueError(f"alias must be a plain SQL identifier, not {alias!r}")
    service = resolve(service)
    connection = duckdb_module.connect(config={
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "extension_directory": str(cache_home() / "duckdb-extensions"),
    })
    for name in EXTENSIONS:
        connection.execute(f"LOAD {_text(str(extension_file(name)))}")
    if isinstance(service.verify, str):  # a private CA's bundle: httpfs' curl trusts only what it is told
        connection.execute(f"SET ca_cert_file = {_text(service.verify)}")
    if buckets or auth == "sigv4":
        connection.execute(_s3_secret(service))
    warehouse = warehouse or service.warehouse
    if warehouse:
        try:
            connection.execute(f"ATTACH {_text(warehouse)} AS {alias} (TYPE iceberg, "
                               f"ENDPOINT {_text(service.endpoint + '/_iceberg')}, {_auth(connection, service, auth)})")
        except duckdb_module.Error as exc:
            connection.close()
            raise AIStorError(f"DuckDB cannot attach the warehouse {warehouse!r} of {service.endpoint} "
                              f"({auth}): {str(exc).splitlines()[0]}") from None
    return connection


def _auth(connection: DuckDBPyConnection, service: ServiceConfig, auth: str) -> str:
    """The ATTACH options that authenticate the catalog's calls (creating the OAuth2 secret they name)."""
    if auth == "sigv4":
        return (f"AUTHORIZATION_TYPE 'sigv4', SECRET {S3_SECRET}, "
                f"SIGV4_SERVICE '{CATALOG_SIGNING_NAME}', SIGV4_REGION {_text(service.region)}")
    connection.execute(
        f"CREATE SECRET {OAUTH2_SECRET} (TYPE iceberg, CLIENT_ID {_text(service.access_key)}, "
        f"CLIENT_SECRET {_text(service.secret_key)}, "
        f"OAUTH2_SERVER_URI {_text(service.endpoint + '/_iceberg/v1/oauth/tokens')})"
    )
    return f"AUTHORIZATION_TYPE 'oauth2', SECRET {OAUTH2_SECRET}"
