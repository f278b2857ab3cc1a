"""The admin API's view of the lifecycle runner, under ``/_aistor/admin/v1``. JSON out.

    GET /lifecycle/{bucket}     the bucket's last lifecycle run: when, how many versions it looked at,
                                what it removed (expired, noncurrentDeleted, deleteMarkersRemoved,
                                uploadsAborted), what it left because a live table holds it (skipped,
                                skippedFiles: key, versionId, action, rule, reason), whether the walk
                                reached the end of the bucket, and where the next run continues
                                                                    s3:GetLifecycleConfiguration on the bucket

Signed and answered like the IAM admin API (iam_handlers.py); a bucket that does not exist is 404
NoSuchBucket, one never run yet answers only its name.
"""

from __future__ import annotations

from typing import Any

from ..iam import IAMError
from ..store import NoSuchBucket
from .iam_handlers import PREFIX, AdminHandler

GET_LIFECYCLE = "s3:GetLifecycleConfiguration"


class LifecycleReportHandler(AdminHandler):
    async def get(self, bucket: str) -> None:
        def report() -> dict:
            store = self.services.store
            missing = IAMError("NoSuchBucket", f"bucket {bucket!r} does not exist", 404)
            if store.is_system_bucket(bucket):  # as in the S3 API: not there, whoever asks
                raise missing
            if not self.services.iam.is_allowed(self._authenticate(), GET_LIFECYCLE, f"arn:aws:s3:::{bucket}"):
                raise IAMError("AccessDenied", "Access Denied.", 403)
            try:
                store.get_bucket(bucket)
            except NoSuchBucket:
                raise missing from None
            return {"bucket": bucket, **(self.services.lifecycle.report(bucket) or {})}

        # The action concerns the bucket, not the admin resource: report() checks it.
        await self.serve([], report)


def routes(services: Any) -> list:
    """URL specs; they must come before iam_handlers' catch-all for unknown admin paths."""
    return [(f"{PREFIX}/lifecycle/([^/]+)", LifecycleReportHandler, {"services": services})]
