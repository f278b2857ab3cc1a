"""Helpers of the Delta Sharing tests: Delta tables written by deltalake into the server's S3, shares
and tokens made through the admin API, and raw protocol requests for what the client never sends."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import requests

from .conftest import ROOT_PASSWORD, ROOT_USER, admin_call


def storage_options(server) -> dict:
    return {"AWS_ACCESS_KEY_ID": ROOT_USER, "AWS_SECRET_ACCESS_KEY": ROOT_PASSWORD,
            "AWS_ENDPOINT_URL": server.endpoint, "AWS_ALLOW_HTTP": "true", "AWS_REGION": "us-east-1"}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def create_share(server, schema: str, specs: list[str], name: str | None = None) -> str:
    name = name or unique("share")
    status, body = admin_call(server, "POST", "/shares", {"name": name, "schema": schema, "tables": specs})
    assert status == 201, body
    return name


def create_token(server, share: str, **body) -> dict:
    status, token = admin_call(server, "POST", f"/shares/{share}/tokens", body)
    assert status == 201, token
    return token


def write_profile(directory: Path, profile: dict) -> str:
    path = directory / f"{uuid.uuid4().hex[:8]}.share"
    path.write_text(json.dumps(profile))
    return str(path)


def share_profile(server, directory: Path, schema: str, specs: list[str]) -> tuple[str, str]:
    """A new share of ``specs`` and the path of a bearer-token profile for it."""
    share = create_share(server, schema, specs)
    return share, write_profile(directory, create_token(server, share, expires="1d")["profile"])


def read_profile(path: str) -> dict:
    return json.loads(Path(path).read_text())


def sharing_request(profile: dict | str, method: str, path: str, *, json_body=None, headers=None,
                    params=None) -> requests.Response:
    """One raw request to the sharing endpoint of a profile (dict or file)."""
    if isinstance(profile, str):
        profile = read_profile(profile)
    headers = {"Authorization": f"Bearer {profile['bearerToken']}", **(headers or {})}
    return requests.request(method, profile["endpoint"] + path, json=json_body, headers=headers, params=params,
                            timeout=60)


def ndjson(response: requests.Response) -> list[dict]:
    assert response.status_code == 200, response.text
    return [json.loads(line) for line in response.text.splitlines() if line]


def table_path(share: str, schema: str, table: str) -> str:
    return f"/shares/{share}/schemas/{schema}/tables/{table}"
