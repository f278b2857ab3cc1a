"""Packaging: the wheel, the container recipe (checked without a Docker engine) and the service's
process behaviour."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import nbformat
import yaml
from IPython.core.inputtransformer2 import TransformerManager
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from aistor_lab.workbench.jupyter.process import ServiceProcess

ROOT = Path(__file__).resolve().parents[1]


def installed_with(requirements: list[str]) -> set[str]:
    """The distributions pip installs for ``requirements``, as this environment's metadata has them."""
    seen: set[tuple[str, str]] = set()
    pending = [Requirement(text) for text in requirements]
    while pending:
        requirement = pending.pop()
        for extra in ["", *requirement.extras]:
            if (canonicalize_name(requirement.name), extra) in seen:
                continue
            seen.add((canonicalize_name(requirement.name), extra))
            try:
                needs = importlib.metadata.requires(requirement.name) or []
            except importlib.metadata.PackageNotFoundError:  # e.g. for another platform
                continue
            pending += [need for need in map(Requirement, needs)
                        if need.marker is None or need.marker.evaluate({"extra": extra})]
    return {name for name, _ in seen}


def notebook_imports() -> set[str]:
    """Top-level modules the notebooks import, other than the standard library's."""
    modules = set()
    for path in (ROOT / "notebooks").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code":
                python = TransformerManager().transform_cell(cell.source)  # %magics become calls
                for node in ast.walk(ast.parse(python)):
                    if isinstance(node, ast.Import):
                        modules |= {alias.name.split(".")[0] for alias in node.names}
                    elif isinstance(node, ast.ImportFrom) and node.level == 0:
                        modules.add(node.module.split(".")[0])
    return modules - set(sys.stdlib_module_names)


def test_compose_file_runs_jupyterlab_with_the_service_and_a_named_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    lab = compose["services"]["lab"]
    assert lab["build"] == "." and (ROOT / "Dockerfile").is_file()
    command = lab["command"]
    assert command[:2] == ["jupyter", "lab"] and "--ip=0.0.0.0" in command
    assert "--AIStorLabApp.address=0.0.0.0:9000" in command  # the extension starts the service
    data_dir = next(arg.split("=", 1)[1] for arg in command if arg.startswith("--AIStorLabApp.data_dir="))
    assert {"8888:8888", "9000:9000"} <= set(lab["ports"])
    volume, mount = lab["volumes"][0].split(":")
    assert volume in compose["volumes"]
    # The data and the service's log (server.log, beside the data dir) are both in the volume.
    assert Path(data_dir).parent == Path(mount)
    credentials = " ".join(command)
    assert "${AISTOR_ROOT_USER:-" in credentials and "${AISTOR_ROOT_PASSWORD:-" in credentials
    assert "/_aistor/health" in " ".join(lab["healthcheck"]["test"])



def test_compose_scale_out_profile_runs_replicas_behind_a_proxy_on_an_s3_cluster():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    scale_out = {name for name, service in services.items() if "scale-out" in service.get("profiles", [])}
    assert "profiles" not in services["lab"]  # plain `docker compose up` is unchanged
    replicas = services["aistor"]
    assert replicas["command"][:2] == ["aistor-lab", "server"] and "${AISTOR_REPLICAS:-3}" in str(replicas["deploy"])
    environment = replicas["environment"]
    # Every replica keeps everything in the cluster's S3 gateway, with one shared root and key.
    assert environment["AISTOR_STORE_ENDPOINT"] == "http://seaweedfs-s3:8333"
    assert {"AISTOR_ROOT_PASSWORD", "AISTOR_KMS_SECRET_KEY", "AISTOR_STORE_SECRET_KEY"} <= set(environment)
    assert "ports" not in replicas  # reached through the proxy only
    # The proxy: an official image, every replica as its upstream, the Host kept for SigV4.
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:") and proxy["depends_on"]["aistor"]["condition"] == "service_healthy"
    nginx = compose["configs"][proxy["configs"][0]["source"]]["content"]
    assert "server aistor:9000;" in nginx and "proxy_set_header Host $$http_host;" in nginx
    assert "client_max_body_size 0;" in nginx and "proxy_request_buffering off;" in nginx
    # The S3 cluster: one process per SeaweedFS role, the gateway on the port the replicas use.
    roles = {services[name]["command"].split()[0] for name in scale_out if name.startswith("seaweedfs-")}
    assert roles == {"master", "volume", "filer", "s3"}
    assert sum(services[name]["command"].startswith("volume ") for name in scale_out if name.startswith("seaweedfs-")) == 2
    assert "-port=8333" in services["seaweedfs-s3"]["command"].split()
    assert scale_out == {"aistor", "proxy"} | {name for name in services if name.startswith("seaweedfs-")}
    for service in scale_out:  # every dependency is in the profile too
        depends = services[service].get("depends_on", [])
        assert set(depends) <= scale_out
    assert all(volume.split(":")[0] in compose["volumes"] for name in scale_out
               for volume in services[name].get("volumes", []))


def test_dockerfile_installs_the_pinned_product_with_java_and_the_jar_kit():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "-c requirements.lock" in dockerfile and "openjdk-17" in dockerfile
    # Debian 12 is the last release with Java 17; unpinned python:3.11-slim has moved on.
    assert re.search(r"^FROM python:3\.11-slim-bookworm$", dockerfile, re.MULTILINE)
    assert "aistor-lab spark-jars build" in dockerfile
    assert "AISTOR_SAMPLE_DATA" in dockerfile and "EXPOSE 9000 8888" in dockerfile


def test_the_image_installs_everything_the_notebooks_import():
    dockerfile = (ROOT / "Dockerfile").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = re.search(r"'\.\[([\w,]+)\]'", dockerfile).group(1).split(",")
    requirements = project["dependencies"] + [r for extra in extras for r in project["optional-dependencies"][extra]]
    image = installed_with(requirements)
    module_distributions = importlib.metadata.packages_distributions()
    imported = notebook_imports() - {"aistor_lab"}
    assert {"deltalake", "delta_sharing", "pyarrow", "pandas"} <= imported
    missing = {module for module in imported
               if not {canonicalize_name(d) for d in module_distributions.get(module, [])} & image}
    assert not missing, f"the image lacks what the notebooks import: {sorted(missing)}"


def _jupyter(args: list[str], env: dict[str, str]) -> str:
    """What ``jupyter ARGS`` prints on both streams, in order and without colours."""
    done = subprocess.run([str(Path(sys.executable).with_name("jupyter")), *args],
                          env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=True)
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout)


def _section(listing: str, heading: str) -> str:
    """The indented lines under ``heading`` in a ``jupyter ... list`` output."""
    lines = listing.splitlines()
    start = [line.strip() for line in lines].index(heading) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i][:1].isspace()), len(lines))
    return "\n".join(lines[start:end])


def test_the_wheel_alone_enables_the_panel_and_the_server_extension(tmp_path):
    """`pip install` is enough: the wheel carries the built panel and the file that enables the server
    extension. Installed into an empty prefix, Jupyter lists both as enabled from that prefix."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                    "--wheel-dir", str(tmp_path / "dist"), str(ROOT)], check=True)
    (wheel,) = (tmp_path / "dist").glob("aistor_lab-*.whl")
    prefix = tmp_path / "prefix"
    # --ignore-installed: a --prefix install would otherwise uninstall this environment's copy first.
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--ignore-installed", "--quiet",
                    "--prefix", str(prefix), str(wheel)], check=True)

    panel = prefix / "share/jupyter/labextensions/aistor-lab"
    built = json.loads((panel / "package.json").read_text())["jupyterlab"]["_build"]
    assert (panel / built["load"]).is_file()
    labextensions = _jupyter(["labextension", "list"], {"JUPYTER_PATH": str(prefix / "share/jupyter")})
    assert re.search(r"aistor-lab v[\d.]+ enabled\s+OK", _section(labextensions, str(panel.parent)))

    config = prefix / "etc/jupyter"
    server = _jupyter(["server", "extension", "list"], {"JUPYTER_CONFIG_DIR": str(config)})
    assert re.search(r"aistor_lab enabled\s+- Validating aistor_lab...\s+aistor_lab [\d.]+ OK",
                     _section(server, f"Config dir: {config}"))


def test_sigterm_stops_the_server_cleanly(tmp_path):
    service = ServiceProcess(tmp_path / "data", log_path=tmp_path / "server.log").start()
    assert service.healthy()
    assert service.stop(timeout=15) == 0
    assert "aistor-lab stopping" in (tmp_path / "server.log").read_text()


def _state(pid: int) -> str | None:
    """The kernel's state letter of ``pid`` ("Z" for a zombie nobody reaped yet), None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None


def test_the_server_stops_when_its_supervisor_is_killed(tmp_path):
    """A supervisor SIGKILLed (say, Jupyter) cannot stop its child: the child notices and stops itself."""
    supervisor = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time\n"
            "from aistor_lab.workbench.jupyter.process import ServiceProcess\n"
            "service = ServiceProcess(sys.argv[1], log_path=sys.argv[2]).start()\n"
            "print(service.proc.pid, service.port, flush=True)\n"
            "time.sleep(600)\n"
        ), str(tmp_path / "data"), str(tmp_path / "server.log")],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        pid, port = map(int, supervisor.stdout.readline().split())
        assert ServiceProcess(tmp_path / "data", port=port).healthy()
    finally:
        os.kill(supervisor.pid, signal.SIGKILL)
        supervisor.wait()
    deadline = time.monotonic() + 20
    while _state(pid) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _state(pid) in (None, "Z"), "the orphaned server is still running"
    assert not ServiceProcess(tmp_path / "data", port=port).healthy()
    log = (tmp_path / "server.log").read_text()
    assert f"parent process {supervisor.pid} is gone; stopping" in log
