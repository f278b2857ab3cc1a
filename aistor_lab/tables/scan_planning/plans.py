"""Plans the service holds for their clients: one still being planned (``submitted``), or a completed
one whose pages of file scan tasks are fetched by plan-task token. Each plan belongs to one caller and
one table; it lives until it is cancelled or ``lifetime_s`` after it was last used, and the store holds
at most ``max_bytes`` of encoded pages in all (the least recently used plans go first), so memory
stays bounded whatever clients leave behind.

A page is kept as the JSON text it is answered with: a few hundred bytes a task, where the same task
as Python objects would weigh several times that."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from ..errors import IcebergError

MAX_PLANS = 256
MAX_BYTES = 256 * 1024 * 1024
LIFETIME_S = 15 * 60


class NoSuchPlanIdException(IcebergError):
    type = "NoSuchPlanIdException"
    code = 404


class NoSuchPlanTaskException(IcebergError):
    type = "NoSuchPlanTaskException"
    code = 404


@dataclass(frozen=True)
class Owner:
    """Who may see a plan: the caller that made it, for one table."""

    user: str | None
    warehouse: str
    namespace: tuple[str, ...]
    table: str


@dataclass
class Plan:
    owner: Owner
    future: Future | None = None  # while planning; its result is the list of pages
    pages: list[str] = field(default_factory=list)  # each a ScanTasks object's JSON text
    used_at: float = 0.0
    recipe: str = ""  # how to plan it again (tokens.py), which its plan-task tokens carry

    @property
    def size(self) -> int:
        return sum(len(page) for page in self.pages)


class Plans:
    def __init__(self, *, lifetime_s: float = LIFETIME_S, max_plans: int = MAX_PLANS, max_bytes: int = MAX_BYTES,
                 now: Callable[[], float] = time.monotonic):
        self._plans: OrderedDict[str, Plan] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self._lifetime_s = lifetime_s
        self._max_plans = max_plans
        self._max_bytes = max_bytes
        self._now = now

    def add(self, owner: Owner, *, future: Future | None = None, pages: list[str] | None = None,
            plan_id: str | None = None, recipe: str = "") -> str:
        """A new plan, under a new id or (a plan planned again from its tokens) its own unless taken."""
        plan_id = plan_id or new_plan_id()
        with self._lock:
            self._plans.setdefault(plan_id, Plan(owner, future, pages or [], self._now(), recipe))
            self._evict()
        return plan_id

    def get(self, plan_id: str, owner: Owner) -> Plan:
        """A plan of this owner, marked used; another caller's plan does not exist for this one."""
        with self._lock:
            self._expire()
            plan = self._plans.get(plan_id)
            if plan is None or plan.owner != owner:
                raise NoSuchPlanIdException(f"No such plan: {plan_id}")
            plan.used_at = self._now()
            self._plans.move_to_end(plan_id)
            return plan

    def complete(self, plan_id: str, pages: list[str]) -> None:
        """A submitted plan's pages are in: it holds them instead of its planning."""
        with self._lock:
            plan = self._plans.get(plan_id)
            if plan is not None:
                plan.pages, plan.future = pages, None
                self._evict()

    def remove(self, plan_id: str, owner: Owner) -> None:
        plan = self.get(plan_id, owner)
        if plan.future is not None:
            plan.future.cancel()
        with self._lock:
            self._plans.pop(plan_id, None)

    def page(self, plan_id: str, number: int, owner: Owner) -> str:
        """Page ``number`` of a plan this owner made; the first page is answered with the plan."""
        try:
            plan = self.get(plan_id, owner)
        except NoSuchPlanIdException:
            raise NoSuchPlanTaskException(f"No such plan task: page {number} of {plan_id}") from None
        if not 0 < number < len(plan.pages):
            raise NoSuchPlanTaskException(f"No such plan task: page {number} of {plan_id}")
        return plan.pages[number]

    def _expire(self) -> None:
        oldest = self._now() - self._lifetime_s
        for plan_id in [plan_id for plan_id, plan in self._plans.items() if plan.used_at < oldest]:
            self._drop(plan_id)

    def _evict(self) -> None:
        self._expire()
        total = sum(plan.size for plan in self._plans.values())
        while self._plans and (len(self._plans) > self._max_plans or total > self._max_bytes):
            plan_id = next(iter(self._plans))
            total -= self._plans[plan_id].size
            self._drop(plan_id)

    def _drop(self, plan_id: str) -> None:
        plan = self._plans.pop(plan_id)
        if plan.future is not None:
            plan.future.cancel()


def new_plan_id() -> str:
    return secrets.token_urlsafe(18)
