"""Server-side scan planning (the REST spec's planTableScan, fetchPlanningResult, cancelPlanning and
fetchScanTasks): the service chooses a scan's files from manifests it parsed once and keeps. The
planning itself is ``service.ScanPlanning``, which ``Catalog.scan_planning`` imports at the first
plan (it loads PyIceberg's readers); what the HTTP side needs before that is here."""

from .answers import PlanAnswer
from .plans import Owner
from .shapes import FETCH_SCAN_TASKS, PLAN_TABLE_SCAN

__all__ = ["FETCH_SCAN_TASKS", "PLAN_TABLE_SCAN", "Owner", "PlanAnswer"]
