"""Server-side encryption on the wire: the SSE request headers read into the store's values
(``headers``), the headers answers carry, and a bucket's default encryption document
(``bucket_config``, ``?encryption``). The encryption itself happens below, in ``store.encryption``.
"""
