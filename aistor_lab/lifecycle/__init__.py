"""Bucket lifecycle: S3's LifecycleConfiguration (parsed, validated, written back) and the background
runner that applies it, leaving alone the files of live Iceberg and shared Delta tables.

Plain Python over the store; the S3 API (``s3/lifecycle_ops.py``) and the service use this facade.
"""

from .bucket_rules import BucketRules
from .live_tables import IcebergTables, LiveTables, SharedTables
from .rules import Configuration, Rule
from .runner import CONFIG_NAME, LifecycleRunner
from .xml_config import LifecycleError, parse, to_xml

__all__ = [
    "CONFIG_NAME",
    "BucketRules",
    "Configuration",
    "IcebergTables",
    "LifecycleError",
    "LifecycleRunner",
    "LiveTables",
    "Rule",
    "SharedTables",
    "parse",
    "to_xml",
]
