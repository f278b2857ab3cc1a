"""The Principal element of resource (bucket) policies: who a statement speaks of.

Accepted forms, as AWS and MinIO write them: ``"*"`` or ``{"AWS": "*"}`` (everyone, anonymous
callers included); ``{"AWS": [...]}`` naming users as ``arn:aws:iam::ACCOUNT:user/NAME``, the
service's root user as ``arn:aws:iam::ACCOUNT:root``, or a bare access key; ``{"CanonicalUser": ...}``
with access keys (the owner IDs ACL answers show). The account part is not checked: this service is
one account, as a MinIO deployment is. ``{"Service": ...}`` and ``{"Federated": ...}`` principals are
valid (tools write them, for log delivery say) and name no caller of this service. An anonymous
caller is the access key ``""``: only ``*`` names it.
"""

from __future__ import annotations

from collections.abc import Mapping

from .errors import MalformedPolicy

ANONYMOUS = ""
ROOT_NAME = ":root"  # marks the root user among named principals
_KINDS = ("AWS", "CanonicalUser")
_FOREIGN_KINDS = ("Service", "Federated")  # principals of other services: valid, naming no caller here


class Principals:
    __slots__ = ("everyone", "names")

    def __init__(self, raw: object, where: str):
        self.everyone = raw == "*"
        names: set[str] = set()
        if not self.everyone:
            if not isinstance(raw, Mapping) or not raw or set(raw) - set(_KINDS + _FOREIGN_KINDS):
                raise MalformedPolicy(f'{where}: Principal must be "*" or an object of '
                                      f'{" / ".join(_KINDS + _FOREIGN_KINDS)} principals')
            for kind, value in raw.items():
                values = value if isinstance(value, list) else [value]
                if not values or not all(isinstance(v, str) and v for v in values):
                    raise MalformedPolicy(f"{where}: Principal.{kind} must be a non-empty string or list")
                if kind in _FOREIGN_KINDS:
                    continue
                for value in values:
                    if value == "*":
                        self.everyone = True
                    else:
                        names.add(_principal_name(value, where))
        self.names = frozenset(names)

    def includes(self, access_key: str, is_root: bool) -> bool:
        if self.everyone:
            return True
        if access_key == ANONYMOUS:
            return False
        return access_key in self.names or (is_root and ROOT_NAME in self.names)


def _principal_name(value: str, where: str) -> str:
    if not value.startswith("arn:"):
        return value
    parts = value.split(":", 5)
    if len(parts) != 6 or parts[2] != "iam":
        raise MalformedPolicy(f"{where}: {value!r} is not a principal (arn:aws:iam::ACCOUNT:user/NAME)")
    resource = parts[5]
    if resource == "root":
        return ROOT_NAME
    if resource.startswith("user/") and len(resource) > len("user/"):
        return resource.rpartition("/")[2]
    raise MalformedPolicy(f"{where}: {value!r} is not a principal (arn:aws:iam::ACCOUNT:user/NAME)")
