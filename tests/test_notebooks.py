"""Every notebook of notebooks/ runs top to bottom, unedited, in a real kernel against a real service.

The kernel gets exactly the environment the Jupyter extension gives kernels (``kernel_environment``),
and runs in a scratch copy of the notebooks folder. A failing cell fails the test: that includes the
notebooks' own ``assert`` cells, which compare query results with expected values.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from aistor_lab.client import ServiceConfig
from aistor_lab.jupyter import kernel_environment
from aistor_lab.process import ServiceProcess

from .conftest import ROOT_PASSWORD, ROOT_USER

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT = 600  # a Spark session's first start on a loaded 2-core machine


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """A service of their own: the notebooks use fixed names (the tutorials' `testice`, share `test`)."""
    data = tmp_path_factory.mktemp("notebook-service")
    with ServiceProcess(data / "data", log_path=data / "server.log") as process:
        yield process


def run_notebook(name: str, service: ServiceProcess, workdir: Path, monkeypatch) -> nbformat.NotebookNode:
    for key, value in kernel_environment(ServiceConfig(service.endpoint, ROOT_USER, ROOT_PASSWORD)).items():
        monkeypatch.setenv(key, value)
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(workdir)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{name} failed:\n{exc}")
    return notebook


@pytest.mark.parametrize("name", ["quickstart.ipynb", "tpch.ipynb", "asset-catalog.ipynb"])
def test_notebook_runs_top_to_bottom(name, service, tmp_path, monkeypatch):
    workdir = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, workdir)
    executed = run_notebook(name, service, workdir, monkeypatch)
    code_cells = [cell for cell in executed.cells if cell.cell_type == "code"]
    assert code_cells and all(cell.execution_count for cell in code_cells)
    assert not [out for cell in code_cells for out in cell.outputs if out.output_type == "error"]


def test_notebook_runs_again(service, tmp_path, monkeypatch):
    """Run All twice works: the quickstart starts by removing what a previous run made."""
    workdir = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, workdir)
    run_notebook("quickstart.ipynb", service, workdir, monkeypatch)
    run_notebook("quickstart.ipynb", service, workdir, monkeypatch)


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_are_committed_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs"
