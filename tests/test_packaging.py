"""The container recipe and the service's process behaviour, checked without a Docker engine."""

from __future__ import annotations

from pathlib import Path

import yaml

from aistor_lab.process import ServiceProcess

ROOT = Path(__file__).resolve().parents[1]


def test_compose_file_runs_jupyterlab_with_the_service_and_a_named_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    lab = compose["services"]["lab"]
    assert lab["build"] == "." and (ROOT / "Dockerfile").is_file()
    command = lab["command"]
    assert command[:2] == ["jupyter", "lab"] and "--ip=0.0.0.0" in command
    assert "--AIStorLabApp.address=0.0.0.0:9000" in command  # the extension starts the service
    assert "--AIStorLabApp.data_dir=/data" in command
    assert {"8888:8888", "9000:9000"} <= set(lab["ports"])
    volume, mount = lab["volumes"][0].split(":")
    assert mount == "/data" and volume in compose["volumes"]
    credentials = " ".join(command)
    assert "${AISTOR_ROOT_USER:-" in credentials and "${AISTOR_ROOT_PASSWORD:-" in credentials
    assert "/_aistor/health" in " ".join(lab["healthcheck"]["test"])


def test_dockerfile_installs_the_pinned_product_with_java_and_the_jar_kit():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "-c requirements.lock" in dockerfile and "openjdk-17" in dockerfile
    assert "aistor-lab spark-jars build" in dockerfile
    assert "AISTOR_SAMPLE_DATA" in dockerfile and "EXPOSE 9000 8888" in dockerfile


def test_sigterm_stops_the_server_cleanly(tmp_path):
    service = ServiceProcess(tmp_path / "data", log_path=tmp_path / "server.log").start()
    assert service.healthy()
    assert service.stop(timeout=15) == 0
    assert "aistor-lab stopping" in (tmp_path / "server.log").read_text()
