"""Table maintenance run by the catalog: snapshot expiry, unreferenced-file removal, compaction and
manifest rewriting, each with a dry run, recorded, and scheduled in the background.

Operations work on PyIceberg tables whose loads and commits are the catalog's own
(service_catalog.py) and whose files are the store's objects (store_filesystem.py).
"""
