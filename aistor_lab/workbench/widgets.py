"""Notebook widgets for Delta Sharing, built from core ipywidgets only (no front-end code of their
own), so they work in JupyterLab, Notebook 7 and VS Code.

    from aistor_lab.workbench.widgets import TokenWidget, ShareWidget
    TokenWidget()                 # pick a share, an expiry, a description; create; get profile.share
    ShareWidget("sales")          # a share's schemas and tables; add or remove a table spec

Both talk to the service the environment names (inside JupyterLab: the extension's), or to the
``client`` given.

A widget's value lives in the browser too, and JupyterLab (or nbconvert) can save every widget's state
into the notebook file: the token widget keeps the bearer token out of every widget until "Reveal" is
pressed, and takes it out again when released.
"""

from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path

import ipywidgets as w

from .client import AIStorClient, AIStorError
from .commands.actions import share_info_result

EXPIRY_CHOICES = [("1 day", "1d"), ("7 days", "7d"), ("30 days", "30d"), ("90 days", "90d"),
                  ("1 year", "365d"), ("never", "")]
# Labels as wide as they need, not ipywidgets' fixed 100 px, which cuts "Description" short.
LABEL = {"description_width": "initial"}


def _message(text: str, error: bool = False) -> str:
    color = "var(--jp-error-color1, #c62828)" if error else "var(--jp-success-color1, #2e7d32)"
    return f'<span style="color:{color}">{html.escape(text)}</span>'


class _ServiceWidget(w.VBox):
    """A box with a client, a share picker and a status line."""

    def __init__(self, client: AIStorClient | None, share: str | None, children: list[w.Widget]):
        self.client = client or AIStorClient.from_env()
        self.share = w.Dropdown(description="Share", options=[], style=LABEL)
        self.refresh_button = w.Button(description="Refresh", icon="refresh", tooltip="reload the shares")
        self.status = w.HTML()
        self.refresh_button.on_click(lambda _: self.refresh())
        super().__init__([w.HBox([self.share, self.refresh_button]), *children, self.status])
        self.refresh(share)

    def refresh(self, select: str | None = None) -> None:
        """Reload the share names, keeping the selection; ``select``: that share, which must exist (the
        status line says so when it does not, and nothing is selected)."""
        try:
            names = [s["name"] for s in self.client.list_shares()]
        except AIStorError as exc:
            self.status.value = _message(exc.message, error=True)
            return
        current = select or self.share.value
        self.share.options = names
        if select and select not in names:
            self.share.value = None
            self.status.value = _message(f"Share '{select}' does not exist: pick one above, or create it with "
                                         f"%aistor share create {select} SCHEMA TABLE_SPEC.", error=True)
        else:
            self.share.value = current if current in names else (names[0] if names else None)
        if not names:
            self.status.value = _message("No shares yet: create one with %aistor share create.", error=True)

    def _attempt(self, action) -> None:
        """Run an action; a failure becomes the status line, not a traceback in the output area."""
        try:
            action()
        except AIStorError as exc:
            self.status.value = _message(exc.message, error=True)


class TokenWidget(_ServiceWidget):
    """Create a bearer token for a share, then save its profile.share next to the notebook, or reveal
    the token (and a download link of the profile) to copy it: the service shows it this once."""

    def __init__(self, share: str | None = None, client: AIStorClient | None = None):
        self.expires = w.Dropdown(description="Expires", options=EXPIRY_CHOICES, value="30d", style=LABEL)
        self.description = w.Text(description="Description", placeholder="who or what the token is for",
                                  style=LABEL, layout=w.Layout(width="32em"))
        self.create_button = w.Button(description="Create token", button_style="primary", icon="key",
                                      disabled=True, tooltip="pick a share first")
        self.output = w.HTML()
        self.reveal_button = w.ToggleButton(description="Reveal token", icon="eye", disabled=True,
                                            tooltip="show the token and a download link of profile.share")
        self.save_path = w.Text(description="Save as", value="profile.share", style=LABEL)
        self.save_button = w.Button(description="Save to notebook folder", icon="save", disabled=True,
                                    layout=w.Layout(width="auto"))
        self.token: dict | None = None  # the last token created: id, token, expirationTime, profile, ...
        self.create_button.on_click(lambda _: self._attempt(self.create))
        self.reveal_button.observe(lambda _: self._show_token(), names="value")
        self.save_button.on_click(lambda _: self.save())
        super().__init__(client, share, [self.expires, self.description, self.create_button, self.output,
                                         self.reveal_button, w.HBox([self.save_path, self.save_button])])
        self.share.observe(lambda _: self._enable_create(), names="value")
        self._enable_create()

    def _enable_create(self) -> None:
        self.create_button.disabled = not self.share.value
        self.create_button.tooltip = "create a token for the share" if self.share.value else "pick a share first"

    @property
    def profile_text(self) -> str:
        """The profile.share document of the last token."""
        if self.token is None:
            raise ValueError("no token has been created yet")
        return json.dumps(self.token["profile"], indent=2) + "\n"

    def create(self) -> dict:
        """Create the token (the button's action); returns the service's answer."""
        if not self.share.value:
            raise AIStorError("pick a share first")
        token = self.client.create_token(self.share.value, self.expires.value or None, self.description.value)
        self.token = token
        self.reveal_button.value = False
        self._show_token()
        self.reveal_button.disabled = self.save_button.disabled = False
        self.status.value = _message("Save the profile or copy the token now: the service won't show it again.")
        return token

    def _show_token(self) -> None:
        """The token's line: the secret itself, and the profile's download link, only while revealed."""
        if self.token is None:
            return
        about = (f"<p>Token created for share <b>{html.escape(self.token.get('share') or self.share.value)}</b>, "
                 f"expires {html.escape(self.token.get('expirationTime') or 'never')}.</p>")
        if not self.reveal_button.value:
            self.output.value = about + ("<p>Token (shown once): <code>••••••••••••••••</code> (hidden): "
                                         "reveal it to copy it, or save the profile below.</p>")
            return
        data = base64.b64encode(self.profile_text.encode()).decode()
        self.output.value = (
            f"{about}<p>Token (shown once): <code>{html.escape(self.token['token'])}</code></p>"
            f'<p><a download="profile.share" href="data:application/json;base64,{data}">Download profile.share</a>'
            "</p>"
        )

    def save(self) -> Path | None:
        """Write profile.share into the kernel's folder (the notebook's), readable by the owner only."""
        if self.token is None:
            self.status.value = _message("Create a token first.", error=True)
            return None
        path = Path(self.save_path.value or "profile.share").expanduser().resolve()
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "w") as out:
                out.write(self.profile_text)
        except OSError as exc:
            self.status.value = _message(f"Cannot save {path}: {exc.strerror}", error=True)
            return None
        self.status.value = _message(f"Saved {path}")
        return path


class ShareWidget(_ServiceWidget):
    """A share's schemas and tables, with a table spec to add and a table to remove."""

    def __init__(self, share: str | None = None, client: AIStorClient | None = None):
        self.view = w.HTML()
        self.add_spec = w.Text(description="Add", placeholder="SCHEMA:NAME:delta:BUCKET:PATH or "
                                                              "SCHEMA:NAME:uniform:WAREHOUSE:NAMESPACE:TABLE",
                               style=LABEL, layout=w.Layout(width="60%"))
        self.add_button = w.Button(description="Add table", icon="plus", disabled=True)
        self.remove_choice = w.Dropdown(description="Remove", options=[], style=LABEL)
        self.remove_button = w.Button(description="Remove table", icon="minus", button_style="warning",
                                      disabled=True)
        self.info: dict | None = None
        self.add_button.on_click(lambda _: self._attempt(self.add))
        self.remove_button.on_click(lambda _: self._attempt(self.remove))
        super().__init__(client, share, [self.view, w.HBox([self.add_spec, self.add_button]),
                                         w.HBox([self.remove_choice, self.remove_button])])
        self.share.observe(lambda _: self._attempt(self.show), names="value")
        self.add_spec.observe(lambda _: self._enable_buttons(), names="value")
        self.remove_choice.observe(lambda _: self._enable_buttons(), names="value")
        self._attempt(self.show)

    def _enable_buttons(self) -> None:
        self.add_button.disabled = not (self.share.value and self.add_spec.value.strip())
        self.remove_button.disabled = not (self.share.value and self.remove_choice.value)

    def show(self, info: dict | None = None) -> None:
        """Show the selected share (``info`` when the service just answered with it)."""
        if not self.share.value:
            self.info, self.view.value, self.remove_choice.options = None, "", []
        else:
            self.info = info or self.client.get_share(self.share.value)
            self.view.value = share_info_result(self.info).html()
            self.remove_choice.options = [f"{schema['name']}/{table['name']}"
                                          for schema in self.info["schemas"] for table in schema["tables"]]
        self._enable_buttons()

    def add(self) -> None:
        spec = self.add_spec.value.strip()
        if not spec:
            raise AIStorError("type a table spec to add")
        self.show(self.client.update_share(self.share.value, add=[spec]))
        self.add_spec.value = ""
        self.status.value = _message(f"Added {spec}")

    def remove(self) -> None:
        if not self.remove_choice.value:
            raise AIStorError("the share has no table to remove")
        name = self.remove_choice.value
        self.show(self.client.update_share(self.share.value, remove=[name]))
        self.status.value = _message(f"Removed {name}")
