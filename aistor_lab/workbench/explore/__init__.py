"""The table explorer's server side: pages of rows (grid), Iceberg scans with time travel, table
overviews and schema history, column profiles and view details. Plain Python: the Jupyter handlers
answer these as JSON."""
