"""The shapes of the planning requests' bodies (as tables/bodies.py gives the catalog's), checked
before a request is authorized."""

from __future__ import annotations

from .. import bodies

# The JSON types of the fields (PyIceberg's model, which reads the body next, would take "yes" for
# true); the filter's shape is checked by that model.
PLAN_TABLE_SCAN = bodies.obj(optional={
    "snapshot-id": bodies.INTEGER, "start-snapshot-id": bodies.INTEGER, "end-snapshot-id": bodies.INTEGER,
    "select": bodies.STRINGS, "stats-fields": bodies.STRINGS, "case-sensitive": bodies.BOOLEAN,
    "use-snapshot-schema": bodies.BOOLEAN, "min-rows-requested": bodies.INTEGER,
})
FETCH_SCAN_TASKS = bodies.obj({"plan-task": bodies.STRING})
