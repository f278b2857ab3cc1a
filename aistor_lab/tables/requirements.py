"""TableRequirement and ViewRequirement checks (UpdateRequirement.java): a failed requirement is a
CommitFailedException (409); an unknown requirement type is a BadRequestException (400)."""

from __future__ import annotations

from collections.abc import Callable

from .errors import BadRequestException, CommitFailedException

ASSERT_CREATE = "assert-create"


def _field(requirement: dict, key: str, kind: type, *, nullable: bool = False):
    value = requirement.get(key)
    if value is None and nullable:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise BadRequestException(
            f"Invalid requirement {requirement.get('type')}: '{key}' is missing or invalid"
        )
    return value


def _table_uuid(req: dict, m: dict) -> None:
    expected = _field(req, "uuid", str)
    if expected.lower() != str(m["table-uuid"]).lower():
        raise CommitFailedException(
            f"Requirement failed: UUID does not match: expected {m['table-uuid']} != {expected}"
        )


def _ref_snapshot_id(req: dict, m: dict) -> None:
    name = _field(req, "ref", str)
    expected = _field(req, "snapshot-id", int, nullable=True)
    ref = m["refs"].get(name)
    if ref is not None:
        if expected is None:
            raise CommitFailedException(f"Requirement failed: {ref['type']} {name} was created concurrently")
        if expected != ref["snapshot-id"]:
            raise CommitFailedException(
                f"Requirement failed: {ref['type']} {name} has changed: "
                f"expected id {expected} != {ref['snapshot-id']}"
            )
    elif expected is not None:
        raise CommitFailedException(
            f"Requirement failed: branch or tag {name} is missing, expected {expected}"
        )


def _equal(req_key: str, meta_key: str, what: str) -> Callable[[dict, dict], None]:
    def check(req: dict, m: dict) -> None:
        expected = _field(req, req_key, int)
        if expected != m[meta_key]:
            raise CommitFailedException(
                f"Requirement failed: {what} changed: expected id {expected} != {m[meta_key]}"
            )

    return check


_TABLE_CHECKS: dict[str, Callable[[dict, dict], None]] = {
    "assert-table-uuid": _table_uuid,
    "assert-ref-snapshot-id": _ref_snapshot_id,
    "assert-last-assigned-field-id": _equal(
        "last-assigned-field-id", "last-column-id", "last assigned field id"
    ),
    "assert-current-schema-id": _equal("current-schema-id", "current-schema-id", "current schema"),
    "assert-last-assigned-partition-id": _equal(
        "last-assigned-partition-id", "last-partition-id", "last assigned partition id"
    ),
    "assert-default-spec-id": _equal("default-spec-id", "default-spec-id", "default partition spec"),
    "assert-default-sort-order-id": _equal(
        "default-sort-order-id", "default-sort-order-id", "default sort order"
    ),
}


def _types(requirements: object) -> list[dict]:
    if requirements is None:
        return []
    if not isinstance(requirements, list) or not all(isinstance(r, dict) for r in requirements):
        raise BadRequestException("Invalid commit: requirements must be a list of objects")
    return requirements


def is_create(requirements: object) -> bool:
    """True for a create transaction's commit; assert-create must then be the only requirement."""
    reqs = _types(requirements)
    if not any(r.get("type") == ASSERT_CREATE for r in reqs):
        return False
    others = [r.get("type") for r in reqs if r.get("type") != ASSERT_CREATE]
    if others:
        raise BadRequestException(f"Invalid create requirements: {others}")
    return True


def check_table_requirements(requirements: object, metadata: dict) -> None:
    """Check every requirement against the table's current metadata (the table exists)."""
    check_table_requirement_types(requirements)
    for req in _types(requirements):
        if req["type"] == ASSERT_CREATE:
            raise CommitFailedException("Requirement failed: table already exists")
        _TABLE_CHECKS[req["type"]](req, metadata)


def check_table_requirement_types(requirements: object) -> None:
    """Unknown requirement types are a 400 before anything is checked against the table."""
    for req in _types(requirements):
        kind = req.get("type")
        if not isinstance(kind, str) or (kind != ASSERT_CREATE and kind not in _TABLE_CHECKS):
            raise BadRequestException(f"Unknown table requirement: {req.get('type')!r}")


def check_view_requirements(requirements: object, metadata: dict) -> None:
    for req in _types(requirements):
        if req.get("type") != "assert-view-uuid":
            raise BadRequestException(f"Unknown view requirement: {req.get('type')!r}")
        expected = _field(req, "uuid", str)
        if expected.lower() != str(metadata["view-uuid"]).lower():
            raise CommitFailedException(
                "Requirement failed: view UUID does not match: "
                f"expected {metadata['view-uuid']} != {expected}"
            )
