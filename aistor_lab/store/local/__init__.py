"""The local-disk backend: immutable data files and an SQLite index (store.py says how they agree)."""

from .store import LocalStore

__all__ = ["LocalStore"]
