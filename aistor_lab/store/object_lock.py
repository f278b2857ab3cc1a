"""S3 Object Lock of one object version: a retention (GOVERNANCE or COMPLIANCE, until a date) and a
legal hold, and the rules both backends apply atomically with the write they guard.

A version under retention or legal hold cannot be removed (a delete without a version id only adds
a delete marker, which is allowed). GOVERNANCE gives way to a caller that asks to bypass it (the S3
layer checks that it may); COMPLIANCE gives way to no one until its date, and can only be extended.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ObjectLocked

GOVERNANCE = "GOVERNANCE"
COMPLIANCE = "COMPLIANCE"
MODES = (GOVERNANCE, COMPLIANCE)


@dataclass(frozen=True)
class ObjectLock:
    mode: str | None = None  # GOVERNANCE, COMPLIANCE, or None: no retention
    retain_until: float | None = None  # epoch seconds; set exactly when mode is
    legal_hold: bool = False

    def __bool__(self) -> bool:
        return self.mode is not None or self.legal_hold

    def retained(self, now: float) -> bool:
        return self.mode is not None and self.retain_until is not None and self.retain_until > now

    def to_json(self) -> dict | None:
        if not self:
            return None
        return {"mode": self.mode, "until": self.retain_until, "hold": self.legal_hold}

    @classmethod
    def from_json(cls, value: dict | None) -> ObjectLock:
        if not value:
            return NO_LOCK
        return cls(value.get("mode"), value.get("until"), bool(value.get("hold")))


NO_LOCK = ObjectLock()


def check_removal(lock: ObjectLock, now: float, bypass_governance: bool) -> None:
    """Raise ObjectLocked unless a version with this lock may be removed for good."""
    if lock.legal_hold:
        raise ObjectLocked("The object version is under a legal hold.")
    if lock.retained(now) and (lock.mode == COMPLIANCE or not bypass_governance):
        raise ObjectLocked("The object version is protected by object lock retention.")


def check_change(old: ObjectLock, new: ObjectLock, now: float, bypass_governance: bool) -> None:
    """Raise ObjectLocked unless a version's retention may go from ``old`` to ``new``: an active
    retention can be extended; shortened, removed or made GOVERNANCE only when GOVERNANCE is bypassed."""
    if not old.retained(now):
        return
    extended = new.mode == old.mode and (new.retain_until or 0) >= (old.retain_until or 0)
    if extended or (old.mode == GOVERNANCE and bypass_governance):
        return
    raise ObjectLocked("The object version's retention cannot be shortened or removed.")
