"""The Jupyter server extension: AIStor-lab next to the notebooks.

When Jupyter starts, the extension starts ``aistor-lab server`` as a supervised child process
(restarted if it dies, stopped with Jupyter), or attaches to a running service when
``AIStorLabApp.endpoint`` is set. Before any kernel starts it exports the service to Jupyter's own
environment, which kernels and terminals inherit::

    AISTOR_ENDPOINT  AISTOR_ACCESS_KEY  AISTOR_SECRET_KEY  AISTOR_WAREHOUSE  AISTOR_REGION
    AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID  AWS_SECRET_ACCESS_KEY  AWS_REGION  AWS_ALLOW_HTTP

and, when ``certs_dir`` holds a private CA (``ca.crt``), the variables that make clients trust it
(``AISTOR_CA_BUNDLE``, ``AISTOR_TRUSTSTORE``, ``REQUESTS_CA_BUNDLE``, ``SSL_CERT_FILE``, ``AWS_CA_BUNDLE``;
see ``aistor_lab.tls``),
so ``aistor_lab.workbench.client.load_catalog()``, ``aistor_lab.workbench.spark.session()``, the ``%aistor`` magics,
boto3, s3fs and deltalake need no arguments. It also serves the side panel's REST API under
``<base_url>/aistor-lab/api/``, behind Jupyter's authentication.

Configuration (``jupyter_server_config.py`` or ``--AIStorLabApp.<name>=...``): ``address``,
``data_dir``, ``root_user``, ``root_password``, ``public_endpoint``, ``endpoint``, ``certs_dir``,
``default_warehouse``, ``startup_timeout``, ``stop_timeout``, ``watch_interval``, ``export_aws_env``,
``spark_master`` (exported as ``AISTOR_SPARK_MASTER``: ``%aistor spark`` and ``session()`` run Spark there).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from jupyter_core.paths import jupyter_data_dir
from jupyter_server.extension.application import ExtensionApp
from tornado.ioloop import IOLoop
from traitlets import Bool, Float, Unicode

from ...settings import DEFAULT_ROOT_PASSWORD, DEFAULT_ROOT_USER, parse_address
from ...tls import Trust, trust_files
from ..client import AIStorClient, AIStorError, ServiceError
from ..service_config import SPARK_MASTER_ENV, ServiceConfig, delta_storage_options
from . import handlers, store_handlers, transfer_handlers
from .process import ServiceProcess
from .supervisor import Supervisor


def kernel_environment(config: ServiceConfig, export_aws: bool = True, trust: Trust | None = None,
                       spark_master: str = "") -> dict[str, str]:
    """The variables kernels see: ours, the standard AWS ones that boto3, s3fs, deltalake and
    PyIceberg's SigV4 signer read, with ``trust`` those that make clients trust a private CA, and with
    ``spark_master`` where Spark sessions run."""
    env = {
        "AISTOR_ENDPOINT": config.endpoint,
        "AISTOR_ACCESS_KEY": config.access_key,
        "AISTOR_SECRET_KEY": config.secret_key,
        "AISTOR_REGION": config.region,
        "AISTOR_WAREHOUSE": config.warehouse or "",
    }
    if spark_master:
        env[SPARK_MASTER_ENV] = spark_master
    if export_aws:
        env.update(delta_storage_options(config))  # deltalake's options are the standard AWS variables
    if trust is not None:
        env.update(trust.environment(export_aws))
    return env


class AIStorLabApp(ExtensionApp):
    """Runs (or attaches to) the AIStor-lab service for this Jupyter and its kernels."""

    name = "aistor_lab"

    address = Unicode(
        "127.0.0.1:0", help="HOST:PORT the managed service listens on; port 0 picks a free port."
    ).tag(config=True)
    data_dir = Unicode(
        "", help="Data directory of the managed service (default: <Jupyter data dir>/aistor-lab/data)."
    ).tag(config=True)
    root_user = Unicode(
        DEFAULT_ROOT_USER, help="Root access key of the managed service; with `endpoint`, the access key to use."
    ).tag(config=True)
    root_password = Unicode(
        DEFAULT_ROOT_PASSWORD, help="Root secret key of the managed service; with `endpoint`, the secret key."
    ).tag(config=True)
    public_endpoint = Unicode(
        "", help="The address clients outside this machine use (written into profile.share files)."
    ).tag(config=True)
    endpoint = Unicode(
        "", help="Attach to this running AIStor(-lab) endpoint instead of starting a service."
    ).tag(config=True)
    certs_dir = Unicode(
        "", help="Serve the managed service over HTTPS with public.crt and private.key of this directory "
        "(`aistor-lab certs create` makes them); kernels are told to trust its ca.crt, if any "
        "(with `endpoint`, that is all it does)."
    ).tag(config=True)
    region = Unicode("us-east-1", help="The region clients sign requests for.").tag(config=True)
    default_warehouse = Unicode(
        "analytics", help="Warehouse exported as AISTOR_WAREHOUSE (created on start for a managed service)."
    ).tag(config=True)
    startup_timeout = Float(60, help="Seconds to wait for the service to become healthy.").tag(config=True)
    stop_timeout = Float(10, help="Seconds the service gets to stop before it is killed.").tag(config=True)
    watch_interval = Float(2, help="Seconds between checks that the managed service is alive.").tag(config=True)
    export_aws_env = Bool(
        True, help="Also export AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ... to kernels."
    ).tag(config=True)
    spark_master = Unicode(
        "", help="Where kernels' Spark sessions run (`spark://host:7077` for a standalone cluster), exported "
        "as AISTOR_SPARK_MASTER; empty: Spark's default, local[*]."
    ).tag(config=True)

    supervisor: Supervisor | None = None
    service: ServiceConfig

    def initialize_settings(self) -> None:
        certs_dir = Path(self.certs_dir).expanduser().resolve() if self.certs_dir else None
        trust = self._trust(certs_dir)
        if self.endpoint:
            endpoint = self.endpoint.rstrip("/")
        else:
            host, port = parse_address(self.address)
            data_dir = Path(self.data_dir or Path(jupyter_data_dir()) / "aistor-lab" / "data").expanduser()
            data_dir.mkdir(parents=True, exist_ok=True)
            child_env = {"AISTOR_ROOT_USER": self.root_user, "AISTOR_ROOT_PASSWORD": self.root_password,
                         "AISTOR_REGION": self.region}
            if self.public_endpoint:
                child_env["AISTOR_PUBLIC_ENDPOINT"] = self.public_endpoint
            process = ServiceProcess(data_dir, host=host, port=port or None, env=child_env,
                                     log_path=data_dir.parent / "server.log", certs_dir=certs_dir)
            self.supervisor = Supervisor(process, self.log, startup_timeout=self.startup_timeout,
                                         stop_timeout=self.stop_timeout, watch_interval=self.watch_interval)
            endpoint = process.endpoint
        self.service = ServiceConfig(endpoint, self.root_user, self.root_password, self.region,
                                     self.default_warehouse or None, str(trust.ca_bundle) if trust else None,
                                     str(trust.truststore) if trust else None)
        # Kernels inherit the server's environment: set it before any kernel starts.
        os.environ.update(kernel_environment(self.service, self.export_aws_env, trust, self.spark_master))
        self.log.info("aistor-lab | kernels will use the service at %s", endpoint)

    def _trust(self, certs_dir: Path | None) -> Trust | None:
        if certs_dir is None:
            return None
        try:
            return trust_files(certs_dir)
        except OSError as exc:  # e.g. a read-only certs directory without the derived files
            self.log.error("aistor-lab | kernels will not trust the CA of %s: %s", certs_dir, exc)
            return None

    def initialize_handlers(self) -> None:
        self.handlers.extend(handlers.routes() + store_handlers.routes() + transfer_handlers.routes())

    async def _start_jupyter_server_extension(self, serverapp) -> None:
        if self.supervisor is None:
            await self._check_attached()
            return
        try:
            await self.supervisor.start()
        except (RuntimeError, OSError) as exc:  # TimeoutError is an OSError
            self.log.error("aistor-lab | the service did not start: %s (log: %s)", exc, self.supervisor.process.log_path)
            return
        if self.default_warehouse:
            await IOLoop.current().run_in_executor(None, self._ensure_warehouse, self.default_warehouse)

    async def _check_attached(self) -> None:
        try:
            await IOLoop.current().run_in_executor(None, AIStorClient(self.service).health)
            self.log.info("aistor-lab | attached to %s", self.service.endpoint)
        except AIStorError as exc:
            self.log.warning("aistor-lab | %s", exc.message)

    def _ensure_warehouse(self, name: str) -> None:
        try:
            # The lab's own default warehouse: a bucket of its name (an earlier lab's, say) becomes it.
            AIStorClient(self.service).create_warehouse(name, upgrade_existing=True)
        except ServiceError as exc:
            if exc.status != 409:
                self.log.warning("aistor-lab | cannot create the default warehouse %r: %s", name, exc.message)

    async def stop_extension(self) -> None:
        if self.supervisor is not None:
            await self.supervisor.stop()

    def status(self) -> dict[str, Any]:
        supervisor = self.supervisor
        try:
            AIStorClient(self.service, timeout=5).health()
            healthy = True
        except AIStorError:
            healthy = False
        return {
            "mode": "attached" if supervisor is None else "managed",
            "endpoint": self.service.endpoint,
            "publicEndpoint": self.public_endpoint or None,
            "healthy": healthy,
            "warehouse": self.service.warehouse,
            "accessKey": self.service.access_key,
            "pid": supervisor.process.proc.pid if supervisor and supervisor.running else None,
            "restarts": supervisor.restarts if supervisor else 0,
            "dataDir": str(supervisor.process.data_dir) if supervisor else None,
        }
