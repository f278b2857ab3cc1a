"""Every engine in the notebook: one function per engine that hands it the service's configuration
(the environment's, which JupyterLab exports to kernels, unless ``service=`` names another).

    from aistor_lab.workbench import engines

    con = engines.duckdb()                                  # the default warehouse attached as `lake`
    con.sql("SELECT * FROM lake.ns.events").df()            # ... and pandas
    con.sql("SELECT * FROM delta_scan('s3://bucket/path')")

Each engine's package is imported only when its function is called.
"""

from .duckdb_engine import duckdb
from .service import iceberg_table

__all__ = [
    "duckdb",
    "iceberg_table",
]
