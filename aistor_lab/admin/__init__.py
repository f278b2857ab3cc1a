"""The admin API under ``/_aistor/admin/v1``: what the CLI, the magics and the side panel call.

Each module exposes ``routes(services) -> list`` of tornado URL specs.
"""
