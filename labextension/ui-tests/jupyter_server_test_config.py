"""JupyterLab for the Galata UI tests: Galata's test settings (no token), this machine's port and a
temporary root; the aistor-lab server extension starts a service with a temporary data dir."""

import atexit
import os
import shutil
from pathlib import Path

from jupyterlab.galata import configure_jupyter_server

root = Path(os.environ["AISTOR_UI_ROOT"])
os.environ["JUPYTERLAB_GALATA_ROOT_DIR"] = str(root / "notebooks")
(root / "notebooks").mkdir(parents=True, exist_ok=True)
atexit.register(shutil.rmtree, root, ignore_errors=True)  # after Jupyter has stopped the service

configure_jupyter_server(c)  # noqa: F821 (c is the config object Jupyter passes in)
c.ServerApp.port = int(os.environ["AISTOR_UI_PORT"])  # noqa: F821
c.ServerApp.ip = "127.0.0.1"  # noqa: F821
c.ServerApp.allow_root = True  # noqa: F821
c.AIStorLabApp.address = "127.0.0.1:0"  # noqa: F821 (a free port)
c.AIStorLabApp.data_dir = str(root / "data")  # noqa: F821
