"""Reading an executed notebook from outside: its cells by tag, what they printed, the charts they drew.

The tutorials mark the cells the tests look at with tags in the cell metadata (``"tags": ["chart-..."]``),
so cells can move or change wording without breaking the checks.
"""

from __future__ import annotations

import base64
import io

import matplotlib.image
import nbformat
import numpy as np

CHART_TAG_PREFIX = "chart-"


def tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def cell_tagged(notebook: nbformat.NotebookNode, tag: str) -> nbformat.NotebookNode:
    cells = [cell for cell in notebook.cells if tag in tags(cell)]
    assert len(cells) == 1, f"expected one cell tagged {tag!r}, found {len(cells)}"
    return cells[0]


def chart_tags(notebook: nbformat.NotebookNode) -> list[str]:
    return [tag for cell in notebook.cells for tag in tags(cell) if tag.startswith(CHART_TAG_PREFIX)]


def output_text(notebook: nbformat.NotebookNode, tag: str) -> str:
    """What the cell printed and displayed as text (streams, and the text/plain of results)."""
    parts = []
    for output in cell_tagged(notebook, tag).outputs:
        if output.output_type == "stream":
            parts.append(output.text)
        elif "data" in output:
            parts.append(output.data.get("text/plain", ""))
    return "\n".join(parts)


def pngs(notebook: nbformat.NotebookNode, tag: str) -> list[bytes]:
    return [base64.b64decode(output.data["image/png"]) for output in cell_tagged(notebook, tag).outputs
            if "image/png" in output.get("data", {})]


def pixels(png: bytes) -> np.ndarray:
    """The image as rows x columns x channels of floats in [0, 1]."""
    return matplotlib.image.imread(io.BytesIO(png), format="png")
