"""The container recipe and the service's process behaviour, checked without a Docker engine."""

from __future__ import annotations

from pathlib import Path

import yaml

from aistor_lab.process import ServiceProcess

ROOT = Path(__file__).resolve().parents[1]


def test_compose_file_runs_the_service_with_a_named_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    service = compose["services"]["aistor"]
    assert service["build"] == "." and (ROOT / "Dockerfile").is_file()
    assert service["command"][:2] == ["aistor-lab", "server"]
    assert "0.0.0.0:9000" in service["command"]
    assert "9000:9000" in service["ports"]
    volume, mount = service["volumes"][0].split(":")
    assert mount == "/data" and volume in compose["volumes"]
    assert {"AISTOR_ROOT_USER", "AISTOR_ROOT_PASSWORD"} <= set(service["environment"])
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "requirements.lock" in dockerfile and "aistor-lab" in dockerfile


def test_sigterm_stops_the_server_cleanly(tmp_path):
    service = ServiceProcess(tmp_path / "data", log_path=tmp_path / "server.log").start()
    assert service.healthy()
    assert service.stop(timeout=15) == 0
    assert "aistor-lab stopping" in (tmp_path / "server.log").read_text()
