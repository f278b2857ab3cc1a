"""What every HTTP API of the service shares, on tornado: connection and stall limits, and the small
JSON request bodies read only for callers the headers have not refused. A package of its own so that
the APIs (s3/, admin/, tables/api/, sharing/api/) use it without importing the service that
assembles them."""
