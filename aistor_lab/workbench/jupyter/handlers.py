"""The REST API of the side panel under ``<base_url>/aistor-lab/api/``, behind Jupyter's
authentication: each handler runs blocking client calls off Jupyter's event loop and answers JSON."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from jupyter_server.base.handlers import APIHandler
from jupyter_server.extension.handler import ExtensionHandlerMixin
from tornado import web
from tornado.ioloop import IOLoop

from ..client import AIStorClient, AIStorError, ServiceError, ServiceUnreachable
from ..commands.registry import HelpRequested, UsageError, execute, panel_front
from ..explore.views import view_details
from ..token_state import with_states
from .panel import namespace_children, table_details

if TYPE_CHECKING:
    from .extension import AIStorLabApp

API = "/aistor-lab/api"


def _error_status(exc: AIStorError) -> int:
    if isinstance(exc, UsageError):
        return 400
    if isinstance(exc, ServiceUnreachable):
        return 503
    if isinstance(exc, ServiceError) and 400 <= exc.status < 500:
        return exc.status
    return 502


class AIStorAPIHandler(ExtensionHandlerMixin, APIHandler):
    """Runs blocking client calls off Jupyter's event loop and answers JSON; errors are
    ``{"error": message}`` with a status that says whose fault it was."""

    @property
    def app(self) -> AIStorLabApp:
        return self.extensionapp  # type: ignore[return-value]

    @property
    def client(self) -> AIStorClient:
        return AIStorClient(self.app.service)

    def number(self, name: str, default: int) -> int:
        """A whole-number query argument; called inside ``answer``, whose 400 says what was wrong."""
        text = self.get_argument(name, str(default))
        if not text.isdigit():
            raise UsageError(f"{name} must be a whole number, not {text!r}")
        return int(text)

    async def answer(self, call, *args: Any) -> None:
        try:
            result = await IOLoop.current().run_in_executor(None, call, *args)
        except UsageError as exc:
            self.set_status(400)
            self.finish(json.dumps({"error": exc.message, "usage": exc.usage}))
            return
        except AIStorError as exc:
            self.set_status(_error_status(exc))
            self.finish(json.dumps({"error": exc.message}))
            return
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(result, default=str))


class StatusHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self) -> None:
        await self.answer(self.app.status)


class WarehousesHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self) -> None:
        await self.answer(self.client.list_warehouses)


class ChildrenHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self, warehouse: str) -> None:
        await self.answer(namespace_children, self.client, warehouse, self.get_argument("parent", None) or None)


class TableHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self, warehouse: str, namespace: str, table: str) -> None:
        try:
            preview_rows = int(self.get_argument("preview", "20"))
        except ValueError:
            raise web.HTTPError(400, "preview must be a number of rows") from None
        await self.answer(table_details, self.client, warehouse, namespace, table, preview_rows)


class TableRowsHandler(AIStorAPIHandler):
    """The explorer's grid: a page of a table's rows, of a snapshot, sorted and filtered."""

    @web.authenticated
    async def get(self, warehouse: str, namespace: str, table: str) -> None:
        from ..explore.iceberg_rows import table_rows  # pyarrow loads when first used, not with Jupyter

        options = {name: self.get_argument(arg, None) or None for name, arg in (
            ("sort", "sort"), ("filter_text", "filter"), ("columns", "columns"), ("snapshot", "snapshot"),
            ("as_of", "asOf"), ("ref", "ref"))}
        await self.answer(lambda: table_rows(self.client, warehouse, namespace, table,
                                             offset=self.number("offset", 0), limit=self.number("limit", 100),
                                             **options))


class TableProfileHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self, warehouse: str, namespace: str, table: str) -> None:
        from ..explore.profile import table_profile  # pyarrow loads when first used, not with Jupyter

        snapshot, columns = self.get_argument("snapshot", None) or None, self.get_argument("columns", None) or None
        await self.answer(lambda: table_profile(self.client, warehouse, namespace, table, snapshot=snapshot,
                                                columns=columns))


class ViewHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self, warehouse: str, namespace: str, view: str) -> None:
        await self.answer(view_details, self.client, warehouse, namespace, view)


class SharesHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self) -> None:
        await self.answer(self.client.list_shares)


class ShareHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self, share: str) -> None:
        await self.answer(self.client.get_share, share)


class TokensHandler(AIStorAPIHandler):
    @web.authenticated
    async def get(self, share: str) -> None:
        await self.answer(lambda: with_states(self.client.list_tokens(share)))


class CommandsHandler(AIStorAPIHandler):
    """The panel's actions: ``{"argv": ["share", "token", "create", "sales", "--expires", "30d"]}`` runs
    a command of the command table (without an alias) and answers its data, text and HTML."""

    @web.authenticated
    async def post(self) -> None:
        try:
            argv = json.loads(self.request.body or b"{}").get("argv")
        except (ValueError, AttributeError):
            argv = None
        if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
            raise web.HTTPError(400, 'expected {"argv": ["command", "arguments", ...]}')

        def run() -> dict:
            try:
                args, result = execute(argv, panel_front(), service=self.app.service)
            except HelpRequested as help_text:
                return {"help": help_text.text}
            return {"command": args._command.name, "data": result.data(), "text": result.text(),
                    "html": result.html()}

        await self.answer(run)


def routes() -> list[tuple[str, type[AIStorAPIHandler]]]:
    return [
        (f"{API}/status", StatusHandler),
        (f"{API}/warehouses", WarehousesHandler),
        (rf"{API}/warehouses/([^/]+)/children", ChildrenHandler),
        (rf"{API}/warehouses/([^/]+)/namespaces/([^/]+)/tables/([^/]+)", TableHandler),
        (rf"{API}/warehouses/([^/]+)/namespaces/([^/]+)/tables/([^/]+)/rows", TableRowsHandler),
        (rf"{API}/warehouses/([^/]+)/namespaces/([^/]+)/tables/([^/]+)/profile", TableProfileHandler),
        (rf"{API}/warehouses/([^/]+)/namespaces/([^/]+)/views/([^/]+)", ViewHandler),
        (f"{API}/shares", SharesHandler),
        (rf"{API}/shares/([^/]+)", ShareHandler),
        (rf"{API}/shares/([^/]+)/tokens", TokensHandler),
        (f"{API}/commands", CommandsHandler),
    ]
