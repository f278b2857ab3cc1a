"""Delta Sharing on HTTP at ``/delta-sharing``: tornado handlers and routes over ``SharingService``."""
