"""The admin API for Delta Sharing under ``/_aistor/admin/v1``: shares, tokens, OAuth clients and
the audit log (what ``aistor table share ...`` drives, as ``mc table share ...`` does). JSON in and out.

    GET    /shares                        list shares                           admin:DeltaSharingListShares
    POST   /shares                        create {"name", "schema", "tables": ["NAME:delta:BUCKET:PATH" |
                                          "NAME:uniform:WAREHOUSE:NAMESPACE:TABLE", ...], "description",
                                          "requireExisting"}
                                                                                admin:DeltaSharingCreateShare
    GET    /shares/{share}                info: schemas, tables, kinds, locations  admin:DeltaSharingGetShare
    PATCH  /shares/{share}                update {"add": ["SCHEMA:NAME:delta|uniform:..."],
                                          "remove": ["SCHEMA/TABLE"], "description", "requireExisting"}
                                                                                admin:DeltaSharingUpdateShare
    DELETE /shares/{share}                remove, with its tokens and clients   admin:DeltaSharingDeleteShare
    GET    /shares/{share}/tokens         list tokens (no secrets)              admin:DeltaSharingListTokens
    POST   /shares/{share}/tokens         create {"expires": "30d", "description"}: the secret, once, and
                                          a ready profile.share                 admin:DeltaSharingCreateToken
    DELETE /shares/{share}/tokens/{id}    revoke                                admin:DeltaSharingDeleteToken
    GET    /shares/{share}/clients        list OAuth clients                    admin:DeltaSharingListTokens
    POST   /shares/{share}/clients        create {"description"}: id, secret (once), v2 profile
                                                                                admin:DeltaSharingCreateToken
    DELETE /shares/{share}/clients/{id}   delete, revoking its access tokens    admin:DeltaSharingDeleteToken
    GET    /shares/{share}/audit?limit=N  the newest N audit records            admin:GetTableShareAudit
    POST   /shares/{share}/schemas/{schema}/tables/{table}/checkpoint
                                          a Delta checkpoint of a shared Delta table's latest version
                                          (sharing/delta_checkpoint.py): {"version", "path", "written",
                                          "addFiles", "bytes"}; an Iceberg table: 400
                                                                                admin:DeltaSharingUpdateShare

The action names are AIStor's (``mc table share`` needs the same); ``admin:DeltaSharing`` grants them
all, and this server's older names (``admin:ListTableShares``...) remain aliases (iam/action_names.py).
Signed and authorized like the IAM admin API (iam_handlers.py); errors are ``{"code", "message"}``
with the sharing error codes (RESOURCE_DOES_NOT_EXIST, INVALID_PARAMETER_VALUE, ...).
Putting tables in a share (create, update --add) also needs the caller's own read rights on each
table (sharing/creator_rights.py); without them: 403 AccessDenied naming the missing permission.
What each entry names is then looked up (sharing/entry_checks.py): what is missing is listed in the
answer's ``warnings``, or with ``"requireExisting": true`` refused (404), a Delta path without a
``_delta_log/`` in an existing bucket excepted (a warning still).
These routes must come before iam_handlers' catch-all for unknown admin paths.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..iam import IAMError
from ..sharing.creator_rights import CreatorRights
from ..sharing.entry_checks import EntryChecks, checked
from ..sharing.errors import InvalidParameter, PermissionDenied, SharingError
from ..sharing.shares import TableSpec
from .iam_handlers import PREFIX, Actions, AdminHandler, Fields

LIST_SHARES = "admin:DeltaSharingListShares"
CREATE_SHARE = "admin:DeltaSharingCreateShare"
GET_SHARE = "admin:DeltaSharingGetShare"
UPDATE_SHARE = "admin:DeltaSharingUpdateShare"
DELETE_SHARE = "admin:DeltaSharingDeleteShare"
LIST_TOKENS = "admin:DeltaSharingListTokens"
CREATE_TOKEN = "admin:DeltaSharingCreateToken"
REVOKE_TOKEN = "admin:DeltaSharingDeleteToken"
GET_AUDIT = "admin:GetTableShareAudit"
MAX_VERSIONS = 1000  # each is a commit's time to read


class ShareAdminHandler(AdminHandler):
    """AdminHandler whose calls may raise sharing errors: they answer with their code and status."""

    async def serve(self, actions: Actions, call: Callable[[], Any], status: int = 200,
                    body: Fields | None = None) -> None:
        def translated() -> Any:
            try:
                return call()
            except PermissionDenied as exc:  # the caller's own rights: the admin API's denial code
                raise IAMError("AccessDenied", exc.message, exc.status) from None
            except SharingError as exc:
                raise IAMError(exc.code, exc.message, exc.status) from None

        await super().serve(actions, translated, status, body)

    def _authenticate(self) -> str:
        self.access_key = super()._authenticate()
        return self.access_key

    def body_error(self, message: str) -> IAMError:
        return IAMError(InvalidParameter.code, message, InvalidParameter.status)

    @property
    def sharing(self):
        return self.services.sharing

    def vet(self, body: dict, warnings: list[str]) -> Callable[[TableSpec], None]:
        """Vets the tables the caller puts in a share: only tables it may read itself; then looks up what
        each names (entry_checks.py): its findings join ``warnings``, or with ``requireExisting`` refuse
        what does not exist."""
        rights = CreatorRights(self.services.iam, self.services.catalog, self.access_key)
        checks = EntryChecks(self.services.store, self.services.catalog)
        return checked(rights, checks, bool(body.get("requireExisting")), warnings)


def _with_warnings(info: dict, warnings: list[str]) -> dict:
    return {**info, "warnings": warnings} if warnings else info


class SharesHandler(ShareAdminHandler):
    async def get(self) -> None:
        await self.serve([LIST_SHARES], lambda: [s.summary() for s in self.sharing.shares.list()])

    async def post(self) -> None:
        def create() -> dict:
            body = self.json_object()
            warnings: list[str] = []
            share = self.sharing.shares.create(body.get("name"), body.get("schema"), body.get("tables") or [],
                                               body.get("description") or "", vet=self.vet(body, warnings))
            return _with_warnings(share.info(), warnings)

        await self.serve([CREATE_SHARE], create, status=201,
                         body={"name": str, "schema": str, "tables": list, "description": str,
                               "requireExisting": bool})


class ShareHandler(ShareAdminHandler):
    async def get(self, share: str) -> None:
        await self.serve([GET_SHARE], lambda: self.sharing.shares.get(share).info())

    async def patch(self, share: str) -> None:
        def update() -> dict:
            body = self.json_object()
            warnings: list[str] = []
            changed = self.sharing.shares.update(share, add=body.get("add") or [], remove=body.get("remove") or [],
                                                 description=body.get("description"), vet=self.vet(body, warnings))
            return _with_warnings(changed.info(), warnings)

        await self.serve([UPDATE_SHARE], update,
                         body={"add": list, "remove": list, "description": str, "requireExisting": bool})

    async def delete(self, share: str) -> None:
        await self.serve([DELETE_SHARE], lambda: self.sharing.remove_share(share))


class TokensHandler(ShareAdminHandler):
    async def get(self, share: str) -> None:
        await self.serve([LIST_TOKENS], lambda: self.sharing.list_tokens(share))

    async def post(self, share: str) -> None:
        def create() -> dict:
            body = self.json_object()
            return self.sharing.create_token(share, body.get("expires"), body.get("description") or "")

        await self.serve([CREATE_TOKEN], create, status=201, body={"expires": (str, int), "description": str})


class TokenHandler(ShareAdminHandler):
    async def delete(self, share: str, token_id: str) -> None:
        await self.serve([REVOKE_TOKEN], lambda: self.sharing.tokens.revoke(share, token_id).info())


class ClientsHandler(ShareAdminHandler):
    async def get(self, share: str) -> None:
        await self.serve([LIST_TOKENS], lambda: self.sharing.list_clients(share))

    async def post(self, share: str) -> None:
        def create() -> dict:
            return self.sharing.create_client(share, self.json_object().get("description") or "")

        await self.serve([CREATE_TOKEN], create, status=201, body={"description": str})


class ClientHandler(ShareAdminHandler):
    async def delete(self, share: str, client_id: str) -> None:
        await self.serve([REVOKE_TOKEN], lambda: self.sharing.clients.delete(share, client_id).info())


class TableVersionsHandler(ShareAdminHandler):
    """The versions recipients may read of one shared table (the side panel's recipient view)."""

    async def get(self, share: str, schema: str, table: str) -> None:
        limit = self.get_query_argument("limit", "50")

        def read() -> dict:
            if not limit.isdigit() or not 1 <= int(limit) <= MAX_VERSIONS:
                raise InvalidParameter(f"limit must be a number from 1 to {MAX_VERSIONS}, got {limit!r}")
            return self.sharing.table_versions(share, schema, table, int(limit))

        await self.serve([GET_SHARE], read)


class TableCheckpointHandler(ShareAdminHandler):
    """A checkpoint of one shared Delta table: it changes what the share serves from (its log), so it
    is authorized as a change of the share."""

    async def post(self, share: str, schema: str, table: str) -> None:
        await self.serve([UPDATE_SHARE], lambda: self.sharing.checkpoint_table(share, schema, table))


class AuditHandler(ShareAdminHandler):
    async def get(self, share: str) -> None:
        limit = self.get_query_argument("limit", "100")

        def read() -> list[dict]:
            if not limit.isdigit():
                raise InvalidParameter(f"limit must be a number, got {limit!r}")
            return self.sharing.audit.read(share, int(limit))

        await self.serve([GET_AUDIT], read)


def routes(services: Any) -> list:
    """URL specs for the Application, to be placed before ``iam_handlers.routes``."""
    args = {"services": services}
    segment = "([^/]+)"
    return [
        (f"{PREFIX}/shares", SharesHandler, args),
        (f"{PREFIX}/shares/{segment}", ShareHandler, args),
        (f"{PREFIX}/shares/{segment}/tokens", TokensHandler, args),
        (f"{PREFIX}/shares/{segment}/tokens/{segment}", TokenHandler, args),
        (f"{PREFIX}/shares/{segment}/clients", ClientsHandler, args),
        (f"{PREFIX}/shares/{segment}/clients/{segment}", ClientHandler, args),
        (f"{PREFIX}/shares/{segment}/audit", AuditHandler, args),
        (f"{PREFIX}/shares/{segment}/schemas/{segment}/tables/{segment}/versions", TableVersionsHandler, args),
        (f"{PREFIX}/shares/{segment}/schemas/{segment}/tables/{segment}/checkpoint", TableCheckpointHandler, args),
    ]
