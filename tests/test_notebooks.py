"""Every notebook of notebooks/ runs top to bottom, unedited, in a real kernel against a real service.

The service is set up as the Jupyter extension sets up the one it starts (its default warehouse made),
and kernels get exactly the variables the extension exports (``kernel_environment``); they run in a
scratch copy of the notebooks folder. A failing cell fails the test: that includes the notebooks' own
``assert`` cells, which compare query results with expected values.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from aistor_lab.workbench.client import AIStorClient, ServiceConfig
from aistor_lab.workbench.jupyter.extension import AIStorLabApp, kernel_environment
from aistor_lab.workbench.jupyter.process import ServiceProcess

from .conftest import ROOT_PASSWORD, ROOT_USER

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
TUTORIALS = ["quickstart.ipynb", "tpch.ipynb", "asset-catalog.ipynb"]
CELL_TIMEOUT = 600  # a Spark session's first start on a loaded 2-core machine
EXTENSION_WAREHOUSE = AIStorLabApp.class_traits()["default_warehouse"].default_value


class Runner:
    """Runs notebooks in one scratch folder with the kernel environment of the extension; remembers the
    first run of each, so the tests share it (one Spark session per notebook run)."""

    def __init__(self, workdir: Path, kernel_env: dict[str, str]):
        self.workdir = workdir
        self.kernel_env = kernel_env
        self.first_runs: dict[str, nbformat.NotebookNode] = {}

    def run(self, name: str) -> nbformat.NotebookNode:
        notebook = nbformat.read(self.workdir / name, as_version=4)
        client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name="python3",
                                resources={"metadata": {"path": str(self.workdir)}})
        try:
            client.execute(env=self.kernel_env)
        except CellExecutionError as exc:
            pytest.fail(f"{name} failed:\n{exc}")
        return notebook

    def first_run(self, name: str) -> nbformat.NotebookNode:
        if name not in self.first_runs:
            self.first_runs[name] = self.run(name)
        return self.first_runs[name]


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    """A service of their own: the notebooks use fixed names (the tutorials' `testice`, share `test`)."""
    scratch = tmp_path_factory.mktemp("notebooks")
    with ServiceProcess(scratch / "data", log_path=scratch / "server.log") as service:
        config = ServiceConfig(service.endpoint, ROOT_USER, ROOT_PASSWORD, warehouse=EXTENSION_WAREHOUSE)
        AIStorClient(config).create_warehouse(EXTENSION_WAREHOUSE)
        shutil.copytree(NOTEBOOKS, scratch / "notebooks")
        yield Runner(scratch / "notebooks", {**os.environ, **kernel_environment(config)})


def code_cells(notebook: nbformat.NotebookNode) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("name", TUTORIALS)
def test_notebook_runs_top_to_bottom(name, runner):
    cells = code_cells(runner.first_run(name))
    assert cells and all(cell.execution_count for cell in cells)
    assert not [out for cell in cells for out in cell.outputs if out.output_type == "error"]


def test_notebook_runs_again(runner):
    """Run All twice works: the quickstart starts by removing what a previous run made."""
    runner.first_run("quickstart.ipynb")
    again = runner.run("quickstart.ipynb")
    assert all(cell.execution_count for cell in code_cells(again))


def test_every_notebook_is_tested():
    assert sorted(path.name for path in NOTEBOOKS.glob("*.ipynb")) == sorted(TUTORIALS)


@pytest.mark.parametrize("name", TUTORIALS)
def test_notebooks_are_committed_without_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    for cell in code_cells(notebook):
        assert cell.outputs == [] and cell.execution_count is None, f"{name}: clear the outputs"


@pytest.mark.parametrize("name", TUTORIALS)
def test_notebooks_check_results_and_take_the_service_from_the_environment(name):
    sources = [cell.source for cell in code_cells(nbformat.read(NOTEBOOKS / name, as_version=4))]
    assert any(re.search(r"^assert ", source, re.MULTILINE) for source in sources)
    hard_coded = [source for source in sources if re.search(r"localhost|127\.0\.0\.1|:9000|minioadmin", source)]
    assert not hard_coded, f"{name}: take the endpoint and keys from the environment"
