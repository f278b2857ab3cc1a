"""A notebook widget for a table's maintenance: its health, a preview of what maintenance would do
(the service's dry run: snapshots that would go, files rewritten or removed, bytes freed, and the
file-size histogram before and after), an Apply button that runs exactly what was previewed, and the
table's history. Core ipywidgets only, and the chart is inline SVG: it renders offline, in exported
HTML, in JupyterLab, Notebook 7 and VS Code.

    from aistor_lab.workbench.maintenance_widget import MaintenanceWidget
    MaintenanceWidget("sales", "orders")        # the service's default warehouse, or warehouse="..."
"""

from __future__ import annotations

import html
import itertools

import ipywidgets as w

from .client import AIStorClient, AIStorError
from .commands.maintenance_actions import run_summary, settings_and_health, table_history_rows
from .commands.object_actions import human_size

BEFORE, AFTER = "#7a8ba3", "#2e7d32"


def bin_labels(bounds: list[int]) -> list[str]:
    """"< 16KiB", "16KiB-256KiB", ..., "> 512MiB" (mc's sizes): one per bin, the last one open."""
    labels = [f"< {human_size(bounds[0])}"]
    labels += [f"{human_size(low)}-{human_size(high)}" for low, high in itertools.pairwise(bounds)]
    return [*labels, f"> {human_size(bounds[-1])}"]


def histogram_svg(bounds: list[int], before: list[int], after: list[int] | None = None) -> str:
    """Data files per size bin as bars (before, and after maintenance when given), in SVG."""
    series = [("now", before, BEFORE)] + ([("after maintenance", after, AFTER)] if after is not None else [])
    top = max([1, *before, *(after or [])])
    width, height, left, bottom = 560, 200, 40, 40
    slot = (width - left) / len(before)
    bar = (slot - 12) / len(series)
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 24}" role="img" '
             f'aria-label="data files by size" style="font: 11px sans-serif">')]
    for index, label in enumerate(bin_labels(bounds)):
        x = left + index * slot
        parts.append(f'<text x="{x + slot / 2:.0f}" y="{height - bottom + 16}" text-anchor="middle" '
                     f'fill="currentColor">{html.escape(label)}</text>')
        for number, (name, counts, color) in enumerate(series):
            bar_height = (height - bottom - 10) * counts[index] / top
            y = height - bottom - bar_height
            parts.append(f'<rect x="{x + 6 + number * bar:.1f}" y="{y:.1f}" width="{bar - 2:.1f}" '
                         f'height="{bar_height:.1f}" fill="{color}"><title>{name}: {counts[index]} files'
                         f'</title></rect>')
            if counts[index]:
                parts.append(f'<text x="{x + 6 + number * bar + bar / 2:.1f}" y="{y - 3:.1f}" '
                             f'text-anchor="middle" fill="currentColor">{counts[index]}</text>')
    parts.append(f'<line x1="{left}" y1="{height - bottom}" x2="{width}" y2="{height - bottom}" '
                 'stroke="currentColor" stroke-width="0.5"/>')
    for number, (name, _, color) in enumerate(series):
        parts.append(f'<rect x="{left + number * 170}" y="{height + 6}" width="10" height="10" fill="{color}"/>'
                     f'<text x="{left + number * 170 + 14}" y="{height + 15}" fill="currentColor">'
                     f'{html.escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def after_histogram(record: dict) -> list[int] | None:
    """The file-size histogram after maintenance, from a run's compaction report (None: no compaction)."""
    for report in record["operations"]:
        histogram = report.get("details", {}).get("histogram")
        if report["operation"] == "compact" and histogram:
            return histogram["after"]
    return None


class MaintenanceWidget(w.VBox):
    def __init__(self, namespace: str, table: str, warehouse: str | None = None, client: AIStorClient | None = None):
        self.client = client or AIStorClient.from_env()
        self.warehouse = warehouse or self.client.config.warehouse
        if not self.warehouse:
            raise AIStorError("a warehouse is required: give warehouse=... or set AISTOR_WAREHOUSE")
        self.namespace, self.table = namespace, table
        self.health = w.HTML()
        self.chart = w.HTML()
        self.plan = w.HTML()
        self.history = w.HTML()
        self.status = w.HTML()
        self.preview_button = w.Button(description="Preview", icon="search",
                                       tooltip="what maintenance would do now; nothing changes")
        self.apply_button = w.Button(description="Apply", icon="check", button_style="warning", disabled=True,
                                     tooltip="run what the preview showed (it rewrites and deletes files)")
        self.preview_button.on_click(lambda _: self.preview())
        self.apply_button.on_click(lambda _: self.apply())
        self._previewed: list[str] = []  # the operations the preview found work for
        title = w.HTML(f"<h3>Maintenance of {html.escape(f'{self.warehouse}.{namespace}.{table}')}</h3>")
        super().__init__([title, self.health, self.chart, w.HBox([self.preview_button, self.apply_button]),
                          self.plan, self.status, self.history])
        self.refresh()

    def _call(self, call, *args, **kwargs):
        try:
            return call(self.warehouse, self.namespace, self.table, *args, **kwargs)
        except AIStorError as exc:
            self.status.value = f'<span style="color:var(--jp-error-color1, #c62828)">{html.escape(exc.message)}</span>'
            return None

    def refresh(self) -> None:
        """Health, histogram and history as they are now."""
        answer = self._call(self.client.table_maintenance)
        if answer is None:
            return
        self._histogram = answer["health"]["histogram"]
        self.health.value = settings_and_health(answer).html()
        self.chart.value = histogram_svg(self._histogram["bounds"], self._histogram["counts"])
        runs = self._call(self.client.maintenance_history)
        if runs is not None:
            self.history.value = "<h4>History</h4>" + table_history_rows(runs[:10]).html()

    def preview(self) -> None:
        record = self._call(self.client.run_maintenance, dry_run=True)
        if record is None:
            return
        self._previewed = [r["operation"] for r in record["operations"] if not r["skipped"]]
        snapshots = [s for r in record["operations"] for s in r["removed-snapshots"]]
        freed = sum(max(r["bytes-freed"], 0) for r in record["operations"])
        self.plan.value = (run_summary(record).html()
                           + f"<p>{len(snapshots)} snapshots would go; {human_size(freed)} would be freed.</p>")
        self.chart.value = histogram_svg(self._histogram["bounds"], self._histogram["counts"],
                                         after_histogram(record) or self._histogram["counts"])
        self.apply_button.disabled = not self._previewed
        self.status.value = "" if self._previewed else "Nothing to do: every operation has nothing due."

    def apply(self) -> None:
        self.apply_button.disabled = True
        self.status.value = f"Running {', '.join(self._previewed)}…"
        record = self._call(self.client.run_maintenance, self._previewed)
        if record is None:
            return
        self.plan.value = run_summary(record).html()
        self.status.value = "Done." if not record["errors"] else "Done, with errors: see the table above."
        self.refresh()
