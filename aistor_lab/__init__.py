"""aistor-lab: an S3 object store, an Iceberg REST catalog and a Delta Sharing server for notebooks."""

__version__ = "0.1.0"


def _jupyter_server_extension_points() -> list[dict]:
    """The Jupyter server extension (workbench/jupyter/extension.py), found by
    ``jupyter server extension list``."""
    from .workbench.jupyter.extension import AIStorLabApp

    return [{"module": "aistor_lab.workbench.jupyter.extension", "app": AIStorLabApp}]


def load_ipython_extension(ipython) -> None:
    """``%load_ext aistor_lab``: the ``%aistor`` magics (workbench/magics.py)."""
    from .workbench.magics import load_ipython_extension as load

    load(ipython)
