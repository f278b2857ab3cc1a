"""Every engine in the notebook: one function per engine that hands it the service's configuration
(the environment's, which JupyterLab exports to kernels, unless ``service=`` names another).

    from aistor_lab.workbench import engines

    con = engines.duckdb()                                  # the default warehouse attached as `lake`
    con.sql("SELECT * FROM lake.ns.events").df()            # ... and pandas
    con.sql("SELECT * FROM delta_scan('s3://bucket/path')")

    engines.polars_scan_iceberg("ns.events").collect()      # pl.scan_iceberg with the storage options
    pl.scan_delta("s3://bucket/path", storage_options=engines.polars_storage_options())
    engines.polars_shared_table("profile.share", "share.schema.table")

    engines.daft_read_iceberg("ns.events").to_pandas()
    df.write_iceberg(engines.iceberg_table("ns.events"))
    daft.read_deltalake("s3://bucket/path", io_config=engines.daft_io_config())

Each engine's package is imported only when its function is called.
"""

from .daft_engine import daft_io_config, daft_read_iceberg
from .duckdb_engine import duckdb
from .polars_engine import polars_scan_iceberg, polars_shared_table, polars_storage_options
from .service import iceberg_table

__all__ = [
    "daft_io_config",
    "daft_read_iceberg",
    "duckdb",
    "iceberg_table",
    "polars_scan_iceberg",
    "polars_shared_table",
    "polars_storage_options",
]
