"""The panel's REST API for what the store holds, beside the catalog tree of handlers.py: buckets and
objects, Delta tables in buckets, the search over everything, and shared tables as recipients see
them. The handlers read their arguments; the work is in ``workbench/browse``."""

from __future__ import annotations

from tornado import web

from ..browse import buckets, delta_tables, search, shared_view
from ..objects import ObjectClient, object_client
from .handlers import API, AIStorAPIHandler


class StoreHandler(AIStorAPIHandler):
    @property
    def objects(self) -> ObjectClient:
        return object_client(self.app.service)

    def argument(self, name: str) -> str | None:
        """A query argument, None when absent (an empty value stays "")."""
        return self.get_argument(name, None)


class BucketsHandler(StoreHandler):
    @web.authenticated
    async def get(self) -> None:
        await self.answer(buckets.list_buckets, self.objects, self.client)


class ObjectsHandler(StoreHandler):
    @web.authenticated
    async def get(self, bucket: str) -> None:
        # The continuation token travels as ?continuation=: Jupyter reads ?token= as its own login token.
        def page() -> dict:
            limit = buckets.check_limit(self.get_argument("limit", str(buckets.DEFAULT_PAGE)))
            return buckets.list_objects(self.objects, bucket, self.get_argument("prefix", ""),
                                        self.argument("continuation") or None, limit)

        await self.answer(page)

    @web.authenticated
    async def delete(self, bucket: str) -> None:
        await self.answer(buckets.delete, self.objects, bucket, self.argument("key"), self.argument("prefix"))


class ObjectHandler(StoreHandler):
    @web.authenticated
    async def get(self, bucket: str) -> None:
        await self.answer(buckets.object_details, self.objects, bucket, self.get_argument("key", ""))


class DeltaHandler(StoreHandler):
    @web.authenticated
    async def get(self, bucket: str) -> None:
        await self.answer(delta_tables.table_details, self.app.service, bucket, self.get_argument("path", ""))


class DeltaRowsHandler(StoreHandler):
    @web.authenticated
    async def get(self, bucket: str) -> None:
        def rows() -> dict:
            return delta_tables.table_rows(
                self.app.service, bucket, self.get_argument("path", ""), offset=self.number("offset", 0),
                limit=self.number("limit", 100), sort=self.argument("sort"), filter_text=self.argument("filter"),
                version=self.argument("version"))

        await self.answer(rows)


class SearchHandler(StoreHandler):
    @web.authenticated
    async def get(self) -> None:
        await self.answer(lambda: search.search(self.client, self.objects, self.get_argument("q", ""),
                                                self.number("limit", 50)))


class SharedTableHandler(StoreHandler):
    @web.authenticated
    async def get(self, share: str, schema: str, table: str) -> None:
        await self.answer(shared_view.shared_table, self.client, share, schema, table)


def routes() -> list[tuple[str, type[AIStorAPIHandler]]]:
    return [
        (f"{API}/buckets", BucketsHandler),
        (f"{API}/search", SearchHandler),
        (rf"{API}/shares/([^/]+)/schemas/([^/]+)/tables/([^/]+)", SharedTableHandler),
        (rf"{API}/buckets/([^/]+)/objects", ObjectsHandler),
        (rf"{API}/buckets/([^/]+)/object", ObjectHandler),
        (rf"{API}/buckets/([^/]+)/delta", DeltaHandler),
        (rf"{API}/buckets/([^/]+)/delta/rows", DeltaRowsHandler),
    ]
