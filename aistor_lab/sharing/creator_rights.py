"""A share never widens access: whoever puts a table in a share (creating the share with it, or adding
it later) must be able to read that table themselves, as AIStor requires of share creators.

For a ``delta:`` table that is ``s3:GetObject`` on ``arn:aws:s3:::BUCKET/PATH/*`` and ``s3:ListBucket``
on the bucket with ``s3:prefix`` ``PATH/``; for a ``uniform:`` table, ``s3tables:GetTable`` on the table
and the same two S3 rights on its location. The root user has them all, except on the system bucket,
which no policy can grant: so not even root can share it. Root may also name an Iceberg table that does
not exist yet (its rights do not depend on where the table will be); anyone else needs it to exist, as
its location decides the S3 rights needed.
"""

from __future__ import annotations

from ..iam import IAM, TABLE, entry_arns, s3_arn
from ..store.locations import OutsideScope, Scope
from ..tables import Catalog, IcebergError
from .errors import InvalidParameter, NotFound, PermissionDenied
from .shares import DELTA, TableSpec


class CreatorRights:
    """Vets each table a user puts in a share; a callable for ShareRegistry.create and update."""

    def __init__(self, iam: IAM, catalog: Catalog, access_key: str):
        self._iam = iam
        self._catalog = catalog
        self._access_key = access_key

    def __call__(self, spec: TableSpec) -> None:
        if spec.kind == DELTA:
            self._require_read(spec, Scope(spec.bucket, spec.path))
            return
        if self._iam.is_root(self._access_key):
            return
        # By name, and by uuid when it exists, as the catalog authorizes it (a missing table is found out after).
        uuid = self._catalog.entry_uuid(spec.warehouse, list(spec.namespace), spec.table, TABLE)
        name, *other_names = entry_arns(spec.warehouse, TABLE, ".".join(spec.namespace), spec.table, uuid)
        self._require(spec, "s3tables:GetTable", name, other_names=other_names)
        self._require_read(spec, self._iceberg_scope(spec))

    def _require_read(self, spec: TableSpec, scope: Scope) -> None:
        self._require(spec, "s3:GetObject", s3_arn(scope.bucket, f"{scope.folder}/*"))
        self._require(spec, "s3:ListBucket", s3_arn(scope.bucket), {"s3:prefix": f"{scope.folder}/"})

    def _require(self, spec: TableSpec, action: str, resource: str, context: dict | None = None,
                 other_names: list[str] | None = None) -> None:
        if not self._iam.is_allowed(self._access_key, action, resource, context, other_names=other_names or ()):
            condition = f" (s3:prefix {context['s3:prefix']})" if context else ""
            raise PermissionDenied(f"sharing table {spec.name!r} ({spec.location}) needs your own {action} "
                                   f"on {resource}{condition}")

    def _iceberg_scope(self, spec: TableSpec) -> Scope:
        try:
            result = self._catalog.tables.load(spec.warehouse, list(spec.namespace), spec.table)
        except IcebergError as exc:
            if exc.code == 404:
                raise NotFound(f"Iceberg table {spec.location} does not exist") from None
            raise InvalidParameter(f"Iceberg table {spec.location}: {exc.message}") from None
        location = result.body["metadata"]["location"]  # type: ignore[index]
        try:
            return Scope.of(location)
        except OutsideScope as exc:
            raise InvalidParameter(f"Iceberg table {spec.location} cannot be shared: {exc}") from None
