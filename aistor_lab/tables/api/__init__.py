"""The catalog on HTTP at ``/_iceberg``: tornado handlers and routes over ``tables.Catalog`` (handlers),
and the OAuth2 token endpoint (oauth)."""
