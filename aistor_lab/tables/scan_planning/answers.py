"""A planning answer as it is sent: its own fields (status, plan id, plan-task tokens, credentials)
and the page of tasks it carries, kept as the JSON text it was encoded to once, spliced in."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class PlanAnswer:
    fields: dict
    page: str | None = None  # a ScanTasks object's JSON text

    def with_fields(self, **fields) -> PlanAnswer:
        return replace(self, fields={**self.fields, **fields})

    @property
    def status(self) -> str | None:
        return self.fields.get("status")

    def encoded(self) -> str:
        if self.page is None:
            return json.dumps(self.fields)
        if not self.fields:
            return self.page
        # Both are JSON objects: the fields, then the page's members, in one object.
        return json.dumps(self.fields)[:-1] + ", " + self.page[1:]
