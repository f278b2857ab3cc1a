"""Builds and runs the one HTTP server: S3 at /, the Iceberg REST catalog at /_iceberg, admin and
health at /_aistor. One process, one port, several APIs, as AIStor does.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from tornado.routing import Rule
from tornado.web import Application

from ..admin import iam_handlers, lifecycle_handlers
from ..admin import sharing_handlers as sharing_admin_handlers
from ..http.limits import (
    DEFAULT_BODY_LIMIT,
    MAX_HEADER_SIZE,
    LimitedHTTPServer,
    connection_allowance,
    keep_alive_hint,
)
from ..iam import IAM
from ..lifecycle import BucketRules, LifecycleRunner, LiveTables
from ..s3 import S3Handler
from ..s3.bucket_access import BucketAccess
from ..s3.cors import CorsConfiguration, bucket_cors
from ..s3.protection import TableGuard
from ..s3.virtual_hosts import VirtualHosts
from ..settings import Settings
from ..sharing import SharingService
from ..sharing.api import handlers as sharing_handlers
from ..store import LocalStore, ObjectStore, RemoteS3Store
from ..store.encryption import MasterKeys
from ..store.encryption.store import EncryptingStore
from ..store.parsed_configs import ParsedConfigs
from ..tables import Catalog
from ..tables.api import handlers as catalog_handlers
from ..tables.api import maintenance_handlers, planning_handlers
from ..tables.maintenance.runner import Maintenance
from ..tls import server_context
from .background import every
from .health import ROUTES as HEALTH_ROUTES
from .health import HealthHandler

log = logging.getLogger("aistor_lab")

# Bigger reads of request bodies mean fewer Python calls per MiB uploaded.
BODY_CHUNK_SIZE = 512 * 1024


@dataclass
class Services:
    """What every API handler needs: the settings, the store, the IAM, the catalog, a thread pool."""

    settings: Settings
    store: ObjectStore
    iam: IAM
    catalog: Catalog
    table_guard: TableGuard
    executor: ThreadPoolExecutor
    sharing: SharingService
    lifecycle: LifecycleRunner
    lifecycle_rules: BucketRules
    maintenance: Maintenance
    sse_keys: MasterKeys  # the keys that seal objects' data keys (SSE-S3, SSE-KMS)
    bucket_access: BucketAccess  # each bucket's policy, ACL and public access block
    cors: ParsedConfigs[CorsConfiguration]  # each bucket's CORS rules, kept briefly

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.store.close()


def open_store(settings: Settings) -> ObjectStore:
    """The local disk by default; an existing S3 endpoint when one is configured (scale-out:
    several stateless servers in front of one S3 cluster)."""
    if not settings.store_endpoint:
        return LocalStore(settings.data_dir)
    return RemoteS3Store(
        settings.store_endpoint,
        settings.store_access_key or settings.root_user,
        settings.store_secret_key or settings.root_password,
        region=settings.store_region,
        system_bucket=settings.store_system_bucket,
    )


def open_services(settings: Settings) -> Services:
    sse_keys = MasterKeys.from_key_ring(settings.root_user, settings.root_password, settings.kms_keys, settings.kms_key)
    # Encryption at rest sits below every service: the catalog and sharing read and write through it.
    store = EncryptingStore(open_store(settings), sse_keys)
    # Engines whose AWS SDK needs a region for S3FileIO (Spark with the documented configuration,
    # which sets none) take it from the catalog's config defaults.
    catalog = Catalog(store, config_defaults={"client.region": settings.region})
    sharing = SharingService(store, catalog, settings)
    return Services(
        settings=settings,
        store=store,
        iam=IAM(store, settings.root_user, settings.root_password, kms_key=settings.kms_key),
        catalog=catalog,
        table_guard=TableGuard(catalog, store, sharing),
        executor=ThreadPoolExecutor(max_workers=16, thread_name_prefix="store"),
        sharing=sharing,
        lifecycle=LifecycleRunner(store, LiveTables(catalog, sharing), day_seconds=settings.lifecycle_day_seconds,
                                  batch_size=settings.lifecycle_batch_size),
        lifecycle_rules=BucketRules(store),
        maintenance=Maintenance(catalog, store, interval_seconds=settings.maintenance_interval_seconds),
        sse_keys=sse_keys,
        bucket_access=BucketAccess(store, settings.root_user),
        cors=bucket_cors(store),
    )


def log_request(handler) -> None:
    """Log failures only: a line per request costs more than serving a small object."""
    status = handler.get_status()
    if status >= 500:
        log.warning("%d %s %s", status, handler.request.method, handler.request.uri)
    elif log.isEnabledFor(logging.DEBUG):
        log.debug("%d %s %s", status, handler.request.method, handler.request.uri)


def make_app(services: Services) -> Application:
    kwargs = {"services": services}
    routes: list = []
    if services.settings.domains:
        routes.append(Rule(VirtualHosts(services.settings.domains), [(r"/.*", S3Handler, kwargs)]))
    routes += [(pattern, HealthHandler, kwargs) for pattern in HEALTH_ROUTES]
    routes += sharing_admin_handlers.routes(services)  # before the IAM API's catch-all
    routes += lifecycle_handlers.routes(services)  # so is this
    routes += iam_handlers.routes(services)
    routes += maintenance_handlers.routes(services)  # before the catalog's catch-all
    routes += planning_handlers.routes(services)  # so are these
    routes += catalog_handlers.routes(services)
    routes += sharing_handlers.routes(services)
    routes.append((r"/.*", S3Handler, kwargs))
    return Application(routes, compress_response=False, log_function=log_request,
                       transforms=[keep_alive_hint(services.settings.header_timeout_seconds)])


async def watch_parent(parent_pid: int, stopping: asyncio.Event, interval: float = 1.0) -> None:
    """Sets ``stopping`` once ``parent_pid`` is no longer our parent (it died and we were re-parented)."""
    while not stopping.is_set():
        if os.getppid() != parent_pid:
            log.warning("parent process %d is gone; stopping", parent_pid)
            stopping.set()
            return
        await asyncio.sleep(interval)


async def serve(settings: Settings, ready=None) -> None:
    """Serve until SIGTERM, SIGINT or the death of ``settings.parent_pid``, then stop accepting, finish,
    and close the store. With a certs directory every API is served over TLS only
    (tls.CertificateError when its files do not do)."""
    ssl_context = server_context(settings.certs_dir) if settings.certs_dir else None
    services = open_services(settings)
    server = LimitedHTTPServer(
        make_app(services),
        ssl_options=ssl_context,
        max_body_size=DEFAULT_BODY_LIMIT,
        body_timeout=settings.body_timeout_seconds,
        max_header_size=MAX_HEADER_SIZE,
        # tornado's header timeout: from the moment a connection waits for a request to its last header.
        idle_connection_timeout=settings.header_timeout_seconds,
        chunk_size=BODY_CHUNK_SIZE,
        max_connections=connection_allowance(settings.max_connections),
        max_connections_per_client=settings.max_connections_per_client,
    )
    server.listen(settings.port, settings.host)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    watching = asyncio.create_task(watch_parent(settings.parent_pid, stopping)) if settings.parent_pid else None
    lifecycle = (asyncio.create_task(every(settings.lifecycle_interval_seconds, services.lifecycle.run_once,
                                           services.executor, stopping))
                 if settings.lifecycle_interval_seconds > 0 else None)
    maintenance = (asyncio.create_task(every(settings.maintenance_interval_seconds,
                                             functools.partial(services.maintenance.run_due, stopping.is_set),
                                             services.executor, stopping))
                   if settings.maintenance_interval_seconds > 0 else None)
    log.info("aistor-lab serving S3 at %s (data in %s)", settings.endpoint, settings.store_endpoint or settings.data_dir)
    if ready is not None:
        ready(settings)
    await stopping.wait()
    log.info("aistor-lab stopping")
    for task in (watching, lifecycle, maintenance):
        if task is not None:
            task.cancel()
    server.stop()
    try:
        await asyncio.wait_for(server.close_all_connections(), timeout=5)
    except TimeoutError:
        log.warning("connections still open after 5 s; closing anyway")
    services.close()
