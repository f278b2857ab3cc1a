"""Each bucket's lifecycle configuration, parsed and kept briefly: GET, HEAD and PUT answers name the
rule that will expire the object (``x-amz-expiration``) without reading the configuration each time.
A configuration put or deleted through this process is seen at once; one changed by another server
in front of the same store, within ``ttl`` seconds.

The header counts real days, as S3 does, even when a test shortens the runner's day (Ceph RGW's
``rgw_lc_debug_interval`` does the same, and Ceph's s3-tests expect it)."""

from __future__ import annotations

from ..store import ObjectInfo, ObjectStore
from ..store.parsed_configs import ParsedConfigs
from .evaluation import current_expiry
from .rules import REAL_DAY_SECONDS, Configuration
from .runner import CONFIG_NAME
from .xml_config import parse


class BucketRules(ParsedConfigs[Configuration]):
    def __init__(self, store: ObjectStore):
        super().__init__(store, CONFIG_NAME, parse)

    def expiry(self, info: ObjectInfo) -> tuple[float, str] | None:
        """When the current version ``info`` expires, and by which rule; None when no rule expires it."""
        configuration = self.get(info.bucket)
        if configuration is None:
            return None
        return current_expiry(configuration.enabled_rules(), info, REAL_DAY_SECONDS)
