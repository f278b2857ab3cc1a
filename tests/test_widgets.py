"""The sharing widgets, driven from their Python side (set values, click) against a real server: the
token and profile they produce work with the delta-sharing client, and the token stays out of the widget
state a notebook saves until revealed; the share widget adds and removes tables; buttons are enabled when
they can act; failures land in the status line."""

from __future__ import annotations

import base64
import json
import re
import stat
import uuid

import delta_sharing
import ipywidgets as w
import pandas as pd
import pytest
from deltalake import write_deltalake
from ipywidgets.embed import dependency_state

from aistor_lab.workbench.client import AIStorClient, ServiceConfig
from aistor_lab.workbench.widgets import ShareWidget, TokenWidget

from .conftest import ROOT_PASSWORD, ROOT_USER

PEOPLE = pd.DataFrame({"id": [1, 2, 3], "name": ["Ann", "Ben", "Cy"]})


@pytest.fixture
def client(server):
    return AIStorClient(ServiceConfig(server.endpoint, ROOT_USER, ROOT_PASSWORD))


@pytest.fixture
def delta_tables(server, bucket):
    """Two Delta tables in a fresh bucket; returns the bucket."""
    options = {"AWS_ACCESS_KEY_ID": ROOT_USER, "AWS_SECRET_ACCESS_KEY": ROOT_PASSWORD,
               "AWS_ENDPOINT_URL": server.endpoint, "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1"}
    for name in ("people", "teams"):
        write_deltalake(f"s3://{bucket}/{name}", PEOPLE, storage_options=options)
    return bucket


@pytest.fixture
def share(client, delta_tables):
    name = f"share-{uuid.uuid4().hex[:8]}"
    client.create_share(name, "hr", [f"people:delta:{delta_tables}:people"])
    yield name
    if name in [s["name"] for s in client.list_shares()]:
        client.remove_share(name)


def saved_state(widget: w.Widget) -> str:
    """The widget state a notebook saves for ``widget`` and its children (as ``embed`` writes it)."""
    return json.dumps(dependency_state(widget, drop_defaults=False))


def test_token_widget_creates_a_token_and_a_working_profile(client, share, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a kernel's working directory is the notebook's folder
    widget = TokenWidget(client=client)
    assert share in widget.share.options
    widget.share.value = share
    widget.expires.value = "7d"
    widget.description.value = "for the widget test"
    assert widget.save_button.disabled and widget.reveal_button.disabled
    widget.create_button.click()

    token = widget.token
    assert token is not None and token["description"] == "for the widget test"
    # hidden: neither the token nor the profile that holds it is in any widget, so not in the notebook file
    assert "(hidden)" in widget.output.value and "download=" not in widget.output.value
    assert token["token"] not in saved_state(widget)
    assert token["token"] not in json.dumps(w.Widget.get_manager_state(drop_defaults=False))
    widget.reveal_button.value = True
    assert token["token"] in widget.output.value and "shown once" in widget.output.value
    assert token["token"] in saved_state(widget)
    profile = json.loads(widget.profile_text)
    assert profile["bearerToken"] == token["token"] and profile["shareCredentialsVersion"] == 1
    assert profile["expirationTime"] == token["expirationTime"]
    # the download link carries the same profile
    link = re.search(r'download="profile.share" href="data:application/json;base64,([^"]+)"', widget.output.value)
    assert json.loads(base64.b64decode(link.group(1))) == profile
    listed = client.list_tokens(share)
    assert [(t["id"], t["description"]) for t in listed] == [(token["id"], "for the widget test")]
    widget.reveal_button.value = False  # hidden again before the notebook is saved
    assert token["token"] not in saved_state(widget) and "(hidden)" in widget.output.value

    widget.save_button.click()
    saved = tmp_path / "profile.share"
    assert json.loads(saved.read_text()) == profile
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert str(saved) in widget.status.value
    frame = delta_sharing.load_as_pandas(f"{saved}#{share}.hr.people")
    assert sorted(frame["id"]) == [1, 2, 3]


def test_token_widget_never_expiring_and_custom_path(client, share, tmp_path):
    widget = TokenWidget(share=share, client=client)
    assert widget.share.value == share
    widget.expires.value = ""
    widget.create_button.click()
    assert widget.token["expirationTime"] is None and "expires never" in widget.output.value
    assert not widget.reveal_button.value  # each new token starts hidden
    widget.save_path.value = str(tmp_path / "partner.share")
    widget.save_button.click()
    assert json.loads((tmp_path / "partner.share").read_text())["bearerToken"] == widget.token["token"]
    widget.save_path.value = str(tmp_path / "missing-dir" / "x.share")
    widget.save_button.click()
    assert "Cannot save" in widget.status.value


def test_token_widget_failures_go_to_the_status_line(client, share):
    widget = TokenWidget(share=share, client=client)
    client.remove_share(share)
    widget.create_button.click()
    assert widget.token is None and "does not exist" in widget.status.value
    assert widget.save_button.disabled
    widget.refresh()
    assert share not in widget.share.options


def test_widgets_given_an_unknown_share_say_so_at_once(client, share):
    token_widget = TokenWidget(share="no-such-share", client=client)
    assert "Share &#x27;no-such-share&#x27; does not exist" in token_widget.status.value
    assert token_widget.share.value is None and share in token_widget.share.options
    assert token_widget.create_button.disabled  # until a share is picked
    token_widget.share.value = share
    assert not token_widget.create_button.disabled
    share_widget = ShareWidget("no-such-share", client=client)
    assert "does not exist" in share_widget.status.value and share_widget.view.value == ""
    assert share_widget.add_button.disabled and share_widget.remove_button.disabled


def test_widget_labels_are_not_cut_short(client, share):
    token_widget, share_widget = TokenWidget(share=share, client=client), ShareWidget(share, client=client)
    labelled = [token_widget.share, token_widget.expires, token_widget.description, token_widget.save_path,
                share_widget.add_spec, share_widget.remove_choice]
    assert all(control.style.description_width == "initial" for control in labelled)


def test_share_widget_shows_adds_and_removes_tables(client, share, delta_tables):
    widget = ShareWidget(share, client=client)
    assert ">people</td>" in widget.view.value and ">teams</td>" not in widget.view.value
    assert widget.remove_choice.options == ("hr/people",)
    assert widget.add_button.disabled and widget.remove_button.disabled  # nothing typed or picked yet

    widget.add_spec.value = f"ops:teams:delta:{delta_tables}:teams"
    assert not widget.add_button.disabled
    widget.add_button.click()
    assert widget.add_spec.value == "" and "Added" in widget.status.value
    info = client.get_share(share)
    assert [(s["name"], [t["name"] for t in s["tables"]]) for s in info["schemas"]] == [
        ("hr", ["people"]), ("ops", ["teams"])]
    assert ">teams</td>" in widget.view.value
    assert set(widget.remove_choice.options) == {"hr/people", "ops/teams"}

    widget.remove_choice.value = "hr/people"
    assert not widget.remove_button.disabled
    widget.remove_button.click()
    assert "Removed hr/people" in widget.status.value
    assert [t["name"] for s in client.get_share(share)["schemas"] for t in s["tables"]] == ["teams"]
    assert widget.remove_choice.options == ("ops/teams",)


def test_share_widget_refuses_a_bad_spec_and_changes_nothing(client, share):
    widget = ShareWidget(share, client=client)
    before = client.get_share(share)
    widget.add_spec.value = "not-a-spec"
    widget.add_button.click()
    assert "bad table spec &#x27;not-a-spec&#x27;" in widget.status.value
    assert widget.add_spec.value == "not-a-spec"  # kept, to be corrected
    assert client.get_share(share)["schemas"] == before["schemas"]
    widget.add_spec.value = "  "
    assert widget.add_button.disabled


def test_share_widget_follows_the_selected_share(client, share, delta_tables):
    other = f"share-{uuid.uuid4().hex[:8]}"
    client.create_share(other, "ops", [f"teams:delta:{delta_tables}:teams"])
    try:
        widget = ShareWidget(share, client=client)
        widget.refresh()
        widget.share.value = other
        assert ">teams</td>" in widget.view.value and widget.remove_choice.options == ("ops/teams",)
    finally:
        client.remove_share(other)
