"""The service: the one server process that serves S3 at ``/``, the Iceberg REST catalog at
``/_iceberg``, Delta Sharing at ``/delta-sharing`` and admin and health at ``/_aistor``.

``app`` builds the tornado application from the packages below it; ``cli`` is ``aistor-lab``.
"""
