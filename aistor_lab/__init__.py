"""aistor-lab: an S3 object store, an Iceberg REST catalog and a Delta Sharing server for notebooks."""

__version__ = "0.1.0"
