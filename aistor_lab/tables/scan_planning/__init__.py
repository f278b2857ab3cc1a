"""Server-side scan planning (the REST spec's planTableScan, fetchPlanningResult, cancelPlanning and
fetchScanTasks): the service chooses a scan's files from manifests it parsed once and keeps."""

from .plans import Owner
from .request import FETCH_SCAN_TASKS, PLAN_TABLE_SCAN
from .service import ScanPlanning

__all__ = ["FETCH_SCAN_TASKS", "PLAN_TABLE_SCAN", "Owner", "ScanPlanning"]
